// End to end: GET /server/{address}, the HTML page about one Bedrock server, and
// GET /badge.png, on the real binary against the fake NetherNet target as a real process on
// loopback. Every page is read with Python's html.parser (support/html_check), not with our own
// code, so its escaping and its structure are checked by a parser we did not write.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/json.hpp>

#include "storage/accounts.hpp"
#include "support/html_check.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"
#include "support/store.hpp"
#include "support/wait.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

const std::string sp_csp = "default-src 'none'; style-src 'self'; img-src 'self'; "
                           "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/// Bedrock's formatting mark, U+00A7.
const std::string sp_mark = "\xC2\xA7";
/// The origin og:url and og:image use when the service is given no --public-base-url.
const std::string sp_default_origin = "http://127.0.0.1:8080";
const std::vector<std::string> sp_stage_names{"signalling", "ice",      "dtls",
                                              "sctp",       "channels", "game"};

http_reply sp_page(const service_process& svc, const std::string& address,
                   const std::string& query = {}, const header_list& headers = {},
                   std::chrono::milliseconds timeout = 30s) {
  return http_request(svc.port(), "GET", "/server/" + address + query, headers, {}, timeout);
}

std::string sp_local(unsigned port) {
  return "127.0.0.1:" + std::to_string(port);
}

std::string sp_shown(const http_reply& reply) {
  if (!reply.error.empty())
    return "no response: " + reply.error;
  return "status " + std::to_string(reply.status) + ", body:\n" + reply.body.substr(0, 6000);
}

std::string sp_lower(std::string text) {
  for (auto& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool sp_starts(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

bool sp_has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool sp_contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

bool sp_any_has(const std::vector<std::string>& items, const std::string& part) {
  return std::any_of(items.begin(), items.end(),
                     [&](const std::string& item) { return sp_has(item, part); });
}

std::vector<std::string> sp_strings(const boost::json::value& array) {
  std::vector<std::string> out;
  for (const auto& item : array.as_array())
    out.emplace_back(item.as_string());
  return out;
}

/// The address with its brackets percent-encoded, as a path may carry an IPv6 literal.
std::string sp_encoded_brackets(const std::string& raw) {
  std::string out;
  for (char c : raw) {
    if (c == '[')
      out += "%5B";
    else if (c == ']')
      out += "%5D";
    else
      out += c;
  }
  return out;
}

/// Whether a URL or path names raw, with an IPv6 host's brackets raw or percent-encoded.
bool sp_names(const std::string& actual, const std::string& raw) {
  return actual == raw || actual == sp_encoded_brackets(raw);
}

// -- reading parse_html's description ---------------------------------------------------------

boost::json::object sp_parsed(const http_reply& reply) {
  auto doc = parse_html(reply.body);
  INFO(sp_shown(reply));
  INFO("html.parser: " << (doc.contains("error") ? boost::json::serialize(doc.at("error"))
                                                  : std::string{"none"}));
  REQUIRE_FALSE(doc.contains("error"));
  return doc;
}

std::int64_t sp_count(const boost::json::object& doc, const std::string& cls) {
  const auto& counts = doc.at("class_counts").as_object();
  auto it = counts.find(cls);
  return it == counts.end() ? 0 : it->value().as_int64();
}

std::vector<std::string> sp_texts(const boost::json::object& doc, const std::string& cls) {
  const auto& texts = doc.at("text_by_class").as_object();
  auto it = texts.find(cls);
  return it == texts.end() ? std::vector<std::string>{} : sp_strings(it->value());
}

/// The text of the i-th element carrying cls, or "" when there is none.
std::string sp_text(const boost::json::object& doc, const std::string& cls, std::size_t i = 0) {
  auto texts = sp_texts(doc, cls);
  return i < texts.size() ? texts[i] : std::string{};
}

/// The i-th element carrying cls as {tag, classes}; null when there is none.
boost::json::value sp_element(const boost::json::object& doc, const std::string& cls,
                              std::size_t i = 0) {
  const auto& elements = doc.at("elements_by_class").as_object();
  auto it = elements.find(cls);
  if (it == elements.end() || i >= it->value().as_array().size())
    return nullptr;
  return it->value().as_array()[i];
}

std::string sp_tag(const boost::json::object& doc, const std::string& cls, std::size_t i = 0) {
  auto element = sp_element(doc, cls, i);
  return element.is_object() ? std::string{element.at("tag").as_string()} : std::string{};
}

std::vector<std::string> sp_classes(const boost::json::object& doc, const std::string& cls,
                                    std::size_t i = 0) {
  auto element = sp_element(doc, cls, i);
  return element.is_object() ? sp_strings(element.at("classes")) : std::vector<std::string>{};
}

std::string sp_meta(const boost::json::object& doc, const std::string& key) {
  const auto& meta = doc.at("meta").as_object();
  auto it = meta.find(key);
  return it == meta.end() ? std::string{} : std::string{it->value().as_string()};
}

// -- what every page must be ----------------------------------------------------------------

/// The headers of every HTML answer of the route, 200 and errors alike.
void sp_check_html_headers(const http_reply& reply) {
  INFO("status " << reply.status);
  CHECK(reply.header("content-type") == "text/html; charset=utf-8");
  CHECK(reply.header("content-security-policy") == sp_csp);
  CHECK(reply.header("x-frame-options") == "DENY");
  CHECK(reply.header("x-content-type-options") == "nosniff");
  CHECK(reply.header("cache-control") == "no-store");
}

void sp_check_rate_headers(const http_reply& reply) {
  INFO("status " << reply.status);
  CHECK_FALSE(reply.header("x-ratelimit-limit").empty());
  CHECK(remaining(reply) >= 0);
  CHECK_FALSE(reply.header("x-ratelimit-reset").empty());
}

void sp_check_no_rate_headers(const http_reply& reply) {
  INFO("status " << reply.status);
  CHECK(reply.header("x-ratelimit-limit").empty());
  CHECK(reply.header("x-ratelimit-remaining").empty());
  CHECK(reply.header("x-ratelimit-reset").empty());
}

/// Well formed and inert: nothing unbalanced, no script, no inline style, no event handler.
void sp_check_inert(const boost::json::object& doc) {
  INFO("unbalanced: " << doc.at("unbalanced"));
  CHECK(doc.at("unbalanced").as_array().empty());
  CHECK(doc.at("scripts") == 0);
  CHECK(doc.at("style_elements") == 0);
  CHECK(doc.at("style_attrs") == 0);
  CHECK(doc.at("event_attrs") == 0);
}

/// An error page: the error table's status, the HTML headers, its machine code in the element
/// with class error-code, and never a script.
boost::json::object sp_check_error_page(const http_reply& reply, int status,
                                        const std::string& code) {
  INFO(sp_shown(reply));
  REQUIRE(reply.error.empty());
  CHECK(reply.status == status);
  sp_check_html_headers(reply);
  auto doc = sp_parsed(reply);
  CHECK(sp_text(doc, "error-code") == code);
  CHECK(doc.at("scripts") == 0);
  INFO("unbalanced: " << doc.at("unbalanced"));
  CHECK(doc.at("unbalanced").as_array().empty());
  CHECK(doc.at("event_attrs") == 0);
  return doc;
}

/// The form that runs a check: method get, action /server/{label}, an input check=1.
void sp_check_form(const boost::json::object& doc, const std::string& label) {
  CHECK(sp_count(doc, "check-form") == 1);
  CHECK(sp_tag(doc, "check-form") == "form");
  bool found = false;
  for (const auto& form : doc.at("forms").as_array()) {
    if (!sp_names(std::string{form.at("action").as_string()}, "/server/" + label))
      continue;
    found = true;
    CHECK(sp_lower(std::string{form.at("method").as_string()}) == "get");
    const auto& inputs = form.at("inputs").as_object();
    REQUIRE(inputs.contains("check"));
    CHECK(inputs.at("check") == "1");
  }
  INFO("forms: " << doc.at("forms"));
  CHECK(found);
}

/// The six stages of the timeline, in order, each in the state named ("passed", "failed" or
/// "not-reached").
void sp_check_timeline(const boost::json::object& doc, const std::vector<std::string>& states) {
  CHECK(sp_count(doc, "timeline") == 1);
  CHECK(sp_tag(doc, "timeline") == "ol");
  auto texts = sp_texts(doc, "stage");
  INFO("text by class: " << doc.at("text_by_class"));
  REQUIRE(texts.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("stage " << i << " reads \"" << texts[i] << "\", expected " << sp_stage_names[i]
                  << " " << states[i]);
    CHECK(sp_tag(doc, "stage", i) == "li");
    CHECK(sp_starts(sp_lower(texts[i]), sp_stage_names[i]));
    auto classes = sp_classes(doc, "stage", i);
    for (const char* state : {"passed", "failed", "not-reached"})
      CHECK(sp_contains(classes, state) == (states[i] == state));
  }
}

/// The snippets section: a Markdown badge and an HTML one, and a chart only when public.
void sp_check_snippets(const boost::json::object& doc, bool with_chart) {
  CHECK(sp_count(doc, "snippets") >= 1);
  CHECK(sp_tag(doc, "snippets") == "section");
  auto snippets = sp_texts(doc, "snippet");
  INFO("text by class: " << doc.at("text_by_class"));
  for (std::size_t i = 0; i < snippets.size(); ++i) {
    INFO("snippet " << i << ": " << snippets[i]);
    CHECK(sp_tag(doc, "snippet", i) == "pre");
  }
  CHECK(snippets.size() >= 2);
  // The Markdown one: a badge link, and no markup.
  CHECK(std::any_of(snippets.begin(), snippets.end(), [](const std::string& s) {
    return sp_has(s, "/badge?host=") && !sp_has(s, "<img");
  }));
  // The HTML one, shown as text: the parser read "<img" as characters, not as an element.
  CHECK(sp_any_has(snippets, "<img"));
  CHECK(sp_any_has(snippets, "/chart.svg") == with_chart);
}

/// The verdict section of a page without any check.
void sp_check_not_checked(const boost::json::object& doc) {
  CHECK(sp_count(doc, "verdict") >= 1);
  CHECK(sp_tag(doc, "verdict") == "section");
  CHECK(sp_count(doc, "not-checked") >= 1);
  CHECK(sp_text(doc, "verdict-code").empty());
  CHECK(sp_count(doc, "reason") == 0);
}

/// The page's own absolute URL, as og:url names it.
void sp_check_og_url(const boost::json::object& doc, const std::string& origin,
                     const std::string& label) {
  INFO("og:url " << sp_meta(doc, "og:url"));
  CHECK(sp_names(sp_meta(doc, "og:url"), origin + "/server/" + label));
}

bool sp_ipv6_loopback_available() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor acceptor{ioc};
  boost::asio::ip::tcp::endpoint endpoint{boost::asio::ip::make_address("::1"), 0};
  boost::system::error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (ec)
    return false;
  acceptor.bind(endpoint, ec);
  return !ec;
}

// -- PNG ------------------------------------------------------------------------------------

struct sp_png_header {
  bool ok = false;
  std::uint32_t width = 0;
  std::uint32_t height = 0;
};

/// The PNG signature and the IHDR chunk that must follow it, or ok false.
sp_png_header sp_read_png(const std::string& body) {
  const std::string signature{"\x89PNG\r\n\x1a\n", 8};
  sp_png_header out;
  if (body.size() < 24 || body.compare(0, 8, signature) != 0
      || body.compare(12, 4, "IHDR") != 0)
    return out;
  auto be32 = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i)
      v = (v << 8) | static_cast<unsigned char>(body[at + i]);
    return v;
  };
  out.ok = be32(8) == 13;
  out.width = be32(16);
  out.height = be32(20);
  return out;
}

void sp_check_png(const http_reply& reply) {
  INFO("status " << reply.status << ", " << reply.body.size() << " bytes");
  CHECK(reply.header("content-type") == "image/png");
  auto png = sp_read_png(reply.body);
  CHECK(png.ok);
  CHECK(png.width >= 1);
  CHECK(png.width <= 1024);
  CHECK(png.height >= 1);
  CHECK(png.height <= 1024);
}

http_reply sp_badge_png(const service_process& svc, const std::string& query,
                        const header_list& headers = {}) {
  return http_request(svc.port(), "GET", "/badge.png?" + query, headers);
}

// -- accounts and watches -------------------------------------------------------------------

std::string sp_issue_key(storage::store& store, std::uint64_t user, const std::string& login) {
  std::string key;
  in_records(store, true, [&](storage::record_txn& t) {
    auto issued = storage::issue_key(t, user, login, std::time(nullptr));
    REQUIRE(issued);
    key = issued->key;
  });
  return key;
}

} // namespace

TEST_CASE("server page e2e: an online server, its hostile name kept as text in colour",
          "[e2e][server_page]") {
  // §c§l (red, bold) markup, §r, then §b (aqua) text with characters HTML must escape.
  const std::string name = sp_mark + "c" + sp_mark + "l<script>x</script>" + sp_mark + "r "
                           + sp_mark + "bTest & \"Co\"";
  const std::string clean = "<script>x</script> Test & \"Co\"";
  auto info = boost::json::serialize(boost::json::object{
    {"name", name}, {"protocol", 2193}, {"version", "1.26.51"}, {"level", "Bedrock level"},
    {"players", 3}, {"maxPlayers", 10}, {"gameType", 0}});
  fake_target_process fake{{"--info", info}};
  service_process svc{{"--limit-info-ip", "10", "--limit-offer-ip", "5"}};
  auto label = sp_local(fake.port());

  auto reply = sp_page(svc, label);
  INFO(sp_shown(reply));
  REQUIRE(reply.error.empty());
  REQUIRE(reply.status == 200);
  sp_check_html_headers(reply);
  // One /api/info call against the visitor's address; nothing said against indexing.
  CHECK(reply.header("x-ratelimit-scope") == "ip");
  CHECK(reply.header("x-ratelimit-limit") == "10");
  CHECK(remaining(reply) == 9);
  sp_check_rate_headers(reply);
  CHECK_FALSE(sp_has(reply.header("x-robots-tag"), "noindex"));
  // The name's markup never reaches the page as markup, in text or in attributes.
  CHECK_FALSE(sp_has(reply.body, "<script"));

  auto doc = sp_parsed(reply);
  sp_check_inert(doc);
  CHECK_FALSE(doc.at("title").as_string().empty());
  CHECK(sp_tag(doc, "server-address") == "h1");
  CHECK(sp_text(doc, "server-address") == label);

  // The name, coloured from the status: spans with Bedrock's classes, the text escaped.
  CHECK(sp_count(doc, "motd") >= 1);
  CHECK(sp_text(doc, "motd") == clean);
  CHECK(sp_tag(doc, "mc-c") == "span");
  CHECK(sp_contains(sp_classes(doc, "mc-c"), "mc-l"));
  CHECK(sp_text(doc, "mc-c") == "<script>x</script>");
  CHECK(sp_tag(doc, "mc-b") == "span");
  CHECK(sp_text(doc, "mc-b") == "Test & \"Co\"");

  CHECK(sp_text(doc, "state") == "Online");
  CHECK(sp_contains(sp_classes(doc, "state"), "online"));
  CHECK_FALSE(sp_contains(sp_classes(doc, "state"), "offline"));
  CHECK(sp_has(sp_text(doc, "players"), "3 / 10"));
  CHECK(sp_has(sp_text(doc, "version"), "1.26.51"));

  sp_check_not_checked(doc);
  sp_check_form(doc, label);
  sp_check_snippets(doc, false);
  // Nobody watches it: no chart, no peaks.
  CHECK(sp_count(doc, "chart") == 0);
  CHECK(sp_count(doc, "peaks") == 0);
  for (const auto& src : sp_strings(doc.at("imgs")))
    CHECK_FALSE(sp_starts(src, "/chart.svg"));

  auto stylesheets = sp_strings(doc.at("stylesheets"));
  CHECK(sp_contains(stylesheets, "/page.css"));
  CHECK(sp_contains(stylesheets, "/motd.css"));

  // Unfurl tags, each once.
  INFO("meta: " << doc.at("meta"));
  CHECK(doc.at("meta_repeated").as_array().empty());
  auto og_title = sp_meta(doc, "og:title");
  CHECK(sp_has(og_title, clean));
  CHECK_FALSE(sp_has(og_title, sp_mark));
  auto og_description = sp_meta(doc, "og:description");
  CHECK(sp_starts(og_description, "Online"));
  CHECK(sp_has(og_description, "3/10"));
  CHECK(sp_has(og_description, "1.26.51"));
  CHECK(sp_meta(doc, "og:type") == "website");
  sp_check_og_url(doc, sp_default_origin, label);
  auto og_image = sp_meta(doc, "og:image");
  CHECK(sp_starts(og_image, sp_default_origin + "/badge.png?"));
  CHECK(sp_has(og_image, "host=127.0.0.1"));
  CHECK(sp_has(og_image, "port=" + std::to_string(fake.port())));
  CHECK(sp_meta(doc, "twitter:card") == "summary");
  CHECK(sp_has(sp_meta(doc, "twitter:title"), clean));
  CHECK(sp_starts(sp_meta(doc, "twitter:description"), "Online"));
  CHECK(sp_starts(sp_meta(doc, "twitter:image"), sp_default_origin + "/badge.png?"));
  CHECK_FALSE(sp_meta(doc, "description").empty());
  CHECK_FALSE(sp_has(sp_meta(doc, "robots"), "noindex"));

  // One status request to the server, and no offer: the page ran no check.
  CHECK(fake.stats().at("status_requests") == 1);
  CHECK(fake.stats().at("offers") == 0);

  // The absolute URLs follow --public-base-url.
  service_process named{{"--public-base-url", "https://netherscope.example"}};
  auto elsewhere = sp_page(named, label);
  INFO(sp_shown(elsewhere));
  REQUIRE(elsewhere.status == 200);
  auto elsewhere_doc = sp_parsed(elsewhere);
  sp_check_og_url(elsewhere_doc, "https://netherscope.example", label);
  CHECK(sp_starts(sp_meta(elsewhere_doc, "og:image"), "https://netherscope.example/badge.png?"));
}

TEST_CASE("server page e2e: a server that answers nothing is a 200 page that says Offline",
          "[e2e][server_page]") {
  service_process svc;
  auto label = sp_local(unused_port());
  auto reply = sp_page(svc, label);
  INFO(sp_shown(reply));
  REQUIRE(reply.error.empty());
  REQUIRE(reply.status == 200);
  sp_check_html_headers(reply);
  sp_check_rate_headers(reply);
  auto doc = sp_parsed(reply);
  sp_check_inert(doc);
  CHECK(sp_tag(doc, "server-address") == "h1");
  CHECK(sp_text(doc, "server-address") == label);
  CHECK(sp_text(doc, "state") == "Offline");
  CHECK(sp_contains(sp_classes(doc, "state"), "offline"));
  CHECK_FALSE(sp_contains(sp_classes(doc, "state"), "online"));
  sp_check_not_checked(doc);
  sp_check_form(doc, label);
  sp_check_snippets(doc, false);
  INFO("meta: " << doc.at("meta"));
  // No name to show: the title is the address label.
  CHECK(sp_has(sp_meta(doc, "og:title"), label));
  CHECK(sp_starts(sp_meta(doc, "og:description"), "Offline"));
  CHECK(sp_meta(doc, "og:type") == "website");
  sp_check_og_url(doc, sp_default_origin, label);
  CHECK(sp_starts(sp_meta(doc, "og:image"), sp_default_origin + "/badge.png?"));
  CHECK(sp_meta(doc, "twitter:card") == "summary");
}

TEST_CASE("server page e2e: every form of an address names the same server, by one label",
          "[e2e][server_page]") {
  auto info = R"({"name":"Forms test","protocol":2193,"version":"1.26.51","players":1,)"
              R"("maxPlayers":5})";
  fake_target_process fake{{"--info", info}};
  service_process svc;
  auto port = std::to_string(fake.port());
  auto label = sp_local(fake.port());

  // IPv4 in every form the URL Standard reads, all 127.0.0.1.
  const std::vector<std::string> ipv4_forms{label, "0x7f.1:" + port, "2130706433:" + port,
                                            "127.1:" + port, "0177.0.0.1:" + port};
  for (const auto& address : ipv4_forms) {
    INFO("address " << address);
    auto reply = sp_page(svc, address);
    INFO(sp_shown(reply));
    REQUIRE(reply.status == 200);
    auto doc = sp_parsed(reply);
    CHECK(sp_text(doc, "server-address") == label);
    CHECK(sp_text(doc, "state") == "Online");
    CHECK(sp_text(doc, "motd") == "Forms test");
    sp_check_og_url(doc, sp_default_origin, label);
    sp_check_form(doc, label);
  }

  // The default port is left out of the label; the rest show it. Nothing need answer here.
  auto closed = std::to_string(unused_port());
  struct sp_form {
    std::string address;
    std::string label;
  };
  std::vector<sp_form> forms{
    {"127.0.0.1:19132", "127.0.0.1"},
    {"127.0.0.1", "127.0.0.1"},
    {"[::1]:" + closed, "[::1]:" + closed},
    {"%5B::1%5D:" + closed, "[::1]:" + closed},
    {"%5b::1%5d:" + closed, "[::1]:" + closed},
    {"[0:0:0:0:0:0:0:1]:" + closed, "[::1]:" + closed},
    {"::1", "[::1]"},
    {"0:0:0:0:0:0:0:1", "[::1]"},
    {"[::1]", "[::1]"},
    {"%5B::1%5D", "[::1]"},
    {"[::1]:19132", "[::1]"},
  };
  for (const auto& form : forms) {
    INFO("address " << form.address << ", label " << form.label);
    auto reply = sp_page(svc, form.address);
    INFO(sp_shown(reply));
    REQUIRE(reply.status == 200);
    sp_check_html_headers(reply);
    auto doc = sp_parsed(reply);
    CHECK(sp_text(doc, "server-address") == form.label);
    sp_check_og_url(doc, sp_default_origin, form.label);
    sp_check_form(doc, form.label);
  }

  // A server on ::1, in each IPv6 form, is online and the same label.
  if (!sp_ipv6_loopback_available()) {
    WARN("::1 cannot be bound here: the IPv6 forms were checked on offline pages only");
    return;
  }
  fake_target_process six{{"--bind", "::1", "--info", info}};
  auto six_port = std::to_string(six.port());
  const std::vector<std::string> ipv6_forms{"[::1]:" + six_port, "%5B::1%5D:" + six_port,
                                            "[0:0:0:0:0:0:0:1]:" + six_port};
  for (const auto& address : ipv6_forms) {
    INFO("address " << address);
    auto reply = sp_page(svc, address);
    INFO(sp_shown(reply));
    REQUIRE(reply.status == 200);
    auto doc = sp_parsed(reply);
    CHECK(sp_text(doc, "server-address") == "[::1]:" + six_port);
    CHECK(sp_text(doc, "state") == "Online");
    CHECK(sp_text(doc, "motd") == "Forms test");
  }
}

TEST_CASE("server page e2e: the default address policy refuses loopback and private targets "
          "with a 403 page",
          "[e2e][server_page]") {
  fake_target_process fake;
  service_process strict{{}, {}, false};
  auto port = std::to_string(fake.port());
  const std::vector<std::string> refused{
    "127.0.0.1:" + port, "0x7f.1:" + port,   "2130706433:" + port, "[::ffff:127.0.0.1]:" + port,
    "[::1]:" + port,     "127.0.0.1",        "0x7f.1",             "2130706433",
    "[::ffff:127.0.0.1]", "::1",             "%5B::1%5D",          "10.0.0.1"};
  for (const auto& address : refused) {
    INFO("address " << address);
    auto reply = sp_page(strict, address);
    sp_check_error_page(reply, 403, "forbidden_target");
    sp_check_rate_headers(reply);
    CHECK(reply.header("x-ratelimit-scope") == "ip");
  }
  // A check of a refused target is refused the same way.
  auto checked = sp_page(strict, "127.0.0.1:" + port, "?check=1");
  sp_check_error_page(checked, 403, "forbidden_target");
  // Nothing was sent to the target.
  CHECK(fake.stats().at("status_requests") == 0);
  CHECK(fake.stats().at("offers") == 0);
}

TEST_CASE("server page e2e: check=1 runs the check GET /api/check runs, for one info and one "
          "offer call",
          "[e2e][server_page][check]") {
  fake_target_process fake;
  service_process svc{{"--limit-info-ip", "10", "--limit-offer-ip", "5"}};
  auto label = sp_local(fake.port());
  auto reply = sp_page(svc, label, "?check=1", {}, 60s);
  INFO(sp_shown(reply));
  REQUIRE(reply.error.empty());
  REQUIRE(reply.status == 200);
  sp_check_html_headers(reply);
  // The offer quota shows, the scarcer one, as on /api/check.
  CHECK(reply.header("x-ratelimit-scope") == "ip");
  CHECK(reply.header("x-ratelimit-limit") == "5");
  CHECK(remaining(reply) == 4);
  CHECK(sp_has(reply.header("x-robots-tag"), "noindex"));

  auto doc = sp_parsed(reply);
  sp_check_inert(doc);
  CHECK(sp_text(doc, "server-address") == label);
  CHECK(sp_has(sp_meta(doc, "robots"), "noindex"));
  // The fake target joins as BDS does: joinable (from here; its candidate is loopback).
  CHECK(sp_tag(doc, "verdict") == "section");
  CHECK(sp_text(doc, "verdict-code") == "joinable");
  CHECK(sp_count(doc, "not-checked") == 0);
  auto reasons = sp_texts(doc, "reason");
  INFO("text by class: " << doc.at("text_by_class"));
  REQUIRE_FALSE(reasons.empty());
  for (std::size_t i = 0; i < reasons.size(); ++i)
    CHECK(sp_tag(doc, "reason", i) == "li");
  CHECK(sp_any_has(reasons, "reached the game"));
  for (std::size_t i = 0; i < sp_texts(doc, "next-step").size(); ++i)
    CHECK(sp_tag(doc, "next-step", i) == "li");
  CHECK_FALSE(sp_text(doc, "checked-at").empty());
  sp_check_timeline(doc, {"passed", "passed", "passed", "passed", "passed", "passed"});
  CHECK(sp_has(sp_meta(doc, "og:description"), "joinable"));
  sp_check_form(doc, label);
  // The check joined once, with one offer.
  CHECK(fake.stats().at("offers") == 1);

  // One info call too: the next /api/info is the second of ten.
  auto info = get_info(svc, "host=127.0.0.1&port=" + std::to_string(fake.port()));
  CHECK(info.header("x-ratelimit-limit") == "10");
  CHECK(remaining(info) == 8);
}

TEST_CASE("server page e2e: a check that fails shows the stage it ended in on the timeline",
          "[e2e][server_page][check]") {
  struct sp_mode {
    std::string name;
    std::vector<std::string> args;
    std::vector<std::string> stages;
    std::string reason;
    std::string step;
  };
  std::vector<sp_mode> modes{
    {"closed firewall",
     {"--stun", "silent"},
     {"passed", "failed", "not-reached", "not-reached", "not-reached", "not-reached"},
     "did not answer our checks",
     "Open UDP"},
    {"no DTLS",
     {"--game", "off"},
     {"passed", "passed", "failed", "not-reached", "not-reached", "not-reached"},
     "failed at dtls",
     ""},
  };
  service_process svc{{"--join-timeout-ms", "1500"}};
  for (const auto& mode : modes) {
    INFO("mode " << mode.name);
    fake_target_process fake{mode.args};
    auto label = sp_local(fake.port());
    auto reply = sp_page(svc, label, "?check=1", {}, 60s);
    INFO(sp_shown(reply));
    REQUIRE(reply.status == 200);
    sp_check_html_headers(reply);
    auto doc = sp_parsed(reply);
    sp_check_inert(doc);
    CHECK(sp_text(doc, "verdict-code") == "join_failed");
    CHECK(sp_any_has(sp_texts(doc, "reason"), mode.reason));
    auto steps = sp_texts(doc, "next-step");
    CHECK_FALSE(steps.empty());
    if (!mode.step.empty())
      CHECK(sp_any_has(steps, mode.step));
    sp_check_timeline(doc, mode.stages);
    CHECK(sp_has(sp_meta(doc, "og:description"), "join_failed"));
  }
}

TEST_CASE("server page e2e: bad addresses and check values are 400 pages", "[e2e][server_page]") {
  service_process svc;
  auto label = sp_local(unused_port());
  for (const char* query :
       {"?check=0", "?check=2", "?check=true", "?check=yes", "?check=", "?check=1&check=1"}) {
    INFO("query " << query);
    auto reply = sp_page(svc, label, query);
    sp_check_error_page(reply, 400, "invalid_input");
    sp_check_rate_headers(reply);
  }
  for (const char* address :
       {"not%20a%20host", "example.com:0", "example.com:70000", "127.0.0.1:0",
        "127.0.0.1:70000", "127.0.0.1:abc", "%5B::1", "[::1]x", "a:b:c"}) {
    INFO("address " << address);
    auto reply = sp_page(svc, address);
    sp_check_error_page(reply, 400, "invalid_input");
    sp_check_rate_headers(reply);
  }
}

TEST_CASE("server page e2e: a key sent with a page is ignored, and IPv6 visitors count per 64",
          "[e2e][server_page][quota]") {
  service_process svc{{"--limit-info-ip", "10", "--trusted-proxy", "127.0.0.1/32"}};
  auto label = sp_local(unused_port());
  // An unknown key is no error, and the call is the address's.
  auto keyed = sp_page(svc, label, {}, {{"X-API-Key", "nsk_not_a_key_of_this_service"}});
  INFO(sp_shown(keyed));
  CHECK(keyed.status == 200);
  CHECK(keyed.header("x-ratelimit-scope") == "ip");
  CHECK(remaining(keyed) == 9);
  auto bearer = sp_page(svc, label, {}, {{"Authorization", "Bearer nsk_not_a_key_either"}});
  CHECK(bearer.status == 200);
  CHECK(bearer.header("x-ratelimit-scope") == "ip");
  CHECK(remaining(bearer) == 8);

  auto from = [&](const std::string& xff) {
    return remaining(sp_page(svc, label, {}, {{"X-Forwarded-For", xff}}));
  };
  CHECK(from("2001:db8:1:2::1") == 9);
  CHECK(from("2001:db8:1:2:ffff:ffff:ffff:ffff") == 8); // the same /64
  CHECK(from("2001:db8:1:3::1") == 9);                  // another /64
  // The pages are /api/info calls of that /64.
  auto info = http_request(svc.port(), "GET", "/api/info?host=",
                           {{"X-Forwarded-For", "2001:db8:1:2::7"}});
  CHECK(remaining(info) == 7);
}

TEST_CASE("server page e2e: past the info quota a page is a 429 page with Retry-After",
          "[e2e][server_page][quota]") {
  service_process svc{{"--limit-info-ip", "2"}};
  auto label = sp_local(unused_port());
  auto first = sp_page(svc, label);
  CHECK(first.status == 200);
  CHECK(remaining(first) == 1);
  // The page's quota is /api/info's.
  auto info = get_info(svc, "host=127.0.0.1&port=" + std::to_string(unused_port()));
  CHECK(remaining(info) == 0);
  for (const char* query : {"", "?check=1"}) {
    INFO("query " << query);
    auto over = sp_page(svc, label, query);
    sp_check_error_page(over, 429, "quota_exhausted");
    CHECK_FALSE(over.header("retry-after").empty());
    CHECK(over.header("x-ratelimit-scope") == "ip");
    CHECK(over.header("x-ratelimit-remaining") == "0");
    sp_check_rate_headers(over);
  }
  CHECK(get_info(svc, "host=127.0.0.1&port=" + std::to_string(unused_port())).status == 429);
}

TEST_CASE("server page e2e: other paths are 404 pages and other methods 405 pages",
          "[e2e][server_page]") {
  service_process svc;
  for (const char* path : {"/server/a/b", "/server/", "/server/127.0.0.1/x"}) {
    INFO("path " << path);
    auto reply = http_request(svc.port(), "GET", path);
    sp_check_error_page(reply, 404, "not_found");
    sp_check_no_rate_headers(reply);
  }
  auto path = "/server/" + sp_local(unused_port());
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH"}) {
    INFO("method " << method);
    auto reply = http_request(svc.port(), method, path);
    sp_check_error_page(reply, 405, "method_not_allowed");
    CHECK(reply.header("allow") == "GET");
    sp_check_no_rate_headers(reply);
  }
}

TEST_CASE("server page e2e: badge.png draws the badge as a PNG, on the info quota",
          "[e2e][server_page][badge]") {
  fake_target_process fake{{"--info", R"({"name":"Png test","protocol":2193,"players":3,)"
                                      R"("maxPlayers":10,"version":"1.26.51"})"}};
  service_process svc{{"--limit-info-ip", "5"}};
  auto query = "host=127.0.0.1&port=" + std::to_string(fake.port());

  // A key is ignored: not an error, and the address's call.
  auto online = sp_badge_png(svc, query, {{"X-API-Key", "nsk_not_a_key_of_this_service"}});
  REQUIRE(online.error.empty());
  CHECK(online.status == 200);
  sp_check_png(online);
  CHECK(online.header("cache-control") == "max-age=60");
  CHECK(online.header("x-ratelimit-scope") == "ip");
  CHECK(remaining(online) == 4);
  CHECK(fake.stats().at("status_requests") == 1);

  auto with_tls = sp_badge_png(svc, query + "&tls=false");
  CHECK(with_tls.status == 200);
  sp_check_png(with_tls);
  CHECK(remaining(with_tls) == 3);

  // Offline: still a 200 image, another one.
  auto offline = sp_badge_png(svc, "host=127.0.0.1&port=" + std::to_string(unused_port()));
  CHECK(offline.status == 200);
  sp_check_png(offline);
  CHECK(offline.body != online.body);
  CHECK(remaining(offline) == 2);

  // Errors are PNG images too, with the error's status.
  auto missing = sp_badge_png(svc, "port=19132");
  CHECK(missing.status == 400);
  sp_check_png(missing);
  CHECK(remaining(missing) == 1);
  auto info = get_info(svc, "host=127.0.0.1&port=" + std::to_string(unused_port()));
  CHECK(remaining(info) == 0);
  auto over = sp_badge_png(svc, query);
  CHECK(over.status == 429);
  sp_check_png(over);
  CHECK_FALSE(over.header("retry-after").empty());

  service_process strict{{}, {}, false};
  auto refused = sp_badge_png(strict, query);
  CHECK(refused.status == 403);
  sp_check_png(refused);
}

TEST_CASE("server page e2e: a public watch's page shows its chart, peaks and latest verdict "
          "without a check of its own",
          "[e2e][server_page][watch]") {
  fake_target_process fake{{"--info", R"({"name":"Watched","protocol":2193,"players":4,)"
                                      R"("maxPlayers":20,"version":"1.26.51"})"}};
  service_process svc{{"--watch-min-period", "2", "--status-timeout-ms", "2000",
                       "--answer-timeout-ms", "2000", "--limit-info-ip", "20",
                       "--limit-offer-ip", "5", "--offers-per-target-per-minute", "1000"}};
  auto store = open_lmdb(svc.data_dir()).store;
  auto key = sp_issue_key(*store, 1701, "sp_owner");
  auto port = std::to_string(fake.port());
  auto label = sp_local(fake.port());
  auto made = http_request(svc.port(), "POST", "/api/watch",
                           {{"X-API-Key", key}, {"Content-Type", "application/json"}},
                           R"({"host":"127.0.0.1","port":)" + port
                             + R"(,"periodSeconds":2,"public":true})");
  INFO(made.body);
  REQUIRE(made.status == 201);
  // Its first check is in the public history.
  INFO("waiting for the watch's first check");
  REQUIRE(wait_until(
    [&] {
      auto history = http_request(svc.port(), "GET",
                                  "/api/history?host=127.0.0.1&port=" + port + "&range=24h");
      return history.status == 200 && !body_of(history).at("points").as_array().empty();
    },
    40s, 200ms));

  // The owner's key, sent along, is ignored: the page is the address's info call.
  auto reply = sp_page(svc, label, {}, {{"X-API-Key", key}});
  INFO(sp_shown(reply));
  REQUIRE(reply.status == 200);
  sp_check_html_headers(reply);
  CHECK(reply.header("x-ratelimit-scope") == "ip");
  CHECK(reply.header("x-ratelimit-limit") == "20");
  CHECK(remaining(reply) == 19);

  auto doc = sp_parsed(reply);
  sp_check_inert(doc);
  CHECK(sp_text(doc, "server-address") == label);
  CHECK(sp_text(doc, "state") == "Online");
  // The chart of its history.
  CHECK(sp_count(doc, "chart") >= 1);
  CHECK(sp_tag(doc, "chart") == "img");
  auto imgs = sp_strings(doc.at("imgs"));
  INFO("imgs: " << doc.at("imgs"));
  auto chart = std::find_if(imgs.begin(), imgs.end(), [](const std::string& src) {
    return sp_starts(src, "/chart.svg?host=");
  });
  bool has_chart = chart != imgs.end();
  REQUIRE(has_chart);
  CHECK(sp_has(*chart, "host=127.0.0.1"));
  CHECK(sp_has(*chart, "port=" + port));
  // The week's and the month's peak players.
  CHECK(sp_tag(doc, "peaks") == "section");
  auto peaks = sp_lower(sp_text(doc, "peaks"));
  INFO("peaks: " << peaks);
  CHECK(sp_has(peaks, "week"));
  CHECK(sp_has(peaks, "month"));
  CHECK(sp_has(peaks, "4"));
  // The latest check's verdict, though this page ran none.
  CHECK(sp_text(doc, "verdict-code") == "joinable");
  CHECK_FALSE(sp_text(doc, "checked-at").empty());
  CHECK(sp_count(doc, "not-checked") == 0);
  CHECK(sp_has(sp_meta(doc, "og:description"), "joinable"));
  sp_check_snippets(doc, true);
  CHECK_FALSE(sp_has(sp_meta(doc, "robots"), "noindex"));

  // The page cost no offer call: the next offer (to a port where nothing answers, which is
  // counted too) is the first of five.
  auto offer = post_offer(svc, unused_port());
  CHECK(offer.header("x-ratelimit-limit") == "5");
  CHECK(remaining(offer) == 4);
  // Nor was the key charged: its first info call is its first.
  auto with_key = http_request(svc.port(), "GET", "/api/info?host=", {{"X-API-Key", key}});
  CHECK(with_key.header("x-ratelimit-scope") == "key");
  auto key_limit = with_key.header("x-ratelimit-limit");
  REQUIRE_FALSE(key_limit.empty());
  CHECK(remaining(with_key) == std::stoll(key_limit) - 1);
}
