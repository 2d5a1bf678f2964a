#include "net/xbox/chain_error.hpp"

namespace netherscope::net::xbox {

std::string_view step_name(step s) {
  switch (s) {
    case step::device_code:
      return "Microsoft sign-in (device code)";
    case step::device_poll:
      return "Microsoft sign-in (waiting for approval)";
    case step::refresh:
      return "Microsoft sign-in (refresh)";
    case step::device_token:
      return "Xbox device token";
    case step::sisu:
      return "Xbox sign-in (SISU)";
    case step::xsts:
      return "Xbox XSTS token for PlayFab";
    case step::playfab:
      return "PlayFab login";
    case step::discovery:
      return "Minecraft services discovery";
    case step::session_start:
      return "Minecraft services session";
    case step::multiplayer_start:
      return "Minecraft multiplayer token";
  }
  return "Xbox sign-in";
}

chain_error make_error(step s, fault f, std::string_view what, int status) {
  chain_error e;
  e.step = s;
  e.fault = f;
  e.status = status;
  e.message = std::string{step_name(s)} + ": " + std::string{what};
  return e;
}

} // namespace netherscope::net::xbox
