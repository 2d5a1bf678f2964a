#include "net/http/account_page.hpp"

#include "net/api/error_table.hpp"

namespace netherscope::net {

namespace {

constexpr std::string_view page_head = R"(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>netherscope account</title>
<style>body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
code,pre{background:#f3f3f3;padding:.2rem .4rem;border-radius:4px;word-break:break-all}
table{border-collapse:collapse}td,th{padding:.3rem .8rem;border-bottom:1px solid #ddd;text-align:left}
.warn{background:#fff4d6;padding:.6rem;border-radius:4px}</style></head><body>
)";

constexpr std::string_view page_tail = "</body></html>\n";

std::string row(std::string_view name, std::uint64_t used, std::uint64_t limit) {
  return "<tr><td><code>" + std::string{name} + "</code></td><td>" + std::to_string(used)
         + "</td><td>" + std::to_string(limit) + "</td><td>"
         + std::to_string(used >= limit ? 0 : limit - used) + "</td></tr>\n";
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

std::string render_account_page(const account_view& account) {
  std::string page{page_head};
  page += "<h1>Signed in as " + html_escape(account.login) + "</h1>\n";
  if (!account.new_key.empty()) {
    page += "<p>Your API key:</p>\n<pre id=\"api-key\">" + html_escape(account.new_key)
            + "</pre>\n<p class=\"warn\">This key is shown only now: netherscope keeps only "
              "its SHA-256. Signing in again issues a new key and the previous one stops "
              "working.</p>\n"
              "<p>Send it as <code>X-API-Key: &lt;key&gt;</code> or "
              "<code>Authorization: Bearer &lt;key&gt;</code>.</p>\n";
  }
  page += "<h2>Usage in " + html_escape(account.month) + " (UTC)</h2>\n"
          "<table><tr><th>endpoint</th><th>used</th><th>limit</th><th>left</th></tr>\n";
  page += row("/api/info", account.info_used, account.info_limit);
  page += row("/api/offer", account.offer_used, account.offer_limit);
  page += "</table>\n<p>Quotas reset at the start of each month (UTC). "
          "<code>GET /api/account</code> with your key shows this as JSON; "
          "<code>POST /api/account/key</code> issues a new key, "
          "<code>DELETE /api/account/key</code> revokes it.</p>\n";
  page += page_tail;
  return page;
}

std::string render_signin_error(const failure& error) {
  std::string page{page_head};
  // The machine code is what a user can quote when asking for help, and what a script or
  // test checks instead of the sentence.
  page += "<h1>Sign-in did not complete</h1>\n<p>" + html_escape(error.message)
          + "</p>\n<p>Error code: <code id=\"error-code\">"
          + std::string{lookup(error.code).machine_code}
          + "</code></p>\n<p><a href=\"/auth/github/login\">Try again</a></p>\n";
  page += page_tail;
  return page;
}

} // namespace netherscope::net
