#include "net/nethernet/sdp_offer.hpp"

#include <string_view>

#include "base/bytes.hpp"

namespace netherscope::net::nethernet {

namespace {

/// ice-char per RFC 8839 §5.4: ALPHA / DIGIT / "+" / "/".
constexpr std::string_view ice_chars =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// libwebrtc's lengths (p2p/base/p2p_constants.cc: ICE_UFRAG_LENGTH, ICE_PWD_LENGTH).
constexpr std::size_t ufrag_length = 4;
constexpr std::size_t pwd_length = 24;

// n characters drawn uniformly from alphabet: bytes at or above the largest multiple of the
// alphabet's size are rejected, so there is no modulo bias (with 64 characters none are).
std::optional<std::string> random_string(std::string_view alphabet, std::size_t n) {
  const std::size_t size = alphabet.size();
  const std::size_t limit = 256 - 256 % size;
  std::string out;
  out.reserve(n);
  while (out.size() < n) {
    auto pool = base::random_bytes(n - out.size() + 8);
    if (!pool)
      return std::nullopt;
    for (char c : *pool) {
      auto b = static_cast<unsigned char>(c);
      if (b >= limit)
        continue;
      out += alphabet[b % size];
      if (out.size() == n)
        break;
    }
  }
  return out;
}

std::optional<std::uint64_t> random_session_id() {
  auto raw = base::random_bytes(8);
  if (!raw)
    return std::nullopt;
  std::string_view in{*raw};
  std::uint64_t id = 0;
  if (!base::take_le(in, id))
    return std::nullopt;
  return id & ((std::uint64_t{1} << 62) - 1);
}

} // namespace

std::optional<offer_parameters> make_offer_parameters(const local_identity& id,
                                                      std::int64_t now_unix,
                                                      const signed_in_identity* signed_in,
                                                      identity_attributes* kept) {
  if (!id.identity_key || id.fingerprint.empty())
    return std::nullopt;
  offer_parameters p;
  auto session = random_session_id();
  auto ufrag = random_string(ice_chars, ufrag_length);
  auto pwd = random_string(ice_chars, pwd_length);
  std::optional<std::string> identity;
  if (kept != nullptr)
    identity = signed_in ? kept->signed_in(*id.identity_key, id.fingerprint, *signed_in)
                         : kept->self_signed(*id.identity_key, id.fingerprint, now_unix);
  else
    identity = signed_in ? make_signed_in_identity_attribute(*id.identity_key, {id.fingerprint},
                                                             *signed_in)
                         : make_identity_attribute(*id.identity_key, {id.fingerprint}, now_unix);
  if (!session || !ufrag || !pwd || !identity)
    return std::nullopt;
  p.session_id = *session;
  p.ice_ufrag = std::move(*ufrag);
  p.ice_pwd = std::move(*pwd);
  p.fingerprint = id.fingerprint;
  p.identity = std::move(*identity);
  return p;
}

std::string build_offer(const offer_parameters& p) {
  std::string sdp;
  auto line = [&sdp](std::string_view a, std::string_view b = {}) {
    sdp.append(a);
    sdp.append(b);
    sdp.append("\r\n");
  };
  line("v=0");
  line("o=- ", std::to_string(p.session_id) + " 2 IN IP4 127.0.0.1");
  line("s=-");
  line("t=0 0");
  line("a=group:BUNDLE 0");
  line("a=extmap-allow-mixed");
  line("a=msid-semantic: WMS");
  // Session level, before m=, as PROTOCOL.md §2.2 requires.
  line("a=identity:", p.identity);
  line("m=application 9 UDP/DTLS/SCTP webrtc-datachannel");
  line("c=IN IP4 0.0.0.0");
  for (const auto& candidate : p.candidates)
    line("a=", candidate);
  line("a=ice-ufrag:", p.ice_ufrag);
  line("a=ice-pwd:", p.ice_pwd);
  line("a=ice-options:trickle");
  line("a=fingerprint:sha-256 ", p.fingerprint);
  line("a=setup:actpass");
  line("a=mid:0");
  line("a=sctp-port:5000");
  line("a=max-message-size:262144");
  // Ending candidates only makes sense after some: with none, aiortc reads the offer as one
  // it cannot reach and answers with zero candidates of its own, which we would then report
  // as a drained port pool (PROTOCOL.md §3.2; tests/e2e/check/webrtc_e2e_test.cpp shows it).
  if (!p.candidates.empty())
    line("a=end-of-candidates");
  return sdp;
}

} // namespace netherscope::net::nethernet
