// The Xbox Live steps: the device token (device.auth.xboxlive.com), the user, title and
// authorization tokens in one SISU call (sisu.xboxlive.com), and the XSTS token for PlayFab's
// relying party (xsts.auth.xboxlive.com), as gophertunnel and MinecraftAuth request them for
// the Android title (docs/XBOX.md §3). Each request is signed with the device's P-256 proof key
// (net/xbox/signing.hpp) by the caller, after it is built.
//
// Refusals carry an XErr: SISU in the X-Err header, XSTS in the header and in a body
// {"Identity":"0","XErr":2148916233,"Message":"","Redirect":"…"}; the readers turn both into
// an xbox_refused chain_error worded by net/xbox/xerr.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json/object.hpp>

#include "net/xbox/chain_error.hpp"
#include "net/xbox/endpoints.hpp"
#include "net/xbox/timing.hpp"
#include "net/xbox/wire.hpp"

namespace netherscope::net::xbox {

/// The User-Agent of Xbox requests: the Xbox authentication library of the Android title.
constexpr std::string_view xal_user_agent = "XAL Android 2025.04.20250326.000";

/// The device type the device token is asked for, as the Android title does.
constexpr std::string_view device_type = "Android";

/// The relying party SISU's authorization token is for: Xbox services, whose token names the
/// account's XUID and gamertag.
constexpr std::string_view xbox_relying_party = "http://xboxlive.com";

/// The relying party of the XSTS token PlayFab's LoginWithXbox takes, as prismarine-auth and
/// MinecraftAuth ask for it (docs/XBOX.md §3.4, §7: other clients use http://playfab.xboxlive.com/).
constexpr std::string_view playfab_relying_party = "https://b980a380.minecraft.playfabapi.com/";

/// POST /device/authenticate for the device id (a UUID) and its proof key; unsigned.
http_call device_token_call(const endpoints& map, std::string_view device_id,
                            const boost::json::object& proof_key);

/// Reads the device token, its times counted from received_ms.
std::optional<timed_token> read_device_token(const http_answer& answer, std::int64_t received_ms,
                                            chain_error& error);

/// What SISU gives: the user and title tokens, the authorization token for Xbox services, and
/// who the account is.
struct sisu_tokens {
  timed_token user;
  timed_token title;
  timed_token authorization;
  /// The user hash (uhs) every Xbox authorization header names.
  std::string user_hash;
  /// The account's XUID (decimal) and gamertag, from the authorization token's claims.
  std::string xuid;
  std::string gamertag;
};

/// POST /authorize with the Microsoft access token and the device token; unsigned.
http_call sisu_call(const endpoints& map, std::string_view access_token,
                    std::string_view device_token, const boost::json::object& proof_key);

/// Reads SISU's tokens; an X-Err is xbox_refused. nullopt with error set otherwise.
std::optional<sisu_tokens> read_sisu(const http_answer& answer, std::int64_t received_ms,
                                     chain_error& error);

/// An XSTS token and the user hash it goes with.
struct xsts_token {
  timed_token xsts;
  std::string user_hash;
};

/// POST /xsts/authorize for a relying party with the device, title and user tokens; unsigned.
http_call xsts_call(const endpoints& map, std::string_view relying_party,
                    std::string_view device_token, std::string_view title_token,
                    std::string_view user_token);

/// Reads the XSTS token; an XErr (header or body) is xbox_refused.
std::optional<xsts_token> read_xsts(const http_answer& answer, std::int64_t received_ms,
                                    chain_error& error);

/// The authorization value of an XSTS token: "XBL3.0 x=<user hash>;<token>".
std::string xbl3_authorization(std::string_view user_hash, std::string_view token);

} // namespace netherscope::net::xbox
