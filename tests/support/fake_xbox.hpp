// Test support: the fake Xbox sign-in chain (tools/fake_xbox) as a process on loopback.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <boost/json/object.hpp>

#include <boost/asio/io_context.hpp>

#include "net/upstream/http_client.hpp"
#include "net/xbox/endpoints.hpp"
#include "support/process.hpp"

namespace netherscope::test {

/// tools/fake_xbox on a free loopback port; killed with the object.
class fake_xbox_process {
public:
  /// Starts it with args (see tools/fake_xbox/README.md); throws if it does not start.
  explicit fake_xbox_process(std::vector<std::string> args = {});

  unsigned port() const noexcept {
    return port_;
  }
  /// "http://127.0.0.1:PORT": every host of the chain, and the issuer.
  const std::string& base_url() const noexcept {
    return base_url_;
  }
  /// The issuer key's kid, as the listening line announced it.
  const std::string& kid() const noexcept {
    return kid_;
  }
  /// Every production host of the chain mapped to base_url().
  net::xbox::endpoints endpoints() const;

  /// POST /_fake/control with the switches; throws unless it answers 200.
  void control(const boost::json::object& switches);
  /// GET /_fake/stats' "stats" object.
  boost::json::object stats();
  /// One counter of the stats, 0 when absent.
  std::int64_t stat(const std::string& name);

private:
  std::unique_ptr<child_process> proc_;
  unsigned port_ = 0;
  std::string base_url_;
  std::string kid_;
};

/// An HTTP client for the chain's hosts on ioc. They are the operator's choice, not a
/// stranger's, so no address policy applies and the fake on loopback is reachable.
std::shared_ptr<net::upstream::http_client> make_chain_client(boost::asio::io_context& ioc);

/// Writes dir/name as the operator makes a secrets key file (head -c 32 /dev/urandom | base64,
/// mode 600); returns its path.
std::string write_key_file(const std::string& dir, const std::string& name);

/// Writes dir/xbox-endpoints.json, mapping every host of the chain to the fake (the file
/// --xbox-endpoints takes); returns its path.
std::string write_endpoints_file(const std::string& dir, const fake_xbox_process& fake);

} // namespace netherscope::test
