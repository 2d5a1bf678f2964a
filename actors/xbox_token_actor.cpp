#include "actors/xbox_token_actor.hpp"

#include <utility>

#include <boost/json/object.hpp>
#include <caf/all.hpp>

#include "base/crypto.hpp"
#include "core/telemetry.hpp"
#include "base/log.hpp"
#include "storage/xbox_records.hpp"

namespace netherscope::actors {

namespace {

namespace log = base::log;

using token_pointer = xbox_token_actor::stateful_pointer<xbox_token_state>;

std::int64_t now_of(const xbox_token_state& st) {
  if (st.settings.now_ms)
    return st.settings.now_ms();
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// A broken link fails every renewal the same way; one line per ten minutes says so.
log::sampler& problem_lines() {
  static log::sampler lines{std::chrono::minutes(10)};
  return lines;
}

void set_problem(xbox_token_state& st, std::string problem) {
  log::write_sampled(problem_lines(), log::level::warn, "xbox_link_problem",
                     boost::json::object{{"problem", problem}});
  st.problem = std::move(problem);
}

// Reads the link again once what was read is older than link_recheck. A link of the same
// device (a refresh token another writer rotated) keeps the tokens held; another link (a new
// xbox-login) replaces them; no link unlinks.
void read_link(xbox_token_state& st, std::int64_t now) {
  // Without a link every offer looks, so an xbox-login counts from the next offer on.
  if (st.chain && st.read_at_ms != 0 && now - st.read_at_ms < st.settings.link_recheck.count())
    return;
  st.read_at_ms = now;
  auto read = storage::read_xbox_link(*st.settings.store);
  // A store that does not answer leaves what is held in force until the next read.
  if (!read)
    return;
  auto& found = *read;
  if (!found) {
    st.sealed.clear();
    st.chain.reset();
    st.problem.clear();
    return;
  }
  if (*found == st.sealed)
    return;
  st.sealed = *found;
  auto why = base::open_error::none;
  auto opened = base::open_sealed(*st.settings.key, xbox::link_seal_label, *found, &why);
  auto link = opened ? xbox::decode_link(*opened) : std::nullopt;
  if (!link) {
    st.chain.reset();
    set_problem(st, opened ? "the stored Xbox link is unreadable; run admin xbox-logout, then "
                             "xbox-login"
                           : std::string{base::describe(why)});
    return;
  }
  if (st.chain && st.chain->account.device_id == link->device_id) {
    st.chain->account = std::move(*link);
    return;
  }
  st.chain.emplace();
  st.chain->account = std::move(*link);
  st.problem.clear();
  st.retry_at_ms = 0;
}

// Seals and stores a rotated link, unless another writer changed the record since it was
// read (an xbox-logout must not be undone by a renewal that was under way).
void store_link(xbox_token_state& st) {
  auto sealed = base::seal(*st.settings.key, xbox::link_seal_label,
                                xbox::encode_link(st.chain->account));
  if (!sealed) {
    set_problem(st, "could not seal the rotated Xbox link (OpenSSL)");
    return;
  }
  bool changed_meanwhile = false;
  auto err = st.settings.store->with_records(true, [&](storage::record_txn& t)
                                                     -> caf::expected<bool> {
    auto current = storage::load_xbox_link(t);
    if (!current)
      return current.error();
    changed_meanwhile = !*current || **current != st.sealed;
    if (changed_meanwhile)
      return false;
    if (auto err = storage::save_xbox_link(t, *sealed))
      return err;
    return true;
  });
  if (err) {
    log::write(log::level::warn, "xbox_link_not_stored",
               boost::json::object{{"error", caf::to_string(err)}});
    return;
  }
  if (changed_meanwhile) {
    // Read the record again on the next call.
    st.read_at_ms = 0;
    return;
  }
  st.sealed = std::move(*sealed);
}

void start_renewal(token_pointer self) {
  auto& st = self->state;
  st.renewing = true;
  auto handle = caf::actor_cast<xbox_token_actor>(self);
  st.settings.chain->renew(*st.chain, st.settings.identity_spki_der,
                           [handle](upstream::xbox_renewal&& r) {
                             caf::anon_send(handle, renewed_atom::value,
                                            std::make_shared<upstream::xbox_renewal>(
                                              std::move(r)));
                           });
}

constexpr std::string_view shared_tokens_name = "xbox-tokens";
constexpr std::string_view renewal_lease_name = "xbox-renewal";

// The shared tokens are sealed for one link: a record another link's renewal left (before an
// xbox-logout and a new xbox-login) does not open.
std::string shared_label(const xbox::chain_state& chain) {
  return std::string{xbox::shared_tokens_seal_label} + ":" + chain.account.device_id;
}

// Takes the tokens another replica shared when they are good for our key now.
bool adopt_shared(xbox_token_state& st, std::int64_t now) {
  auto found = st.settings.shared->get_value(shared_tokens_name);
  if (!found || !*found)
    return false;
  auto opened = base::open_sealed(*st.settings.key, shared_label(*st.chain), **found);
  auto candidate = *st.chain;
  if (!opened || !xbox::adopt_shared_tokens(candidate, *opened)
      || !identity_from(candidate, st.settings.identity_spki_der, now, {}).signed_in())
    return false;
  st.chain->game_server = std::move(candidate.game_server);
  st.chain->environment = std::move(candidate.environment);
  st.problem.clear();
  st.retry_at_ms = 0;
  return true;
}

// Shares a renewed GameServerToken until it is due for renewal.
void share_tokens(xbox_token_state& st, std::int64_t now) {
  auto record = xbox::encode_shared_tokens(*st.chain);
  if (!record || !st.chain->game_server)
    return;
  auto ttl = xbox::renew_at_ms(st.chain->game_server->times) - now;
  auto sealed = base::seal(*st.settings.key, shared_label(*st.chain), *record);
  if (ttl <= 0 || !sealed)
    return;
  if (auto err = st.settings.shared->put_value(shared_tokens_name, *sealed,
                                               std::chrono::milliseconds{ttl}))
    log::write(log::level::warn, "xbox_tokens_not_shared",
               boost::json::object{{"error", caf::to_string(err)}});
}

// Tells /metrics what offers get now.
void publish_state(const xbox_token_state& st) {
  using core::xbox_link_state;
  auto state = !st.problem.empty() ? xbox_link_state::failing
               : st.chain          ? xbox_link_state::signed_in
                                   : xbox_link_state::unlinked;
  core::process_telemetry().set_xbox_link(state);
}

void answer_waiters(xbox_token_state& st, std::int64_t now) {
  publish_state(st);
  offer_identity answer;
  if (st.chain)
    answer = identity_from(*st.chain, st.settings.identity_spki_der, now, st.problem);
  else
    answer.link_problem = st.problem;
  for (auto& waiter : st.waiters)
    waiter.deliver(answer);
  st.waiters.clear();
}

// Gets the waiting offers a token: this replica's own renewal, or on a shared store the one
// replica's that holds the lease.
void renew_or_wait(token_pointer self, std::int64_t now) {
  auto& st = self->state;
  if (!st.settings.shared) {
    start_renewal(self);
    return;
  }
  if (adopt_shared(st, now)) {
    st.wait_until_ms = 0;
    answer_waiters(st, now);
    return;
  }
  auto took = st.settings.shared->take_lease(renewal_lease_name, st.owner, st.settings.lease_ttl);
  // A shared store that does not answer must not stop offers: renew alone.
  if (!took || *took) {
    st.wait_until_ms = 0;
    st.leased = static_cast<bool>(took);
    if (st.leased) {
      // Another replica may have rotated the refresh token since this one read the link.
      st.read_at_ms = 0;
      read_link(st, now);
    }
    if (!st.chain) {
      if (st.leased)
        st.settings.shared->release_lease(renewal_lease_name, st.owner);
      st.leased = false;
      answer_waiters(st, now);
      return;
    }
    start_renewal(self);
    return;
  }
  if (st.wait_until_ms == 0)
    st.wait_until_ms = now + st.settings.shared_wait.count();
  if (now >= st.wait_until_ms) {
    st.wait_until_ms = 0;
    offer_identity late;
    late.link_problem = "another replica's renewal of the Xbox tokens did not finish in time";
    for (auto& waiter : st.waiters)
      waiter.deliver(late);
    st.waiters.clear();
    return;
  }
  self->delayed_send(self, st.settings.shared_poll, recheck_atom::value);
}

} // namespace

offer_identity identity_from(const xbox::chain_state& state, std::string_view spki_der,
                             std::int64_t now_ms, const std::string& problem) {
  offer_identity id;
  if (state.game_server && state.environment
      && xbox::plan_renewal(state, spki_der, now_ms).empty()) {
    id.game_server_token = state.game_server->token;
    id.idp_domain = state.environment->idp_domain();
    id.gamertag = state.game_server->claims.xname;
    return id;
  }
  id.link_problem = problem;
  return id;
}

xbox_token_actor::behavior_type
xbox_token(xbox_token_actor::stateful_pointer<xbox_token_state> self,
           xbox_token_settings settings) {
  self->state.settings = std::move(settings);
  auto owner = base::random_bytes(16);
  self->state.owner = base::base64url_encode(owner ? *owner : std::string{});
  if (self->state.settings.key && self->state.settings.chain && self->state.settings.store) {
    read_link(self->state, now_of(self->state));
    publish_state(self->state);
  }
  return {
    [=](token_atom) -> caf::typed_response_promise<offer_identity> {
      auto& st = self->state;
      auto promise = self->make_response_promise<offer_identity>();
      if (!st.settings.key || !st.settings.chain || !st.settings.store) {
        promise.deliver(offer_identity{});
        return promise;
      }
      auto now = now_of(st);
      read_link(st, now);
      publish_state(st);
      if (!st.chain) {
        offer_identity self_signed;
        self_signed.link_problem = st.problem;
        promise.deliver(std::move(self_signed));
        return promise;
      }
      auto held = identity_from(*st.chain, st.settings.identity_spki_der, now, st.problem);
      bool busy = st.renewing || st.wait_until_ms != 0;
      // After a failure of its own, a replica still takes what another one renewed.
      if (!held.signed_in() && !busy && now < st.retry_at_ms && st.settings.shared
          && adopt_shared(st, now))
        held = identity_from(*st.chain, st.settings.identity_spki_der, now, st.problem);
      if (held.signed_in() || (!busy && now < st.retry_at_ms)) {
        promise.deliver(std::move(held));
        return promise;
      }
      st.waiters.push_back(promise);
      if (!busy)
        renew_or_wait(self, now);
      return promise;
    },
    [=](renewed_atom, std::shared_ptr<upstream::xbox_renewal> r) {
      auto& st = self->state;
      st.renewing = false;
      auto now = now_of(st);
      // A renewal of a link that was replaced or removed meanwhile is dropped.
      if (r)
        core::process_telemetry().count_xbox_renewal(r->error.has_value());
      if (r && st.chain && st.chain->account.device_id == r->state.account.device_id) {
        st.chain = std::move(r->state);
        if (r->link_rotated)
          store_link(st);
        if (r->error) {
          set_problem(st, r->error->message);
          st.retry_at_ms = now + st.settings.retry_after.count();
        } else {
          st.problem.clear();
          if (st.settings.shared)
            share_tokens(st, now);
        }
      }
      if (st.leased)
        st.settings.shared->release_lease(renewal_lease_name, st.owner);
      st.leased = false;
      answer_waiters(st, now);
    },
    [=](recheck_atom) {
      auto& st = self->state;
      if (st.wait_until_ms == 0 || st.renewing)
        return;
      auto now = now_of(st);
      read_link(st, now);
      if (!st.chain) {
        st.wait_until_ms = 0;
        answer_waiters(st, now);
        return;
      }
      renew_or_wait(self, now);
    },
  };
}

} // namespace netherscope::actors
