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
/// only when each server has fewer offers in flight than the fetch lets be (1, or a join's
/// players) and had fewer than the limit in the last minute, and then it is recorded on every
/// server at once. Redis's own clock decides, so replicas whose clocks differ still agree.
/// KEYS are two per server (the times of its offers in the last minute, a sorted set; its
/// offers in flight, a sorted set of owners scored by when their mark ends); ARGV the limit,
/// the owner, the mark's lifetime in ms and the in-flight limit. Answers 0 when the offer may
/// go, else the wait in ms.
constexpr std::string_view take_offer_slot = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local in_flight = math.max(1, tonumber(ARGV[4]))
local wait = 0
for i = 1, #KEYS, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - 60000)
  redis.call('ZREMRANGEBYSCORE', KEYS[i + 1], '-inf', now)
  if redis.call('ZCARD', KEYS[i + 1]) >= in_flight then
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
  redis.call('ZADD', KEYS[i + 1], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[i + 1], ARGV[3])
end
return 0
)lua";

/// Frees the in-flight marks the owner holds, and only those. KEYS are the servers' in-flight
/// sets; ARGV[1] the owner.
constexpr std::string_view release_offer_slot = R"lua(
for i = 1, #KEYS do
  redis.call('ZREM', KEYS[i], ARGV[1])
end
return 0
)lua";

/// Adds watched servers to the schedule or changes their periods (watch_schedule::put).
/// KEYS[1] is the sorted set of entries by ready time, KEYS[2] the hash of entries
/// ("<period> <offset> <due> <owner>", times in Unix milliseconds); ARGV four values per
/// server: key, period, slot offset, and its next slot after now under that period. A server
/// already there with the same period is left alone; with another period it takes the new one
/// and, unless leased, waits for the new slot.
constexpr std::string_view schedule_put = R"lua(
for i = 1, #ARGV, 4 do
  local key, period, offset, due = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local e = redis.call('HGET', KEYS[2], key)
  if not e then
    redis.call('HSET', KEYS[2], key, period .. ' ' .. offset .. ' ' .. due .. ' ')
    redis.call('ZADD', KEYS[1], due, key)
  else
    local p, o, d, owner = string.match(e, '^(%d+) (%d+) (%-?%d+) (.*)$')
    if p ~= period then
      if owner == '' then
        redis.call('HSET', KEYS[2], key, period .. ' ' .. offset .. ' ' .. due .. ' ')
        redis.call('ZADD', KEYS[1], due, key)
      else
        redis.call('HSET', KEYS[2], key, period .. ' ' .. offset .. ' ' .. d .. ' ' .. owner)
      end
    end
  end
end
return 1
)lua";

/// Removes servers from the schedule, with any lease on them. KEYS as schedule_put; ARGV the
/// keys.
constexpr std::string_view schedule_remove = R"lua(
for _, key in ipairs(ARGV) do
  redis.call('ZREM', KEYS[1], key)
  redis.call('HDEL', KEYS[2], key)
end
return 1
)lua";

/// Claims up to ARGV[2] entries ready at ARGV[1] (now) for owner ARGV[4], each leased for
/// ARGV[3] milliseconds (watch_schedule::claim). KEYS as schedule_put. Answers four values per
/// claim: key, due, the lease's end, and the owner it was taken from (empty when none).
constexpr std::string_view schedule_claim = R"lua(
local now = tonumber(ARGV[1])
local lease_until = string.format('%.0f', now + tonumber(ARGV[3]))
local ready = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, key in ipairs(ready) do
  local e = redis.call('HGET', KEYS[2], key)
  if not e then
    redis.call('ZREM', KEYS[1], key)
  else
    local p, o, d, owner = string.match(e, '^(%d+) (%d+) (%-?%d+) (.*)$')
    redis.call('HSET', KEYS[2], key, p .. ' ' .. o .. ' ' .. d .. ' ' .. ARGV[4])
    redis.call('ZADD', KEYS[1], lease_until, key)
    out[#out + 1] = key
    out[#out + 1] = d
    out[#out + 1] = lease_until
    out[#out + 1] = owner
  end
end
return out
)lua";

/// Completes a claimed check (watch_schedule::complete): only for owner ARGV[2] holding key
/// ARGV[1] for slot ARGV[3]; the entry then waits for its first slot after ARGV[4] (now).
/// KEYS as schedule_put. Answers 1 when completed, 0 when the owner no longer held it.
constexpr std::string_view schedule_complete = R"lua(
local e = redis.call('HGET', KEYS[2], ARGV[1])
if not e then
  return 0
end
local p, o, d, owner = string.match(e, '^(%d+) (%d+) (%-?%d+) (.*)$')
if owner == '' or owner ~= ARGV[2] or d ~= ARGV[3] then
  return 0
end
local period = tonumber(p)
local now = tonumber(ARGV[4])
local next_due = string.format('%.0f', now - ((now - tonumber(o)) % period) + period)
redis.call('HSET', KEYS[2], ARGV[1], p .. ' ' .. o .. ' ' .. next_due .. ' ')
redis.call('ZADD', KEYS[1], next_due, ARGV[1])
return 1
)lua";

} // namespace netherscope::storage::redis_scripts
