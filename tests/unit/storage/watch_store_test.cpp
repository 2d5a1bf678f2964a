// The watch store on both backends (LMDB in a temp dir, Redis on a real redis-server): the
// schedule keeps the transitions of core/watch_schedule's model, step for step, across two
// handles as two replicas would hold them; and each server's history is stored, folded into
// hours, pruned within its budget, and read back by range. And the history actor over it, as
// two replicas run it: a sync sends the watches to the schedule only when their generation
// changed, and /metrics reads the latest checks from the store once per sync.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <set>

#include <caf/all.hpp>

#include "actors/history_actor.hpp"
#include "core/watch_schedule.hpp"
#include "storage/watch_records.hpp"
#include "storage/watch_store.hpp"
#include "support/history_rows.hpp"
#include "support/redis_server.hpp"
#include "support/rooms.hpp"
#include "support/store.hpp"

using namespace netherscope::test;
using core::verdict_code;

namespace {

/// Two handles on one watch store of the backend asked for (on LMDB, the one object a
/// process may open), as two replicas would hold them.
struct watch_store_rig : backend_store {
  std::shared_ptr<storage::watch_store> one;
  std::shared_ptr<storage::watch_store> two;

  explicit watch_store_rig(const std::string& backend)
    : backend_store(backend),
      one(watching),
      two(redis ? open_redis(redis->url()).watching : watching) {
    REQUIRE(one);
    REQUIRE(two);
  }
};

bool same_claims(const std::vector<core::schedule_claim>& a,
                 const std::vector<core::schedule_claim>& b) {
  if (a.size() != b.size())
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].key != b[i].key || a[i].due_ms != b[i].due_ms
        || a[i].lease_until_ms != b[i].lease_until_ms || a[i].taken_from != b[i].taken_from)
      return false;
  return true;
}

// 2026-11-27T10:00:00Z in milliseconds.
constexpr std::int64_t t0_ms = 1'795'773'600'000;

} // namespace

TEST_CASE("watch store: the schedule follows the model's transitions on both backends",
          "[store][watch][schedule][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  watch_store_rig rig{backend};
  core::watch_schedule model;
  std::vector<std::string> keys{"a.example|19132", "b.example|19132", "b.example|19133",
                                "10.0.0.1|7551", "c.example|1"};
  std::vector<std::int64_t> periods{2000, 5000, 60000};
  std::mt19937 draw{20261127};
  auto now = t0_ms;
  std::map<std::string, std::int64_t> wanted;
  // The outstanding claims, as owners hold them.
  std::vector<std::pair<std::string, core::schedule_claim>> held;
  for (int step = 0; step < 400; ++step) {
    INFO("step " << step);
    now += std::uniform_int_distribution<std::int64_t>{0, 1500}(draw);
    auto action = std::uniform_int_distribution<int>{0, 9}(draw);
    if (action == 0) {
      // The watches change: a server added, another's period changed, or one removed.
      auto& key = keys[std::uniform_int_distribution<std::size_t>{0, keys.size() - 1}(draw)];
      if (std::uniform_int_distribution<int>{0, 3}(draw) == 0)
        wanted.erase(key);
      else
        wanted[key] = periods[std::uniform_int_distribution<std::size_t>{0, 2}(draw)];
      std::vector<storage::scheduled_target> targets;
      for (auto& [k, p] : wanted) {
        targets.push_back({k, p});
        model.put(k, p, now);
      }
      for (const auto& k : model.keys())
        if (wanted.count(k) == 0)
          model.remove(k);
      auto gone = rig.one->sync_schedule(targets, now);
      REQUIRE(gone);
    } else if (action <= 5) {
      auto owner = action % 2 == 0 ? std::string{"replica-a"} : std::string{"replica-b"};
      auto& store = action % 2 == 0 ? *rig.one : *rig.two;
      auto expected = model.claim(owner, now, 3, 4000);
      auto claimed = store.claim_checks(owner, now, 3, 4000);
      REQUIRE(claimed);
      CHECK(same_claims(*claimed, expected));
      for (auto& c : *claimed)
        held.emplace_back(owner, c);
    } else if (!held.empty()) {
      auto i = std::uniform_int_distribution<std::size_t>{0, held.size() - 1}(draw);
      auto [owner, claim] = held[i];
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      auto expected = model.complete(claim.key, owner, claim.due_ms, now);
      auto completed = rig.two->complete_check(claim.key, owner, claim.due_ms, now);
      REQUIRE(completed);
      CHECK(*completed == expected);
    }
  }
  // Far in the future every server is ready, in the model's order.
  auto late = now + 120000;
  auto all = rig.one->claim_checks("replica-c", late, 10, 1000);
  REQUIRE(all);
  CHECK(same_claims(*all, model.claim("replica-c", late, 10, 1000)));
  CHECK(all->size() == wanted.size());
}

TEST_CASE("watch store: history rows, hours, budget and removal on both backends",
          "[store][watch][history][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  watch_store_rig rig{backend};
  const std::string key = "play.example.com|19132";
  const std::string other = "other.example|19132";
  auto budget = core::budget_for(60);
  auto hour = core::hour_start(t0_ms / 1000);

  SECTION("each check answers the one before it, and the hour is folded from the rows") {
    std::vector<core::history_row> rows{
      check_row(hour + 10, verdict_code::joinable, 3, 20),
      check_row(hour + 70, verdict_code::offline),
      check_row(hour + 130, verdict_code::signalling_only, 5, 20),
    };
    std::optional<core::history_row> before;
    for (auto& row : rows) {
      auto previous = rig.one->record_check(key, row, budget);
      REQUIRE(previous);
      CHECK(*previous == before);
      before = row;
    }
    // Another server's history is its own.
    REQUIRE(rig.one->record_check(other, check_row(hour + 20, verdict_code::offline), budget));
    auto read = rig.two->read_rows(key, hour, hour + 3600);
    REQUIRE(read);
    CHECK(*read == rows);
    auto window = rig.two->read_rows(key, hour + 70, hour + 130);
    REQUIRE(window);
    REQUIRE(window->size() == 1);
    CHECK(window->front() == rows[1]);
    auto hours = rig.two->read_hours(key, hour, hour + 3600);
    REQUIRE(hours);
    CHECK(*hours == core::fold_hours(rows));
    auto latest = rig.two->latest_checks({other, "none.example|1", key});
    REQUIRE(latest);
    REQUIRE(latest->size() == 3);
    CHECK((*latest)[0] == check_row(hour + 20, verdict_code::offline));
    CHECK_FALSE((*latest)[1]);
    CHECK((*latest)[2] == rows.back());

    // A week's slice: the stored hour, brought up to date by the rows.
    auto slice = storage::read_slice(*rig.two, key, core::history_range::week, hour + 200);
    REQUIRE(slice);
    CHECK(slice->hours == core::fold_hours(rows));
    auto day = storage::read_slice(*rig.two, key, core::history_range::day, hour + 200);
    REQUIRE(day);
    CHECK(day->rows == rows);
  }

  SECTION("rows beyond the budget and past 48 hours go, hours past 90 days go") {
    // A period of a day keeps two rows.
    auto small = core::budget_for(86400);
    REQUIRE(small.rows == 2);
    for (int i = 0; i < 5; ++i)
      REQUIRE(rig.one->record_check(key, check_row(hour + i * 60, verdict_code::joinable), small));
    auto kept = rig.one->read_rows(key, 0, hour + 86400);
    REQUIRE(kept);
    REQUIRE(kept->size() == 2);
    CHECK(kept->front().at == hour + 180);
    // 91 days later: the old rows and the old hour are pruned by time.
    auto later = hour + 91 * 86400;
    REQUIRE(rig.one->record_check(key, check_row(later, verdict_code::offline), budget));
    auto rows = rig.one->read_rows(key, 0, later + 1);
    REQUIRE(rows);
    REQUIRE(rows->size() == 1);
    CHECK(rows->front().at == later);
    auto hours = rig.one->read_hours(key, 0, later + 3600);
    REQUIRE(hours);
    REQUIRE(hours->size() == 1);
    CHECK(hours->front().start == core::hour_start(later));
  }

  SECTION("a check older than the latest answers the row before it and counts in the budget") {
    // A replica that ran late stores its check after a later one: the answer is the row
    // before its time, and the prune counts it with the later rows.
    auto small = core::budget_for(86400);
    REQUIRE(small.rows == 2);
    auto first = check_row(hour, verdict_code::joinable);
    auto last = check_row(hour + 120, verdict_code::offline);
    REQUIRE(rig.one->record_check(key, first, small));
    REQUIRE(rig.one->record_check(key, last, small));
    auto late = check_row(hour + 60, verdict_code::signalling_only, 2, 20);
    auto previous = rig.one->record_check(key, late, small);
    REQUIRE(previous);
    CHECK(*previous == first);
    auto kept = rig.two->read_rows(key, 0, hour + 3600);
    REQUIRE(kept);
    CHECK(*kept == std::vector<core::history_row>{late, last});
    // The same time again replaces its row: nothing more is pruned.
    auto again = check_row(hour + 120, verdict_code::joinable, 4, 20);
    previous = rig.one->record_check(key, again, small);
    REQUIRE(previous);
    CHECK(*previous == late);
    kept = rig.two->read_rows(key, 0, hour + 3600);
    REQUIRE(kept);
    CHECK(*kept == std::vector<core::history_row>{late, again});
  }

  SECTION("a server the schedule drops leaves with its history") {
    REQUIRE(rig.one->record_check(key, check_row(hour, verdict_code::joinable), budget));
    REQUIRE(rig.one->record_check(other, check_row(hour, verdict_code::joinable), budget));
    auto gone = rig.one->sync_schedule({{other, 60000}}, t0_ms);
    REQUIRE(gone);
    // The schedule never held key: only what it held leaves it.
    auto again = rig.one->sync_schedule({{key, 60000}, {other, 60000}}, t0_ms);
    REQUIRE(again);
    auto dropped = rig.one->sync_schedule({{other, 60000}}, t0_ms);
    REQUIRE(dropped);
    CHECK(*dropped == std::vector<std::string>{key});
    auto rows = rig.two->read_rows(key, 0, hour + 3600);
    REQUIRE(rows);
    CHECK(rows->empty());
    auto hours = rig.two->read_hours(key, 0, hour + 3600);
    REQUIRE(hours);
    CHECK(hours->empty());
    auto kept = rig.two->read_rows(other, 0, hour + 3600);
    REQUIRE(kept);
    CHECK(kept->size() == 1);
  }
}

namespace {

/// A watch store that forwards every call and counts the ones the history actor's tests watch.
class counting_watch_store final : public storage::watch_store {
public:
  explicit counting_watch_store(std::shared_ptr<storage::watch_store> inner)
    : inner_(std::move(inner)) {
    // nop
  }

  std::atomic<int> syncs{0};
  std::atomic<int> latest_reads{0};

  caf::expected<std::vector<std::string>>
  sync_schedule(const std::vector<storage::scheduled_target>& targets,
                std::int64_t now_ms) override {
    ++syncs;
    return inner_->sync_schedule(targets, now_ms);
  }
  caf::expected<std::vector<core::schedule_claim>>
  claim_checks(const std::string& owner, std::int64_t now_ms, std::size_t max,
               std::int64_t lease_ms) override {
    return inner_->claim_checks(owner, now_ms, max, lease_ms);
  }
  caf::expected<bool> complete_check(std::string_view key, std::string_view owner,
                                     std::int64_t due_ms, std::int64_t now_ms) override {
    return inner_->complete_check(key, owner, due_ms, now_ms);
  }
  caf::expected<std::optional<core::history_row>>
  record_check(std::string_view key, const core::history_row& row,
               const core::history_budget& budget) override {
    return inner_->record_check(key, row, budget);
  }
  caf::expected<std::vector<core::history_row>> read_rows(std::string_view key,
                                                        std::int64_t from,
                                                        std::int64_t to) override {
    return inner_->read_rows(key, from, to);
  }
  caf::expected<std::vector<core::history_hour>> read_hours(std::string_view key,
                                                          std::int64_t from,
                                                          std::int64_t to) override {
    return inner_->read_hours(key, from, to);
  }
  caf::expected<std::vector<std::optional<core::history_row>>>
  latest_checks(const std::vector<std::string>& keys) override {
    ++latest_reads;
    return inner_->latest_checks(keys);
  }

private:
  std::shared_ptr<storage::watch_store> inner_;
};

/// Two history actors as two replicas run them, each over its own handles on one store (on
/// LMDB, the one object a process may open), their watch stores counted; watches are changed
/// through the first replica's handle.
struct history_rig : backend_store {
  std::shared_ptr<storage::store> other_store;
  std::shared_ptr<counting_watch_store> counted_a;
  std::shared_ptr<counting_watch_store> counted_b;
  std::shared_ptr<std::atomic<std::int64_t>> clock
    = std::make_shared<std::atomic<std::int64_t>>(t0_ms);
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  actors::history_actor a;
  actors::history_actor b;

  explicit history_rig(const std::string& backend) : backend_store(backend) {
    auto other_watching = watching;
    other_store = store;
    if (redis) {
      auto other = open_redis(redis->url());
      other_store = other.store;
      other_watching = other.watching;
    }
    counted_a = std::make_shared<counting_watch_store>(watching);
    counted_b = std::make_shared<counting_watch_store>(other_watching);
    cfg.set("scheduler.max-threads", 2);
    system = std::make_unique<caf::actor_system>(cfg);
    auto now = [c = clock] { return c->load(); };
    a = system->spawn<caf::detached>(actors::history, store, counted_a, now,
                                     actors::webhook_actor{});
    b = system->spawn<caf::detached>(actors::history, other_store, counted_b, now,
                                     actors::webhook_actor{});
  }

  ~history_rig() {
    caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
    a = nullptr;
    b = nullptr;
    system.reset();
  }

  /// A new watch of host:port (period 60 s) through the first replica's handle; its id.
  std::string add_watch(const std::string& host, std::uint16_t port, bool shown) {
    storage::watch_record w;
    w.owner = 7;
    w.watch.id = *storage::new_watch_id();
    w.watch.host = host;
    w.watch.port = port;
    w.watch.period_seconds = 60;
    w.watch.is_public = shown;
    w.watch.created = t0_ms / 1000;
    in_records(*store, true, [&](storage::record_txn& t) {
      auto added = storage::add_watch(t, w, 100);
      REQUIRE(added);
      REQUIRE(added->ok());
    });
    return w.watch.id;
  }

  void delete_watch(const std::string& id) {
    in_records(*store, true, [&](storage::record_txn& t) {
      auto deleted = storage::delete_watch(t, 7, id);
      REQUIRE(deleted);
      REQUIRE(*deleted);
    });
  }

  /// The replica's answer to a request of xs; the test fails on an error.
  template <class Answer, class... Ts>
  Answer ask(const actors::history_actor& replica, Ts&&... xs) {
    Answer out{};
    caf::scoped_actor self{*system};
    self->request(replica, std::chrono::seconds(10), std::forward<Ts>(xs)...)
      .receive([&](Answer& answer) { out = std::move(answer); },
               [&](caf::error& err) { FAIL(caf::to_string(err)); });
    return out;
  }

  std::size_t sync(const actors::history_actor& replica) {
    return ask<std::size_t>(replica, actors::sync_atom::value);
  }

  std::vector<core::watched_check> latest(const actors::history_actor& replica) {
    return *ask<actors::watched_checks>(replica, actors::latest_atom::value);
  }

  std::vector<core::schedule_claim> claim(const actors::history_actor& replica,
                                         const std::string& owner) {
    return ask<std::vector<core::schedule_claim>>(replica, actors::claim_atom::value, owner,
                                                 std::size_t{10}, std::int64_t{60000});
  }

  void record(const actors::history_actor& replica, const core::schedule_claim& claim,
              const std::string& owner, const core::history_row& row) {
    ask<std::string>(replica, actors::record_atom::value, claim, owner, core::encode(row));
  }

  /// The servers the schedule holds: every one is ready far in the future. Each call looks
  /// later than the one before, past the short leases its claims take.
  std::set<std::string> scheduled() {
    far += 86'400'000;
    auto claims = watching->claim_checks("looking", far, 100, 1);
    REQUIRE(claims);
    std::set<std::string> out;
    for (auto& c : *claims)
      out.insert(c.key);
    return out;
  }

  std::int64_t far = t0_ms + 86'400'000;
};

} // namespace

TEST_CASE("history actor: a sync sends the watches to the schedule only when their generation "
          "changed",
          "[watch][schedule][actors][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  history_rig rig{backend};
  auto first = rig.add_watch("a.example", 19132, true);

  // A replica's first sync sends the watches; the next finds them unchanged.
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 1);
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 1);
  CHECK(rig.scheduled() == std::set<std::string>{"a.example|19132"});

  // A watch added through the other replica's handle reaches this one's next sync, and so
  // does a deletion.
  rig.add_watch("b.example", 19133, false);
  CHECK(rig.sync(rig.b) == 2);
  CHECK(rig.counted_b->syncs == 2);
  CHECK(rig.scheduled() == std::set<std::string>{"a.example|19132", "b.example|19133"});
  rig.delete_watch(first);
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 3);
  CHECK(rig.scheduled() == std::set<std::string>{"b.example|19133"});
  // The first replica never synced: its first sync sends them.
  CHECK(rig.sync(rig.a) == 1);
  CHECK(rig.counted_a->syncs == 1);

  // However long nothing changes, every so many syncs send the watches again, which mends a
  // schedule that lost what a sync wrote.
  for (unsigned i = 0; i < actors::max_unchanged_syncs; ++i)
    REQUIRE(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 3);
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 4);

  // A store without a generation (from before it): a sync sends the watches and stores one,
  // the next sends them once more under it, and then they rest.
  in_records(*rig.store, true, [](storage::record_txn& t) {
    REQUIRE_FALSE(t.del(storage::record_table::watches, "g"));
  });
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 5);
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 6);
  CHECK(rig.sync(rig.b) == 1);
  CHECK(rig.counted_b->syncs == 6);

  if (rig.redis) {
    // An emptied Redis has no watches and no generation: the schedule is emptied too.
    REQUIRE(redis_command(rig.redis->port(), {"FLUSHALL"}) == "OK");
    CHECK(rig.sync(rig.b) == 0);
    CHECK(rig.counted_b->syncs == 7);
    CHECK(rig.scheduled().empty());
    rig.add_watch("c.example", 1, false);
    CHECK(rig.sync(rig.b) == 1);
    CHECK(rig.scheduled() == std::set<std::string>{"c.example|1"});
  }
}

TEST_CASE("history actor: /metrics reads the latest checks from the store once per sync, and "
          "the replica's own checks in between",
          "[watch][history][actors][redis]") {
  auto backend = GENERATE(as<std::string>{}, "lmdb", "redis");
  if (!backend_available(backend))
    return;
  INFO("backend " << backend);
  history_rig rig{backend};
  rig.add_watch("p.example", 19132, true);
  rig.add_watch("q.example", 19132, false);
  REQUIRE(rig.sync(rig.a) == 2);
  CHECK(rig.latest(rig.a).empty());
  CHECK(rig.latest(rig.a).empty());
  CHECK(rig.counted_a->latest_reads == 1);

  // A check this replica stores shows at once, without a read; one of a server that is not
  // public never shows.
  *rig.clock = t0_ms + 120'000;
  auto claims = rig.claim(rig.a, "replica-a");
  REQUIRE(claims.size() == 2);
  auto row = check_row(t0_ms / 1000 + 100, verdict_code::joinable, 3, 10);
  for (auto& c : claims)
    rig.record(rig.a, c, "replica-a", row);
  auto shown = rig.latest(rig.a);
  REQUIRE(shown.size() == 1);
  CHECK(shown.front().host == "p.example");
  CHECK(shown.front().port == 19132);
  CHECK(shown.front().last == row);
  CHECK(rig.counted_a->latest_reads == 1);

  // A check the other replica stored shows after this one's next sync.
  auto later = check_row(t0_ms / 1000 + 160, verdict_code::offline);
  REQUIRE(rig.counted_b->record_check("p.example|19132", later, core::budget_for(60)));
  shown = rig.latest(rig.a);
  REQUIRE(shown.size() == 1);
  CHECK(shown.front().last == row);
  rig.sync(rig.a);
  shown = rig.latest(rig.a);
  REQUIRE(shown.size() == 1);
  CHECK(shown.front().last == later);
  CHECK(rig.counted_a->latest_reads == 2);
  rig.latest(rig.a);
  CHECK(rig.counted_a->latest_reads == 2);
}
