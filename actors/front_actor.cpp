#include "actors/front_actor.hpp"

#include <ctime>

#include <caf/all.hpp>

#include "actors/check_flow.hpp"
#include "net/base/log.hpp"
#include "net/api/offer_outcome.hpp"
#include "net/base/crypto.hpp"

namespace netherscope {

namespace {

api_outcome failed(failure error) {
  api_outcome outcome;
  outcome.error = std::move(error);
  return outcome;
}

api_outcome lost_reply(const caf::error& err) {
  // The caller learns only that it failed; the cause goes to the log.
  log::write(log::level::error, "actor_request_failed", {{"error", caf::to_string(err)}});
  return failed(make_failure(error_code::internal, "the request could not be completed"));
}

api_outcome with_quota(api_outcome outcome, const quota_verdict& verdict) {
  outcome.has_quota = true;
  outcome.quota = verdict;
  return outcome;
}

// -- the work behind each kind of call ----------------------------------------

void serve_info(front_actor::pointer self, const front_peers& peers,
                const front_settings& settings, api_call& call, quota_verdict verdict) {
  self->request(peers.registry, settings.info_deadline, info_atom::value, call.where)
    .then(
      [reply = call.reply, verdict](info_reply& r) {
        api_outcome outcome;
        outcome.error = std::move(r.error);
        outcome.body = std::move(r.body);
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

void serve_offer(front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, api_call& call, quota_verdict verdict) {
  // The expected ports stay here: they are not part of the cache key, so the cache never
  // sees them, and the warning is worked out on each reply, cached or not.
  offer_request req{std::move(call.where), std::move(call.network_id), call.fresh, {},
                    call.probe};
  // The refund names the counter this call was charged to; looking the key up again could
  // find it revoked meanwhile and give the call back to an address that never paid for it.
  auto refund = quota_charge::refund_call(endpoint::offer, call.client, call.key_hash, verdict);
  // No timeout: the cache always answers (its flight has its own deadline), and a timeout
  // would cost every call a trip through CAF's clock thread.
  self->request(peers.cache, caf::infinite, offer_atom::value, std::move(req))
    .then(
      [=, reply = call.reply, expected = std::move(call.expect_ports)](offer_reply& r) mutable {
        auto limited = r.error.code == error_code::target_rate_limited;
        std::shared_ptr<const std::string> body;
        if (r.error.ok())
          body = std::make_shared<const std::string>(std::move(r.body));
        auto outcome = offer_outcome(quota_verdict{verdict}, std::move(r.error), std::move(body),
                                     r.age, std::move(expected));
        if (!limited) {
          reply(std::move(outcome));
          return;
        }
        // The per-target limit refused it after the call was counted: give the call back,
        // and show the caller the quota as it stands after that.
        self->request(peers.quotas, settings.store_deadline, charge_atom::value, refund)
          .then(
            [reply, outcome, verdict](quota_verdict& after) mutable {
              auto refunded = after.error.code != error_code::unavailable;
              reply(with_quota(std::move(outcome), refunded ? after : verdict));
            },
            [reply, outcome](caf::error&) mutable { reply(std::move(outcome)); });
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

void finish_signin(front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, api_call& call);

template <class Atom>
void serve_account(front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, api_call& call, quota_verdict verdict) {
  self->request(peers.accounts, settings.store_deadline, Atom::value, call.key_hash)
    .then(
      [reply = call.reply, verdict](account_view& view) {
        api_outcome outcome;
        outcome.error = view.error;
        outcome.account = std::move(view);
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

// Counts the call (or, for account calls, only looks up where the caller stands), then
// does the work. Nothing is done for a call that is refused.
void charge_then_serve(front_actor::pointer self, const front_peers& peers,
                       const front_settings& settings, api_call& call) {
  // A sign-in callback costs us requests to the provider, so it is counted too, against
  // its own hourly limit per address (endpoint_of), never against the info quota. A badge
  // is an info call.
  auto counted = call.kind == call_kind::info || call.kind == call_kind::badge
                 || call.kind == call_kind::offer || call.kind == call_kind::signin_finish;
  auto charge = counted
                  ? quota_charge::count_call(endpoint_of(call.kind), call.client, call.key_hash)
                  : quota_charge::look_up(endpoint_of(call.kind), call.client, call.key_hash);
  // Copied before the handlers are made: the order in which a function's arguments are
  // built is unspecified, and the first handler moves the call.
  auto reply = call.reply;
  // No timeout: the quota actor answers every charge after its commit, or CAF answers with
  // an error if the actor is gone; a timeout would cost every call a trip through CAF's
  // clock thread.
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(charge))
    .then(
      [=, call = std::move(call)](quota_verdict& verdict) mutable {
        if (!verdict.error.ok()) {
          // Store failures included: the verdict then carries the limit and the reset.
          call.reply(with_quota(failed(verdict.error), verdict));
          return;
        }
        if (!call.invalid.ok()) {
          call.reply(with_quota(failed(call.invalid), verdict));
          return;
        }
        switch (call.kind) {
          case call_kind::info:
          case call_kind::badge:
            return serve_info(self, peers, settings, call, verdict);
          case call_kind::offer:
            return serve_offer(self, peers, settings, call, verdict);
          case call_kind::account_get:
            return serve_account<account_atom>(self, peers, settings, call, verdict);
          case call_kind::account_rotate:
            return serve_account<rotate_atom>(self, peers, settings, call, verdict);
          case call_kind::account_revoke:
            return serve_account<revoke_atom>(self, peers, settings, call, verdict);
          case call_kind::signin_finish:
            return finish_signin(self, peers, settings, call);
          default:
            call.reply(failed(make_failure(error_code::internal, "unexpected call")));
        }
      },
      [reply](caf::error& err) { reply(lost_reply(err)); });
}

// An error the edge decided before the request became a call of its route: only look up
// where the caller stands, so the error shows the route's quota headers, and count nothing.
// The edge's error is the answer whatever the look-up finds (an unknown key included).
void peek_then_refuse(front_actor::pointer self, const front_peers& peers, api_call& call) {
  auto look_up = quota_charge::look_up(endpoint_of(call.kind), call.client, call.key_hash);
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(look_up))
    .then(
      [reply = call.reply, error = call.invalid](quota_verdict& verdict) {
        reply(with_quota(failed(error), verdict));
      },
      [reply = call.reply, error = call.invalid](caf::error&) { reply(failed(error)); });
}

void start_signin(const front_settings& settings, api_call& call) {
  auto attempt = net::start_attempt(settings.state_key, std::time(nullptr));
  if (!attempt) {
    call.reply(failed(make_failure(error_code::internal, "cannot draw random bytes")));
    return;
  }
  api_outcome outcome;
  outcome.binding = std::move(attempt->binding);
  outcome.redirect = net::authorize_redirect(settings.oauth, attempt->state, attempt->challenge);
  call.reply(std::move(outcome));
}

// The account view after the provider named the user: the keys actor opens the session.
void open_account(front_actor::pointer self, const front_peers& peers,
                  const front_settings& settings, reply_fn reply, signin_result who,
                  std::string old_session_hash) {
  self
    ->request(peers.accounts, settings.store_deadline, signin_atom::value, who.user_id,
              std::move(who.login), std::move(old_session_hash))
    .then(
      [reply](account_view& view) {
        api_outcome outcome;
        outcome.error = view.error;
        outcome.account = std::move(view);
        reply(std::move(outcome));
      },
      [reply](caf::error& err) { reply(lost_reply(err)); });
}

void finish_signin(front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, api_call& call) {
  // Only states we issued, recently, to this browser reach the provider: a made-up state, or
  // a real one with a cookie made from the URL, must not make us spend requests (and our
  // client secret) on it.
  failure refused;
  auto checked = net::check_state(settings.state_key, call.state, call.binding,
                                  std::time(nullptr), refused);
  if (!checked) {
    call.reply(failed(std::move(refused)));
    return;
  }
  // The state is recorded as used, in the store, before the code goes anywhere: a replay to
  // this process, another replica or a restarted one is refused without a provider request.
  self
    ->request(peers.accounts, settings.store_deadline, claim_atom::value, checked->canonical,
              checked->expires_unix)
    .then(
      [=, reply = call.reply, code = std::move(call.code), verifier = checked->verifier,
       old_session = std::move(call.session_hash)](failure& claimed) {
        if (!claimed.ok()) {
          reply(failed(std::move(claimed)));
          return;
        }
        self->request(peers.signin, settings.signin_deadline, signin_atom::value, code, verifier)
          .then(
            [=](signin_result& who) {
              if (!who.error.ok()) {
                reply(failed(who.error));
                return;
              }
              open_account(self, peers, settings, reply, std::move(who), old_session);
            },
            [reply](caf::error& err) { reply(lost_reply(err)); });
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

// The account page's calls: the session cookie says who, the keys actor checks it and, for
// changes, the form's token.
void serve_page(front_actor::pointer self, const front_peers& peers,
                const front_settings& settings, api_call& call) {
  page_request req;
  req.session_hash = std::move(call.session_hash);
  req.csrf = std::move(call.csrf);
  switch (call.kind) {
    case call_kind::page_new_key:
      req.action = page_action::new_key;
      break;
    case call_kind::page_revoke:
      req.action = page_action::revoke;
      break;
    case call_kind::page_sign_out:
      req.action = page_action::sign_out;
      break;
    default:
      req.action = page_action::view;
  }
  auto signing_out = req.action == page_action::sign_out;
  self->request(peers.accounts, settings.store_deadline, page_atom::value, std::move(req))
    .then(
      [reply = call.reply, signing_out](account_view& view) {
        api_outcome outcome;
        outcome.error = view.error;
        outcome.signed_out = signing_out && view.error.ok();
        outcome.account = std::move(view);
        reply(std::move(outcome));
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

// Ready when the store answers a look-up (which counts nothing).
void check_ready(front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, api_call& call) {
  auto probe = quota_charge::look_up(endpoint::info, "readyz", {});
  self->request(peers.quotas, settings.store_deadline, charge_atom::value, std::move(probe))
    .then(
      [reply = call.reply](quota_verdict& verdict) {
        reply(verdict.error.code == error_code::unavailable ? failed(verdict.error)
                                                            : api_outcome{});
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

void collect_metrics(front_actor::pointer self, const front_peers& peers,
                     const front_settings& settings, api_call& call) {
  self->request(peers.registry, settings.store_deadline, count_atom::value)
    .then(
      [=, reply = call.reply](std::uint64_t probes) {
        self->request(peers.cache, settings.store_deadline, count_atom::value)
          .then(
            [reply, probes](std::uint64_t entries) {
              api_outcome outcome;
              outcome.probes = probes;
              outcome.cache_entries = entries;
              reply(std::move(outcome));
            },
            [reply](caf::error& err) { reply(lost_reply(err)); });
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

} // namespace

front_actor::behavior_type front(front_actor::pointer self, front_peers peers,
                                 front_settings settings) {
  return {
    [=](api_call& call) {
      if (call.peek)
        return peek_then_refuse(self, peers, call);
      switch (call.kind) {
        case call_kind::signin_start:
        case call_kind::signin_finish:
          if (!settings.oauth.configured()) {
            call.reply(failed(make_failure(error_code::unavailable,
                                           "sign-in is not configured on this server")));
            return;
          }
          if (!call.invalid.ok()) {
            call.reply(failed(call.invalid));
            return;
          }
          if (call.kind == call_kind::signin_start)
            return start_signin(settings, call);
          return charge_then_serve(self, peers, settings, call);
        case call_kind::page_view:
        case call_kind::page_session:
        case call_kind::page_new_key:
        case call_kind::page_revoke:
        case call_kind::page_sign_out:
          if (!call.invalid.ok()) {
            call.reply(failed(call.invalid));
            return;
          }
          return serve_page(self, peers, settings, call);
        case call_kind::ready:
          return check_ready(self, peers, settings, call);
        case call_kind::metrics:
          return collect_metrics(self, peers, settings, call);
        case call_kind::check:
          return serve_check(self, peers, settings, call);
        default:
          return charge_then_serve(self, peers, settings, call);
      }
    },
  };
}

} // namespace netherscope
