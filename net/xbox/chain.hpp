// The chain as a whole, without sockets: what a link keeps (and how it is written for sealing),
// the tokens a renewal holds between runs and what of them replicas share, which steps a renewal must run given what is still
// good, and which held tokens a failed step throws away.
//
// Dependencies, which the plan follows: the GameServerToken needs an MCToken (and discovery's
// service URI); the MCToken a PlayFab session ticket; the ticket an XSTS token for PlayFab; XSTS
// the user and title tokens (SISU) and the device token; SISU a Microsoft access token and the
// device token; the access token the refresh token. A token still good by the rule of
// net/xbox/timing is reused, so a GameServerToken renewal usually runs one or two steps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/xbox/chain_error.hpp"
#include "net/xbox/playfab.hpp"
#include "net/xbox/services.hpp"
#include "net/xbox/timing.hpp"
#include "net/xbox/xbl.hpp"

namespace netherscope::net::xbox {

/// What the store keeps of a linked account (sealed, base/sealed): enough to renew every
/// token without the operator.
struct account_link {
  /// The newest refresh token; it rotates on every refresh, and the caller stores the new one
  /// at once.
  std::string refresh_token;
  /// The P-256 proof key, PKCS#8 DER; it must stay the same for the device token's life.
  std::string device_key_der;
  /// The device id (a UUID) the device token was asked for.
  std::string device_id;
};

/// The sealing label of a link's record (base/sealed's associated data).
constexpr std::string_view link_seal_label = "xbox-link";

/// Writes a link for sealing: a version byte, then three u32-LE length-prefixed fields.
std::string encode_link(const account_link& l);

/// The inverse of encode_link; nullopt for an unknown version, a truncated record or an empty
/// field.
std::optional<account_link> decode_link(std::string_view record);

/// Everything a renewal holds: the link and the tokens it got, each with its times.
struct chain_state {
  account_link account;
  std::optional<timed_token> msa_access;
  std::optional<timed_token> device_token;
  std::optional<sisu_tokens> sisu;
  std::optional<xsts_token> playfab_xsts;
  std::optional<playfab_session> playfab;
  std::optional<auth_environment> environment;
  std::optional<mc_token> mc;
  std::optional<game_server_token> game_server;
};

/// The sealing label of the tokens replicas share (base/sealed's associated data).
constexpr std::string_view shared_tokens_seal_label = "xbox-tokens";

/// Writes what replicas share of a renewal for sealing: the GameServerToken with its times and
/// the services' environment, as a version byte, length-prefixed fields and i64-LE times.
/// Nullopt when state holds no GameServerToken or no environment.
std::optional<std::string> encode_shared_tokens(const chain_state& state);

/// Takes another replica's GameServerToken and environment into state; false (state untouched)
/// for an unknown version, a damaged record or a token whose claims cannot be read.
bool adopt_shared_tokens(chain_state& state, std::string_view record);

/// The steps a renewal runs, in order, so that state ends with a GameServerToken good at
/// now_ms and bound to the key whose DER SubjectPublicKeyInfo is spki_der. Empty when the one
/// held is still good.
std::vector<step> plan_renewal(const chain_state& state, std::string_view spki_der,
                               std::int64_t now_ms);

/// Throws away the held tokens the failed step took as input, so the next renewal gets new
/// ones instead of offering the same again; the link is kept. The device token goes only when
/// Xbox named it (an expired or invalid device token), since device tokens are rate-limited.
void drop_inputs(chain_state& state, const chain_error& error);

} // namespace netherscope::net::xbox
