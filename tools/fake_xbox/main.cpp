// fake_xbox: a loopback-only stand-in for the whole Xbox sign-in chain (login.live.com, the
// Xbox Live auth hosts, PlayFab, Minecraft services and their issuer) on one port, for
// netherscope's tests. README.md documents its options, routes and faults.
#include "crypto.hpp"
#include "server.hpp"
#include "state.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/program_options.hpp>

#include <csignal>
#include <cstdio>
#include <iostream>

namespace {

namespace po = boost::program_options;

struct usage_error {
  std::string message;
};

std::int64_t seconds(const po::variables_map& vm, const char* name) {
  const auto value = vm[name].as<std::int64_t>();
  if (value < 1 || value > 30 * 24 * 3600)
    throw usage_error{std::string("--") + name + " must be between 1 and 2592000 seconds"};
  return value;
}

po::options_description describe() {
  po::options_description all("fake_xbox: a fake Xbox sign-in chain for tests (loopback only)", 110, 55);
  // clang-format off
  all.add_options()
    ("help,h", "show this help and exit")
    ("bind", po::value<std::string>()->default_value("127.0.0.1"), "listen address; must be loopback")
    ("port", po::value<std::int64_t>()->default_value(0), "TCP port, 0 lets the OS pick")
    ("device-code-lifetime-s", po::value<std::int64_t>()->default_value(60), "device code lifetime")
    ("interval-s", po::value<std::int64_t>()->default_value(1), "device code polling interval")
    ("msa-lifetime-s", po::value<std::int64_t>()->default_value(60), "Microsoft access token lifetime")
    ("device-lifetime-s", po::value<std::int64_t>()->default_value(60), "Xbox device token lifetime")
    ("user-lifetime-s", po::value<std::int64_t>()->default_value(60), "Xbox user and title token lifetime")
    ("xsts-lifetime-s", po::value<std::int64_t>()->default_value(60), "XSTS token lifetime (SISU's included)")
    ("playfab-lifetime-s", po::value<std::int64_t>()->default_value(60), "PlayFab session ticket lifetime")
    ("mc-lifetime-s", po::value<std::int64_t>()->default_value(60), "MCToken lifetime")
    ("gst-lifetime-s", po::value<std::int64_t>()->default_value(60), "GameServerToken lifetime")
    ("rotation", po::value<std::string>()->default_value("strict"),
     "strict: a used refresh token is refused (invalid_grant); lenient: it keeps working")
    ("signature-skew-s", po::value<std::int64_t>()->default_value(300),
     "how far a request signature's time may be from the fake's clock")
    ("gamertag", po::value<std::string>()->default_value("Fake Steve"), "the account's gamertag")
    ("xuid", po::value<std::string>()->default_value("2535400000000001"), "the account's XUID");
  // clang-format on
  return all;
}

fake_xbox::config to_config(const po::variables_map& vm) {
  fake_xbox::config c;
  c.bind = vm["bind"].as<std::string>();
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(c.bind, ec);
  if (ec) throw usage_error{"--bind: '" + c.bind + "' is not an IP address"};
  // The fake hands out tokens and must never be reachable from another host.
  if (!address.is_loopback()) throw usage_error{"--bind: '" + c.bind + "' is not a loopback address"};
  const auto port = vm["port"].as<std::int64_t>();
  if (port < 0 || port > 65535) throw usage_error{"--port must be between 0 and 65535"};
  c.port = static_cast<std::uint16_t>(port);
  c.device_code_s = seconds(vm, "device-code-lifetime-s");
  c.interval_s = seconds(vm, "interval-s");
  c.msa_s = seconds(vm, "msa-lifetime-s");
  c.device_s = seconds(vm, "device-lifetime-s");
  c.user_s = seconds(vm, "user-lifetime-s");
  c.xsts_s = seconds(vm, "xsts-lifetime-s");
  c.playfab_s = seconds(vm, "playfab-lifetime-s");
  c.mc_s = seconds(vm, "mc-lifetime-s");
  c.gst_s = seconds(vm, "gst-lifetime-s");
  c.signature_skew_s = seconds(vm, "signature-skew-s");
  const auto rotation = vm["rotation"].as<std::string>();
  if (rotation != "strict" && rotation != "lenient") throw usage_error{"--rotation must be strict or lenient"};
  c.rotation = rotation == "strict" ? fake_xbox::rotation_mode::strict : fake_xbox::rotation_mode::lenient;
  c.gamertag = vm["gamertag"].as<std::string>();
  c.xuid = vm["xuid"].as<std::string>();
  return c;
}

void emit_line(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  fake_xbox::state st;
  try {
    const auto options = describe();
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << options << std::flush;
      return 0;
    }
    st.cfg = to_config(vm);
  } catch (const usage_error& e) {
    std::cerr << "fake_xbox: " << e.message << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "fake_xbox: " << e.what() << "\n(see --help)\n";
    return 2;
  }

  boost::asio::io_context ioc{1};
  std::uint16_t port = 0;
  try {
    st.issuer = fake_xbox::make_issuer_key();
    port = fake_xbox::start_server(ioc, st);
  } catch (const std::exception& e) {
    std::cerr << "fake_xbox: " << e.what() << "\n";
    return 1;
  }
  const auto address = boost::asio::ip::make_address(st.cfg.bind);
  const auto host = address.is_v6() ? "[" + st.cfg.bind + "]" : st.cfg.bind;
  st.base_url = "http://" + host + ":" + std::to_string(port);
  emit_line(R"({"event":"listening","port":)" + std::to_string(port) + R"(,"base_url":")" + st.base_url +
            R"(","kid":")" + st.issuer.kid + R"("})");

  boost::asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&ioc](boost::system::error_code, int) { ioc.stop(); });
  ioc.run();
  return 0;
}
