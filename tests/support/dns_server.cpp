// The wire format is written by hand: c-ares 1.18 can build queries and parse answers but not
// build answers (its ares_dns_record API arrived in 1.28), and a one-question A/AAAA answer
// with a compression pointer to the question is about forty lines (RFC 1035 §4.1).
#include "support/dns_server.hpp"

#include <array>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/post.hpp>

namespace netherscope::test {

namespace asio = boost::asio;
using udp = asio::ip::udp;

namespace {

constexpr std::uint16_t type_a = 1;
constexpr std::uint16_t type_aaaa = 28;
constexpr std::uint16_t class_in = 1;
constexpr std::uint8_t rcode_servfail = 2;
constexpr std::uint8_t rcode_nxdomain = 3;

struct record {
  std::uint16_t type;
  std::vector<std::uint8_t> data;
  std::uint32_t ttl;
};

struct entry {
  std::vector<record> records;
  dns_behaviour behaviour = dns_behaviour::answer;
};

/// A query we understood: one question, its name in lower case.
struct query {
  std::vector<std::uint8_t> packet;
  std::size_t question_end = 0;
  std::string name;
  std::uint16_t type = 0;
  std::uint16_t klass = 0;
  udp::endpoint from;
};

std::string lowercase(std::string text) {
  for (auto& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::uint16_t read16(const std::vector<std::uint8_t>& p, std::size_t at) {
  return static_cast<std::uint16_t>(p[at] << 8 | p[at + 1]);
}

void put16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

void put32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put16(out, static_cast<std::uint16_t>(v >> 16));
  put16(out, static_cast<std::uint16_t>(v));
}

// Reads the header and the one question; anything else is not for this server.
std::optional<query> parse(std::vector<std::uint8_t> packet, const udp::endpoint& from) {
  if (packet.size() < 12 || (packet[2] & 0x80) != 0 || read16(packet, 4) != 1)
    return std::nullopt;
  query q;
  std::size_t at = 12;
  while (true) {
    if (at >= packet.size())
      return std::nullopt;
    auto length = packet[at++];
    if (length == 0)
      break;
    // A query's only name is never compressed.
    if ((length & 0xC0) != 0 || at + length > packet.size())
      return std::nullopt;
    if (!q.name.empty())
      q.name += '.';
    q.name.append(reinterpret_cast<const char*>(&packet[at]), length);
    at += length;
  }
  if (at + 4 > packet.size())
    return std::nullopt;
  q.type = read16(packet, at);
  q.klass = read16(packet, at + 2);
  q.question_end = at + 4;
  q.name = lowercase(q.name);
  q.packet = std::move(packet);
  q.from = from;
  return q;
}

// The answer: the query's id, opcode and RD echoed, the question copied, then the records.
std::vector<std::uint8_t> build_answer(const query& q, std::uint8_t rcode,
                                       const std::vector<record>& records) {
  std::vector<record> matching;
  if (rcode == 0 && q.klass == class_in)
    for (auto& r : records)
      if (r.type == q.type)
        matching.push_back(r);
  std::vector<std::uint8_t> out{q.packet[0], q.packet[1]};
  // QR, the query's opcode, AA, and its RD; then RA and the response code.
  out.push_back(static_cast<std::uint8_t>(0x80 | (q.packet[2] & 0x78) | 0x04 | (q.packet[2] & 0x01)));
  out.push_back(static_cast<std::uint8_t>(0x80 | rcode));
  put16(out, 1);
  put16(out, static_cast<std::uint16_t>(matching.size()));
  put16(out, 0);
  put16(out, 0);
  out.insert(out.end(), q.packet.begin() + 12, q.packet.begin() + static_cast<long>(q.question_end));
  for (auto& r : matching) {
    put16(out, 0xC00C); // The name: a pointer to the question's, at offset 12.
    put16(out, r.type);
    put16(out, class_in);
    put32(out, r.ttl);
    put16(out, static_cast<std::uint16_t>(r.data.size()));
    out.insert(out.end(), r.data.begin(), r.data.end());
  }
  return out;
}

} // namespace

struct dns_server::state {
  state() : socket(ioc, udp::endpoint{asio::ip::make_address_v4("127.0.0.1"), 0}) {
    // nop
  }

  void receive() {
    socket.async_receive_from(asio::buffer(buffer), sender,
                              [this](boost::system::error_code ec, std::size_t size) {
                                if (ec == asio::error::operation_aborted)
                                  return;
                                if (!ec)
                                  handle({buffer.begin(), buffer.begin() + static_cast<long>(size)});
                                receive();
                              });
  }

  void handle(std::vector<std::uint8_t> packet) {
    auto q = parse(std::move(packet), sender);
    if (!q)
      return;
    std::vector<std::uint8_t> reply;
    {
      std::lock_guard lock{mutex};
      ++counts[q->name];
      ++total;
      changed.notify_all();
      auto found = names.find(q->name);
      if (found == names.end()) {
        reply = build_answer(*q, rcode_nxdomain, {});
      } else {
        switch (found->second.behaviour) {
          case dns_behaviour::answer:
            reply = build_answer(*q, 0, found->second.records);
            break;
          case dns_behaviour::silent:
            return;
          case dns_behaviour::servfail:
            reply = build_answer(*q, rcode_servfail, {});
            break;
          case dns_behaviour::nxdomain:
            reply = build_answer(*q, rcode_nxdomain, {});
            break;
          case dns_behaviour::hold:
            held[q->name].push_back(std::move(*q));
            return;
        }
      }
    }
    send(reply, q->from);
  }

  void send(const std::vector<std::uint8_t>& reply, const udp::endpoint& to) {
    boost::system::error_code ignored; // A lost answer is what UDP allows; the client retries.
    socket.send_to(asio::buffer(reply), to, 0, ignored);
  }

  asio::io_context ioc;
  udp::socket socket;
  udp::endpoint sender;
  std::array<std::uint8_t, 1500> buffer{};
  std::thread thread;

  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::map<std::string, entry> names;
  std::map<std::string, std::vector<query>> held;
  std::map<std::string, std::size_t> counts;
  std::size_t total = 0;
};

dns_server::dns_server() : state_(std::make_shared<state>()) {
  state_->receive();
  state_->thread = std::thread{[s = state_.get()] { s->ioc.run(); }};
}

dns_server::~dns_server() {
  state_->ioc.stop();
  state_->thread.join();
}

std::uint16_t dns_server::port() const {
  return state_->socket.local_endpoint().port();
}

void dns_server::add(const std::string& name, const std::string& address, std::uint32_t ttl) {
  auto parsed = asio::ip::make_address(address);
  record r{type_a, {}, ttl};
  if (parsed.is_v4()) {
    auto bytes = parsed.to_v4().to_bytes();
    r.data.assign(bytes.begin(), bytes.end());
  } else {
    r.type = type_aaaa;
    auto bytes = parsed.to_v6().to_bytes();
    r.data.assign(bytes.begin(), bytes.end());
  }
  std::lock_guard lock{state_->mutex};
  state_->names[lowercase(name)].records.push_back(std::move(r));
}

void dns_server::set(const std::string& name, dns_behaviour behaviour) {
  std::lock_guard lock{state_->mutex};
  state_->names[lowercase(name)].behaviour = behaviour;
}

void dns_server::release(const std::string& name) {
  auto key = lowercase(name);
  std::vector<query> waiting;
  std::vector<record> records;
  {
    std::lock_guard lock{state_->mutex};
    auto& e = state_->names[key];
    e.behaviour = dns_behaviour::answer;
    records = e.records;
    waiting = std::move(state_->held[key]);
    state_->held.erase(key);
  }
  // The socket belongs to the io thread.
  asio::post(state_->ioc, [s = state_.get(), waiting = std::move(waiting),
                           records = std::move(records)] {
    for (auto& q : waiting)
      s->send(build_answer(q, 0, records), q.from);
  });
}

std::size_t dns_server::queries(const std::string& name) const {
  std::lock_guard lock{state_->mutex};
  auto found = state_->counts.find(lowercase(name));
  return found == state_->counts.end() ? 0 : found->second;
}

std::size_t dns_server::total_queries() const {
  std::lock_guard lock{state_->mutex};
  return state_->total;
}

bool dns_server::wait_for_queries(const std::string& name, std::size_t count,
                                  std::chrono::milliseconds limit) const {
  std::unique_lock lock{state_->mutex};
  auto key = lowercase(name);
  return state_->changed.wait_for(lock, limit, [&] {
    auto found = state_->counts.find(key);
    return found != state_->counts.end() && found->second >= count;
  });
}

} // namespace netherscope::test
