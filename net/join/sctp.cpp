#include "net/join/sctp.hpp"

#include <cstdlib>
#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>

#include <usrsctp.h>

namespace netherscope::net::join {

namespace {

int on_output(void* addr, void* buffer, std::size_t length, std::uint8_t, std::uint8_t) {
  static_cast<sctp_association*>(addr)->emit(
    std::string_view{static_cast<const char*>(buffer), length});
  return 0;
}

int on_receive(struct ::socket*, union sctp_sockstore, void* data, std::size_t length,
               struct sctp_rcvinfo info, int flags, void* ulp) {
  auto* self = static_cast<sctp_association*>(ulp);
  if (data == nullptr)
    return 1;
  if ((flags & MSG_NOTIFICATION) != 0) {
    auto* n = static_cast<const sctp_notification*>(data);
    if (length >= sizeof(n->sn_header)) {
      if (n->sn_header.sn_type == SCTP_ASSOC_CHANGE && length >= sizeof(sctp_assoc_change)) {
        auto state = n->sn_assoc_change.sac_state;
        sctp_delivery e;
        e.what = state == SCTP_COMM_UP || state == SCTP_RESTART ? sctp_delivery::kind::up
                                                                  : sctp_delivery::kind::down;
        self->deliver(std::move(e));
      } else if (n->sn_header.sn_type == SCTP_STREAM_RESET_EVENT) {
        sctp_delivery e;
        e.what = sctp_delivery::kind::stream_reset;
        self->deliver(std::move(e));
      }
    }
  } else {
    sctp_delivery e;
    e.what = sctp_delivery::kind::message;
    e.stream = info.rcv_sid;
    e.ppid = ntohl(info.rcv_ppid);
    e.data.assign(static_cast<const char*>(data), length);
    self->deliver(std::move(e));
  }
  std::free(data);
  return 1;
}

/// usrsctp is set up once per process and never torn down: the worker exits after its join.
bool stack_ready() {
  static const bool ready = [] {
    usrsctp_init_nothreads(0, on_output, nullptr);
    // As libdatachannel: no ECN, and short retransmission timeouts, so a lost INIT or DATA
    // chunk is sent again well within the join's time.
    usrsctp_sysctl_set_sctp_ecn_enable(0);
    usrsctp_sysctl_set_sctp_init_rto_max_default(1000);
    usrsctp_sysctl_set_sctp_rto_min_default(100);
    usrsctp_sysctl_set_sctp_rto_initial_default(200);
    usrsctp_sysctl_set_sctp_delayed_sack_time_default(20);
    return true;
  }();
  return ready;
}

sockaddr_conn conn_address(void* tag, std::uint16_t port) {
  sockaddr_conn a{};
  a.sconn_family = AF_CONN;
  a.sconn_port = htons(port);
  a.sconn_addr = tag;
  return a;
}

} // namespace

std::unique_ptr<sctp_association> sctp_association::make(std::uint16_t local_port,
                                                          std::uint16_t remote_port,
                                                          output_fn output, std::string* why) {
  auto fail = [&](const char* reason) -> std::unique_ptr<sctp_association> {
    if (why != nullptr)
      *why = reason;
    return nullptr;
  };
  if (!stack_ready())
    return fail("usrsctp did not start");
  std::unique_ptr<sctp_association> a{new sctp_association};
  a->output_ = std::move(output);
  a->local_port_ = local_port;
  a->remote_port_ = remote_port;
  usrsctp_register_address(a.get());
  a->sock_ = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, on_receive, nullptr, 0, a.get());
  if (a->sock_ == nullptr)
    return fail("usrsctp refused a socket");
  usrsctp_set_non_blocking(a->sock_, 1);
  const int on = 1;
  usrsctp_setsockopt(a->sock_, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on);
  usrsctp_setsockopt(a->sock_, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on);
  linger no_linger{1, 0};
  usrsctp_setsockopt(a->sock_, SOL_SOCKET, SO_LINGER, &no_linger, sizeof no_linger);
  sctp_assoc_value reset{};
  reset.assoc_id = SCTP_ALL_ASSOC;
  reset.assoc_value = SCTP_ENABLE_RESET_STREAM_REQ;
  usrsctp_setsockopt(a->sock_, IPPROTO_SCTP, SCTP_ENABLE_STREAM_RESET, &reset, sizeof reset);
  for (std::uint16_t type : {std::uint16_t{SCTP_ASSOC_CHANGE}, std::uint16_t{SCTP_STREAM_RESET_EVENT}}) {
    struct ::sctp_event ev{};
    ev.se_assoc_id = SCTP_ALL_ASSOC;
    ev.se_on = 1;
    ev.se_type = type;
    usrsctp_setsockopt(a->sock_, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev);
  }
  sctp_initmsg init{};
  init.sinit_num_ostreams = 1024;
  init.sinit_max_instreams = 1024;
  usrsctp_setsockopt(a->sock_, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init);
  sctp_paddrparams params{};
  params.spp_flags = SPP_PMTUD_DISABLE;
  params.spp_pathmtu = 1172;
  usrsctp_setsockopt(a->sock_, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &params, sizeof params);
  auto local = conn_address(a.get(), local_port);
  if (usrsctp_bind(a->sock_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0)
    return fail("usrsctp could not bind");
  return a;
}

sctp_association::~sctp_association() {
  if (sock_ != nullptr)
    usrsctp_close(sock_);
  usrsctp_deregister_address(this);
}

bool sctp_association::connect() {
  auto remote = conn_address(this, remote_port_);
  int r = usrsctp_connect(sock_, reinterpret_cast<sockaddr*>(&remote), sizeof remote);
  return r == 0 || errno == EINPROGRESS;
}

void sctp_association::on_packet(std::string_view packet) {
  usrsctp_conninput(this, packet.data(), packet.size(), 0);
}

void sctp_association::on_timer(std::chrono::steady_clock::time_point now) {
  if (last_timer_) {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(now - *last_timer_);
    if (elapsed.count() <= 0)
      return;
    usrsctp_handle_timers(static_cast<std::uint32_t>(elapsed.count()));
  }
  last_timer_ = now;
}

bool sctp_association::send(std::uint16_t stream, std::uint32_t ppid, std::string_view data,
                            bool ordered, bool reliable) {
  sctp_sendv_spa spa{};
  spa.sendv_flags = SCTP_SEND_SNDINFO_VALID;
  spa.sendv_sndinfo.snd_sid = stream;
  spa.sendv_sndinfo.snd_ppid = htonl(ppid);
  spa.sendv_sndinfo.snd_flags = SCTP_EOR | (ordered ? 0 : SCTP_UNORDERED);
  if (!reliable) {
    spa.sendv_flags |= SCTP_SEND_PRINFO_VALID;
    spa.sendv_prinfo.pr_policy = SCTP_PR_SCTP_RTX;
    spa.sendv_prinfo.pr_value = 0;
  }
  auto n = usrsctp_sendv(sock_, data.data(), data.size(), nullptr, 0, &spa, sizeof spa,
                         SCTP_SENDV_SPA, 0);
  return n >= 0;
}

void sctp_association::shutdown() {
  usrsctp_shutdown(sock_, SHUT_WR);
}

std::vector<sctp_delivery> sctp_association::take_events() {
  std::vector<sctp_delivery> out;
  out.swap(events_);
  return out;
}

void sctp_association::emit(std::string_view packet) {
  if (output_)
    output_(packet);
}

void sctp_association::deliver(sctp_delivery e) {
  events_.push_back(std::move(e));
}

} // namespace netherscope::net::join
