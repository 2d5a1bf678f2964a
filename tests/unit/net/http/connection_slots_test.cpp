// The connection accounting: who counts as one source, the admission rules, and which
// connection gives up its slot when every slot is taken. No sockets: the eviction callbacks
// record what they were asked to close.
#include <catch2/catch.hpp>

#include <vector>

#include "net/http/connection_slots.hpp"
#include "net/http/server_context.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using boost::asio::ip::make_address;

namespace {

connection_source src(const char* text) {
  return source_of(make_address(text));
}

slot_limits small_limits() {
  slot_limits limits;
  limits.max_total = 10;
  limits.max_per_source = 6;
  limits.reserve = 2; // high water at 8
  limits.fair_share = 2;
  return limits;
}

/// Admits a connection and attaches an eviction callback that records its ticket.
connection_slots::ticket open_idle(connection_slots& slots, const connection_source& source,
                                   std::vector<connection_slots::ticket>& evicted,
                                   bool exempt = false) {
  auto admission = slots.admit(source, exempt);
  REQUIRE((admission.verdict == admission_verdict::admitted
           || admission.verdict == admission_verdict::admitted_by_eviction));
  if (admission.evict)
    admission.evict();
  auto id = admission.id;
  slots.attach(id, [&evicted, id] { evicted.push_back(id); });
  slots.set_idle(id, true);
  return id;
}

} // namespace

TEST_CASE("connection slots: IPv4 counts per address, IPv6 per /64", "[slots]") {
  CHECK(src("192.0.2.1") != src("192.0.2.2"));
  CHECK(src("2001:db8:1:2::1") == src("2001:db8:1:2:ffff:ffff:ffff:ffff"));
  CHECK(src("2001:db8:1:2::1") != src("2001:db8:1:3::1"));
  // An IPv4-mapped peer is the IPv4 client, and its last 8 bytes are not masked away.
  CHECK(src("::ffff:192.0.2.1") == src("192.0.2.1"));
  CHECK(src("::ffff:192.0.2.1") != src("::ffff:192.0.2.2"));
}

TEST_CASE("connection slots: the reserve is a rounded-up share that never takes every slot",
          "[slots]") {
  CHECK(reserve_for(10000, 10) == 1000);
  CHECK(reserve_for(5, 10) == 1);
  CHECK(reserve_for(200, 0) == 0);
  CHECK(reserve_for(1, 50) == 0);
  CHECK(reserve_for(10, 200) == 9);
}

TEST_CASE("connection slots: the rules by total and holding", "[slots]") {
  auto limits = small_limits();
  // Below the high-water mark only the per-source cap applies.
  CHECK(judge_admission(limits, 0, 0, false) == admission_rule::admit);
  CHECK(judge_admission(limits, 7, 5, false) == admission_rule::admit);
  CHECK(judge_admission(limits, 7, 6, false) == admission_rule::refuse_source_full);
  // Past it, a source holding its fair share is refused while one holding less is admitted.
  CHECK(judge_admission(limits, 8, 2, false) == admission_rule::refuse_over_fair_share);
  CHECK(judge_admission(limits, 8, 1, false) == admission_rule::admit);
  // At the cap, a source within its share may take an idle connection's slot.
  CHECK(judge_admission(limits, 10, 1, false) == admission_rule::admit_by_eviction);
  CHECK(judge_admission(limits, 10, 2, false) == admission_rule::refuse_over_fair_share);
  // A trusted proxy is bound by the cap only.
  CHECK(judge_admission(limits, 9, 100, true) == admission_rule::admit);
  CHECK(judge_admission(limits, 10, 100, true) == admission_rule::admit_by_eviction);
}

TEST_CASE("connection slots: a flooding source is refused while a new one is admitted",
          "[slots]") {
  connection_slots slots{small_limits()};
  std::vector<connection_slots::ticket> evicted;
  auto flood = src("198.51.100.1");
  for (int i = 0; i < 6; ++i)
    open_idle(slots, flood, evicted);
  CHECK(slots.admit(flood, false).verdict == admission_verdict::refused_source_full);
  auto second = src("198.51.100.2");
  open_idle(slots, second, evicted);
  open_idle(slots, second, evicted); // total 8: the high-water mark
  CHECK(slots.admit(second, false).verdict == admission_verdict::refused_over_fair_share);
  // Two newcomers share the reserve, each up to its fair share.
  auto third = src("2001:db8::1");
  open_idle(slots, third, evicted);
  CHECK(slots.held_by(src("2001:db8::ffff")) == 1);
  CHECK(slots.stats().open == 9);
  CHECK(evicted.empty());
  auto stats = slots.stats();
  CHECK(stats.refused_source_full == 1);
  CHECK(stats.refused_over_fair_share == 1);
}

TEST_CASE("connection slots: at the cap the longest idle connection makes room", "[slots]") {
  connection_slots slots{small_limits()};
  std::vector<connection_slots::ticket> evicted;
  std::vector<connection_slots::ticket> flood;
  for (int i = 0; i < 6; ++i)
    flood.push_back(open_idle(slots, src("198.51.100.1"), evicted));
  for (auto* other : {"198.51.100.2", "198.51.100.2", "198.51.100.3", "198.51.100.4"})
    open_idle(slots, src(other), evicted);
  REQUIRE(slots.stats().open == 10);
  // The first flood connection turns busy (a request arrived), then idle again: it is now the
  // most recently idle, so the second one is the oldest.
  slots.set_idle(flood[0], false);
  slots.set_idle(flood[0], true);
  auto admission = slots.admit(src("203.0.113.5"), false);
  REQUIRE(admission.verdict == admission_verdict::admitted_by_eviction);
  REQUIRE(admission.evict);
  admission.evict();
  CHECK(evicted == std::vector<connection_slots::ticket>{flood[1]});
  // The slot passed at once: still ten open, the flood source down to five.
  CHECK(slots.stats().open == 10);
  CHECK(slots.held_by(src("198.51.100.1")) == 5);
  // The evicted connection ending later frees nothing more.
  slots.release(flood[1]);
  CHECK(slots.stats().open == 10);
  CHECK(slots.stats().evicted == 1);
}

TEST_CASE("connection slots: busy and unattached connections are never evicted", "[slots]") {
  slot_limits limits;
  limits.max_total = 3;
  limits.max_per_source = 3;
  limits.reserve = 0;
  limits.fair_share = 3;
  connection_slots slots{limits};
  std::vector<connection_slots::ticket> evicted;
  auto a = open_idle(slots, src("192.0.2.1"), evicted);
  auto b = open_idle(slots, src("192.0.2.2"), evicted);
  // Admitted but its session has not attached yet: not a candidate.
  auto c = slots.admit(src("192.0.2.3"), false);
  REQUIRE(c.verdict == admission_verdict::admitted);
  slots.set_idle(a, false);
  slots.set_idle(b, false);
  auto refused = slots.admit(src("192.0.2.4"), false);
  CHECK(refused.verdict == admission_verdict::refused_full);
  CHECK(refused.id == 0);
  CHECK(slots.stats().refused_full == 1);
  // Once one is idle again, it makes room.
  slots.set_idle(b, true);
  auto admitted = slots.admit(src("192.0.2.4"), false);
  CHECK(admitted.verdict == admission_verdict::admitted_by_eviction);
  admitted.evict();
  CHECK(evicted == std::vector<connection_slots::ticket>{b});
  // Releasing frees slots for good.
  slots.release(a);
  slots.release(c.id);
  CHECK(slots.stats().open == 1);
  CHECK(slots.admit(src("192.0.2.1"), false).verdict == admission_verdict::admitted);
}

TEST_CASE("connection slots: a trusted proxy is exempt from the per-source rules", "[slots]") {
  connection_slots slots{small_limits()};
  std::vector<connection_slots::ticket> evicted;
  auto proxy = src("10.0.0.1");
  for (int i = 0; i < 10; ++i)
    open_idle(slots, proxy, evicted, true);
  CHECK(slots.stats().open == 10);
  CHECK(slots.held_by(proxy) == 0);
  // At the cap it too takes an idle slot, and is refused when none is idle.
  auto next = slots.admit(proxy, true);
  CHECK(next.verdict == admission_verdict::admitted_by_eviction);
  slots.set_idle(next.id, false);
}

TEST_CASE("connection slots: the server context applies its settings and trusted proxies",
          "[slots]") {
  server_settings settings;
  settings.max_connections = 4;
  settings.max_connections_per_ip = 2;
  settings.connection_reserve_percent = 25;
  settings.busy_connections_per_ip = 1;
  settings.trusted_proxies = {*parse_cidr("10.0.0.0/8")};
  auto limits = slot_limits_of(settings);
  CHECK(limits.max_total == 4);
  CHECK(limits.reserve == 1);
  CHECK(limits.fair_share == 1);
  server_context ctx{settings, "{}"};
  CHECK(ctx.admit(make_address("192.0.2.1")).verdict == admission_verdict::admitted);
  CHECK(ctx.admit(make_address("::ffff:192.0.2.1")).verdict == admission_verdict::admitted);
  CHECK(ctx.admit(make_address("192.0.2.1")).verdict == admission_verdict::refused_source_full);
  // A proxy seen through a dual-stack listener is still the proxy.
  CHECK(ctx.admit(make_address("::ffff:10.1.2.3")).verdict == admission_verdict::admitted);
  // Total 3 is the high-water mark: a newcomer holding none is still admitted.
  CHECK(ctx.admit(make_address("2001:db8::1")).verdict == admission_verdict::admitted);
  CHECK(ctx.admit(make_address("2001:db8::2")).verdict
        == admission_verdict::refused_over_fair_share);
}

TEST_CASE("pending calls: shutdown answers each call once, and answered ones are forgotten",
          "[slots]") {
  pending_calls pending;
  int first = 0;
  int second = 0;
  auto a = pending.add([&] { ++first; });
  pending.add([&] { ++second; });
  pending.remove(a);
  CHECK(pending.abandon_all() == 1);
  CHECK(first == 0);
  CHECK(second == 1);
  CHECK(pending.abandon_all() == 0);
  CHECK(second == 1);
}
