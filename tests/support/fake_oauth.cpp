#include "support/fake_oauth.hpp"
#include "support/loopback_listen.hpp"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <openssl/evp.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/parse_query.hpp>
#include <boost/url/params_view.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>

namespace netherscope::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
namespace urls = boost::urls;
using tcp = asio::ip::tcp;

namespace {

using request = http::request<http::string_body>;
using response = http::response<http::string_body>;

constexpr std::string_view authorize_path = "/login/oauth/authorize";
constexpr std::string_view token_path = "/login/oauth/access_token";
constexpr std::string_view user_path = "/user";

constexpr std::string_view json_type = "application/json; charset=utf-8";
constexpr std::string_view form_type = "application/x-www-form-urlencoded; charset=utf-8";
constexpr std::string_view html_type = "text/html; charset=utf-8";
constexpr std::string_view text_type = "text/plain; charset=utf-8";

constexpr std::string_view token_errors_doc =
  "https://docs.github.com/apps/managing-oauth-apps/"
  "troubleshooting-oauth-app-access-token-request-errors/";

// Everything the handlers read and write; guarded by mu (the accessors run on test threads).
struct provider_state {
  explicit provider_state(fake_oauth_options o) : options(std::move(o)) {
    // nop
  }

  const fake_oauth_options options;
  mutable std::mutex mu;
  int authorize_requests = 0;
  int token_requests = 0;
  int user_requests = 0;
  int tokens_issued = 0;
  int pkce_failures = 0;
  std::string last_token_body;
  std::string last_token_accept;
  std::string last_user_authorization;
  std::string last_user_agent;
  std::string last_authorize_query;
  // Whether the token endpoint still accepts options.code (valid once per consent).
  bool code_valid = true;
  // The redirect_uri of the last consenting authorize request; the token request must match it.
  std::optional<std::string> granted_redirect_uri;
  // The PKCE challenge of the last consenting authorize request, if it sent one.
  std::optional<std::string> granted_challenge;
};

// A response and how long to hold it back (the slow modes).
struct reply {
  response res;
  std::chrono::milliseconds delay{0};
};

// base64url(SHA-256(verifier)) without padding (RFC 7636 §4.2), with OpenSSL directly so
// the fake shares no code with the service it checks.
std::string s256(std::string_view verifier) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(verifier.data(), verifier.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    return {};
  std::string text(4 * ((length + 2) / 3) + 1, '\0');
  auto written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()), digest,
                                 static_cast<int>(length));
  text.resize(static_cast<std::size_t>(written));
  while (!text.empty() && text.back() == '=')
    text.pop_back();
  for (auto& c : text)
    c = c == '+' ? '-' : (c == '/' ? '_' : c);
  return text;
}

std::string lower(std::string_view text) {
  std::string out{text};
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string header_of(const request& req, http::field name) {
  auto i = req.find(name);
  return i == req.end() ? std::string{} : std::string{i->value()};
}

// Percent-encodes everything but RFC 3986 unreserved characters, so that form decoders
// (which read '+' as a space) and RFC decoders agree on the value.
std::string encode_component(std::string_view value) {
  return urls::encode(urls::string_view{value.data(), value.size()}, urls::unreserved_chars);
}

// The first value of key in params, if present.
std::optional<std::string> param(const urls::params_view& params, std::string_view key) {
  for (auto p : params)
    if (p.key == key)
      return p.value;
  return std::nullopt;
}

response make_response(const request& req, http::status status, std::string_view content_type,
                       std::string body) {
  response res{status, req.version()};
  res.set(http::field::server, "GitHub.com");
  res.set(http::field::content_type, content_type);
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

response json_response(const request& req, http::status status, const json::object& body) {
  return make_response(req, status, json_type, json::serialize(body));
}

response text_response(const request& req, http::status status, std::string body) {
  return make_response(req, status, text_type, std::move(body));
}

response not_found(const request& req) {
  return json_response(req, http::status::not_found,
                       {{"message", "Not Found"},
                        {"documentation_url", "https://docs.github.com/rest"}});
}

response bad_credentials(const request& req) {
  return json_response(req, http::status::unauthorized,
                       {{"message", "Bad credentials"},
                        {"documentation_url", "https://docs.github.com/rest"}});
}

// A token endpoint error the way GitHub sends it: HTTP 200, JSON or form by the Accept header.
response token_error(const request& req, bool want_json, std::string_view error,
                     std::string_view description, std::string_view anchor) {
  std::string uri = std::string{token_errors_doc} + "#" + std::string{anchor};
  if (want_json)
    return json_response(req, http::status::ok,
                         {{"error", error}, {"error_description", description}, {"error_uri", uri}});
  return make_response(req, http::status::ok, form_type,
                       "error=" + encode_component(error)
                         + "&error_description=" + encode_component(description)
                         + "&error_uri=" + encode_component(uri));
}

response bad_verification_code(const request& req, bool want_json) {
  return token_error(req, want_json, "bad_verification_code",
                     "The code passed is incorrect or expired.", "bad-verification-code");
}

// GET /login/oauth/authorize: validates like GitHub and redirects back to the client.
response handle_authorize(const request& req, urls::url_view target, provider_state& st) {
  ++st.authorize_requests;
  st.last_authorize_query = std::string{target.encoded_query()};
  if (req.method() != http::verb::get)
    return not_found(req);
  auto params = target.params(); // '+' decodes to a space, as browsers encode forms
  if (param(params, "client_id") != st.options.client_id)
    return text_response(req, http::status::not_found, "client_id unknown");
  auto redirect = param(params, "redirect_uri");
  if (!redirect)
    return text_response(req, http::status::bad_request, "redirect_uri missing");
  auto redirect_url = urls::parse_uri(*redirect);
  if (!redirect_url
      || (redirect_url->scheme_id() != urls::scheme::http
          && redirect_url->scheme_id() != urls::scheme::https)
      || redirect_url->encoded_host().empty() || redirect_url->has_fragment())
    return text_response(req, http::status::bad_request, "redirect_uri is not an http(s) URL");
  // Scopes are separated by spaces (or commas); only read:user may be asked for.
  auto scope = param(params, "scope").value_or("");
  bool has_read_user = false;
  std::string_view rest{scope};
  while (!rest.empty()) {
    auto end = rest.find_first_of(" ,");
    auto item = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (item.empty())
      continue;
    if (item != "read:user")
      return text_response(req, http::status::bad_request,
                           "scope not allowed: " + std::string{item});
    has_read_user = true;
  }
  if (!has_read_user)
    return text_response(req, http::status::bad_request, "scope must contain read:user");
  auto state = param(params, "state");
  auto challenge = param(params, "code_challenge");
  auto method = param(params, "code_challenge_method");
  if (challenge && method.value_or("plain") != "S256")
    return text_response(req, http::status::bad_request,
                         "code_challenge_method must be S256");
  if (!challenge && st.options.require_pkce)
    return text_response(req, http::status::bad_request, "code_challenge is required");

  urls::url location{*redirect_url};
  auto out = location.encoded_params();
  if (st.options.authorize == fake_oauth_options::authorize_mode::consent) {
    out.append({"code", encode_component(st.options.code)});
    st.code_valid = true;
    st.granted_redirect_uri = *redirect;
    st.granted_challenge = challenge;
  } else {
    out.append({"error", "access_denied"});
    out.append({"error_description", "The+user+has+denied+your+application+access."});
    out.append({"error_uri",
                encode_component("https://docs.github.com/apps/managing-oauth-apps/"
                                 "troubleshooting-authorization-request-errors/#access-denied")});
  }
  if (state)
    out.append({"state", encode_component(*state)});

  std::string href{location.buffer()};
  auto res = make_response(req, http::status::found, html_type,
                           "<html><body>You are being <a href=\"" + href
                             + "\">redirected</a>.</body></html>");
  res.set(http::field::location, href);
  return res;
}

// POST /login/oauth/access_token: exchanges the code for the token, once.
reply handle_token(const request& req, provider_state& st) {
  using mode = fake_oauth_options::token_mode;
  ++st.token_requests;
  st.last_token_body = req.body();
  st.last_token_accept = header_of(req, http::field::accept);
  if (req.method() != http::verb::post)
    return {not_found(req)};
  bool want_json = lower(st.last_token_accept).find("application/json") != std::string::npos;
  switch (st.options.token) {
    case mode::error_json:
      return {bad_verification_code(req, true)};
    case mode::http_500:
      return {make_response(req, http::status::internal_server_error, html_type,
                            "<!DOCTYPE html><html><head><title>Server Error</title></head>"
                            "<body><h1>Whoa there!</h1></body></html>")};
    case mode::not_json:
      return {make_response(req, http::status::ok, html_type,
                            "<html><body>{not json at all</body></html>")};
    case mode::ok:
    case mode::slow:
      break;
  }
  reply out;
  if (st.options.token == mode::slow)
    out.delay = st.options.slow;

  // An unparsable body counts as one without parameters.
  std::string body = urls::parse_query(req.body()) ? req.body() : std::string{};
  urls::params_view form{body, urls::encoding_opts{true}};
  if (param(form, "client_id") != st.options.client_id
      || param(form, "client_secret") != st.options.client_secret) {
    out.res = token_error(req, want_json, "incorrect_client_credentials",
                          "The client_id and/or client_secret passed are incorrect.",
                          "incorrect-client-credentials");
    return out;
  }
  auto redirect = param(form, "redirect_uri");
  if (redirect && st.granted_redirect_uri && *redirect != *st.granted_redirect_uri) {
    out.res = token_error(req, want_json, "redirect_uri_mismatch",
                          "The redirect_uri MUST match the registered callback URL for this "
                          "application.",
                          "redirect-uri-mismatch2");
    return out;
  }
  if (!st.code_valid || param(form, "code") != st.options.code) {
    out.res = bad_verification_code(req, want_json);
    return out;
  }
  if (st.granted_challenge) {
    auto verifier = param(form, "code_verifier");
    if (!verifier || s256(*verifier) != *st.granted_challenge) {
      ++st.pkce_failures;
      out.res = token_error(req, want_json, "bad_verification_code",
                            "The code_verifier does not match the code_challenge.",
                            "bad-verification-code");
      return out;
    }
  }
  if (!st.options.accept_reused_code)
    st.code_valid = false;
  ++st.tokens_issued;
  if (want_json)
    out.res = json_response(req, http::status::ok,
                            {{"access_token", st.options.access_token},
                             {"token_type", "bearer"},
                             {"scope", "read:user"}});
  else
    out.res = make_response(req, http::status::ok, form_type,
                            "access_token=" + encode_component(st.options.access_token)
                              + "&scope=read%3Auser&token_type=bearer");
  return out;
}

// The user as GitHub's GET /user shows it, with far more than id and login.
json::object user_json(const fake_oauth_options& o) {
  std::string api = "https://api.github.com/users/" + o.login;
  json::object user{
    {"login", o.login},
    {"id", o.user_id},
    {"node_id", "U_kgDOfake" + std::to_string(o.user_id)},
    {"avatar_url", "https://avatars.githubusercontent.com/u/" + std::to_string(o.user_id) + "?v=4"},
    {"gravatar_id", ""},
    {"url", api},
    {"html_url", "https://github.com/" + o.login},
    {"followers_url", api + "/followers"},
    {"following_url", api + "/following{/other_user}"},
    {"gists_url", api + "/gists{/gist_id}"},
    {"starred_url", api + "/starred{/owner}{/repo}"},
    {"subscriptions_url", api + "/subscriptions"},
    {"organizations_url", api + "/orgs"},
    {"repos_url", api + "/repos"},
    {"events_url", api + "/events{/privacy}"},
    {"received_events_url", api + "/received_events"},
    {"type", "User"},
    {"site_admin", false},
    {"name", "The " + o.login},
    {"company", nullptr},
    {"blog", ""},
    {"location", nullptr},
    {"email", nullptr},
    {"hireable", nullptr},
    {"bio", nullptr},
    {"twitter_username", nullptr},
    {"public_repos", 8},
    {"public_gists", 1},
    {"followers", 20},
    {"following", 0},
    {"created_at", "2011-01-25T18:44:36Z"},
    {"updated_at", "2024-05-01T12:00:00Z"},
  };
  if (o.user == fake_oauth_options::user_mode::missing_id)
    user.erase("id");
  return user;
}

// GET /user: needs a User-Agent and the issued token (Bearer, or GitHub's legacy "token").
reply handle_user(const request& req, provider_state& st) {
  using mode = fake_oauth_options::user_mode;
  ++st.user_requests;
  st.last_user_authorization = header_of(req, http::field::authorization);
  st.last_user_agent = header_of(req, http::field::user_agent);
  if (req.method() != http::verb::get)
    return {not_found(req)};
  if (st.last_user_agent.empty())
    return {text_response(req, http::status::forbidden,
                          "Request forbidden by administrative rules. Please make sure your "
                          "request has a User-Agent header "
                          "(https://docs.github.com/en/rest/overview/"
                          "resources-in-the-rest-api#user-agent-required). Check "
                          "https://developer.github.com for other possible causes.\n")};
  if (st.options.user == mode::unauthorized)
    return {bad_credentials(req)};
  std::string_view auth{st.last_user_authorization};
  auto space = auth.find(' ');
  if (space == std::string_view::npos)
    return {bad_credentials(req)};
  auto scheme = lower(auth.substr(0, space));
  auto credential = auth.substr(space + 1);
  while (!credential.empty() && credential.front() == ' ')
    credential.remove_prefix(1);
  while (!credential.empty() && credential.back() == ' ')
    credential.remove_suffix(1);
  if ((scheme != "bearer" && scheme != "token") || credential != st.options.access_token)
    return {bad_credentials(req)};
  reply out;
  out.res = json_response(req, http::status::ok, user_json(st.options));
  out.res.set("X-OAuth-Scopes", "read:user");
  out.res.set("X-Accepted-OAuth-Scopes", "");
  if (st.options.user == mode::slow)
    out.delay = st.options.slow;
  return out;
}

// Routes one request; records what the accessors report.
reply answer(const request& req, provider_state& st) {
  auto target = urls::parse_origin_form(req.target());
  if (!target)
    return {text_response(req, http::status::bad_request, "bad request target")};
  std::lock_guard<std::mutex> guard{st.mu};
  auto path = target->encoded_path();
  if (path == authorize_path)
    return {handle_authorize(req, *target, st)};
  if (path == token_path)
    return handle_token(req, st);
  if (path == user_path)
    return handle_user(req, st);
  return {not_found(req)};
}

// One accepted connection: read, answer (maybe after a delay), repeat while keep-alive.
class session : public std::enable_shared_from_this<session> {
public:
  session(tcp::socket&& socket, provider_state& st)
    : stream_(std::move(socket)), timer_(stream_.get_executor()), state_(st) {
    // nop
  }

  void start() {
    do_read();
  }

  // Called on the io thread when the provider stops.
  void close() {
    timer_.cancel();
    beast::error_code ec;
    // The peer may already be gone; closing is all that matters here.
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

private:
  void do_read() {
    parser_.emplace();
    parser_->body_limit(64 * 1024);
    stream_.expires_after(std::chrono::seconds(30));
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream)
      return do_close();
    if (ec)
      return; // Timeout, reset or closed by the provider: there is no one to answer.
    auto r = answer(parser_->get(), state_);
    res_ = std::move(r.res);
    if (r.delay.count() <= 0)
      return do_write();
    timer_.expires_after(r.delay);
    timer_.async_wait(beast::bind_front_handler(&session::on_delay, shared_from_this()));
  }

  void on_delay(beast::error_code ec) {
    if (ec)
      return; // Cancelled: the provider is stopping.
    do_write();
  }

  void do_write() {
    stream_.expires_after(std::chrono::seconds(30));
    http::async_write(stream_, res_,
                      beast::bind_front_handler(&session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec)
      return; // The client went away; the connection is done either way.
    if (!res_.keep_alive())
      return do_close();
    do_read();
  }

  void do_close() {
    beast::error_code ec;
    // Ignored: the peer may have closed first, and the socket closes with the session anyway.
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  asio::steady_timer timer_;
  provider_state& state_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  response res_;
};

// The client side of follow_authorize.
struct authorize_fetch {
  explicit authorize_fetch(asio::io_context& ioc) : resolver(ioc), stream(ioc) {
    // nop
  }

  tcp::resolver resolver;
  beast::tcp_stream stream;
  request req;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  std::string location;
};

} // namespace

// -- provider --

struct fake_oauth_provider::impl {
  explicit impl(fake_oauth_options options) : state(std::move(options)) {
    // nop
  }

  void do_accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted || !acceptor.is_open())
        return; // Stopping.
      if (!ec) {
        auto s = std::make_shared<session>(std::move(socket), state);
        sessions.erase(std::remove_if(sessions.begin(), sessions.end(),
                                      [](auto& w) { return w.expired(); }),
                       sessions.end());
        sessions.push_back(s);
        s->start();
      }
      // Other accept errors (e.g. too many open files) affect one connection only.
      do_accept();
    });
  }

  // Runs on the io thread.
  void stop() {
    beast::error_code ec;
    acceptor.close(ec); // Ignored: it can only fail if already closed.
    for (auto& w : sessions)
      if (auto s = w.lock())
        s->close();
    ioc.stop();
  }

  provider_state state;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  // Only touched on the io thread.
  std::vector<std::weak_ptr<session>> sessions;
  unsigned port = 0;
  std::thread thread;
};

fake_oauth_provider::fake_oauth_provider(fake_oauth_options options)
  : impl_(std::make_unique<impl>(std::move(options))) {
  impl_->port = listen_on_loopback(impl_->acceptor, "fake_oauth_provider");
  impl_->do_accept();
  impl_->thread = std::thread([i = impl_.get()] { i->ioc.run(); });
}

fake_oauth_provider::~fake_oauth_provider() {
  asio::post(impl_->ioc, [i = impl_.get()] { i->stop(); });
  impl_->thread.join();
  // Handlers that never ran (a cancelled delay, a pending read) are destroyed with ioc, and
  // with them the last references to their sessions, whose sockets are closed already.
}

unsigned fake_oauth_provider::port() const {
  return impl_->port;
}

std::string fake_oauth_provider::base_url() const {
  return "http://127.0.0.1:" + std::to_string(impl_->port);
}

std::string fake_oauth_provider::authorize_url() const {
  return base_url() + std::string{authorize_path};
}

std::string fake_oauth_provider::token_url() const {
  return base_url() + std::string{token_path};
}

std::string fake_oauth_provider::api_url() const {
  return base_url();
}

int fake_oauth_provider::authorize_requests() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.authorize_requests;
}

int fake_oauth_provider::token_requests() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.token_requests;
}

int fake_oauth_provider::user_requests() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.user_requests;
}

int fake_oauth_provider::tokens_issued() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.tokens_issued;
}

int fake_oauth_provider::pkce_failures() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.pkce_failures;
}

std::string fake_oauth_provider::last_token_body() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.last_token_body;
}

std::string fake_oauth_provider::last_token_accept() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.last_token_accept;
}

std::string fake_oauth_provider::last_user_authorization() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.last_user_authorization;
}

std::string fake_oauth_provider::last_user_agent() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.last_user_agent;
}

std::string fake_oauth_provider::last_authorize_query() const {
  std::lock_guard<std::mutex> guard{impl_->state.mu};
  return impl_->state.last_authorize_query;
}

// -- browser step --

std::string follow_authorize(const std::string& url) {
  auto parsed = urls::parse_uri(url);
  if (!parsed || parsed->scheme_id() != urls::scheme::http || parsed->host().empty())
    return {};
  std::string host = parsed->host_address();
  std::string port = parsed->has_port() ? std::string{parsed->port()} : std::string{"80"};
  std::string target{parsed->encoded_path()};
  if (target.empty())
    target = "/";
  if (parsed->has_query())
    target += "?" + std::string{parsed->encoded_query()};

  asio::io_context ioc;
  authorize_fetch f{ioc};
  f.req = request{http::verb::get, target, 11};
  f.req.set(http::field::host, parsed->encoded_authority());
  f.req.set(http::field::user_agent, "netherscope-test-browser");
  f.req.set(http::field::accept, "text/html");
  f.parser.body_limit(1024 * 1024);
  f.resolver.async_resolve(host, port, [&](beast::error_code ec, tcp::resolver::results_type r) {
    if (ec)
      return;
    f.stream.async_connect(r, [&](beast::error_code ec, const tcp::endpoint&) {
      if (ec)
        return;
      http::async_write(f.stream, f.req, [&](beast::error_code ec, std::size_t) {
        if (ec)
          return;
        http::async_read(f.stream, f.buffer, f.parser, [&](beast::error_code ec, std::size_t) {
          if (ec || f.parser.get().result() != http::status::found)
            return;
          auto i = f.parser.get().find(http::field::location);
          if (i != f.parser.get().end())
            f.location = std::string{i->value()};
        });
      });
    });
  });
  ioc.run_for(std::chrono::seconds(10));
  return f.location;
}

} // namespace netherscope::test
