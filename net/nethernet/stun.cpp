#include "net/nethernet/stun.hpp"

#include <algorithm>

#include <boost/crc.hpp>

#include "base/crypto.hpp"

namespace netherscope::net::nethernet::stun {

namespace {

/// MESSAGE-INTEGRITY's value: an HMAC-SHA1.
constexpr std::size_t integrity_size = 20;

/// The family byte of an address attribute (§14.1).
constexpr std::uint8_t family_v4 = 0x01;
constexpr std::uint8_t family_v6 = 0x02;

void put16(std::string& out, std::size_t at, std::uint16_t v) {
  out[at] = static_cast<char>(v >> 8);
  out[at + 1] = static_cast<char>(v & 0xFF);
}

void append16(std::string& out, std::uint16_t v) {
  out.push_back(static_cast<char>(v >> 8));
  out.push_back(static_cast<char>(v & 0xFF));
}

void append32(std::string& out, std::uint32_t v) {
  append16(out, static_cast<std::uint16_t>(v >> 16));
  append16(out, static_cast<std::uint16_t>(v & 0xFFFF));
}

std::uint16_t get16(std::string_view in, std::size_t at) {
  return static_cast<std::uint16_t>((static_cast<unsigned char>(in[at]) << 8)
                                    | static_cast<unsigned char>(in[at + 1]));
}

std::uint32_t get32(std::string_view in, std::size_t at) {
  return (static_cast<std::uint32_t>(get16(in, at)) << 16) | get16(in, at + 2);
}

std::size_t padded(std::size_t n) {
  return (n + 3) & ~std::size_t{3};
}

/// CRC-32 as ISO-HDLC / zlib compute it, which is the one §14.7 names (ITU V.42). Boost.CRC's
/// crc_32_type is that parameter set; it saves a table of our own.
std::uint32_t crc32(std::string_view data) {
  boost::crc_32_type crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

/// The message up to `end` with its header's length field set as if the message ended at
/// `length_end`: what MESSAGE-INTEGRITY and FINGERPRINT are computed over.
std::string covered(std::string_view raw, std::size_t end, std::size_t length_end) {
  std::string out{raw.substr(0, end)};
  put16(out, 2, static_cast<std::uint16_t>(length_end - header_size));
  return out;
}

} // namespace

// -- writing ------------------------------------------------------------------

message_writer::message_writer(message_type type, const transaction_id& id, std::uint8_t padding)
  : padding_(padding), id_(id) {
  bytes_.reserve(128);
  append16(bytes_, static_cast<std::uint16_t>(type));
  append16(bytes_, 0);
  append32(bytes_, magic_cookie);
  bytes_.append(reinterpret_cast<const char*>(id.data()), id.size());
}

void message_writer::set_length(std::size_t body_bytes) {
  put16(bytes_, 2, static_cast<std::uint16_t>(body_bytes));
}

void message_writer::add_header(attribute_type type, std::size_t length) {
  append16(bytes_, static_cast<std::uint16_t>(type));
  append16(bytes_, static_cast<std::uint16_t>(length));
}

message_writer& message_writer::add(attribute_type type, std::string_view value) {
  value = value.substr(0, 0xFFFF);
  add_header(type, value.size());
  bytes_.append(value);
  bytes_.append(padded(value.size()) - value.size(), static_cast<char>(padding_));
  set_length(bytes_.size() - header_size);
  return *this;
}

message_writer& message_writer::add_u32(attribute_type type, std::uint32_t value) {
  std::string v;
  append32(v, value);
  return add(type, v);
}

message_writer& message_writer::add_u64(attribute_type type, std::uint64_t value) {
  std::string v;
  append32(v, static_cast<std::uint32_t>(value >> 32));
  append32(v, static_cast<std::uint32_t>(value & 0xFFFFFFFF));
  return add(type, v);
}

message_writer& message_writer::add_xor_mapped_address(const transport_address& where) {
  std::string v;
  v.push_back(0);
  v.push_back(static_cast<char>(where.address.is_v4() ? family_v4 : family_v6));
  append16(v, static_cast<std::uint16_t>(where.port ^ (magic_cookie >> 16)));
  // The address is XORed with the cookie followed by the transaction ID (§14.2).
  std::string mask;
  append32(mask, magic_cookie);
  mask.append(reinterpret_cast<const char*>(id_.data()), id_.size());
  if (where.address.is_v4()) {
    auto b = where.address.to_v4().to_bytes();
    for (std::size_t i = 0; i < b.size(); ++i)
      v.push_back(static_cast<char>(b[i] ^ static_cast<unsigned char>(mask[i])));
  } else {
    auto b = where.address.to_v6().to_bytes();
    for (std::size_t i = 0; i < b.size(); ++i)
      v.push_back(static_cast<char>(b[i] ^ static_cast<unsigned char>(mask[i])));
  }
  return add(attribute_type::xor_mapped_address, v);
}

bool message_writer::add_integrity(std::string_view key) {
  auto start = bytes_.size();
  auto mac = base::hmac_sha1(key, covered(bytes_, start, start + 4 + integrity_size));
  if (mac.size() != integrity_size)
    return false;
  add(attribute_type::message_integrity, mac);
  return true;
}

message_writer& message_writer::add_fingerprint() {
  auto start = bytes_.size();
  auto crc = crc32(covered(bytes_, start, start + 8)) ^ fingerprint_xor;
  return add_u32(attribute_type::fingerprint, crc);
}

// -- reading ------------------------------------------------------------------

const attribute* message::find(attribute_type t) const noexcept {
  auto wanted = static_cast<std::uint16_t>(t);
  for (const auto& a : attributes)
    if (a.type == wanted)
      return &a;
  return nullptr;
}

std::optional<message> read(std::string_view datagram, read_error* why) {
  auto fail = [why](read_error e) -> std::optional<message> {
    if (why)
      *why = e;
    return std::nullopt;
  };
  if (datagram.size() < header_size)
    return fail(read_error::truncated);
  if ((static_cast<unsigned char>(datagram[0]) & 0xC0) != 0 || get32(datagram, 4) != magic_cookie)
    return fail(read_error::not_stun);
  auto length = get16(datagram, 2);
  if (length % 4 != 0)
    return fail(read_error::not_stun);
  if (datagram.size() != header_size + length)
    return fail(read_error::truncated);

  message m;
  m.raw = datagram;
  m.type = get16(datagram, 0);
  std::copy_n(reinterpret_cast<const std::uint8_t*>(datagram.data() + 8), m.id.size(),
              m.id.begin());
  std::size_t at = header_size;
  while (at < datagram.size()) {
    if (datagram.size() - at < 4)
      return fail(read_error::bad_attribute);
    auto type = get16(datagram, at);
    auto size = get16(datagram, at + 2);
    if (padded(size) > datagram.size() - at - 4)
      return fail(read_error::bad_attribute);
    if (!m.attributes.empty()
        && m.attributes.back().type == static_cast<std::uint16_t>(attribute_type::fingerprint))
      return fail(read_error::bad_attribute);
    m.attributes.push_back({type, datagram.substr(at + 4, size), at});
    at += 4 + padded(size);
  }
  if (why)
    *why = read_error::none;
  return m;
}

bool integrity_ok(const message& m, std::string_view key) {
  const auto* mi = m.find(attribute_type::message_integrity);
  if (mi == nullptr || mi->value.size() != integrity_size)
    return false;
  auto expected = base::hmac_sha1(key, covered(m.raw, mi->offset, mi->offset + 4 + integrity_size));
  return expected.size() == integrity_size && base::same_secret(expected, mi->value);
}

bool fingerprint_ok(const message& m) {
  const auto* fp = m.find(attribute_type::fingerprint);
  if (fp == nullptr || fp->value.size() != 4)
    return false;
  // read() accepts FINGERPRINT only as the last attribute, so the whole message before it is
  // covered and the header's length already counts it.
  auto crc = crc32(m.raw.substr(0, fp->offset)) ^ fingerprint_xor;
  return crc == get32(fp->value, 0);
}

std::optional<transport_address> xor_mapped_address(const message& m) {
  const auto* a = m.find(attribute_type::xor_mapped_address);
  if (a == nullptr || a->value.size() < 4)
    return std::nullopt;
  auto family = static_cast<std::uint8_t>(a->value[1]);
  std::string mask;
  append32(mask, magic_cookie);
  mask.append(reinterpret_cast<const char*>(m.id.data()), m.id.size());
  transport_address out;
  out.port = static_cast<std::uint16_t>(get16(a->value, 2) ^ (magic_cookie >> 16));
  if (family == family_v4 && a->value.size() == 8) {
    boost::asio::ip::address_v4::bytes_type b;
    for (std::size_t i = 0; i < b.size(); ++i)
      b[i] = static_cast<unsigned char>(a->value[4 + i]) ^ static_cast<unsigned char>(mask[i]);
    out.address = boost::asio::ip::address_v4{b};
    return out;
  }
  if (family == family_v6 && a->value.size() == 20) {
    boost::asio::ip::address_v6::bytes_type b;
    for (std::size_t i = 0; i < b.size(); ++i)
      b[i] = static_cast<unsigned char>(a->value[4 + i]) ^ static_cast<unsigned char>(mask[i]);
    out.address = boost::asio::ip::address_v6{b};
    return out;
  }
  return std::nullopt;
}

// -- ICE connectivity checks ------------------------------------------------------

transaction_id random_transaction() {
  transaction_id id{};
  if (auto bytes = base::random_bytes(id.size()))
    std::copy(bytes->begin(), bytes->end(), id.begin());
  return id;
}

std::string binding_request(const binding_check& check, const transaction_id& id) {
  message_writer w{message_type::binding_request, id};
  w.add(attribute_type::username, check.username);
  w.add_u32(attribute_type::priority, check.priority);
  w.add_u64(attribute_type::ice_controlling, check.tie_breaker);
  if (check.use_candidate)
    w.add(attribute_type::use_candidate, {});
  if (!w.add_integrity(check.key))
    return {};
  w.add_fingerprint();
  return w.bytes();
}

std::string binding_success(const message& request, const transport_address& from,
                            std::string_view key) {
  message_writer w{message_type::binding_success, request.id};
  w.add_xor_mapped_address(from);
  if (!w.add_integrity(key))
    return {};
  w.add_fingerprint();
  return w.bytes();
}

check_answer judge_response(std::string_view datagram, const transaction_id& id,
                            std::string_view key) {
  auto m = read(datagram);
  if (!m || m->id != id)
    return check_answer::unrelated;
  auto type = static_cast<message_type>(m->type);
  if (type != message_type::binding_success && type != message_type::binding_error)
    return check_answer::unrelated;
  // A FINGERPRINT that is present must be right (RFC 8489 §7.3): a wrong one says these bytes
  // are not STUN at all, whatever they look like.
  if (m->find(attribute_type::fingerprint) != nullptr && !fingerprint_ok(*m))
    return check_answer::unrelated;
  if (!integrity_ok(*m, key))
    return check_answer::bad_integrity;
  return type == message_type::binding_success ? check_answer::success : check_answer::error;
}

} // namespace netherscope::net::nethernet::stun
