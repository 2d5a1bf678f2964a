#include "net/upstream/udp_exchange.hpp"

#include <algorithm>
#include <deque>
#include <optional>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "core/host_port.hpp"

namespace netherscope::net::upstream {

namespace asio = boost::asio;
using udp = asio::ip::udp;
using clock_type = std::chrono::steady_clock;

struct udp_exchanger::state {
  asio::io_context& ioc;
  std::shared_ptr<dns_resolver> resolver;
  address_policy policy;
  udp_exchange_settings settings;
};

namespace {

/// One exchange in progress: everything lives on one strand.
class exchange_run : public std::enable_shared_from_this<exchange_run> {
public:
  using done_fn = std::function<void(udp_exchange_result&&)>;

  exchange_run(std::shared_ptr<const udp_exchanger::state> shared, udp_exchange_request request,
               done_fn done)
    : shared_(std::move(shared)), settings_(shared_->settings), request_(std::move(request)),
      done_(std::move(done)), strand_(asio::make_strand(shared_->ioc)), timer_(strand_) {
    deadline_ = request_.deadline > std::chrono::milliseconds::zero()
                  ? std::min(request_.deadline, settings_.deadline)
                  : settings_.deadline;
  }

  void start() {
    asio::post(strand_, [self = shared_from_this()] { self->begin(); });
  }

private:
  /// One address of the target, with its own connected socket.
  struct peer {
    explicit peer(asio::strand<asio::io_context::executor_type>& strand) : socket(strand) {
      // nop
    }
    udp::socket socket;
    udp::endpoint to;
    udp::endpoint from;
    std::vector<char> buffer;
    bool open = false;
    bool refused = false;
  };

  std::string target_text() const {
    return core::host_for_url(request_.host) + ":" + std::to_string(request_.port);
  }

  std::string udp_text() const {
    return "UDP " + target_text();
  }

  // -- finding the addresses -------------------------------------------------------------------

  void begin() {
    if (!request_.addresses.empty())
      return use_addresses(request_.addresses);
    if (!shared_->resolver)
      return fail(udp_outcome::lookup_failed, "cannot resolve " + request_.host
                                                + ": no resolver is configured for UDP");
    resolving_ = true;
    timer_.expires_after(settings_.lookup_timeout);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      // The answer may have come first, with this handler already queued.
      if (!ec && self->resolving_)
        self->fail(udp_outcome::lookup_timeout, "no name server answered for "
                                                  + self->request_.host + " in time");
    });
    shared_->resolver->resolve(request_.host, strand_,
                               [self = shared_from_this()](dns_answer answer) {
                                 self->on_resolved(std::move(answer));
                               });
  }

  void on_resolved(dns_answer answer) {
    resolving_ = false;
    if (finished_)
      return;
    timer_.cancel();
    if (answer.status == dns_status::timeout)
      return fail(udp_outcome::lookup_timeout,
                  "no name server answered for " + request_.host + " in time");
    if (answer.status == dns_status::not_found)
      return fail(udp_outcome::lookup_failed, "cannot resolve " + request_.host
                                                + ": no such name, or it has no address");
    if (answer.status != dns_status::ok)
      return fail(udp_outcome::lookup_failed, "cannot resolve " + request_.host + ": "
                                                + answer.detail);
    use_addresses(answer.addresses);
  }

  void use_addresses(const std::vector<asio::ip::address>& addresses) {
    // These are the only addresses ever sent to: the name is not resolved again, so a second,
    // different DNS answer cannot slip a refused address past the check.
    std::string first_refusal;
    for (const auto& address : addresses) {
      if (peers_.size() == settings_.max_addresses)
        break;
      auto verdict = shared_->policy.check(address);
      if (!verdict.allowed) {
        if (first_refusal.empty())
          first_refusal = verdict.reason;
        continue;
      }
      auto p = std::make_unique<peer>(strand_);
      p->to = udp::endpoint{address, request_.port};
      peers_.push_back(std::move(p));
    }
    if (peers_.empty()) {
      if (first_refusal.empty())
        return fail(udp_outcome::lookup_failed, request_.host + " resolved to no address");
      return fail(udp_outcome::forbidden, "target " + target_text() + " refused: " + first_refusal);
    }
    result_.address = peers_.front()->to.address().to_string();
    std::string last_error;
    for (auto& p : peers_) {
      boost::system::error_code ec;
      p->socket.open(p->to.protocol(), ec);
      // Connected: the kernel delivers only this peer's datagrams, and its ICMP errors.
      if (!ec)
        p->socket.connect(p->to, ec);
      if (ec) {
        last_error = ec.message();
        boost::system::error_code ignored;
        p->socket.close(ignored);
        continue;
      }
      p->open = true;
      // One byte more than a reply may have, to tell a reply that fills the limit from one
      // that was cut.
      p->buffer.resize(settings_.max_reply + 1);
    }
    if (open_peers() == 0)
      return fail(udp_outcome::unreachable, "cannot reach " + udp_text() + ": " + last_error);
    started_ = clock_type::now();
    for (auto& p : peers_)
      if (p->open)
        receive(*p);
    transmit();
  }

  std::size_t open_peers() const {
    return static_cast<std::size_t>(
      std::count_if(peers_.begin(), peers_.end(), [](const auto& p) { return p->open; }));
  }

  // -- the tries -------------------------------------------------------------------------------

  /// Sends this try's datagram to every open address, then waits for the next try or the end.
  void transmit() {
    auto try_index = sent_at_.size();
    datagrams_.push_back(request_.datagram(try_index));
    sent_at_.push_back(clock_type::now());
    result_.tries_sent = sent_at_.size();
    const auto& bytes = datagrams_.back();
    for (auto& p : peers_) {
      if (!p->open)
        continue;
      p->socket.async_send(asio::buffer(bytes),
                           asio::bind_executor(strand_, [self = shared_from_this(), p = p.get()](
                                                          boost::system::error_code ec,
                                                          std::size_t) {
                             if (ec && ec != asio::error::operation_aborted)
                               self->peer_failed(*p, ec);
                           }));
    }
    const auto& schedule = settings_.schedule;
    auto next = sent_at_.size() < schedule.size() ? std::min(schedule[sent_at_.size()], deadline_)
                                                  : deadline_;
    timer_.expires_at(started_ + next);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec || self->finished_)
        return;
      auto tries = self->sent_at_.size();
      const auto& schedule = self->settings_.schedule;
      if (tries < schedule.size() && schedule[tries] < self->deadline_)
        self->transmit();
      else
        self->end_without_answer();
    });
  }

  void receive(peer& p) {
    p.socket.async_receive_from(
      asio::buffer(p.buffer), p.from,
      asio::bind_executor(strand_, [self = shared_from_this(), p = &p](
                                     boost::system::error_code ec, std::size_t n) {
        if (self->finished_ || ec == asio::error::operation_aborted)
          return;
        if (ec)
          return self->peer_failed(*p, ec);
        self->judge(*p, n);
        if (!self->finished_ && p->open)
          self->receive(*p);
      }));
  }

  void judge(peer& p, std::size_t n) {
    // The kernel already drops other sources on a connected socket; this stays true if that
    // ever changes (an unconnected socket, a platform that delivers anyway).
    if (p.from != p.to)
      return;
    if (n > settings_.max_reply) {
      remember_malformed("it is larger than the " + std::to_string(settings_.max_reply)
                         + " bytes read of a reply");
      return;
    }
    auto judgement = request_.judge(std::string_view{p.buffer.data(), n});
    switch (judgement.verdict) {
      case reply_verdict::unrelated:
        return;
      case reply_verdict::malformed:
        return remember_malformed(std::move(judgement.reason));
      case reply_verdict::accepted:
        break;
    }
    auto index = judgement.try_index < sent_at_.size() ? judgement.try_index : 0;
    std::chrono::duration<double, std::milli> latency = clock_type::now() - sent_at_[index];
    result_.outcome = udp_outcome::answered;
    result_.reply.assign(p.buffer.data(), n);
    result_.latency_ms = latency.count();
    result_.try_index = index;
    result_.address = p.to.address().to_string();
    finish();
  }

  void remember_malformed(std::string reason) {
    if (malformed_.empty())
      malformed_ = std::move(reason);
  }

  /// A socket error for one address: port unreachable (ECONNREFUSED on a connected UDP
  /// socket) or another ICMP error, or a send that failed. That address is done.
  void peer_failed(peer& p, const boost::system::error_code& ec) {
    if (finished_ || !p.open)
      return;
    p.open = false;
    p.refused = ec == asio::error::connection_refused;
    if (!p.refused)
      last_error_ = ec.message();
    boost::system::error_code ignored;
    p.socket.close(ignored);
    if (open_peers() > 0)
      return;
    bool any_refused = std::any_of(peers_.begin(), peers_.end(),
                                   [](const auto& q) { return q->refused; });
    if (!malformed_.empty())
      return fail(udp_outcome::malformed, udp_text() + " answered, but " + malformed_);
    if (any_refused)
      return fail(udp_outcome::no_listener,
                  "nothing listens on " + udp_text()
                    + ": the host answered with ICMP port unreachable");
    fail(udp_outcome::unreachable, "cannot reach " + udp_text() + ": " + last_error_);
  }

  void end_without_answer() {
    if (!malformed_.empty())
      return fail(udp_outcome::malformed, udp_text() + " answered, but " + malformed_);
    fail(udp_outcome::timeout, "no answer on " + udp_text() + " within "
                                 + std::to_string(deadline_.count()) + " ms ("
                                 + std::to_string(sent_at_.size())
                                 + (sent_at_.size() == 1 ? " try)" : " tries)"));
  }

  void fail(udp_outcome outcome, std::string message) {
    result_.outcome = outcome;
    result_.message = std::move(message);
    finish();
  }

  void finish() {
    if (finished_)
      return;
    finished_ = true;
    timer_.cancel();
    for (auto& p : peers_) {
      boost::system::error_code ignored;
      p->socket.close(ignored);
    }
    auto done = std::move(done_);
    done(std::move(result_));
  }

  /// The exchanger's resolver, policy and settings, kept alive while the run lasts.
  std::shared_ptr<const udp_exchanger::state> shared_;
  const udp_exchange_settings& settings_;
  udp_exchange_request request_;
  done_fn done_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  std::chrono::milliseconds deadline_;
  std::vector<std::unique_ptr<peer>> peers_;
  /// Each try's bytes, alive until their sends complete; a deque never moves its elements.
  std::deque<std::string> datagrams_;
  std::vector<clock_type::time_point> sent_at_;
  clock_type::time_point started_;
  std::string malformed_;
  std::string last_error_;
  udp_exchange_result result_;
  bool resolving_ = false;
  bool finished_ = false;
};

} // namespace

udp_exchanger::udp_exchanger(asio::io_context& ioc, std::shared_ptr<dns_resolver> resolver,
                             address_policy policy, udp_exchange_settings settings)
  : state_(std::make_shared<state>(
      state{ioc, std::move(resolver), std::move(policy), std::move(settings)})) {
  // nop
}

void udp_exchanger::run(udp_exchange_request request,
                        std::function<void(udp_exchange_result&&)> done) {
  std::make_shared<exchange_run>(state_, std::move(request), std::move(done))->start();
}

std::string_view to_string(udp_outcome outcome) {
  switch (outcome) {
    case udp_outcome::answered:
      return "answered";
    case udp_outcome::no_listener:
      return "no_listener";
    case udp_outcome::timeout:
      return "timeout";
    case udp_outcome::malformed:
      return "malformed";
    case udp_outcome::forbidden:
      return "forbidden";
    case udp_outcome::lookup_failed:
      return "lookup_failed";
    case udp_outcome::lookup_timeout:
      return "lookup_timeout";
    case udp_outcome::unreachable:
      return "unreachable";
  }
  return "timeout";
}

} // namespace netherscope::net::upstream
