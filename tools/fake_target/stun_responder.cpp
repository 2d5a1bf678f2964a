// A minimal STUN Binding responder (RFC 8489 §5, §6.3, §14.2, §14.5, §14.7).
#include "stun_responder.hpp"

#include <boost/crc.hpp>

#include <openssl/evp.h>

#include <cstdint>

namespace fake_target {

namespace {

constexpr std::uint32_t cookie = 0x2112A442;
constexpr std::uint16_t type_username = 0x0006;
constexpr std::uint16_t type_integrity = 0x0008;
constexpr std::uint16_t type_xor_mapped = 0x0020;
constexpr std::uint16_t type_fingerprint = 0x8028;

unsigned byte_at(std::string_view s, std::size_t i) {
  return static_cast<unsigned char>(s[i]);
}

std::uint16_t read16(std::string_view s, std::size_t i) {
  return static_cast<std::uint16_t>(byte_at(s, i) << 8 | byte_at(s, i + 1));
}

void write16(std::string& s, std::uint16_t v) {
  s += static_cast<char>(v >> 8);
  s += static_cast<char>(v & 0xFF);
}

void write32(std::string& s, std::uint32_t v) {
  write16(s, static_cast<std::uint16_t>(v >> 16));
  write16(s, static_cast<std::uint16_t>(v));
}

/// HMAC-SHA1 through OpenSSL's one-shot EVP_Q_mac; empty on failure.
std::string hmac_sha1(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  std::size_t len = 0;
  static const unsigned char none = 0;
  const void* k = key.empty() ? static_cast<const void*>(&none) : key.data();
  if (!EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA1", nullptr, k, key.size(),
                 reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, sizeof out, &len))
    return {};
  return std::string(reinterpret_cast<const char*>(out), len);
}

/// The bytes a MESSAGE-INTEGRITY at `offset` covers: the message before it, with the length
/// field counting up to the end of its 24 bytes.
std::string integrity_input(std::string message, std::size_t offset) {
  const auto length = offset + 24 - 20;
  message[2] = static_cast<char>(length >> 8);
  message[3] = static_cast<char>(length & 0xFF);
  return message.substr(0, offset);
}

void set_length(std::string& message) {
  const auto length = message.size() - 20;
  message[2] = static_cast<char>(length >> 8);
  message[3] = static_cast<char>(length & 0xFF);
}

}  // namespace

std::optional<std::string> answer_check(std::string_view datagram, const ice_credentials& ours,
                                        stun_mode mode, std::string_view from_address,
                                        std::uint16_t from_port) {
  if (mode == stun_mode::silent) return std::nullopt;
  // A Binding request with the cookie and a length that matches the datagram.
  if (datagram.size() < 20 || read16(datagram, 0) != 0x0001) return std::nullopt;
  if (read16(datagram, 4) != (cookie >> 16) || read16(datagram, 6) != (cookie & 0xFFFF)) return std::nullopt;
  if (20u + read16(datagram, 2) != datagram.size()) return std::nullopt;

  std::string_view username;
  std::optional<std::size_t> integrity_at;
  for (std::size_t at = 20; at + 4 <= datagram.size();) {
    const auto type = read16(datagram, at);
    const auto length = read16(datagram, at + 2);
    if (at + 4 + length > datagram.size()) return std::nullopt;
    if (type == type_username) username = datagram.substr(at + 4, length);
    if (type == type_integrity && length == 20 && !integrity_at) integrity_at = at;
    at += 4 + ((length + 3u) & ~3u);
  }
  // The check must name us first (RFC 8445 §7.3: "<our ufrag>:<their ufrag>") and carry an
  // HMAC under our password; a request that fails either gets no answer.
  const auto prefix = ours.ufrag + ":";
  if (username.substr(0, prefix.size()) != prefix || !integrity_at) return std::nullopt;
  const auto expected = hmac_sha1(ours.pwd, integrity_input(std::string(datagram), *integrity_at));
  if (expected.empty() || datagram.substr(*integrity_at + 4, 20) != expected) return std::nullopt;

  std::string out;
  write16(out, 0x0101);
  write16(out, 0);
  out.append(datagram.substr(4, 16));  // the cookie and the request's transaction ID

  // XOR-MAPPED-ADDRESS: where the request came from, XORed with the cookie (and ID for IPv6).
  write16(out, type_xor_mapped);
  write16(out, static_cast<std::uint16_t>(4 + from_address.size()));
  out += '\0';
  out += static_cast<char>(from_address.size() == 4 ? 0x01 : 0x02);
  write16(out, static_cast<std::uint16_t>(from_port ^ (cookie >> 16)));
  const auto mask = datagram.substr(4, 16);
  for (std::size_t i = 0; i < from_address.size(); ++i)
    out += static_cast<char>(byte_at(from_address, i) ^ byte_at(mask, i));

  const auto key = mode == stun_mode::wrong_integrity ? ours.pwd + "-not-this-one" : ours.pwd;
  const auto mac = hmac_sha1(key, integrity_input(out + std::string(24, '\0'), out.size()));
  if (mac.size() != 20) return std::nullopt;
  write16(out, type_integrity);
  write16(out, 20);
  out += mac;

  write16(out, type_fingerprint);
  write16(out, 4);
  write32(out, 0);
  set_length(out);
  boost::crc_32_type crc;
  crc.process_bytes(out.data(), out.size() - 8);
  const auto value = crc.checksum() ^ 0x5354554eu;
  out.resize(out.size() - 4);
  write32(out, value);
  return out;
}

}  // namespace fake_target
