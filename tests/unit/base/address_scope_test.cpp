// Tests for base/address_scope: every scope, the edges of its ranges, and the forms
// candidates write addresses in (zones, IPv4-mapped, mDNS and other names).
#include "base/address_scope.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <string>

#include <boost/asio/ip/address.hpp>
#include <boost/system/error_code.hpp>

using netherscope::base::address_scope;
using netherscope::base::classify_address;
using netherscope::base::ip_family;

namespace {

std::string scope_of(const std::string& address) {
  return std::string{to_string(classify_address(address).scope)};
}

} // namespace

TEST_CASE("address scopes of IPv4 literals", "[address_scope]") {
  struct row {
    const char* address;
    const char* scope;
  };
  for (auto r : {row{"8.8.8.8", "public"},          row{"1.1.1.1", "public"},
                 row{"10.0.0.1", "private"},        row{"172.16.0.1", "private"},
                 row{"172.31.255.255", "private"},  row{"172.32.0.1", "public"},
                 row{"192.168.1.20", "private"},    row{"100.64.0.1", "cgnat"},
                 row{"100.127.255.255", "cgnat"},   row{"100.128.0.1", "public"},
                 row{"127.0.0.1", "loopback"},      row{"127.255.0.9", "loopback"},
                 row{"169.254.10.1", "link-local"}, row{"192.0.2.2", "documentation"},
                 row{"198.51.100.7", "documentation"}, row{"203.0.113.10", "documentation"},
                 row{"0.0.0.0", "unspecified"},     row{"0.1.2.3", "unspecified"},
                 row{"224.0.0.251", "multicast"},   row{"239.255.255.250", "multicast"},
                 row{"240.0.0.1", "reserved"},      row{"255.255.255.255", "reserved"},
                 row{"198.18.0.1", "reserved"},     row{"192.0.0.8", "reserved"},
                 row{"192.88.99.1", "reserved"}}) {
    INFO(r.address);
    CHECK(scope_of(r.address) == r.scope);
    CHECK(classify_address(r.address).family == ip_family::v4);
  }
}

TEST_CASE("address scopes of IPv6 literals", "[address_scope]") {
  struct row {
    const char* address;
    const char* scope;
  };
  for (auto r : {row{"2001:4860:4860::8888", "public"}, row{"2a00:1450:4001::1", "public"},
                 row{"fd00::2", "private"},             row{"fc00::1", "private"},
                 row{"::1", "loopback"},                row{"fe80::1", "link-local"},
                 row{"fe80::1%eth0", "link-local"},     row{"2001:db8::1", "documentation"},
                 row{"3fff::1", "documentation"},       row{"::", "unspecified"},
                 row{"ff02::fb", "multicast"},          row{"fec0::1", "reserved"},
                 row{"2001::1", "reserved"},            row{"100::1", "reserved"},
                 row{"::2", "reserved"},                row{"4000::1", "reserved"},
                 row{"64:ff9b:1::1", "reserved"}}) {
    INFO(r.address);
    CHECK(scope_of(r.address) == r.scope);
    CHECK(classify_address(r.address).family == ip_family::v6);
  }
}

TEST_CASE("IPv4-mapped IPv6 is judged as its IPv4 address", "[address_scope]") {
  CHECK(scope_of("::ffff:192.168.0.1") == "private");
  CHECK(scope_of("::ffff:8.8.8.8") == "public");
  CHECK(classify_address("::ffff:8.8.8.8").family == ip_family::v4);
}

TEST_CASE("names: mDNS .local and others", "[address_scope]") {
  for (auto name : {"5f3d0c6e-4b1a-4c1e-9a0e-2f4f6b7c8d9e.local", "HOST.LOCAL", "a.local."}) {
    INFO(name);
    CHECK(classify_address(name).scope == address_scope::mdns);
    CHECK(classify_address(name).family == ip_family::none);
  }
  for (auto name : {"play.example.com", "local", ".local", "dead.beef", "10.0.0.300", ""}) {
    INFO(name);
    CHECK(classify_address(name).scope == address_scope::hostname);
  }
}

// -- the special-purpose table itself --

namespace {

using boost::asio::ip::address;
using netherscope::base::find_special_range;
using netherscope::base::special_ranges;

/// Parses an address literal written in a test; a typo fails the test instead of throwing.
address address_of(const std::string& text) {
  boost::system::error_code ec;
  auto result = boost::asio::ip::make_address(text, ec);
  INFO("address literal in the test: " << text);
  REQUIRE_FALSE(ec);
  return result;
}

} // namespace

TEST_CASE("no row is hidden by an earlier row that contains it", "[address_scope]") {
  // First match wins, so a row inside an earlier, wider row could never be found.
  const auto& rows = special_ranges();
  for (std::size_t later = 0; later < rows.size(); ++later)
    for (std::size_t earlier = 0; earlier < later; ++earlier) {
      const auto& wide = rows[earlier].net;
      const auto& narrow = rows[later].net;
      INFO(to_string(narrow) << " after " << to_string(wide));
      CHECK_FALSE((narrow.prefix >= wide.prefix && contains(wide, narrow.network)));
    }
}

TEST_CASE("every address has a row: each family ends with a /0", "[address_scope]") {
  const auto& rows = special_ranges();
  REQUIRE(rows.size() >= 2);
  CHECK(to_string(rows.back().net) == "::/0");
  CHECK(rows.back().scope == address_scope::reserved);
  std::size_t v4_wildcards = 0;
  for (const auto& row : rows)
    if (to_string(row.net) == "0.0.0.0/0") {
      ++v4_wildcards;
      CHECK(row.scope == address_scope::public_address);
    }
  CHECK(v4_wildcards == 1);
  CHECK(find_special_range(address_of("8.8.8.8")).scope == address_scope::public_address);
  CHECK(find_special_range(address_of("4000::1")).scope == address_scope::reserved);
  CHECK(find_special_range(address_of("4000::1")).reason == "not global unicast (outside 2000::/3)");
}

TEST_CASE("a row's reason names its range", "[address_scope]") {
  CHECK(find_special_range(address_of("127.0.0.1")).reason == "loopback (127.0.0.0/8)");
  CHECK(find_special_range(address_of("255.255.255.255")).reason == "broadcast (255.255.255.255/32)");
  CHECK(find_special_range(address_of("255.255.255.255")).scope == address_scope::reserved);
  for (const auto& row : special_ranges()) {
    if (to_string(row.net) == "::/0")
      continue;
    INFO(to_string(row.net) << ": " << row.reason);
    const auto suffix = " (" + to_string(row.net) + ")";
    REQUIRE(row.reason.size() > suffix.size());
    CHECK(row.reason.compare(row.reason.size() - suffix.size(), suffix.size(), suffix) == 0);
  }
}

TEST_CASE("find_special_range leaves IPv4-mapped addresses to the caller", "[address_scope]") {
  // The mapped form is matched as the IPv6 address it is; classify_address unwraps it.
  CHECK(find_special_range(address_of("::ffff:8.8.8.8")).scope == address_scope::reserved);
  CHECK(classify_address("::ffff:8.8.8.8").scope == address_scope::public_address);
}
