#include "support/fake_discord.hpp"

#include <cmath>
#include <cstdint>

#include <boost/json.hpp>
#include <boost/url/parse.hpp>

namespace netherscope::test {

namespace json = boost::json;

struct fake_discord::state {
  mutable std::mutex mu;
  /// Message id to its last body; ordered by id, which is by creation, as snowflakes are.
  std::map<std::string, std::string> messages;
  std::map<std::string, std::size_t> edits;
  std::uint64_t next_id = 1180000000000000001ULL;
  std::size_t limit_left = 0;
  double retry_after = 0;
  std::size_t limited = 0;

  static void rate_headers(webhook_answer& a, int remaining, double reset_after) {
    a.headers.emplace_back("X-RateLimit-Limit", "5");
    a.headers.emplace_back("X-RateLimit-Remaining", std::to_string(remaining));
    a.headers.emplace_back("X-RateLimit-Reset-After", json::serialize(json::value(reset_after)));
    a.headers.emplace_back("X-RateLimit-Bucket", "f4ke0bucket");
  }

  static webhook_answer error(int status, const std::string& message, int code) {
    webhook_answer a;
    a.status = status;
    a.content_type = "application/json";
    a.body = json::serialize(json::object{{"message", message}, {"code", code}});
    return a;
  }

  webhook_answer message_answer(const std::string& id, const std::string& body) const {
    json::object m;
    m["id"] = id;
    m["type"] = 0;
    m["channel_id"] = "1170000000000000001";
    m["webhook_id"] = "1";
    json::error_code ec;
    auto sent = json::parse(body, ec);
    if (!ec && sent.is_object()) {
      if (auto* c = sent.as_object().if_contains("content"))
        m["content"] = *c;
      if (auto* e = sent.as_object().if_contains("embeds"))
        m["embeds"] = *e;
    }
    webhook_answer a;
    a.content_type = "application/json";
    a.body = json::serialize(m);
    rate_headers(a, 4, 1.0);
    return a;
  }

  webhook_answer answer(const received_webhook& req) {
    std::lock_guard<std::mutex> lock{mu};
    if (limit_left > 0) {
      --limit_left;
      ++limited;
      webhook_answer a;
      a.status = 429;
      a.content_type = "application/json";
      a.body = json::serialize(json::object{{"message", "You are being rate limited."},
                                            {"retry_after", retry_after},
                                            {"global", false}});
      a.headers.emplace_back("Retry-After",
                             std::to_string(static_cast<long long>(std::ceil(retry_after))));
      a.headers.emplace_back("X-RateLimit-Scope", "user");
      rate_headers(a, 0, retry_after);
      return a;
    }
    auto url = boost::urls::parse_origin_form(req.target);
    if (!url)
      return error(400, "400: Bad Request", 0);
    std::vector<std::string> parts;
    for (auto seg : url->segments())
      parts.emplace_back(seg);
    // /api/webhooks/{id}/{token} and /api/webhooks/{id}/{token}/messages/{message id}
    if (parts.size() < 4 || parts[0] != "api" || parts[1] != "webhooks")
      return error(404, "404: Not Found", 0);
    if (parts.size() == 4 && req.method == "POST") {
      bool wait = false;
      for (auto p : url->params())
        wait = wait || (p.key == "wait" && p.value == "true");
      auto id = std::to_string(next_id++);
      messages[id] = req.body;
      if (!wait) {
        webhook_answer a;
        a.status = 204;
        rate_headers(a, 4, 1.0);
        return a;
      }
      return message_answer(id, req.body);
    }
    if (parts.size() == 6 && parts[4] == "messages" && req.method == "PATCH") {
      auto found = messages.find(parts[5]);
      if (found == messages.end())
        return error(404, "Unknown Message", 10008);
      found->second = req.body;
      ++edits[parts[5]];
      return message_answer(parts[5], req.body);
    }
    return error(405, "405: Method Not Allowed", 0);
  }
};

fake_discord::fake_discord() : state_(std::make_shared<state>()) {}

webhook_answerer fake_discord::answerer() const {
  return [s = state_](const received_webhook& req) { return s->answer(req); };
}

void fake_discord::rate_limit_next(std::size_t count, double retry_after) {
  std::lock_guard<std::mutex> lock{state_->mu};
  state_->limit_left = count;
  state_->retry_after = retry_after;
}

void fake_discord::delete_message(const std::string& id) {
  std::lock_guard<std::mutex> lock{state_->mu};
  state_->messages.erase(id);
}

std::vector<std::string> fake_discord::messages() const {
  std::lock_guard<std::mutex> lock{state_->mu};
  std::vector<std::string> ids;
  for (auto& [id, _] : state_->messages)
    ids.push_back(id);
  return ids;
}

std::string fake_discord::body_of(const std::string& id) const {
  std::lock_guard<std::mutex> lock{state_->mu};
  auto found = state_->messages.find(id);
  return found == state_->messages.end() ? std::string{} : found->second;
}

std::size_t fake_discord::edits_of(const std::string& id) const {
  std::lock_guard<std::mutex> lock{state_->mu};
  auto found = state_->edits.find(id);
  return found == state_->edits.end() ? 0 : found->second;
}

std::size_t fake_discord::limited() const {
  std::lock_guard<std::mutex> lock{state_->mu};
  return state_->limited;
}

} // namespace netherscope::test
