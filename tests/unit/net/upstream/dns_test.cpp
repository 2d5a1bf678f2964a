// The resolver against a real DNS server on 127.0.0.1 (tests/support/dns_server): real
// sockets, real c-ares, no traffic anywhere else.
#include <catch2/catch.hpp>

#include <algorithm>
#include <future>
#include <memory>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "net/upstream/dns.hpp"
#include "support/dns_server.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

using clock_type = std::chrono::steady_clock;

dns_settings quick_settings() {
  dns_settings s;
  s.timeout = 200ms;
  s.tries = 2;
  return s;
}

/// A resolver pointed at its own test server, with one io thread.
class rig {
public:
  explicit rig(dns_settings settings = quick_settings()) {
    settings.servers = {net::upstream::dns_server{asio::ip::make_address("127.0.0.1"), server.port()}};
    std::string error;
    resolver = dns_resolver::make(ioc, settings, error);
    INFO(error);
    REQUIRE(resolver);
    thread = std::thread{[this] { ioc.run(); }};
  }

  ~rig() {
    halt();
    if (resolver)
      resolver->stop();
  }

  /// Stops the io thread (idempotent); no handler runs after it returns.
  void halt() {
    guard.reset();
    ioc.stop();
    if (thread.joinable())
      thread.join();
  }

  /// Starts a lookup; the future holds its answer.
  std::future<dns_answer> start(const std::string& host) {
    auto promise = std::make_shared<std::promise<dns_answer>>();
    auto answer = promise->get_future();
    resolver->resolve(host, ioc.get_executor(),
                      [promise](dns_answer a) { promise->set_value(std::move(a)); });
    return answer;
  }

  /// Looks host up and waits for the answer (bounded, far above any timeout used here).
  dns_answer lookup(const std::string& host) {
    auto answer = start(host);
    REQUIRE(answer.wait_for(10s) == std::future_status::ready);
    return answer.get();
  }

  test::dns_server server;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> guard{ioc.get_executor()};
  std::shared_ptr<dns_resolver> resolver;
  std::thread thread;
};

bool has(const dns_answer& answer, const char* address) {
  auto wanted = asio::ip::make_address(address);
  return std::find(answer.addresses.begin(), answer.addresses.end(), wanted)
         != answer.addresses.end();
}

} // namespace

TEST_CASE("dns: A and AAAA records both come back", "[dns]") {
  rig r;
  r.server.add("both.example.test", "192.0.2.10", 300);
  r.server.add("both.example.test", "2001:db8::10", 300);
  r.server.add("v4.example.test", "192.0.2.20", 300);
  r.server.add("v6.example.test", "2001:db8::30", 300);

  auto both = r.lookup("both.example.test");
  CHECK(both.status == dns_status::ok);
  CHECK(both.addresses.size() == 2);
  CHECK(has(both, "192.0.2.10"));
  CHECK(has(both, "2001:db8::10"));

  auto v4 = r.lookup("v4.example.test");
  CHECK(v4.status == dns_status::ok);
  CHECK(v4.addresses == std::vector<asio::ip::address>{asio::ip::make_address("192.0.2.20")});

  auto v6 = r.lookup("V6.Example.TEST");
  CHECK(v6.status == dns_status::ok);
  CHECK(v6.addresses == std::vector<asio::ip::address>{asio::ip::make_address("2001:db8::30")});
}

TEST_CASE("dns: NXDOMAIN, no address and SERVFAIL are clear failures", "[dns]") {
  rig r;
  r.server.set("gone.example.test", test::dns_behaviour::nxdomain);
  auto gone = r.lookup("gone.example.test");
  CHECK(gone.status == dns_status::not_found);
  CHECK(gone.addresses.empty());
  CHECK(!gone.detail.empty());

  // The name exists but has neither A nor AAAA.
  r.server.set("empty.example.test", test::dns_behaviour::answer);
  CHECK(r.lookup("empty.example.test").status == dns_status::not_found);

  r.server.set("broken.example.test", test::dns_behaviour::servfail);
  auto broken = r.lookup("broken.example.test");
  CHECK(broken.status == dns_status::server_failure);
  CHECK(broken.addresses.empty());
}

TEST_CASE("dns: a silent server times out after the bounded tries", "[dns]") {
  auto settings = quick_settings(); // 200 ms, 2 tries: at most 200 + 400 ms with one server.
  rig r{settings};
  r.server.set("silent.example.test", test::dns_behaviour::silent);
  auto started = clock_type::now();
  auto answer = r.lookup("silent.example.test");
  auto took = clock_type::now() - started;
  CHECK(answer.status == dns_status::timeout);
  CHECK(took >= settings.timeout);
  CHECK(took < 3 * (settings.timeout + 2 * settings.timeout));
  // Two tries each for A and AAAA, and no more.
  CHECK(r.server.wait_for_queries("silent.example.test", 4, 2s));
  CHECK(r.server.queries("silent.example.test") == 4);
}

TEST_CASE("dns: an answer is cached for its TTL, then asked again", "[dns]") {
  rig r;
  r.server.add("short.example.test", "192.0.2.40", 1);
  auto started = clock_type::now();
  REQUIRE(r.lookup("short.example.test").status == dns_status::ok);
  CHECK(r.server.queries("short.example.test") == 2); // A and AAAA.

  // The second lookup is served from the cache: the server sees nothing new.
  auto again = r.lookup("SHORT.example.test");
  CHECK(again.status == dns_status::ok);
  CHECK(has(again, "192.0.2.40"));
  CHECK(r.server.queries("short.example.test") == 2);

  // After the TTL the name is asked again. Poll, bounded, rather than guess a sleep.
  auto deadline = started + 10s;
  while (r.server.queries("short.example.test") == 2 && clock_type::now() < deadline) {
    REQUIRE(r.lookup("short.example.test").status == dns_status::ok);
    std::this_thread::sleep_for(50ms);
  }
  CHECK(r.server.queries("short.example.test") == 4);
  CHECK(clock_type::now() - started >= 1s);
}

TEST_CASE("dns: a long TTL is capped, and a cache of zero seconds is off", "[dns]") {
  auto settings = quick_settings();
  settings.max_ttl = 1s;
  rig r{settings};
  r.server.add("long.example.test", "192.0.2.50", 86400);
  auto started = clock_type::now();
  REQUIRE(r.lookup("long.example.test").status == dns_status::ok);
  REQUIRE(r.lookup("long.example.test").status == dns_status::ok);
  CHECK(r.server.queries("long.example.test") == 2);
  auto deadline = started + 10s;
  while (r.server.queries("long.example.test") == 2 && clock_type::now() < deadline) {
    REQUIRE(r.lookup("long.example.test").status == dns_status::ok);
    std::this_thread::sleep_for(50ms);
  }
  CHECK(r.server.queries("long.example.test") == 4);

  settings.max_ttl = 0s;
  rig uncached{settings};
  uncached.server.add("long.example.test", "192.0.2.50", 86400);
  REQUIRE(uncached.lookup("long.example.test").status == dns_status::ok);
  REQUIRE(uncached.lookup("long.example.test").status == dns_status::ok);
  CHECK(uncached.server.queries("long.example.test") == 4);
}

TEST_CASE("dns: no such name is cached briefly, timeouts are not", "[dns]") {
  auto settings = quick_settings();
  settings.negative_ttl = 1s;
  rig r{settings};
  r.server.set("gone.example.test", test::dns_behaviour::nxdomain);
  auto started = clock_type::now();
  CHECK(r.lookup("gone.example.test").status == dns_status::not_found);
  auto first = r.server.queries("gone.example.test");
  CHECK(first >= 1);
  CHECK(r.lookup("gone.example.test").status == dns_status::not_found);
  CHECK(r.server.queries("gone.example.test") == first);
  auto deadline = started + 10s;
  while (r.server.queries("gone.example.test") == first && clock_type::now() < deadline) {
    CHECK(r.lookup("gone.example.test").status == dns_status::not_found);
    std::this_thread::sleep_for(50ms);
  }
  CHECK(r.server.queries("gone.example.test") > first);
  CHECK(clock_type::now() - started >= 1s);

  settings.tries = 1;
  rig silent{settings};
  silent.server.set("silent.example.test", test::dns_behaviour::silent);
  CHECK(silent.lookup("silent.example.test").status == dns_status::timeout);
  CHECK(silent.lookup("silent.example.test").status == dns_status::timeout);
  CHECK(silent.server.wait_for_queries("silent.example.test", 4, 2s));
}

TEST_CASE("dns: IP literals are answered without a query", "[dns]") {
  rig r;
  for (auto literal : {"192.0.2.1", "2001:db8::1", "::ffff:127.0.0.1", "127.0.0.1", "::1"}) {
    auto answer = r.lookup(literal);
    INFO(literal);
    CHECK(answer.status == dns_status::ok);
    CHECK(answer.addresses == std::vector<asio::ip::address>{asio::ip::make_address(literal)});
  }
  // A name asked afterwards reaches the server behind any datagram sent before it, so once
  // its answer is back, the count shows whether the literals sent anything.
  r.server.add("after.example.test", "192.0.2.60", 300);
  REQUIRE(r.lookup("after.example.test").status == dns_status::ok);
  CHECK(r.server.total_queries() == r.server.queries("after.example.test"));
  CHECK(r.server.total_queries() == 2);
}

TEST_CASE("dns: localhost is loopback without the hosts file or a server", "[dns]") {
  rig r;
  // The server would answer a public address: a resolver that asked it would show it.
  r.server.add("localhost", "192.0.2.61", 300);
  r.server.add("game.localhost", "192.0.2.62", 300);
  const std::vector<asio::ip::address> loopback{asio::ip::make_address("127.0.0.1"),
                                                asio::ip::make_address("::1")};
  for (auto name : {"localhost", "LocalHost.", "game.localhost", "a.b.localhost."}) {
    INFO(name);
    auto answer = r.lookup(name);
    CHECK(answer.status == dns_status::ok);
    CHECK(answer.addresses == loopback);
  }
  r.server.add("after.example.test", "192.0.2.60", 300);
  REQUIRE(r.lookup("after.example.test").status == dns_status::ok);
  CHECK(r.server.total_queries() == r.server.queries("after.example.test"));
}

TEST_CASE("dns: which names are localhost names", "[dns]") {
  for (auto name : {"localhost", "LOCALHOST", "localhost.", "a.localhost", "x.y.Localhost."})
    CHECK(is_localhost_name(name));
  for (auto name : {"", ".", "localhost.example", "notlocalhost", "localhostx", "a.localhost..",
                    "127.0.0.1"})
    CHECK_FALSE(is_localhost_name(name));
}

TEST_CASE("dns: concurrent lookups of one name share one query", "[dns]") {
  auto settings = quick_settings();
  // Long enough that no retry is sent while the server holds the query; caching off, so
  // only the shared flight can keep the count at one query per type.
  settings.timeout = 5s;
  settings.max_ttl = 0s;
  rig r{settings};
  r.server.add("busy.example.test", "192.0.2.70", 300);
  r.server.add("busy.example.test", "2001:db8::70", 300);
  r.server.set("busy.example.test", test::dns_behaviour::hold);

  std::vector<std::future<dns_answer>> answers;
  for (int i = 0; i < 20; ++i)
    answers.push_back(r.start("busy.example.test"));
  REQUIRE(r.server.wait_for_queries("busy.example.test", 2, 5s));
  // Every lookup above was queued on the resolver's strand before the answer can be.
  r.server.release("busy.example.test");
  for (auto& f : answers) {
    REQUIRE(f.wait_for(10s) == std::future_status::ready);
    auto answer = f.get();
    CHECK(answer.status == dns_status::ok);
    CHECK(has(answer, "192.0.2.70"));
    CHECK(has(answer, "2001:db8::70"));
  }
  CHECK(r.server.queries("busy.example.test") == 2);
}

TEST_CASE("dns: stop drops pending lookups without calling back", "[dns]") {
  auto settings = quick_settings();
  settings.timeout = 5s;
  rig r{settings};
  r.server.set("silent.example.test", test::dns_behaviour::silent);
  auto pending = r.start("silent.example.test");
  REQUIRE(r.server.wait_for_queries("silent.example.test", 2, 5s));
  r.halt();
  r.resolver->stop();
  r.resolver.reset();
  // The callback, and the promise it held, were destroyed unrun.
  REQUIRE(pending.wait_for(0s) == std::future_status::ready);
  CHECK_THROWS_AS(pending.get(), std::future_error);
}

TEST_CASE("dns: a lookup in flight completes after its resolver handle is gone", "[dns]") {
  rig r;
  r.server.add("late.example.test", "192.0.2.80", 300);
  r.server.set("late.example.test", test::dns_behaviour::hold);
  auto pending = r.start("late.example.test");
  REQUIRE(r.server.wait_for_queries("late.example.test", 2, 5s));
  r.resolver.reset();
  r.server.release("late.example.test");
  REQUIRE(pending.wait_for(10s) == std::future_status::ready);
  auto answer = pending.get();
  CHECK(answer.status == dns_status::ok);
  CHECK(has(answer, "192.0.2.80"));
}

TEST_CASE("dns: --dns-servers entries parse, bad ones are refused", "[dns]") {
  std::string error;
  auto parsed = parse_dns_servers("127.0.0.1, 127.0.0.2:5353,[::1]:53,::1", error);
  REQUIRE(parsed);
  REQUIRE(parsed->size() == 4);
  CHECK((*parsed)[0].address == asio::ip::make_address("127.0.0.1"));
  CHECK((*parsed)[0].port == 53);
  CHECK((*parsed)[1].port == 5353);
  CHECK((*parsed)[2].address == asio::ip::make_address("::1"));
  CHECK((*parsed)[3].address == asio::ip::make_address("::1"));
  CHECK((*parsed)[3].port == 53);
  for (auto bad : {"", "dns.example", "127.0.0.1:0", "127.0.0.1:70000", "127.0.0.1:",
                   "[::1", "[::1]x", "1.2.3.4,,5.6.7.8", "fe80::1%lo"}) {
    INFO(bad);
    error.clear();
    CHECK(!parse_dns_servers(bad, error));
    CHECK(!error.empty());
  }
}

TEST_CASE("dns e2e: the service looks target names up at --dns-servers", "[dns][e2e]") {
  test::dns_server dns;
  dns.add("fake.example.test", "127.0.0.1", 300);
  dns.add("inside.example.test", "10.1.2.3", 300);
  dns.set("silent.example.test", test::dns_behaviour::silent);
  test::fake_target_process fake{{"--tls", "off"}};
  test::service_process svc{{"--dns-servers", "127.0.0.1:" + std::to_string(dns.port()),
                             "--dns-timeout-ms", "200", "--dns-tries", "1"}};
  auto query = [&](const std::string& host) {
    return "host=" + host + "&port=" + std::to_string(fake.port()) + "&tls=false";
  };

  auto reply = test::get_info(svc, query("fake.example.test"));
  INFO(reply.body);
  CHECK(reply.status == 200);
  CHECK(reply.json().at("info").at("name") == "Fake BDS");
  CHECK(dns.queries("fake.example.test") == 2);
  // A second call is served by the resolver's cache.
  CHECK(test::get_info(svc, query("fake.example.test")).status == 200);
  CHECK(dns.queries("fake.example.test") == 2);

  // The address policy judges the address the name resolved to.
  auto inside = test::get_info(svc, query("inside.example.test"));
  CHECK(inside.status == 403);
  CHECK(inside.json().at("code") == "forbidden_target");

  auto gone = test::get_info(svc, query("gone.example.test"));
  CHECK(gone.status == 502);
  CHECK(gone.json().at("code") == "upstream_failure");

  auto silent = test::get_info(svc, query("silent.example.test"));
  CHECK(silent.status == 504);
  CHECK(silent.json().at("code") == "upstream_timeout");
}
