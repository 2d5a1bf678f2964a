#include "actors/front_actor.hpp"

#include <ctime>

#include <caf/all.hpp>

#include "actors/check_flow.hpp"
#include "actors/join_flow.hpp"
#include "actors/outcomes.hpp"
#include "actors/server_page_flow.hpp"
#include "actors/status_flow.hpp"
#include "core/offer_outcome.hpp"
#include "core/watch_json.hpp"
#include "core/webhook_json.hpp"
#include "base/crypto.hpp"

namespace netherscope::actors {

namespace upstream = net::upstream;

namespace {

// -- the work behind each kind of call ----------------------------------------

void serve_info(actors::front_actor::pointer self, const front_peers& peers,
                const front_settings& settings, core::api_call& call, core::quota_verdict verdict) {
  self->request(peers.registry, settings.info_deadline, info_atom::value, call.where)
    .then(
      [reply = call.reply, verdict](core::info_reply& r) {
        core::api_outcome outcome;
        outcome.error = std::move(r.error);
        outcome.body = std::move(r.body);
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

void serve_offer(actors::front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, core::api_call& call, core::quota_verdict verdict) {
  // The expected ports stay here: they are not part of the cache key, so the cache never
  // sees them, and the warning is worked out on each reply, cached or not.
  core::offer_request req{std::move(call.where), std::move(call.network_id), call.fresh, {},
                    call.probe};
  // The refund names the counter this call was charged to; looking the key up again could
  // find it revoked meanwhile and give the call back to an address that never paid for it.
  auto refund = core::quota_charge::refund_call(core::endpoint::offer, call.client, call.key_hash, verdict);
  // No timeout: the cache always answers (its flight has its own deadline), and a timeout
  // would cost every call a trip through CAF's clock thread.
  self->request(peers.cache, caf::infinite, offer_atom::value, std::move(req))
    .then(
      [=, reply = call.reply, expected = std::move(call.expect_ports)](core::offer_reply& r) mutable {
        auto limited = r.error.code == core::error_code::target_rate_limited;
        std::shared_ptr<const std::string> body;
        if (r.error.ok())
          body = std::make_shared<const std::string>(std::move(r.body));
        auto outcome = core::offer_outcome(core::quota_verdict{verdict}, std::move(r.error), std::move(body),
                                     r.age, std::move(expected));
        if (!limited) {
          reply(std::move(outcome));
          return;
        }
        // The per-target limit refused it after the call was counted: give the call back,
        // and show the caller the quota as it stands after that.
        self->request(peers.quotas, settings.store_deadline, charge_atom::value, refund)
          .then(
            [reply, outcome, verdict](core::quota_verdict& after) mutable {
              auto refunded = after.error.code != core::error_code::unavailable;
              reply(with_quota(std::move(outcome), refunded ? after : verdict));
            },
            [reply, outcome](caf::error&) mutable { reply(std::move(outcome)); });
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

void finish_signin(actors::front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, core::api_call& call);

template <class Atom>
void serve_account(actors::front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, core::api_call& call, core::quota_verdict verdict) {
  self->request(peers.accounts, settings.store_deadline, Atom::value, call.key_hash)
    .then(
      [reply = call.reply, verdict](core::account_view& view) {
        core::api_outcome outcome;
        outcome.error = view.error;
        outcome.account = std::move(view);
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

// A webhook's test, once the watch actor found it on the caller's watch: the webhook actor
// delivers it and answers with the outcome within the delivery's deadline.
void test_webhook(actors::front_actor::pointer self, const front_peers& peers,
                  const front_settings& settings, const core::reply_fn& reply,
                  const core::quota_verdict& verdict, const core::watch_view& watch) {
  self->request(peers.webhooks, settings.store_deadline, test_atom::value, watch.id,
                watch.webhooks.front().id)
    .then(
      [reply, verdict](core::webhook_delivery& delivery) {
        core::api_outcome outcome;
        // The webhook was deleted in between: the caller's answer is that it is gone. Any
        // other failure is the delivery's outcome, which the body reports.
        if (delivery.error.code == core::error_code::unknown_webhook)
          outcome.error = std::move(delivery.error);
        else
          outcome.body = core::render_webhook_test(delivery);
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply, verdict](caf::error& err) { reply(with_quota(lost_reply(err), verdict)); });
}

// What a watch call asks of the watch actor, from the API's routes and the account page's
// forms alike, so both go through the same checks.
watch_command command_of(core::api_call& call) {
  watch_command cmd;
  cmd.key_hash = call.key_hash;
  cmd.session_hash = std::move(call.session_hash);
  cmd.from_form = core::is_page_call(call.kind);
  cmd.csrf = std::move(call.csrf);
  switch (call.kind) {
    case core::call_kind::watch_create:
    case core::call_kind::page_watch_add:
      cmd.action = watch_action::create;
      cmd.spec = std::move(call.watch);
      break;
    case core::call_kind::watch_delete:
    case core::call_kind::page_watch_delete:
      cmd.action = watch_action::remove;
      cmd.id = std::move(call.watch_id);
      break;
    case core::call_kind::webhook_create:
    case core::call_kind::page_webhook_add:
      cmd.action = watch_action::add_webhook;
      cmd.id = std::move(call.watch_id);
      cmd.webhook = std::move(call.webhook);
      break;
    case core::call_kind::webhook_delete:
    case core::call_kind::page_webhook_delete:
    case core::call_kind::webhook_test:
      cmd.action = call.kind == core::call_kind::webhook_test ? watch_action::find_webhook
                                                              : watch_action::remove_webhook;
      cmd.id = std::move(call.watch_id);
      cmd.webhook_id = std::move(call.webhook_id);
      break;
    default:
      cmd.action = watch_action::list;
  }
  return cmd;
}

// The watch routes: the watch actor finds the account and acts; the body is rendered here,
// so the actor knows no JSON and the edge no watch records.
void serve_watch(actors::front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, core::api_call& call, core::quota_verdict verdict) {
  auto cmd = command_of(call);
  auto kind = call.kind;
  self->request(peers.watches, settings.store_deadline, watch_atom::value, std::move(cmd))
    .then(
      [=, reply = call.reply](core::watch_answer& answer) {
        core::api_outcome outcome;
        outcome.error = std::move(answer.error);
        if (outcome.error.ok() && kind == core::call_kind::webhook_test
            && !answer.watches.empty() && !answer.watches.front().webhooks.empty())
          return test_webhook(self, peers, settings, reply, verdict, answer.watches.front());
        if (outcome.error.ok()) {
          if (kind == core::call_kind::watch_create && !answer.watches.empty())
            outcome.body = core::render_watch_created(answer.watches.front());
          else if (kind == core::call_kind::watch_list)
            outcome.body = core::render_watch_list(answer);
          else if (kind == core::call_kind::webhook_create && !answer.watches.empty()
                   && !answer.watches.front().webhooks.empty())
            outcome.body = core::render_webhook_created(answer.watches.front().webhooks.front(),
                                                       answer.secret);
          else
            outcome.body = core::render_watch_deleted();
        }
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

// GET /api/history and /chart.svg: the history actor decides who may see the server's
// history and reads it; the edge renders it.
void serve_history(actors::front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, core::api_call& call,
                   core::quota_verdict verdict) {
  history_query q;
  q.host = std::move(call.where.host);
  q.port = call.where.port;
  q.range = call.range;
  q.key_hash = call.key_hash;
  q.session_hash = std::move(call.session_hash);
  self->request(peers.history, settings.store_deadline, history_atom::value, std::move(q))
    .then(
      [reply = call.reply, verdict, metric = call.metric](history_answer& answer) {
        core::api_outcome outcome;
        outcome.error = std::move(answer.error);
        outcome.history = std::move(answer.view);
        outcome.metric = metric;
        reply(with_quota(std::move(outcome), verdict));
      },
      [reply = call.reply, verdict](caf::error& err) {
        reply(with_quota(lost_reply(err), verdict));
      });
}

// Counts the call (or, for account calls, only looks up where the caller stands), then
// does the work. Nothing is done for a call that is refused.
void charge_then_serve(actors::front_actor::pointer self, const front_peers& peers,
                       const front_settings& settings, core::api_call& call) {
  // A sign-in callback costs us requests to the provider, so it is counted too, against
  // its own hourly limit per address (endpoint_of), never against the info quota. A badge
  // and a server's page are info calls.
  auto counted = call.kind == core::call_kind::info || call.kind == core::call_kind::badge
                 || call.kind == core::call_kind::badge_png
                 || call.kind == core::call_kind::server_page
                 || call.kind == core::call_kind::status || call.kind == core::call_kind::offer
                 || call.kind == core::call_kind::signin_finish;
  auto charge = counted
                  ? core::quota_charge::count_call(endpoint_of(call.kind), call.client, call.key_hash)
                  : core::quota_charge::look_up(endpoint_of(call.kind), call.client, call.key_hash);
  // Copied before the handlers are made: the order in which a function's arguments are
  // built is unspecified, and the first handler moves the call.
  auto reply = call.reply;
  // No timeout: the quota actor answers every charge after its commit, or CAF answers with
  // an error if the actor is gone; a timeout would cost every call a trip through CAF's
  // clock thread.
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(charge))
    .then(
      [=, call = std::move(call)](core::quota_verdict& verdict) mutable {
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
          case core::call_kind::info:
            return serve_info(self, peers, settings, call, verdict);
          case core::call_kind::badge:
          case core::call_kind::badge_png:
          case core::call_kind::server_page:
            return serve_badge(self, peers, settings, call, verdict);
          case core::call_kind::status:
            return serve_status(self, peers, settings, call, verdict);
          case core::call_kind::offer:
            return serve_offer(self, peers, settings, call, verdict);
          case core::call_kind::account_get:
            return serve_account<account_atom>(self, peers, settings, call, verdict);
          case core::call_kind::account_rotate:
            return serve_account<rotate_atom>(self, peers, settings, call, verdict);
          case core::call_kind::account_revoke:
            return serve_account<revoke_atom>(self, peers, settings, call, verdict);
          case core::call_kind::signin_finish:
            return finish_signin(self, peers, settings, call);
          case core::call_kind::watch_create:
          case core::call_kind::watch_list:
          case core::call_kind::watch_delete:
          case core::call_kind::webhook_create:
          case core::call_kind::webhook_delete:
          case core::call_kind::webhook_test:
            return serve_watch(self, peers, settings, call, verdict);
          case core::call_kind::history:
          case core::call_kind::chart:
            return serve_history(self, peers, settings, call, verdict);
          default:
            call.reply(failed(core::make_failure(core::error_code::internal, "unexpected call")));
        }
      },
      [reply](caf::error& err) { reply(lost_reply(err)); });
}

// An error the edge decided before the request became a call of its route: only look up
// where the caller stands, so the error shows the route's quota headers, and count nothing.
// The edge's error is the answer whatever the look-up finds (an unknown key included).
void peek_then_refuse(actors::front_actor::pointer self, const front_peers& peers, core::api_call& call) {
  auto look_up = core::quota_charge::look_up(endpoint_of(call.kind), call.client, call.key_hash);
  self->request(peers.quotas, caf::infinite, charge_atom::value, std::move(look_up))
    .then(
      [reply = call.reply, error = call.invalid](core::quota_verdict& verdict) {
        reply(with_quota(failed(error), verdict));
      },
      [reply = call.reply, error = call.invalid](caf::error&) { reply(failed(error)); });
}

void start_signin(const front_settings& settings, core::api_call& call) {
  auto attempt = upstream::start_attempt(settings.state_key, std::time(nullptr));
  if (!attempt) {
    call.reply(failed(core::make_failure(core::error_code::internal, "cannot draw random bytes")));
    return;
  }
  core::api_outcome outcome;
  outcome.binding = std::move(attempt->binding);
  outcome.redirect = upstream::authorize_redirect(settings.oauth, attempt->state, attempt->challenge);
  call.reply(std::move(outcome));
}

// The account view after the provider named the user: the keys actor opens the session.
void open_account(actors::front_actor::pointer self, const front_peers& peers,
                  const front_settings& settings, core::reply_fn reply, signin_result who,
                  std::string old_session_hash) {
  self
    ->request(peers.accounts, settings.store_deadline, signin_atom::value, who.user_id,
              std::move(who.login), std::move(old_session_hash))
    .then(
      [reply](core::account_view& view) {
        core::api_outcome outcome;
        outcome.error = view.error;
        outcome.account = std::move(view);
        reply(std::move(outcome));
      },
      [reply](caf::error& err) { reply(lost_reply(err)); });
}

void finish_signin(actors::front_actor::pointer self, const front_peers& peers,
                   const front_settings& settings, core::api_call& call) {
  // Only states we issued, recently, to this browser reach the provider: a made-up state, or
  // a real one with a cookie made from the URL, must not make us spend requests (and our
  // client secret) on it.
  core::failure refused;
  auto checked = upstream::check_state(settings.state_key, call.state, call.binding,
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
       old_session = std::move(call.session_hash)](core::failure& claimed) {
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

// The account page's watches, asked of the watch actor once the keys actor has found the
// session: a page that shows the account lists them. A list that cannot be read is a sentence
// on the page, not a failed page.
void list_page_watches(actors::front_actor::pointer self, const front_peers& peers,
                       const front_settings& settings, core::reply_fn reply,
                       core::api_outcome outcome, std::string session_hash) {
  watch_command cmd;
  cmd.session_hash = std::move(session_hash);
  self->request(peers.watches, settings.store_deadline, watch_atom::value, std::move(cmd))
    .then(
      [reply, outcome](core::watch_answer& answer) mutable {
        outcome.account_watches = std::make_shared<const core::watch_answer>(std::move(answer));
        reply(std::move(outcome));
      },
      [reply, outcome](caf::error& err) mutable {
        core::watch_answer lost;
        lost.error = lost_reply(err).error;
        outcome.account_watches = std::make_shared<const core::watch_answer>(std::move(lost));
        reply(std::move(outcome));
      });
}

// One request of the account page to the keys actor, which checks the session and, for
// changes, the form's token; then, with_watches, the account's watches. made carries what an
// earlier step made for the page to show (a webhook's secret).
void answer_page(actors::front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, page_request req, core::reply_fn reply,
                 bool with_watches, core::api_outcome made = {}) {
  auto signing_out = req.action == page_action::sign_out;
  auto session_hash = req.session_hash;
  self->request(peers.accounts, settings.store_deadline, page_atom::value, std::move(req))
    .then(
      [=](core::account_view& view) mutable {
        auto outcome = std::move(made);
        outcome.error = view.error;
        outcome.signed_out = signing_out && view.error.ok();
        outcome.account = std::move(view);
        if (with_watches && outcome.error.ok())
          return list_page_watches(self, peers, settings, reply, std::move(outcome),
                                   std::move(session_hash));
        reply(std::move(outcome));
      },
      [reply](caf::error& err) { reply(lost_reply(err)); });
}

// The account page's calls: the session cookie says who, the keys actor checks it and, for
// changes, the form's token.
void serve_page(actors::front_actor::pointer self, const front_peers& peers,
                const front_settings& settings, core::api_call& call) {
  page_request req;
  req.session_hash = std::move(call.session_hash);
  req.csrf = std::move(call.csrf);
  switch (call.kind) {
    case core::call_kind::page_new_key:
      req.action = page_action::new_key;
      break;
    case core::call_kind::page_revoke:
      req.action = page_action::revoke;
      break;
    case core::call_kind::page_sign_out:
      req.action = page_action::sign_out;
      break;
    default:
      req.action = page_action::view;
  }
  // The JSON of /account/session has no watches; the page after signing out shows none.
  auto with_watches = call.kind != core::call_kind::page_session
                      && req.action != page_action::sign_out;
  answer_page(self, peers, settings, std::move(req), call.reply, with_watches);
}

// The account page's forms for watches and webhooks: the watch actor checks the form's token
// against the session in the transaction that acts, with the API's own checks. A new
// webhook's secret is shown on the page, this once; after the other forms the edge sends the
// browser back to the page.
void serve_page_watch(actors::front_actor::pointer self, const front_peers& peers,
                      const front_settings& settings, core::api_call& call) {
  auto kind = call.kind;
  auto session_hash = call.session_hash;
  self->request(peers.watches, settings.store_deadline, watch_atom::value, command_of(call))
    .then(
      [=, reply = call.reply](core::watch_answer& answer) mutable {
        core::api_outcome outcome;
        outcome.error = std::move(answer.error);
        if (!outcome.error.ok() || kind != core::call_kind::page_webhook_add)
          return reply(std::move(outcome));
        if (!answer.watches.empty() && !answer.watches.front().webhooks.empty())
          outcome.new_webhook = std::move(answer.watches.front().webhooks.front());
        outcome.new_webhook_secret = std::move(answer.secret);
        page_request req;
        req.session_hash = std::move(session_hash);
        answer_page(self, peers, settings, std::move(req), reply, true, std::move(outcome));
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

// Ready when the store answers a look-up (which counts nothing).
void check_ready(actors::front_actor::pointer self, const front_peers& peers,
                 const front_settings& settings, core::api_call& call) {
  auto probe = core::quota_charge::look_up(core::endpoint::info, "readyz", {});
  self->request(peers.quotas, settings.store_deadline, charge_atom::value, std::move(probe))
    .then(
      [reply = call.reply](core::quota_verdict& verdict) {
        reply(verdict.error.code == core::error_code::unavailable ? failed(verdict.error)
                                                            : core::api_outcome{});
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

void collect_metrics(actors::front_actor::pointer self, const front_peers& peers,
                     const front_settings& settings, core::api_call& call) {
  self->request(peers.registry, settings.store_deadline, count_atom::value)
    .then(
      [=, reply = call.reply](std::uint64_t probes) {
        self->request(peers.cache, settings.store_deadline, count_atom::value)
          .then(
            [=](std::uint64_t entries) {
              self->request(peers.history, settings.store_deadline, latest_atom::value)
                .then(
                  [reply, probes, entries](watched_checks& watched) {
                    core::api_outcome outcome;
                    outcome.probes = probes;
                    outcome.cache_entries = entries;
                    outcome.watched = std::move(watched);
                    reply(std::move(outcome));
                  },
                  [reply](caf::error& err) { reply(lost_reply(err)); });
            },
            [reply](caf::error& err) { reply(lost_reply(err)); });
      },
      [reply = call.reply](caf::error& err) { reply(lost_reply(err)); });
}

} // namespace

actors::front_actor::behavior_type front(front_actor::pointer self, front_peers peers,
                                 front_settings settings) {
  return {
    [=](core::api_call& call) {
      if (call.peek)
        return peek_then_refuse(self, peers, call);
      switch (call.kind) {
        case core::call_kind::signin_start:
        case core::call_kind::signin_finish:
          if (!settings.oauth.configured()) {
            call.reply(failed(core::make_failure(core::error_code::unavailable,
                                           "sign-in is not configured on this server")));
            return;
          }
          if (!call.invalid.ok()) {
            call.reply(failed(call.invalid));
            return;
          }
          if (call.kind == core::call_kind::signin_start)
            return start_signin(settings, call);
          return charge_then_serve(self, peers, settings, call);
        case core::call_kind::page_view:
        case core::call_kind::page_session:
        case core::call_kind::page_new_key:
        case core::call_kind::page_revoke:
        case core::call_kind::page_sign_out:
        case core::call_kind::page_watch_add:
        case core::call_kind::page_watch_delete:
        case core::call_kind::page_webhook_add:
        case core::call_kind::page_webhook_delete:
          if (!call.invalid.ok()) {
            call.reply(failed(call.invalid));
            return;
          }
          if (core::is_page_watch_call(call.kind))
            return serve_page_watch(self, peers, settings, call);
          return serve_page(self, peers, settings, call);
        case core::call_kind::ready:
          return check_ready(self, peers, settings, call);
        case core::call_kind::metrics:
          return collect_metrics(self, peers, settings, call);
        case core::call_kind::check:
          return serve_check(self, peers, settings, call);
        case core::call_kind::server_page:
          prepare_server_page(self, peers, settings, call);
          if (call.page_check)
            return serve_check(self, peers, settings, call);
          return charge_then_serve(self, peers, settings, call);
        case core::call_kind::join:
          return serve_join(self, peers, settings, call);
        case core::call_kind::status_batch:
          return serve_status_batch(self, peers, settings, call);
        default:
          return charge_then_serve(self, peers, settings, call);
      }
    },
  };
}

} // namespace netherscope::actors
