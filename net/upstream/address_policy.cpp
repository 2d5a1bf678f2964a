#include "net/upstream/address_policy.hpp"

#include <optional>
#include <string>
#include <utility>

#include "base/address_scope.hpp"
#include "net/upstream/dns.hpp"

namespace netherscope::net::upstream {

namespace {

using boost::asio::ip::address;
using boost::asio::ip::address_v4;
using boost::asio::ip::address_v6;

// -- IPv4 carried in IPv6 --

/// How an IPv6 address carries an IPv4 address, if it does.
enum class embedding { mapped, nat64, six_to_four };

/// An IPv4 address found inside an IPv6 address.
struct embedded_v4 {
  address_v4 v4;
  embedding how;
};

/// The IPv4 address inside an IPv4-mapped (::ffff:0:0/96), NAT64 well-known prefix
/// (64:ff9b::/96) or 6to4 (2002::/16) address.
std::optional<embedded_v4> find_embedded_v4(const address& addr) {
  if (!addr.is_v6())
    return std::nullopt;
  const auto b = addr.to_v6().to_bytes();
  auto v4_at = [&b](std::size_t i) {
    return address_v4{address_v4::bytes_type{{b[i], b[i + 1], b[i + 2], b[i + 3]}}};
  };
  auto zero_until = [&b](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (b[i] != 0)
        return false;
    return true;
  };
  if (zero_until(0, 10) && b[10] == 0xFF && b[11] == 0xFF)
    return embedded_v4{v4_at(12), embedding::mapped};
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && zero_until(4, 12))
    return embedded_v4{v4_at(12), embedding::nat64};
  if (b[0] == 0x20 && b[1] == 0x02)
    return embedded_v4{v4_at(2), embedding::six_to_four};
  return std::nullopt;
}

/// The address as reasons name it: NAT64 and 6to4 forms also show the IPv4 address they carry,
/// since their text alone does not (the mapped form prints as ::ffff:a.b.c.d already).
std::string describe(const address& addr, const std::optional<embedded_v4>& inner) {
  std::string text = addr.to_string();
  if (inner && inner->how == embedding::nat64)
    text += " (NAT64 for " + inner->v4.to_string() + ")";
  else if (inner && inner->how == embedding::six_to_four)
    text += " (6to4 for " + inner->v4.to_string() + ")";
  return text;
}

policy_verdict allow() {
  return policy_verdict{true, {}};
}

policy_verdict refuse(std::string reason) {
  return policy_verdict{false, std::move(reason)};
}

/// The default verdict for an address, naming it as `name` in the reason: every address whose
/// special-purpose range is not public is refused.
policy_verdict check_defaults(const address& addr, const std::string& name) {
  const auto& row = base::find_special_range(addr);
  if (row.scope == base::address_scope::public_address)
    return allow();
  return refuse(name + " is " + row.reason);
}

} // namespace

address_policy::address_policy(std::vector<base::cidr> allow, std::vector<base::cidr> deny)
  : allow_(std::move(allow)), deny_(std::move(deny)) {
  // nop
}

policy_verdict address_policy::check(const boost::asio::ip::address& addr) const {
  const auto inner = find_embedded_v4(addr);
  const address inner_addr = inner ? address{inner->v4} : address{};
  // A denied IPv4 network must not be reachable through any IPv6 form that leads to it.
  for (const auto& net : deny_)
    if (base::contains(net, addr) || (inner && contains(net, inner_addr)))
      return refuse(describe(addr, inner) + " is denied by --deny-cidr " + to_string(net));
  // An IPv4-mapped address is the IPv4 host itself, so an IPv4 allow covers it. NAT64 and
  // 6to4 addresses are not: they lead through a gateway, which is a different host.
  const bool mapped = inner && inner->how == embedding::mapped;
  for (const auto& net : allow_)
    if (base::contains(net, addr) || (mapped && contains(net, inner_addr)))
      return allow();
  if (inner)
    return check_defaults(inner_addr, describe(addr, inner));
  return check_defaults(addr, addr.to_string());
}

std::optional<policy_verdict> address_policy::check_without_lookup(std::string_view host) const {
  boost::system::error_code ec;
  auto literal = boost::asio::ip::make_address(std::string{host}, ec);
  if (!ec)
    return check(literal);
  if (!is_localhost_name(host))
    return std::nullopt;
  // As a fetch does with a lookup's answer: any allowed address will be tried, and the first
  // refusal is the reason when none is.
  auto v4 = check(address_v4::loopback());
  if (v4.allowed)
    return v4;
  auto v6 = check(address_v6::loopback());
  return v6.allowed ? v6 : v4;
}

} // namespace netherscope::net::upstream
