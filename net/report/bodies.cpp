#include "net/report/bodies.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <utility>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/api_json.hpp"
#include "core/motd.hpp"
#include "base/text.hpp"
#include "net/nethernet/candidates.hpp"
#include "net/report/key_memory.hpp"

namespace netherscope::net::report {

namespace json = boost::json;

namespace {

/// ASCII whitespace around a status body.

/// How much of an unreadable status body infoError quotes.
constexpr std::size_t quoted_start = 100;

// -- info -----------------------------------------------------------------------------------------

/// The JSON type a documented status field must have.
enum class field_type { string, integer };

/// The status fields BDS sends (PROTOCOL.md §1.2; the types of nethernet-gateway's
/// NetherNetServerInfo, where every number is a whole number).
constexpr std::array<std::pair<std::string_view, field_type>, 7> documented_fields{{
  {"name", field_type::string},
  {"protocol", field_type::integer},
  {"version", field_type::string},
  {"level", field_type::string},
  {"players", field_type::integer},
  {"maxPlayers", field_type::integer},
  {"gameType", field_type::integer},
}};

/// Whether v is a whole number: an integer, or a double with no fraction (some JSON writers
/// print every number as 10.0).
bool is_integer(const json::value& v) {
  if (v.is_int64() || v.is_uint64())
    return true;
  const auto* d = v.if_double();
  return d && std::isfinite(*d) && std::floor(*d) == *d;
}

/// A JSON value's kind with its article, for sentences: "a string", "an array", ...
std::string_view kind_of(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
      return "an integer";
    case json::kind::double_:
      return is_integer(v) ? "an integer" : "a number with a fraction";
    case json::kind::string:
      return "a string";
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "a value";
}

/// "abc" quoted for a sentence: at most quoted_start bytes of JSON, valid UTF-8, "..." when
/// cut.
std::string quote_start(std::string_view text) {
  auto shown = core::fit_for_json(text, quoted_start);
  return "\"" + shown.text + (shown.truncated ? "...\"" : "\"");
}

// -- offers ---------------------------------------------------------------------------------------

json::object render_candidate(const nethernet::ice_candidate& c) {
  auto assessed = nethernet::assess_candidate(c);
  json::object item;
  item["raw"] = c.raw;
  item["foundation"] = c.foundation;
  item["component"] = c.component;
  item["transport"] = c.transport;
  item["priority"] = c.priority;
  item["address"] = c.address;
  item["port"] = c.port;
  item["type"] = c.type;
  if (c.related_address)
    item["relatedAddress"] = *c.related_address;
  if (c.related_port)
    item["relatedPort"] = *c.related_port;
  if (c.tcptype)
    item["tcpType"] = *c.tcptype;
  if (c.generation)
    item["generation"] = *c.generation;
  if (c.network_id)
    item["iceNetworkId"] = *c.network_id;
  if (c.network_cost)
    item["iceNetworkCost"] = *c.network_cost;
  if (!c.extensions.empty()) {
    json::object extensions;
    // The first of a repeated name wins, as it does for the named fields.
    for (const auto& [name, value] : c.extensions)
      extensions.emplace(name, value);
    item["extensions"] = std::move(extensions);
  }
  item["scope"] = to_string(assessed.where.scope);
  item["usedByDataChannels"] = assessed.used_by_data_channels;
  item["usableByPlayers"] = assessed.usable_by_players;
  // Deprecated for one release: scope says the same and more.
  item["publicAddress"] = assessed.where.scope == base::address_scope::public_address;
  return item;
}

/// The candidates as JSON, as many as fit in candidates_json_limit bytes, in order; truncated
/// says whether some did not fit. Real answers hold a few candidates of about 400 bytes each,
/// but the parser keeps up to 256 lines of up to 4 KiB, whose escaped quotes and extensions
/// would make a reply of megabytes.
json::array render_candidates(const std::vector<nethernet::ice_candidate>& all, bool& truncated) {
  json::array out;
  std::size_t used = 0;
  for (const auto& c : all) {
    auto item = render_candidate(c);
    // Each item is measured as written, plus its comma; serializing twice costs little
    // next to the rest of a reply, for the few candidates of a real answer.
    auto size = json::serialize(item).size() + 1;
    if (size > candidates_json_limit - used) {
      truncated = true;
      break;
    }
    used += size;
    out.emplace_back(std::move(item));
  }
  return out;
}

/// An optional string as JSON: the string, or null.
json::value string_or_null(const std::optional<std::string>& text) {
  if (text)
    return json::value(*text);
  return nullptr;
}

/// A sentence that continues after a colon: its first letter lower-cased unless it begins an
/// acronym ("The token ..." gives "the token ...", "ES384 ..." stays).
std::string continuing(std::string sentence) {
  if (sentence.size() > 1 && sentence[0] >= 'A' && sentence[0] <= 'Z'
      && !(sentence[1] >= 'A' && sentence[1] <= 'Z'))
    sentence[0] = static_cast<char>(sentence[0] - 'A' + 'a');
  return sentence;
}

// What our offer carried; a linked account whose sign-in failed is the operator's to fix, so the
// warning says only that, not the chain's details.
json::object render_offer_identity(const offer_context& context,
                                   std::vector<nethernet::answer_warning>& warnings) {
  if (!context.offered_as.empty())
    return json::object{{"kind", "xbox"}, {"gamertag", core::valid_utf8(context.offered_as, 64)}};
  if (context.link_failing)
    warnings.push_back({"xbox_link_failing",
                        "This service's Xbox sign-in needs its operator's attention, so the offer "
                        "went with a self-signed identity, which an online-mode server refuses."});
  return json::object{{"kind", "self"}};
}

json::object render_identity(const nethernet::identity_check& identity, const offer_context& context,
                             std::vector<nethernet::answer_warning>& warnings) {
  json::object out;
  out["present"] = identity.present;
  out["verified"] = identity.verified;
  out["keySha256"] = identity.key_sha256.empty() ? json::value(nullptr)
                                                 : json::value(identity.key_sha256);
  out["issuedAt"] = identity.issued_at ? string_or_null(base::rfc3339_utc(*identity.issued_at))
                                       : json::value(nullptr);
  out["expiresAt"] = identity.expires_at ? string_or_null(base::rfc3339_utc(*identity.expires_at))
                                         : json::value(nullptr);
  bool failed = identity.code != nethernet::identity_error::none;
  out["error"] = failed ? json::value(identity.error) : json::value(nullptr);
  out["errorCode"] = failed ? json::value(to_string(identity.code)) : json::value(nullptr);

  if (!identity.present) {
    warnings.push_back({"identity_missing",
                        "The answer carries no a=identity line: Minecraft clients refuse an "
                        "answer without one, so players cannot join."});
  } else if (!identity.verified) {
    warnings.push_back({"identity_unverified",
                        "The answer's a=identity did not verify: " + continuing(identity.error)
                          + " Minecraft clients check this identity and may refuse the answer."});
  }

  // Per-target key memory (the probe recalls the key from the store): only a verified key is
  // compared, since an unverified one could be anybody's (net/report/key_memory).
  auto comparison = compare_identity_key(identity, context.previous_key_sha256.value_or(""));
  if (comparison.key_changed) {
    bool changed = *comparison.key_changed;
    out["keyChanged"] = changed;
    if (changed)
      out["previousKeySha256"] = comparison.previous_key;
    if (changed)
      warnings.push_back({"identity_key_changed",
                          "The server's identity key differs from the one it answered with "
                          "before: players who trusted the old key over plain HTTP are asked to "
                          "trust the new one."});
  }
  return out;
}

} // namespace

/// Replaces every number JSON cannot write (1e400 parses as infinity) with null, counting them:
/// Boost.JSON would serialize them as Infinity, which no JSON parser reads back.
std::size_t null_non_finite(json::value& v) {
  if (auto* d = v.if_double(); d && !std::isfinite(*d)) {
    v = nullptr;
    return 1;
  }
  std::size_t replaced = 0;
  if (auto* o = v.if_object())
    for (auto& member : *o)
      replaced += null_non_finite(member.value());
  else if (auto* a = v.if_array())
    for (auto& item : *a)
      replaced += null_non_finite(item);
  return replaced;
}

std::string render_info(std::uint16_t status, bool tls, std::string_view target_body) {
  json::object body;
  body["ok"] = true;
  body["status"] = status;
  body["tls"] = tls;
  json::value info = nullptr;
  json::value error = nullptr;
  json::value error_code = nullptr;

  auto text = target_body;
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    text.remove_prefix(3);
  text = base::trim(text, base::ascii_whitespace);
  if (!text.empty()) {
    boost::system::error_code ec;
    auto parsed = json::parse(text, ec);
    if (ec) {
      error = "The status body is not JSON (" + ec.message() + "); it begins "
              + quote_start(text) + ".";
      error_code = "not_json";
    } else if (!parsed.is_object()) {
      error = "The status body is JSON but not an object: it is " + std::string{kind_of(parsed)}
              + ".";
      error_code = "not_object";
    } else {
      auto& object = parsed.as_object();
      std::string wrong;
      for (const auto& [name, type] : documented_fields) {
        auto it = object.find(name);
        if (it == object.end())
          continue;
        bool ok = type == field_type::string ? it->value().is_string() : is_integer(it->value());
        if (ok)
          continue;
        wrong += (wrong.empty() ? "" : ", ") + std::string{name} + " ("
                 + std::string{kind_of(it->value())} + " where "
                 + (type == field_type::string ? "a string" : "an integer") + " belongs)";
        object.erase(it);
      }
      auto out_of_range = null_non_finite(parsed);
      if (!wrong.empty()) {
        error = "Left out status fields of the wrong type: " + wrong + ".";
        error_code = "field_types";
      } else if (out_of_range > 0) {
        error = std::to_string(out_of_range)
                + " number(s) too large for JSON were replaced with null.";
        error_code = "numbers_out_of_range";
      }
      info = std::move(parsed);
    }
  }
  json::value motd = nullptr;
  if (auto* object = info.if_object())
    if (auto* name = object->if_contains("name"); name && name->is_string())
      motd = core::motd_json(name->get_string());
  body["info"] = std::move(info);
  body["motd"] = std::move(motd);
  body["infoError"] = std::move(error);
  body["infoErrorCode"] = std::move(error_code);
  return json::serialize(body);
}

std::string render_offer(std::string_view answer, const nethernet::parsed_answer& parsed,
                         const nethernet::identity_check& identity, bool tls, const offer_context& context) {
  std::vector<nethernet::answer_warning> warnings = parsed.warnings;
  for (auto& w : nethernet::candidate_warnings(parsed, context.signalling_port))
    warnings.push_back(std::move(w));

  json::object body;
  body["ok"] = true;
  // The answer was parsed whole; only what is echoed is cut.
  auto shown = core::fit_for_json(answer, answer_json_limit);
  body["answer"] = std::move(shown.text);
  if (shown.truncated)
    body["answerTruncated"] = true;
  bool candidates_cut = false;
  body["candidates"] = render_candidates(parsed.candidates, candidates_cut);
  if (candidates_cut)
    body["candidatesTruncated"] = true;
  // Real values are under 110 bytes (a sha-256 fingerprint) and 256 (RFC 8839's ufrag); the
  // cap keeps a hostile answer from doubling its size in the reply.
  body["answerFingerprint"] = core::fit_for_json(parsed.fingerprint, 256).text;
  body["iceUfrag"] = core::fit_for_json(parsed.ice_ufrag, 256).text;
  // SPEC 2.2: a 200 answer with zero candidates means the server's UDP pool is drained. Only a
  // valid answer reaches here, and lines that were all malformed are not "zero candidates".
  body["exhausted"] = parsed.candidate_lines == 0;
  body["networkId"] = context.network_id;
  body["tls"] = tls;
  body["identity"] = render_identity(identity, context, warnings);
  body["offerIdentity"] = render_offer_identity(context, warnings);
  json::array texts;
  json::array codes;
  for (const auto& w : warnings) {
    texts.emplace_back(w.message);
    codes.emplace_back(w.code);
  }
  body["warnings"] = std::move(texts);
  body["warningCodes"] = std::move(codes);
  return json::serialize(body);
}

} // namespace netherscope::net::report
