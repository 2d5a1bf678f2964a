#include "core/watch_json.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "core/webhook_json.hpp"

namespace netherscope::core {

namespace {

boost::json::object watch_object(const watch_view& watch) {
  boost::json::object out;
  out["id"] = watch.id;
  out["host"] = watch.host;
  out["port"] = watch.port;
  out["periodSeconds"] = watch.period_seconds;
  out["public"] = watch.is_public;
  out["createdAt"] = watch.created;
  boost::json::array webhooks;
  for (auto& webhook : watch.webhooks)
    webhooks.push_back(webhook_object(webhook));
  out["webhooks"] = std::move(webhooks);
  return out;
}

} // namespace

std::string render_watch_created(const watch_view& watch) {
  boost::json::object body;
  body["ok"] = true;
  body["watch"] = watch_object(watch);
  return boost::json::serialize(body);
}

std::string render_watch_list(const watch_answer& answer) {
  boost::json::array watches;
  for (auto& watch : answer.watches)
    watches.push_back(watch_object(watch));
  boost::json::object body;
  body["ok"] = true;
  body["watches"] = std::move(watches);
  body["limit"] = answer.limit;
  return boost::json::serialize(body);
}

std::string render_watch_deleted() {
  return R"({"ok":true})";
}

} // namespace netherscope::core
