#include "net/xbox/chain.hpp"

#include "base/bytes.hpp"

namespace netherscope::net::xbox {

namespace {

constexpr std::uint8_t link_version = 1;
constexpr std::uint8_t shared_tokens_version = 1;

// The XErrs that name the device token: expired (0x8015DC20) and invalid (0x8015DC23).
constexpr std::uint32_t xerr_expired_device_token = 2148916256;
constexpr std::uint32_t xerr_invalid_device_token = 2148916259;

bool take_field(std::string_view& in, std::string& out) {
  std::uint32_t length = 0;
  if (!base::take_le(in, length) || in.size() < length || length == 0)
    return false;
  out.assign(in.substr(0, length));
  in.remove_prefix(length);
  return true;
}

template <class Token>
bool good(const std::optional<Token>& token, std::int64_t now_ms) {
  return token && still_good(token->times, now_ms);
}

} // namespace

std::string encode_link(const account_link& l) {
  std::string out;
  out.push_back(static_cast<char>(link_version));
  for (const auto* field : {&l.refresh_token, &l.device_key_der, &l.device_id}) {
    base::put_le(out, static_cast<std::uint32_t>(field->size()));
    out += *field;
  }
  return out;
}

std::optional<account_link> decode_link(std::string_view record) {
  if (record.empty() || static_cast<std::uint8_t>(record[0]) != link_version)
    return std::nullopt;
  record.remove_prefix(1);
  account_link l;
  if (!take_field(record, l.refresh_token) || !take_field(record, l.device_key_der)
      || !take_field(record, l.device_id) || !record.empty())
    return std::nullopt;
  return l;
}

std::optional<std::string> encode_shared_tokens(const chain_state& state) {
  if (!state.game_server || !state.environment)
    return std::nullopt;
  const auto& gst = *state.game_server;
  const auto& env = *state.environment;
  std::string out;
  out.push_back(static_cast<char>(shared_tokens_version));
  for (const auto* field : {&gst.token, &env.service_uri, &env.issuer, &env.playfab_title_id}) {
    base::put_le(out, static_cast<std::uint32_t>(field->size()));
    out += *field;
  }
  base::put_le(out, static_cast<std::uint64_t>(gst.times.issued_ms));
  base::put_le(out, static_cast<std::uint64_t>(gst.times.expires_ms));
  return out;
}

bool adopt_shared_tokens(chain_state& state, std::string_view record) {
  if (record.empty() || static_cast<std::uint8_t>(record[0]) != shared_tokens_version)
    return false;
  record.remove_prefix(1);
  game_server_token gst;
  auth_environment env;
  std::uint64_t issued = 0;
  std::uint64_t expires = 0;
  if (!take_field(record, gst.token) || !take_field(record, env.service_uri)
      || !take_field(record, env.issuer) || !take_field(record, env.playfab_title_id)
      || !base::take_le(record, issued) || !base::take_le(record, expires) || !record.empty())
    return false;
  auto claims = read_game_server_claims(gst.token);
  if (!claims)
    return false;
  gst.claims = std::move(*claims);
  gst.times = {static_cast<std::int64_t>(issued), static_cast<std::int64_t>(expires)};
  state.game_server = std::move(gst);
  state.environment = std::move(env);
  return true;
}

std::vector<step> plan_renewal(const chain_state& s, std::string_view spki_der,
                               std::int64_t now_ms) {
  bool gst = !(good(s.game_server, now_ms) && cpk_matches(s.game_server->claims, spki_der));
  bool mc = gst && !good(s.mc, now_ms);
  bool discovery = mc || (gst && !s.environment);
  bool playfab = mc && !good(s.playfab, now_ms);
  bool xsts = playfab && !(s.playfab_xsts && still_good(s.playfab_xsts->xsts.times, now_ms));
  bool sisu = xsts
              && !(s.sisu && still_good(s.sisu->user.times, now_ms)
                   && still_good(s.sisu->title.times, now_ms));
  bool device = (sisu || xsts) && !good(s.device_token, now_ms);
  bool refresh = sisu && !good(s.msa_access, now_ms);

  std::vector<step> plan;
  auto add = [&plan](bool needed, step st) {
    if (needed)
      plan.push_back(st);
  };
  add(refresh, step::refresh);
  add(device, step::device_token);
  add(sisu, step::sisu);
  add(xsts, step::xsts);
  add(playfab, step::playfab);
  add(discovery, step::discovery);
  add(mc, step::session_start);
  add(gst, step::multiplayer_start);
  return plan;
}

void drop_inputs(chain_state& s, const chain_error& error) {
  bool device_named =
    error.xerr == xerr_expired_device_token || error.xerr == xerr_invalid_device_token;
  switch (error.step) {
    case step::device_code:
    case step::device_poll:
    case step::device_token:
      break;
    case step::refresh:
      s.msa_access.reset();
      break;
    case step::sisu:
      s.msa_access.reset();
      if (device_named)
        s.device_token.reset();
      break;
    case step::xsts:
      s.sisu.reset();
      if (device_named)
        s.device_token.reset();
      break;
    case step::playfab:
      s.playfab_xsts.reset();
      break;
    case step::discovery:
      s.environment.reset();
      break;
    case step::session_start:
      s.playfab.reset();
      s.environment.reset();
      break;
    case step::multiplayer_start:
      s.mc.reset();
      break;
  }
}

} // namespace netherscope::net::xbox
