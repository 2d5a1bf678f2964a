// Tests for base/text (trimming, ASCII case-insensitive comparison, splitting, hex,
// escaping for markup) and
// base/bytes (the little-endian integers of stored records).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/bytes.hpp"
#include "base/text.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::string_view_literals;

using views = std::vector<std::string_view>;

TEST_CASE("trim drops blanks, or the characters given, at both ends only", "[text]") {
  CHECK(trim("  a b\t ") == "a b");
  CHECK(trim("\t\t") == "");
  CHECK(trim("") == "");
  CHECK(trim("ab") == "ab");
  // Only SP and HTAB by default: a CR or NBSP is content in a header value.
  CHECK(trim(" a\r ") == "a\r");
  CHECK(trim("\r\n 13 \v\f", " \t\r\n\v\f") == "13");
  CHECK(trim("xxaxx", "x") == "a");
}

TEST_CASE("ascii_lower folds A-Z and leaves every other byte", "[text]") {
  CHECK(ascii_lower("HTTPS://Example.COM:443/Door-83") == "https://example.com:443/door-83");
  CHECK(ascii_lower("") == "");
  // UTF-8 bytes are not letters to it: \xC3\x89 (E acute) stays as it is.
  CHECK(ascii_lower("\xC3\x89Z") == "\xC3\x89z");
}

TEST_CASE("iequals and istarts_with ignore ASCII case only", "[text]") {
  CHECK(iequals("Typ", "tYP"));
  CHECK(iequals("", ""));
  CHECK_FALSE(iequals("typ", "typ "));
  CHECK_FALSE(iequals("typ", "ty"));
  // Bytes above ASCII compare as they are: no locale folds them.
  CHECK_FALSE(iequals("\xC3\xA9", "\xC3\x89"));
  CHECK(iequals("\xC3\xA9", "\xC3\xA9"));
  CHECK(istarts_with("Bearer abc", "bearer "));
  CHECK(istarts_with("BEARER abc", "bearer "));
  CHECK_FALSE(istarts_with("Bearer", "bearer "));
  CHECK(istarts_with("x", ""));
}

TEST_CASE("html_escape writes the five markup characters as references", "[text]") {
  CHECK(html_escape(R"(<a href="x">Tom & Jerry's</a>)")
        == "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
  // An escaped reference is escaped again: the text is shown, not read as markup.
  CHECK(html_escape("&amp;") == "&amp;amp;");
  CHECK(html_escape("") == "");
  // Every other byte stays, UTF-8 and controls included: sanitizing is the caller's job.
  CHECK(html_escape("\xC3\x89t\xC3\xA9\n") == "\xC3\x89t\xC3\xA9\n");
}

TEST_CASE("split keeps empty fields and split_tokens drops them", "[text]") {
  CHECK(split("a.b.c", '.') == views{"a", "b", "c"});
  CHECK(split("a..c", '.') == views{"a", "", "c"});
  CHECK(split(".", '.') == views{"", ""});
  CHECK(split("", '.') == views{""});
  CHECK(split("abc", '.') == views{"abc"});
  CHECK(split("v=0\r\ns=-\r\n", '\n') == views{"v=0\r", "s=-\r", ""});

  CHECK(split_tokens("  a \t b  c ") == views{"a", "b", "c"});
  CHECK(split_tokens("") == views{});
  CHECK(split_tokens(" \t ") == views{});
  CHECK(split_tokens("one") == views{"one"});
  CHECK(split_tokens("a,b;;c", ",;") == views{"a", "b", "c"});
}

TEST_CASE("hex writes two digits per byte in either case", "[text]") {
  CHECK(hex_upper("\x00\x01\xAB\xFF"sv) == "0001ABFF");
  CHECK(hex_lower("\x00\x01\xAB\xFF"sv) == "0001abff");
  CHECK(hex_upper("") == "");
  std::string sevens;
  for (int i = 0; i < 32; ++i)
    sevens += "7f";
  CHECK(hex_lower(std::string(32, '\x7f')) == sevens);
}

TEST_CASE("put_le and take_le write and read fixed-width little-endian integers", "[bytes]") {
  std::string out;
  put_le(out, std::uint32_t{0x01020304});
  put_le(out, std::uint64_t{0x1122334455667788});
  put_le(out, std::uint16_t{0xBEEF});
  CHECK(out == "\x04\x03\x02\x01\x88\x77\x66\x55\x44\x33\x22\x11\xEF\xBE"sv);

  std::string_view in = out;
  std::uint32_t a = 0;
  std::uint64_t b = 0;
  std::uint16_t c = 0;
  REQUIRE(take_le(in, a));
  REQUIRE(take_le(in, b));
  REQUIRE(take_le(in, c));
  CHECK(a == 0x01020304);
  CHECK(b == 0x1122334455667788);
  CHECK(c == 0xBEEF);
  CHECK(in.empty());

  // Too short: nothing is read and nothing consumed.
  std::string_view three = "\x01\x02\x03"sv;
  std::uint32_t untouched = 7;
  CHECK_FALSE(take_le(three, untouched));
  CHECK(untouched == 7);
  CHECK(three.size() == 3);
  std::uint64_t max = 0;
  std::string all_ones(8, '\xFF');
  std::string_view ones = all_ones;
  REQUIRE(take_le(ones, max));
  CHECK(max == UINT64_MAX);
}

TEST_CASE("hex_digit reads 0-9, a-f and A-F, and nothing else", "[text]") {
  CHECK(hex_digit('0') == 0u);
  CHECK(hex_digit('9') == 9u);
  CHECK(hex_digit('a') == 10u);
  CHECK(hex_digit('F') == 15u);
  for (char c : std::string{"gG/:@`x \x80"})
    CHECK_FALSE(hex_digit(c));
}
