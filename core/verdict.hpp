// GET /api/check: one verdict on whether players can join a server, with its reasons and the
// next steps in plain words, from the status call and the probed offer. Pure functions: the
// front actor runs the calls and hands their replies here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include "core/failure.hpp"
#include "core/results.hpp"
#include "core/target.hpp"

namespace netherscope::core {

/// The verdicts, from best to worst news.
enum class verdict_kind : std::uint8_t {
  /// A player's connection reached the game (the check's join got NetworkSettings); without
  /// a join (none could run), a UDP candidate answered a connectivity check.
  joinable,
  /// The join reached the game, which turned the player away as of another version
  /// (PlayStatus 1 or 2).
  version_mismatch,
  /// The join failed at a stage between ICE and the game.
  join_failed,
  /// The signalling port answers, but no UDP candidate did (closed firewall, wrong port,
  /// something else on the port, or no usable answer to the offer).
  signalling_only,
  /// The answer's UDP candidates are all private or otherwise not public, and none could be
  /// checked from here.
  private_candidates,
  /// The answer has no UDP candidate: the server's UDP port pool is drained or its ports unset.
  no_candidates,
  /// The server speaks NetherNet and refused our offer's identity the way servers that admit
  /// only players signed in to Xbox Live (online mode) refuse every offer that is not.
  auth_required,
  /// The server refused our offer the same way although it carried a genuine Xbox sign-in
  /// (the linked account's GameServerToken): the account is not allowed on the server, which
  /// most often means an allowlist without its gamertag.
  not_allowed,
  /// RakNet status answers on UDP, and NetherNet signalling (GET /v1/join) does not.
  raknet_only,
  /// The server rejected our offer (another NetherNet error code, or an HTTP error).
  refused,
  /// Neither transport answered (or NetherNet did not and RakNet was not asked).
  offline,
};

/// The verdict as the API writes it: "joinable", "signalling_only", ...
std::string_view to_string(verdict_kind kind);

/// What the service learnt about one candidate, as the offer reply reports it.
struct candidate_fact {
  std::string address;
  std::uint16_t port = 0;
  /// UDP on component 1: what players use.
  bool for_players = false;
  /// The address's scope ("public", "private", "loopback", ...).
  std::string scope;
  /// -1 unchecked, 0 not reachable, 1 reachable.
  int reachable = -1;
  double rtt_ms = -1;
  /// Why it was not checked ("policy", "limit", "not_udp", "not_ip"), or empty.
  std::string refused;
  /// How its check ended ("timeout", "integrity", "error_response", ...), or empty.
  std::string check_result;
};

/// Everything the verdict rests on.
/// One candidate as the check's join tried it.
struct join_try {
  std::string candidate;
  std::string remote;
  bool answered = false;
  unsigned checked_us = 0;
  /// Answers whose MESSAGE-INTEGRITY did not verify: something else answers on the port.
  unsigned bad_integrity = 0;
  double rtt_ms = -1;
};

/// What the check's join (POST /api/join's object) says, read from its reply.
struct join_facts {
  /// A join ran (it does once signalling gave an answer); false decides as before joins.
  bool present = false;
  bool joined = false;
  std::string outcome;
  std::string stage;
  std::string reason;
  std::int64_t sent = -1;
  std::int64_t server_protocol = -1;
  std::string server_version;
  std::vector<join_try> tried;
  /// The pair that worked, "address:port"; empty when none did.
  std::string pair_remote;
  double total_ms = -1;
};

/// The facts of a join object (net/report/join_reply's).
join_facts join_facts_of(const boost::json::object& join);

struct check_facts {
  core::target where;
  /// The join the check made with its offer.
  join_facts join;
  /// The status call's error (none when it answered 2xx).
  core::failure info_error;
  /// The probed offer's error (none when it gave a valid answer).
  core::failure offer_error;
  /// Whether the offer was sent at all (it is not when the status call could not connect).
  bool offer_tried = true;
  std::vector<candidate_fact> candidates;
  /// The RakNet status (tried false when the call did not ping).
  core::raknet_reply raknet;
  /// The gamertag the offer was signed in as; empty when it went self-signed.
  std::string offered_as;
  /// Whether it went self-signed because the service's linked Xbox account failed to sign in.
  bool link_failing = false;
};

/// What a refused offer's reply says about the refusal (docs/PROTOCOL.md, "Refusals of an
/// anonymous offer").
enum class refusal_kind : std::uint8_t {
  /// No refusal: an answer, or a failure without a reply (a timeout, a reset).
  none,
  /// The shapes of a server that admits only players signed in to Xbox Live: NetherNet error
  /// 37 (bare, or in go-nethernet's sentence), Pumpkin's "SDP offer is missing its identity
  /// assertion", "invalid GameServerToken: ..." and "invalid identity provider", or HTTP 401.
  auth_required,
  /// A fault the server found in the identity our offer carries (Pumpkin's "identity token
  /// has expired", "fingerprint signature verification failed", "invalid identity public
  /// key: ...", "malformed JWS", ...): ours to fix, not the server's policy.
  our_identity,
  /// Any other refusal: another NetherNet error code, another status or text.
  other,
};

/// Reads a refused offer's reply: its NetherNet error code, HTTP status and body.
refusal_kind classify_refusal(const core::failure& offer_error);

/// The verdict with its reasons and next steps, each a sentence.
struct check_verdict {
  verdict_kind kind = verdict_kind::offline;
  std::vector<std::string> reasons;
  std::vector<std::string> next_steps;
};

/// Reads the candidates of a probed offer reply's body (the fields with_reachability adds);
/// a body that is not JSON gives none.
std::vector<candidate_fact> candidate_facts(const std::string& offer_body);

/// The candidates with what the check's join saw of each: reachable when it answered our
/// checks, unreachable when it did not, and for a player candidate the join did not try (the
/// address policy, or past the eight pairs), refused as the probe would name it. Without a
/// join, the candidates as the probe checked them.
std::vector<candidate_fact> with_join_reach(const check_facts& facts);

/// Decides the verdict. A join that got past signalling decides first: joined: joinable; an
/// outdated client or server: version_mismatch; else join_failed. Without one, in order: the
/// offer
/// gave a valid answer and a player-usable
/// candidate answered its check: joinable; a valid answer without UDP candidates on
/// component 1: no_candidates; one whose player candidates were checked and none answered:
/// signalling_only; one whose player candidates are all non-public and were refused by the
/// address policy: private_candidates; any other valid answer: signalling_only. Without a
/// valid answer: a refusal in an online-mode shape: auth_required; the status call did not
/// answer 2xx and RakNet answered: raknet_only; another refusal (a NetherNet error code or an
/// HTTP error status): refused; the status call or the offer could not connect, the status
/// call failed too, and RakNet did not answer: offline; else signalling_only. Every sentence
/// says only what the replies show.
check_verdict decide(const check_facts& facts);

/// Whether an error from the status call or the offer is about the target (the verdict
/// reports it) rather than about the call itself (a refused target, a quota, the service
/// failing), which the caller gets as an error instead of a verdict.
bool is_target_failure(const core::failure& error);

/// Renders GET /api/check's body: {ok, host, port, verdict, reasons, nextSteps, info,
/// infoError, offer, offerError, raknet, clients}: info and offer are the two calls' reply
/// bodies (null when they failed or were not made), infoError and offerError their error bodies
/// (null when none), raknet the RakNet status of facts.raknet (null when it was not tried), and
/// clients the client versions that reach the server over what answered (core/clients),
/// and join the join made with the offer (POST /api/join's object; null when none was).
std::string render_check(const check_facts& facts, const check_verdict& verdict,
                         const core::info_reply& info, const core::offer_reply& offer,
                         const boost::json::object* join = nullptr);

} // namespace netherscope::core
