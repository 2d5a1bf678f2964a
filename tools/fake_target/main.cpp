// fake_target: a loopback-only simulator of a NetherNet HTTP signalling server (BDS and
// friends, PROTOCOL.md §1–§4), faults included, for netherscope's tests and demo.
#include "config.hpp"
#include "crypto.hpp"
#include "issuer_fetch.hpp"
#include "listener.hpp"
#include "port_pool.hpp"
#include "raknet_responder.hpp"
#include "target_state.hpp"
#include "transport.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/system/system_error.hpp>

#include <sys/resource.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

namespace {

// Each event is one line, flushed at once: tests read stdout through a pipe line by line.
void emit_line(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

// How long each request to --xbox-issuer may take, connecting included.
constexpr std::chrono::seconds issuer_timeout{5};

std::int64_t unix_now() {
  using namespace std::chrono;
  return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
}

bool write_file(const std::string& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
  return static_cast<bool>(out.flush());
}

using raknet_run = std::vector<std::unique_ptr<fake_target::raknet_responder>>;

// A RakNet responder on each of `count` consecutive UDP ports from `port` (0: the OS picks the
// first). All are bound or none: a failure part way closes those already bound as the vector
// goes.
raknet_run open_raknet(boost::asio::io_context& ioc, fake_target::target_state& state, std::uint16_t port,
                       std::uint16_t count) {
  const auto& cfg = state.cfg;
  raknet_run run;
  run.push_back(std::make_unique<fake_target::raknet_responder>(ioc, cfg.bind, port, cfg, state.stats));
  const unsigned first = run.front()->port();
  if (first + count - 1 > 65535) throw boost::system::system_error(boost::asio::error::address_in_use);
  for (unsigned next = first + 1; next < first + count; ++next)
    run.push_back(std::make_unique<fake_target::raknet_responder>(ioc, cfg.bind, static_cast<std::uint16_t>(next),
                                                                  cfg, state.stats));
  return run;
}

// With --port 0 the OS picks the first port, and what has to follow it (the ports after it,
// or the TCP side of a RakNet port) may be taken: the whole run is bound again from another
// pick, a few times. A port given on the command line is tried once.
template <class Bind>
std::uint16_t bind_with_retries(std::uint16_t port, Bind bind) {
  for (int attempt = 0;; ++attempt) {
    try {
      return bind();
    } catch (const boost::system::system_error&) {
      if (port != 0 || attempt == 20) throw;
    }
  }
}

// --raknet on: TCP and UDP on one port number, as BDS and Pumpkin use 19132 for both. With
// --port 0 the OS picks the UDP port, and the TCP listener takes the same number.
std::uint16_t listen_on_both(boost::asio::io_context& ioc, fake_target::target_state& state,
                             boost::asio::ssl::context* tls, raknet_run& raknet) {
  const auto& cfg = state.cfg;
  return bind_with_retries(cfg.port, [&] {
    auto udp = open_raknet(ioc, state, cfg.port, cfg.port_count);
    const auto first = fake_target::start_listeners(ioc, cfg.bind, udp.front()->port(), cfg.port_count, state, tls);
    raknet = std::move(udp);
    return first;
  });
}

// --port-count: each port holds a descriptor, two with --raknet on, and a run of thousands
// passes the usual soft limit of 1024. The soft limit is raised to the hard one; false, with
// the reason on stderr, when even that is too low for the listening sockets and some room for
// connections and candidate ports.
bool make_room_for_ports(const fake_target::config& cfg) {
  if (cfg.port_count == 1) return true;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
  const rlim_t per_port = cfg.raknet == fake_target::raknet_mode::on ? 2 : 1;
  const rlim_t needed = per_port * cfg.port_count + 256;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed)
    return true;
  std::cerr << "fake_target: --port-count " << cfg.port_count << " needs at least " << needed
            << " open files, and the hard limit is " << limit.rlim_max
            << " (raise it: ulimit -Hn, or LimitNOFILE= in systemd)\n";
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fake_target;

  // The state is declared before the io_context: sessions destroyed along with the
  // io_context still update its connection counters.
  target_state state;
  if (const auto exit_code = parse_command_line(argc, argv, state.cfg)) return *exit_code;
  if (!make_room_for_ports(state.cfg)) return 1;
  state.now = unix_now;
  state.emit = emit_line;

  tls_certificate_set tls_certificate;
  game_settings game;
  try {
    state.identity_key = make_p384_key();
    // The answer's fingerprint names the DTLS certificate a join's handshake presents.
    const auto dtls = make_self_signed_certificate();
    state.dtls_fingerprint = sha256_fingerprint(dtls.cert_der);
    game.cert_pem = dtls.cert_pem;
    game.key_pem = dtls.key_pem;
    if (state.cfg.tls == tls_mode::on) tls_certificate = make_tls_certificate(state.cfg.cert);
  } catch (const std::exception& e) {
    std::cerr << "fake_target: " << e.what() << "\n";
    return 1;
  }
  if (!state.cfg.cert_out.empty() && !write_file(state.cfg.cert_out, tls_certificate.trust_pem)) {
    std::cerr << "fake_target: cannot write --cert-out " << state.cfg.cert_out << "\n";
    return 1;
  }

  boost::asio::io_context ioc{1};
  // Online verification needs the issuer's keys before the first offer, so they are loaded
  // before anything listens: the io_context runs the two requests alone and returns when they
  // end (each under its own timeout), and an issuer that does not answer stops the fake.
  std::unique_ptr<issuer_source> issuer;
  if (!state.cfg.xbox_issuer.empty()) {
    issuer = std::make_unique<issuer_source>(ioc, state.cfg.xbox_issuer, issuer_timeout);
    std::optional<std::string> failure;
    issuer->load([&failure](std::string error) { failure = std::move(error); });
    ioc.run();
    ioc.restart();
    if (!failure || !failure->empty()) {
      std::cerr << "fake_target: cannot load the keys of --xbox-issuer " << state.cfg.xbox_issuer << ": "
                << (failure ? *failure : std::string("no answer")) << "\n";
      return 1;
    }
    state.issuer = issuer.get();
  }
  game.mode = state.cfg.game == "silent"    ? game_mode::silent
              : state.cfg.game == "garbage" ? game_mode::garbage
              : state.cfg.game == "off"     ? game_mode::off
              : state.cfg.game == "no-sctp" ? game_mode::no_sctp
              : state.cfg.game == "refuse-channels" ? game_mode::refuse_channels
              : state.cfg.game == "alert" ? game_mode::alert
                                            : game_mode::normal;
  game.protocol = state.cfg.game_protocol;
  udp_port_pool ports(ioc, state.cfg.bind, state.cfg.udp_ports, state.cfg.port_hold, state.cfg.stun,
                      state.stats, game);
  state.ports = &ports;

  std::unique_ptr<boost::asio::ssl::context> tls;
  raknet_run raknet;
  std::uint16_t port = 0;
  std::uint16_t stats_port = 0;
  try {
    if (state.cfg.tls == tls_mode::on)
      tls = make_tls_context(tls_certificate.served.cert_pem, tls_certificate.served.key_pem);
    const auto& cfg = state.cfg;
    switch (cfg.raknet) {
      case raknet_mode::off:
        port = bind_with_retries(cfg.port, [&] {
          return start_listeners(ioc, cfg.bind, cfg.port, cfg.port_count, state, tls.get());
        });
        break;
      case raknet_mode::on:
        port = listen_on_both(ioc, state, tls.get(), raknet);
        break;
      case raknet_mode::only:
        // A RakNet-only server: UDP on the game port, nothing on its TCP side; the stats
        // still need HTTP, so they get a port of their own.
        port = bind_with_retries(cfg.port, [&] {
          raknet = open_raknet(ioc, state, cfg.port, cfg.port_count);
          return raknet.front()->port();
        });
        state.stats_only = true;
        stats_port = start_listeners(ioc, cfg.bind, 0, 1, state, nullptr);
        break;
    }
  } catch (const std::exception& e) {
    std::cerr << "fake_target: cannot listen on " << state.cfg.bind << ":" << state.cfg.port << ": "
              << e.what() << "\n";
    return 1;
  }
  std::string listening = R"({"event":"listening","port":)" + std::to_string(port);
  if (state.cfg.port_count > 1) listening += R"(,"port_count":)" + std::to_string(state.cfg.port_count);
  listening += R"(,"tls":")" + std::string(to_string(state.cfg.tls)) + R"(")";
  if (state.cfg.raknet != raknet_mode::off)
    listening += R"(,"raknet":")" + std::string(to_string(state.cfg.raknet)) + R"(")";
  if (stats_port != 0) listening += R"(,"stats_port":)" + std::to_string(stats_port);
  if (state.issuer) listening += R"(,"issuer":")" + state.cfg.xbox_issuer + R"(")";
  emit_line(listening + "}");

  boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&ioc](boost::system::error_code, int) { ioc.stop(); });
  ioc.run();
  return 0;
}
