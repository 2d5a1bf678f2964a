#include "storage/webhook_records.hpp"

#include <algorithm>

#include "core/webhook_url.hpp"
#include "base/bytes.hpp"
#include "storage/records.hpp"

namespace netherscope::storage {

namespace {

constexpr std::uint8_t webhook_version = 1;
constexpr std::uint8_t webhook_failing_flag = 1;
// A sealed 44-character secret takes 81 bytes; the bound only refuses nonsense.
constexpr std::size_t longest_sealed_secret = 1024;

constexpr std::string_view webhook_prefix = "h|";
constexpr std::string_view target_index_prefix = "t|";

std::string webhooks_of_watch_prefix(std::string_view watch_id) {
  return std::string{webhook_prefix} + std::string{watch_id} + "|";
}

std::string target_index_of(std::string_view host, std::uint16_t port) {
  return std::string{target_index_prefix} + std::string{host} + "|" + std::to_string(port) + "|";
}

// Texts in a webhook record carry a u16 length first.
void put_webhook_text(std::string& out, std::string_view text) {
  base::put_le(out, static_cast<std::uint16_t>(text.size()));
  out += text;
}

bool take_webhook_text(std::string_view& in, std::string& out, std::size_t longest) {
  std::uint16_t size = 0;
  if (!base::take_le(in, size) || size > longest || in.size() < size)
    return false;
  out.assign(in.substr(0, size));
  in.remove_prefix(size);
  return true;
}

caf::expected<bool> store_webhook(record_txn& t, const webhook_record& w) {
  if (auto err = t.put(record_table::watches, webhook_key(w.watch_id, w.webhook.id), encode(w)))
    return err;
  return true;
}

} // namespace

std::string encode(const webhook_record& x) {
  using base::put_le;
  const auto& w = x.webhook;
  std::string out;
  out.push_back(static_cast<char>(webhook_version));
  put_le(out, static_cast<std::uint64_t>(w.created));
  out.push_back(static_cast<char>(w.format));
  out.push_back(static_cast<char>(w.failing ? webhook_failing_flag : 0));
  put_le(out, static_cast<std::uint64_t>(w.failing ? w.failing_since : 0));
  put_le(out, static_cast<std::uint64_t>(w.last_failure_at));
  put_webhook_text(out, w.url);
  put_webhook_text(out, w.last_failure);
  put_webhook_text(out, x.sealed_secret);
  return out;
}

std::optional<webhook_record> decode_webhook(std::string_view watch_id, std::string_view id,
                                             std::string_view in) {
  using base::take_le;
  webhook_record x;
  auto& w = x.webhook;
  std::uint64_t created = 0;
  std::uint8_t format = 0;
  std::uint8_t flags = 0;
  std::uint64_t failing_since = 0;
  std::uint64_t last_failure_at = 0;
  if (!base::take_version(in, webhook_version) || !take_le(in, created)
      || !take_le(in, format) || !take_le(in, flags) || !take_le(in, failing_since)
      || !take_le(in, last_failure_at)
      || !take_webhook_text(in, w.url, core::longest_webhook_url)
      || !take_webhook_text(in, w.last_failure, core::longest_failure_reason)
      || !take_webhook_text(in, x.sealed_secret, longest_sealed_secret) || !in.empty())
    return std::nullopt;
  auto failing = (flags & webhook_failing_flag) != 0;
  if (format > static_cast<std::uint8_t>(core::webhook_format::discord_live)
      || (flags & ~webhook_failing_flag) != 0 || w.url.empty() || x.sealed_secret.empty()
      || failing != (failing_since != 0))
    return std::nullopt;
  x.watch_id = std::string{watch_id};
  w.id = std::string{id};
  w.created = static_cast<std::int64_t>(created);
  w.format = static_cast<core::webhook_format>(format);
  w.failing = failing;
  w.failing_since = static_cast<std::int64_t>(failing_since);
  w.last_failure_at = static_cast<std::int64_t>(last_failure_at);
  return x;
}

std::string webhook_key(std::string_view watch_id, std::string_view id) {
  return webhooks_of_watch_prefix(watch_id) + std::string{id};
}

std::string target_watch_key(std::string_view host, std::uint16_t port,
                             std::string_view watch_id) {
  return target_index_of(host, port) + std::string{watch_id};
}

std::string webhook_secret_label(std::string_view id) {
  return "webhook:" + std::string{id};
}

caf::expected<std::optional<webhook_record>> get_webhook(record_txn& t, std::string_view watch_id,
                                                         std::string_view id) {
  auto value = t.get(record_table::watches, webhook_key(watch_id, id));
  if (!value)
    return value.error();
  if (!*value)
    return std::optional<webhook_record>{};
  auto record = decode_webhook(watch_id, id, **value);
  if (!record)
    return corrupt("webhook");
  return std::optional<webhook_record>{std::move(*record)};
}

caf::expected<std::vector<webhook_record>> list_webhooks(record_txn& t,
                                                         std::string_view watch_id) {
  auto prefix = webhooks_of_watch_prefix(watch_id);
  std::vector<webhook_record> out;
  bool damaged = false;
  auto err = t.for_each_prefix(record_table::watches, prefix,
                               [&](std::string_view key, std::string_view value) {
                                 auto record = decode_webhook(watch_id, key.substr(prefix.size()),
                                                              value);
                                 if (!record) {
                                   damaged = true;
                                   return false;
                                 }
                                 out.push_back(std::move(*record));
                                 return true;
                               });
  if (err)
    return err;
  if (damaged)
    return corrupt("webhook");
  std::sort(out.begin(), out.end(), [](const webhook_record& a, const webhook_record& b) {
    return a.webhook.created != b.webhook.created ? a.webhook.created < b.webhook.created
                                                  : a.webhook.id < b.webhook.id;
  });
  return out;
}

caf::expected<core::failure> add_webhook(record_txn& t, const watch_record& watch,
                                             const webhook_record& w, std::size_t max_per_watch) {
  auto held = list_webhooks(t, watch.watch.id);
  if (!held)
    return held.error();
  if (held->size() >= max_per_watch)
    return core::make_failure(core::error_code::webhook_limit_reached,
                                  "watch " + watch.watch.id + " has "
                                    + std::to_string(held->size())
                                    + " webhooks, the most a watch may have; delete one first");
  auto stored = store_webhook(t, w);
  if (!stored)
    return stored.error();
  auto index = target_watch_key(watch.watch.host, watch.watch.port, watch.watch.id);
  if (auto err = t.put(record_table::watches, index, {}))
    return err;
  return core::failure{};
}

caf::expected<bool> delete_webhook(record_txn& t, const watch_record& watch, std::string_view id) {
  auto found = get_webhook(t, watch.watch.id, id);
  if (!found)
    return found.error();
  if (!*found)
    return false;
  if (auto err = t.del(record_table::watches, webhook_key(watch.watch.id, id)))
    return err;
  auto left = list_webhooks(t, watch.watch.id);
  if (!left)
    return left.error();
  if (left->empty())
    if (auto err = t.del(record_table::watches,
                         target_watch_key(watch.watch.host, watch.watch.port, watch.watch.id)))
      return err;
  return true;
}

caf::error delete_watch_webhooks(record_txn& t, const watch_record& watch) {
  auto ids = keys_under(t, record_table::watches, webhooks_of_watch_prefix(watch.watch.id));
  if (!ids)
    return ids.error();
  for (auto& id : *ids)
    if (auto err = t.del(record_table::watches, webhook_key(watch.watch.id, id)))
      return err;
  return t.del(record_table::watches,
               target_watch_key(watch.watch.host, watch.watch.port, watch.watch.id));
}

caf::expected<std::vector<std::string>> watches_with_webhooks(record_txn& t,
                                                              std::string_view host,
                                                              std::uint16_t port) {
  return keys_under(t, record_table::watches, target_index_of(host, port));
}

caf::expected<bool> set_webhook_state(record_txn& t, std::string_view watch_id,
                                      std::string_view id, bool failing, std::int64_t now,
                                      std::string_view reason) {
  auto found = get_webhook(t, watch_id, id);
  if (!found)
    return found.error();
  if (!*found || ((*found)->webhook.failing == failing && !failing))
    return false;
  auto record = std::move(**found);
  auto& w = record.webhook;
  if (failing) {
    if (!w.failing)
      w.failing_since = now;
    w.last_failure_at = now;
    w.last_failure = std::string{reason.substr(0, core::longest_failure_reason)};
  } else {
    w.failing_since = 0;
  }
  w.failing = failing;
  return store_webhook(t, record);
}

} // namespace netherscope::storage
