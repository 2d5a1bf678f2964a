#include "net/upstream/oauth.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/json/parse.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

#include "core/api_json.hpp"
#include "base/crypto.hpp"
#include "core/host_port.hpp"
#include "base/text.hpp"

namespace netherscope::net::upstream {

namespace {

constexpr std::size_t max_login_length = 39;

// Appends name=value with everything but unreserved characters percent-encoded. Boost 1.81's
// params().append leaves '+' as is, which form decoders read as a space.
void append_param(boost::urls::url& url, std::string_view name, std::string_view value) {
  auto encoded = boost::urls::encode(value, boost::urls::unreserved_chars);
  url.encoded_params().append({boost::urls::encode(name, boost::urls::unreserved_chars),
                               boost::urls::string_view{encoded}});
}

core::failure provider_failure(std::string message) {
  return core::make_failure(core::error_code::upstream_failure, std::move(message));
}

// A JSON object from a provider's 2xx answer, or a failure naming what was wrong.
std::optional<boost::json::object> json_object(const fetch_result& r, std::string_view what,
                                               core::failure& error) {
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

std::string canonical_base_url(std::string_view base) {
  std::string text{base};
  while (!text.empty() && text.back() == '/')
    text.pop_back();
  auto parsed = boost::urls::parse_absolute_uri(text);
  if (!parsed)
    return text;
  boost::urls::url url{*parsed};
  url.set_scheme(base::ascii_lower(url.scheme()));
  // Only a registered name has letter case to fold; an IPv6 literal's hex digits would be
  // folded the same way, which is harmless, and an IPv4 one has none.
  if (url.host_type() == boost::urls::host_type::name)
    url.set_encoded_host(base::ascii_lower(url.encoded_host()));
  return std::string{url.buffer()};
}

std::string callback_url(const oauth_settings& s) {
  return canonical_base_url(s.public_base_url) + "/auth/github/callback";
}

std::string authorize_redirect(const oauth_settings& s, std::string_view state,
                               std::string_view code_challenge) {
  boost::urls::url url{s.authorize_url};
  append_param(url, "client_id", s.client_id);
  append_param(url, "redirect_uri", callback_url(s));
  // Only the numeric id and login are read: read:user is the narrowest scope that has them.
  append_param(url, "scope", "read:user");
  append_param(url, "state", state);
  append_param(url, "code_challenge", code_challenge);
  append_param(url, "code_challenge_method", "S256");
  return std::string{url.buffer()};
}

bool served_over_https(const oauth_settings& s) {
  auto url = boost::urls::parse_absolute_uri(s.public_base_url);
  return url && base::iequals(url->scheme(), "https");
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
  auto host = core::normalize_host(url->encoded_host_address(), error);
  if (!host)
    return std::nullopt;
  fetch_request req;
  req.where.host = std::move(*host);
  req.where.tls = scheme == boost::urls::scheme::https ? core::tls_mode::on : core::tls_mode::off;
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

std::optional<fetch_request> token_request(const oauth_settings& s, std::string_view code,
                                           std::string_view code_verifier) {
  auto req = request_for(s.token_url, "POST", s.timeout);
  if (!req)
    return std::nullopt;
  // Boost.URL encodes the form the way an application/x-www-form-urlencoded body needs it.
  boost::urls::url form;
  append_param(form, "client_id", s.client_id);
  append_param(form, "client_secret", s.client_secret);
  append_param(form, "code", code);
  append_param(form, "redirect_uri", callback_url(s));
  if (!code_verifier.empty())
    append_param(form, "code_verifier", code_verifier);
  req->content_type = "application/x-www-form-urlencoded";
  req->body = std::string{form.encoded_query()};
  req->headers = {{"Accept", "application/json"}};
  return req;
}

std::optional<std::string> read_token(const fetch_result& r, core::failure& error) {
  auto body = json_object(r, "token", error);
  if (!body)
    return std::nullopt;
  if (auto err = body->if_contains("error"); err != nullptr) {
    std::string why = err->is_string() ? std::string{err->as_string()} : "error";
    if (auto text = body->if_contains("error_description"); text && text->is_string())
      why = std::string{text->as_string()} + " (" + why + ")";
    error = provider_failure("the sign-in provider refused the code: " + core::valid_utf8(why, 300));
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

std::optional<provider_user> read_user(const fetch_result& r, core::failure& error) {
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

// The binding's two halves, and the state's parts.
constexpr std::size_t secret_bytes = 32;
constexpr std::size_t verifier_bytes = 32;
constexpr std::size_t binding_bytes = secret_bytes + verifier_bytes;
constexpr std::size_t time_bytes = 8;
constexpr std::size_t mac_bytes = 16;
constexpr std::size_t state_bytes = time_bytes + mac_bytes;

// Names what the MAC is for, so a MAC made under the same key for anything else (or by the
// previous state format) can never pass for a state.
constexpr std::string_view state_label = "netherscope signin state v2";

// HMAC-SHA256 under key over the label, the time and the binding, cut to mac_bytes.
std::string state_mac(std::string_view key, std::string_view time, std::string_view binding) {
  base::error_queue_mark mark;
  std::string input{state_label};
  input += time;
  input += binding;
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(input.data()), input.size(), out, &length)
        == nullptr
      || length < mac_bytes)
    return {};
  return std::string(reinterpret_cast<const char*>(out), mac_bytes);
}

std::string time_field(std::int64_t now_unix) {
  std::string out;
  for (std::size_t i = 0; i < time_bytes; ++i)
    out.push_back(static_cast<char>((static_cast<std::uint64_t>(now_unix) >> (8 * i)) & 0xFF));
  return out;
}

std::int64_t read_time(std::string_view field) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < time_bytes; ++i)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(field[i])) << (8 * i);
  return static_cast<std::int64_t>(value);
}

core::failure state_refused(std::string message) {
  return core::make_failure(core::error_code::invalid_input, std::move(message));
}

} // namespace

std::optional<std::string> decode_canonical_base64url(std::string_view text, std::size_t bytes) {
  // Unpadded base64 of n bytes is exactly ceil(4n / 3) characters.
  if (text.size() != (4 * bytes + 2) / 3)
    return std::nullopt;
  for (char c : text) {
    auto ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
              || c == '-' || c == '_';
    if (!ok)
      return std::nullopt;
  }
  auto raw = base::base64url_decode(text);
  // Encoding again must give the same text back: this refuses set bits past the data, the
  // one freedom left once padding and other alphabets are refused.
  if (!raw || raw->size() != bytes || base::base64url_encode(*raw) != text)
    return std::nullopt;
  return raw;
}

std::string pkce_challenge(std::string_view verifier) {
  return base::base64url_encode(base::sha256(verifier));
}

std::optional<signin_attempt> start_attempt(std::string_view key, std::int64_t now_unix) {
  if (key.empty())
    return std::nullopt;
  // Both halves come from OpenSSL's CSPRNG, fresh for every attempt.
  auto binding = base::random_bytes(binding_bytes);
  if (!binding)
    return std::nullopt;
  auto time = time_field(now_unix);
  auto mac = state_mac(key, time, *binding);
  if (mac.size() != mac_bytes)
    return std::nullopt;
  signin_attempt attempt;
  attempt.binding = base::base64url_encode(*binding);
  attempt.state = base::base64url_encode(time + mac);
  attempt.verifier = base::base64url_encode(std::string_view{*binding}.substr(secret_bytes));
  attempt.challenge = pkce_challenge(attempt.verifier);
  if (attempt.challenge.empty())
    return std::nullopt;
  return attempt;
}

std::optional<checked_state> check_state(std::string_view key, std::string_view state,
                                         std::string_view binding, std::int64_t now_unix,
                                         core::failure& error) {
  auto raw_state = decode_canonical_base64url(state, state_bytes);
  if (!raw_state || key.empty()) {
    error = state_refused("this sign-in's state is not one we issue; start again");
    return std::nullopt;
  }
  auto raw_binding = decode_canonical_base64url(binding, binding_bytes);
  auto time = std::string_view{*raw_state}.substr(0, time_bytes);
  if (!raw_binding
      || !base::same_secret(state_mac(key, time, *raw_binding),
                      std::string_view{*raw_state}.substr(time_bytes))) {
    error = state_refused("this sign-in was not started in this browser; start again");
    return std::nullopt;
  }
  auto issued = read_time(time);
  auto age = now_unix - issued;
  if (age < -state_clock_skew_seconds || age > state_lifetime_seconds) {
    error = state_refused("this sign-in took longer than 10 minutes; start again");
    return std::nullopt;
  }
  checked_state checked;
  checked.canonical = std::move(*raw_state);
  checked.expires_unix = issued + state_lifetime_seconds;
  checked.verifier = base::base64url_encode(std::string_view{*raw_binding}.substr(secret_bytes));
  return checked;
}

} // namespace netherscope::net::upstream
