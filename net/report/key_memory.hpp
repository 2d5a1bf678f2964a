// Whether a target's identity key changed since the last verified answer (PROTOCOL.md §5.6:
// "a change between probes means the server key rotated").
//
// Pure: the probe recalls the previous key from the store; rendering (net/report/bodies) shows
// the comparison inside the reply's identity, and the probe stores the key it returns.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "net/nethernet/identity_check.hpp"

namespace netherscope::net::report {

/// What comparing an answer's identity with the key last seen gives.
struct key_comparison {
  /// The verified key to remember (lowercase hex SHA-256 of its DER SPKI); empty when nothing
  /// is to be stored: no verified key, or the same key as before.
  std::string key_to_store;
  /// True when the key differs from the one last seen, false when it is the same; nullopt on
  /// first sight or when the answer's identity did not verify.
  std::optional<bool> key_changed;
  /// The key last seen, when key_changed is true.
  std::string previous_key;
};

/// Compares the answer's identity with previous_key (empty when none was seen). Only a
/// verified key counts: an unverified one could be anybody's, and remembering it would make
/// the real key look like a change.
key_comparison compare_identity_key(const nethernet::identity_check& identity, std::string_view previous_key);


} // namespace netherscope::net::report
