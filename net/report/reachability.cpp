#include "net/report/reachability.hpp"

#include <cmath>
#include <map>
#include <utility>


#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "base/crypto.hpp"
#include "base/text.hpp"
#include "net/nethernet/sdp_answer.hpp"
#include "net/nethernet/stun.hpp"

namespace netherscope::net::report {

namespace json = boost::json;

namespace {

constexpr std::string_view pwd_prefix = "a=ice-pwd:";

/// The first a=ice-pwd value, as written (parse_answer requires one for a valid answer).
std::string first_ice_pwd(std::string_view sdp) {
  for (auto line : nethernet::sdp_lines(sdp))
    if (line.substr(0, pwd_prefix.size()) == pwd_prefix && line.size() > pwd_prefix.size())
      return std::string{line.substr(pwd_prefix.size())};
  return {};
}

} // namespace

core::reach_plan plan_reach(std::string_view answer_sdp, std::string_view offer_ufrag) {
  core::reach_plan plan;
  auto parsed = nethernet::parse_answer(answer_sdp);
  if (!parsed.valid())
    return plan;
  plan.valid = true;
  plan.offer_ufrag = std::string{offer_ufrag};
  plan.answer_ufrag = parsed.ice_ufrag;
  plan.answer_pwd = first_ice_pwd(answer_sdp);
  for (const auto& c : parsed.candidates) {
    core::reach_target t{c.address, c.port, core::reach_skip::none};
    if (!base::iequals(c.transport, "udp") || c.component != 1)
      t.skip = core::reach_skip::not_udp;
    plan.candidates.push_back(std::move(t));
  }
  return plan;
}

reach_run make_checks(const core::reach_plan& plan, std::uint64_t tie_breaker) {
  reach_run run;
  run.check_of.assign(plan.candidates.size(), std::string::npos);
  if (!plan.valid)
    return run;
  std::map<std::pair<std::string, std::uint16_t>, std::size_t> index;
  nethernet::stun::binding_check base{plan.answer_ufrag + ":" + plan.offer_ufrag,
                           nethernet::stun::peer_reflexive_priority, tie_breaker, plan.answer_pwd};
  for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
    const auto& c = plan.candidates[i];
    if (c.skip != core::reach_skip::none)
      continue;
    auto [where, added] = index.emplace(std::make_pair(c.address, c.port), run.checks.size());
    run.check_of[i] = where->second;
    if (!added)
      continue;
    auto id = nethernet::stun::random_transaction();
    upstream::udp_check check;
    check.address = c.address;
    check.port = c.port;
    check.request = nethernet::stun::binding_request(base, id);
    check.judge = [id, key = plan.answer_pwd](std::string_view datagram) {
      switch (nethernet::stun::judge_response(datagram, id, key)) {
        case nethernet::stun::check_answer::success:
          return upstream::check_reply::success;
        case nethernet::stun::check_answer::error:
          return upstream::check_reply::error;
        case nethernet::stun::check_answer::bad_integrity:
          return upstream::check_reply::bad_integrity;
        case nethernet::stun::check_answer::unrelated:
          break;
      }
      return upstream::check_reply::unrelated;
    };
    run.checks.push_back(std::move(check));
  }
  return run;
}

std::uint64_t random_tie_breaker() {
  std::uint64_t value = 0;
  if (auto bytes = base::random_bytes(8))
    for (unsigned char c : *bytes)
      value = (value << 8) | c;
  return value;
}

std::string with_reachability(std::string body, const core::reach_plan& plan, const reach_run& run,
                              const std::vector<upstream::udp_check_result>& results, double elapsed_ms) {
  boost::system::error_code ec;
  auto value = json::parse(body, ec);
  if (ec || !value.is_object())
    return body;
  auto& object = value.as_object();
  std::size_t reachable_count = 0;
  if (auto* candidates = object.if_contains("candidates"); candidates && candidates->is_array()) {
    auto& items = candidates->as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_object())
        continue;
      auto& item = items[i].as_object();
      json::value reachable = nullptr;
      json::value rtt = nullptr;
      json::value refused = nullptr;
      json::value refused_reason = nullptr;
      json::value result = nullptr;
      // The body's candidates are the plan's, in the same order (both come from one parse of
      // the answer); one that differs is left unchecked rather than given another's result.
      auto* address = item.if_contains("address");
      auto* port = item.if_contains("port");
      bool same = i < plan.candidates.size() && address && address->is_string()
                  && address->as_string() == plan.candidates[i].address && port
                  && port->is_int64() && port->as_int64() == plan.candidates[i].port;
      if (same) {
        const auto& target = plan.candidates[i];
        if (target.skip == core::reach_skip::not_udp) {
          refused = "not_udp";
        } else if (i < run.check_of.size() && run.check_of[i] < results.size()) {
          const auto& r = results[run.check_of[i]];
          switch (r.outcome) {
            case upstream::check_outcome::refused:
              refused = "policy";
              refused_reason = r.reason;
              break;
            case upstream::check_outcome::not_an_address:
            case upstream::check_outcome::over_limit:
              refused = to_string(r.outcome);
              break;
            case upstream::check_outcome::reachable:
              reachable = true;
              rtt = core::shown_ms(r.rtt_ms);
              result = to_string(r.outcome);
              ++reachable_count;
              break;
            default:
              reachable = false;
              result = to_string(r.outcome);
              break;
          }
        }
      }
      item["reachable"] = std::move(reachable);
      item["rttMs"] = std::move(rtt);
      item["refused"] = std::move(refused);
      item["refusedReason"] = std::move(refused_reason);
      item["checkResult"] = std::move(result);
    }
  }
  std::size_t sent = 0;
  for (const auto& r : results)
    if (r.outcome != upstream::check_outcome::refused && r.outcome != upstream::check_outcome::not_an_address
        && r.outcome != upstream::check_outcome::over_limit)
      ++sent;
  object["reachability"] = json::object{{"checked", sent},
                                        {"reachable", reachable_count},
                                        {"elapsedMs", core::shown_ms(elapsed_ms)}};
  return json::serialize(value);
}

} // namespace netherscope::net::report
