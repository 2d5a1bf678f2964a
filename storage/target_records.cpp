#include "storage/target_records.hpp"

#include "base/bytes.hpp"

namespace netherscope::storage {

namespace {

constexpr std::uint8_t scheme_version = 1;
constexpr std::uint8_t identity_key_version = 1;

std::string target_key(char kind, std::string_view host, std::uint16_t port) {
  // Hosts are validated names or IP literals, which never hold '|'.
  std::string key{kind};
  key.append("|").append(host).append("|").append(std::to_string(port));
  return key;
}

} // namespace

std::string scheme_record_key(std::string_view host, std::uint16_t port) {
  return target_key('s', host, port);
}

std::string identity_record_key(std::string_view host, std::uint16_t port) {
  return target_key('i', host, port);
}

std::string encode(const scheme_record& x) {
  std::string out;
  out.push_back(static_cast<char>(scheme_version));
  out.push_back(static_cast<char>(x.scheme));
  base::put_le(out, static_cast<std::uint64_t>(x.expires_unix));
  return out;
}

std::optional<scheme_record> decode_scheme(std::string_view in) {
  std::uint64_t expires = 0;
  if (!base::take_version(in, scheme_version) || in.empty())
    return std::nullopt;
  auto scheme = static_cast<std::uint8_t>(in[0]);
  in.remove_prefix(1);
  if ((scheme != static_cast<std::uint8_t>(core::remembered_scheme::tls)
       && scheme != static_cast<std::uint8_t>(core::remembered_scheme::plain))
      || !base::take_le(in, expires) || !in.empty())
    return std::nullopt;
  return scheme_record{static_cast<core::remembered_scheme>(scheme),
                       static_cast<std::int64_t>(expires)};
}

std::string encode(const identity_key_record& x) {
  std::string out;
  out.push_back(static_cast<char>(identity_key_version));
  base::put_le(out, static_cast<std::uint64_t>(x.since_unix));
  out += x.key_sha256;
  return out;
}

std::optional<identity_key_record> decode_identity_key(std::string_view in) {
  std::uint64_t since = 0;
  if (!base::take_version(in, identity_key_version) || !base::take_le(in, since)
      || in.size() != identity_key_hex_length)
    return std::nullopt;
  return identity_key_record{std::string{in}, static_cast<std::int64_t>(since)};
}

core::target_memory read_target_memory(std::optional<std::string_view> scheme_record,
                                 std::optional<std::string_view> key_record,
                                 std::int64_t now_unix) {
  core::target_memory out;
  if (scheme_record) {
    auto record = decode_scheme(*scheme_record);
    if (record && record->expires_unix > now_unix) {
      out.scheme = record->scheme;
      out.scheme_expires = record->expires_unix;
    }
  }
  if (key_record) {
    if (auto record = decode_identity_key(*key_record))
      out.key_sha256 = std::move(record->key_sha256);
  }
  return out;
}

bool scheme_record_stale(std::string_view record, std::int64_t now_unix) {
  auto scheme = decode_scheme(record);
  return !scheme || scheme->expires_unix <= now_unix;
}

core::target_memory_update plan_scheme_update(core::tls_mode mode, const core::target_memory& recalled,
                                        fetch_outcome outcome, bool used_tls,
                                        std::int64_t now_unix, std::int64_t lifetime_s) {
  using change = core::target_memory_update::scheme_change;
  core::target_memory_update out;
  if (mode != core::tls_mode::auto_detect || lifetime_s <= 0 || outcome == fetch_outcome::not_tried)
    return out;
  if (outcome == fetch_outcome::unanswered) {
    if (recalled.scheme != core::remembered_scheme::unknown)
      out.change = change::forget;
    return out;
  }
  auto scheme = used_tls ? core::remembered_scheme::tls : core::remembered_scheme::plain;
  if (scheme == recalled.scheme && recalled.scheme_expires - now_unix > lifetime_s / 2)
    return out;
  out.change = change::store;
  out.scheme = scheme;
  out.scheme_expires = now_unix + lifetime_s;
  return out;
}

} // namespace netherscope::storage
