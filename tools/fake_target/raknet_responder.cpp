// RakNet's unconnected ping and pong, as Bedrock servers answer them (PROTOCOL.md, "RakNet
// status"): ping 0x01 | time (8) | magic (16) | client GUID (8); pong 0x1c | the ping's time |
// server GUID | magic | u16 length | status string.
#include "raknet_responder.hpp"

#include "target_state.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/json.hpp>

#include <array>
#include <random>

namespace fake_target {

namespace net = boost::asio;
using udp = net::ip::udp;

namespace {

constexpr unsigned char ping_id = 0x01;
constexpr unsigned char ping_open_connections_id = 0x02;
constexpr unsigned char pong_id = 0x1c;
constexpr unsigned char incompatible_protocol_id = 0x19;
constexpr std::size_t ping_size = 33;
constexpr std::string_view magic{"\x00\xff\xff\x00\xfe\xfe\xfe\xfe\xfd\xfd\xfd\xfd\x12\x34\x56\x78", 16};

// The sizes of the two oversized faults: a datagram past the 1,500 bytes a prober reads, and a
// string that fits a datagram but not vanilla RakNet's 400 bytes of offline data.
constexpr std::size_t oversize_datagram = 2000;
constexpr std::size_t long_string = 1400;

void put_u64(std::string& out, std::uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

std::string mode_name(std::int64_t game_type) {
  switch (game_type) {
    case 1:
      return "Creative";
    case 2:
      return "Adventure";
    default:
      return "Survival";
  }
}

std::string number(std::int64_t n) { return std::to_string(n); }

// An unconnected ping: RakNet answers 0x01 and 0x02 alike here, as RakLib, go-raknet and
// Pumpkin do, and checks the magic, as RakLib and Pumpkin do.
bool is_ping(std::string_view datagram) {
  if (datagram.size() < ping_size) return false;
  const auto id = static_cast<unsigned char>(datagram[0]);
  return (id == ping_id || id == ping_open_connections_id) && datagram.substr(9, magic.size()) == magic;
}

}  // namespace

server_facts facts_from_info(const std::string& info_json) {
  server_facts facts;
  boost::system::error_code ec;
  const auto value = boost::json::parse(info_json, ec);
  const auto* info = ec ? nullptr : value.if_object();
  if (!info) return facts;
  auto text = [info](const char* key, std::string& out) {
    if (const auto* v = info->if_contains(key); v && v->is_string()) out = std::string(v->get_string());
  };
  auto integer = [info](const char* key, std::int64_t& out) {
    if (const auto* v = info->if_contains(key); v && v->is_int64()) out = v->get_int64();
  };
  text("name", facts.name);
  text("version", facts.version);
  text("level", facts.level);
  integer("protocol", facts.protocol);
  integer("players", facts.players);
  integer("maxPlayers", facts.max_players);
  integer("gameType", facts.game_type);
  return facts;
}

std::string status_string(raknet_style style, const server_facts& f, std::uint64_t guid, std::uint16_t port) {
  const std::string head =
      "MCPE;" + f.name + ";" + number(f.protocol) + ";" + f.version + ";" + number(f.players) + ";";
  const std::string mode = mode_name(f.game_type);
  const std::string v4 = std::to_string(port);
  const std::string v6 = std::to_string(port + 1);
  switch (style) {
    case raknet_style::bds_trailer:
      // BDS 1.26.33 as reported: three more fields after the IPv6 port.
      return head + number(f.max_players) + ";" + std::to_string(guid) + ";" + f.level + ";" + mode + ";1;" + v4 +
             ";" + v6 + ";0;1;0;";
    case raknet_style::geyser:
      // Geyser: the same port twice, always Survival, and a maximum above the count when full.
      return head + number(std::max(f.max_players, f.players + 1)) + ";" + std::to_string(guid) + ";" +
             (f.level.empty() ? "Geyser" : f.level) + ";Survival;1;" + v4 + ";" + v4 + ";";
    case raknet_style::pocketmine:
      // PocketMine: the software's name as the second line, no mode number, no ports.
      return head + number(f.max_players) + ";" + std::to_string(guid) + ";PocketMine-MP;" + mode + ";";
    case raknet_style::nukkit:
      // Nukkit: Java's signed id, no ports and no trailing ';'.
      return head + number(f.max_players) + ";" + std::to_string(static_cast<std::int64_t>(guid)) + ";" +
             f.level + ";" + mode + ";1";
    case raknet_style::pumpkin:
      return head + number(f.max_players) + ";" + std::to_string(guid) + ";" + f.level + ";" + mode + ";1;" + v4 +
             ";" + v6 + ";0;";
    case raknet_style::bds:
      break;
  }
  return head + number(f.max_players) + ";" + std::to_string(guid) + ";" + f.level + ";" + mode + ";1;" + v4 + ";" +
         v6 + ";";
}

std::optional<std::string> answer_ping(std::string_view datagram, raknet_fault fault, const std::string& status,
                                       std::uint64_t guid) {
  if (!is_ping(datagram) || fault == raknet_fault::silent) return std::nullopt;

  std::string text = status;
  switch (fault) {
    case raknet_fault::truncated:
      text = text.substr(0, text.find(';', text.find(';', 5) + 1));
      break;
    case raknet_fault::bad_utf8:
      text.insert(text.find(';', 5), " \xff\xfe");
      break;
    case raknet_fault::long_string:
      text.insert(text.find(';', 5), std::string(text.size() < long_string ? long_string - text.size() : 0, 'x'));
      break;
    default:
      break;
  }

  std::string out(1, static_cast<char>(fault == raknet_fault::incompatible ? incompatible_protocol_id : pong_id));
  std::string time(datagram.substr(1, 8));
  if (fault == raknet_fault::no_echo)
    for (auto& c : time) c = static_cast<char>(~c);
  out += time;
  put_u64(out, guid);
  std::string our_magic(magic);
  if (fault == raknet_fault::wrong_magic) our_magic.back() = 0x79;
  out += our_magic;
  if (fault == raknet_fault::oversize && out.size() + 2 + text.size() < oversize_datagram)
    text += std::string(oversize_datagram - out.size() - 2 - text.size(), 'x');
  std::size_t length = text.size() + (fault == raknet_fault::length_past_end ? 100 : 0);
  if (fault != raknet_fault::no_length) {
    out.push_back(static_cast<char>((length >> 8) & 0xff));
    out.push_back(static_cast<char>(length & 0xff));
  }
  return out + text;
}

struct raknet_responder::impl : std::enable_shared_from_this<impl> {
  impl(net::io_context& ioc, const std::string& address, std::uint16_t port, const config& cfg, counters& stats)
      : socket(ioc, udp::endpoint{net::ip::make_address(address), port}),
        other(ioc),
        fault(cfg.pong_fault),
        stats(stats) {
    // Only --raknet-fault other-port answers from it; without it a run of many ports
    // (--port-count) would hold twice the descriptors.
    if (fault == raknet_fault::other_port) {
      const udp::endpoint any_port{net::ip::make_address(address), 0};
      other.open(any_port.protocol());
      other.bind(any_port);
    }
    // One id per process, its top bit set so that BDS's unsigned and Nukkit's signed forms
    // differ, as they do for half of all real ids.
    guid = std::mt19937_64{std::random_device{}()}() | (1ULL << 63);
    status = status_string(cfg.pong_style, facts_from_info(cfg.info_json), guid, socket.local_endpoint().port());
  }

  void receive() {
    socket.async_receive_from(net::buffer(buffer), from,
                              [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
                                if (ec == net::error::operation_aborted) return;
                                if (!ec) self->on_datagram(n);
                                self->receive();
                              });
  }

  void on_datagram(std::size_t n) {
    const std::string_view datagram(buffer.data(), n);
    if (!is_ping(datagram)) return;
    ++stats.raknet_pings;
    auto pong = answer_ping(datagram, fault, status, guid);
    if (!pong) return;
    ++stats.raknet_pongs;
    boost::system::error_code ignored;
    // Another port of the same host: a prober must not take it for the server's answer.
    auto& from_socket = fault == raknet_fault::other_port ? other : socket;
    from_socket.send_to(net::buffer(*pong), from, 0, ignored);
  }

  udp::socket socket;
  udp::socket other;
  raknet_fault fault;
  counters& stats;
  std::uint64_t guid = 0;
  std::string status;
  std::array<char, 2048> buffer{};
  udp::endpoint from;
};

raknet_responder::raknet_responder(net::io_context& ioc, const std::string& address, std::uint16_t port,
                                   const config& cfg, counters& stats)
    : impl_(std::make_shared<impl>(ioc, address, port, cfg, stats)) {
  impl_->receive();
}

raknet_responder::~raknet_responder() {
  boost::system::error_code ignored;
  impl_->socket.close(ignored);
  impl_->other.close(ignored);
}

std::uint16_t raknet_responder::port() const { return impl_->socket.local_endpoint().port(); }

}  // namespace fake_target
