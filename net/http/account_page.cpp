#include "net/http/account_page.hpp"

#include "net/api/error_table.hpp"
#include "net/base/crypto.hpp"

namespace netherscope::net {

namespace {

// The one inline style of every page. The Content-Security-Policy allows exactly this text
// by its SHA-256, so any other inline style (or an injected one) does not apply.
constexpr std::string_view page_style
  = "body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.5}\n"
    "code,pre{background:#f3f3f3;padding:.2rem .4rem;border-radius:4px;word-break:break-all}\n"
    "table{border-collapse:collapse}td,th{padding:.3rem .8rem;border-bottom:1px solid #ddd;"
    "text-align:left}\n"
    ".warn{background:#fff4d6;padding:.6rem;border-radius:4px}\n"
    "form{display:inline-block;margin:0 .5rem .5rem 0}";

std::string page_head() {
  std::string head = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>netherscope account</title>
<style>)";
  head += page_style;
  head += "</style></head><body>\n";
  return head;
}

constexpr std::string_view page_tail = "</body></html>\n";

std::string row(std::string_view name, std::uint64_t used, std::uint64_t limit) {
  return "<tr><td><code>" + std::string{name} + "</code></td><td>" + std::to_string(used)
         + "</td><td>" + std::to_string(limit) + "</td><td>"
         + std::to_string(used >= limit ? 0 : limit - used) + "</td></tr>\n";
}

// A form that posts only the session's token: the button is the whole request.
std::string post_button(std::string_view action, std::string_view csrf, std::string_view label) {
  return "<form method=\"post\" action=\"" + std::string{action}
         + "\"><input type=\"hidden\" name=\"csrf\" value=\"" + html_escape(csrf)
         + "\"><button type=\"submit\">" + std::string{label} + "</button></form>\n";
}

std::string error_body(std::string_view title, const failure& error, std::string_view link,
                       std::string_view link_text) {
  std::string page = page_head();
  // The machine code is what a user can quote when asking for help, and what a script or
  // test checks instead of the sentence.
  page += "<h1>" + std::string{title} + "</h1>\n<p>" + html_escape(error.message)
          + "</p>\n<p>Error code: <code id=\"error-code\">"
          + std::string{lookup(error.code).machine_code} + "</code></p>\n<p><a href=\""
          + std::string{link} + "\">" + std::string{link_text} + "</a></p>\n";
  page += page_tail;
  return page;
}

} // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_account_page(const account_view& account, std::string_view notice) {
  std::string page = page_head();
  page += "<h1>Signed in as " + html_escape(account.login) + "</h1>\n";
  if (!account.new_key.empty()) {
    page += "<p>Your new API key:</p>\n<pre id=\"api-key\">" + html_escape(account.new_key)
            + "</pre>\n<p class=\"warn\">This key is shown only now: netherscope keeps only "
              "its SHA-256. Signing in again does not change it; if you lose it, sign in and "
              "ask for a new one here.</p>\n"
              "<p>Send it as <code>X-API-Key: &lt;key&gt;</code> or "
              "<code>Authorization: Bearer &lt;key&gt;</code>.</p>\n";
  } else {
    page += std::string{"<p id=\"key-state\">"}
            + (account.key_active ? "Your account has an active API key."
                                  : "Your account has no active API key.")
            + "</p>\n";
  }
  if (!notice.empty())
    page += "<p class=\"warn\">" + html_escape(notice) + "</p>\n";
  page += "<h2>Usage in " + html_escape(account.month) + " (UTC)</h2>\n"
          "<table><tr><th>endpoint</th><th>used</th><th>limit</th><th>left</th></tr>\n";
  page += row("/api/info", account.info_used, account.info_limit);
  page += row("/api/offer", account.offer_used, account.offer_limit);
  page += "</table>\n<p>Quotas reset at the start of each month (UTC).</p>\n";
  if (!account.csrf.empty()) {
    page += "<h2>Key</h2>\n<p>A new key replaces the current one, which stops working at "
            "once.</p>\n";
    page += post_button("/account/key", account.csrf, "New key");
    if (account.key_active)
      page += post_button("/account/key/revoke", account.csrf, "Revoke key");
    page += post_button("/auth/signout", account.csrf, "Sign out");
  }
  page += "<p><code>GET /api/account</code> with your key shows this as JSON; "
          "<code>POST /api/account/key</code> issues a new key, "
          "<code>DELETE /api/account/key</code> revokes it.</p>\n";
  page += page_tail;
  return page;
}

std::string render_signin_error(const failure& error) {
  return error_body("Sign-in did not complete", error, "/auth/github/login", "Try again");
}

std::string render_page_error(const failure& error) {
  if (error.code == error_code::unauthorized)
    return error_body("Not signed in", error, "/auth/github/login", "Sign in with GitHub");
  return error_body("That did not work", error, "/account", "Back to your account");
}

std::string render_signed_out_page() {
  std::string page = page_head();
  page += "<h1>Signed out</h1>\n<p>Your API key keeps working; signing out ends only this "
          "browser's session.</p>\n<p><a href=\"/auth/github/login\">Sign in again</a></p>\n";
  page += page_tail;
  return page;
}

const std::string& page_content_security_policy() {
  // Made once: the style is a constant, so its hash is too.
  static const std::string policy = "default-src 'none'; style-src 'sha256-"
                                    + base64_encode(sha256(page_style))
                                    + "'; form-action 'self'; frame-ancestors 'none'; "
                                      "base-uri 'none'";
  return policy;
}

void add_page_headers(boost::beast::http::fields& headers) {
  headers.set("Content-Security-Policy", page_content_security_policy());
  headers.set("X-Frame-Options", "DENY");
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("X-Content-Type-Options", "nosniff");
}

} // namespace netherscope::net
