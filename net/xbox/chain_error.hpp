// Why a step of the Xbox sign-in chain failed, as a value: which step, what kind of failure,
// the provider's own code (an XErr, an OAuth error, a PlayFab error name) and one sentence
// for the operator that names the fix. These failures are the operator's (the linked account,
// the link itself, the services), never a target's.
//
// No message ever contains a token: readers build them from status codes, error names and
// numbers only, never from what a request carried.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace netherscope::net::xbox {

/// The steps of the chain, in the order they run.
enum class step : std::uint8_t {
  /// Microsoft account: asking for a device code (login.live.com).
  device_code,
  /// Microsoft account: polling for the operator's approval of the code.
  device_poll,
  /// Microsoft account: a new access token from the refresh token.
  refresh,
  /// Xbox device token (device.auth.xboxlive.com).
  device_token,
  /// Xbox user, title and authorization tokens in one (sisu.xboxlive.com).
  sisu,
  /// Xbox XSTS token for PlayFab (xsts.auth.xboxlive.com).
  xsts,
  /// PlayFab LoginWithXbox (20ca2.playfabapi.com).
  playfab,
  /// Minecraft services discovery (client.discovery.minecraft-services.net).
  discovery,
  /// Minecraft services session start: the MCToken.
  session_start,
  /// Minecraft services multiplayer session start: the GameServerToken.
  multiplayer_start,
};

/// How many steps there are.
constexpr std::size_t step_count = 10;

/// The step's name for operators ("Xbox sign-in (SISU)").
std::string_view step_name(step s);

/// What kind of failure it was.
enum class fault : std::uint8_t {
  /// The service could not be reached, or did not answer in time.
  unreachable,
  /// It answered something the chain cannot read: an unexpected status or body.
  bad_answer,
  /// The refresh token was refused (OAuth invalid_grant): the link is revoked or expired,
  /// and the operator must link again.
  link_revoked,
  /// The device code expired before the operator approved it.
  code_expired,
  /// The operator declined the sign-in at Microsoft's page.
  denied,
  /// Xbox refused the account with an XErr (xerr holds it).
  xbox_refused,
  /// PlayFab refused the login (provider_code holds its error name).
  playfab_refused,
  /// Minecraft services refused the session (provider_code holds its code).
  services_refused,
  /// The GameServerToken the services minted is not bound to our identity key.
  wrong_key,
};

/// One failed step.
struct chain_error {
  xbox::step step = xbox::step::device_code;
  xbox::fault fault = xbox::fault::bad_answer;
  /// The HTTP status of the answer, or 0 when there was none.
  int status = 0;
  /// The Xbox error code (XErr, decimal) for xbox_refused; 0 otherwise.
  std::uint32_t xerr = 0;
  /// The provider's error name when it gave one: "invalid_grant", "InvalidXboxLiveToken".
  std::string provider_code;
  /// One sentence for the operator: the step, what went wrong and the fix. Never a token.
  std::string message;

  /// Whether the fix is to link the account again (admin xbox-login).
  bool needs_relink() const {
    return fault == xbox::fault::link_revoked || fault == xbox::fault::code_expired
           || fault == xbox::fault::denied;
  }
};

/// A chain_error of the step and fault, its message "<step name>: <what>".
chain_error make_error(step s, fault f, std::string_view what, int status = 0);

} // namespace netherscope::net::xbox
