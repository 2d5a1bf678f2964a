// End to end: fair share of connection slots under a flood of idle connections from several
// loopback addresses (127.0.0.0/8 is loopback as a whole, so binding a client to 127.0.0.x
// makes it a source of its own), and the 503 that calls still in flight get at shutdown.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <future>
#include <string>
#include <vector>

#include "support/http.hpp"
#include "support/wait.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// One raw client connection that sends nothing: it is admitted and sits idle, or it is
/// refused with a 503, or (evicted) closed by the server without a word.
struct idle_connection {
  int fd = -1;
  std::string source;
  std::string received;
  bool closed = false;

  idle_connection() = default;
  idle_connection(const idle_connection&) = delete;
  idle_connection& operator=(const idle_connection&) = delete;
  idle_connection(idle_connection&& other) noexcept
    : fd(other.fd), source(std::move(other.source)), received(std::move(other.received)),
      closed(other.closed) {
    other.fd = -1;
  }
  ~idle_connection() {
    if (fd >= 0)
      ::close(fd);
  }

  bool refused() const {
    return received.rfind("HTTP/1.1 503", 0) == 0;
  }
  /// Closed by the server without any answer: what an evicted idle connection sees.
  bool evicted() const {
    return closed && received.empty();
  }
};

/// Connects from source (a 127.0.0.x address) to the service, blocking until connected.
idle_connection connect_from(const std::string& source, unsigned port) {
  idle_connection c;
  c.source = source;
  c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  REQUIRE(c.fd >= 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  REQUIRE(::inet_pton(AF_INET, source.c_str(), &local.sin_addr) == 1);
  REQUIRE(::bind(c.fd, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0);
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<std::uint16_t>(port));
  remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(c.fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote) == 0);
  return c;
}

/// Reads whatever arrived on every open connection, without blocking past the poll.
void drain(std::vector<idle_connection*>& all, std::chrono::milliseconds wait) {
  std::vector<pollfd> fds;
  std::vector<idle_connection*> open;
  for (auto* c : all) {
    if (!c->closed) {
      fds.push_back({c->fd, POLLIN, 0});
      open.push_back(c);
    }
  }
  if (fds.empty())
    return;
  if (::poll(fds.data(), fds.size(), static_cast<int>(wait.count())) <= 0)
    return;
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents == 0)
      continue;
    char buf[4096];
    auto n = ::recv(fds[i].fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0)
      open[i]->received.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
      open[i]->closed = true;
  }
}

/// Opens count connections from source, appending them to out.
void open_many(std::vector<idle_connection>& out, const std::string& source, unsigned port,
               int count) {
  for (int i = 0; i < count; ++i)
    out.push_back(connect_from(source, port));
}

std::vector<idle_connection*> pointers(std::vector<idle_connection>& conns) {
  std::vector<idle_connection*> out;
  for (auto& c : conns)
    out.push_back(&c);
  return out;
}

std::size_t count_if(const std::vector<idle_connection*>& all, const std::string& source,
                     bool (idle_connection::*what)() const) {
  std::size_t n = 0;
  for (auto* c : all)
    if (c->source == source && (c->*what)())
      ++n;
  return n;
}

/// Sends a GET on a held keep-alive connection and returns one whole response (its header
/// and a Content-Length body), or what arrived before the timeout or the close.
std::string ask(idle_connection& c, const std::string& target, std::chrono::milliseconds timeout) {
  auto request = "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
  REQUIRE(::send(c.fd, request.data(), request.size(), MSG_NOSIGNAL)
          == static_cast<ssize_t>(request.size()));
  std::string got;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    auto end = got.find("\r\n\r\n");
    if (end != std::string::npos) {
      auto at = got.find("Content-Length: ");
      auto length = at == std::string::npos ? 0 : std::stoul(got.substr(at + 16));
      if (got.size() >= end + 4 + length)
        return got;
    }
    pollfd p{c.fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0)
      continue;
    char buf[4096];
    auto n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n <= 0)
      break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

/// The value of a metrics series in a raw /metrics response, or -1.
long series(const std::string& response, const std::string& name) {
  auto at = response.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stol(response.substr(at + name.size() + 2));
}

} // namespace

TEST_CASE("flood: a flooding source is refused, others are served, the oldest idle makes room",
          "[e2e][server][flood]") {
  // 200 slots with a 10% reserve: past 180 open, a source holding 4 or more is refused.
  service_process svc{{"--max-connections", "200", "--max-connections-per-ip", "150",
                       "--connection-reserve-percent", "10", "--busy-connections-per-ip", "4"}};
  std::vector<idle_connection> conns;
  conns.reserve(260);

  // One source takes its 150 and no more: the 151st is told why with a 503.
  open_many(conns, "127.0.0.2", svc.port(), 151);
  auto all = pointers(conns);
  INFO("waiting for the flooding source's 151st connection to be refused");
  REQUIRE(wait_until(
    [&] {
      drain(all, 10ms);
      return count_if(all, "127.0.0.2", &idle_connection::refused) == 1;
    },
    10s));

  // A second source reaches the high-water mark (180) and is then held to its share. The
  // service admits in the order the kernel queued the connections, so the count is exact.
  open_many(conns, "127.0.0.3", svc.port(), 40);
  all = pointers(conns);
  INFO("waiting for the second source to be held at the high-water mark");
  REQUIRE(wait_until(
    [&] {
      drain(all, 10ms);
      return count_if(all, "127.0.0.3", &idle_connection::refused) == 10;
    },
    10s));

  // A well-behaved client from another address is still served from the reserve, and keeps
  // its connection (181 open).
  auto client = connect_from("127.0.0.1", svc.port());
  CHECK(ask(client, "/healthz", 5s).rfind("HTTP/1.1 200", 0) == 0);

  // More sources take the rest of the reserve, each within its share, up to the cap of 200.
  for (int i = 4; i <= 7; ++i)
    open_many(conns, "127.0.0." + std::to_string(i), svc.port(), 4);
  open_many(conns, "127.0.0.8", svc.port(), 3);

  // A newcomer at the cap is served in the slot of the longest idle connection: one of the
  // first source's, which is closed without a word.
  auto newcomer = connect_from("127.0.0.9", svc.port());
  CHECK(ask(newcomer, "/healthz", 5s).rfind("HTTP/1.1 200", 0) == 0);
  all = pointers(conns);
  INFO("waiting for the longest idle connection to be closed");
  REQUIRE(wait_until(
    [&] {
      drain(all, 10ms);
      return count_if(all, "127.0.0.2", &idle_connection::evicted) == 1;
    },
    10s));
  // Nobody else was closed or refused on the way to the cap.
  drain(all, 50ms);
  std::size_t evicted = 0;
  std::size_t refused = 0;
  for (auto* c : all) {
    evicted += c->evicted() ? 1 : 0;
    refused += c->refused() ? 1 : 0;
  }
  CHECK(evicted == 1);
  CHECK(refused == 11);

  // The well-behaved client's connection, busy recently, was not the one closed; it still
  // gets answers, and the service holds exactly its cap.
  INFO("waiting for the evicted session to be gone");
  CHECK(wait_until(
    [&] { return series(ask(client, "/metrics", 5s), "netherscope_connections") == 200; }, 5s));
}

TEST_CASE("flood: IPv4 clients of a dual-stack listener count per address",
          "[e2e][server][flood]") {
  // A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d. Each must count as its IPv4
  // address: not lumped into one IPv6 /64 with every other IPv4 client, and not escaping the
  // per-address limit either.
  service_process svc{{"--listen", "::", "--max-connections-per-ip", "2"}};
  std::vector<idle_connection> conns;
  open_many(conns, "127.0.0.5", svc.port(), 2);
  open_many(conns, "127.0.0.6", svc.port(), 2);
  open_many(conns, "127.0.0.5", svc.port(), 1);
  auto all = pointers(conns);
  INFO("waiting for the third connection from 127.0.0.5 to be refused");
  REQUIRE(wait_until(
    [&] {
      drain(all, 10ms);
      return count_if(all, "127.0.0.5", &idle_connection::refused) == 1;
    },
    10s));
  // Refused in order: the third from 127.0.0.5, and none of 127.0.0.6's two.
  CHECK(conns[4].refused());
  CHECK(count_if(all, "127.0.0.6", &idle_connection::refused) == 0);
}

TEST_CASE("shutdown: a call still in flight when the grace period ends gets a 503 JSON reply",
          "[e2e][server][shutdown]") {
  // The target never answers the offer, so the call is still with the actors at shutdown.
  fake_target_process fake{{"--offer-fault", "hang"}};
  service_process svc{{"--shutdown-grace-ms", "300"}};
  header_list headers{{"Content-Type", "application/json"}};
  auto body = R"({"host":"127.0.0.1","port":)" + std::to_string(fake.port()) + "}";
  auto call = std::async(std::launch::async, [&] {
    return http_request(svc.port(), "POST", "/api/offer", headers, body, 30s);
  });
  INFO("waiting for the offer to reach the target");
  REQUIRE(wait_until(
    [&] { return fake.stats()["offers"].to_number<std::int64_t>() == 1; }, 10s));
  auto signalled = std::chrono::steady_clock::now();
  svc.process().signal(SIGTERM);
  REQUIRE(call.wait_for(15s) == std::future_status::ready);
  auto reply = call.get();
  auto waited = std::chrono::steady_clock::now() - signalled;
  INFO("error: " << reply.error << " body: " << reply.body);
  CHECK(reply.status == 503);
  CHECK(reply.code() == "unavailable");
  CHECK(reply.header("content-type").rfind("application/json", 0) == 0);
  CHECK(reply.header("connection") == "close");
  // It came at the end of the grace period, not at once and not at the target's deadline.
  CHECK(waited >= 300ms);
  CHECK(waited < 10s);
  CHECK(svc.process().wait(15s) == 0);
}
