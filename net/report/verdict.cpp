#include "net/report/verdict.hpp"

#include <algorithm>
#include <cstdio>
#include <set>

#include <boost/asio/ip/address.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "net/api/api_json.hpp"
#include "net/api/host_port.hpp"
#include "net/base/json_access.hpp"

namespace netherscope::net {

namespace json = boost::json;

namespace {

/// Docker's default bridge networks lie in 172.16.0.0/12 (172.17.0.0/16 first): an answer
/// advertising one of these almost always comes from a server in a container.
bool looks_like_container(const std::string& address) {
  boost::system::error_code ec;
  auto a = boost::asio::ip::make_address(address, ec);
  if (ec || !a.is_v4())
    return false;
  auto b = a.to_v4().to_bytes();
  return b[0] == 172 && b[1] >= 16 && b[1] <= 31;
}

std::string endpoint_text(const candidate_fact& c) {
  return host_for_url(c.address) + ":" + std::to_string(c.port);
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

/// A valid answer: decided by its candidates.
void decide_by_candidates(const check_facts& facts, check_verdict& out) {
  std::vector<candidate_fact> players;
  for (const auto& c : facts.candidates)
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

/// No valid answer: decided by the errors.
void decide_by_errors(const check_facts& facts, check_verdict& out) {
  const auto& offer = facts.offer_error;
  auto signalling = host_for_url(facts.where.host) + ":" + std::to_string(facts.where.port);
  if (facts.offer_tried && (offer.nethernet_error >= 0 || offer.code == error_code::upstream_status)) {
    out.kind = verdict_kind::refused;
    if (offer.nethernet_error >= 0)
      out.reasons.push_back("The server rejected our offer with NetherNet error "
                            + std::to_string(offer.nethernet_error)
                            + (offer.reason.empty() ? "" : " (" + offer.reason + ")") + ".");
    else
      out.reasons.push_back("The server answered our offer with HTTP "
                            + std::to_string(offer.http_status) + " instead of an SDP answer.");
    out.next_steps.push_back("Look for this offer in the server's log at the time of the "
                             "check: it says why the server turned it down.");
    out.next_steps.push_back("If the server runs in online mode it may refuse offers from "
                             "outside Xbox Live; the status and candidates above still show "
                             "what it would advertise.");
    return;
  }
  auto unreachable = [](const failure& f) {
    return f.code == error_code::upstream_failure || f.code == error_code::upstream_timeout;
  };
  if (unreachable(facts.info_error) && (!facts.offer_tried || unreachable(offer))) {
    out.kind = verdict_kind::offline;
    out.reasons.push_back("Nothing answered HTTP or HTTPS on " + signalling + ": "
                          + facts.info_error.message);
    out.next_steps.push_back("Check that the server is running and that "
                             + std::to_string(facts.where.port)
                             + " is its signalling port (TCP).");
    out.next_steps.push_back("Open TCP " + std::to_string(facts.where.port)
                             + " in the firewall, and forward it to the server if it is "
                               "behind NAT.");
    return;
  }
  out.kind = verdict_kind::signalling_only;
  out.reasons.push_back(facts.info_error.ok()
                          ? "The signalling port answers the status request, but our offer got "
                            "no usable answer: " + offer.message
                          : "Our offer got no usable answer: " + offer.message);
  out.next_steps.push_back("Check the server's log for the offer; a server that takes longer "
                           "than the answer deadline to gather its candidates times out here.");
}

int reachable_of(const json::value* v) {
  if (v == nullptr || !v->is_bool())
    return -1;
  return v->as_bool() ? 1 : 0;
}

std::string string_of(const json::object& o, std::string_view key) {
  auto* s = string_at(o, key);
  return s ? std::string{view(*s)} : std::string{};
}

/// A JSON body as a value, or null when it is empty or not JSON.
json::value parsed_or_null(const std::string& body) {
  if (body.empty())
    return nullptr;
  boost::system::error_code ec;
  auto v = json::parse(body, ec);
  return ec ? json::value(nullptr) : v;
}

} // namespace

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
    case verdict_kind::refused:
      return "refused";
    case verdict_kind::offline:
      return "offline";
  }
  return "offline";
}

std::vector<candidate_fact> candidate_facts(const std::string& offer_body) {
  std::vector<candidate_fact> out;
  auto body = parse_object(offer_body);
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

check_verdict decide(const check_facts& facts) {
  check_verdict out;
  if (facts.offer_tried && facts.offer_error.ok())
    decide_by_candidates(facts, out);
  else
    decide_by_errors(facts, out);
  return out;
}

bool is_target_failure(const failure& error) {
  switch (error.code) {
    case error_code::none:
    case error_code::upstream_status:
    case error_code::upstream_failure:
    case error_code::upstream_invalid_answer:
    case error_code::upstream_timeout:
      return true;
    default:
      return false;
  }
}

std::string render_check(const check_facts& facts, const check_verdict& verdict,
                         const info_reply& info, const offer_reply& offer) {
  json::object body;
  body["ok"] = true;
  body["host"] = facts.where.host;
  body["port"] = facts.where.port;
  body["verdict"] = to_string(verdict.kind);
  json::array reasons;
  for (const auto& r : verdict.reasons)
    reasons.emplace_back(valid_utf8(r));
  body["reasons"] = std::move(reasons);
  json::array steps;
  for (const auto& s : verdict.next_steps)
    steps.emplace_back(valid_utf8(s));
  body["nextSteps"] = std::move(steps);
  body["info"] = info.error.ok() ? parsed_or_null(info.body) : json::value(nullptr);
  body["infoError"] = info.error.ok() ? json::value(nullptr)
                                      : parsed_or_null(render_error(info.error));
  body["offer"] = facts.offer_tried && offer.error.ok() ? parsed_or_null(offer.body)
                                                        : json::value(nullptr);
  body["offerError"] = facts.offer_tried && !offer.error.ok()
                         ? parsed_or_null(render_error(offer.error))
                         : json::value(nullptr);
  return json::serialize(body);
}

} // namespace netherscope::net
