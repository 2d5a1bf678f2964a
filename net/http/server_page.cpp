#include "net/http/server_page.hpp"

#include <boost/json.hpp>

#include "base/json_access.hpp"
#include "base/text.hpp"
#include "core/error_table.hpp"
#include "core/explain.hpp"
#include "core/host_port.hpp"
#include "core/motd.hpp"
#include "net/http/page_frame.hpp"

namespace netherscope::net::http {

namespace json = boost::json;

namespace {

constexpr std::uint16_t bedrock_port = 19132;
constexpr std::int64_t week_seconds = 7 * 86400;
const std::string dot = "\xC2\xB7";

bool status_answered(const json::object* o) {
  auto* ok = o == nullptr ? nullptr : o->if_contains("ok");
  return ok != nullptr && ok->is_bool() && ok->get_bool();
}

std::string string_or_empty(const json::object& o, std::string_view key) {
  auto* s = base::string_at(o, key);
  return s == nullptr ? std::string{} : std::string{base::view(*s)};
}

std::vector<std::string> strings_at(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (auto* list = o.if_contains(key); list != nullptr && list->is_array())
    for (const auto& item : list->get_array())
      if (item.is_string())
        out.emplace_back(item.get_string());
  return out;
}

std::optional<page_join> join_of(const json::object& o) {
  auto* join = base::object_at(o, "join");
  if (join == nullptr)
    return std::nullopt;
  page_join j;
  j.stage = string_or_empty(*join, "stage");
  j.outcome = string_or_empty(*join, "outcome");
  auto* joined = join->if_contains("joined");
  j.joined = joined != nullptr && joined->is_bool() && joined->get_bool();
  return j;
}

// The name, the counts and the version: NetherNet's status first, as GET /v1/join gives it,
// the pong's where it gives none, as the badge reads them.
void read_status(server_page_view& view, const json::object* nethernet, const json::object* raknet) {
  view.online = status_answered(nethernet) || status_answered(raknet);
  if (status_answered(nethernet))
    if (auto* info = base::object_at(*nethernet, "info")) {
      view.name = string_or_empty(*info, "name");
      view.players = base::int64_at(*info, "players");
      view.max_players = base::int64_at(*info, "maxPlayers");
      view.version = string_or_empty(*info, "version");
    }
  if (status_answered(raknet)) {
    if (view.name.empty())
      view.name = string_or_empty(*raknet, "motd");
    if (!view.players || !view.max_players) {
      view.players = base::int64_at(*raknet, "players");
      view.max_players = base::int64_at(*raknet, "maxPlayers");
    }
    if (view.version.empty())
      view.version = string_or_empty(*raknet, "version");
  }
}

// The peaks of the month's hours, and of those of the last seven days.
void read_history(server_page_view& view, const core::history_view& history, std::int64_t now) {
  view.is_public = history.is_public;
  const auto& hours = history.slice.hours;
  std::vector<core::history_hour> week;
  for (const auto& hour : hours)
    if (hour.start >= now - week_seconds)
      week.push_back(hour);
  auto month_total = core::total_of(hours);
  auto week_total = core::total_of(week);
  if (month_total.player_samples > 0)
    view.month = month_total;
  if (week_total.player_samples > 0)
    view.week = week_total;
}

std::string query_of(const core::target& where) {
  return "host=" + where.host + "&port=" + std::to_string(where.port);
}

std::string players_text(const server_page_view& view) {
  if (!view.players || !view.max_players)
    return {};
  return std::to_string(*view.players) + "/" + std::to_string(*view.max_players);
}

// The unfurl's one line: what a pasted link says under the server's name.
std::string description_of(const server_page_view& view) {
  std::string text = view.online ? "Online" : "Offline";
  if (view.online) {
    if (auto players = players_text(view); !players.empty())
      text += " " + dot + " " + players + " players";
    if (!view.version.empty())
      text += " " + dot + " " + core::motd_clean(view.version);
  }
  if (view.has_check)
    text += " " + dot + " " + view.verdict;
  return text;
}

std::string meta_tag(std::string_view attribute, std::string_view key, std::string_view content) {
  return "<meta " + std::string{attribute} + "=\"" + std::string{key} + "\" content=\""
         + base::html_escape(content) + "\">\n";
}

std::string head_tags(const server_page_view& view, std::string_view origin, std::string_view title,
                      std::string_view description) {
  auto page_url = std::string{origin} + server_page_path(view.where);
  auto image_url = std::string{origin} + "/badge.png?" + query_of(view.where);
  std::string tags = R"(<link rel="stylesheet" href="/motd.css">
)";
  // A page a visitor's check made is theirs, of a moment: search engines keep the plain one.
  if (view.checked_now)
    tags += meta_tag("name", "robots", "noindex");
  tags += meta_tag("name", "description", description);
  tags += meta_tag("property", "og:type", "website");
  tags += meta_tag("property", "og:site_name", "netherscope");
  tags += meta_tag("property", "og:title", title);
  tags += meta_tag("property", "og:description", description);
  tags += meta_tag("property", "og:url", page_url);
  tags += meta_tag("property", "og:image", image_url);
  tags += meta_tag("property", "og:image:alt", "bedrock status: " + std::string{description});
  tags += meta_tag("name", "twitter:card", "summary");
  tags += meta_tag("name", "twitter:title", title);
  tags += meta_tag("name", "twitter:description", description);
  tags += meta_tag("name", "twitter:image", image_url);
  return tags;
}

std::string facts_section(const server_page_view& view) {
  std::string html = "<section class=\"card server-facts\">\n";
  if (!view.name.empty())
    html += "<p class=\"motd\">" + core::motd_html(view.name) + "</p>\n";
  html += "<dl class=\"facts\">\n";
  auto state = view.online ? "online" : "offline";
  html += std::string{"<div><dt>Status</dt><dd><span class=\"state "} + state + "\">"
          + (view.online ? "Online" : "Offline") + "</span></dd></div>\n";
  if (view.players && view.max_players)
    html += "<div><dt>Players</dt><dd class=\"players\">" + std::to_string(*view.players)
            + " / " + std::to_string(*view.max_players) + "</dd></div>\n";
  if (!view.version.empty())
    html += "<div><dt>Version</dt><dd class=\"version\">"
            + base::html_escape(core::motd_clean(view.version)) + "</dd></div>\n";
  html += "</dl>\n</section>\n";
  return html;
}

std::string_view state_class(stage_state state) {
  switch (state) {
    case stage_state::passed:
      return "passed";
    case stage_state::failed:
      return "failed";
    default:
      return "not-reached";
  }
}

std::string_view state_words(stage_state state) {
  switch (state) {
    case stage_state::passed:
      return "passed";
    case stage_state::failed:
      return "failed here";
    default:
      return "not reached";
  }
}

std::string timeline_list(const server_page_view& view) {
  auto states = timeline_of(view.join);
  std::string html = "<ol class=\"timeline\" aria-label=\"How far a player's join got\">\n";
  for (std::size_t i = 0; i < join_stages.size(); ++i)
    html += "<li class=\"stage " + std::string{state_class(states[i])} + "\">"
            + std::string{join_stages[i]} + " <span class=\"stage-state\">"
            + std::string{state_words(states[i])} + "</span></li>\n";
  html += "</ol>\n";
  return html;
}

std::string list_of(std::string_view item_class, const std::vector<std::string>& items) {
  std::string html = "<ul class=\"" + std::string{item_class} + "s\">\n";
  for (const auto& item : items)
    html += "<li class=\"" + std::string{item_class} + "\">" + base::html_escape(item) + "</li>\n";
  html += "</ul>\n";
  return html;
}

std::string check_form(const server_page_view& view) {
  return "<form class=\"check-form\" method=\"get\" action=\""
         + base::html_escape(server_page_path(view.where))
         + "\"><input type=\"hidden\" name=\"check\" value=\"1\">"
           "<button class=\"button\" type=\"submit\">Check whether players can join</button>"
           "<p class=\"hint\">A check joins the server as a player's client does. It counts as "
           "one check (one info and one offer call) against your address's quota.</p></form>\n";
}

std::string verdict_section(const server_page_view& view) {
  // Coloured as the verdict on the page at / is: green when a player got in, amber otherwise.
  auto tone = !view.has_check ? " up" : view.verdict == "joinable" ? " good" : " bad";
  std::string html = std::string{"<section class=\"card verdict"} + tone
                     + "\">\n<h2>Can players join?</h2>\n";
  if (!view.has_check) {
    html += "<p class=\"not-checked\">Not checked yet: the status above says whether the "
            "server answers, and a check says whether a player gets in.</p>\n";
    return html + check_form(view) + "</section>\n";
  }
  html += "<p class=\"verdict-line\"><code class=\"verdict-code\">" + base::html_escape(view.verdict)
          + "</code> " + base::html_escape(core::explanation_meaning(view.verdict)) + "</p>\n";
  if (view.checked_at)
    html += std::string{"<p class=\"checked-at\">"}
            + (view.checked_now ? "Checked just now, at " : "Latest watch check: ")
            + time_element(*view.checked_at) + "</p>\n";
  html += timeline_list(view);
  if (!view.reasons.empty())
    html += "<h3>Why</h3>\n" + list_of("reason", view.reasons);
  if (!view.next_steps.empty())
    html += "<h3>What to do</h3>\n" + list_of("next-step", view.next_steps);
  html += "<p><a href=\"/api/explain/" + base::html_escape(view.verdict) + "\">What "
          + base::html_escape(view.verdict) + " means, and what to check</a></p>\n";
  return html + check_form(view) + "</section>\n";
}

std::string peak_row(std::string_view label, const core::history_span& span) {
  std::string html = "<li>" + std::string{label} + ": <strong>"
                     + std::to_string(span.players_max) + " players</strong>";
  if (span.peak_at)
    html += " at " + time_element(*span.peak_at);
  return html + "</li>\n";
}

std::string history_section(const server_page_view& view) {
  if (!view.is_public)
    return {};
  std::string html = "<section class=\"card history\">\n<h2>Players</h2>\n";
  html += "<img class=\"chart\" src=\"/chart.svg?" + base::html_escape(query_of(view.where))
          + "&amp;range=7d&amp;metric=players\" alt=\"Players over the last 7 days\" "
            "width=\"720\" height=\"220\">\n";
  html += "<section class=\"peaks\">\n<h3>Peaks</h3>\n<ul>\n";
  if (view.week)
    html += peak_row("This week's peak", *view.week);
  if (view.month)
    html += peak_row("This month's peak", *view.month);
  if (!view.week && !view.month)
    html += "<li>No player counts in the last 30 days.</li>\n";
  html += "</ul>\n</section>\n</section>\n";
  return html;
}

std::string snippet(std::string_view title, const std::string& text) {
  return "<h3>" + std::string{title} + "</h3>\n<pre class=\"snippet\"><code>"
         + base::html_escape(text) + "</code></pre>\n";
}

std::string snippets_section(const server_page_view& view, std::string_view origin) {
  auto page_url = std::string{origin} + server_page_path(view.where);
  auto badge_url = std::string{origin} + "/badge?" + query_of(view.where);
  std::string html = "<section class=\"card snippets\">\n<h2>Show it on your site</h2>\n";
  html += snippet("Markdown", "[![bedrock status](" + badge_url + ")](" + page_url + ")");
  html += snippet("HTML", "<a href=\"" + page_url + "\"><img src=\""
                            + base::html_escape(badge_url) + "\" alt=\"bedrock status\"></a>");
  if (view.is_public)
    html += snippet("Players chart (Markdown)",
                    "![players this week](" + std::string{origin} + "/chart.svg?"
                      + query_of(view.where) + "&range=7d&metric=players)");
  html += "</section>\n";
  return html;
}

} // namespace

std::string address_label(const core::target& where) {
  auto label = core::host_for_url(where.host);
  if (where.port != bedrock_port)
    label += ":" + std::to_string(where.port);
  return label;
}

std::string server_page_path(const core::target& where) {
  std::string path = "/server/";
  for (char c : address_label(where)) {
    if (c == '[')
      path += "%5B";
    else if (c == ']')
      path += "%5D";
    else
      path += c;
  }
  return path;
}

std::array<stage_state, 6> timeline_of(const std::optional<page_join>& join) {
  std::array<stage_state, 6> states;
  states.fill(stage_state::not_reached);
  if (join && join->joined) {
    states.fill(stage_state::passed);
    return states;
  }
  std::size_t at = 0;
  if (join)
    for (std::size_t i = 0; i < join_stages.size(); ++i)
      if (join_stages[i] == join->stage)
        at = i;
  for (std::size_t i = 0; i < at; ++i)
    states[i] = stage_state::passed;
  states[at] = stage_state::failed;
  return states;
}

server_page_view server_page_view_of(const core::api_outcome& outcome, std::int64_t now) {
  server_page_view view;
  view.where = outcome.page_of;
  if (auto body = base::parse_object(outcome.body)) {
    if (outcome.checked) {
      read_status(view, base::object_at(*body, "info"), base::object_at(*body, "raknet"));
      view.has_check = true;
      view.checked_now = true;
      view.checked_at = now;
      view.verdict = string_or_empty(*body, "verdict");
      view.reasons = strings_at(*body, "reasons");
      view.next_steps = strings_at(*body, "nextSteps");
      view.join = join_of(*body);
    } else {
      read_status(view, base::object_at(*body, "nethernet"), base::object_at(*body, "raknet"));
      if (auto* check = base::object_at(*body, "latestCheck")) {
        view.has_check = true;
        view.verdict = string_or_empty(*check, "verdict");
        view.checked_at = base::int64_at(*check, "at");
        view.join = join_of(*check);
      }
    }
  }
  if (outcome.history)
    read_history(view, *outcome.history, now);
  return view;
}

std::string render_server_page(const server_page_view& view, std::string_view public_origin) {
  auto label = address_label(view.where);
  auto clean_name = core::motd_clean(view.name);
  // The name's first line, which the server list shows in bold.
  auto first_line = clean_name.substr(0, clean_name.find('\n'));
  auto title = first_line.empty() ? label : first_line + " (" + label + ")";
  auto description = description_of(view);
  auto page = page_head(base::html_escape(title),
                        head_tags(view, public_origin, title, description));
  page += "<div class=\"server-page\">\n<h1 class=\"server-address\">" + base::html_escape(label)
          + "</h1>\n";
  page += facts_section(view);
  page += verdict_section(view);
  page += history_section(view);
  page += snippets_section(view, public_origin);
  page += "</div>\n";
  page += page_tail();
  return page;
}

std::string render_server_error(const core::failure& error) {
  std::string_view title = "No page for this server";
  if (error.code == core::error_code::quota_exhausted)
    title = "Too many pages from your address";
  else if (error.code == core::error_code::unavailable)
    title = "Not available right now";
  auto page = page_head(title);
  // The machine code is what a user can quote when asking for help, and what a script or a
  // test checks instead of the sentence.
  page += "<h1>" + std::string{title} + "</h1>\n<section class=\"card\">\n"
          "<div class=\"alert\" role=\"alert\"><p class=\"alert-detail\">"
          + base::html_escape(error.message)
          + "</p>\n<p class=\"alert-code\">Error code: <code class=\"error-code\">"
          + std::string{core::lookup(error.code).machine_code} + "</code></p></div>\n"
          "<div class=\"actions\"><a class=\"button\" href=\"/\">Check a server</a></div>\n"
          "</section>\n";
  page += page_tail();
  return page;
}

} // namespace netherscope::net::http
