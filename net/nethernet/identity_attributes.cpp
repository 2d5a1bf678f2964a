#include "net/nethernet/identity_attributes.hpp"

namespace netherscope::net::nethernet {

std::optional<std::string> identity_attributes::self_signed(EVP_PKEY& identity_key,
                                                            const std::string& fingerprint,
                                                            std::int64_t now_unix) {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    // A clock that went back gets a new attribute, so no token is issued in the future.
    if (same_identity(identity_key, fingerprint) && !self_.empty() && now_unix >= self_iat_
        && now_unix - self_iat_ < reuse_seconds)
      return self_;
  }
  auto made = make_identity_attribute(identity_key, {fingerprint}, now_unix);
  if (made) {
    std::lock_guard<std::mutex> guard{mutex_};
    switch_identity(identity_key, fingerprint);
    if (self_.empty() || now_unix >= self_iat_) {
      self_iat_ = now_unix;
      self_ = *made;
    }
  }
  return made;
}

std::optional<std::string> identity_attributes::signed_in(EVP_PKEY& identity_key,
                                                          const std::string& fingerprint,
                                                          const signed_in_identity& who) {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (same_identity(identity_key, fingerprint) && !signed_in_.empty()
        && signed_in_who_.game_server_token == who.game_server_token
        && signed_in_who_.idp_domain == who.idp_domain)
      return signed_in_;
  }
  auto made = make_signed_in_identity_attribute(identity_key, {fingerprint}, who);
  if (made) {
    std::lock_guard<std::mutex> guard{mutex_};
    switch_identity(identity_key, fingerprint);
    signed_in_who_ = who;
    signed_in_ = *made;
  }
  return made;
}

void identity_attributes::switch_identity(const EVP_PKEY& key, const std::string& fingerprint) {
  if (same_identity(key, fingerprint))
    return;
  key_ = &key;
  fingerprint_ = fingerprint;
  self_.clear();
  self_iat_ = 0;
  signed_in_.clear();
  signed_in_who_ = {};
}

} // namespace netherscope::net::nethernet
