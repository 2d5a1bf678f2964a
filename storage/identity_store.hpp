// Our long-lived identity (DTLS certificate and P-384 identity key), kept in LMDB so that a
// restart, or another replica on the same host, presents the same identity to servers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <caf/expected.hpp>

#include "net/identity.hpp"
#include "storage/lmdb.hpp"

namespace netherscope::storage {

/// Serializes an identity blob: a version byte, then three length-prefixed (u32 LE) fields.
std::string encode_identity(const net::identity_blob& blob);

/// The inverse of encode_identity; nullopt for an unknown version or a truncated record.
std::optional<net::identity_blob> decode_identity(std::string_view record);

/// Loads the identity from the meta database, creating and storing it on first use. A DTLS
/// certificate that expires within 30 days of now_unix is replaced; the identity key stays.
caf::expected<std::shared_ptr<const net::local_identity>>
load_or_create_identity(env& e, MDB_dbi meta, std::int64_t now_unix);

/// A random secret of the given size kept under name in the meta database, created on first
/// use in one write transaction, so replicas sharing the store share it.
caf::expected<std::string> load_or_create_secret(env& e, MDB_dbi meta, std::string_view name,
                                                 std::size_t bytes);

} // namespace netherscope::storage
