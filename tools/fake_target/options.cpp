// Command-line parsing for the fake target. Every option is declared once, with its default,
// so `--help` is the complete reference.
#include "config.hpp"
#include "issuer_keys.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/json/parse.hpp>
#include <boost/program_options.hpp>

#include <cctype>
#include <cstdio>
#include <iostream>

namespace fake_target {

namespace po = boost::program_options;

namespace {

// The GET /v1/join body of BDS 1.26.51 as seen in mcutil#15 (PROTOCOL §1.2).
constexpr const char* default_info =
    R"({"name":"Fake BDS","protocol":2193,"version":"1.26.51","level":"Bedrock level",)"
    R"("players":0,"maxPlayers":10,"gameType":0})";

// A usage error: the message goes to stderr and the process exits with 2, the
// conventional status for bad command lines.
struct usage_error {
  std::string message;
};

template <class Enum>
Enum pick(const std::string& option, const std::string& value,
          std::initializer_list<std::pair<const char*, Enum>> choices) {
  for (const auto& [name, e] : choices)
    if (value == name) return e;
  std::string allowed;
  for (const auto& choice : choices) allowed += std::string(allowed.empty() ? "" : "|") + choice.first;
  throw usage_error{"--" + option + " must be one of " + allowed + ", not '" + value + "'"};
}

std::int64_t in_range(const std::string& option, std::int64_t value, std::int64_t low, std::int64_t high) {
  if (value < low || value > high)
    throw usage_error{"--" + option + " must be between " + std::to_string(low) + " and " +
                      std::to_string(high)};
  return value;
}

// Reads a decimal port; std::stoul would accept signs and trailing junk, which would let a
// typo in a range silently become some other port.
std::uint16_t parse_port(const std::string& text) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    throw usage_error{"--udp-ports: '" + text + "' is not a port number"};
  const unsigned long value = std::stoul(text);
  if (value < 1 || value > 65535) throw usage_error{"--udp-ports: port out of range: " + text};
  return static_cast<std::uint16_t>(value);
}

// "0" means OS-chosen ports without limit; "N" is a one-port pool; "A-B" is inclusive.
std::optional<port_range> parse_udp_ports(const std::string& text) {
  if (text == "0") return std::nullopt;
  const auto dash = text.find('-');
  if (dash == std::string::npos) {
    const auto port = parse_port(text);
    return port_range{port, port};
  }
  port_range range{parse_port(text.substr(0, dash)), parse_port(text.substr(dash + 1))};
  if (range.first > range.last) throw usage_error{"--udp-ports: range runs backwards: " + text};
  return range;
}

// "100,103" gives {100, 103}; "" gives none. 101 is allowed on purpose: a client must refuse
// it, since it never asked to switch protocols.
std::vector<unsigned> parse_interim(const std::string& text) {
  // More than any client should accept, so a test can go past a client's bound.
  constexpr std::size_t most = 64;
  std::vector<unsigned> out;
  if (text.empty()) return out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    const auto item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (item.size() != 3 || item.find_first_not_of("0123456789") != std::string::npos || item[0] != '1')
      throw usage_error{"--interim: '" + item + "' is not a 1xx status"};
    out.push_back(static_cast<unsigned>(std::stoul(item)));
    if (out.size() > most) throw usage_error{"--interim: at most " + std::to_string(most) + " statuses"};
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// "Steve,Alex" gives {"steve", "alex"}: BDS compares allowlist.json names without regard to case.
std::vector<std::string> parse_allowlist(const std::string& text) {
  std::vector<std::string> names;
  if (text.empty()) return names;
  std::size_t start = 0;
  for (;;) {
    const auto comma = text.find(',', start);
    auto name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty()) throw usage_error{"--allowlist: an empty name in '" + text + "'"};
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    names.push_back(std::move(name));
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

// The fake must never be reachable from another host: tests and demos only ever need
// loopback, and a misconfigured bind address is refused rather than silently widened.
void require_loopback(const std::string& bind) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(bind, ec);
  if (ec) throw usage_error{"--bind: '" + bind + "' is not an IP address"};
  if (!address.is_loopback())
    throw usage_error{"--bind: '" + bind + "' is not a loopback address (127.0.0.0/8 or ::1)"};
}

po::options_description describe_options() {
  po::options_description all("fake_target: a simulated NetherNet HTTP signalling server (loopback only)",
                              110, 55);
  // clang-format off
  all.add_options()
    ("help,h", "show this help and exit")
    ("bind", po::value<std::string>()->default_value("127.0.0.1"),
     "listen address; must be loopback (127.0.0.0/8 or ::1)")
    ("port", po::value<std::int64_t>()->default_value(0), "TCP port, 0 lets the OS pick")
    ("port-count", po::value<std::int64_t>()->default_value(1),
     "serve the same server on this many consecutive ports from --port (TCP, and UDP with "
     "--raknet on or only); the stats count them together")
    ("tls", po::value<std::string>()->default_value("off"),
     "off: plain HTTP; on: TLS only (self-signed ECDSA P-256); "
     "bds: plain HTTP, a TLS ClientHello gets a handshake_failure alert; "
     "silent: plain HTTP, a TLS ClientHello gets no answer at all")
    ("cert", po::value<std::string>()->default_value("good"),
     "with --tls on, the certificate presented: good|expired|wrong-name|unknown-issuer")
    ("cert-out", po::value<std::string>()->default_value(""),
     "with --tls on, write the certificate clients must trust (PEM) here: the certificate "
     "itself, or its CA with --cert unknown-issuer")
    ("status-code", po::value<std::int64_t>()->default_value(200), "status of GET /v1/join")
    ("body-mode", po::value<std::string>()->default_value("json"),
     "GET /v1/join body: json (--info), empty (Content-Length: 0), text (--text)")
    ("info", po::value<std::string>()->default_value(default_info), "JSON body for --body-mode json")
    ("text", po::value<std::string>()->default_value("not json"), "body for --body-mode text")
    ("fault", po::value<std::string>()->default_value("none"),
     "GET /v1/join fault: none|delay|hang|drip|oversize|close-mid-body|redirect|control-bytes")
    ("delay-ms", po::value<std::int64_t>()->default_value(2000),
     "delay for --fault delay, per-byte interval for --fault drip")
    ("oversize-bytes", po::value<std::int64_t>()->default_value(70000),
     "body size for --fault oversize|control-bytes and --offer-fault oversize|control-answer|control-error")
    ("redirect-to", po::value<std::string>()->default_value("http://127.0.0.1:1/v1/join"),
     "Location of the 302 sent by --fault redirect")
    ("interim", po::value<std::string>()->default_value(""),
     "comma-separated 1xx statuses sent before the final response to GET and POST /v1/join..., e.g. 100,103")
    ("identity", po::value<std::string>()->default_value("required"),
     "offer a=identity: required|optional|ignore|strict (strict: required, and cpk must be a "
     "base64 DER string as Pumpkin requires)")
    ("style", po::value<std::string>()->default_value("bds"),
     "answer and error shapes: bds|go|pumpkin")
    ("cpk", po::value<std::string>()->default_value("auto"),
     "answer token cpk claim: jwk|der|auto (auto: jwk for bds, base64 DER for go and pumpkin)")
    ("error-status", po::value<std::int64_t>()->default_value(200),
     "HTTP status of a bds-style numeric rejection")
    ("udp-ports", po::value<std::string>()->default_value("0"),
     "UDP port pool for candidates: A-B, a single port, or 0 for OS-chosen ports without limit")
    ("port-hold-ms", po::value<std::int64_t>()->default_value(30000),
     "how long an answered offer keeps its UDP port")
    ("extra-candidate", po::value<std::vector<std::string>>()->composing(),
     "raw 'a=<TEXT>' line appended after the real candidates (repeatable)")
    ("answer-delay-ms", po::value<std::int64_t>()->default_value(0), "delay before each SDP answer")
    ("offer-fault", po::value<std::string>()->default_value("none"),
     "POST /v1/join/{id} fault: none|hang|close-mid-body|oversize|control-answer|control-error")
    ("reject-offers", po::value<int>()->default_value(-1),
     "refuse every offer that passes the checks with this NetherNet error code (-1: never)")
    ("stun", po::value<std::string>()->default_value("answer"),
     "connectivity checks on the answer's UDP port: answer|silent|wrong-integrity")
    ("game", po::value<std::string>()->default_value("normal"),
     "after a check that nominates the pair: normal (DTLS as the client, SCTP, both channels "
     "acknowledged, NetworkSettings at --game-protocol or PlayStatus 1/2), silent (no answer to "
     "RequestNetworkSettings), garbage (bytes that are no NetherNet message), off (no DTLS), "
     "no-sctp (DTLS, then nothing), refuse-channels (SCTP aborted at the first channel), alert "
     "(the client's certificate refused in the handshake: a fatal unknown_ca alert)")
    ("game-protocol", po::value<std::int64_t>()->default_value(2193),
     "the protocol the game layer accepts")
    ("candidate-address", po::value<std::string>()->default_value(""),
     "IP address the answer's candidate names instead of --bind (the port is still bound on "
     "--bind), as a server in a container advertises its internal address")
    ("auth", po::value<std::string>()->default_value("offline"),
     "offline|online: online admits only players signed in to Xbox Live; without --xbox-issuer "
     "it refuses every offer, in the --auth-style shape")
    ("xbox-issuer", po::value<std::string>()->default_value(""),
     "with --auth online, verify offers' GameServerTokens against this issuer (an http URL on "
     "loopback, e.g. http://127.0.0.1:PORT): its OpenID configuration and JWKS are loaded at startup")
    ("allowlist", po::value<std::string>()->default_value(""),
     "with --xbox-issuer, the gamertags admitted (comma-separated, compared case-insensitively)")
    ("auth-style", po::value<std::string>()->default_value("auto"),
     "online-mode refusal: auto (follows --style)|bds|go-nethernet|pumpkin|401")
    ("raknet", po::value<std::string>()->default_value("off"),
     "RakNet unconnected ping on UDP: off (no UDP socket on the port)|on (UDP on the TCP port's "
     "number, beside NetherNet)|only (RakNet alone: nothing listens on the TCP port; the stats "
     "get a port of their own)")
    ("raknet-style", po::value<std::string>()->default_value("bds"),
     "whose status string the pong carries: bds|bds-trailer|geyser|pocketmine|nukkit|pumpkin")
    ("raknet-fault", po::value<std::string>()->default_value("none"),
     "a hostile pong: none|silent|wrong-magic|no-echo|other-port|oversize|long-string|bad-utf8|"
     "truncated|incompatible|length-past-end|no-length");
  // clang-format on
  return all;
}

config to_config(const po::variables_map& vm) {
  config c;
  c.bind = vm["bind"].as<std::string>();
  require_loopback(c.bind);
  c.port = static_cast<std::uint16_t>(in_range("port", vm["port"].as<std::int64_t>(), 0, 65535));
  c.port_count = static_cast<std::uint16_t>(in_range("port-count", vm["port-count"].as<std::int64_t>(), 1, 65535));
  if (c.port != 0 && c.port + c.port_count - 1 > 65535)
    throw usage_error{"--port " + std::to_string(c.port) + " with --port-count " + std::to_string(c.port_count) +
                      " runs past port 65535"};
  c.tls = pick<tls_mode>("tls", vm["tls"].as<std::string>(),
                         {{"off", tls_mode::off},
                          {"on", tls_mode::on},
                          {"bds", tls_mode::bds},
                          {"silent", tls_mode::silent}});
  c.cert = pick<cert_kind>("cert", vm["cert"].as<std::string>(),
                           {{"good", cert_kind::good},
                            {"expired", cert_kind::expired},
                            {"wrong-name", cert_kind::wrong_name},
                            {"unknown-issuer", cert_kind::unknown_issuer}});
  if (c.cert != cert_kind::good && c.tls != tls_mode::on)
    throw usage_error{"--cert only makes sense with --tls on"};
  c.cert_out = vm["cert-out"].as<std::string>();
  if (!c.cert_out.empty() && c.tls != tls_mode::on)
    throw usage_error{"--cert-out only makes sense with --tls on"};

  c.status_code =
      static_cast<unsigned>(in_range("status-code", vm["status-code"].as<std::int64_t>(), 100, 999));
  c.body =
      pick<body_mode>("body-mode", vm["body-mode"].as<std::string>(),
                      {{"json", body_mode::json}, {"empty", body_mode::empty}, {"text", body_mode::text}});
  c.info_json = vm["info"].as<std::string>();
  boost::system::error_code ec;
  boost::json::parse(c.info_json, ec);
  if (ec) throw usage_error{"--info is not valid JSON: " + ec.message()};
  c.text = vm["text"].as<std::string>();
  c.fault = pick<status_fault>("fault", vm["fault"].as<std::string>(),
                               {{"none", status_fault::none},
                                {"delay", status_fault::delay},
                                {"hang", status_fault::hang},
                                {"drip", status_fault::drip},
                                {"oversize", status_fault::oversize},
                                {"close-mid-body", status_fault::close_mid_body},
                                {"redirect", status_fault::redirect},
                                {"control-bytes", status_fault::control_bytes}});
  c.delay = std::chrono::milliseconds(in_range("delay-ms", vm["delay-ms"].as<std::int64_t>(), 0, 3600000));
  c.oversize_bytes = static_cast<std::size_t>(
      in_range("oversize-bytes", vm["oversize-bytes"].as<std::int64_t>(), 16, 1LL << 30));
  c.redirect_to = vm["redirect-to"].as<std::string>();
  c.interim = parse_interim(vm["interim"].as<std::string>());

  c.identity = pick<identity_policy>("identity", vm["identity"].as<std::string>(),
                                     {{"required", identity_policy::required},
                                      {"optional", identity_policy::optional},
                                      {"ignore", identity_policy::ignore},
                                      {"strict", identity_policy::strict}});
  c.style = pick<server_style>(
      "style", vm["style"].as<std::string>(),
      {{"bds", server_style::bds}, {"go", server_style::go}, {"pumpkin", server_style::pumpkin}});
  const auto cpk = vm["cpk"].as<std::string>();
  if (cpk == "auto")
    c.answer_cpk = c.style == server_style::bds ? cpk_form::jwk : cpk_form::der;
  else
    c.answer_cpk = pick<cpk_form>("cpk", cpk, {{"jwk", cpk_form::jwk}, {"der", cpk_form::der}});
  c.error_status =
      static_cast<unsigned>(in_range("error-status", vm["error-status"].as<std::int64_t>(), 100, 999));
  c.udp_ports = parse_udp_ports(vm["udp-ports"].as<std::string>());
  c.port_hold =
      std::chrono::milliseconds(in_range("port-hold-ms", vm["port-hold-ms"].as<std::int64_t>(), 0, 86400000));
  if (vm.count("extra-candidate")) c.extra_candidates = vm["extra-candidate"].as<std::vector<std::string>>();
  c.answer_delay = std::chrono::milliseconds(
      in_range("answer-delay-ms", vm["answer-delay-ms"].as<std::int64_t>(), 0, 3600000));
  c.reject_offers = vm["reject-offers"].as<int>();
  c.candidate_address = vm["candidate-address"].as<std::string>();
  if (!c.candidate_address.empty()) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(c.candidate_address, ec);
    if (ec) throw usage_error{"--candidate-address: '" + c.candidate_address + "' is not an IP address"};
  }
  c.game = vm["game"].as<std::string>();
  if (c.game != "normal" && c.game != "silent" && c.game != "garbage" && c.game != "off"
      && c.game != "no-sctp" && c.game != "refuse-channels" && c.game != "alert")
    throw std::invalid_argument(
      "--game must be normal, silent, garbage, off, no-sctp, refuse-channels or alert");
  c.game_protocol = static_cast<std::int32_t>(
      in_range("game-protocol", vm["game-protocol"].as<std::int64_t>(), 1, 100000));
  c.stun = pick<stun_mode>("stun", vm["stun"].as<std::string>(),
                           {{"answer", stun_mode::answer},
                            {"silent", stun_mode::silent},
                            {"wrong-integrity", stun_mode::wrong_integrity}});
  c.auth = pick<auth_mode>("auth", vm["auth"].as<std::string>(),
                          {{"offline", auth_mode::offline}, {"online", auth_mode::online}});
  c.auth_shape = pick<auth_style>("auth-style", vm["auth-style"].as<std::string>(),
                                  {{"auto", auth_style::automatic},
                                   {"bds", auth_style::bds},
                                   {"go-nethernet", auth_style::go_nethernet},
                                   {"pumpkin", auth_style::pumpkin},
                                   {"401", auth_style::http401}});
  c.xbox_issuer = vm["xbox-issuer"].as<std::string>();
  if (!c.xbox_issuer.empty()) {
    if (c.auth != auth_mode::online) throw usage_error{"--xbox-issuer only makes sense with --auth online"};
    while (!c.xbox_issuer.empty() && c.xbox_issuer.back() == '/') c.xbox_issuer.pop_back();
    const auto url = parse_loopback_url(c.xbox_issuer);
    if (!url || url->target != "/")
      throw usage_error{"--xbox-issuer: '" + vm["xbox-issuer"].as<std::string>() +
                        "' is not an http base URL on a loopback address (http://127.0.0.1:PORT)"};
  }
  c.allowlist = parse_allowlist(vm["allowlist"].as<std::string>());
  if (!c.allowlist.empty() && c.xbox_issuer.empty())
    throw usage_error{"--allowlist only makes sense with --auth online and --xbox-issuer"};
  if (c.auth_shape == auth_style::automatic)
    c.auth_shape = c.style == server_style::go        ? auth_style::go_nethernet
                   : c.style == server_style::pumpkin ? auth_style::pumpkin
                                                      : auth_style::bds;
  c.raknet = pick<raknet_mode>("raknet", vm["raknet"].as<std::string>(),
                               {{"off", raknet_mode::off}, {"on", raknet_mode::on}, {"only", raknet_mode::only}});
  c.pong_style = pick<raknet_style>("raknet-style", vm["raknet-style"].as<std::string>(),
                                    {{"bds", raknet_style::bds},
                                     {"bds-trailer", raknet_style::bds_trailer},
                                     {"geyser", raknet_style::geyser},
                                     {"pocketmine", raknet_style::pocketmine},
                                     {"nukkit", raknet_style::nukkit},
                                     {"pumpkin", raknet_style::pumpkin}});
  c.pong_fault = pick<raknet_fault>("raknet-fault", vm["raknet-fault"].as<std::string>(),
                                    {{"none", raknet_fault::none},
                                     {"silent", raknet_fault::silent},
                                     {"wrong-magic", raknet_fault::wrong_magic},
                                     {"no-echo", raknet_fault::no_echo},
                                     {"other-port", raknet_fault::other_port},
                                     {"oversize", raknet_fault::oversize},
                                     {"long-string", raknet_fault::long_string},
                                     {"bad-utf8", raknet_fault::bad_utf8},
                                     {"truncated", raknet_fault::truncated},
                                     {"incompatible", raknet_fault::incompatible},
                                     {"length-past-end", raknet_fault::length_past_end},
                                     {"no-length", raknet_fault::no_length}});
  if (c.raknet == raknet_mode::off &&
      (c.pong_style != raknet_style::bds || c.pong_fault != raknet_fault::none))
    throw usage_error{"--raknet-style and --raknet-fault only make sense with --raknet on or only"};
  if (c.raknet == raknet_mode::only && c.tls == tls_mode::on)
    throw usage_error{"--raknet only has no TCP game port, so --tls on has nothing to secure"};
  c.post_fault = pick<offer_fault>("offer-fault", vm["offer-fault"].as<std::string>(),
                                   {{"none", offer_fault::none},
                                    {"hang", offer_fault::hang},
                                    {"close-mid-body", offer_fault::close_mid_body},
                                    {"oversize", offer_fault::oversize},
                                    {"control-answer", offer_fault::control_answer},
                                    {"control-error", offer_fault::control_error}});
  return c;
}

}  // namespace

const char* to_string(tls_mode mode) {
  switch (mode) {
    case tls_mode::on:
      return "on";
    case tls_mode::bds:
      return "bds";
    case tls_mode::silent:
      return "silent";
    case tls_mode::off:
      break;
  }
  return "off";
}

const char* to_string(raknet_mode mode) {
  switch (mode) {
    case raknet_mode::on:
      return "on";
    case raknet_mode::only:
      return "only";
    case raknet_mode::off:
      break;
  }
  return "off";
}

std::optional<int> parse_command_line(int argc, char** argv, config& out) {
  const auto options = describe_options();
  try {
    po::variables_map vm;
    po::store(po::parse_command_line(argc, argv, options), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << options << std::flush;
      return 0;
    }
    out = to_config(vm);
    return std::nullopt;
  } catch (const usage_error& e) {
    std::cerr << "fake_target: " << e.message << "\n";
  } catch (const po::error& e) {
    std::cerr << "fake_target: " << e.what() << "\n(see --help)\n";
  }
  return 2;
}

}  // namespace fake_target
