#include "net/report/key_memory.hpp"


namespace netherscope::net::report {

key_comparison compare_identity_key(const nethernet::identity_check& identity,
                                    std::string_view previous_key) {
  key_comparison out;
  if (!identity.verified || identity.key_sha256.empty())
    return out;
  if (previous_key.empty()) {
    out.key_to_store = identity.key_sha256;
    return out;
  }
  if (previous_key == identity.key_sha256) {
    out.key_changed = false;
    return out;
  }
  out.key_changed = true;
  out.previous_key = std::string{previous_key};
  out.key_to_store = identity.key_sha256;
  return out;
}


} // namespace netherscope::net::report
