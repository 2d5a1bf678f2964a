#include "net/http/account_page.hpp"

#include <boost/json.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include "core/error_table.hpp"
#include "core/host_port.hpp"
#include "base/text.hpp"
#include "net/http/page_frame.hpp"

namespace netherscope::net::http {

namespace {

std::string row(std::string_view label, std::uint64_t used, std::uint64_t limit) {
  return "<tr><td>" + std::string{label} + "</td><td class=\"number\">" + group_digits(used)
         + "</td><td class=\"number\">" + group_digits(limit) + "</td><td class=\"number\">"
         + group_digits(used >= limit ? 0 : limit - used) + "</td></tr>\n";
}

// A hidden field of a form; its value is escaped for the attribute.
std::string hidden_field(std::string_view name, std::string_view value) {
  return "<input type=\"hidden\" name=\"" + std::string{name} + "\" value=\""
         + base::html_escape(value) + "\">";
}

// A form that posts the session's token and the given fields: the button is the whole
// request.
std::string post_button(std::string_view action, std::string_view csrf, std::string_view label,
                        std::string_view button_class,
                        std::initializer_list<std::pair<std::string_view, std::string_view>> fields = {}) {
  std::string form = "<form class=\"inline-form\" method=\"post\" action=\"" + std::string{action}
                     + "\">" + hidden_field("csrf", csrf);
  for (auto& [name, value] : fields)
    form += hidden_field(name, value);
  return form + "<button type=\"submit\" class=\"" + std::string{button_class} + "\">"
         + std::string{label} + "</button></form>\n";
}

// The address of a watched server's history, as /api/history or /chart.svg reads it: the
// host is a query value, encoded as one.
std::string history_link(std::string_view path, const core::watch_view& watch) {
  boost::urls::url link{path};
  link.params().append({"host", watch.host});
  link.params().append({"port", std::to_string(watch.port)});
  return base::html_escape(link.buffer());
}

std::string render_webhook(const core::webhook_view& hook, const core::watch_view& watch,
                           std::string_view csrf) {
  // The state is a word and a class, so a failing webhook reads as one without colour too.
  std::string item = "<li class=\"webhook\" id=\"webhook-" + base::html_escape(hook.id)
                     + "\"><code class=\"webhook-url\">" + base::html_escape(webhook_url_shown(hook.url))
                     + "</code> <span class=\"webhook-format\">" + std::string{core::to_string(hook.format)}
                     + "</span> <span class=\"webhook-state" + (hook.failing ? " bad" : " good")
                     + "\">" + (hook.failing ? "failing" : "ok") + "</span>";
  if (hook.failing)
    item += " <span class=\"hint\">since " + time_element(hook.failing_since) + "</span>";
  if (hook.last_failure_at > 0)
    item += "<p class=\"hint webhook-failure\">Last failed delivery " + time_element(hook.last_failure_at)
            + ": " + base::html_escape(hook.last_failure) + "</p>";
  if (!csrf.empty())
    item += post_button("/account/webhook/delete", csrf, "Remove", "button-quiet",
                        {{"watch", watch.id}, {"webhook", hook.id}});
  return item + "</li>\n";
}

// A form of the account page that adds a webhook to a watch.
std::string add_webhook_form(const core::watch_view& watch, std::string_view csrf) {
  auto field = "hook-url-" + base::html_escape(watch.id);
  return "<form class=\"webhook-form\" method=\"post\" action=\"/account/webhook\">"
         + hidden_field("csrf", csrf) + hidden_field("watch", watch.id) + "<label for=\"" + field
         + "\">New webhook URL</label><div class=\"inline\"><input type=\"text\" id=\"" + field
         + "\" name=\"url\" inputmode=\"url\" placeholder=\"https://example.com/hook\" "
           "required><select name=\"format\" aria-label=\"Format\"><option value=\"json\">json"
           "</option><option value=\"discord\">discord</option><option value=\"discord_live\">"
           "discord_live</option></select><button type=\"submit\" "
           "class=\"button-secondary\">Add webhook</button></div></form>\n";
}

std::string render_watch(const core::watch_view& watch, std::string_view csrf) {
  auto target = core::host_for_url(watch.host) + ":" + std::to_string(watch.port);
  std::string item = "<li class=\"watch\" id=\"watch-" + base::html_escape(watch.id)
                     + "\">\n<p class=\"watch-head\"><strong class=\"watch-target\">"
                     + base::html_escape(target) + "</strong> <span class=\"scope"
                     + (watch.is_public ? " public\">public" : "\">private") + "</span></p>\n"
                     + "<p class=\"hint\">Checked every " + period_text(watch.period_seconds)
                     + ", watched since " + time_element(watch.created) + ". History: ";
  // A private watch's history is its owner's: the session's cookie opens the JSON, and the
  // chart, which other sites embed, is public history only.
  if (watch.is_public)
    item += "<a href=\"" + history_link("/chart.svg", watch) + "\">chart</a>, ";
  item += "<a href=\"" + history_link("/api/history", watch) + "\">JSON</a>.</p>\n";
  if (watch.webhooks.empty()) {
    item += "<p class=\"hint\">No webhooks: add one to hear when the server's verdict "
            "changes.</p>\n";
  } else {
    item += "<ul class=\"webhooks\">\n";
    for (auto& hook : watch.webhooks)
      item += render_webhook(hook, watch, csrf);
    item += "</ul>\n";
  }
  if (!csrf.empty()) {
    if (watch.webhooks.size() < core::max_webhooks_per_watch)
      item += add_webhook_form(watch, csrf);
    item += "<div class=\"actions\">"
            + post_button("/account/watch/delete", csrf, "Stop watching", "button-danger",
                          {{"watch", watch.id}})
            + "</div>\n";
  }
  return item + "</li>\n";
}

// The form that adds a watch; the limits are the watch actor's, as for POST /api/watch.
std::string add_watch_form(std::string_view csrf) {
  return "<h3 id=\"add-watch-title\">Watch a server</h3>\n"
         "<form class=\"watch-form\" method=\"post\" action=\"/account/watch\">"
         + hidden_field("csrf", csrf)
         + "\n<label for=\"watch-host\">Host</label><input type=\"text\" id=\"watch-host\" "
           "name=\"host\" required maxlength=\"253\" placeholder=\"play.example.com\" "
           "autocomplete=\"off\">\n<div class=\"watch-numbers\"><div><label for=\"watch-port\">"
           "Port</label><input type=\"text\" id=\"watch-port\" name=\"port\" "
           "inputmode=\"numeric\" value=\"19132\"></div><div><label for=\"watch-period\">"
           "Check every (seconds)</label><input type=\"text\" id=\"watch-period\" "
           "name=\"periodSeconds\" inputmode=\"numeric\" value=\"300\"></div></div>\n"
           "<div class=\"check-option\"><input type=\"checkbox\" id=\"watch-public\" "
           "name=\"public\" value=\"true\"><label for=\"watch-public\">Public: anyone may read "
           "its history and chart</label></div>\n<div class=\"actions\"><button type=\"submit\">"
           "Watch server</button></div></form>\n";
}

std::string render_watches(const core::api_outcome& outcome) {
  const auto& csrf = outcome.account.csrf;
  std::string section = "<section class=\"card\" aria-labelledby=\"watch-title\">\n"
                        "<h2 id=\"watch-title\">Watched servers</h2>\n";
  if (!outcome.new_webhook_secret.empty()) {
    section += "<div class=\"new-key\"><p><strong>The new webhook's signing secret</strong>, "
               "shown only now, for "
               + base::html_escape(webhook_url_shown(outcome.new_webhook.url))
               + ":</p>\n<pre id=\"webhook-secret\">" + base::html_escape(outcome.new_webhook_secret)
               + "</pre>\n<p>Check each delivery's <code>X-Netherscope-Signature</code> with it "
                 "(docs/WATCHES.md).</p></div>\n";
  }
  const auto* list = outcome.account_watches.get();
  if (list != nullptr && !list->error.ok()) {
    section += "<p id=\"watch-state\">Your watches could not be read just now; reload the page "
               "to see them.</p>\n";
  } else if (list == nullptr || list->watches.empty()) {
    section += "<p id=\"watch-state\">You watch no servers yet. Add one with the form below, or "
               "with your key: <code>POST /api/watch</code>. A watched server is checked on its "
               "period, its history is kept, and webhooks hear when its verdict changes.</p>\n";
  } else {
    section += "<ul class=\"watches\">\n";
    for (auto& watch : list->watches)
      section += render_watch(watch, csrf);
    section += "</ul>\n";
    if (list->limit > 0)
      section += "<p class=\"hint\" id=\"watch-state\">" + std::to_string(list->watches.size())
                 + " of " + std::to_string(list->limit) + " watches.</p>\n";
  }
  if (!csrf.empty())
    section += add_watch_form(csrf);
  return section + "</section>\n";
}

std::string error_body(std::string_view title, const core::failure& error, std::string_view link,
                       std::string_view link_text) {
  std::string page = page_head(title);
  // The machine code is what a user can quote when asking for help, and what a script or
  // test checks instead of the sentence.
  page += "<h1>" + std::string{title} + "</h1>\n<section class=\"card\">\n"
          "<div class=\"alert\" role=\"alert\"><p class=\"alert-detail\">"
          + base::html_escape(error.message)
          + "</p>\n<p class=\"alert-code\">Error code: <code id=\"error-code\">"
          + std::string{core::lookup(error.code).machine_code} + "</code></p></div>\n"
          "<div class=\"actions\"><a class=\"button\" href=\"" + std::string{link} + "\">"
          + std::string{link_text} + "</a></div>\n</section>\n";
  page += page_tail();
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

std::string period_text(std::uint32_t seconds) {
  auto unit = [](std::uint32_t n, std::string_view one) {
    return std::to_string(n) + " " + std::string{one} + (n == 1 ? "" : "s");
  };
  if (seconds % 3600 == 0)
    return unit(seconds / 3600, "hour");
  if (seconds % 60 == 0)
    return unit(seconds / 60, "minute");
  return unit(seconds, "second");
}

std::string webhook_url_shown(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return "(a URL that does not parse)";
  std::string shown = std::string{parsed->scheme()} + "://" + std::string{parsed->encoded_host_and_port()};
  shown += parsed->encoded_path().empty() ? "/" : std::string{parsed->encoded_path()};
  // A query often carries a token of the receiver's; the page need not show it.
  if (parsed->has_query())
    shown += "?…";
  return shown;
}

std::string render_account_page(const core::api_outcome& outcome, std::string_view notice) {
  const auto& account = outcome.account;
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
  page += render_watches(outcome);
  page += page_tail();
  return page;
}

std::string render_signin_error(const core::failure& error) {
  return error_body("Sign-in did not complete", error, "/auth/github/login", "Try again");
}

std::string render_page_error(const core::failure& error) {
  if (error.code == core::error_code::unauthorized)
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
  page += page_tail();
  return page;
}

std::string render_session_json(const core::account_view& account, bool signed_in) {
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

} // namespace netherscope::net::http
