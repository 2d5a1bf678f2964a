#include "core/discord_live.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace netherscope::core {

namespace {

/// Seconds as text ("1.25"), as Discord writes them, in milliseconds; none when not a
/// finite number of at least 0.
std::optional<std::chrono::milliseconds> seconds_text(std::string_view text) {
  if (text.empty() || text.size() > 32)
    return std::nullopt;
  std::string copy{text};
  char* end = nullptr;
  double seconds = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || !std::isfinite(seconds) || seconds < 0)
    return std::nullopt;
  return std::chrono::milliseconds{static_cast<long long>(
    std::ceil(std::min(seconds, 3600.0) * 1000.0))};
}

std::chrono::milliseconds bounded(std::optional<std::chrono::milliseconds> wait) {
  if (!wait)
    return discord_live_longest_wait;
  return std::clamp(*wait, discord_live_shortest_wait, discord_live_longest_wait);
}

/// The body's retry_after, when the body is JSON that has a number there.
std::optional<std::chrono::milliseconds> body_retry_after(std::string_view body) {
  boost::system::error_code ec;
  auto doc = boost::json::parse(body, ec);
  if (ec || !doc.is_object())
    return std::nullopt;
  const auto* found = doc.as_object().if_contains("retry_after");
  if (!found || !found->is_number())
    return std::nullopt;
  auto seconds = found->to_number<double>(ec);
  if (ec || !std::isfinite(seconds) || seconds < 0)
    return std::nullopt;
  return std::chrono::milliseconds{static_cast<long long>(
    std::ceil(std::min(seconds, 3600.0) * 1000.0))};
}

/// The message id a 2xx to the POST carries, if it is one.
std::optional<std::string> posted_id(std::string_view body) {
  boost::system::error_code ec;
  auto doc = boost::json::parse(body, ec);
  if (ec || !doc.is_object())
    return std::nullopt;
  const auto* id = doc.as_object().if_contains("id");
  if (!id || !id->is_string() || !is_discord_message_id(id->as_string()))
    return std::nullopt;
  return std::string{id->as_string()};
}

} // namespace

bool is_discord_message_id(std::string_view text) {
  return !text.empty() && text.size() <= 20
         && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

discord_live_call discord_live_call_for(std::string_view target, std::string_view message_id) {
  boost::urls::url url;
  if (auto parsed = boost::urls::parse_origin_form(target))
    url = *parsed;
  else
    url.set_encoded_path("/");
  url.params().erase("wait");
  if (url.params().empty())
    url.remove_query();
  discord_live_call call;
  if (message_id.empty()) {
    call.method = "POST";
    url.params().append(boost::urls::param_view{"wait", "true"});
  } else {
    call.method = "PATCH";
    std::string path{url.encoded_path()};
    while (!path.empty() && path.back() == '/')
      path.pop_back();
    url.set_encoded_path(path + "/messages/" + std::string{message_id});
  }
  call.target = std::string{url.encoded_target()};
  if (call.target.empty())
    call.target = "/";
  return call;
}

discord_live_answer read_discord_live_answer(const discord_live_call& call,
                                             std::string_view edited_id, unsigned status,
                                             std::string_view body,
                                             const discord_live_headers& headers) {
  discord_live_answer answer;
  if (status == 429) {
    answer.step = discord_live_step::wait;
    auto wait = body_retry_after(body);
    if (!wait)
      wait = seconds_text(headers.retry_after);
    if (!wait)
      wait = seconds_text(headers.rate_limit_reset_after);
    answer.wait = bounded(wait);
    return answer;
  }
  bool patching = call.method == "PATCH";
  if (status == 404 && patching) {
    answer.step = discord_live_step::repost;
    return answer;
  }
  if (status >= 200 && status < 300) {
    if (patching) {
      answer.step = discord_live_step::kept;
      answer.message_id = std::string{edited_id};
      return answer;
    }
    if (auto id = posted_id(body)) {
      answer.step = discord_live_step::kept;
      answer.message_id = std::move(*id);
      return answer;
    }
    answer.why = "HTTP " + std::to_string(status) + " without the message's id";
    return answer;
  }
  answer.why = "HTTP " + std::to_string(status);
  return answer;
}

} // namespace netherscope::core
