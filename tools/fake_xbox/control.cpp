// The test's handles on the fake: GET /_fake/stats (what was asked and issued) and
// POST /_fake/control (approve or refuse device codes, revoke the link, switch XErrs and
// service errors on and off). Neither is part of any real service.
#include "router.hpp"

namespace fake_xbox {

namespace json = boost::json;

namespace {

json::object faults_json(const state& st) {
  return {{"revoked", st.fault.revoked},
          {"sisu_xerr", st.fault.sisu_xerr},
          {"xsts_xerr", st.fault.xsts_xerr},
          {"playfab_error", st.fault.playfab_error},
          {"session_status", st.fault.session_status},
          {"multiplayer_status", st.fault.multiplayer_status},
          {"wrong_cpk", st.fault.wrong_cpk}};
}

// An unsigned integer member, or nullopt when absent; throws std::invalid_argument when it is
// there but no non-negative integer below limit.
std::optional<std::uint64_t> number_at(const json::object& o, std::string_view key, std::uint64_t limit) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64() && v->get_int64() >= 0 && static_cast<std::uint64_t>(v->get_int64()) < limit)
    return static_cast<std::uint64_t>(v->get_int64());
  if (v->is_uint64() && v->get_uint64() < limit) return v->get_uint64();
  throw std::invalid_argument(std::string(key) + " must be a non-negative integer below " + std::to_string(limit));
}

std::optional<bool> flag_at(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_bool()) throw std::invalid_argument(std::string(key) + " must be true or false");
  return v->get_bool();
}

void apply(const json::object& body, state& st) {
  for (const auto& m : body) {
    static const char* known[] = {"device",         "revoke",         "sisu_xerr",          "xsts_xerr",
                                  "playfab_error",  "session_status", "multiplayer_status", "wrong_cpk"};
    bool ok = false;
    for (auto k : known) ok = ok || m.key() == k;
    if (!ok) throw std::invalid_argument("unknown control " + std::string(m.key()));
  }
  if (const auto* device = body.if_contains("device")) {
    if (!device->is_string()) throw std::invalid_argument("device must be a string");
    const std::string action(device->get_string());
    if (action != "approve" && action != "deny" && action != "expire" && action != "slow_down")
      throw std::invalid_argument("device must be approve, deny, expire or slow_down");
    // Acts on every device code still waiting, as one operator at one browser would.
    for (auto& [code, g] : st.device_codes) {
      if (g.state != "pending") continue;
      if (action == "slow_down")
        g.slow_down_next = true;
      else
        g.state = action == "approve" ? "approved" : action == "deny" ? "denied" : "expired";
    }
  }
  if (auto revoke = flag_at(body, "revoke")) st.fault.revoked = *revoke;
  if (auto xerr = number_at(body, "sisu_xerr", 1ULL << 32)) st.fault.sisu_xerr = static_cast<std::uint32_t>(*xerr);
  if (auto xerr = number_at(body, "xsts_xerr", 1ULL << 32)) st.fault.xsts_xerr = static_cast<std::uint32_t>(*xerr);
  if (const auto* error = body.if_contains("playfab_error")) {
    if (!error->is_string()) throw std::invalid_argument("playfab_error must be a string");
    st.fault.playfab_error = std::string(error->get_string());
  }
  if (auto status = number_at(body, "session_status", 600)) st.fault.session_status = static_cast<int>(*status);
  if (auto status = number_at(body, "multiplayer_status", 600))
    st.fault.multiplayer_status = static_cast<int>(*status);
  if (auto wrong = flag_at(body, "wrong_cpk")) st.fault.wrong_cpk = *wrong;
}

}  // namespace

response handle_control(const request& req, std::string_view path, state& st) {
  if (path == "/_fake/stats" && req.method() == http::verb::get) {
    json::object stats;
    for (const auto& [name, n] : st.stats) stats[name] = n;
    return json_reply(req, http::status::ok, {{"stats", std::move(stats)}, {"faults", faults_json(st)}});
  }
  if (path == "/_fake/control" && req.method() == http::verb::post) {
    auto body = json_body(req);
    if (!body) return text_reply(req, http::status::bad_request, "the body must be a JSON object\n");
    // All or nothing: a refused control leaves every switch as it was.
    const auto saved_faults = st.fault;
    const auto saved_codes = st.device_codes;
    try {
      apply(*body, st);
    } catch (const std::invalid_argument& e) {
      st.fault = saved_faults;
      st.device_codes = saved_codes;
      return text_reply(req, http::status::bad_request, std::string(e.what()) + "\n");
    }
    return json_reply(req, http::status::ok, {{"faults", faults_json(st)}});
  }
  return text_reply(req, http::status::not_found, "GET /_fake/stats or POST /_fake/control\n");
}

}  // namespace fake_xbox
