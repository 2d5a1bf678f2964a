#include "net/http/account_page.hpp"

#include <boost/json.hpp>

#include "net/api/error_table.hpp"
#include "net/base/text.hpp"

namespace netherscope::net::http {

namespace {

// The header and footer are those of the page at /, and so is the stylesheet (/page.css, one
// of the page's compiled-in files): a person moving between the page and their account sees
// one site. The pages run no script; everything they need is markup and that one file.
std::string page_head(std::string_view title) {
  std::string head = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>)";
  head += title;
  head += R"( · netherscope</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/page.css">
</head><body>
<header class="top"><div class="wrap">
<p class="brand"><a href="/"><img src="/favicon.svg" alt="" width="28" height="28"> netherscope</a></p>
<nav aria-label="Site"><a class="button button-quiet" href="/">Check a server</a></nav>
</div></header>
<main id="main" class="wrap">
)";
  return head;
}

constexpr std::string_view page_tail = R"(</main>
<footer class="wrap foot"><p>netherscope is a free JSON API: the whole contract is at
<a href="/openapi.json">/openapi.json</a>. Every call counts against a monthly quota.</p></footer>
</body></html>
)";

std::string row(std::string_view label, std::uint64_t used, std::uint64_t limit) {
  return "<tr><td>" + std::string{label} + "</td><td class=\"number\">" + group_digits(used)
         + "</td><td class=\"number\">" + group_digits(limit) + "</td><td class=\"number\">"
         + group_digits(used >= limit ? 0 : limit - used) + "</td></tr>\n";
}

// A form that posts only the session's token: the button is the whole request.
std::string post_button(std::string_view action, std::string_view csrf, std::string_view label,
                        std::string_view button_class) {
  return "<form class=\"inline-form\" method=\"post\" action=\"" + std::string{action}
         + "\"><input type=\"hidden\" name=\"csrf\" value=\"" + base::html_escape(csrf)
         + "\"><button type=\"submit\" class=\"" + std::string{button_class} + "\">"
         + std::string{label} + "</button></form>\n";
}

std::string error_body(std::string_view title, const api::failure& error, std::string_view link,
                       std::string_view link_text) {
  std::string page = page_head(title);
  // The machine code is what a user can quote when asking for help, and what a script or
  // test checks instead of the sentence.
  page += "<h1>" + std::string{title} + "</h1>\n<section class=\"card\">\n"
          "<div class=\"alert\" role=\"alert\"><p class=\"alert-detail\">"
          + base::html_escape(error.message)
          + "</p>\n<p class=\"alert-code\">Error code: <code id=\"error-code\">"
          + std::string{api::lookup(error.code).machine_code} + "</code></p></div>\n"
          "<div class=\"actions\"><a class=\"button\" href=\"" + std::string{link} + "\">"
          + std::string{link_text} + "</a></div>\n</section>\n";
  page += page_tail;
  return page;
}

} // namespace

std::string group_digits(std::uint64_t value) {
  auto digits = std::to_string(value);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return out;
}

std::string render_account_page(const api::account_view& account, std::string_view notice) {
  std::string page = page_head("Your account");
  page += "<h1>Signed in as " + base::html_escape(account.login) + "</h1>\n";
  if (!notice.empty())
    page += "<p class=\"notice\" role=\"status\">" + base::html_escape(notice) + "</p>\n";
  page += "<section class=\"card\" aria-labelledby=\"key-title\">\n"
          "<h2 id=\"key-title\">API key</h2>\n";
  if (!account.new_key.empty()) {
    page += "<div class=\"new-key\"><p><strong>Your new API key</strong>, shown only now: "
            "netherscope keeps only its SHA-256.</p>\n<pre id=\"api-key\">"
            + base::html_escape(account.new_key)
            + "</pre>\n<p>Signing in again does not change it; if you lose it, sign in and "
              "ask for a new one here.</p></div>\n"
              "<p>Send it as <code>X-API-Key: &lt;key&gt;</code> or "
              "<code>Authorization: Bearer &lt;key&gt;</code>.</p>\n";
  } else {
    page += std::string{"<p id=\"key-state\">"}
            + (account.key_active ? "Your account has an active API key."
                                  : "Your account has no active API key.")
            + "</p>\n";
  }
  if (!account.csrf.empty()) {
    page += account.key_active ? "<p class=\"hint\">A new key replaces the current one, which "
                                 "stops working at once.</p>\n"
                               : "<p class=\"hint\">A new key is shown once, on this page.</p>\n";
    page += "<div class=\"actions\">\n";
    page += post_button("/account/key", account.csrf, "New key", "button-secondary");
    if (account.key_active)
      page += post_button("/account/key/revoke", account.csrf, "Revoke key", "button-danger");
    page += post_button("/auth/signout", account.csrf, "Sign out", "button-quiet");
    page += "</div>\n";
  }
  page += "</section>\n<section class=\"card\" aria-labelledby=\"usage-title\">\n"
          "<h2 id=\"usage-title\">Usage in " + base::html_escape(account.month) + " (UTC)</h2>\n"
          "<table class=\"usage\"><thead><tr><th scope=\"col\">Calls</th>"
          "<th scope=\"col\" class=\"number\">Used</th><th scope=\"col\" class=\"number\">Limit"
          "</th><th scope=\"col\" class=\"number\">Left</th></tr></thead>\n<tbody>\n";
  if (account.usage_known) {
    page += row("Status checks", account.info_used, account.info_limit);
    page += row("Offers", account.offer_used, account.offer_limit);
  } else {
    page += "<tr><td colspan=\"4\">This month's usage could not be read just now; reload the "
            "page to see it.</td></tr>\n";
  }
  page += "</tbody></table>\n<p class=\"hint\">Status checks are <code>/api/info</code> calls, "
          "offers <code>/api/offer</code> calls; both reset at the start of each month (UTC). "
          "<code>GET /api/account</code> with your key shows this as JSON; "
          "<code>POST /api/account/key</code> issues a new key, "
          "<code>DELETE /api/account/key</code> revokes it.</p>\n</section>\n";
  page += page_tail;
  return page;
}

std::string render_signin_error(const api::failure& error) {
  return error_body("Sign-in did not complete", error, "/auth/github/login", "Try again");
}

std::string render_page_error(const api::failure& error) {
  if (error.code == api::error_code::unauthorized)
    return error_body("Not signed in", error, "/auth/github/login", "Sign in with GitHub");
  return error_body("That did not work", error, "/account", "Back to your account");
}

std::string render_signed_out_page() {
  std::string page = page_head("Signed out");
  page += "<h1>Signed out</h1>\n<section class=\"card\">\n<p>Your API key keeps working; "
          "signing out ends only this browser's session.</p>\n<div class=\"actions\">"
          "<a class=\"button\" href=\"/auth/github/login\">Sign in again</a>"
          "<a class=\"button button-secondary\" href=\"/\">Check a server</a></div>\n"
          "</section>\n";
  page += page_tail;
  return page;
}

std::string render_session_json(const api::account_view& account, bool signed_in) {
  boost::json::object body;
  body["ok"] = true;
  body["signedIn"] = signed_in;
  if (!signed_in)
    return boost::json::serialize(body);
  auto usage = [](std::uint64_t used, std::uint64_t limit) {
    return boost::json::object{
      {"used", used}, {"limit", limit}, {"remaining", used >= limit ? 0 : limit - used}};
  };
  body["login"] = account.login;
  body["keyActive"] = account.key_active;
  body["month"] = account.month;
  body["reset"] = account.reset;
  if (account.usage_known)
    body["usage"] = boost::json::object{{"info", usage(account.info_used, account.info_limit)},
                                        {"offer", usage(account.offer_used, account.offer_limit)}};
  // Neither the form token nor a key goes here: the key is shown once, on the server's own
  // page, and the token belongs in that page's forms only.
  return boost::json::serialize(body);
}

std::string_view page_content_security_policy() {
  // The pages load the stylesheet and the icon of the page at / and nothing else; no script
  // runs, so default-src 'none' covers scripts.
  return "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
         "frame-ancestors 'none'; base-uri 'none'";
}

void add_page_headers(boost::beast::http::fields& headers) {
  headers.set("Content-Security-Policy", page_content_security_policy());
  headers.set("X-Frame-Options", "DENY");
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("X-Content-Type-Options", "nosniff");
}

} // namespace netherscope::net::http
