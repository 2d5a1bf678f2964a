// What the fake Xbox chain knows: its configuration, the tokens it issued (each with its
// expiry and what it is bound to), the faults switched on through POST /_fake/control, and
// the counters of GET /_fake/stats. One io_context on one thread serves every request, so
// nothing here needs a lock.
#pragma once

#include "crypto.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace fake_xbox {

/// How strictly a used refresh token is refused.
enum class rotation_mode {
  /// A refresh token works once: after it is rotated, using it again is invalid_grant.
  strict,
  /// An old refresh token keeps working, as Microsoft documents for its platform.
  lenient,
};

/// Every knob of the fake, with the defaults README.md documents.
struct config {
  std::string bind = "127.0.0.1";
  std::uint16_t port = 0;
  /// Lifetimes in seconds of what each step issues.
  std::int64_t device_code_s = 60;
  std::int64_t interval_s = 1;
  std::int64_t msa_s = 60;
  std::int64_t device_s = 60;
  std::int64_t user_s = 60;
  std::int64_t xsts_s = 60;
  std::int64_t playfab_s = 60;
  std::int64_t mc_s = 60;
  std::int64_t gst_s = 60;
  rotation_mode rotation = rotation_mode::strict;
  /// How far a request signature's time may be from the fake's clock.
  std::int64_t signature_skew_s = 300;
  /// The account the chain signs in as.
  std::string gamertag = "Fake Steve";
  std::string xuid = "2535400000000001";
};

/// One device code sign-in.
struct device_grant {
  std::string client_id;
  std::string user_code;
  std::int64_t expires_ms = 0;
  /// pending, approved, denied or expired; "used" once its tokens were handed out.
  std::string state = "pending";
  /// Answer the next poll with slow_down (set by the control endpoint).
  bool slow_down_next = false;
  /// The interval the client must keep, raised 5 s by each slow_down (RFC 8628 §3.5).
  std::int64_t interval_ms = 1000;
  std::int64_t last_poll_ms = 0;
};

/// One refresh token.
struct refresh_grant {
  std::string client_id;
  /// Replaced by a newer one (a second use is refused in strict rotation).
  bool rotated = false;
};

/// A token that is bound to nothing but its expiry.
struct plain_token {
  std::int64_t expires_ms = 0;
};

/// A device token and the proof key it was issued for.
struct device_entry {
  std::int64_t expires_ms = 0;
  std::string x;
  std::string y;
};

/// An XSTS token and the relying party it was issued for.
struct xsts_entry {
  std::int64_t expires_ms = 0;
  std::string relying_party;
};

/// The faults switched on through POST /_fake/control.
struct faults {
  /// Every refresh token is refused (invalid_grant): the link is revoked.
  bool revoked = false;
  /// XErr of every SISU / XSTS answer; 0 for none.
  std::uint32_t sisu_xerr = 0;
  std::uint32_t xsts_xerr = 0;
  /// PlayFab error name of every LoginWithXbox answer; empty for none.
  std::string playfab_error;
  /// HTTP status of every session start / multiplayer session start answer; 0 for none.
  int session_status = 0;
  int multiplayer_status = 0;
  /// Mint GameServerTokens for another key than the one posted.
  bool wrong_cpk = false;
};

/// Everything the handlers read and change.
struct state {
  config cfg;
  /// "http://127.0.0.1:PORT": discovery's service URI and issuer.
  std::string base_url;
  issuer_key issuer;
  /// The user hash of the one account.
  std::string user_hash = "2535405290";
  std::string playfab_id = "8F2A6C1E0B1D4D5E";

  std::map<std::string, device_grant> device_codes;  // by device_code
  std::map<std::string, refresh_grant> refresh_tokens;
  std::map<std::string, plain_token> access_tokens;
  std::map<std::string, device_entry> device_tokens;
  std::map<std::string, plain_token> user_tokens;
  std::map<std::string, plain_token> title_tokens;
  std::map<std::string, xsts_entry> xsts_tokens;
  std::map<std::string, plain_token> tickets;
  std::map<std::string, plain_token> mc_tokens;

  faults fault;
  /// GET /_fake/stats: a count per name ("sisu", "signatures_rejected", ...).
  std::map<std::string, std::int64_t> stats;

  std::function<std::int64_t()> now_ms = [] {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  };
};

}  // namespace fake_xbox
