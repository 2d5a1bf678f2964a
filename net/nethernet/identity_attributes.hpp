// The a=identity attribute of this process's offers, signed once and shared while it is good.
//
// Each attribute costs two ES384 signatures (the token's and the fingerprints'), the largest
// part of what an offer costs the service, and every offer of the process carries the same
// fingerprint. So an attribute is kept and reused: a self-signed one while its token has at
// least half its lifetime left (each offer's token then stays valid for as long as a server
// takes to answer; a server whose clock runs ahead of ours by more than the half left refuses
// it, as it would refuse a fresh one ahead by the whole lifetime), a signed-in one while the
// GameServerToken it carries is the same. Probe
// actors on every worker thread share one, so it is guarded by a mutex, held only to read or
// replace the kept attribute; signing happens outside it.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "base/crypto.hpp"
#include "net/nethernet/identity.hpp"

namespace netherscope::net::nethernet {

/// The kept attributes of an identity: of the key and fingerprint they were last asked for
/// (another key or fingerprint gets a new attribute, which is then kept instead).
class identity_attributes {
public:
  /// How long a self-signed attribute is reused after its token's iat: half the token's
  /// lifetime.
  static constexpr std::int64_t reuse_seconds = 30;

  /// The self-signed attribute for an offer made at now_unix (make_identity_attribute over
  /// fingerprint): the kept one if it was signed within reuse_seconds before now_unix, a new
  /// one otherwise.
  std::optional<std::string> self_signed(EVP_PKEY& identity_key, const std::string& fingerprint,
                                         std::int64_t now_unix);

  /// The signed-in attribute (make_signed_in_identity_attribute over fingerprint): the kept
  /// one if it carries the same token and domain, a new one otherwise.
  std::optional<std::string> signed_in(EVP_PKEY& identity_key, const std::string& fingerprint,
                                       const signed_in_identity& who);

private:
  /// Whether what is kept was signed by key over fingerprint; under mutex_.
  bool same_identity(const EVP_PKEY& key, const std::string& fingerprint) const {
    return key_ == &key && fingerprint_ == fingerprint;
  }

  /// Keeps key and fingerprint as those of the attributes kept from now on, dropping any
  /// kept for others; under mutex_.
  void switch_identity(const EVP_PKEY& key, const std::string& fingerprint);

  std::mutex mutex_;
  const EVP_PKEY* key_ = nullptr;
  std::string fingerprint_;
  std::int64_t self_iat_ = 0;
  std::string self_;
  signed_in_identity signed_in_who_;
  std::string signed_in_;
};

} // namespace netherscope::net::nethernet
