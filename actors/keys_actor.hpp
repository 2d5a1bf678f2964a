// The keys actor: accounts and their API keys in LMDB. Runs detached: commits block on disk.
#pragma once

#include <functional>

#include "actors/messages.hpp"
#include "actors/quota_actor.hpp"

namespace netherscope {

/// Creates accounts at sign-in, issues and revokes keys, and shows an account's usage.
using keys_actor = caf::typed_actor<
  caf::replies_to<signin_atom, std::uint64_t, std::string>::with<account_view>,
  caf::replies_to<account_atom, std::string>::with<account_view>,
  caf::replies_to<rotate_atom, std::string>::with<account_view>,
  caf::replies_to<revoke_atom, std::string>::with<account_view>>;

/// Implements keys_actor over the store; limits fill the account view.
keys_actor::behavior_type keys(keys_actor::pointer self, store_handles store,
                               quota_limits limits, std::function<std::int64_t()> now);

} // namespace netherscope
