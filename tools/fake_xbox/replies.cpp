// What the handlers of every host share: replies, form and JSON bodies, Xbox's times, the
// request-signature check and the issuer's JWTs.
#include "router.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/parse.hpp>

#include <cstdio>
#include <ctime>

namespace fake_xbox {

namespace json = boost::json;

namespace {

// 100-ns ticks between 1601-01-01 and 1970-01-01.
constexpr std::int64_t filetime_offset = 116444736000000000;

std::string http_date(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm parts{};
  gmtime_r(&t, &parts);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &parts);
  return text;
}

std::int64_t read_be(std::string_view bytes) {
  std::uint64_t v = 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return static_cast<std::int64_t>(v);
}

}  // namespace

response text_reply(const request& req, http::status status, std::string body) {
  response res{status, req.version()};
  res.set(http::field::content_type, "text/plain; charset=utf-8");
  res.set(http::field::date, http_date(std::time(nullptr) * 1000LL));
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

response json_reply(const request& req, http::status status, const json::object& body) {
  auto res = text_reply(req, status, json::serialize(body));
  res.set(http::field::content_type, "application/json; charset=utf-8");
  return res;
}

std::optional<json::object> json_body(const request& req) {
  boost::system::error_code ec;
  auto value = json::parse(req.body(), ec);
  if (ec || !value.is_object()) return std::nullopt;
  return std::move(value.as_object());
}

std::optional<std::string> form_field(std::string_view body, std::string_view name) {
  // A form body is a query string; "?" makes it a URI reference Boost.URL reads, and the
  // parameters decode '+' as a space, as forms do.
  const std::string text = "?" + std::string(body);
  auto url = boost::urls::parse_uri_reference(text);
  if (!url) return std::nullopt;
  for (auto param : url->params())
    if (param.key == name) return std::string(param.value);
  return std::nullopt;
}

std::string member(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::string xbox_time(std::int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm parts{};
  gmtime_r(&t, &parts);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%07lldZ", parts.tm_year + 1900,
                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                static_cast<long long>((unix_ms % 1000) * 10000));
  return text;
}

std::string check_signature(const request& req, EVP_PKEY* key, const state& st) {
  const auto header = req.find("Signature");
  if (header == req.end()) return "no Signature header";
  const auto raw = from_base64(std::string(header->value()));
  if (!raw || raw->size() != 76) return "the Signature is not 76 bytes of base64";
  if (read_be(raw->substr(0, 4)) != 1) return "the Signature's policy version is not 1";
  const std::int64_t filetime = read_be(raw->substr(4, 8));
  const std::int64_t signed_ms = (filetime - filetime_offset) / 10000;
  const std::int64_t skew = signed_ms - st.now_ms();
  if (skew > st.cfg.signature_skew_s * 1000 || -skew > st.cfg.signature_skew_s * 1000)
    return "the Signature's time is too far from the server's";
  std::string message;
  message.append("\0\0\0\1\0", 5);
  message += raw->substr(4, 8);
  message += '\0';
  const auto authorization = req.find(http::field::authorization);
  for (std::string_view part :
       {std::string_view(req.method_string()), std::string_view(req.target()),
        authorization == req.end() ? std::string_view() : std::string_view(authorization->value()),
        std::string_view(req.body())}) {
    message += part;
    message += '\0';
  }
  if (!p256_verify(key, message, raw->substr(12))) return "the Signature does not verify with the proof key";
  return {};
}

std::string issuer_jwt(const state& st, const json::object& claims) {
  const json::object header{{"alg", "RS256"}, {"kid", st.issuer.kid}, {"typ", "JWT"}};
  const auto input = to_base64(json::serialize(header), true) + "." + to_base64(json::serialize(claims), true);
  return input + "." + rs256_sign(st.issuer.key.get(), input);
}

void count(state& st, const std::string& name) { ++st.stats[name]; }

response handle_request(const request& req, state& st) {
  const std::string_view target = req.target();
  const auto path = target.substr(0, target.find('?'));
  if (path.rfind("/_fake/", 0) == 0) return handle_control(req, path, st);
  if (path == "/oauth20_connect.srf" || path == "/oauth20_token.srf") return handle_live(req, path, st);
  if (path == "/device/authenticate" || path == "/authorize" || path == "/user/authenticate" ||
      path == "/title/authenticate" || path == "/xsts/authorize")
    return handle_xbl(req, path, st);
  if (path == "/") {
    // MinecraftAuth reads its clock offset from the Date header of GET https://login.live.com/.
    return text_reply(req, http::status::ok, "fake_xbox\n");
  }
  return handle_services(req, path, st);
}

}  // namespace fake_xbox
