#include "actors/quota_reservations.hpp"

#include <algorithm>

#include "core/telemetry.hpp"

namespace netherscope::actors {


namespace {

// The calls a caller made as this replica knows them: what the store counted for it, less
// what is counted ahead and unused (never below zero, should the counter have been reset).
std::uint64_t made_calls(const reservation& r) {
  return r.counted > r.unused ? r.counted - r.unused : 0;
}

// A verdict answered from a reservation: the last one the store gave, with the calls made.
core::quota_verdict reserved_verdict(const reservation& r) {
  auto verdict = r.verdict;
  auto used = made_calls(r);
  verdict.remaining = used >= verdict.limit ? 0 : verdict.limit - used;
  return verdict;
}

// Uses one unused call of r for a reply.
core::quota_verdict use_one(reservation& r) {
  --r.unused;
  core::process_telemetry().count_reserved_call();
  return reserved_verdict(r);
}

} // namespace

std::string reservation_id(const core::quota_charge& charge) {
  // A refund goes to the counter its call was charged to, which is the address's when the
  // key was refused.
  auto by_key = charge.refunds() ? charge.charged_scope == core::quota_scope::key
                                 : !charge.key_hash.empty();
  auto name = endpoint_name(charge.what);
  std::string id;
  id.reserve(name.size() + 5 + (by_key ? charge.key_hash.size() : charge.client.size()));
  id.append(name).append(by_key ? "|key|" : "|ip|");
  id.append(by_key ? charge.key_hash : charge.client);
  return id;
}

std::string quota_reservations::id_of(const core::quota_charge& charge) const {
  if (reserve_max_ == 0 || charge.what == core::endpoint::signin)
    return {};
  return reservation_id(charge);
}

reservation* quota_reservations::find(const std::string& id) {
  auto it = reservations_.find(id);
  return it == reservations_.end() ? nullptr : &it->second;
}

bool quota_reservations::usable(const reservation& r, clock_type::time_point now,
                                std::int64_t now_unix) {
  return now < r.expires && now_unix < r.verdict.reset;
}

std::optional<quota_reservations::answered_call>
quota_reservations::answer_call(reservation& r, const std::string& id, const edge_link_ptr& edge) {
  if (r.unused == 0)
    return std::nullopt;
  answered_call out{use_one(r), 0, std::nullopt};
  if (edge && r.unused >= lease_least) {
    // Half goes to the edge, half stays for the caller's calls on other io threads. The
    // lease's calls count as made here until the edge gives back what it did not use.
    edge_grant lease{id, r.unused / 2, made_calls(r), r.verdict, r.counter, r.expires};
    r.unused -= lease.calls;
    if (std::find(r.holders.begin(), r.holders.end(), edge) == r.holders.end())
      r.holders.push_back(edge);
    out.lease = std::move(lease);
  }
  if (r.unused <= r.last_size / 2)
    out.refill = next_size(r);
  return out;
}

void quota_reservations::take_back(const edge_return& rest, clock_type::time_point now,
                                   std::int64_t now_unix) {
  // Calls counted in a month that is over stay with it, as a reservation's do.
  if (rest.calls == 0 || now_unix >= rest.reset)
    return;
  if (auto* r = find(rest.id); r != nullptr && r->verdict.reset == rest.reset) {
    r->unused += rest.calls;
    if (!usable(*r, now, now_unix))
      give_back(*r);
    return;
  }
  auto op = rest.counter;
  op.mode = core::charge_mode::refund;
  op.amount = rest.calls;
  give_backs_.push_back(std::move(op));
}

void quota_reservations::recall_leases(const std::string& id, reservation& r) {
  for (auto& edge : r.holders)
    recalls_.push_back({std::move(edge), id});
  r.holders.clear();
}

std::vector<quota_reservations::recall> quota_reservations::take_recalls() {
  auto out = std::move(recalls_);
  recalls_.clear();
  return out;
}

std::optional<core::quota_verdict> quota_reservations::take_refund(reservation& r,
                                                             const core::quota_charge& refund) {
  if (r.verdict.reset != refund.charged_reset || r.verdict.scope != refund.charged_scope
      || (refund.charged_scope == core::quota_scope::key && r.verdict.user_id != refund.charged_user_id)
      || made_calls(r) == 0 || r.unused + r.in_flight >= most_ahead(r))
    return std::nullopt;
  ++r.unused;
  return reserved_verdict(r);
}

std::uint64_t quota_reservations::most_ahead(const reservation& r) const {
  auto most = reserve_max_;
  if (r.verdict.limit > 0)
    most = std::min(most, r.verdict.limit / reserve_share);
  return most;
}

std::uint64_t quota_reservations::next_size(reservation& r) {
  if (r.in_flight > 0)
    return 0;
  auto most = most_ahead(r);
  auto target = std::min(most, std::max<std::uint64_t>(4, 2 * r.last_size));
  r.last_size = target;
  auto size = most > r.unused ? std::min(target, most - r.unused) : 0;
  r.in_flight = size;
  return size;
}

void quota_reservations::give_back(reservation& r) {
  if (r.unused == 0)
    return;
  auto op = r.counter;
  op.mode = core::charge_mode::refund;
  op.amount = r.unused;
  give_backs_.push_back(std::move(op));
  r.counted -= std::min(r.counted, r.unused);
  r.unused = 0;
}

void quota_reservations::credit(const std::string& id, const core::quota_charge& charge,
                                std::uint64_t asked, const core::quota_verdict& verdict,
                                const charged_batch& charged, std::size_t i,
                                clock_type::time_point now) {
  auto it = reservations_.find(id);
  if (it != reservations_.end())
    it->second.in_flight -= std::min(it->second.in_flight, asked);
  if (verdict.error.code != core::error_code::none || charged.failed) {
    // Refused or not counted: nothing was reserved. A key that no longer works loses what it
    // had reserved, so a revoked key stops at once.
    if (it != reservations_.end() && verdict.error.code == core::error_code::unauthorized) {
      give_back(it->second);
      recall_leases(id, it->second);
      reservations_.erase(it);
    }
    return;
  }
  if (it == reservations_.end())
    it = reservations_.emplace(id, reservation{}).first;
  auto& r = it->second;
  // What goes back now leaves the counter with the next batch; the count this batch read
  // still holds it.
  std::uint64_t returned = 0;
  if (r.verdict.reset != verdict.reset) {
    r.unused = 0; // Counted ahead in a month that is over: nothing to give back.
  } else if (now >= r.expires) {
    returned = r.unused;
    give_back(r);
  }
  r.unused += charged.reserved[i];
  r.counted = charged.results[i].used - std::min(charged.results[i].used, returned);
  r.verdict = verdict;
  r.counter = charged.counters[i];
  r.charge = charge;
  r.expires = now + ttl_;
}

void quota_reservations::settle(const std::string& id, const core::quota_charge& charge,
                                std::uint64_t asked, bool with_caller, core::quota_verdict& verdict,
                                const charged_batch& charged, std::size_t i,
                                clock_type::time_point now, std::int64_t now_unix) {
  if (charge.counts())
    credit(id, charge, asked, verdict, charged, i, now);
  auto* r = find(id);
  if (r == nullptr)
    return;
  // A caller with calls counted ahead has used only what it was answered: the unused part of
  // its reservation still counts as remaining.
  if (verdict.error.code == core::error_code::none && r->verdict.reset == verdict.reset) {
    // A refund the store took (the reservation had no room for it) lowered the counter this
    // reservation counts on.
    if (charge.refunds() && !charged.failed && r->verdict.scope == verdict.scope)
      r->counted = charged.results[i].used;
    if (charge.counts()) {
      auto used = made_calls(*r);
      verdict.remaining = used >= verdict.limit ? 0 : verdict.limit - used;
    } else {
      verdict.remaining = std::min(verdict.limit, verdict.remaining + r->unused);
    }
  }
  // The counter is full, but partly with this caller's own calls counted ahead (a refill
  // ahead of it in the batch took the last ones): the call is one of those.
  if (with_caller && verdict.error.code == core::error_code::quota_exhausted && r->unused > 0
      && usable(*r, now, now_unix))
    verdict = use_one(*r);
}

void quota_reservations::sweep(clock_type::time_point now, std::int64_t now_unix) {
  for (auto it = reservations_.begin(); it != reservations_.end();) {
    auto& r = it->second;
    if (now < r.expires || r.in_flight > 0) {
      ++it;
      continue;
    }
    if (now_unix < r.verdict.reset)
      give_back(r);
    recall_leases(it->first, r);
    it = reservations_.erase(it);
  }
}

void quota_reservations::give_back_all(std::int64_t now_unix) {
  for (auto& [id, r] : reservations_)
    if (now_unix < r.verdict.reset)
      give_back(r);
}

std::vector<storage::counter_op> quota_reservations::take_give_backs() {
  auto out = std::move(give_backs_);
  give_backs_.clear();
  return out;
}

} // namespace netherscope::actors
