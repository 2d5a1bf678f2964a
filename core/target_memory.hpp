// What the service remembers about a target (host and port) between calls: the scheme it
// answered with, and the identity key its answers were last verified with.
//
// Part of the vocabulary: the probe and the store's actor exchange these as messages.
#pragma once

#include <cstdint>
#include <string>

namespace netherscope::core {

/// The scheme a target answered with.
enum class remembered_scheme : std::uint8_t {
  /// Nothing remembered, or the memory expired.
  unknown,
  tls,
  plain,
};

/// What the store holds about one target, as a probe needs it before a call.
struct target_memory {
  /// The scheme of the last answer, while its record has not expired.
  remembered_scheme scheme = remembered_scheme::unknown;
  /// When that record expires, in Unix seconds; 0 when scheme is unknown.
  std::int64_t scheme_expires = 0;
  /// The verified identity key last seen (lowercase hex SHA-256 of its DER SPKI); empty when
  /// none was.
  std::string key_sha256;
};

/// What a call taught about a target: what to change in the store.
struct target_memory_update {
  /// What happens to the scheme record.
  enum class scheme_change : std::uint8_t {
    /// Leave it as it is.
    keep,
    /// Store scheme until scheme_expires.
    store,
    /// Delete it: the remembered scheme did not lead to an answer.
    forget,
  };
  scheme_change change = scheme_change::keep;
  remembered_scheme scheme = remembered_scheme::unknown;
  std::int64_t scheme_expires = 0;
  /// A verified identity key to store as the last one seen; empty to leave the stored one.
  std::string key_sha256;

  /// Whether applying it changes anything.
  bool empty() const {
    return change == scheme_change::keep && key_sha256.empty();
  }
};

} // namespace netherscope::core
