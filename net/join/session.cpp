#include "net/join/session.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstring>

#include <boost/asio/ip/udp.hpp>

#include "net/join/dcep.hpp"
#include "net/join/game.hpp"
#include "net/join/sctp.hpp"

namespace netherscope::net::join {

namespace {

using clock = std::chrono::steady_clock;
using udp = boost::asio::ip::udp;
namespace stun = nethernet::stun;

double ms_between(clock::time_point a, clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::string to_text(const stun::transport_address& a) {
  if (a.address.is_v6())
    return "[" + a.address.to_string() + "]:" + std::to_string(a.port);
  return a.address.to_string() + ":" + std::to_string(a.port);
}

/// A non-blocking UDP socket of one family, bound to any port.
class datagram_socket {
public:
  explicit datagram_socket(bool v6) {
    fd_ = ::socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd_ < 0)
      return;
    udp::endpoint any{v6 ? udp::v6() : udp::v4(), 0};
    if (v6) {
      int on = 1;
      ::setsockopt(fd_, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    }
    if (::bind(fd_, any.data(), static_cast<socklen_t>(any.size())) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~datagram_socket() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  datagram_socket(const datagram_socket&) = delete;
  datagram_socket& operator=(const datagram_socket&) = delete;

  int fd() const {
    return fd_;
  }

  void send(const stun::transport_address& to, std::string_view bytes) const {
    udp::endpoint e{to.address, to.port};
    ::sendto(fd_, bytes.data(), bytes.size(), 0, e.data(), static_cast<socklen_t>(e.size()));
  }

  std::string local_text() const {
    udp::endpoint e;
    socklen_t size = static_cast<socklen_t>(e.capacity());
    if (::getsockname(fd_, e.data(), &size) != 0)
      return {};
    e.resize(size);
    return to_text({e.address(), e.port()});
  }

private:
  int fd_ = -1;
};

/// The join as a state machine over the sockets.
class join_run {
public:
  join_run(const join_job& job, concluded_fn concluded)
    : job_(job), concluded_(std::move(concluded)), agent_(job.ice, job.tie_breaker, job.candidates), v4_(false), v6_(true) {
    report_.role = job.role;
    report_.protocol_sent = job.protocol;
    report_.stage = join_stage::ice;
  }

  join_report run() {
    started_ = clock::now();
    stage_started_ = started_;
    deadline_ = started_ + job_.timeout;
    std::string why;
    dtls_ = dtls_session::make(job_.certificate_pem, job_.key_pem, job_.role, job_.fingerprint,
                               &why);
    if (!dtls_)
      return end_now(join_stage::dtls, join_outcome::dtls_failed, "our certificate: " + why);
    if (job_.candidates.empty())
      return end_now(join_stage::ice, join_outcome::ice_failed, "no candidate to check");
    loop();
    return finish();
  }

private:
  const datagram_socket& socket_for(const stun::transport_address& a) const {
    return a.address.is_v4() ? v4_ : v6_;
  }

  join_report end_now(join_stage stage, join_outcome outcome, std::string detail) {
    report_.stage = stage;
    report_.outcome = outcome;
    report_.detail = std::move(detail);
    record_end();
    return finish();
  }

  /// The stage the join ended in keeps its time until now, and the stage stays as it was; the
  /// closing that follows is not counted.
  void record_end() {
    if (ended_)
      return;
    ended_ = true;
    enter(report_.stage);
    report_.timings.total_ms = ms_between(started_, clock::now());
  }

  /// Records how the join ended and starts closing.
  void conclude(join_outcome outcome, std::string detail = {}) {
    if (done_)
      return;
    done_ = true;
    report_.outcome = outcome;
    report_.detail = std::move(detail);
    record_end();
    if (concluded_) {
      record_pairs();
      concluded_(report_);
    }
    closing_until_ = std::min(deadline_ + std::chrono::milliseconds{300},
                              clock::now() + std::chrono::milliseconds{300});
    if (sctp_)
      sctp_->shutdown();
    flush();
  }

  void enter(join_stage next) {
    auto now = clock::now();
    double took = ms_between(stage_started_, now);
    switch (report_.stage) {
      case join_stage::ice:
        report_.timings.ice_ms = took;
        break;
      case join_stage::dtls:
        report_.timings.dtls_ms = took;
        break;
      case join_stage::sctp:
        report_.timings.sctp_ms = took;
        break;
      case join_stage::channels:
        report_.timings.channels_ms = took;
        break;
      case join_stage::game:
        report_.timings.game_ms = took;
        break;
      case join_stage::signalling:
        break;
    }
    report_.stage = next;
    stage_started_ = now;
  }

  void loop() {
    std::array<char, 65536> buffer{};
    for (;;) {
      auto now = clock::now();
      if (done_ && (now >= closing_until_ || sctp_down_))
        return;
      if (!done_ && now >= deadline_) {
        on_deadline();
        continue;
      }
      for (auto& out : agent_.due(now))
        socket_for(agent_.remotes()[out.pair].where).send(agent_.remotes()[out.pair].where, out.bytes);
      maybe_start_dtls();
      auto dtls_next = dtls_->on_timer(now);
      flush();
      check_dtls();
      if (sctp_) {
        sctp_->on_timer(now);
        handle_sctp();
      }
      auto wake = done_ ? closing_until_ : deadline_;
      if (auto ice_next = agent_.next_due())
        wake = std::min(wake, *ice_next);
      if (dtls_next)
        wake = std::min(wake, *dtls_next);
      if (sctp_)
        wake = std::min(wake, now + std::chrono::milliseconds{10});
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(wake - clock::now());
      pollfd fds[2] = {{v4_.fd(), POLLIN, 0}, {v6_.fd(), POLLIN, 0}};
      int ready = ::poll(fds, 2, static_cast<int>(std::max<std::int64_t>(0, wait.count()) + 1));
      if (ready <= 0)
        continue;
      for (auto& p : fds)
        if (p.fd >= 0 && (p.revents & POLLIN) != 0)
          drain(p.fd, buffer);
    }
  }

  void drain(int fd, std::array<char, 65536>& buffer) {
    // A bounded number per wake-up, so one flood cannot starve the timers.
    for (int i = 0; i < 64; ++i) {
      udp::endpoint from;
      socklen_t size = static_cast<socklen_t>(from.capacity());
      auto n = ::recvfrom(fd, buffer.data(), buffer.size(), 0, from.data(), &size);
      if (n < 0)
        return;
      from.resize(size);
      ++report_.datagrams_in;
      report_.bytes_in += static_cast<std::uint64_t>(n);
      if (report_.datagrams_in > max_datagrams_in || report_.bytes_in > max_bytes_in) {
        if (!done_)
          conclude(outcome_at_deadline(), "the server sent more than a join takes in");
        else
          closing_until_ = clock::now();
        return;
      }
      on_datagram({buffer.data(), static_cast<std::size_t>(n)}, {from.address(), from.port()});
    }
  }

  void on_datagram(std::string_view d, const stun::transport_address& from) {
    if (d.empty())
      return;
    auto first = static_cast<unsigned char>(d[0]);
    if (first <= 3) {
      auto answer = agent_.on_stun(d, from, clock::now());
      if (!answer.empty())
        socket_for(from).send(from, answer);
      return;
    }
    if (first < 20 || first > 63)
      return;
    // DTLS: only from the pair the join uses, or, before one is chosen, from a candidate whose
    // checks went both ways (its ClientHello may overtake our check's answer).
    if (!peer_) {
      auto pair = agent_.pair_of(from);
      if (!pair)
        return;
      const auto& p = agent_.pairs()[*pair];
      if (!p.answered_us && p.checked_us == 0)
        return;
      choose(*pair);
    } else if (!same_address(*peer_, from)) {
      // The server sends on the pair it chose, and may move to another (libwebrtc does, under
      // load, once our nomination reaches it): data is welcome on any pair whose checks went
      // both ways (RFC 8445 §12), and ours follows it there.
      auto pair = agent_.pair_of(from);
      if (!pair)
        return;
      const auto& p = agent_.pairs()[*pair];
      if (!p.answered_us || p.checked_us == 0)
        return;
      peer_ = from;
      report_.pair = *pair;
      report_.local = socket_for(*peer_).local_text();
    }
    dtls_started_ = true;
    std::vector<std::string> records;
    dtls_->on_datagram(d, records);
    flush();
    check_dtls();
    if (sctp_) {
      for (auto& r : records)
        sctp_->on_packet(r);
      handle_sctp();
    }
  }

  void choose(std::size_t pair) {
    peer_ = agent_.remotes()[pair].where;
    report_.pair = pair;
    report_.local = socket_for(*peer_).local_text();
    if (report_.stage == join_stage::ice)
      enter(join_stage::dtls);
  }

  void maybe_start_dtls() {
    if (peer_ || done_)
      return;
    auto selected = agent_.selected();
    if (!selected)
      return;
    choose(*selected);
    if (job_.role == dtls_role::client)
      dtls_->start();
  }

  void flush() {
    if (!peer_)
      return;
    for (auto& d : dtls_->take_output())
      socket_for(*peer_).send(*peer_, d);
  }

  void check_dtls() {
    auto state = dtls_->state();
    const auto& d = dtls_->details();
    report_.fingerprint_verified = d.fingerprint_verified;
    report_.alert = d.alert;
    report_.alert_from_peer = d.alert_from_peer;
    if (done_)
      return;
    if (state == dtls_state::fingerprint_mismatch) {
      conclude(join_outcome::fingerprint_mismatch,
               "the server's certificate is not the one its answer names");
      return;
    }
    if (state == dtls_state::failed) {
      std::string detail = d.alert.empty() ? "the handshake failed"
                                           : "alert \"" + d.alert + "\" "
                                               + (d.alert_from_peer ? "from the server" : "from us");
      conclude(join_outcome::dtls_failed, std::move(detail));
      return;
    }
    if (state == dtls_state::closed && report_.stage != join_stage::game) {
      conclude(report_.stage == join_stage::dtls ? join_outcome::dtls_failed
                                                 : join_outcome::channels_refused,
               "the server closed the DTLS session");
      return;
    }
    if (state == dtls_state::connected && !sctp_) {
      report_.cipher = d.cipher;
      report_.srtp_profile = d.srtp_profile;
      enter(join_stage::sctp);
      std::string why;
      sctp_ = sctp_association::make(5000, job_.sctp_port,
                                     [this](std::string_view packet) { dtls_->send(packet); },
                                     &why);
      if (!sctp_ || !sctp_->connect()) {
        conclude(join_outcome::sctp_failed, "usrsctp: " + why);
        return;
      }
      flush();
    }
  }

  /// The stream of a channel: the DTLS server takes odd ids, the client even ones (RFC 8832).
  std::uint16_t stream_of(channel c) const {
    std::uint16_t base = job_.role == dtls_role::server ? 1 : 0;
    return static_cast<std::uint16_t>(base + (c == channel::reliable ? 0 : 2));
  }

  void handle_sctp() {
    for (auto& e : sctp_->take_events())
      on_sctp(e);
    flush();
  }

  void on_sctp(const sctp_delivery& e) {
    switch (e.what) {
      case sctp_delivery::kind::up:
        if (report_.stage == join_stage::sctp && !done_) {
          enter(join_stage::channels);
          sctp_->send(stream_of(channel::reliable), static_cast<std::uint32_t>(ppid::dcep),
                      open_message(channel::reliable), true, true);
          sctp_->send(stream_of(channel::unreliable), static_cast<std::uint32_t>(ppid::dcep),
                      open_message(channel::unreliable), true, true);
        }
        return;
      case sctp_delivery::kind::down:
        sctp_down_ = true;
        if (!done_)
          conclude(report_.stage == join_stage::sctp ? join_outcome::sctp_failed
                   : report_.stage == join_stage::channels ? join_outcome::channels_refused
                                                           : join_outcome::game_silent,
                   "the server closed the SCTP association");
        return;
      case sctp_delivery::kind::stream_reset:
        if (!done_)
          conclude(report_.stage == join_stage::game ? join_outcome::game_silent
                                                     : join_outcome::channels_refused,
                   "the server closed a channel");
        return;
      case sctp_delivery::kind::message:
        break;
    }
    if (done_)
      return;
    if (e.ppid == static_cast<std::uint32_t>(ppid::dcep)) {
      on_dcep(e);
      return;
    }
    if (e.stream != stream_of(channel::reliable))
      return;
    if (report_.stage != join_stage::game) {
      conclude(join_outcome::channels_refused, "the server sent data before the channel opened");
      return;
    }
    auto whole = segments_.add(e.data);
    if (!whole.error.empty()) {
      conclude(join_outcome::game_unreadable, whole.error);
      return;
    }
    if (whole.message)
      on_game(*whole.message);
  }

  void on_dcep(const sctp_delivery& e) {
    auto kind = read_dcep(e.data);
    if (kind == dcep_message::open) {
      conclude(join_outcome::channels_refused, "the server opened a channel of its own");
      return;
    }
    if (kind != dcep_message::ack || report_.stage != join_stage::channels)
      return;
    if (e.stream == stream_of(channel::reliable))
      report_.reliable_open = true;
    else if (e.stream == stream_of(channel::unreliable))
      report_.unreliable_open = true;
    if (report_.reliable_open && report_.unreliable_open) {
      enter(join_stage::game);
      sctp_->send(stream_of(channel::reliable), static_cast<std::uint32_t>(ppid::binary),
                  whole_segment(request_network_settings(job_.protocol)), true, true);
    }
  }

  void on_game(const std::string& message) {
    auto batch = read_batch(message);
    if (!batch.error.empty()) {
      conclude(join_outcome::game_unreadable, batch.error);
      return;
    }
    for (auto& packet : batch.packets) {
      if (auto* s = std::get_if<network_settings>(&packet)) {
        report_.compression_threshold = s->compression_threshold;
        report_.compression_algorithm = s->compression_algorithm;
        conclude(join_outcome::joined);
        return;
      }
      if (auto* p = std::get_if<play_status>(&packet)) {
        report_.play_status = p->status;
        conclude(p->status == 1   ? join_outcome::outdated_client
                 : p->status == 2 ? join_outcome::outdated_server
                                  : join_outcome::game_refused,
                 "PlayStatus " + std::to_string(p->status));
        return;
      }
      if (auto* d = std::get_if<disconnect>(&packet)) {
        report_.disconnect_reason = d->reason;
        report_.disconnect_message = d->message;
        conclude(join_outcome::game_refused, "Disconnect " + std::to_string(d->reason));
        return;
      }
    }
    // Other packets before the answer are read past; the deadline still holds.
  }

  join_outcome outcome_at_deadline() const {
    switch (report_.stage) {
      case join_stage::signalling:
      case join_stage::ice:
        return join_outcome::ice_failed;
      case join_stage::dtls:
        return join_outcome::dtls_failed;
      case join_stage::sctp:
        return join_outcome::sctp_failed;
      case join_stage::channels:
        return join_outcome::channels_refused;
      case join_stage::game:
        return join_outcome::game_silent;
    }
    return join_outcome::ice_failed;
  }

  void on_deadline() {
    std::string detail;
    switch (report_.stage) {
      case join_stage::ice:
        detail = "no candidate answered our checks and checked us within the join's time";
        break;
      case join_stage::dtls:
        detail = job_.role == dtls_role::server ? "no DTLS ClientHello, or no finished handshake, in time"
                                                : "the handshake did not finish in time";
        break;
      case join_stage::sctp:
        detail = "the SCTP association did not come up in time";
        break;
      case join_stage::channels:
        detail = "a channel was not acknowledged in time";
        break;
      default:
        detail = "no answer to RequestNetworkSettings in time";
        break;
    }
    conclude(outcome_at_deadline(), std::move(detail));
  }

  join_report finish() {
    if (dtls_) {
      dtls_->close();
      flush();
    }
    record_end();
    record_pairs();
    return report_;
  }

  /// What each candidate's pair did, as the report says it.
  void record_pairs() {
    report_.tried.clear();
    for (std::size_t i = 0; i < agent_.remotes().size(); ++i) {
      const auto& p = agent_.pairs()[i];
      tried_pair t;
      t.candidate = agent_.remotes()[i].raw;
      t.remote = to_text(agent_.remotes()[i].where);
      t.checks_sent = p.checks_sent;
      t.answered_us = p.answered_us;
      t.checked_us = p.checked_us;
      t.bad_integrity = p.bad_integrity;
      t.error_answer = p.error_answer;
      t.rtt_ms = p.rtt_ms;
      report_.tried.push_back(std::move(t));
    }
  }

  const join_job& job_;
  concluded_fn concluded_;
  ice_agent agent_;
  datagram_socket v4_;
  datagram_socket v6_;
  std::unique_ptr<dtls_session> dtls_;
  std::unique_ptr<sctp_association> sctp_;
  reassembler segments_;
  std::optional<stun::transport_address> peer_;
  join_report report_;
  clock::time_point started_;
  clock::time_point stage_started_;
  clock::time_point deadline_;
  clock::time_point closing_until_;
  bool done_ = false;
  bool ended_ = false;
  bool dtls_started_ = false;
  bool sctp_down_ = false;
};

} // namespace

join_report run_join(const join_job& job, concluded_fn concluded) {
  join_run run{job, std::move(concluded)};
  return run.run();
}

} // namespace netherscope::net::join
