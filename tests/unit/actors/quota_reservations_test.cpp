// The quota actor's reservations as bookkeeping: no actor, no store. Each durable batch is
// written by the test as the store would have answered it.
#include <catch2/catch.hpp>

#include <chrono>

#include "actors/quota_reservations.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

// 2026-11-22T12:00:00Z and the first second of December 2026.

/// A durable batch of one counted call by 192.0.2.45 that also counted `reserved` ahead, the
/// counter at `used` after it.
charged_batch durable(std::uint64_t used, std::uint64_t reserved, std::uint64_t limit = 6400) {
  charged_batch batch;
  quota_verdict verdict;
  verdict.limit = limit;
  verdict.reset = dec_1;
  verdict.remaining = limit - (used - reserved);
  batch.verdicts.push_back(verdict);
  storage::counter_op op;
  op.endpoint = "offer";
  op.scope = "ip";
  op.subject = "192.0.2.45";
  op.window = "2026-11";
  op.limit = limit;
  op.amount = 1 + reserved;
  batch.counters.push_back(op);
  batch.results.push_back({used, false, 1 + reserved});
  batch.reserved.push_back(reserved);
  return batch;
}

const auto call = quota_charge::count_call(endpoint::offer, "192.0.2.45", {});

/// Reservations of at most max calls that last a second, and the caller's reservation.
struct book_fixture {
  quota_reservations book;
  std::string id;
  std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();

  explicit book_fixture(std::uint64_t max = 64) : book(max, 1000ms), id(book.id_of(call)) {
    // nop
  }

  /// Settles a durable batch of one counted call (durable's arguments) and returns the
  /// verdict its caller gets.
  quota_verdict settle(std::uint64_t used, std::uint64_t reserved, std::uint64_t limit = 6400) {
    auto batch = durable(used, reserved, limit);
    auto verdict = batch.verdicts[0];
    book.settle(id, call, 0, true, verdict, batch, 0, now, nov_22);
    return verdict;
  }

  /// The caller's reservation, which must exist.
  reservation& held() {
    auto* r = book.find(id);
    REQUIRE(r != nullptr);
    return *r;
  }
};

} // namespace

TEST_CASE("quota reservations: one per endpoint and caller, none for sign-ins or when off",
          "[quota][reserve]") {
  quota_reservations off{0, 1000ms};
  CHECK(off.id_of(call).empty());
  quota_reservations book{64, 1000ms};
  CHECK(book.id_of(call) == "offer|ip|192.0.2.45");
  CHECK(book.id_of(quota_charge::count_call(endpoint::info, "192.0.2.45", "h")) == "info|key|h");
  CHECK(book.id_of(quota_charge::count_call(endpoint::signin, "192.0.2.45", {})).empty());
  // A refund goes where its charge counted: the address, when the key was refused.
  quota_verdict on_ip;
  CHECK(book.id_of(quota_charge::refund_call(endpoint::offer, "192.0.2.45", "h", on_ip))
        == "offer|ip|192.0.2.45");
}

TEST_CASE("quota reservations: calls counted ahead answer the next calls, and the refill is "
          "asked at half",
          "[quota][reserve]") {
  book_fixture f;
  auto& book = f.book;
  auto now = f.now;
  // The batch counted 10 before, this call and 4 ahead.
  CHECK(f.settle(15, 4).remaining == 6400 - 11);
  auto* r = &f.held();
  CHECK(r->unused == 4);
  REQUIRE(quota_reservations::usable(*r, now, nov_22));
  CHECK_FALSE(quota_reservations::usable(*r, now + 1000ms, nov_22));
  CHECK_FALSE(quota_reservations::usable(*r, now, dec_1));

  // The first reservation of a busy caller is 4 (the actor asks it with the caller's next
  // charge); the one answered here is taken as on its way and durable.
  CHECK(book.next_size(*r) == 4);
  r->in_flight = 0;
  auto first = book.answer_call(*r);
  REQUIRE(first);
  CHECK(first->verdict.remaining == 6400 - 12);
  CHECK(first->refill == 0);
  auto second = book.answer_call(*r);
  REQUIRE(second);
  CHECK(second->verdict.remaining == 6400 - 13);
  // Half used: the next reservation, twice the last, is asked and in flight.
  CHECK(second->refill == 8);
  CHECK(r->in_flight == 8);
  CHECK(book.next_size(*r) == 0);
  book.answer_call(*r);
  book.answer_call(*r);
  CHECK_FALSE(book.answer_call(*r));
}

TEST_CASE("quota reservations: never more ahead than the limit's share", "[quota][reserve]") {
  book_fixture f{1024};
  f.settle(1, 0, 640);
  auto& r = f.held();
  std::uint64_t size = 0;
  for (int i = 0; i < 5; ++i) {
    size = f.book.next_size(r);
    r.in_flight = 0;
  }
  CHECK(size == 640 / reserve_share);
}

TEST_CASE("quota reservations: what nobody used goes back to the store after the ttl",
          "[quota][reserve]") {
  book_fixture f;
  auto& book = f.book;
  auto now = f.now;
  f.settle(15, 4);
  book.sweep(now + 500ms, nov_22);
  CHECK_FALSE(book.has_give_backs());
  CHECK_FALSE(book.empty());
  book.sweep(now + 1000ms, nov_22);
  CHECK(book.empty());
  auto back = book.take_give_backs();
  REQUIRE(back.size() == 1);
  CHECK(back[0].mode == charge_mode::refund);
  CHECK(back[0].amount == 4);
  CHECK(back[0].subject == "192.0.2.45");
  CHECK_FALSE(book.has_give_backs());
}

TEST_CASE("quota reservations: a refund of a counted call is kept for the next call",
          "[quota][reserve]") {
  book_fixture f;
  auto& book = f.book;
  auto verdict = f.settle(15, 4);
  auto* r = &f.held();
  auto refund = quota_charge::refund_call(endpoint::offer, "192.0.2.45", {}, verdict);
  auto kept = book.take_refund(*r, refund);
  REQUIRE(kept);
  CHECK(kept->remaining == 6400 - 10);
  CHECK(r->unused == 5);
  // A refund for another month's counter goes to the store.
  quota_verdict october = verdict;
  october.reset = dec_1 - 30 * 86400;
  CHECK_FALSE(book.take_refund(
    *r, quota_charge::refund_call(endpoint::offer, "192.0.2.45", {}, october)));
}

TEST_CASE("quota reservations: an edge's call hands it half of what is left as a lease, and "
          "the lease's rest comes back",
          "[quota][reserve][lease]") {
  book_fixture f;
  auto& book = f.book;
  auto now = f.now;
  // The batch counted 10 before, this call and 20 ahead.
  f.settle(31, 20);
  auto& r = f.held();
  auto edge = std::make_shared<const edge_link>();

  // A call without an edge gets no lease.
  auto plain = book.answer_call(r, f.id, nullptr);
  REQUIRE(plain);
  CHECK_FALSE(plain->lease);
  CHECK(r.unused == 19);

  auto leased = book.answer_call(r, f.id, edge);
  REQUIRE(leased);
  CHECK(leased->verdict.remaining == 6400 - 13);
  REQUIRE(leased->lease);
  auto& lease = *leased->lease;
  CHECK(lease.id == f.id);
  CHECK(lease.calls == 9);
  CHECK(lease.made == 13);
  CHECK(lease.verdict.reset == dec_1);
  CHECK(lease.counter.subject == "192.0.2.45");
  CHECK(lease.expires == r.expires);
  CHECK(r.unused == 9);
  // Until the edge gives back what it did not use, the lease's calls count as made.
  auto next = book.answer_call(r, f.id, nullptr);
  REQUIRE(next);
  CHECK(next->verdict.remaining == 6400 - 23);
  CHECK(r.unused == 8);

  // Fewer than lease_least left after the call: no lease.
  r.unused = quota_reservations::lease_least;
  auto small = book.answer_call(r, f.id, edge);
  REQUIRE(small);
  CHECK_FALSE(small->lease);

  // The edge used 4 of its 9: the 5 left go back into the live reservation.
  auto unused_before = r.unused;
  book.take_back({f.id, 5, dec_1, lease.counter}, now + 10ms, nov_22);
  CHECK(r.unused == unused_before + 5);
  CHECK_FALSE(book.has_give_backs());

  // A rest of another month's lease is dropped, as that month's reservation would be.
  book.take_back({f.id, 3, nov_22, lease.counter}, now, dec_1);
  CHECK(r.unused == unused_before + 5);
  CHECK_FALSE(book.has_give_backs());

  // Once the reservation is swept, its holders are asked for their rest, once each.
  CHECK(book.take_recalls().empty());
  book.sweep(now + 1000ms, nov_22);
  CHECK(book.empty());
  auto recalls = book.take_recalls();
  REQUIRE(recalls.size() == 1);
  CHECK(recalls[0].edge == edge);
  CHECK(recalls[0].id == f.id);
  auto swept = book.take_give_backs();
  REQUIRE(swept.size() == 1);
  CHECK(swept[0].amount == unused_before + 5);

  // A rest that comes back after its reservation is gone goes to the store as it is.
  book.take_back({f.id, 7, dec_1, lease.counter}, now + 1100ms, nov_22);
  auto late = book.take_give_backs();
  REQUIRE(late.size() == 1);
  CHECK(late[0].mode == charge_mode::refund);
  CHECK(late[0].amount == 7);
  CHECK(late[0].subject == "192.0.2.45");
  CHECK(late[0].window == "2026-11");
}
