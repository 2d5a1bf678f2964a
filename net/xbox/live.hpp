// The Microsoft account steps (login.live.com): the device code flow that links the account
// (RFC 8628 as Microsoft runs it: start, then polling) and the refresh grant that renews the
// access token later, rotating the refresh token each time (docs/XBOX.md §2).
//
// The client is Minecraft's Android title (client id 0000000048183522) with the scope
// service::user.auth.xboxlive.com::MBI_SSL, as gophertunnel and MinecraftAuth sign in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/xbox/chain_error.hpp"
#include "net/xbox/endpoints.hpp"
#include "net/xbox/wire.hpp"

namespace netherscope::net::xbox {

/// Minecraft for Android's Microsoft account client id.
constexpr std::string_view live_client_id = "0000000048183522";

/// The scope the access token is for: Xbox user authentication with an RPS ticket.
constexpr std::string_view live_scope = "service::user.auth.xboxlive.com::MBI_SSL";

/// A device code to show the operator, and how to poll for it.
struct device_code {
  /// The code the operator types at verification_uri.
  std::string user_code;
  /// The code we poll with; a secret of this sign-in.
  std::string device_code;
  /// Where to type the code (https://www.microsoft.com/link).
  std::string verification_uri;
  /// How long the code is valid, in seconds.
  std::int64_t expires_in_s = 0;
  /// How long to wait between polls, in seconds (at least 1).
  std::int64_t interval_s = 5;

  /// verification_uri with the code filled in (?otc=CODE), which skips typing it.
  std::string direct_uri() const;
};

/// The tokens a grant gives.
struct msa_tokens {
  /// The access token, for Xbox sign-in ("t=" + it).
  std::string access_token;
  /// The refresh token that replaces the one used (or starts the link); empty when the answer
  /// had none, in which case the one used stays valid.
  std::string refresh_token;
  /// The access token's lifetime in seconds.
  std::int64_t expires_in_s = 0;
};

/// POST oauth20_connect.srf: start a device code sign-in.
http_call device_code_call(const endpoints& map);

/// Reads the device code; nullopt with error set otherwise.
std::optional<device_code> read_device_code(const http_answer& answer, chain_error& error);

/// POST oauth20_token.srf with the device code grant.
http_call device_poll_call(const endpoints& map, std::string_view device_code);

/// Where polling stands after one answer.
enum class poll_state {
  /// The operator approved: tokens holds the grant.
  granted,
  /// Not approved yet: poll again after the interval.
  pending,
  /// Polling too fast: add 5 s to the interval, for this and every later poll.
  slow_down,
  /// It ended without a grant: error says why (code_expired, denied, bad_answer).
  failed,
};

/// One poll's outcome.
struct poll_result {
  poll_state state = poll_state::failed;
  msa_tokens tokens;
  chain_error error;
};

/// Reads a poll's answer.
poll_result read_device_poll(const http_answer& answer);

/// POST oauth20_token.srf with the refresh grant.
http_call refresh_call(const endpoints& map, std::string_view refresh_token);

/// Reads a refresh's answer; invalid_grant is link_revoked. nullopt with error set otherwise.
std::optional<msa_tokens> read_refresh(const http_answer& answer, chain_error& error);

} // namespace netherscope::net::xbox
