// Replies from hiredis as the Redis store reads them: owned, turned into errors, read as
// text or integers. Only storage/redis_*.cpp include this header (it brings in hiredis).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <caf/error.hpp>
#include <hiredis.h>

namespace netherscope::storage {

/// Frees a hiredis reply.
struct redis_reply_free {
  void operator()(redisReply* r) const noexcept {
    freeReplyObject(r);
  }
};

/// A reply owned by the caller.
using redis_reply = std::unique_ptr<redisReply, redis_reply_free>;

/// An error of the Redis store: what went wrong, prefixed "redis: ".
caf::error redis_error(std::string what);

/// A reply that is an error becomes one; the text is Redis's own (no secrets in it).
caf::error reply_error(const redisReply* r);

/// The reply's string, status or error text.
std::string_view reply_text(const redisReply* r);

/// Element i of an array reply when it is an integer; false for anything else (a script that
/// answers otherwise talks to a wrong server).
bool reply_integer_at(const redisReply* r, std::size_t i, long long& out);

/// Whether the reply says this connection reaches the wrong server: one that became a replica
/// (a failover moved the primary, often behind the same DNS name), is loading its data, or lost
/// its primary. Dropping the connection makes the next call connect, and resolve, again.
bool reply_wrong_server(const redisReply* r);

} // namespace netherscope::storage
