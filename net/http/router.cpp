#include "net/http/router.hpp"

#include <iterator>
#include <utility>

#include <boost/beast/http/field.hpp>
#include <boost/url/parse.hpp>

#include "core/api_json.hpp"
#include "core/api_key.hpp"
#include "core/error_table.hpp"
#include "core/explain.hpp"
#include "core/host_port.hpp"
#include "core/join_request.hpp"
#include "core/offer_request.hpp"
#include "core/status_request.hpp"
#include "core/watch_request.hpp"
#include "core/webhook_request.hpp"
#include "base/crypto.hpp"
#include "net/http/account_page.hpp"
#include "net/http/page.hpp"
#include "net/http/signin.hpp"

namespace netherscope::net::http {

namespace {

constexpr std::string_view unknown_route = "unknown";

route_decision answer(std::string_view route, response res) {
  route_decision decision;
  decision.route = route;
  decision.immediate = std::move(res);
  return decision;
}

// The start of every call: who calls, with which key. The key itself goes no further than
// this function; the actors only ever see its SHA-256.
route_decision new_call(std::string_view route, core::call_kind kind, const request& req,
                        const route_context& ctx) {
  route_decision decision;
  decision.route = route;
  core::api_call call;
  call.kind = kind;
  call.client = ctx.client.subject;
  auto key = core::key_from_headers(req["X-API-Key"], req[beast::http::field::authorization]);
  if (!key.empty())
    call.key_hash = core::hash_api_key(key);
  decision.call = std::move(call);
  return decision;
}

// An API request refused before it became a call of its route: the actors only look up the
// caller's quota for the headers, count nothing, and answer with the error.
route_decision refused_call(std::string_view route, core::call_kind kind, const request& req,
                            const route_context& ctx, core::failure error) {
  auto decision = new_call(route, kind, req, ctx);
  decision.call->peek = true;
  decision.call->invalid = std::move(error);
  return decision;
}

void set_target_label(route_decision& decision) {
  auto& where = decision.call->where;
  decision.target_label = core::host_for_url(where.host) + ":" + std::to_string(where.port);
}

// -- handlers: one per shape of request, named in the table's rows -------------------------

// GET /api/info and /badge (and, through status_call, /api/status and /api/check): the target
// named by the query. A problem with the input is recorded in the call, not answered here,
// because every call of the endpoint is counted, invalid ones included.
route_decision target_call(const route_input& in) {
  auto decision = new_call(in.name, *in.row.call, in.req, in.ctx);
  auto& call = *decision.call;
  auto invalid = [&](std::string message) {
    call.invalid = core::make_failure(core::error_code::invalid_input, std::move(message));
  };
  auto params = in.url.params();
  auto count = [&](std::string_view key) { return params.count(key); };
  auto value = [&](std::string_view key) { return (*params.find(key)).value; };
  std::string error;
  if (count("host") == 0) {
    invalid(std::string{core::host_required});
  } else if (count("host") > 1 || count("port") > 1 || count("tls") > 1) {
    invalid("host, port and tls may each be given once");
  } else if (auto host = core::normalize_host(value("host"), error)) {
    call.where.host = std::move(*host);
    if (count("port") == 1) {
      if (auto port = core::parse_port_text(value("port"), error))
        call.where.port = *port;
      else
        invalid(error);
    }
    if (call.invalid.ok() && count("tls") == 1) {
      if (auto mode = core::parse_tls_text(value("tls"), error))
        call.where.tls = *mode;
      else
        invalid(error);
    }
  } else {
    invalid(error);
  }
  if (call.invalid.ok())
    set_target_label(decision);
  return decision;
}

// GET /api/status and /api/check: the target as for info, and the UDP port of the RakNet ping
// when it is not the target's own.
route_decision status_call(const route_input& in) {
  auto decision = target_call(in);
  auto& call = *decision.call;
  auto params = in.url.params();
  auto count = params.count("raknetPort");
  if (!call.invalid.ok() || count == 0)
    return decision;
  std::string error;
  if (count > 1) {
    call.invalid = core::make_failure(core::error_code::invalid_input, "raknetPort may be given once");
  } else if (auto port = core::parse_port_text((*params.find("raknetPort")).value, error)) {
    call.raknet_port = *port;
  } else {
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                     "raknetPort must be an integer from 1 to 65535 (omit it to "
                                     "ping the target's own port)");
  }
  if (!call.invalid.ok())
    decision.target_label.clear();
  return decision;
}

// A badge is embedded in pages other people view: it counts against the viewer's address,
// never against a key the page happens to send.
route_decision badge_call(const route_input& in) {
  auto decision = target_call(in);
  decision.call->key_hash.clear();
  return decision;
}

// A path under /server/ that names no server.
core::failure server_page_not_found() {
  return core::make_failure(core::error_code::not_found,
                            "a server's page is /server/{host} or /server/{host}:{port} (IPv6 "
                            "in brackets)");
}

// GET /server/{address}: a server's page. Like a badge it is viewed by whoever the link
// reaches, so it counts against the viewer's address, never a key, and invalid input is a
// counted call. ?check=1 asks for a check, counted as GET /api/check is.
route_decision server_page_call(const route_input& in) {
  if (in.params["address"].empty())
    return answer(unknown_route, server_error_response(server_page_not_found(), in.req.version(),
                                                       in.keep_alive));
  auto decision = new_call(in.name, *in.row.call, in.req, in.ctx);
  auto& call = *decision.call;
  call.key_hash.clear();
  std::string error;
  if (auto where = core::parse_server_address(in.params["address"], error))
    call.where = std::move(*where);
  else
    call.invalid = core::make_failure(core::error_code::invalid_input, std::move(error));
  auto params = in.url.params();
  auto count = params.count("check");
  if (call.invalid.ok() && count > 0) {
    if (count == 1 && (*params.find("check")).value == "1")
      call.page_check = true;
    else
      call.invalid = core::make_failure(core::error_code::invalid_input,
                                        "check must be given once, as check=1");
  }
  if (call.invalid.ok())
    set_target_label(decision);
  return decision;
}

// A call whose body is JSON: a body of any other media type is refused unread.
route_decision json_call(const route_input& in) {
  auto decision = new_call(in.name, *in.row.call, in.req, in.ctx);
  if (!core::is_json_media_type(in.req[beast::http::field::content_type]))
    decision.call->invalid = core::make_failure(core::error_code::unsupported_media_type,
                                               "Content-Type must be application/json");
  return decision;
}

// POST /api/offer: the body names the target; as with info, invalid input is still a
// counted call.
route_decision offer_call(const route_input& in) {
  auto decision = json_call(in);
  auto& call = *decision.call;
  if (!call.invalid.ok())
    return decision;
  if (auto parsed = core::parse_offer_body(in.req.body(), call.invalid)) {
    call.where = parsed->where;
    call.network_id = std::move(parsed->network_id);
    call.fresh = parsed->fresh;
    call.expect_ports = std::move(parsed->expect_ports);
    call.probe = parsed->probe;
    set_target_label(decision);
  }
  return decision;
}

// POST /api/join: the body names the target and the join; invalid input is a counted call.
route_decision join_call(const route_input& in) {
  auto decision = json_call(in);
  auto& call = *decision.call;
  if (!call.invalid.ok())
    return decision;
  if (auto parsed = core::parse_join_body(in.req.body(), call.invalid)) {
    call.where = parsed->where;
    call.network_id = std::move(parsed->network_id);
    call.join_protocol = parsed->protocol;
    call.players = parsed->players;
    set_target_label(decision);
  }
  return decision;
}

// POST /api/status: the body names up to max_status_targets targets. A body that cannot be
// served at all is the call's error; a bad entry is only that entry's, and its line says so.
route_decision status_batch_call(const route_input& in) {
  auto decision = json_call(in);
  auto& call = *decision.call;
  if (call.invalid.ok())
    if (auto items = core::parse_status_body(in.req.body(), call.invalid))
      call.batch = std::move(*items);
  return decision;
}

// The account's API routes need the account's key.
route_decision key_call(const route_input& in) {
  auto decision = new_call(in.name, *in.row.call, in.req, in.ctx);
  if (decision.call->key_hash.empty())
    decision.call->invalid = core::make_failure(
      core::error_code::unauthorized,
      "an API key is required: send X-API-Key: <key> or Authorization: Bearer <key>");
  return decision;
}

// A call that takes nothing from the request but who sends it.
route_decision plain_call(const route_input& in) {
  return new_call(in.name, *in.row.call, in.req, in.ctx);
}

// The SHA-256 of the browser's session cookie, when it sent exactly one; ambiguous is set
// when it sent several.
std::string session_hash_of(const request& req, const route_context& ctx, bool& ambiguous) {
  auto session = find_cookie(req, signin_cookie_names(ctx.secure_cookies).session);
  ambiguous = session.ambiguous;
  if (!session.found || session.ambiguous || session.value.empty())
    return {};
  return base::sha256(session.value);
}

// The provider sends the browser back here. The front checks the state against the binding
// cookie set when the flow started, or another site could complete a sign-in in this browser
// (login CSRF), and anyone who saw the URL could redeem it.
route_decision callback_call(const route_input& in) {
  auto decision = new_call(in.name, *in.row.call, in.req, in.ctx);
  auto& call = *decision.call;
  call.key_hash.clear();
  auto params = in.url.params();
  bool repeated = false;
  auto value = [&](std::string_view key) {
    if (params.count(key) > 1)
      repeated = true;
    auto i = params.find(key);
    return i == params.end() ? std::string{} : std::string{(*i).value};
  };
  call.code = value("code");
  call.state = value("state");
  call.provider_error = value("error");
  auto binding = find_cookie(in.req, signin_cookie_names(in.ctx.secure_cookies).binding);
  bool sessions_ambiguous = false;
  call.session_hash = session_hash_of(in.req, in.ctx, sessions_ambiguous);
  // access_denied is the user cancelling at the provider. Any other error is the provider
  // refusing our request (a wrong callback URL, a suspended app): the operator's problem,
  // reported as the provider's failure.
  if (repeated) {
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                "code, state and error may each be given once; start again");
  } else if (call.provider_error == "access_denied") {
    call.invalid = core::make_failure(core::error_code::signin_cancelled,
                                "sign-in was cancelled at GitHub; start again to sign in");
  } else if (!call.provider_error.empty()) {
    call.invalid = core::make_failure(core::error_code::upstream_failure,
                                "GitHub refused the sign-in ("
                                  + core::valid_utf8(call.provider_error, 100) + ")");
  } else if (call.code.empty() || call.state.empty()) {
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                "the provider sent no code or no state; start again");
  } else if (binding.ambiguous) {
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                "this browser sent two sign-in cookies; clear this site's "
                                "cookies and start again");
  } else if (!binding.found || binding.value.empty()) {
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                "this sign-in was not started in this browser, or it took "
                                "longer than 10 minutes; start again");
  } else {
    call.binding = std::move(binding.value);
  }
  return decision;
}

// A request of the account page: the session cookie says who; a POST must come from our own
// page (its Origin, and the token of its form, which the keys actor checks).
route_decision page_call(const route_input& in) {
  route_decision decision;
  decision.route = in.name;
  core::api_call call;
  call.kind = *in.row.call;
  call.client = in.ctx.client.subject;
  bool ambiguous = false;
  call.session_hash = session_hash_of(in.req, in.ctx, ambiguous);
  if (in.req.method() == beast::http::verb::post) {
    if (!same_origin_post(in.req, in.ctx.public_origin))
      call.invalid = core::make_failure(core::error_code::csrf_rejected,
                                  "this request did not come from the account page of "
                                  + std::string{in.ctx.public_origin}
                                  + "; open the account page there and try again");
    else if (auto token = form_field(in.req.body(), "csrf"))
      call.csrf = std::move(*token);
    else
      call.invalid = core::make_failure(core::error_code::csrf_rejected,
                                  "the form's token is missing; reload the account page and "
                                  "try again");
  }
  if (!call.invalid.ok()) {
    // Refused before the session matters.
  } else if (ambiguous) {
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                "this browser sent two session cookies; clear this site's "
                                "cookies and sign in again");
  } else if (call.session_hash.empty()) {
    call.invalid = core::make_failure(core::error_code::unauthorized,
                                "you are not signed in; sign in to see your account");
  }
  decision.call = std::move(call);
  return decision;
}

// The failures of a watch's or a webhook's id that has not their shape: no such one exists.
core::failure unknown_watch_id(std::string_view id) {
  return core::make_failure(core::error_code::unknown_watch,
                           "no watch has the id \"" + core::valid_utf8(id, 64)
                             + "\"; GET /api/watch lists this account's watches");
}

core::failure unknown_webhook_id(std::string_view id) {
  return core::make_failure(core::error_code::unknown_webhook,
                           "no webhook has the id \"" + core::valid_utf8(id, 64)
                             + "\"; GET /api/watch lists each watch's webhooks");
}

// The webhook routes' own part, after the watch's id: the body of a new webhook, or the
// webhook's id.
template <class Invalid>
void read_webhook_call(const route_input& in, core::api_call& call, Invalid& invalid) {
  if (call.kind == core::call_kind::webhook_create) {
    if (!core::is_json_media_type(in.req[beast::http::field::content_type]))
      invalid(core::make_failure(core::error_code::unsupported_media_type,
                                "Content-Type must be application/json"));
    if (!call.invalid.ok())
      return;
    core::failure error;
    if (auto spec = core::parse_webhook_body(in.req.body(), error))
      call.webhook = std::move(*spec);
    else
      invalid(std::move(error));
  } else if (call.kind != core::call_kind::watch_delete) {
    call.webhook_id = std::string{in.params["wid"]};
    if (!core::is_webhook_id(call.webhook_id))
      invalid(unknown_webhook_id(call.webhook_id));
  }
}

// The watch routes: the account is the API key's, or, without one, the account page's
// session's. A change made with the session must come from our own page (its Origin), since
// the browser sends the cookie whichever site asks; with a key there is nothing to forge.
route_decision watch_call(const route_input& in) {
  auto decision = new_call(in.name, *in.row.call, in.req, in.ctx);
  auto& call = *decision.call;
  auto invalid = [&](core::failure error) {
    if (call.invalid.ok())
      call.invalid = std::move(error);
  };
  if (call.key_hash.empty()) {
    bool ambiguous = false;
    call.session_hash = session_hash_of(in.req, in.ctx, ambiguous);
    if (ambiguous)
      invalid(core::make_failure(core::error_code::invalid_input,
                                "this browser sent two session cookies; clear this site's "
                                "cookies and sign in again"));
    else if (call.session_hash.empty())
      invalid(core::make_failure(core::error_code::unauthorized,
                                "an API key or a signed-in session is required: send X-API-Key: "
                                "<key> or Authorization: Bearer <key>"));
    else if (in.req.method() != beast::http::verb::get
             && !same_origin_post(in.req, in.ctx.public_origin))
      invalid(core::make_failure(core::error_code::csrf_rejected,
                                "a change made with the session cookie must come from a page of "
                                + std::string{in.ctx.public_origin}
                                + "; other sites and programs send an API key"));
  }
  switch (call.kind) {
    case core::call_kind::watch_create:
      if (!core::is_json_media_type(in.req[beast::http::field::content_type]))
        invalid(core::make_failure(core::error_code::unsupported_media_type,
                                  "Content-Type must be application/json"));
      if (call.invalid.ok()) {
        core::failure error;
        if (auto spec = core::parse_watch_body(in.req.body(), error))
          call.watch = std::move(*spec);
        else
          invalid(std::move(error));
      }
      break;
    case core::call_kind::watch_delete:
    case core::call_kind::webhook_create:
    case core::call_kind::webhook_delete:
    case core::call_kind::webhook_test:
      call.watch_id = std::string{in.params["id"]};
      if (!core::is_watch_id(call.watch_id))
        invalid(unknown_watch_id(call.watch_id));
      read_webhook_call(in, call, invalid);
      break;
    default:
      break;
  }
  return decision;
}

// The account page's forms for watches and webhooks: a POST of that page (its Origin and
// token, as page_call checks them), then the form's fields, read by the parsers the API's
// routes use; the watch actor judges the rest as it does for the API.
route_decision page_watch_call(const route_input& in) {
  auto decision = page_call(in);
  auto& call = *decision.call;
  if (!call.invalid.ok())
    return decision;
  auto body = in.req.body();
  // A field sent twice reads as missing, as the token does.
  auto field = [&](std::string_view name) { return form_field(body, name).value_or(""); };
  core::failure error;
  if (call.kind == core::call_kind::page_watch_add) {
    if (auto spec = core::parse_watch_text(field("host"), field("port"), field("periodSeconds"),
                                          form_field(body, "public").has_value(), error))
      call.watch = std::move(*spec);
    else
      call.invalid = std::move(error);
    return decision;
  }
  call.watch_id = field("watch");
  if (!core::is_watch_id(call.watch_id)) {
    call.invalid = unknown_watch_id(call.watch_id);
  } else if (call.kind == core::call_kind::page_webhook_add) {
    if (auto spec = core::parse_webhook_text(field("url"), field("format"), error))
      call.webhook = std::move(*spec);
    else
      call.invalid = std::move(error);
  } else if (call.kind == core::call_kind::page_webhook_delete) {
    call.webhook_id = field("webhook");
    if (!core::is_webhook_id(call.webhook_id))
      call.invalid = unknown_webhook_id(call.webhook_id);
  }
  return decision;
}

// GET /api/explain[/{code}]: static text from the data file, answered here, outside the
// quotas, with CORS like every /api route.
route_decision explain_answer(const route_input& in) {
  auto code = in.params["code"];
  auto body = code.empty() ? std::optional<std::string>{core::render_explanation_index()}
                           : core::render_explanation(code);
  response res;
  if (body) {
    res = make_json(beast::http::status::ok, std::move(*body), in.req.version(), in.keep_alive);
    res.set(beast::http::field::cache_control, "public, max-age=3600");
  } else {
    res = error_response(core::make_failure(core::error_code::unknown_code,
                                      "nothing explains \"" + core::valid_utf8(code, 64)
                                        + "\"; GET /api/explain lists the codes"),
                         in.req.version(), in.keep_alive);
  }
  add_cors(res);
  return answer(in.name, std::move(res));
}

route_decision healthz_answer(const route_input& in) {
  return answer(in.name,
                make_json(beast::http::status::ok, R"({"ok":true})", in.req.version(), in.keep_alive));
}

route_decision openapi_answer(const route_input& in) {
  auto res = make_json(beast::http::status::ok, std::string{in.ctx.openapi_json}, in.req.version(),
                       in.keep_alive);
  res.set(beast::http::field::cache_control, "public, max-age=300");
  add_cors(res);
  return answer(in.name, std::move(res));
}

// The web page and its files; the route's name is the file's path, since the page's paths
// live as long as the binary.
route_decision page_file_answer(const route_input& in) {
  return answer(in.name, page_response(*find_page_asset(in.path), in.req, in.keep_alive));
}

// GET /api/history and /chart.svg: the server as for info, and the range (24h when none is
// given).
void read_range(const route_input& in, core::api_call& call) {
  auto params = in.url.params();
  auto count = params.count("range");
  if (!call.invalid.ok() || count == 0)
    return;
  auto text = (*params.find("range")).value;
  auto range = count == 1 ? core::parse_range(text) : std::nullopt;
  if (range)
    call.range = *range;
  else
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                     "range must be given once, as 24h, 7d, 30d or 90d");
}

// GET /api/history: private history is its owner's, by API key or by the account page's
// session.
route_decision history_call(const route_input& in) {
  auto decision = target_call(in);
  auto& call = *decision.call;
  read_range(in, call);
  if (call.key_hash.empty()) {
    bool ambiguous = false;
    call.session_hash = session_hash_of(in.req, in.ctx, ambiguous);
  }
  return decision;
}

// GET /chart.svg is embedded in pages other people view, as a badge is: public history only,
// counted against the viewer's address. It draws the verdicts unless metric=players.
route_decision chart_call(const route_input& in) {
  auto decision = target_call(in);
  auto& call = *decision.call;
  call.key_hash.clear();
  read_range(in, call);
  auto params = in.url.params();
  auto count = params.count("metric");
  if (!call.invalid.ok() || count == 0)
    return decision;
  auto metric = count == 1 ? core::parse_chart_metric((*params.find("metric")).value)
                           : std::nullopt;
  if (metric)
    call.metric = *metric;
  else
    call.invalid = core::make_failure(core::error_code::invalid_input,
                                      "metric must be given once, as verdicts or players");
  return decision;
}

// -- the table ------------------------------------------------------------------------------

constexpr method_set get{beast::http::verb::get};
constexpr method_set head{beast::http::verb::head};
constexpr method_set post{beast::http::verb::post};
constexpr method_set delete_{beast::http::verb::delete_};

// Matched in order, the routes called most first. A route added later is one row here.
constexpr route_row table[] = {
  // pattern, methods, kind, call, handler, while draining, log name
  {"/api/offer", post, route_kind::api, core::call_kind::offer, offer_call, drain_rule::refuse},
  {"/api/info", get, route_kind::api, core::call_kind::info, target_call, drain_rule::refuse},
  {"/api/check", get, route_kind::api, core::call_kind::check, status_call, drain_rule::refuse},
  {"/api/join", post, route_kind::api, core::call_kind::join, join_call, drain_rule::refuse},
  {"/api/status", get, route_kind::api, core::call_kind::status, status_call, drain_rule::refuse},
  {"/api/status", post, route_kind::api, core::call_kind::status_batch, status_batch_call,
   drain_rule::refuse},
  {"/api/explain", get, route_kind::api, std::nullopt, explain_answer},
  {"/api/explain/{code}", get, route_kind::api, std::nullopt, explain_answer, drain_rule::serve,
   "/api/explain"},
  {"/api/account", get, route_kind::api, core::call_kind::account_get, key_call},
  {"/api/account/key", post, route_kind::api, core::call_kind::account_rotate, key_call},
  {"/api/account/key", delete_, route_kind::api, core::call_kind::account_revoke, key_call},
  {"/api/watch", get, route_kind::api, core::call_kind::watch_list, watch_call},
  {"/api/watch", post, route_kind::api, core::call_kind::watch_create, watch_call},
  {"/api/watch/{id}", delete_, route_kind::api, core::call_kind::watch_delete, watch_call},
  {"/api/history", get, route_kind::api, core::call_kind::history, history_call},
  {"/api/watch/{id}/webhooks", post, route_kind::api, core::call_kind::webhook_create, watch_call},
  {"/api/watch/{id}/webhooks/{wid}", delete_, route_kind::api, core::call_kind::webhook_delete,
   watch_call},
  {"/api/watch/{id}/webhooks/{wid}/test", post, route_kind::api, core::call_kind::webhook_test,
   watch_call},
  {"/badge", get, route_kind::badge, core::call_kind::badge, badge_call, drain_rule::refuse},
  {"/badge.png", get, route_kind::badge, core::call_kind::badge_png, badge_call,
   drain_rule::refuse},
  {"/server/{address}", get, route_kind::server, core::call_kind::server_page, server_page_call,
   drain_rule::refuse, "/server"},
  {"/chart.svg", get, route_kind::badge, core::call_kind::chart, chart_call},
  {"/auth/github/login", get, route_kind::account, core::call_kind::signin_start, plain_call},
  {"/auth/github/callback", get, route_kind::account, core::call_kind::signin_finish, callback_call},
  {account_page_path, get, route_kind::account, core::call_kind::page_view, page_call},
  {"/account/session", get, route_kind::account, core::call_kind::page_session, page_call},
  {"/account/key", post, route_kind::account, core::call_kind::page_new_key, page_call},
  {"/account/key/revoke", post, route_kind::account, core::call_kind::page_revoke, page_call},
  {"/account/watch", post, route_kind::account, core::call_kind::page_watch_add, page_watch_call},
  {"/account/watch/delete", post, route_kind::account, core::call_kind::page_watch_delete,
   page_watch_call},
  {"/account/webhook", post, route_kind::account, core::call_kind::page_webhook_add,
   page_watch_call},
  {"/account/webhook/delete", post, route_kind::account, core::call_kind::page_webhook_delete,
   page_watch_call},
  {"/auth/signout", post, route_kind::account, core::call_kind::page_sign_out, page_call},
  {"/healthz", get | head, route_kind::health, std::nullopt, healthz_answer},
  {"/readyz", get | head, route_kind::health, core::call_kind::ready, plain_call, drain_rule::refuse_when_leaving},
  {"/metrics", get, route_kind::health, core::call_kind::metrics, plain_call},
  {"/openapi.json", get | head, route_kind::document, std::nullopt, openapi_answer},
  {{}, get | head, route_kind::page, std::nullopt, page_file_answer},
};

// What the router assumes of every row, checked when it compiles.
constexpr bool well_formed(const route_row& row) {
  auto under_api = row.pattern.substr(0, 5) == "/api/";
  if (row.kind == route_kind::page)
    return row.pattern.empty() && !row.call;
  return well_formed_pattern(row.pattern) && !row.methods.empty() && row.handler != nullptr
         // CORS, the preflight and the quota of a refused request are the API's, by kind.
         && under_api == (row.kind == route_kind::api)
         // A refusal while shutting down is rendered as the answer to the row's call.
         && (row.draining == drain_rule::serve || row.call);
}

constexpr bool table_well_formed() {
  for (const auto& row : table)
    if (!well_formed(row))
      return false;
  return true;
}

static_assert(table_well_formed(), "a row of the route table breaks the rules of route_row");

// -- dispatch -------------------------------------------------------------------------------

// Whether path is one of the row's; name is then what it is logged under.
bool matches(const route_row& row, std::string_view path, path_params& params,
             std::string_view& name) {
  params.clear();
  if (row.kind == route_kind::page) {
    auto* asset = find_page_asset(path);
    if (asset == nullptr)
      return false;
    name = asset->path;
    return true;
  }
  if (!match_pattern(row.pattern, path, params))
    return false;
  name = row.name();
  return true;
}

core::failure shutdown_failure() {
  return core::make_failure(core::error_code::unavailable, "the service is shutting down");
}

// Once shutdown began, a row that drains is refused: as a call that only looks up the
// caller's quota on the API, else at once with the answer its call would get.
route_decision shutting_down(const route_row& row, std::string_view name, const request& req,
                             const route_context& ctx) {
  if (row.kind == route_kind::api)
    return refused_call(name, *row.call, req, ctx, shutdown_failure());
  core::api_outcome refused;
  refused.error = shutdown_failure();
  return answer(name, render_api(std::move(refused), *row.call, req.version(), false));
}

core::failure wrong_method(const request& req, std::string_view name, const std::string& allow) {
  return core::make_failure(core::error_code::method_not_allowed,
                      std::string{req.method_string()} + " is not allowed on "
                        + std::string{name} + "; use " + allow);
}

// A method none of the path's rows takes. On the API, OPTIONS is a CORS preflight, and a
// wrong method on a route the actors answer is still a call of it, counted and shown its
// quota (render_api adds the Allow).
route_decision method_not_allowed(const route_row& row, std::string_view name,
                                  method_set allowed, const request& req,
                                  const route_context& ctx) {
  auto allow = allowed.text();
  auto api = row.kind == route_kind::api;
  if (api && req.method() == beast::http::verb::options)
    return answer(name, preflight_response(allow, req));
  if (api && row.call) {
    auto decision = new_call(name, *row.call, req, ctx);
    decision.call->invalid = wrong_method(req, name, allow);
    return decision;
  }
  auto error = wrong_method(req, name, allow);
  auto res = row.kind == route_kind::server
               ? server_error_response(error, req.version(), req.keep_alive())
               : error_response(error, req.version(), req.keep_alive());
  res.set(beast::http::field::allow, allow);
  if (api)
    add_cors(res);
  return answer(name, std::move(res));
}

// The API row a path names, for a request refused before routing: its route, and so its
// quota, is what the refusal shows.
std::pair<std::string_view, core::call_kind> api_route_of(std::string_view path) {
  path_params params;
  std::string_view name;
  for (const auto& row : table)
    if (row.kind == route_kind::api && row.call && matches(row, path, params, name))
      return {name, *row.call};
  return {unknown_route, core::call_kind::unknown_api};
}

// The path of a request target, read without parsing it: for targets that do not parse.
std::string_view raw_path(std::string_view target) {
  return target.substr(0, target.find_first_of("?#"));
}

// A request refused by the edge before routing: under /api/ it still gets the route's CORS
// and quota headers (a look-up through the actors); elsewhere an immediate answer.
route_decision refuse(const request& req, const route_context& ctx, core::failure error,
                      bool keep_alive) {
  auto path = raw_path(req.target());
  if (is_api_path(path)) {
    auto [name, kind] = api_route_of(path);
    return refused_call(name, kind, req, ctx, std::move(error));
  }
  if (is_server_page_path(path))
    return answer(unknown_route, server_error_response(error, req.version(), keep_alive));
  return answer(unknown_route, error_response(error, req.version(), keep_alive));
}

// A request target with its path's [ and ] %-encoded. Browsers send a server page's IPv6
// address with raw brackets, which RFC 3986 allows only in a URL's host; encoded, the path
// decodes back to the address as it was typed.
std::string with_brackets_encoded(std::string_view target) {
  auto end = target.find_first_of("?#");
  auto path = target.substr(0, end);
  std::string out;
  out.reserve(target.size() + 8);
  for (char c : path) {
    if (c == '[')
      out += "%5B";
    else if (c == ']')
      out += "%5D";
    else
      out += c;
  }
  if (end != std::string_view::npos)
    out += target.substr(end);
  return out;
}

} // namespace

route_table routes() {
  return {table, std::size(table)};
}

bool is_api_path(std::string_view path) {
  return path.substr(0, 5) == "/api/";
}

bool is_server_page_path(std::string_view path) {
  return path == "/server" || path.substr(0, 8) == "/server/";
}

std::string allowed_methods(core::call_kind kind) {
  method_set allowed;
  for (const auto& row : table)
    if (row.call == kind)
      for (const auto& other : table)
        if (other.pattern == row.pattern)
          allowed |= other.methods;
  return allowed.text();
}

response render_unread_error(const core::failure& error, std::string_view raw_target) {
  auto res = error_response(error, 11, false);
  if (is_api_path(raw_path(raw_target)))
    add_cors(res);
  return res;
}

route_decision route(const request& req, const route_context& ctx) {
  auto keep_alive = req.keep_alive() && !ctx.draining && !ctx.leaving;
  auto parsed = boost::urls::parse_origin_form(req.target());
  // Outlives the url_view parsed from it, which the handler reads.
  std::string repaired;
  if (!parsed && is_server_page_path(raw_path(req.target()))) {
    repaired = with_brackets_encoded(req.target());
    parsed = boost::urls::parse_origin_form(repaired);
  }
  if (!parsed) {
    // Raw brackets or a broken %-escape in an API query: not a call of the route, so it is
    // not counted, but it is still answered like one. The message was framed soundly, so the
    // connection may go on.
    return refuse(req, ctx,
                  core::make_failure(core::error_code::invalid_input,
                               "the request target is not a valid path or query (RFC 3986); "
                               "percent-encode reserved characters such as [ ] in values"),
                  keep_alive);
  }
  auto url = *parsed;
  auto path = url.path();
  auto method = req.method();

  // The first row of the path that takes the method answers. When none does, the path's
  // first row answers for all of them, with the methods they take together.
  path_params params;
  const route_row* first = nullptr;
  std::string_view first_name;
  method_set allowed;
  for (const auto& row : table) {
    std::string_view name;
    if (!matches(row, path, params, name))
      continue;
    if (row.methods.contains(method)) {
      if ((row.draining == drain_rule::refuse && ctx.draining)
          || (row.draining == drain_rule::refuse_when_leaving && (ctx.draining || ctx.leaving)))
        return shutting_down(row, name, req, ctx);
      return row.handler(route_input{req, url, path, ctx, row, name, params, keep_alive});
    }
    if (first == nullptr) {
      first = &row;
      first_name = name;
    }
    allowed |= row.methods;
  }
  if (first != nullptr)
    return method_not_allowed(*first, first_name, allowed, req, ctx);

  auto not_found = core::make_failure(core::error_code::not_found, "no route " + std::string{path}
                                                         + "; see /openapi.json for the API");
  if (is_api_path(path)) {
    auto decision = new_call(unknown_route, core::call_kind::unknown_api, req, ctx);
    decision.call->invalid = std::move(not_found);
    return decision;
  }
  if (is_server_page_path(path))
    return answer(unknown_route,
                  server_error_response(server_page_not_found(), req.version(), keep_alive));
  return answer(unknown_route, error_response(not_found, req.version(), keep_alive));
}

route_decision route_refused(const request& req, const route_context& ctx, core::failure error) {
  return refuse(req, ctx, std::move(error), false);
}

route_decision route_oversized(const request& req, const route_context& ctx,
                               std::size_t body_limit) {
  auto too_large = core::make_failure(core::error_code::payload_too_large,
                                "the request body is larger than " + std::to_string(body_limit)
                                  + " bytes");
  // An API call is still a call of its route, counted and shown its quota like any other.
  auto decision = route(req, ctx);
  if (decision.call) {
    // A refusal made before routing (shutdown, a target that does not parse) stands, as does
    // a wrong method: the body was never going to be read.
    if (!decision.call->peek && decision.call->invalid.code != core::error_code::method_not_allowed)
      decision.call->invalid = std::move(too_large);
    return decision;
  }
  return answer(unknown_route, error_response(too_large, req.version(), false));
}

} // namespace netherscope::net::http
