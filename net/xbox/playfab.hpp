// PlayFab's LoginWithXbox for Minecraft's title 20CA2 (docs/XBOX.md §4): the XSTS token for
// PlayFab's relying party buys a session ticket, which Minecraft services take.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/xbox/chain_error.hpp"
#include "net/xbox/endpoints.hpp"
#include "net/xbox/timing.hpp"
#include "net/xbox/wire.hpp"

namespace netherscope::net::xbox {

/// Minecraft's PlayFab title.
constexpr std::string_view minecraft_title_id = "20CA2";

/// How long a session ticket is taken to last when the answer gives no entity token expiry:
/// PlayFab keeps a login 24 hours (go-playfab's loginExpiration).
constexpr std::int64_t playfab_login_lifetime_s = 24 * 60 * 60;

/// What the login gives.
struct playfab_session {
  /// The session ticket Minecraft services take (X-Authorization's value elsewhere).
  std::string session_ticket;
  /// The PlayFab master player id.
  std::string playfab_id;
  /// The ticket's times on our clock: the entity token's TokenExpiration when given.
  token_times times;
};

/// POST /Client/LoginWithXbox with the XSTS token's XBL3.0 authorization value.
http_call playfab_login_call(const endpoints& map, std::string_view xbl3_authorization);

/// Reads the session; a PlayFab error body ({"error","errorCode","errorMessage"}) is
/// playfab_refused naming the error, with the operator's fix for the known ones.
std::optional<playfab_session> read_playfab_login(const http_answer& answer,
                                                  std::int64_t received_ms, chain_error& error);

} // namespace netherscope::net::xbox
