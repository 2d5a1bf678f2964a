// The Lua scripts the Redis store runs with EVAL. Redis runs a script alone, so each one is
// atomic against every other replica and costs one round trip. KEYS and ARGV are described
// with each; docs/OPERATIONS.md ("The Redis key layout") names the keys.
#pragma once

#include <string_view>

namespace netherscope::storage::redis_scripts {

/// The counters of one batch, atomically: a full counter is never incremented, a count adds
/// at most what the limit leaves, a refund never goes below zero, and every write sets the
/// counter's expiry at the end of its window (so counters of past windows go by themselves).
/// KEYS are the counters; ARGV four values per counter: mode (c count, p peek, r refund),
/// limit, expiry as Unix seconds, amount. Each counter answers three integers: its value
/// after, whether it was refused, and how many were added or taken back.
constexpr std::string_view counters = R"lua(
local out = {}
for i, k in ipairs(KEYS) do
  local mode = ARGV[4 * i - 3]
  local limit = tonumber(ARGV[4 * i - 2])
  local amount = tonumber(ARGV[4 * i])
  local used = tonumber(redis.call('GET', k) or '0')
  local refused = 0
  local granted = 0
  if mode == 'c' then
    if used >= limit then
      refused = 1
    else
      granted = math.min(amount, limit - used)
      used = redis.call('INCRBY', k, granted)
      redis.call('EXPIREAT', k, ARGV[4 * i - 1])
    end
  elseif mode == 'r' and used > 0 then
    granted = math.min(amount, used)
    used = redis.call('DECRBY', k, granted)
    redis.call('EXPIREAT', k, ARGV[4 * i - 1])
  end
  out[#out + 1] = used
  out[#out + 1] = refused
  out[#out + 1] = granted
end
return out
)lua";

/// Replaces a named record only if it still holds what the caller decided from (compare and
/// set), so of two replicas that decided on the same value only one replaces it. KEYS[1] is
/// the record; ARGV the value read and the new value. Answers 1 when replaced, else 0.
constexpr std::string_view replace_record = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
)lua";

/// Frees a flight lock or a lease only for the replica that holds it (compare and delete): one
/// whose lock expired must not free the next holder's. KEYS[1] is the lock; ARGV[1] the owner.
constexpr std::string_view delete_if_owner = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

/// The per-target offer limit of every replica, per server as connected to: an offer goes
/// only when no server has one in flight and each had fewer than the limit in the last
/// minute, and then it is recorded on every server at once. Redis's own clock decides, so
/// replicas whose clocks differ still agree. KEYS are two per server (the times of its offers
/// in the last minute, a sorted set; its in-flight mark); ARGV the limit, the owner and the
/// mark's lifetime in ms. Answers 0 when the offer may go, else the wait in ms.
constexpr std::string_view take_offer_slot = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local wait = 0
for i = 1, #KEYS, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - 60000)
  if redis.call('EXISTS', KEYS[i + 1]) == 1 then
    wait = math.max(wait, 1000)
  end
  if redis.call('ZCARD', KEYS[i]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + 60000 - now)
  end
end
if wait > 0 then
  return wait
end
for i = 1, #KEYS, 2 do
  redis.call('ZADD', KEYS[i], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], 60000)
  redis.call('SET', KEYS[i + 1], ARGV[2], 'PX', ARGV[3])
end
return 0
)lua";

/// Frees the in-flight marks the owner holds, and only those. KEYS are the marks; ARGV[1] the
/// owner.
constexpr std::string_view release_offer_slot = R"lua(
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
  end
end
return 0
)lua";

} // namespace netherscope::storage::redis_scripts
