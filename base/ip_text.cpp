#include "base/ip_text.hpp"

#include <boost/asio/ip/address.hpp>

namespace netherscope::base {

namespace ip = boost::asio::ip;

std::string ipv4_text(std::uint32_t address) {
  return ip::make_address_v4(address).to_string();
}

std::string ipv6_text(const std::array<unsigned char, 16>& bytes) {
  auto v6 = ip::make_address_v6(bytes);
  if (v6.is_v4_mapped())
    return ip::make_address_v4(ip::v4_mapped, v6).to_string();
  return v6.to_string();
}

std::optional<std::array<unsigned char, 4>> ipv4_bytes(std::string_view text) {
  boost::system::error_code ec;
  auto v4 = ip::make_address_v4(std::string{text}, ec);
  if (ec)
    return std::nullopt;
  return v4.to_bytes();
}

} // namespace netherscope::base
