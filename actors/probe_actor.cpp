#include "actors/probe_actor.hpp"

#include <chrono>
#include <ctime>

#include <caf/all.hpp>

#include <boost/json/parse.hpp>

#include "core/api_json.hpp"
#include "core/offer_request.hpp"
#include "core/telemetry.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/nethernet/sdp_offer.hpp"
#include "net/join/answer_terms.hpp"
#include "net/report/join_reply.hpp"
#include "net/report/key_memory.hpp"
#include "net/report/raknet_status.hpp"
#include "net/report/reachability.hpp"
#include "net/report/replies.hpp"
#include "core/verdict.hpp"
#include "storage/target_records.hpp"

namespace netherscope::actors {

namespace nethernet = net::nethernet;
namespace join = net::join;
namespace report = net::report;
namespace upstream = net::upstream;

namespace {

using probe_pointer = actors::probe_actor::stateful_pointer<probe_state>;

std::int64_t unix_now() {
  return static_cast<std::int64_t>(std::time(nullptr));
}

bool scheme_memory_on(const probe_state& st) {
  return st.deps.memory && st.deps.settings.scheme_lifetime.count() > 0
         && st.where.tls == core::tls_mode::auto_detect;
}

/// What the fetch is told about the target's scheme: only auto-detected calls use the memory,
/// and only while it is on (records written before it was turned off are ignored).
upstream::scheme_hint hint_for(const probe_state& st, const core::target_memory& recalled) {
  if (!scheme_memory_on(st))
    return upstream::scheme_hint::unknown;
  switch (recalled.scheme) {
    case core::remembered_scheme::tls:
      return upstream::scheme_hint::tls;
    case core::remembered_scheme::plain:
      return upstream::scheme_hint::plain;
    case core::remembered_scheme::unknown:
      break;
  }
  return upstream::scheme_hint::unknown;
}

/// How a fetch ended, for the scheme memory: a response, a failure to reach the target, or
/// no attempt (refused by the address policy or the per-target limit).
storage::fetch_outcome outcome_of(const upstream::fetch_result& fetched) {
  if (fetched.error.ok()) {
    // A non-2xx over plain HTTP may be a TLS server's complaint about plain HTTP (nginx's 400)
    // after a slow handshake made detection give up: never learn "plain" from it, and forget
    // a remembered "plain" so the next call detects again.
    if (!fetched.tls && (fetched.status < 200 || fetched.status > 299))
      return storage::fetch_outcome::unanswered;
    return storage::fetch_outcome::answered;
  }
  if (fetched.error.code == core::error_code::upstream_failure
      || fetched.error.code == core::error_code::upstream_timeout)
    return storage::fetch_outcome::unanswered;
  return storage::fetch_outcome::not_tried;
}

/// Asks the memory about the probe's target when needed, then runs next with what it knows
/// and whether asking worked: nothing when there is no memory, or it fails or is slow (a call never waits on it for
/// longer than the recall deadline, and works without it).
template <class F>
void with_memory(probe_pointer self, bool needed, F next) {
  auto& st = self->state;
  if (!needed || !st.deps.memory)
    return next(core::target_memory{}, true);
  self
    ->request(st.deps.memory, st.deps.settings.recall_deadline, recall_atom::value,
              st.where.host, st.where.port)
    .then([=](core::target_memory& recalled) { next(std::move(recalled), true); },
          [=](caf::error&) { next(core::target_memory{}, false); });
}

/// Asks the token actor for the identity the offer carries, then calls next with it. Without a
/// token actor, or when it does not answer within the deadline, the offer goes self-signed.
template <class F>
void with_offer_identity(probe_pointer self, F next) {
  auto& st = self->state;
  if (!st.deps.tokens)
    return next(offer_identity{});
  self->request(st.deps.tokens, st.deps.settings.token_deadline, token_atom::value)
    .then([=](offer_identity& id) { next(std::move(id)); },
          [=](caf::error&) {
            offer_identity late;
            late.link_problem = "the Xbox token did not come within the deadline";
            next(std::move(late));
          });
}

/// The parts every fetch of this probe shares.
upstream::fetch_request base_request(const probe_state& st, const core::target_memory& recalled) {
  upstream::fetch_request req;
  req.where = st.where;
  req.connect_timeout = st.deps.settings.connect_timeout;
  req.tls_detect_timeout = st.deps.settings.tls_detect_timeout;
  req.remembered = hint_for(st, recalled);
  // A probe sends nothing secret (a status check, or an offer whose identity only the target
  // reads: a GameServerToken names our key, and only our key signs the fingerprints beside
  // it), so an untrusted certificate is reported with the answer rather than hiding it.
  req.accept_untrusted_certificate = true;
  return req;
}

/// Everything the io thread needs to tell the memory what a fetch taught.
struct lesson {
  /// A weak reference: a fetch still pending in the io_context when the service stops must not
  /// keep the detached memory actor alive, or the actor system would wait for it forever.
  caf::actor_addr memory;
  core::target where;
  core::target_memory recalled;
  std::int64_t lifetime_s = 0;

  /// The scheme part of the update for this fetch.
  core::target_memory_update plan(const upstream::fetch_result& fetched, std::int64_t now) const {
    return storage::plan_scheme_update(where.tls, recalled, outcome_of(fetched), fetched.tls, now,
                                       lifetime_s);
  }

  /// Sends the update; anon_send only enqueues, so this is safe on an io thread.
  void teach(core::target_memory_update update) const {
    if (update.empty())
      return;
    if (auto strong = caf::actor_cast<actors::memory_actor>(memory))
      caf::anon_send(strong, remember_atom::value, where.host, where.port, std::move(update));
  }
};

lesson lesson_of(const probe_state& st, core::target_memory recalled) {
  return {caf::actor_cast<caf::actor_addr>(st.deps.memory), st.where, std::move(recalled),
          static_cast<std::int64_t>(st.deps.settings.scheme_lifetime.count())};
}

void start_info(probe_pointer self, core::target_memory recalled) {
  auto& st = self->state;
  auto req = base_request(st, recalled);
  req.method = "GET";
  req.path = "/v1/join";
  req.body_limit = 64 * 1024;
  req.total_timeout = st.deps.settings.status_timeout;
  auto handle = caf::actor_cast<probe_actor>(self);
  st.deps.client->fetch(std::move(req), [handle, learnt = lesson_of(st, std::move(recalled))](
                                          upstream::fetch_result&& r) {
    // Runs on an io thread: build the reply there and hand it over as a message, so the
    // actor's state is only ever touched by the actor.
    learnt.teach(learnt.plan(r, unix_now()));
    auto reply = report::make_info_reply(std::move(r));
    core::process_telemetry().count_probe(core::probe_call::info, core::probe_outcome_of(reply.error.code));
    caf::anon_send(handle, done_atom::value, std::move(reply));
  });
}

/// Pings the target's UDP port for its RakNet status; the exchange's end comes back as
/// raknet_atom with the port and the reply, made on the io thread.
void start_raknet(probe_pointer self, std::uint16_t port) {
  auto& st = self->state;
  auto pings = report::next_raknet_pings();
  auto handle = caf::actor_cast<probe_actor>(self);
  st.deps.pinger->run(report::raknet_exchange(st.where.host, port, pings),
                      [handle, port, pings](upstream::udp_exchange_result&& r) {
                        auto reply = report::make_raknet_reply(r, port, pings);
                        core::process_telemetry().count_probe(
                          core::probe_call::raknet, core::probe_outcome_of_raknet(reply.code));
                        caf::anon_send(handle, raknet_atom::value, port, std::move(reply));
                      });
}

/// Answers every caller of the offer in flight with reply, checks or not (a failed offer).
void deliver_offer(probe_pointer self, const core::offer_reply& reply) {
  auto waiters = std::move(self->state.offer_waiters);
  self->state.offer_waiters.clear();
  for (auto& waiter : waiters)
    waiter.promise.deliver(reply);
}

/// Sends the connectivity checks of an answer; their end comes back as reached_atom with the
/// reply's body completed on the io thread.
void start_checks(probe_pointer self, core::offer_reply reply, core::reach_plan plan) {
  auto& st = self->state;
  st.checking = true;
  auto run = report::make_checks(plan, report::random_tie_breaker());
  auto checks = std::move(run.checks);
  auto started = std::chrono::steady_clock::now();
  auto handle = caf::actor_cast<probe_actor>(self);
  st.deps.checker->run(std::move(checks), [handle, reply = std::move(reply),
                                           plan = std::move(plan), run = std::move(run),
                                           started](auto&& results) mutable {
    std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - started;
    reply.body = report::with_reachability(std::move(reply.body), plan, run, results,
                                        elapsed.count());
    reply.probed = true;
    caf::anon_send(handle, reached_atom::value, std::move(reply));
  });
}

/// The answer of the offer in flight: callers that asked for no checks get it now; the others
/// when the checks end (at once when there is nothing to check).
void on_answer(probe_pointer self, core::offer_reply reply, core::reach_plan plan) {
  auto& st = self->state;
  auto waiters = std::move(st.offer_waiters);
  st.offer_waiters.clear();
  std::vector<caf::typed_response_promise<core::offer_reply>> probing;
  for (auto& waiter : waiters) {
    if (waiter.probe)
      probing.push_back(std::move(waiter.promise));
    else
      waiter.promise.deliver(reply);
  }
  if (probing.empty())
    return;
  if (!reply.error.ok() || !st.deps.checker) {
    for (auto& p : probing)
      p.deliver(reply);
    return;
  }
  for (auto& p : probing)
    st.reach_waiters.push_back(std::move(p));
  // Checks already running (for an earlier answer) will answer these callers too.
  if (!st.checking)
    start_checks(self, std::move(reply), std::move(plan));
}

/// The offer's parameters for the identity it carries; nullopt when they cannot be made.
std::optional<nethernet::offer_parameters> offer_parameters_for(const probe_state& st,
                                                                const offer_identity& as) {
  const nethernet::signed_in_identity signed_in{as.game_server_token, as.idp_domain};
  return nethernet::make_offer_parameters(*st.deps.identity, std::time(nullptr),
                                          as.signed_in() ? &signed_in : nullptr,
                                          st.deps.attributes.get());
}

/// POST /v1/join/{network_id} with the offer of params, under the per-target offer limit.
upstream::fetch_request offer_fetch(const probe_state& st, const core::target_memory& recalled,
                                    const std::string& network_id,
                                    const nethernet::offer_parameters& params) {
  auto req = base_request(st, recalled);
  req.method = "POST";
  req.path = "/v1/join/" + network_id;
  req.content_type = "application/sdp";
  req.body = nethernet::build_offer(params);
  // As large as any known implementation lets an answer be, so only a hostile target meets
  // the limit.
  req.body_limit = 1024 * 1024;
  req.total_timeout = st.deps.settings.answer_timeout;
  req.limited = true;
  return req;
}

/// What the reply of an offer says besides its answer.
report::offer_context offer_context_of(const probe_state& st, const core::target_memory& recalled,
                                       const std::string& network_id, const offer_identity& as) {
  report::offer_context context;
  context.network_id = network_id;
  context.signalling_port = st.where.port;
  if (!recalled.key_sha256.empty())
    context.previous_key_sha256 = recalled.key_sha256;
  if (as.signed_in())
    context.offered_as = as.gamertag;
  context.link_failing = !as.signed_in() && !as.link_problem.empty();
  return context;
}

/// The offer's reply, made on the io thread once the answer came: the scheme and identity
/// key it taught go to the memory (the key only when recalled_ok: an unknown previous key
/// must not be overwritten by the new one, or a change would go unreported).
core::offer_reply offer_reply_of(upstream::fetch_result&& r, report::offer_context context,
                                bool recalled_ok, const lesson& learnt) {
  auto now = unix_now();
  auto update = learnt.plan(r, now);
  // The answer's identity is checked against the time it arrived, once: the reply renders
  // it, and its verified key is what the memory keeps.
  context.now_unix = now;
  nethernet::identity_check identity;
  auto reply = report::make_offer_reply(std::move(r), context, &identity);
  reply.offered_as = context.offered_as;
  reply.link_failing = context.link_failing;
  core::process_telemetry().count_probe(core::probe_call::offer, core::probe_outcome_of(reply.error.code));
  if (reply.error.ok() && recalled_ok)
    update.key_sha256
      = report::compare_identity_key(identity, learnt.recalled.key_sha256).key_to_store;
  learnt.teach(std::move(update));
  return reply;
}

/// Sends an offer; recalled_ok is false when the memory could not be asked (slow or failed).
void start_offer(probe_pointer self, core::target_memory recalled, bool recalled_ok,
                 std::string network_id, offer_identity as) {
  auto& st = self->state;
  auto params = offer_parameters_for(st, as);
  if (!params) {
    core::offer_reply reply;
    reply.error = core::make_failure(core::error_code::internal, "cannot build an offer");
    return deliver_offer(self, reply);
  }
  auto req = offer_fetch(st, recalled, network_id, *params);
  auto handle = caf::actor_cast<probe_actor>(self);
  auto offer_ufrag = params->ice_ufrag;
  auto context = offer_context_of(st, recalled, network_id, as);
  st.deps.client->fetch(std::move(req), [handle, context, recalled_ok, offer_ufrag,
                                         learnt = lesson_of(st, std::move(recalled))](
                                          upstream::fetch_result&& r) mutable {
    // What a probe:true caller needs checked, planned here while the answer is at hand: the
    // reply below keeps only its rendered form.
    core::reach_plan plan;
    if (r.error.ok() && r.status >= 200 && r.status <= 299)
      plan = report::plan_reach(r.body, offer_ufrag);
    auto reply = offer_reply_of(std::move(r), std::move(context), recalled_ok, learnt);
    caf::anon_send(handle, answer_atom::value, std::move(reply), std::move(plan));
  });
}

/// Everything the io thread needs to turn one player's answer into a join.
struct join_plan {
  core::join_order order;
  std::string local_ufrag;
  std::string local_pwd;
  std::shared_ptr<const nethernet::local_identity> identity;
  std::shared_ptr<upstream::join_runner> joiner;
  upstream::address_policy policy;
  std::chrono::milliseconds timeout{5000};
  std::chrono::steady_clock::time_point started;
};

/// Why an answer's job cannot run, or nullopt when it can: no job (the answer lacks what a
/// join needs), or no candidate, told apart as an answer that names none and one whose every
/// candidate the policy refuses.
std::optional<core::join_result> cannot_run(const std::optional<join::join_job>& job,
                                           const std::string& answer,
                                           const join::job_inputs& inputs,
                                           const report::join_context& jc, const std::string& why) {
  if (!job)
    return report::unjoined("signalling", "offer_unreadable", why, jc);
  if (!job->candidates.empty())
    return std::nullopt;
  auto any = inputs;
  any.allowed = [](const boost::asio::ip::address&) { return true; };
  auto unfiltered = join::job_from_answer(answer, any);
  auto named = unfiltered && !unfiltered->candidates.empty();
  return report::unjoined("signalling", named ? "candidates_refused" : "no_candidates", {}, jc);
}

/// Runs on the io thread with the join's offer answered: its result, or the job handed to a
/// worker whose report finishes the join.
void join_after_answer(upstream::fetch_result&& r, report::offer_context context,
                       bool recalled_ok, const lesson& learnt, const join_plan& plan,
                       std::function<void(core::join_result&&)> finish) {
  std::chrono::duration<double, std::milli> signalling = std::chrono::steady_clock::now()
                                                         - plan.started;
  auto answered = r.error.ok() && r.status >= 200 && r.status <= 299;
  auto answer = answered ? r.body : std::string{};
  auto signed_in = !context.offered_as.empty();
  auto reply = offer_reply_of(std::move(r), context, recalled_ok, learnt);
  // Every join of the target carries its offer, for a check's verdict to read.
  finish = [finish, offer = reply](core::join_result&& result) {
    result.offer = offer;
    finish(std::move(result));
  };
  report::join_context jc;
  jc.order = plan.order;
  jc.signalling_ms = signalling.count();
  jc.offered_as = context.offered_as;
  jc.offer = nullptr;
  jc.offer_error = nullptr;
  if (!reply.error.ok()) {
    if (!core::is_target_failure(reply.error)) {
      core::join_result refused;
      refused.error = std::move(reply.error);
      return finish(std::move(refused));
    }
    jc.offer_error = boost::json::parse(core::render_error(reply.error));
    return finish(report::unjoined(
      "signalling", report::signalling_outcome(reply.error, signed_in), {}, jc));
  }
  jc.offer = boost::json::parse(reply.body);
  join::job_inputs inputs;
  inputs.local_ufrag = plan.local_ufrag;
  inputs.local_pwd = plan.local_pwd;
  inputs.identity = plan.identity.get();
  inputs.protocol = plan.order.protocol;
  inputs.timeout = plan.timeout;
  inputs.tie_breaker = report::random_tie_breaker();
  inputs.allowed = [policy = plan.policy](const boost::asio::ip::address& a) {
    return policy.check(a).allowed;
  };
  std::string why;
  auto job = join::job_from_answer(answer, inputs, &why);
  if (auto refused = cannot_run(job, answer, inputs, jc, why))
    return finish(std::move(*refused));
  auto ran = plan.joiner->run(std::move(*job), [finish, jc](join::join_report&& report) {
    finish(report::describe_join(report, jc));
  });
  if (!ran) {
    core::join_result busy;
    busy.error = core::make_failure(core::error_code::unavailable,
                                   "the service is running as many joins as it may; try again "
                                   "in a few seconds");
    finish(std::move(busy));
  }
}

/// Makes one player's offer and join; its end comes back as joined_atom with the join's
/// number.
void start_join(probe_pointer self, std::uint64_t id, core::target_memory recalled,
                bool recalled_ok, core::join_order order, offer_identity as) {
  auto& st = self->state;
  auto handle = caf::actor_cast<probe_actor>(self);
  auto finish = [handle, id](core::join_result&& result) {
    caf::anon_send(handle, joined_atom::value, id, std::move(result));
  };
  auto params = offer_parameters_for(st, as);
  if (!params || !st.deps.joiner) {
    core::join_result failed;
    failed.error = params ? core::make_failure(core::error_code::unavailable,
                                              "joins are not set up on this service")
                          : core::make_failure(core::error_code::internal, "cannot build an offer");
    return finish(std::move(failed));
  }
  auto req = offer_fetch(st, recalled, order.network_id, *params);
  // A join's players meet the server together (a one-port pool shows only then).
  req.in_flight_limit = core::max_join_players;
  auto context = offer_context_of(st, recalled, order.network_id, as);
  join_plan plan{std::move(order),  params->ice_ufrag,  params->ice_pwd,
                 st.deps.identity,  st.deps.joiner,     st.deps.join_policy,
                 st.deps.settings.join_timeout, std::chrono::steady_clock::now()};
  st.deps.client->fetch(std::move(req), [context, recalled_ok, plan = std::move(plan), finish,
                                         learnt = lesson_of(st, std::move(recalled))](
                                          upstream::fetch_result&& r) mutable {
    join_after_answer(std::move(r), std::move(context), recalled_ok, learnt, plan, finish);
  });
}

} // namespace

actors::probe_actor::behavior_type probe(probe_actor::stateful_pointer<probe_state> self, core::target where,
                                 probe_deps deps, probe_registry_actor registry) {
  auto& st = self->state;
  st.where = std::move(where);
  st.deps = std::move(deps);
  st.registry = std::move(registry);
  self->delayed_send(self, st.deps.settings.idle, idle_atom::value);
  return {
    [=](info_atom, const core::target&) -> caf::typed_response_promise<core::info_reply> {
      auto& st = self->state;
      ++st.seen;
      st.active = true;
      auto promise = self->make_response_promise<core::info_reply>();
      st.info_waiters.push_back(promise);
      // Callers asking while a GET is in flight share its answer: one request per target at
      // a time, however many callers ask.
      if (st.info_waiters.size() == 1)
        with_memory(self, scheme_memory_on(st),
                    [=](core::target_memory recalled, bool) { start_info(self, std::move(recalled)); });
      return promise;
    },
    [=](raknet_atom, const core::target&,
        std::uint16_t port) -> caf::typed_response_promise<core::raknet_reply> {
      auto& st = self->state;
      ++st.seen;
      st.active = true;
      auto promise = self->make_response_promise<core::raknet_reply>();
      if (!st.deps.pinger) {
        promise.deliver(core::raknet_reply{});
        return promise;
      }
      // Callers asking while a ping to the port is in flight share its answer.
      auto& waiters = st.raknet_waiters[port];
      waiters.push_back(promise);
      if (waiters.size() == 1)
        start_raknet(self, port);
      return promise;
    },
    [=](raknet_atom, std::uint16_t port, core::raknet_reply& reply) {
      auto& st = self->state;
      auto i = st.raknet_waiters.find(port);
      if (i == st.raknet_waiters.end())
        return;
      auto waiters = std::move(i->second);
      st.raknet_waiters.erase(i);
      for (auto& waiter : waiters)
        waiter.deliver(reply);
    },
    [=](done_atom, core::info_reply& reply) {
      auto waiters = std::move(self->state.info_waiters);
      self->state.info_waiters.clear();
      for (auto& waiter : waiters)
        waiter.deliver(reply);
    },
    [=](offer_atom, const core::target&, std::string& network_id,
        bool probe) -> caf::typed_response_promise<core::offer_reply> {
      auto& st = self->state;
      ++st.seen;
      st.active = true;
      auto promise = self->make_response_promise<core::offer_reply>();
      // With checks in progress and no offer in flight, their answer is as fresh as any.
      if (probe && st.checking && st.offer_waiters.empty()) {
        st.reach_waiters.push_back(promise);
        return promise;
      }
      st.offer_waiters.push_back({promise, probe});
      if (st.offer_waiters.size() > 1)
        return promise;
      if (network_id.empty())
        network_id = core::random_network_id();
      // Offers always ask the memory: the identity key last seen is compared with the
      // answer's whatever the scheme.
      with_memory(self, true, [=](core::target_memory recalled, bool recalled_ok) {
        with_offer_identity(self, [=](offer_identity as) {
          start_offer(self, recalled, recalled_ok, network_id, std::move(as));
        });
      });
      return promise;
    },
    [=](answer_atom, core::offer_reply& reply, core::reach_plan& plan) {
      on_answer(self, std::move(reply), std::move(plan));
    },
    [=](reached_atom, core::offer_reply& reply) {
      auto& st = self->state;
      st.checking = false;
      auto waiters = std::move(st.reach_waiters);
      st.reach_waiters.clear();
      for (auto& waiter : waiters)
        waiter.deliver(reply);
    },
    [=](join_atom, const core::target&,
        core::join_order& order) -> caf::typed_response_promise<core::join_result> {
      auto& st = self->state;
      ++st.seen;
      st.active = true;
      auto promise = self->make_response_promise<core::join_result>();
      auto id = ++st.next_join;
      st.join_waiters.emplace(id, promise);
      if (order.network_id.empty())
        order.network_id = core::random_network_id();
      with_memory(self, true, [=](core::target_memory recalled, bool recalled_ok) {
        with_offer_identity(self, [=](offer_identity as) {
          start_join(self, id, recalled, recalled_ok, order, std::move(as));
        });
      });
      return promise;
    },
    [=](joined_atom, std::uint64_t id, core::join_result& result) {
      auto& waiters = self->state.join_waiters;
      auto i = waiters.find(id);
      if (i == waiters.end())
        return;
      auto promise = std::move(i->second);
      waiters.erase(i);
      if (result.error.ok())
        if (auto outcome = core::join_outcome_from_name(result.outcome))
          core::process_telemetry().count_join(*outcome, report::join_timing_ms(result.body, "totalMs"));
      promise.deliver(std::move(result));
    },
    [=](idle_atom) {
      auto& st = self->state;
      if (!st.active && st.info_waiters.empty() && st.offer_waiters.empty() && !st.checking
          && st.raknet_waiters.empty() && st.join_waiters.empty())
        self->send(st.registry, idle_atom::value, caf::actor_cast<probe_actor>(self), st.seen);
      st.active = false;
      self->delayed_send(self, st.deps.settings.idle, idle_atom::value);
    },
    [=](stop_atom) { self->quit(); },
  };
}

} // namespace netherscope::actors
