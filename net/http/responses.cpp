#include "net/http/responses.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

#include <boost/beast/http/field.hpp>

#include "core/api_json.hpp"
#include "core/error_table.hpp"
#include "core/history_json.hpp"
#include "net/http/account_page.hpp"
#include "net/http/badge.hpp"
#include "net/http/badge_png.hpp"
#include "net/http/chart.hpp"
#include "net/http/router.hpp"
#include "net/http/server_page.hpp"
#include "net/http/signin.hpp"

namespace netherscope::net::http {

namespace {

/// The HTTP status of a reply carrying code, from the error table.
beast::http::status status_of(core::error_code code) {
  return beast::http::int_to_status(core::lookup(code).status);
}

// Age is not among the headers browsers show scripts by default, and a page needs it to
// tell how old a cached offer is.
constexpr std::string_view exposed_headers
  = "X-RateLimit-Scope, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, "
    "Retry-After, Age, X-Request-Id";

void add_quota(response& res, const core::quota_verdict& q) {
  res.set("X-RateLimit-Scope", q.scope == core::quota_scope::key ? "key" : "ip");
  res.set("X-RateLimit-Limit", std::to_string(q.limit));
  // A verdict the store could not give (unavailable) knows the limit and the reset, but not
  // how many calls are left: better no Remaining than a made-up one.
  if (q.error.code != core::error_code::unavailable)
    res.set("X-RateLimit-Remaining", std::to_string(q.remaining));
  res.set("X-RateLimit-Reset", std::to_string(q.reset));
}

// Every refusal that says when to come back (the quota, the sign-in and key limits) says it
// in Retry-After as well (RFC 9110 §10.2.3).
void add_retry_after(response& res, const core::failure& error) {
  if (status_of(error.code) == beast::http::status::too_many_requests && error.retry_after > 0)
    res.set(beast::http::field::retry_after, std::to_string(error.retry_after));
}

// An HTML page with the headers every page carries.
response html_response(beast::http::status status, std::string body, unsigned version,
                       bool keep_alive) {
  auto res = make_response(status, std::move(body), "text/html; charset=utf-8", version,
                           keep_alive);
  add_page_headers(res);
  return res;
}

// A redirect that leaks nothing: no page, no Referer from the URL it leaves.
response redirect_response(beast::http::status status, std::string_view location, unsigned version,
                           bool keep_alive) {
  auto res = make_response(status, {}, "text/plain", version, keep_alive);
  res.set(beast::http::field::location, location);
  res.set("Referrer-Policy", "no-referrer");
  return res;
}

response render_signin(core::api_outcome&& outcome, unsigned version, bool keep_alive, bool secure) {
  auto names = signin_cookie_names(secure);
  response res;
  if (!outcome.error.ok()) {
    res = html_response(status_of(outcome.error.code), render_signin_error(outcome.error),
                        version, keep_alive);
    add_retry_after(res, outcome.error);
  } else if (!outcome.account.new_key.empty()) {
    // A new account: its first key, shown once, on this page.
    res = html_response(beast::http::status::ok, render_account_page(outcome), version,
                        keep_alive);
  } else {
    // An account that existed: its key is untouched; the account page shows the rest, at
    // an address without the provider's code in it.
    res = redirect_response(beast::http::status::see_other, account_page_path, version, keep_alive);
  }
  // The attempt is over either way: its binding is single-use.
  res.insert(beast::http::field::set_cookie, cleared_cookie(names.binding, secure));
  if (!outcome.account.session.empty())
    res.insert(beast::http::field::set_cookie, session_cookie(outcome.account.session, secure));
  return res;
}

// GET /account/session: the page at / asks whether this browser is signed in. Not being signed
// in is an answer, not an error, so the page's script sees 200 either way; the cookie is a
// same-origin credential, so the reply gets no CORS header and is never stored.
response render_session(core::api_outcome&& outcome, unsigned version, bool keep_alive, bool secure) {
  response res;
  auto signed_out = outcome.error.code == core::error_code::unauthorized;
  if (outcome.error.ok() || signed_out)
    res = make_json(beast::http::status::ok, render_session_json(outcome.account, !signed_out),
                    version, keep_alive);
  else
    res = error_response(outcome.error, version, keep_alive);
  // A session that is unknown or expired is of no use to keep.
  if (signed_out)
    res.set(beast::http::field::set_cookie, cleared_cookie(signin_cookie_names(secure).session, secure));
  res.set(beast::http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  return res;
}

response render_page(core::api_outcome&& outcome, core::call_kind kind, unsigned version, bool keep_alive,
                     bool secure) {
  auto names = signin_cookie_names(secure);
  if (!outcome.error.ok()) {
    auto res = html_response(status_of(outcome.error.code),
                             render_page_error(outcome.error), version, keep_alive);
    add_retry_after(res, outcome.error);
    // A session that is unknown or expired is of no use to keep.
    if (outcome.error.code == core::error_code::unauthorized)
      res.set(beast::http::field::set_cookie, cleared_cookie(names.session, secure));
    return res;
  }
  if (outcome.signed_out) {
    auto res = html_response(beast::http::status::ok, render_signed_out_page(), version, keep_alive);
    res.set(beast::http::field::set_cookie, cleared_cookie(names.session, secure));
    return res;
  }
  // A form that changed a watch or a webhook sends the browser back to the page, so a reload
  // does not post it again; only a new webhook's secret, shown once, is shown at once.
  if (core::is_page_watch_call(kind) && outcome.new_webhook_secret.empty())
    return redirect_response(beast::http::status::see_other, account_page_path, version,
                             keep_alive);
  std::string_view notice;
  if (kind == core::call_kind::page_revoke)
    notice = "Your key is revoked: calls with it now answer 401. Ask for a new key when you "
             "need one.";
  return html_response(beast::http::status::ok, render_account_page(outcome, notice), version,
                       keep_alive);
}

// A badge: an SVG for every outcome, so an <img> never shows a broken image. Only a status
// of the target (online, offline) is 200 and cached for a minute; an error keeps its status.
// As a PNG (for unfurlers) it is the same badge rasterized; should librsvg fail, the SVG goes
// instead, still an image with the call's status.
response badge_response(const core::api_outcome& outcome, unsigned version, bool keep_alive,
                        bool png = false) {
  auto view = outcome.error.ok() ? badge_from_status(outcome.body)
                                 : badge_from_failure(outcome.error);
  auto status = view.state == badge_state::error ? status_of(outcome.error.code)
                                                 : beast::http::status::ok;
  auto svg = render_badge(view);
  auto drawn = png ? badge_png(svg) : nullptr;
  auto res = drawn ? make_response(status, *drawn, "image/png", version, keep_alive)
                   : make_response(status, std::move(svg), "image/svg+xml", version, keep_alive);
  if (status == beast::http::status::ok)
    res.set(beast::http::field::cache_control, "max-age=60");
  res.set("Content-Security-Policy", badge_csp);
  if (outcome.error.code == core::error_code::quota_exhausted && outcome.error.retry_after > 0)
    res.set(beast::http::field::retry_after, std::to_string(outcome.error.retry_after));
  add_cors(res);
  if (outcome.has_quota)
    add_quota(res, outcome.quota);
  return res;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

// A server's page, or the HTML page of the error that stopped it. A page a visitor's check
// made is of that moment: search engines are asked not to keep it.
response server_page_response(const core::api_outcome& outcome, unsigned version,
                              bool keep_alive, std::string_view public_origin) {
  auto res = outcome.error.ok()
               ? html_response(beast::http::status::ok,
                               render_server_page(server_page_view_of(outcome, unix_now()),
                                                  public_origin),
                               version, keep_alive)
               : server_error_response(outcome.error, version, keep_alive);
  if (outcome.checked)
    res.set("X-Robots-Tag", "noindex");
  if (outcome.has_quota)
    add_quota(res, outcome.quota);
  return res;
}

// A chart is sent as a badge is: an error is a badge saying so, and the chart is cached for
// the rest of its cell, during which it cannot change.
response chart_response(const core::api_outcome& outcome, unsigned version, bool keep_alive) {
  if (!outcome.error.ok() || !outcome.history)
    return badge_response(outcome, version, keep_alive);
  const auto& view = *outcome.history;
  auto res = make_response(beast::http::status::ok,
                           render_chart(view.host, view.port, view.slice, outcome.metric),
                           "image/svg+xml",
                           version, keep_alive);
  auto rest = std::clamp<std::int64_t>(view.slice.window.to - unix_now(), 1,
                                       core::cell_seconds(view.slice.range));
  res.set(beast::http::field::cache_control, "max-age=" + std::to_string(rest));
  res.set("Content-Security-Policy", badge_csp);
  add_cors(res);
  if (outcome.has_quota)
    add_quota(res, outcome.quota);
  return res;
}

// The head of POST /api/status's NDJSON stream: its lines follow as they come. HTTP/1.1
// frames them as chunks; an HTTP/1.0 client has no chunks, so the body ends with the
// connection. The quota headers show the quota as it stood when the call began.
response stream_head(const core::api_outcome& outcome, unsigned version, bool keep_alive) {
  auto res = make_response(beast::http::status::ok, {}, "application/x-ndjson", version,
                           version >= 11 && keep_alive);
  res.erase(beast::http::field::content_length);
  if (version >= 11)
    res.chunked(true);
  else
    res.set(beast::http::field::connection, "close");
  add_cors(res);
  if (outcome.has_quota)
    add_quota(res, outcome.quota);
  return res;
}

} // namespace

bool is_stream_head(const core::api_outcome& outcome, core::call_kind kind) {
  return kind == core::call_kind::status_batch && outcome.streaming && outcome.error.ok();
}

response make_response(beast::http::status status, std::string body, std::string_view content_type,
                       unsigned version, bool keep_alive) {
  response res{status, version};
  res.set(beast::http::field::content_type, content_type);
  res.set(beast::http::field::cache_control, "no-store");
  res.set("X-Content-Type-Options", "nosniff");
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

response make_json(beast::http::status status, std::string body, unsigned version, bool keep_alive) {
  return make_response(status, std::move(body), "application/json", version, keep_alive);
}

// Browsers may call the API from any page: it is public, takes no cookies, and the
// rate-limit headers are how a page learns where it stands.
void add_cors(response& res) {
  res.set(beast::http::field::access_control_allow_origin, "*");
  res.set(beast::http::field::access_control_expose_headers, exposed_headers);
}

response server_error_response(const core::failure& error, unsigned version, bool keep_alive) {
  auto res = html_response(status_of(error.code), render_server_error(error), version, keep_alive);
  add_retry_after(res, error);
  return res;
}

response error_response(const core::failure& error, unsigned version, bool keep_alive) {
  auto res = make_json(status_of(error.code), core::render_error(error), version, keep_alive);
  add_retry_after(res, error);
  return res;
}

// A CORS preflight: browsers send it before a cross-origin call with custom headers.
response preflight_response(std::string_view methods, const request& req) {
  response res{beast::http::status::no_content, req.version()};
  add_cors(res);
  res.set(beast::http::field::access_control_allow_methods, methods);
  res.set(beast::http::field::access_control_allow_headers, "Content-Type, X-API-Key, Authorization");
  res.set(beast::http::field::access_control_max_age, "86400");
  res.keep_alive(req.keep_alive());
  res.prepare_payload();
  return res;
}

response render_api(core::api_outcome&& outcome, core::call_kind kind, unsigned version, bool keep_alive,
                    bool secure_cookies, std::string_view public_origin) {
  if (kind == core::call_kind::signin_finish)
    return render_signin(std::move(outcome), version, keep_alive, secure_cookies);
  if (kind == core::call_kind::page_session)
    return render_session(std::move(outcome), version, keep_alive, secure_cookies);
  if (is_page_call(kind))
    return render_page(std::move(outcome), kind, version, keep_alive, secure_cookies);
  switch (kind) {
    case core::call_kind::signin_start: {
      if (!outcome.error.ok())
        return html_response(status_of(outcome.error.code),
                             render_signin_error(outcome.error), version, keep_alive);
      auto res = redirect_response(beast::http::status::found, outcome.redirect, version, keep_alive);
      res.set(beast::http::field::set_cookie, binding_cookie(outcome.binding, secure_cookies));
      return res;
    }
    case core::call_kind::ready:
      if (!outcome.error.ok())
        return error_response(outcome.error, version, keep_alive);
      return make_json(beast::http::status::ok, R"({"ok":true})", version, keep_alive);
    case core::call_kind::badge:
      return badge_response(outcome, version, keep_alive);
    case core::call_kind::badge_png:
      return badge_response(outcome, version, keep_alive, true);
    case core::call_kind::server_page:
      return server_page_response(outcome, version, keep_alive, public_origin);
    case core::call_kind::chart:
      return chart_response(outcome, version, keep_alive);
    case core::call_kind::status_batch:
      if (is_stream_head(outcome, kind))
        return stream_head(outcome, version, keep_alive);
      break;
    case core::call_kind::metrics:
      // The session fills the body: it holds the edge's counters (render_metrics).
      return make_response(beast::http::status::ok, {}, "text/plain; version=0.0.4", version,
                           keep_alive);
    default:
      break;
  }
  response res;
  if (!outcome.error.ok()) {
    res = error_response(outcome.error, version, keep_alive);
  } else if (kind == core::call_kind::history && outcome.history) {
    const auto& view = *outcome.history;
    res = make_json(beast::http::status::ok, core::render_history(view.host, view.port, view.slice, view.is_public),
                    version, keep_alive);
  } else if (kind == core::call_kind::account_get || kind == core::call_kind::account_rotate
             || kind == core::call_kind::account_revoke) {
    res = make_json(beast::http::status::ok, render_account(outcome.account), version, keep_alive);
  } else {
    // The body moves: a cached offer's few KB are copied no more than they must be.
    auto status = kind == core::call_kind::watch_create || kind == core::call_kind::webhook_create
                    ? beast::http::status::created
                    : beast::http::status::ok;
    res = make_json(status,
                    outcome.shared_body ? std::string{*outcome.shared_body}
                                        : std::move(outcome.body),
                    version, keep_alive);
    // RFC 9111 5.1: how long ago the target gave the answer a cached reply carries.
    if (outcome.age >= 0)
      res.set(beast::http::field::age, std::to_string(outcome.age));
  }
  if (outcome.error.code == core::error_code::method_not_allowed)
    res.set(beast::http::field::allow, allowed_methods(kind));
  add_cors(res);
  if (outcome.has_quota)
    add_quota(res, outcome.quota);
  return res;
}

response render_plain_error(const core::failure& error, unsigned version, bool keep_alive) {
  return error_response(error, version, keep_alive);
}

} // namespace netherscope::net::http
