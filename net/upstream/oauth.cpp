#include "net/upstream/oauth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/json/parse.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

#include "net/api/api_json.hpp"
#include "net/base/crypto.hpp"
#include "net/api/host_port.hpp"

namespace netherscope::net {

namespace {

constexpr std::size_t max_login_length = 39;

// Appends name=value with everything but unreserved characters percent-encoded. Boost 1.81's
// params().append leaves '+' as is, which form decoders read as a space.
void append_param(boost::urls::url& url, std::string_view name, std::string_view value) {
  auto encoded = boost::urls::encode(value, boost::urls::unreserved_chars);
  url.encoded_params().append({boost::urls::encode(name, boost::urls::unreserved_chars),
                               boost::urls::string_view{encoded}});
}

failure provider_failure(std::string message) {
  return make_failure(error_code::upstream_failure, std::move(message));
}

// A JSON object from a provider's 2xx answer, or a failure naming what was wrong.
std::optional<boost::json::object> json_object(const fetch_result& r, std::string_view what,
                                               failure& error) {
  if (!r.error.ok()) {
    error = r.error;
    return std::nullopt;
  }
  if (r.status < 200 || r.status > 299) {
    error = provider_failure("the sign-in provider answered the " + std::string{what}
                             + " request with HTTP " + std::to_string(r.status));
    return std::nullopt;
  }
  boost::system::error_code ec;
  auto value = boost::json::parse(r.body, ec);
  if (ec || !value.is_object()) {
    error = provider_failure("the sign-in provider's " + std::string{what}
                             + " answer is not JSON");
    return std::nullopt;
  }
  return std::move(value.as_object());
}

} // namespace

std::string callback_url(const oauth_settings& s) {
  auto base = s.public_base_url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return base + "/auth/github/callback";
}

std::string authorize_redirect(const oauth_settings& s, std::string_view state) {
  boost::urls::url url{s.authorize_url};
  append_param(url, "client_id", s.client_id);
  append_param(url, "redirect_uri", callback_url(s));
  // Only the numeric id and login are read: read:user is the narrowest scope that has them.
  append_param(url, "scope", "read:user");
  append_param(url, "state", state);
  return std::string{url.buffer()};
}

bool served_over_https(const oauth_settings& s) {
  auto url = boost::urls::parse_absolute_uri(s.public_base_url);
  return url && url->scheme_id() == boost::urls::scheme::https;
}

std::optional<fetch_request> request_for(std::string_view text, std::string method,
                                         std::chrono::milliseconds timeout) {
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url)
    return std::nullopt;
  auto scheme = url->scheme_id();
  if (scheme != boost::urls::scheme::https && scheme != boost::urls::scheme::http)
    return std::nullopt;
  std::string error;
  auto host = normalize_host(url->encoded_host_address(), error);
  if (!host)
    return std::nullopt;
  fetch_request req;
  req.where.host = std::move(*host);
  req.where.tls = scheme == boost::urls::scheme::https ? tls_mode::on : tls_mode::off;
  req.where.port = url->has_port() ? url->port_number()
                                   : (scheme == boost::urls::scheme::https ? 443 : 80);
  req.path = std::string{url->encoded_path()};
  if (req.path.empty())
    req.path = "/";
  if (url->has_query())
    req.path += "?" + std::string{url->encoded_query()};
  req.method = std::move(method);
  req.connect_timeout = timeout;
  req.total_timeout = timeout;
  return req;
}

std::optional<fetch_request> token_request(const oauth_settings& s, std::string_view code) {
  auto req = request_for(s.token_url, "POST", s.timeout);
  if (!req)
    return std::nullopt;
  // Boost.URL encodes the form the way an application/x-www-form-urlencoded body needs it.
  boost::urls::url form;
  append_param(form, "client_id", s.client_id);
  append_param(form, "client_secret", s.client_secret);
  append_param(form, "code", code);
  append_param(form, "redirect_uri", callback_url(s));
  req->content_type = "application/x-www-form-urlencoded";
  req->body = std::string{form.encoded_query()};
  req->headers = {{"Accept", "application/json"}};
  return req;
}

std::optional<std::string> read_token(const fetch_result& r, failure& error) {
  auto body = json_object(r, "token", error);
  if (!body)
    return std::nullopt;
  if (auto err = body->if_contains("error"); err != nullptr) {
    std::string why = err->is_string() ? std::string{err->as_string()} : "error";
    if (auto text = body->if_contains("error_description"); text && text->is_string())
      why = std::string{text->as_string()} + " (" + why + ")";
    error = provider_failure("the sign-in provider refused the code: " + valid_utf8(why, 300));
    return std::nullopt;
  }
  auto token = body->if_contains("access_token");
  if (token == nullptr || !token->is_string() || token->as_string().empty()) {
    error = provider_failure("the sign-in provider's token answer has no access_token");
    return std::nullopt;
  }
  return std::string{token->as_string()};
}

std::optional<fetch_request> user_request(const oauth_settings& s, std::string_view token) {
  auto base = s.api_url;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  auto req = request_for(base + "/user", "GET", s.timeout);
  if (!req)
    return std::nullopt;
  req->headers = {{"Authorization", "Bearer " + std::string{token}},
                  {"Accept", "application/vnd.github+json"},
                  {"X-GitHub-Api-Version", "2022-11-28"}};
  return req;
}

std::optional<provider_user> read_user(const fetch_result& r, failure& error) {
  auto body = json_object(r, "user", error);
  if (!body)
    return std::nullopt;
  provider_user user;
  auto id = body->if_contains("id");
  if (id != nullptr && id->is_int64() && id->as_int64() > 0)
    user.id = static_cast<std::uint64_t>(id->as_int64());
  else if (id != nullptr && id->is_uint64())
    user.id = id->as_uint64();
  auto login = body->if_contains("login");
  if (user.id == 0 || login == nullptr || !login->is_string() || login->as_string().empty()
      || login->as_string().size() > max_login_length) {
    error = provider_failure("the sign-in provider's user answer lacks a numeric id or login");
    return std::nullopt;
  }
  // GitHub logins are letters, digits and single hyphens; anything else is not GitHub's.
  for (char c : login->as_string()) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') {
      error = provider_failure("the sign-in provider's login is not a valid user name");
      return std::nullopt;
    }
  }
  user.login = std::string{login->as_string()};
  return user;
}

namespace {

constexpr std::size_t nonce_bytes = 16;
constexpr std::size_t mac_bytes = 16;

std::string state_mac(std::string_view key, std::string_view signed_part) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size(), out,
           &length)
      == nullptr)
    return {};
  return std::string(reinterpret_cast<const char*>(out), std::min<std::size_t>(length, mac_bytes));
}

} // namespace

std::optional<std::string> make_state(std::string_view key, std::int64_t now_unix) {
  auto nonce = random_bytes(nonce_bytes);
  if (!nonce || key.empty())
    return std::nullopt;
  std::string raw = *nonce;
  for (int i = 0; i < 8; ++i)
    raw.push_back(static_cast<char>((static_cast<std::uint64_t>(now_unix) >> (8 * i)) & 0xFF));
  auto mac = state_mac(key, raw);
  if (mac.size() != mac_bytes)
    return std::nullopt;
  return base64url_encode(raw + mac);
}

bool state_is_ours(std::string_view key, std::string_view state, std::int64_t now_unix) {
  auto raw = base64url_decode(state);
  if (!raw || raw->size() != nonce_bytes + 8 + mac_bytes || key.empty())
    return false;
  auto signed_part = std::string_view{*raw}.substr(0, nonce_bytes + 8);
  if (!same_secret(state_mac(key, signed_part), std::string_view{*raw}.substr(nonce_bytes + 8)))
    return false;
  std::uint64_t issued = 0;
  for (int i = 0; i < 8; ++i)
    issued |= static_cast<std::uint64_t>(static_cast<unsigned char>((*raw)[nonce_bytes + i]))
              << (8 * i);
  auto age = now_unix - static_cast<std::int64_t>(issued);
  return age >= -60 && age <= state_lifetime_seconds;
}

} // namespace netherscope::net
