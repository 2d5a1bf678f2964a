// The admin commands of the linked Xbox account: xbox-login (the device code flow, then one
// renewal through the whole chain, then the link sealed into the store), xbox-status (opens
// the link and renews through the chain, saying what works or what the operator must fix) and
// xbox-logout. docs/OPERATIONS.md, "Linking an Xbox account", is the operator's side.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "base/sealed.hpp"
#include "net/xbox/endpoints.hpp"
#include "storage/open.hpp"

namespace netherscope::app {

/// What the Xbox commands need besides the store.
struct xbox_admin_settings {
  /// The operator's secrets key (--secrets-key-file); without it the link can be neither
  /// sealed nor opened.
  std::optional<base::secrets_key> key;
  /// Why there is no key, with the fix; empty when key is set.
  std::string key_problem;
  /// Base URLs used instead of production hosts (--xbox-endpoints).
  net::xbox::endpoints endpoints;
  /// The deadline of each request of the chain.
  std::chrono::milliseconds timeout{15000};
};

/// Links an account: prints where to sign in and the code, waits for the operator, runs the
/// chain once and stores the sealed link. Refuses when an account is linked already. Exit
/// status as the other admin commands.
int xbox_login(const storage::opened& s, const xbox_admin_settings& settings);

/// Says whether an account is linked, whether this key opens it, and whether the chain works
/// with it now (the gamertag servers see, or the failed step and its fix). Exit status 0 only
/// when the chain works.
int xbox_status(const storage::opened& s, const xbox_admin_settings& settings);

/// Removes the link; the service falls back to its self-signed identity.
int xbox_logout(const storage::opened& s);

} // namespace netherscope::app
