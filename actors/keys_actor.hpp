// The keys actor: accounts and their API keys in LMDB. Runs detached: commits block on disk.
#pragma once

#include <functional>

#include "actors/messages.hpp"
#include "actors/quota_actor.hpp"

namespace netherscope {

/// Implements keys_actor over the store; limits fill the account view.
keys_actor::behavior_type keys(keys_actor::pointer self, store_handles store,
                               quota_limits limits, std::function<std::int64_t()> now);

} // namespace netherscope
