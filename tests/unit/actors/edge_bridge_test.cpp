// The edge bridge's cache-hit path with leases (actors/edge_bridge.hpp, actors/edge_leases.hpp):
// a real quota actor on a real LMDB file, a hit board, and an Asio io thread whose reply inbox
// carries the quota actor's grants and recalls, as the service wires them.
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <future>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <caf/all.hpp>

#include "actors/edge_bridge.hpp"
#include "actors/quota_actor.hpp"
#include "core/api_key.hpp"
#include "net/http/reply_inbox.hpp"
#include "storage/accounts.hpp"
#include "storage/records.hpp"
#include "support/process.hpp"
#include "support/rooms.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

namespace asio = boost::asio;

const target cached{"203.0.113.7", 19132, tls_mode::auto_detect};

/// One io thread with its bridge, as the service has one per io_context.
struct edge_thread {
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> guard{io.get_executor()};
  std::thread thread;
  core::call_sink sink;

  edge_thread(const quota_actor& quotas, std::shared_ptr<const hit_board> board) {
    auto* inbox = &asio::use_service<net::http::reply_inbox>(io);
    sink = make_edge_bridge(
      {}, {std::move(board), quotas,
           [inbox](std::function<void()> work) { inbox->push(std::move(work)); },
           [] { return static_cast<std::int64_t>(std::time(nullptr)); }});
    thread = std::thread([this] { io.run(); });
  }

  ~edge_thread() {
    if (sink)
      close();
    guard.reset();
    io.stop();
    thread.join();
  }

  /// Destroys the bridge on its io thread, as the service does before it stops the actors.
  void close() {
    std::promise<void> done;
    asio::post(io, [&] {
      sink = nullptr;
      done.set_value();
    });
    REQUIRE(done.get_future().wait_for(10s) == std::future_status::ready);
  }
};

/// A quota actor on an LMDB file and io threads, each with a bridge whose board holds a fresh
/// answer for `cached`.
struct bridge_fixture {
  test::temp_dir dir;
  std::shared_ptr<storage::store> file;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  quota_actor quotas;
  std::vector<std::unique_ptr<edge_thread>> edges;

  bridge_fixture(std::uint64_t reserve_max, std::chrono::milliseconds ttl,
                 std::size_t io_threads = 1) {
    file = test::open_lmdb(dir.path()).store;
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    quota_settings settings{quota_limits{1000000, 1000000, 1000000, 1000000},
                            [] { return static_cast<std::int64_t>(std::time(nullptr)); }};
    settings.reserve_max = reserve_max;
    settings.reserve_ttl = ttl;
    quotas = system->spawn<caf::detached>(quota_on, file, settings);
    offer_cache::limits limits;
    auto board = std::make_shared<hit_board>(limits, [] { return offer_cache::clock_type::now(); });
    board->apply({cached, std::make_shared<const std::string>(R"({"cached":true})"),
                  offer_cache::clock_type::now(), false});
    for (std::size_t i = 0; i < io_threads; ++i) {
      // Each io thread owns its board in the service; here they only read this one.
      edges.push_back(std::make_unique<edge_thread>(quotas, board));
    }
  }

  ~bridge_fixture() {
    close_edges();
    stop_quotas();
  }

  void close_edges() {
    for (auto& e : edges)
      if (e->sink)
        e->close();
  }

  void stop_quotas() {
    if (!quotas)
      return;
    caf::scoped_actor self{*system};
    self->monitor(quotas);
    self->send_exit(quotas, caf::exit_reason::user_shutdown);
    self->receive([](const caf::down_msg&) {});
    quotas = nullptr;
  }

  struct answer {
    core::api_outcome outcome;
    /// Whether the reply was made on the io thread, within the call to the sink: from a lease.
    bool on_io_thread = false;
  };

  /// One cached offer from client (with a key's hash), through the sink of io thread edge.
  answer offer(const std::string& client, const std::string& key_hash = {},
               std::size_t edge = 0) {
    auto result = std::make_shared<std::promise<answer>>();
    auto& e = *edges.at(edge);
    asio::post(e.io, [&e, result, client, key_hash] {
      core::api_call call;
      call.kind = core::call_kind::offer;
      call.client = client;
      call.key_hash = key_hash;
      call.where = cached;
      auto io_id = std::this_thread::get_id();
      call.reply = [result, io_id](core::api_outcome&& outcome) {
        result->set_value({std::move(outcome), std::this_thread::get_id() == io_id});
      };
      e.sink(std::move(call));
    });
    auto future = result->get_future();
    REQUIRE(future.wait_for(10s) == std::future_status::ready);
    return future.get();
  }

  std::uint64_t counted(const std::string& scope, const std::string& subject) {
    return test::counter_value(*file, "offer", scope, subject,
                               storage::window_of(std::time(nullptr)).label);
  }
};

} // namespace

TEST_CASE("edge bridge: a busy caller's cached offers are answered on the io thread from "
          "leases, each counted on the file before its reply",
          "[quota][lease]") {
  bridge_fixture f{256, 1000ms};
  const int calls = 600;
  int on_io_thread = 0;
  for (int i = 1; i <= calls; ++i) {
    auto a = f.offer("192.0.2.50");
    INFO("call " << i);
    REQUIRE(a.outcome.error.ok());
    CHECK(a.outcome.board_hit);
    REQUIRE(a.outcome.shared_body);
    CHECK(*a.outcome.shared_body == R"({"cached":true})");
    // One caller on one io thread sees its calls counted one by one, whichever way each was
    // answered.
    CHECK(a.outcome.quota.remaining == 1000000 - static_cast<std::uint64_t>(i));
    // Durable before the reply: the file never holds fewer than the calls answered.
    CHECK(f.counted("ip", "192.0.2.50") >= static_cast<std::uint64_t>(i));
    on_io_thread += a.on_io_thread ? 1 : 0;
  }
  INFO(on_io_thread << " of " << calls << " answered on the io thread");
  CHECK(on_io_thread >= calls * 8 / 10);
  // The edge goes first and gives its leases back; then the quota actor gives back the rest.
  f.close_edges();
  f.stop_quotas();
  CHECK(f.counted("ip", "192.0.2.50") == static_cast<std::uint64_t>(calls));
}

TEST_CASE("edge bridge: a caller who stops has what its leases did not use given back",
          "[quota][lease]") {
  bridge_fixture f{256, 200ms};
  for (int i = 0; i < 200; ++i)
    REQUIRE(f.offer("192.0.2.51").outcome.error.ok());
  // Nothing stops: the reservation's time runs out, the quota actor recalls the edge's lease,
  // and the edge's rest and the reservation's go back to the file.
  CHECK(test::wait_until([&] { return f.counted("ip", "192.0.2.51") == 200; }, 5s));
  CHECK(f.counted("ip", "192.0.2.51") == 200);
  // The next call is counted as the 201st.
  auto next = f.offer("192.0.2.51");
  REQUIRE(next.outcome.error.ok());
  CHECK(next.outcome.quota.remaining == 1000000 - 201);
}

TEST_CASE("edge bridge: a key revoked on the store stops within the reservation's time",
          "[quota][lease]") {
  bridge_fixture f{64, 200ms};
  std::string key;
  test::in_records(*f.file, true, [&](storage::record_txn& records) {
    auto issued = storage::issue_key(records, 41, "erin", std::time(nullptr));
    REQUIRE(issued);
    key = issued->key;
  });
  auto hash = core::hash_api_key(key);
  int on_io_thread = 0;
  for (int i = 0; i < 100; ++i) {
    auto a = f.offer("192.0.2.52", hash);
    REQUIRE(a.outcome.error.ok());
    CHECK(a.outcome.quota.scope == quota_scope::key);
    on_io_thread += a.on_io_thread ? 1 : 0;
  }
  CHECK(on_io_thread > 0);
  test::in_records(*f.file, true, [](storage::record_txn& records) {
    auto revoked = storage::revoke_active_key(records, 41, std::time(nullptr));
    REQUIRE(revoked);
    REQUIRE(*revoked);
  });
  // Calls counted ahead, on the edge's lease or the quota actor's reservation, may still be
  // answered: at most reserve_max of them, and only until the reservation's time is up.
  int allowed = 0;
  core::api_outcome last;
  auto revoked_at = std::chrono::steady_clock::now();
  auto deadline = revoked_at + 5s;
  do {
    last = f.offer("192.0.2.52", hash).outcome;
    allowed += last.error.ok() ? 1 : 0;
  } while (last.error.ok() && std::chrono::steady_clock::now() < deadline);
  CHECK(last.error.code == error_code::unauthorized);
  // The reservation's 64 and the io thread's lease, at most half of that.
  CHECK(allowed <= 64 + 32);
  CHECK(std::chrono::steady_clock::now() - revoked_at < 2s);
}

TEST_CASE("edge bridge: with two io threads the calls counted ahead stay within their bound, "
          "and in the end each call is counted once",
          "[quota][lease]") {
  bridge_fixture f{64, 200ms, 2};
  const std::string client = "192.0.2.53";
  std::uint64_t made = 0;
  int on_io_threads = 0;
  // Both io threads take leases of the caller's calls.
  for (int i = 0; i < 300; ++i) {
    auto a = f.offer(client, {}, static_cast<std::size_t>(i % 2));
    REQUIRE(a.outcome.error.ok());
    ++made;
    on_io_threads += a.on_io_thread ? 1 : 0;
    CHECK(f.counted("ip", client) >= made);
    // Counted ahead: at most 64 in the reservation and half of that in each thread's lease.
    CHECK(f.counted("ip", client) <= made + 64 + 2 * 32);
  }
  CHECK(on_io_threads > 150);
  // Then only the second thread gets calls, for several of the reservation's times, while
  // the first thread's lease runs out of time.
  auto until = std::chrono::steady_clock::now() + 1500ms;
  while (std::chrono::steady_clock::now() < until) {
    REQUIRE(f.offer(client, {}, 1).outcome.error.ok());
    ++made;
    CHECK(f.counted("ip", client) <= made + 64 + 2 * 32);
  }
  REQUIRE(f.offer(client, {}, 0).outcome.error.ok());
  ++made;
  f.close_edges();
  f.stop_quotas();
  CHECK(f.counted("ip", client) == made);
}
