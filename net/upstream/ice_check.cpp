#include "net/upstream/ice_check.hpp"

#include <array>
#include <optional>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

namespace netherscope::net::upstream {

namespace asio = boost::asio;
using udp = asio::ip::udp;
using clock_type = std::chrono::steady_clock;

struct ice_checker::state {
  asio::io_context& ioc;
  address_policy policy;
  ice_check_settings settings;
};

namespace {

/// The largest datagram read; STUN answers to a check are about 100 bytes, and one over this
/// is cut (and then fails to read as STUN), never overflows.
constexpr std::size_t receive_buffer = 1500;

/// One set of checks in progress: everything lives on one strand.
class check_run : public std::enable_shared_from_this<check_run> {
public:
  using done_fn = std::function<void(std::vector<udp_check_result>&&)>;

  check_run(std::shared_ptr<const ice_checker::state> shared, std::vector<udp_check> checks,
            done_fn done)
    : shared_(std::move(shared)), strand_(asio::make_strand(shared_->ioc)), timer_(strand_),
      v4_(strand_), v6_(strand_), settings_(shared_->settings), checks_(std::move(checks)),
      done_(std::move(done)),
      results_(checks_.size()), open_(checks_.size()) {
    // nop
  }

  /// Decides which checks may be sent, opens the sockets they need and starts.
  void start() {
    asio::post(strand_, [self = shared_from_this()]() { self->begin(); });
  }

private:
  struct open_check {
    bool sending = false;
    bool bad_integrity_seen = false;
    udp::endpoint to;
    std::optional<clock_type::time_point> first_sent;
  };

  void begin() {
    const auto& policy = shared_->policy;
    started_ = clock_type::now();
    for (std::size_t i = 0; i < checks_.size(); ++i) {
      boost::system::error_code ec;
      auto address = asio::ip::make_address(checks_[i].address, ec);
      if (ec) {
        results_[i].outcome = check_outcome::not_an_address;
        continue;
      }
      auto verdict = policy.check(address);
      if (!verdict.allowed) {
        results_[i].outcome = check_outcome::refused;
        results_[i].reason = std::move(verdict.reason);
        continue;
      }
      if (pending_ >= settings_.max_destinations) {
        results_[i].outcome = check_outcome::over_limit;
        continue;
      }
      auto& socket = address.is_v4() ? v4_ : v6_;
      if (!socket.is_open() && !open_socket(socket, address.is_v4())) {
        results_[i].outcome = check_outcome::send_failed;
        continue;
      }
      open_[i].sending = true;
      open_[i].to = udp::endpoint{address, checks_[i].port};
      ++pending_;
    }
    if (pending_ == 0)
      return finish();
    if (v4_.is_open())
      receive(v4_, buffer4_, from4_);
    if (v6_.is_open())
      receive(v6_, buffer6_, from6_);
    transmit();
  }

  bool open_socket(udp::socket& socket, bool v4) {
    boost::system::error_code ec;
    socket.open(v4 ? udp::v4() : udp::v6(), ec);
    if (!ec && !v4)
      socket.set_option(asio::ip::v6_only{true}, ec);
    if (!ec)
      socket.bind(udp::endpoint{v4 ? udp::v4() : udp::v6(), 0}, ec);
    if (ec) {
      socket.close(ec);
      return false;
    }
    return true;
  }

  /// Sends every open check once, then waits for the next step of the schedule or the end.
  void transmit() {
    auto now = clock_type::now();
    for (std::size_t i = 0; i < checks_.size(); ++i) {
      if (!open_[i].sending)
        continue;
      if (!open_[i].first_sent)
        open_[i].first_sent = now;
      auto& socket = open_[i].to.address().is_v4() ? v4_ : v6_;
      socket.async_send_to(
        asio::buffer(checks_[i].request), open_[i].to,
        asio::bind_executor(strand_, [self = shared_from_this(), i](
                                       boost::system::error_code ec, std::size_t) {
          if (ec && !self->finished_ && self->open_[i].sending)
            self->close_check(i, check_outcome::send_failed, -1);
        }));
    }
    ++round_;
    auto next = round_ < settings_.schedule.size() ? settings_.schedule[round_]
                                                   : settings_.deadline;
    if (next > settings_.deadline)
      next = settings_.deadline;
    timer_.expires_at(started_ + next);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->finished_)
        return;
      if (self->round_ < self->settings_.schedule.size()
          && self->settings_.schedule[self->round_] < self->settings_.deadline)
        self->transmit();
      else
        self->finish();
    });
  }

  void receive(udp::socket& socket, std::array<char, receive_buffer>& buffer,
               udp::endpoint& from) {
    socket.async_receive_from(
      asio::buffer(buffer), from,
      asio::bind_executor(strand_, [self = shared_from_this(), &socket, &buffer, &from](
                                     boost::system::error_code ec, std::size_t n) {
        if (self->finished_)
          return;
        // Errors on an unconnected UDP socket (an ICMP message for one destination on some
        // systems) say nothing about the other checks: keep listening until the deadline.
        if (!ec)
          self->judge(from, std::string_view{buffer.data(), n});
        if (!self->finished_)
          self->receive(socket, buffer, from);
      }));
  }

  void judge(const udp::endpoint& from, std::string_view datagram) {
    for (std::size_t i = 0; i < checks_.size(); ++i) {
      // Only the candidate's own address and port can prove that port open.
      if (!open_[i].sending || open_[i].to != from)
        continue;
      auto reply = checks_[i].judge(datagram);
      switch (reply) {
        case check_reply::unrelated:
          break;
        case check_reply::bad_integrity:
          // Someone answered without the credentials; a valid answer may still follow.
          open_[i].bad_integrity_seen = true;
          break;
        case check_reply::success: {
          std::chrono::duration<double, std::milli> rtt = clock_type::now() - *open_[i].first_sent;
          return close_check(i, check_outcome::reachable, rtt.count());
        }
        case check_reply::error:
          return close_check(i, check_outcome::error_response, -1);
      }
    }
  }

  void close_check(std::size_t i, check_outcome outcome, double rtt_ms) {
    open_[i].sending = false;
    results_[i].outcome = outcome;
    results_[i].rtt_ms = rtt_ms;
    if (--pending_ == 0)
      finish();
  }

  void finish() {
    if (finished_)
      return;
    finished_ = true;
    for (std::size_t i = 0; i < checks_.size(); ++i)
      if (open_[i].sending)
        results_[i].outcome = open_[i].bad_integrity_seen ? check_outcome::bad_integrity
                                                          : check_outcome::timeout;
    timer_.cancel();
    boost::system::error_code ignored;
    v4_.close(ignored);
    v6_.close(ignored);
    auto done = std::move(done_);
    done(std::move(results_));
  }

  /// The checker's policy and settings, kept alive while the run lasts.
  std::shared_ptr<const ice_checker::state> shared_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  udp::socket v4_;
  udp::socket v6_;
  std::array<char, receive_buffer> buffer4_{};
  std::array<char, receive_buffer> buffer6_{};
  udp::endpoint from4_;
  udp::endpoint from6_;
  ice_check_settings settings_;
  std::vector<udp_check> checks_;
  done_fn done_;
  std::vector<udp_check_result> results_;
  std::vector<open_check> open_;
  std::size_t pending_ = 0;
  std::size_t round_ = 0;
  bool finished_ = false;
  clock_type::time_point started_;
};

} // namespace

ice_checker::ice_checker(asio::io_context& ioc, address_policy policy,
                         ice_check_settings settings)
  : state_(std::make_shared<state>(state{ioc, std::move(policy), std::move(settings)})) {
  // nop
}

void ice_checker::run(std::vector<udp_check> checks,
                      std::function<void(std::vector<udp_check_result>&&)> done) {
  std::make_shared<check_run>(state_, std::move(checks), std::move(done))->start();
}

std::string_view to_string(check_outcome outcome) {
  switch (outcome) {
    case check_outcome::reachable:
      return "reachable";
    case check_outcome::timeout:
      return "timeout";
    case check_outcome::bad_integrity:
      return "integrity";
    case check_outcome::error_response:
      return "error_response";
    case check_outcome::refused:
      return "policy";
    case check_outcome::not_an_address:
      return "not_ip";
    case check_outcome::over_limit:
      return "limit";
    case check_outcome::send_failed:
      return "send_failed";
  }
  return "timeout";
}

} // namespace netherscope::net::upstream
