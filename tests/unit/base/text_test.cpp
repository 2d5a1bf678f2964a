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

TEST_CASE("split_host_port reads host, host:port, [IPv6], [IPv6]:port and bare IPv6",
          "[text]") {
  auto plain = netherscope::base::split_host_port("play.example.net");
  REQUIRE(plain);
  CHECK(plain->host == "play.example.net");
  CHECK_FALSE(plain->has_port);
  CHECK_FALSE(plain->bracketed);

  auto with_port = netherscope::base::split_host_port("127.0.0.1:19133");
  REQUIRE(with_port);
  CHECK(with_port->host == "127.0.0.1");
  CHECK(with_port->port == "19133");
  CHECK(with_port->has_port);

  auto empty_port = netherscope::base::split_host_port("host:");
  REQUIRE(empty_port);
  CHECK(empty_port->has_port);
  CHECK(empty_port->port.empty());

  auto bare_v6 = netherscope::base::split_host_port("2001:db8::1");
  REQUIRE(bare_v6);
  CHECK(bare_v6->host == "2001:db8::1");
  CHECK_FALSE(bare_v6->has_port);
  CHECK_FALSE(bare_v6->bracketed);

  auto v6 = netherscope::base::split_host_port("[::1]");
  REQUIRE(v6);
  CHECK(v6->host == "::1");
  CHECK(v6->bracketed);
  CHECK_FALSE(v6->has_port);

  auto v6_port = netherscope::base::split_host_port("[::1]:53");
  REQUIRE(v6_port);
  CHECK(v6_port->host == "::1");
  CHECK(v6_port->port == "53");
  CHECK(v6_port->has_port);

  auto v6_empty = netherscope::base::split_host_port("[]");
  REQUIRE(v6_empty);
  CHECK(v6_empty->host.empty());

  CHECK_FALSE(netherscope::base::split_host_port("[::1"));
  CHECK_FALSE(netherscope::base::split_host_port("[::1]53"));
  CHECK_FALSE(netherscope::base::split_host_port("[::1]x:53"));
}
