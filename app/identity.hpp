// Our NetherNet identity at start-up: loaded from the store, or made and stored once.
#pragma once

#include <cstdint>
#include <memory>

#include <caf/expected.hpp>

#include "net/nethernet/identity.hpp"
#include "storage/store.hpp"

namespace netherscope::app {

namespace nethernet = net::nethernet;

/// Loads the identity from the store (every replica on it gets the same one), creating and
/// storing it on first use. A DTLS certificate that expires within 30 days of now_unix is
/// replaced; the identity key stays, since servers pin the key, not the certificate. A record that cannot be read is an error
/// and is never replaced.
caf::expected<std::shared_ptr<const nethernet::local_identity>>
load_or_create_identity(storage::store& store, std::int64_t now_unix);

} // namespace netherscope::app
