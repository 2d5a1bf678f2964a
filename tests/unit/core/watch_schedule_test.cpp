// The watch schedule's pure part: stable slots spread over the period, lag, and the claim and
// lease state machine, down to a simulation of replicas that poll, check, die and join.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "core/watch_schedule.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

constexpr std::int64_t t0 = 1760000400000;  // Unix milliseconds
constexpr std::int64_t minute = 60000;

std::string target_name(int i) {
  return schedule_key("host-" + std::to_string(i) + ".example.com", 19132);
}

} // namespace

TEST_CASE("schedule: slots are stable, inside the period, and next_due is the next one",
          "[schedule]") {
  CHECK(schedule_key("play.example.com", 19132) == "play.example.com|19132");
  auto key = target_name(1);
  auto offset = slot_offset(key, 5 * minute);
  CHECK(offset >= 0);
  CHECK(offset < 5 * minute);
  CHECK(slot_offset(key, 5 * minute) == offset);
  CHECK(slot_offset(target_name(2), 5 * minute) != offset);
  for (std::int64_t now : {t0, t0 + 1, t0 + 123456, t0 - 7, std::int64_t{0}}) {
    auto due = next_due(key, 5 * minute, now);
    CHECK(due > now);
    CHECK(due <= now + 5 * minute);
    CHECK((due - offset) % (5 * minute) == 0);
  }
  // Exactly on a slot: the next one is a period later.
  auto due = next_due(key, 5 * minute, t0);
  CHECK(next_due(key, 5 * minute, due) == due + 5 * minute);
  CHECK(next_due(key, 5 * minute, due - 1) == due);
  CHECK(slot_offset(key, 0) == 0);
  CHECK(lag_ms(t0, t0 + 250) == 250);
  CHECK(lag_ms(t0, t0 - 5) == 0);
}

TEST_CASE("schedule: 10,000 targets spread evenly over a five-minute period", "[schedule]") {
  constexpr std::int64_t period = 5 * minute;
  std::vector<int> per_second(period / 1000, 0);
  std::vector<int> per_tenth(10, 0);
  for (int i = 0; i < 10000; ++i) {
    auto offset = slot_offset(target_name(i), period);
    ++per_second[static_cast<std::size_t>(offset / 1000)];
    ++per_tenth[static_cast<std::size_t>(offset * 10 / period)];
  }
  // About 33 a second: no second holds twice that, none is nearly empty.
  auto [least, most] = std::minmax_element(per_second.begin(), per_second.end());
  CHECK(*most <= 66);
  CHECK(*least >= 10);
  for (int tenth : per_tenth) {
    CHECK(tenth >= 900);
    CHECK(tenth <= 1100);
  }
}

TEST_CASE("schedule: lag histogram bounds its quantiles", "[schedule]") {
  lag_histogram h;
  CHECK(h.quantile_bound_ms(0.99) == 0);
  for (int i = 0; i < 98; ++i)
    h.add(40);
  h.add(3000);
  h.add(45000);
  CHECK(h.count() == 100);
  CHECK(h.max_ms() == 45000);
  CHECK(h.sum_ms() == 98 * 40 + 3000 + 45000);
  // Bounds, not values: 40 ms lies in the bucket up to 100 ms.
  CHECK(h.quantile_bound_ms(0.5) == 100);
  CHECK(h.quantile_bound_ms(0.98) == 100);
  CHECK(h.quantile_bound_ms(0.99) == 5000);
  CHECK(h.quantile_bound_ms(1.0) == 45000);
  h.add(999999);
  CHECK(h.bucket(lag_histogram::bounds_ms.size()) == 1);
  CHECK(h.quantile_bound_ms(1.0) == 999999);
}

TEST_CASE("schedule: claims, leases and completions", "[schedule]") {
  watch_schedule s;
  s.put("a", minute, t0);
  s.put("b", minute, t0);
  REQUIRE(s.size() == 2);
  auto due_a = s.find("a")->due_ms;
  auto due_b = s.find("b")->due_ms;
  CHECK(s.next_ready() == std::min(due_a, due_b));
  auto last_due = std::max(due_a, due_b);

  CHECK(s.claim("r1", std::min(due_a, due_b) - 1, 10, 30000).empty());
  auto claims = s.claim("r1", last_due, 10, 30000);
  REQUIRE(claims.size() == 2);
  // Earliest first.
  CHECK(claims[0].due_ms <= claims[1].due_ms);
  CHECK(claims[0].lease_until_ms == last_due + 30000);
  CHECK(claims[0].taken_from.empty());
  // Held: nobody else gets them.
  CHECK(s.claim("r2", last_due + 1000, 10, 30000).empty());
  CHECK(s.find("a")->owner == "r1");

  // Only the holder completes, once, for the slot it holds.
  CHECK_FALSE(s.complete("a", "r2", due_a, last_due + 2000));
  CHECK_FALSE(s.complete("a", "r1", due_a + 1, last_due + 2000));
  CHECK(s.complete("a", "r1", due_a, last_due + 2000));
  CHECK_FALSE(s.complete("a", "r1", due_a, last_due + 2000));
  auto& a = *s.find("a");
  CHECK(a.owner.empty());
  CHECK(a.due_ms == due_a + minute);
  CHECK(a.ready_ms == a.due_ms);
  CHECK_FALSE(s.complete("missing", "r1", 0, t0));
}

TEST_CASE("schedule: an expired lease is taken over, and the old holder's completion refused",
          "[schedule]") {
  watch_schedule s;
  s.put("a", minute, t0);
  auto due = s.find("a")->due_ms;
  REQUIRE(s.claim("r1", due, 1, 30000).size() == 1);
  CHECK(s.claim("r2", due + 29999, 1, 30000).empty());
  auto taken = s.claim("r2", due + 30000, 1, 30000);
  REQUIRE(taken.size() == 1);
  CHECK(taken[0].due_ms == due);
  CHECK(taken[0].taken_from == "r1");
  CHECK_FALSE(s.complete("a", "r1", due, due + 31000));
  CHECK(s.complete("a", "r2", due, due + 32000));
  CHECK(s.find("a")->due_ms == due + minute);
}

TEST_CASE("schedule: a late check skips the slots it missed", "[schedule]") {
  watch_schedule s;
  s.put("a", minute, t0);
  auto due = s.find("a")->due_ms;
  REQUIRE(s.claim("r1", due, 1, 10 * minute).size() == 1);
  CHECK(s.complete("a", "r1", due, due + 2 * minute + 5));
  CHECK(s.find("a")->due_ms == due + 3 * minute);
}

TEST_CASE("schedule: removing and changing the period", "[schedule]") {
  watch_schedule s;
  s.put("a", minute, t0);
  s.put("b", minute, t0);
  s.put("a", 5 * minute, t0);
  CHECK(s.find("a")->period_ms == 5 * minute);
  CHECK(s.find("a")->due_ms == next_due("a", 5 * minute, t0));
  // A leased entry keeps its slot; its next one follows the new period.
  auto due_b = s.find("b")->due_ms;
  REQUIRE(s.claim("r1", due_b, 1, 30000).size() >= 1);
  s.put("b", 2 * minute, due_b + 10);
  CHECK(s.find("b")->due_ms == due_b);
  CHECK(s.find("b")->owner == "r1");
  CHECK(s.complete("b", "r1", due_b, due_b + 1000));
  CHECK(s.find("b")->due_ms == next_due("b", 2 * minute, due_b + 1000));

  CHECK(s.remove("b"));
  CHECK_FALSE(s.remove("b"));
  CHECK_FALSE(s.complete("b", "r1", due_b, due_b + 1000));
  CHECK(s.size() == 1);
  CHECK(s.next_ready() == s.find("a")->due_ms);
  CHECK(lease_for(20000) == 25000);
}

TEST_CASE("schedule: replicas run each check once, a dead one's share moves within two "
          "periods, and a new one takes a share",
          "[schedule]") {
  // 300 targets every minute; replicas poll each second (at different phases) for up to 4
  // entries while they have fewer than 50 checks running (room for the whole load on two);
  // a check takes 2 to 10 s; leases last 30 s. r2 dies at 6 minutes with its checks
  // unfinished; r4 joins at 12.
  constexpr std::int64_t period = minute;
  constexpr std::int64_t lease = 30000;
  constexpr std::int64_t end = t0 + 20 * minute;
  constexpr std::int64_t death = t0 + 6 * minute;
  constexpr std::int64_t birth = t0 + 12 * minute;
  watch_schedule s;
  for (int i = 0; i < 300; ++i)
    s.put(target_name(i), period, t0);

  struct running {
    std::string key;
    std::int64_t due = 0;
    std::int64_t done = 0;
  };
  struct replica {
    std::string name;
    std::int64_t phase = 0;
    std::int64_t born = 0;
    std::int64_t dies = 0;
    std::vector<running> checks;
    std::size_t completed = 0;
  };
  std::vector<replica> replicas{{"r1", 0, t0, end, {}, 0},
                                {"r2", 333, t0, death, {}, 0},
                                {"r3", 667, t0, end, {}, 0},
                                {"r4", 500, birth, end, {}, 0}};
  std::set<std::pair<std::string, std::int64_t>> done;
  std::map<std::string, std::vector<std::int64_t>> completions;
  lag_histogram lags;
  std::size_t taken_over = 0;
  std::uint64_t draw = 7;

  for (std::int64_t now = t0; now < end; now += 100) {
    for (auto& r : replicas) {
      if (now < r.born || now >= r.dies)
        continue;
      for (auto it = r.checks.begin(); it != r.checks.end();) {
        if (it->done > now) {
          ++it;
          continue;
        }
        REQUIRE(s.complete(it->key, r.name, it->due, now));
        REQUIRE(done.insert({it->key, it->due}).second);
        completions[it->key].push_back(now);
        ++r.completed;
        it = r.checks.erase(it);
      }
      if ((now - t0) % 1000 != r.phase / 100 * 100 || r.checks.size() >= 50)
        continue;
      auto room = std::min<std::size_t>(4, 50 - r.checks.size());
      for (auto& c : s.claim(r.name, now, room, lease)) {
        // Only a dead replica's lease ever expires.
        if (!c.taken_from.empty()) {
          REQUIRE(c.taken_from == "r2");
          ++taken_over;
        }
        lags.add(lag_ms(c.due_ms, now));
        draw = draw * 6364136223846793005ULL + 1442695040888963407ULL;
        auto takes = 2000 + static_cast<std::int64_t>(draw >> 33) % 8001;
        r.checks.push_back({c.key, c.due_ms, now + takes});
      }
    }
  }

  CHECK(taken_over > 0);
  // Every target kept being checked: after its first check, never two periods without one.
  for (int i = 0; i < 300; ++i) {
    auto& times = completions[target_name(i)];
    REQUIRE(times.size() >= 17);
    for (std::size_t k = 1; k < times.size(); ++k) {
      INFO(target_name(i) << " " << times[k - 1] << " to " << times[k]);
      REQUIRE(times[k] - times[k - 1] <= 2 * period);
    }
  }
  // The new replica took a share of the last eight minutes' checks.
  std::size_t late = 0;
  for (auto& [key, times] : completions)
    late += static_cast<std::size_t>(std::count_if(times.begin(), times.end(),
                                                   [&](std::int64_t t) { return t >= birth; }));
  CHECK(replicas[3].completed * 10 >= late);
  // Lag stays within a poll and a few claims, except the takeovers (a lease and a poll).
  CHECK(lags.quantile_bound_ms(0.99) <= 1000);
  CHECK(lags.max_ms() <= lease + 1000 + 100);
}
