// The online-mode fake's link to the Minecraft services' issuer (--xbox-issuer): its OpenID
// configuration and JWKS fetched over loopback HTTP with Beast, asynchronously on the fake's
// one io_context, so that a slow issuer never holds up a connection.
#pragma once

#include "issuer_keys.hpp"
#include "target_state.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}

namespace fake_target {

/// Loads the issuer's keys, and fetches its JWKS again when a token names an unknown kid.
class issuer_source final : public key_source {
 public:
  /// An issuer at `base` (an http URL on loopback, without a trailing slash); each request
  /// gives up after `timeout`, connecting included.
  issuer_source(boost::asio::io_context& ioc, std::string base, std::chrono::milliseconds timeout);
  ~issuer_source() override;

  /// GET base + "/.well-known/openid-configuration", then its jwks_uri; done runs once, with an
  /// empty string on success or the reason it failed.
  void load(std::function<void(std::string error)> done);

  const issuer_keys& keys() const override;
  bool refresh(std::function<void()> done) override;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace fake_target
