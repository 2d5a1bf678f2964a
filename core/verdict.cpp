#include "core/verdict.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "core/explain.hpp"
#include "core/host_port.hpp"
#include "base/ip_text.hpp"
#include "base/json_access.hpp"
#include "base/text.hpp"
#include "core/clients.hpp"
#include "core/status.hpp"

namespace netherscope::core {

namespace json = boost::json;

namespace {

/// NetherNet error 37, IdentityVerificationFailed: the code go-nethernet and BDS refuse an
/// identity with (docs/PROTOCOL.md, "Refusals of an anonymous offer").
constexpr std::int32_t identity_verification_failed = 37;

/// Pumpkin's refusals in online mode (an offer without an identity, a token that is no Xbox
/// GameServerToken, an identity provider it does not take).
constexpr std::array<std::string_view, 3> online_mode_refusals = {
  "SDP offer is missing its identity assertion", "invalid GameServerToken:",
  "invalid identity provider"};

/// Pumpkin's refusals of an identity that is broken whatever the server's mode: faults in what
/// our offer carries. "invalid identity provider" is matched before these.
constexpr std::array<std::string_view, 10> identity_faults = {
  "identity token has expired", "identity token has no expiration", "malformed identity token",
  "invalid identity ", "invalid nested identity assertion", "identity assertion is missing",
  "identity token is missing", "fingerprint ", "malformed JWS", "invalid ES384 signature"};

/// Docker's default bridge networks lie in 172.16.0.0/12 (172.17.0.0/16 first): an answer
/// advertising one of these almost always comes from a server in a container.
bool looks_like_container(const std::string& address) {
  auto b = base::ipv4_bytes(address);
  return b && (*b)[0] == 172 && (*b)[1] >= 16 && (*b)[1] <= 31;
}

std::string endpoint_text(const candidate_fact& c) {
  return core::host_for_url(c.address) + ":" + std::to_string(c.port);
}

/// "19132", or "19132-19133" for a span, or "19132, 19140" for ports far apart.
std::string port_text(std::set<std::uint16_t> ports) {
  if (ports.empty())
    return {};
  auto lo = *ports.begin();
  auto hi = *ports.rbegin();
  if (lo == hi)
    return std::to_string(lo);
  // Ports close together come from one server-udp-ports range, whose other ports the next
  // players get: name the span. 64 is wider than any default range.
  if (hi - lo <= 64)
    return std::to_string(lo) + "-" + std::to_string(hi);
  std::string out;
  for (auto p : ports)
    out += (out.empty() ? "" : ", ") + std::to_string(p);
  return out;
}

std::string ms_text(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f ms", ms);
  return buffer;
}

/// The next step for a non-public player candidate, once per address.
void private_steps(const std::vector<candidate_fact>& players, check_verdict& out) {
  std::set<std::string> said;
  for (const auto& c : players) {
    if (c.scope == "public" || !said.insert(c.address).second)
      continue;
    if (looks_like_container(c.address)) {
      out.next_steps.push_back("The answer advertises " + c.address
                               + ": map the container's UDP ports (for example -p "
                               + std::to_string(c.port) + ":" + std::to_string(c.port)
                               + "/udp) or run it with host networking, and let the server "
                                 "advertise the host's public address.");
    } else if (c.scope == "private" || c.scope == "cgnat") {
      out.next_steps.push_back("The answer advertises " + c.address + ", a " + c.scope
                               + " address: forward UDP " + std::to_string(c.port)
                               + " to it in the router, and make the server advertise the "
                                 "public address players reach.");
    } else {
      out.next_steps.push_back("The answer advertises " + c.address + ", a " + c.scope
                               + " address players elsewhere cannot use: give the server a "
                                 "public address or forward its UDP ports to it.");
    }
  }
}

/// "1.26.51 (protocol 2193)", or what of it the server's status named.
std::string server_version_text(const join_facts& j) {
  if (j.server_protocol < 0)
    return j.server_version.empty() ? std::string{} : j.server_version;
  return (j.server_version.empty() ? std::string{} : j.server_version + " ")
         + "(protocol " + std::to_string(j.server_protocol) + ")";
}

void decide_version_mismatch(const check_facts& facts, check_verdict& out) {
  const auto& j = facts.join;
  out.kind = verdict_kind::version_mismatch;
  auto server = server_version_text(j);
  if (j.outcome == "outdated_server") {
    out.reasons.push_back("A player's connection reached the game, which turned it away as "
                          "too new: the server answered RequestNetworkSettings for protocol "
                          + std::to_string(j.sent) + " with PlayStatus 2 (the server is "
                                                     "outdated).");
    out.next_steps.push_back("Update the server to the version players run: clients of "
                             "protocol " + std::to_string(j.sent) + " cannot join it.");
  } else {
    out.reasons.push_back("A player's connection reached the game, which turned it away as "
                          "too old: the server answered RequestNetworkSettings for protocol "
                          + std::to_string(j.sent) + " with PlayStatus 1 (the client is "
                                                     "outdated).");
    out.next_steps.push_back("Players need the server's version" + (server.empty() ? std::string{}
                             : " (" + server + ")") + ": update the game.");
  }
  if (!server.empty())
    out.reasons.push_back("The server's status names " + server + ".");
}

void decide_join_failed(const check_facts& facts, check_verdict& out) {
  const auto& j = facts.join;
  out.kind = verdict_kind::join_failed;
  out.reasons.push_back("A player's connection failed at " + j.stage + ": " + j.reason);
  if (j.stage == "ice") {
    std::set<std::uint16_t> ports;
    bool wrong_integrity = false;
    for (const auto& t : j.tried) {
      if (t.bad_integrity > 0 && !t.answered) {
        wrong_integrity = true;
        out.reasons.push_back("UDP " + t.remote + " answered, but not with the credentials of "
                              "this answer: something else answers on that port.");
      } else {
        out.reasons.push_back("UDP " + t.remote
                              + (t.answered ? " answered our checks" : " did not answer our checks")
                              + (t.checked_us > 0 ? ", and checked us." : ", and never checked us."));
      }
      auto colon = t.remote.rfind(':');
      if (colon != std::string::npos)
        ports.insert(static_cast<std::uint16_t>(std::atoi(t.remote.c_str() + colon + 1)));
    }
    if (wrong_integrity)
      out.next_steps.push_back("Make sure no other program or server instance uses UDP "
                               + port_text(ports) + ", and that a port forward leads to this "
                                                    "server.");
    if (!ports.empty())
      out.next_steps.push_back("Open UDP " + port_text(ports) + " in the firewall both ways, "
                               "and forward it to the server if it is behind NAT.");
  } else {
    // At ICE the steps above say it with the ports; past it the outcome's own checks do.
    for (const auto& step : core::explanation_checks(j.outcome))
      out.next_steps.push_back(step);
  }
  out.next_steps.push_back("What " + j.outcome + " means: /api/explain/" + j.outcome + ".");
}

/// The verdict of the check's join, when it says more than the candidates can: true when it
/// decided. A join that ended at signalling (no answer, no candidate it may try) leaves the
/// verdict to the offer's error or its candidates, as before joins.
bool decide_by_join(const check_facts& facts, check_verdict& out) {
  const auto& j = facts.join;
  static constexpr std::array<std::string_view, 5> past_signalling{"ice", "dtls", "sctp",
                                                                    "channels", "game"};
  if (!j.present
      || std::find(past_signalling.begin(), past_signalling.end(), j.stage) == past_signalling.end())
    return false;
  if (j.joined) {
    out.kind = verdict_kind::joinable;
    out.reasons.push_back("A player's connection reached the game through UDP " + j.pair_remote
                          + ": ICE both ways, DTLS with the answer's certificate, SCTP, both "
                            "data channels, and the server's network settings, in "
                          + ms_text(j.total_ms) + ".");
    auto players = with_join_reach(facts);
    for (const auto& c : players) {
      if (endpoint_text(c) != j.pair_remote || c.scope == "public")
        continue;
      out.reasons.push_back("That pair has a " + c.scope + " address: it worked because this "
                            "service may reach that range, but players elsewhere cannot use it.");
      std::vector<candidate_fact> only{c};
      private_steps(only, out);
    }
    return true;
  }
  if (j.outcome == "outdated_client" || j.outcome == "outdated_server") {
    decide_version_mismatch(facts, out);
    return true;
  }
  decide_join_failed(facts, out);
  return true;
}

/// A valid answer: decided by its candidates.
void decide_by_candidates(const check_facts& facts, check_verdict& out) {
  std::vector<candidate_fact> players;
  for (const auto& c : with_join_reach(facts))
    if (c.for_players)
      players.push_back(c);

  if (players.empty()) {
    out.kind = verdict_kind::no_candidates;
    out.reasons.push_back(facts.candidates.empty()
                            ? "The server answered our offer without any candidate: it had no "
                              "UDP port to give this connection."
                            : "The server answered our offer without a UDP candidate; players "
                              "connect over UDP only.");
    out.next_steps.push_back("Check server-udp-ports (or the server's port range): each "
                             "joining player needs a free UDP port from it. A drained pool "
                             "refills when sessions end or the server restarts; widen the "
                             "range if it runs dry.");
    return;
  }

  std::vector<candidate_fact> reachable;
  std::vector<candidate_fact> checked;
  for (const auto& c : players) {
    if (c.reachable == 1)
      reachable.push_back(c);
    if (c.reachable >= 0)
      checked.push_back(c);
  }

  if (!reachable.empty()) {
    out.kind = verdict_kind::joinable;
    bool any_public = false;
    for (const auto& c : reachable) {
      out.reasons.push_back("UDP " + endpoint_text(c) + " answered a connectivity check with "
                            "the right credentials in " + ms_text(c.rtt_ms) + ".");
      any_public = any_public || c.scope == "public";
    }
    if (!any_public) {
      out.reasons.push_back("Every candidate that answered has a " + reachable.front().scope
                            + " address: it answered because this service may reach that "
                              "range, but players elsewhere cannot use it.");
      private_steps(players, out);
    }
    return;
  }

  if (!checked.empty()) {
    out.kind = verdict_kind::signalling_only;
    std::set<std::uint16_t> ports;
    bool wrong_integrity = false;
    for (const auto& c : checked) {
      ports.insert(c.port);
      if (c.check_result == "integrity") {
        wrong_integrity = true;
        out.reasons.push_back("UDP " + endpoint_text(c) + " answered, but not with the "
                              "credentials of this answer: something else answers on that "
                              "port.");
      } else if (c.check_result == "error_response") {
        out.reasons.push_back("UDP " + endpoint_text(c) + " refused the connectivity check "
                              "with a STUN error.");
      } else {
        out.reasons.push_back("UDP " + endpoint_text(c) + " did not answer a connectivity "
                              "check within 1.5 s.");
      }
    }
    out.reasons.insert(out.reasons.begin(),
                       "The signalling port answers, but none of the UDP candidates did.");
    if (wrong_integrity)
      out.next_steps.push_back("Make sure no other program or server instance uses UDP "
                               + port_text(ports) + ", and that a port forward leads to this "
                                                    "server.");
    out.next_steps.push_back("Open UDP " + port_text(ports)
                             + " in the firewall, and forward it to the server if it is "
                               "behind NAT.");
    private_steps(players, out);
    return;
  }

  bool all_private = std::all_of(players.begin(), players.end(), [](const candidate_fact& c) {
    return c.scope != "public" && c.refused == "policy";
  });
  if (all_private) {
    out.kind = verdict_kind::private_candidates;
    std::string list;
    for (const auto& c : players)
      list += (list.empty() ? "" : ", ") + c.address + " (" + c.scope + ")";
    out.reasons.push_back("The answer advertises only addresses players elsewhere cannot "
                          "reach: " + list + ".");
    private_steps(players, out);
    return;
  }

  out.kind = verdict_kind::signalling_only;
  out.reasons.push_back("The signalling port answers, but none of the UDP candidates could be "
                        "checked from here.");
  for (const auto& c : players)
    if (!c.refused.empty())
      out.reasons.push_back("UDP " + endpoint_text(c) + " was not checked (" + c.refused + ").");
  private_steps(players, out);
}

/// "host:port" of the signalling port (TCP).
std::string signalling_text(const check_facts& facts) {
  return core::host_for_url(facts.where.host) + ":" + std::to_string(facts.where.port);
}

bool raknet_answered(const check_facts& facts) {
  return facts.raknet.tried && facts.raknet.ok;
}

/// "RakNet status answered on UDP 19132 in 12.5 ms: \"My Server\", protocol 2193 (1.26.51)."
std::string raknet_answer_text(const check_facts& facts) {
  const auto& r = facts.raknet;
  std::string out = "RakNet status answered on UDP " + std::to_string(r.port) + " in "
                    + ms_text(r.latency_ms);
  std::string details;
  if (!r.motd.empty())
    details = "\"" + r.motd + "\"";
  if (r.protocol >= 0)
    details += (details.empty() ? "" : ", ") + std::string{"protocol "} + std::to_string(r.protocol)
               + (r.version.empty() ? "" : " (" + r.version + ")");
  else if (!r.version.empty())
    details += (details.empty() ? "" : ", ") + std::string{"version "} + r.version;
  return out + (details.empty() ? "." : ": " + details + ".");
}

/// The reason that RakNet answered too, for verdicts about NetherNet.
void note_raknet(const check_facts& facts, check_verdict& out) {
  if (raknet_answered(facts))
    out.reasons.push_back(raknet_answer_text(facts));
}

/// How the offer was refused, in words: "NetherNet error 37 (IdentityVerificationFailed)" or
/// "HTTP 400 \"SDP offer is missing its identity assertion\"".
std::string refusal_text(const core::failure& offer) {
  if (offer.nethernet_error >= 0)
    return "NetherNet error " + std::to_string(offer.nethernet_error)
           + (offer.reason.empty() ? "" : " (" + offer.reason + ")");
  auto body = base::trim(offer.body, " \t\r\n");
  std::string out = "HTTP " + std::to_string(offer.http_status);
  if (body.empty())
    return out + " and an empty body";
  auto quoted = core::fit_for_json(body, 160);
  return out + " \"" + quoted.text + (quoted.truncated ? "...\"" : "\"");
}

/// The sentence every verdict without an SDP answer shares: what the reply does not show.
constexpr std::string_view no_answer_note =
  "The reply holds no SDP answer, so it shows no candidates, and the UDP ports players would "
  "use were not checked.";

void decide_auth_required(const check_facts& facts, check_verdict& out) {
  out.kind = verdict_kind::auth_required;
  if (facts.info_error.ok())
    out.reasons.push_back("NetherNet signalling answers on " + signalling_text(facts)
                          + " (GET /v1/join answered).");
  out.reasons.push_back("The server refused our offer with " + refusal_text(facts.offer_error)
                        + ": the refusal of a server that admits only players signed in to Xbox "
                          "Live (online mode). Our offer carries a self-signed identity, as a "
                          "client that is not signed in would.");
  if (facts.link_failing)
    out.reasons.push_back("This service has an Xbox account linked to check such servers as a "
                          "signed-in player, but its sign-in is failing, so the offer went "
                          "self-signed; that is for the service's operator to fix, not the "
                          "server's owner.");
  out.reasons.emplace_back(no_answer_note);
  note_raknet(facts, out);
  out.next_steps.push_back("Nothing to change if the server is meant for players signed in to "
                           "Xbox Live: BDS's online-mode=true, its default, refuses every offer "
                           "without an Xbox sign-in, and so do other servers in online mode.");
  out.next_steps.push_back("To test the UDP ports players use, join with a signed-in client: "
                           "this server gives an anonymous check no SDP answer, so the check "
                           "cannot see where players would connect.");
}

void decide_not_allowed(const check_facts& facts, check_verdict& out) {
  out.kind = verdict_kind::not_allowed;
  if (facts.info_error.ok())
    out.reasons.push_back("NetherNet signalling answers on " + signalling_text(facts)
                          + " (GET /v1/join answered).");
  out.reasons.push_back("The server refused our offer with " + refusal_text(facts.offer_error)
                        + " although it carried a genuine Xbox sign-in, as "
                        + facts.offered_as + ": the server turned away a signed-in player.");
  out.reasons.emplace_back(no_answer_note);
  note_raknet(facts, out);
  out.next_steps.push_back("Is " + facts.offered_as
                           + " on the server's allowlist? A server with allow-list=true admits "
                             "only the players listed in its allowlist.json.");
  out.next_steps.push_back("If the account should be admitted, check that the server has not "
                           "banned it, and that its Xbox account may play online.");
}

void decide_raknet_only(const check_facts& facts, check_verdict& out) {
  out.kind = verdict_kind::raknet_only;
  const auto& info = facts.info_error;
  if (info.code == core::error_code::upstream_status)
    out.reasons.push_back("NetherNet signalling does not answer on " + signalling_text(facts)
                          + ": GET /v1/join got HTTP " + std::to_string(info.http_status)
                          + ", and clients take only a 2xx as NetherNet.");
  else
    out.reasons.push_back("Nothing answered NetherNet signalling (HTTP or HTTPS) on "
                          + signalling_text(facts) + ": " + info.message);
  out.reasons.push_back(raknet_answer_text(facts));
  out.reasons.push_back("Clients before 1.26.30 join only over RakNet, and clients from 1.26.30 "
                        "fall back to RakNet when /v1/join does not answer; clients later than "
                        "1.26.51 are reported to have no RakNet (1.26.60 is named). \"clients\" "
                        "lists each range with its evidence.");
  out.reasons.push_back("A RakNet pong shows that the server is up; it does not prove that RakNet "
                        "joins work (Pumpkin answers pings without a RakNet game transport).");
  out.next_steps.push_back("To let clients that have only NetherNet join: on BDS 1.26.50 or "
                           "later, set transport=nethernet in server.properties, then open TCP "
                           + std::to_string(facts.where.port)
                           + " for signalling and the UDP ports of server-udp-ports for play. "
                             "BDS runs one transport at a time, so RakNet clients can then no "
                             "longer join.");
  out.next_steps.push_back("On other server software (Geyser, PocketMine-MP, Nukkit, dragonfly), "
                           "see whether it offers NetherNet; some run both transports at once.");
}

void decide_refused(const check_facts& facts, refusal_kind kind, check_verdict& out) {
  const auto& offer = facts.offer_error;
  out.kind = verdict_kind::refused;
  if (kind == refusal_kind::our_identity) {
    out.reasons.push_back("The server refused the identity our offer carries, with "
                          + refusal_text(offer)
                          + ": a fault it found in this service's offer, not a setting of the "
                            "server.");
  } else if (offer.nethernet_error >= 0) {
    out.reasons.push_back("The server rejected our offer with NetherNet error "
                          + std::to_string(offer.nethernet_error)
                          + (offer.reason.empty() ? "" : " (" + offer.reason + ")") + ".");
  } else if (offer.http_status == 403) {
    out.reasons.push_back("The server answered our offer with HTTP 403: a policy of the server "
                          "(or of a proxy in front of it) turned this client away.");
  } else {
    out.reasons.push_back("The server answered our offer with " + refusal_text(offer)
                          + " instead of an SDP answer.");
  }
  out.reasons.emplace_back(no_answer_note);
  note_raknet(facts, out);
  if (kind == refusal_kind::our_identity) {
    out.next_steps.push_back("Nothing to change on the server for this: report the check (the "
                             "host, the time and this reply) to this service's operators, so "
                             "that its offer can be fixed.");
    return;
  }
  out.next_steps.push_back("Look for this offer in the server's log at the time of the check: "
                           "it says why the server turned it down.");
  if (auto path = core::explanation_path(offer.nethernet_error); !path.empty())
    out.next_steps.push_back("What NetherNet error " + std::to_string(offer.nethernet_error)
                             + " means, and what usually causes it: " + path + ".");
}

void decide_offline(const check_facts& facts, check_verdict& out) {
  out.kind = verdict_kind::offline;
  const auto port = std::to_string(facts.where.port);
  out.reasons.push_back("Nothing answered NetherNet signalling (HTTP or HTTPS) on "
                        + signalling_text(facts) + ": " + facts.info_error.message);
  const auto& r = facts.raknet;
  if (r.tried) {
    if (r.code == "no_listener")
      out.reasons.push_back("Nothing listens on UDP " + std::to_string(r.port)
                            + ": the host answered our RakNet ping with ICMP port unreachable, "
                              "so the host is up but no RakNet server is on that port.");
    else
      out.reasons.push_back("RakNet status did not answer: " + r.message);
  }
  out.next_steps.push_back("Check that the server is running and that " + port
                           + " is its port.");
  if (r.tried && r.port != 0)
    out.next_steps.push_back("Open TCP " + port + " (NetherNet signalling) and UDP "
                             + std::to_string(r.port)
                             + " (RakNet) in the firewall, and forward them to the server if it "
                               "is behind NAT.");
  else
    out.next_steps.push_back("Open TCP " + port
                             + " in the firewall, and forward it to the server if it is behind "
                               "NAT.");
}

/// No valid answer: decided by the errors.
void decide_by_errors(const check_facts& facts, check_verdict& out) {
  const auto& offer = facts.offer_error;
  auto refusal = facts.offer_tried ? classify_refusal(offer) : refusal_kind::none;
  if (refusal == refusal_kind::auth_required)
    return facts.offered_as.empty() ? decide_auth_required(facts, out)
                                    : decide_not_allowed(facts, out);
  if (!facts.info_error.ok() && raknet_answered(facts))
    return decide_raknet_only(facts, out);
  if (refusal != refusal_kind::none)
    return decide_refused(facts, refusal, out);
  auto unreachable = [](const core::failure& f) {
    return f.code == core::error_code::upstream_failure || f.code == core::error_code::upstream_timeout;
  };
  if (unreachable(facts.info_error) && (!facts.offer_tried || unreachable(offer)))
    return decide_offline(facts, out);
  out.kind = verdict_kind::signalling_only;
  out.reasons.push_back(facts.info_error.ok()
                          ? "The signalling port answers the status request, but our offer got "
                            "no usable answer: " + offer.message
                          : "Our offer got no usable answer: " + offer.message);
  out.reasons.emplace_back(no_answer_note);
  note_raknet(facts, out);
  out.next_steps.push_back("Check the server's log for the offer; a server that takes longer "
                           "than the answer deadline to prepare its answer (BDS first gathers "
                           "every address it has) times out here.");
}

int reachable_of(const json::value* v) {
  if (v == nullptr || !v->is_bool())
    return -1;
  return v->as_bool() ? 1 : 0;
}

/// A count as the join object writes it (an unsigned number), bounded; 0 when absent.
unsigned count_of(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  if (v == nullptr || !(v->is_int64() || v->is_uint64()))
    return 0;
  auto n = v->is_uint64() ? v->as_uint64() : static_cast<std::uint64_t>(std::max<std::int64_t>(v->as_int64(), 0));
  return static_cast<unsigned>(std::min<std::uint64_t>(n, 1u << 20));
}

std::string string_of(const json::object& o, std::string_view key) {
  auto* s = base::string_at(o, key);
  return s ? std::string{base::view(*s)} : std::string{};
}

} // namespace

std::vector<candidate_fact> with_join_reach(const check_facts& facts) {
  auto out = facts.candidates;
  if (!facts.join.present)
    return out;
  for (auto& c : out) {
    if (!c.for_players || c.reachable >= 0)
      continue;
    auto at = endpoint_text(c);
    auto t = std::find_if(facts.join.tried.begin(), facts.join.tried.end(),
                          [&](const join_try& j) { return j.remote == at; });
    if (t == facts.join.tried.end()) {
      c.refused = c.scope == "public" ? "limit" : "policy";
      continue;
    }
    c.reachable = t->answered ? 1 : 0;
    c.rtt_ms = t->rtt_ms;
    c.check_result = t->answered ? "reachable" : "timeout";
  }
  return out;
}

join_facts join_facts_of(const json::object& join) {
  join_facts j;
  j.present = true;
  auto* joined = join.if_contains("joined");
  j.joined = joined != nullptr && joined->is_bool() && joined->as_bool();
  j.outcome = string_of(join, "outcome");
  j.stage = string_of(join, "stage");
  j.reason = string_of(join, "reason");
  if (auto* p = join.if_contains("protocol"); p && p->is_object()) {
    const auto& o = p->as_object();
    if (auto* v = o.if_contains("sent"); v && (v->is_int64() || v->is_uint64()))
      j.sent = v->to_number<std::int64_t>();
    if (auto* v = o.if_contains("server"); v && (v->is_int64() || v->is_uint64()))
      j.server_protocol = v->to_number<std::int64_t>();
    j.server_version = string_of(o, "version");
  }
  if (auto* tried = join.if_contains("tried"); tried && tried->is_array()) {
    for (const auto& v : tried->as_array()) {
      if (!v.is_object())
        continue;
      const auto& o = v.as_object();
      join_try t;
      t.candidate = string_of(o, "candidate");
      t.remote = string_of(o, "remote");
      auto* answered = o.if_contains("answered");
      t.answered = answered && answered->is_bool() && answered->as_bool();
      t.checked_us = count_of(o, "checkedUs");
      t.bad_integrity = count_of(o, "badIntegrity");
      if (auto* r = o.if_contains("rttMs"); r && r->is_number())
        t.rtt_ms = r->to_number<double>();
      j.tried.push_back(std::move(t));
    }
  }
  if (auto* pair = join.if_contains("pair"); pair && pair->is_object())
    j.pair_remote = string_of(pair->as_object(), "remote");
  if (auto* t = join.if_contains("timings"); t && t->is_object())
    if (auto* total = t->as_object().if_contains("totalMs"); total && total->is_number())
      j.total_ms = total->to_number<double>();
  return j;
}

std::string_view to_string(verdict_kind kind) {
  switch (kind) {
    case verdict_kind::joinable:
      return "joinable";
    case verdict_kind::signalling_only:
      return "signalling_only";
    case verdict_kind::private_candidates:
      return "private_candidates";
    case verdict_kind::no_candidates:
      return "no_candidates";
    case verdict_kind::auth_required:
      return "auth_required";
    case verdict_kind::not_allowed:
      return "not_allowed";
    case verdict_kind::raknet_only:
      return "raknet_only";
    case verdict_kind::refused:
      return "refused";
    case verdict_kind::offline:
      return "offline";
    case verdict_kind::version_mismatch:
      return "version_mismatch";
    case verdict_kind::join_failed:
      return "join_failed";
  }
  return "offline";
}

std::vector<candidate_fact> candidate_facts(const std::string& offer_body) {
  std::vector<candidate_fact> out;
  auto body = base::parse_object(offer_body);
  if (!body)
    return out;
  auto* items = body->if_contains("candidates");
  if (items == nullptr || !items->is_array())
    return out;
  for (const auto& item : items->as_array()) {
    if (!item.is_object())
      continue;
    const auto& o = item.as_object();
    candidate_fact c;
    c.address = string_of(o, "address");
    if (auto* port = o.if_contains("port"); port && port->is_int64())
      c.port = static_cast<std::uint16_t>(port->as_int64());
    c.for_players = string_of(o, "transport") == "udp" && o.if_contains("component")
                    && o.at("component").is_int64() && o.at("component").as_int64() == 1;
    c.scope = string_of(o, "scope");
    c.reachable = reachable_of(o.if_contains("reachable"));
    if (auto* rtt = o.if_contains("rttMs"); rtt && rtt->is_number())
      c.rtt_ms = rtt->to_number<double>();
    c.refused = string_of(o, "refused");
    c.check_result = string_of(o, "checkResult");
    out.push_back(std::move(c));
  }
  return out;
}

refusal_kind classify_refusal(const core::failure& offer_error) {
  if (offer_error.code != core::error_code::upstream_status)
    return refusal_kind::none;
  if (offer_error.nethernet_error == identity_verification_failed)
    return refusal_kind::auth_required;
  if (offer_error.nethernet_error >= 0)
    return refusal_kind::other;
  if (offer_error.http_status == 401)
    return refusal_kind::auth_required;
  auto body = base::trim(offer_error.body, " \t\r\n");
  auto starts = [&body](std::string_view prefix) { return body.substr(0, prefix.size()) == prefix; };
  for (auto prefix : online_mode_refusals)
    if (starts(prefix))
      return refusal_kind::auth_required;
  for (auto prefix : identity_faults)
    if (starts(prefix))
      return refusal_kind::our_identity;
  return refusal_kind::other;
}

check_verdict decide(const check_facts& facts) {
  check_verdict out;
  if (facts.offer_tried && facts.offer_error.ok() && decide_by_join(facts, out)) {
    note_raknet(facts, out);
    return out;
  }
  if (facts.offer_tried && facts.offer_error.ok()) {
    decide_by_candidates(facts, out);
    note_raknet(facts, out);
  } else {
    decide_by_errors(facts, out);
  }
  return out;
}

bool is_target_failure(const core::failure& error) {
  switch (error.code) {
    case core::error_code::none:
    case core::error_code::upstream_status:
    case core::error_code::upstream_failure:
    case core::error_code::upstream_invalid_answer:
    case core::error_code::upstream_timeout:
      return true;
    default:
      return false;
  }
}

std::string render_check(const check_facts& facts, const check_verdict& verdict,
                         const core::info_reply& info, const core::offer_reply& offer,
                         const json::object* join) {
  json::object body;
  body["ok"] = true;
  body["host"] = facts.where.host;
  body["port"] = facts.where.port;
  body["verdict"] = to_string(verdict.kind);
  json::array reasons;
  for (const auto& r : verdict.reasons)
    reasons.emplace_back(core::valid_utf8(r));
  body["reasons"] = std::move(reasons);
  json::array steps;
  for (const auto& s : verdict.next_steps)
    steps.emplace_back(core::valid_utf8(s));
  body["nextSteps"] = std::move(steps);
  body["info"] = info.error.ok() ? json_or_null(info.body) : json::value(nullptr);
  body["infoError"] = info.error.ok() ? json::value(nullptr)
                                      : json_or_null(core::render_error(info.error));
  body["offer"] = facts.offer_tried && offer.error.ok() ? json_or_null(offer.body)
                                                        : json::value(nullptr);
  body["offerError"] = facts.offer_tried && !offer.error.ok()
                         ? json_or_null(render_error(offer.error))
                         : json::value(nullptr);
  body["raknet"] = facts.raknet.tried ? json_or_null(facts.raknet.body) : json::value(nullptr);
  body["clients"] = describe_clients(seen_from(info, facts.raknet));
  body["join"] = join != nullptr ? json::value(*join) : json::value(nullptr);
  return json::serialize(body);
}

} // namespace netherscope::core
