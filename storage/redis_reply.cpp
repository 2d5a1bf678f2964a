#include "storage/redis_reply.hpp"

#include <caf/sec.hpp>

namespace netherscope::storage {

caf::error redis_error(std::string what) {
  return caf::make_error(caf::sec::runtime_error, "redis: " + std::move(what));
}

caf::error reply_error(const redisReply* r) {
  if (r->type == REDIS_REPLY_ERROR)
    return redis_error(std::string{r->str, r->len});
  return {};
}

std::string_view reply_text(const redisReply* r) {
  return {r->str, r->len};
}

bool reply_integer_at(const redisReply* r, std::size_t i, long long& out) {
  if (r->type != REDIS_REPLY_ARRAY || i >= r->elements
      || r->element[i]->type != REDIS_REPLY_INTEGER)
    return false;
  out = r->element[i]->integer;
  return true;
}

bool reply_wrong_server(const redisReply* r) {
  if (r->type != REDIS_REPLY_ERROR)
    return false;
  auto text = reply_text(r);
  for (std::string_view prefix : {"READONLY", "LOADING", "MASTERDOWN"})
    if (text.substr(0, prefix.size()) == prefix)
      return true;
  return false;
}

} // namespace netherscope::storage
