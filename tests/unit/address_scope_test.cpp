// Tests for net/base/address_scope: every scope, the edges of its ranges, and the forms
// candidates write addresses in (zones, IPv4-mapped, mDNS and other names).
#include "net/base/address_scope.hpp"

#include <catch2/catch.hpp>

#include <string>

using netherscope::net::address_scope;
using netherscope::net::classify_address;
using netherscope::net::ip_family;

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
