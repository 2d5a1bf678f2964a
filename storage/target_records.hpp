// What the store remembers about targets, one pair of records per (host, port): the scheme
// the target answered with (an expiring hint) and the identity key its answers were last
// verified with (kept until it changes). The decisions about them are pure functions here,
// so they are tested without a store.
//
// Every value starts with a version byte and holds fixed-width little-endian integers, as in
// storage/records.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/target.hpp"
#include "core/target_memory.hpp"

namespace netherscope::storage {

// -- records ------------------------------------------------------------------

/// The scheme a target answered with, believed until expires_unix.
struct scheme_record {
  core::remembered_scheme scheme = core::remembered_scheme::unknown;
  std::int64_t expires_unix = 0;
};

/// The identity key a target's answers were last verified with, and since when.
struct identity_key_record {
  /// Lowercase hex SHA-256 of the key's DER SubjectPublicKeyInfo.
  std::string key_sha256;
  std::int64_t since_unix = 0;
};

/// What every scheme record's key starts with.
constexpr std::string_view scheme_record_prefix = "s|";
/// The length of a key hash in an identity key record: lowercase hex SHA-256.
constexpr std::size_t identity_key_hex_length = 64;

/// "s|<host>|<port>": a target's scheme record.
std::string scheme_record_key(std::string_view host, std::uint16_t port);
/// "i|<host>|<port>": a target's identity key record.
std::string identity_record_key(std::string_view host, std::uint16_t port);

std::string encode(const scheme_record& x);
/// Nullopt for another version, a wrong length or an unknown scheme.
std::optional<scheme_record> decode_scheme(std::string_view record);
std::string encode(const identity_key_record& x);
/// Nullopt for another version or a wrong length.
std::optional<identity_key_record> decode_identity_key(std::string_view record);

/// What a target's stored records say at now_unix, each given as its stored bytes or nullopt
/// when absent. An expired or unreadable scheme record reads as unknown, an unreadable key
/// record as no key: both are hints that the next answer rewrites. Both stores read so.
core::target_memory read_target_memory(std::optional<std::string_view> scheme_record,
                                 std::optional<std::string_view> key_record,
                                 std::int64_t now_unix);

/// Whether a stored scheme record is due for the sweep at now_unix: expired, or unreadable.
bool scheme_record_stale(std::string_view record, std::int64_t now_unix);

// -- decisions ----------------------------------------------------------------

/// How a call to a target ended, as far as its scheme is concerned.
enum class fetch_outcome : std::uint8_t {
  /// A response arrived (any status).
  answered,
  /// The target could not be reached or did not answer in time.
  unanswered,
  /// Nothing was sent: the address policy or the per-target limit refused the call.
  not_tried,
};

/// The scheme part of what a call teaches. Only auto-detected calls count (a forced scheme
/// proves nothing about the other one), and nothing is remembered when lifetime_s is 0.
/// A response stores its scheme when it differs from the remembered one or when the record
/// has less than half its lifetime left (so a steady target costs a write per half lifetime,
/// not one per call); an unanswered call forgets a remembered scheme, so the next call
/// detects again.
core::target_memory_update plan_scheme_update(core::tls_mode mode, const core::target_memory& recalled,
                                        fetch_outcome outcome, bool used_tls,
                                        std::int64_t now_unix, std::int64_t lifetime_s);

} // namespace netherscope::storage
