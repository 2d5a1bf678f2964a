// Bedrock's formatting codes (core/motd): golden cases from the one table, the html's safety,
// and the served stylesheet and the protocol notes kept equal to the table.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <boost/json/value.hpp>

#include "core/motd.hpp"
#include "net/http/page.hpp"

namespace core = netherscope::core;

namespace {

const std::string section = "\xC2\xA7";

std::string code(char c) {
  return section + c;
}

/// The html's text: tags dropped, <br> read as a newline, the five escapes undone.
std::string text_of_html(const std::string& html) {
  std::string out;
  for (std::size_t i = 0; i < html.size();) {
    if (html.compare(i, 4, "<br>") == 0) {
      out.push_back('\n');
      i += 4;
    } else if (html[i] == '<') {
      i = html.find('>', i) + 1;
    } else if (html[i] == '&') {
      auto end = html.find(';', i);
      auto entity = html.substr(i, end - i + 1);
      out += entity == "&amp;" ? "&" : entity == "&lt;" ? "<" : entity == "&gt;" ? ">"
             : entity == "&quot;" ? "\"" : "'";
      i = end + 1;
    } else {
      out.push_back(html[i++]);
    }
  }
  return out;
}

} // namespace

TEST_CASE("motd: every code of the table styles the text after it", "[motd]") {
  for (const auto& entry : core::motd_codes()) {
    INFO("code " << entry.code << " (" << entry.name << ")");
    auto html = core::motd_html(code(entry.code) + "x");
    if (entry.effect == core::motd_effect::reset)
      CHECK(html == "x");
    else
      CHECK(html == "<span class=\"mc-" + std::string(1, entry.code) + "\">x</span>");
    CHECK(core::motd_clean(code(entry.code) + "x") == "x");
    // Uppercase names the same code.
    if (entry.code >= 'a' && entry.code <= 'z')
      CHECK(core::motd_html(code(static_cast<char>(entry.code - 'a' + 'A')) + "x") == html);
  }
}

TEST_CASE("motd: Bedrock's own rules, where Java's differ", "[motd]") {
  SECTION("m and n are colours, not strikethrough and underline") {
    CHECK(core::find_motd_code('m')->effect == core::motd_effect::colour);
    CHECK(core::find_motd_code('m')->colour == "#971607");
    CHECK(core::find_motd_code('n')->colour == "#B4684D");
  }
  SECTION("gray is Bedrock's C6C6C6 and g is minecoin gold") {
    CHECK(core::find_motd_code('7')->colour == "#C6C6C6");
    CHECK(core::find_motd_code('g')->colour == "#DDD605");
  }
  SECTION("a colour keeps the bold, italic and obfuscation before it; only r ends them") {
    CHECK(core::motd_html(code('l') + "A" + code('c') + "B" + code('r') + "C")
          == "<span class=\"mc-l\">A</span><span class=\"mc-c mc-l\">B</span>C");
    CHECK(core::motd_html(code('k') + code('o') + "A" + code('a') + "B")
          == "<span class=\"mc-o mc-k\">A</span><span class=\"mc-a mc-o mc-k\">B</span>");
    CHECK(core::motd_html(code('a') + "A" + code('b') + "B")
          == "<span class=\"mc-a\">A</span><span class=\"mc-b\">B</span>");
  }
  SECTION("codes Bedrock does not have are dropped, with their character") {
    for (char c : {'w', 'x', 'z', 'y', '#', ' '})
      CHECK(core::motd_html(std::string{"a"} + code(c) + "b") == "ab");
    // w is not in the table: nothing from Mojang ties a colour to it (PROTOCOL.md §6.3).
    CHECK_FALSE(core::find_motd_code('w'));
    // A code's character may take more than one byte, and a '§' at the end has none.
    CHECK(core::motd_clean("a" + section + "\xC3\xA9" "b") == "ab");
    CHECK(core::motd_clean(section) == "");
    CHECK(core::motd_clean(section + "\xff" "x" + section) == "x");
  }
  SECTION("a style runs on over a newline, which is a line break") {
    CHECK(core::motd_html(code('a') + "one\ntwo")
          == "<span class=\"mc-a\">one</span><br><span class=\"mc-a\">two</span>");
    CHECK(core::motd_clean(code('a') + "one\ntwo") == "one\ntwo");
  }
  SECTION("runs of one style are one span, and plain text is bare") {
    CHECK(core::motd_html("plain") == "plain");
    CHECK(core::motd_html(code('a') + "ab" + code('a') + "cd") == "<span class=\"mc-a\">abcd</span>");
    CHECK(core::motd_html(code('a') + code('r')) == "");
  }
}

TEST_CASE("motd: the html escapes what HTML reads, and drops control characters", "[motd]") {
  auto hostile = code('a') + "<script>alert(\"x\")</script>' onmouseover=x &amp;";
  auto html = core::motd_html(hostile);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find('"', html.find('>')) == std::string::npos);
  CHECK(html
        == "<span class=\"mc-a\">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; "
           "onmouseover=x &amp;amp;</span>");
  CHECK(text_of_html(html) == core::motd_clean(hostile));
  CHECK(core::motd_html(std::string{"a\0b\r\x1b[31mc\x7f\td", 13}) == "ab[31mc\td");
  CHECK(core::motd_clean(std::string{"a\0b\r\x1b[31mc\x7f\td", 13}) == "ab[31mc\td");
}

TEST_CASE("motd: {raw, clean, html} is valid UTF-8", "[motd]") {
  auto motd = core::motd_json(code('b') + "Bad \xff name");
  CHECK(motd.at("raw").as_string() == code('b') + "Bad \xEF\xBF\xBD name");
  CHECK(motd.at("clean") == "Bad \xEF\xBF\xBD name");
  CHECK(motd.at("html") == "<span class=\"mc-b\">Bad \xEF\xBF\xBD name</span>");
}

TEST_CASE("motd: lines the game draws apart keep their styles apart", "[motd]") {
  auto motd = core::motd_json(std::vector<std::string>{code('a') + code('l') + "Name", "Level \xff"});
  CHECK(motd.at("raw").as_string() == code('a') + code('l') + "Name\nLevel \xEF\xBF\xBD");
  CHECK(motd.at("clean") == "Name\nLevel \xEF\xBF\xBD");
  CHECK(motd.at("html") == "<span class=\"mc-a mc-l\">Name</span><br>Level \xEF\xBF\xBD");
}

TEST_CASE("motd: the served stylesheet is the table's, a rule per code", "[motd]") {
  const auto* served = netherscope::net::http::find_page_asset("/motd.css");
  REQUIRE(served != nullptr);
  CHECK(served->content_type == "text/css; charset=utf-8");
  // net/http/page/motd.css is written from the table; regenerate it when the table changes.
  CHECK(std::string{served->body} == core::motd_stylesheet());
  for (const auto& entry : core::motd_codes()) {
    auto rule = "." + core::motd_class(entry) + " {";
    if (entry.effect == core::motd_effect::reset)
      CHECK(served->body.find(rule) == std::string_view::npos);
    else
      CHECK(served->body.find(rule) != std::string_view::npos);
    if (entry.effect == core::motd_effect::colour)
      CHECK(served->body.find(rule + " color: " + std::string{entry.colour} + "; }")
            != std::string_view::npos);
  }
  CHECK(served->body.find("underline") == std::string_view::npos);
  CHECK(served->body.find("line-through") == std::string_view::npos);
}

TEST_CASE("motd: the table's colours are those docs/PROTOCOL.md §6.3 gives", "[motd]") {
  std::ifstream in{std::string{DOCS_DIR} + "/PROTOCOL.md"};
  REQUIRE(in);
  std::string doc{std::istreambuf_iterator<char>{in}, {}};
  // Rows of the colour table read "`§a` green | 55FF55".
  std::regex cell{"`\xC2\xA7([0-9a-z])` [^|]+\\| ([0-9A-F]{6})"};
  std::map<char, std::string> documented;
  for (std::sregex_iterator it{doc.begin(), doc.end(), cell}, end; it != end; ++it)
    documented[(*it)[1].str()[0]] = "#" + (*it)[2].str();
  std::size_t colours = 0;
  for (const auto& entry : core::motd_codes()) {
    if (entry.effect != core::motd_effect::colour)
      continue;
    ++colours;
    INFO("code " << entry.code);
    CHECK(documented[entry.code] == entry.colour);
  }
  CHECK(documented.size() == colours);
  CHECK(colours == 28);
}
