// Runs the Xbox sign-in chain over the network: each step's request is built by net/xbox,
// signed where Xbox wants proof of possession (device token, SISU, XSTS), sent with the
// project's HTTP client, and its answer read by net/xbox. Callback-based: each operation runs
// on a strand of its own and calls its done handler exactly once, on that strand.
//
// Two operations:
// - link: the device code flow. It shows the operator a URL and a code, polls at the
//   interval Microsoft gives (5 s more after each slow_down) until approval, refusal or
//   expiry, then makes the device's P-256 proof key and id. The result is a chain_state whose
//   link the caller seals and stores.
// - renew: brings a chain_state up to a GameServerToken good now and bound to our identity
//   key, running only the steps whose tokens are no longer good (net/xbox/chain.hpp). When the
//   refresh token rotates, the result says so, and the caller stores the new link at once,
//   whether or not a later step failed.
//
// show_code and done run on the operation's strand and must not block. Run one renewal of a
// link at a time: two at once would both spend the same refresh token, and Microsoft may refuse
// the second. Nothing here logs, and no error message carries a token.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/upstream/http_client.hpp"
#include "net/xbox/chain.hpp"
#include "net/xbox/endpoints.hpp"
#include "net/xbox/live.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net::upstream {

/// How the chain runner reaches the services.
struct xbox_chain_settings {
  /// Base URLs used instead of production hosts (--xbox-endpoints).
  xbox::endpoints endpoints;
  /// The deadline of each request, connecting included.
  std::chrono::milliseconds timeout{15000};
  /// The clock, as Unix milliseconds; the system clock when empty. Tests inject their own.
  std::function<std::int64_t()> now_ms;
};

/// What a renewal ends with.
struct xbox_renewal {
  /// The state after the run: the link with the newest refresh token and every token held.
  xbox::chain_state state;
  /// Whether the refresh token rotated during this run: store state.account at once, even
  /// when error is set.
  bool link_rotated = false;
  /// The failed step, when one failed; state then lacks what that step took as input
  /// (xbox::drop_inputs), so the next renewal gets them anew.
  std::optional<xbox::chain_error> error;
  /// The steps this run sent, in order.
  std::vector<xbox::step> steps;
};

/// What linking ends with.
struct xbox_linking {
  /// On success: the new link (refresh token, device key, device id) and the first access
  /// token; renew() takes it from here.
  xbox::chain_state state;
  /// Why linking failed (code_expired, denied, unreachable, bad_answer), when it did.
  std::optional<xbox::chain_error> error;
};

/// The chain runner; cheap to copy, and operations keep what they use alive.
class xbox_chain {
public:
  /// A runner whose requests go through client (whose address policy must let the endpoints
  /// through) and whose polling timer runs on ioc.
  xbox_chain(boost::asio::io_context& ioc, std::shared_ptr<http_client> client,
             xbox_chain_settings settings);

  /// Renews what state needs for a GameServerToken bound to the P-384 key whose DER
  /// SubjectPublicKeyInfo is identity_spki_der.
  void renew(xbox::chain_state state, std::string identity_spki_der,
             std::function<void(xbox_renewal&&)> done);

  /// Links an account by the device code flow; show_code runs once with the code to show the
  /// operator, then done once with the result.
  void link(std::function<void(const xbox::device_code&)> show_code,
            std::function<void(xbox_linking&&)> done);

  /// What the runner uses; shared with its operations.
  struct shared;

private:
  std::shared_ptr<shared> shared_;
};

/// The fetch_request for one call of the chain: its URL's host, port and scheme, a 1 MiB body
/// limit, the answer headers the readers need, and the timeout; nullopt when the URL is not
/// an absolute http(s) URL.
std::optional<fetch_request> xbox_fetch_request(const xbox::http_call& call,
                                                std::chrono::milliseconds timeout);

} // namespace netherscope::net::upstream
