#include "net/xbox/playfab.hpp"

#include <boost/json/serialize.hpp>

#include "base/json_access.hpp"
#include "net/xbox/read.hpp"

namespace netherscope::net::xbox {

namespace json = boost::json;

namespace {

// The fix for the PlayFab errors LoginWithXbox is documented to return (docs/XBOX.md §4).
std::string playfab_fix(std::string_view name) {
  if (name == "InvalidXboxLiveToken" || name == "ExpiredXboxLiveToken")
    return "netherscope gets a new XSTS token on its next try; if this repeats, check the "
           "host's clock";
  if (name == "XboxRejectedXSTSExchangeRequest")
    return "PlayFab did not take the XSTS token's relying party; report it, as Microsoft may "
           "have changed which one PlayFab expects";
  if (name == "XboxInaccessible" || name == "XboxXASSExchangeFailure")
    return "PlayFab could not reach Xbox Live; it retries on the next check";
  return "it retries on the next check; if this repeats, link again";
}

} // namespace

http_call playfab_login_call(const endpoints& map, std::string_view xbl3_authorization) {
  http_call call;
  call.method = "POST";
  call.url = url_for(map, hosts::playfab, "/Client/LoginWithXbox");
  call.content_type = "application/json";
  call.body = json::serialize(json::object{
    {"TitleId", minecraft_title_id},
    {"CreateAccount", true},
    {"XboxToken", xbl3_authorization},
    {"InfoRequestParameters", json::object{{"GetPlayerProfile", true},
                                           {"GetUserAccountInfo", true}}}});
  call.headers = {{"Accept", "application/json"}};
  return call;
}

std::optional<playfab_session> read_playfab_login(const http_answer& answer,
                                                  std::int64_t received_ms, chain_error& error) {
  auto body = base::parse_object(answer.body);
  if (answer.status == 200 && body) {
    const auto* data = base::object_at(*body, "data");
    auto ticket = data ? text_at(*data, "SessionTicket") : std::nullopt;
    auto id = data ? text_at(*data, "PlayFabId") : std::nullopt;
    if (ticket && id) {
      playfab_session session;
      session.session_ticket = std::move(*ticket);
      session.playfab_id = std::move(*id);
      session.times = times_from_lifetime(received_ms, playfab_login_lifetime_s);
      const auto* entity = base::object_at(*data, "EntityToken");
      auto expiry = entity ? text_at(*entity, "TokenExpiration") : std::nullopt;
      if (auto expires = expiry ? parse_timestamp_ms(*expiry) : std::nullopt)
        session.times = times_from_server(received_ms, std::nullopt, *expires);
      return session;
    }
    error = make_error(step::playfab, fault::bad_answer,
                       "PlayFab's answer lacks data.SessionTicket or data.PlayFabId",
                       answer.status);
    return std::nullopt;
  }
  auto name = body ? text_at(*body, "error") : std::nullopt;
  if (!name) {
    error = make_error(step::playfab, fault::bad_answer,
                       "PlayFab answered HTTP " + std::to_string(answer.status)
                         + " without an error name",
                       answer.status);
    return std::nullopt;
  }
  auto number = base::int64_at(*body, "errorCode");
  std::string what = "PlayFab refused the login with " + shown(*name);
  if (number)
    what += " (" + std::to_string(*number) + ")";
  what += "; " + playfab_fix(*name);
  error = make_error(step::playfab, fault::playfab_refused, what, answer.status);
  error.provider_code = shown(*name);
  return std::nullopt;
}

} // namespace netherscope::net::xbox
