#include "storage/watch_records.hpp"

#include <algorithm>
#include <map>

#include "core/host_port.hpp"
#include "core/watch_schedule.hpp"
#include "base/bytes.hpp"
#include "base/crypto.hpp"
#include "storage/records.hpp"
#include "storage/webhook_records.hpp"

namespace netherscope::storage {

namespace {

constexpr std::uint8_t watch_version = 1;
constexpr std::uint8_t public_flag = 1;
// A normalized host is at most 253 characters (a DNS name) or an IPv6 literal's 45.
constexpr std::size_t max_stored_host = 253;
constexpr std::size_t watch_id_bytes = 12;

constexpr std::string_view watch_prefix = "w|";
constexpr std::string_view generation_key = "g";
constexpr std::size_t generation_bytes = 9;

std::string owner_prefix(std::uint64_t owner) {
  return "o|" + std::to_string(owner) + "|";
}

} // namespace

std::string encode(const watch_record& x) {
  using base::put_le;
  std::string out;
  out.push_back(static_cast<char>(watch_version));
  put_le(out, x.owner);
  put_le(out, static_cast<std::uint64_t>(x.watch.created));
  put_le(out, x.watch.port);
  put_le(out, x.watch.period_seconds);
  out.push_back(static_cast<char>(x.watch.is_public ? public_flag : 0));
  put_le(out, static_cast<std::uint16_t>(x.watch.host.size()));
  out += x.watch.host;
  return out;
}

std::optional<watch_record> decode_watch(std::string_view id, std::string_view in) {
  using base::take_le;
  watch_record x;
  std::uint64_t created = 0;
  std::uint8_t flags = 0;
  std::uint16_t host_size = 0;
  if (!base::take_version(in, watch_version) || !take_le(in, x.owner)
      || !take_le(in, created) || !take_le(in, x.watch.port)
      || !take_le(in, x.watch.period_seconds) || !take_le(in, flags) || !take_le(in, host_size))
    return std::nullopt;
  if ((flags & ~public_flag) != 0 || host_size == 0 || host_size > max_stored_host
      || in.size() != host_size || x.watch.port == 0 || x.watch.period_seconds == 0)
    return std::nullopt;
  x.watch.id = std::string{id};
  x.watch.host = std::string{in};
  x.watch.created = static_cast<std::int64_t>(created);
  x.watch.is_public = (flags & public_flag) != 0;
  return x;
}

std::string watch_key(std::string_view id) {
  return std::string{watch_prefix} + std::string{id};
}

std::string owner_watch_key(std::uint64_t owner, std::string_view id) {
  return owner_prefix(owner) + std::string{id};
}

std::optional<std::string> new_watch_id() {
  auto bytes = base::random_bytes(watch_id_bytes);
  if (!bytes)
    return std::nullopt;
  return base::base64url_encode(*bytes);
}

caf::expected<std::optional<watch_record>> get_watch(record_txn& t, std::string_view id) {
  auto value = t.get(record_table::watches, watch_key(id));
  if (!value)
    return value.error();
  if (!*value)
    return std::optional<watch_record>{};
  auto record = decode_watch(id, **value);
  if (!record)
    return corrupt("watch");
  return std::optional<watch_record>{std::move(*record)};
}

caf::expected<std::vector<watch_record>> list_watches(record_txn& t, std::uint64_t owner) {
  auto ids = keys_under(t, record_table::watches, owner_prefix(owner));
  if (!ids)
    return ids.error();
  std::vector<watch_record> out;
  for (auto& id : *ids) {
    auto found = get_watch(t, id);
    if (!found)
      return found.error();
    // An index entry whose watch is gone (or another account's) is not shown; only
    // delete_watch removes either, together, so this does not happen on a sound store.
    if (*found && (*found)->owner == owner)
      out.push_back(std::move(**found));
  }
  std::sort(out.begin(), out.end(), [](const watch_record& a, const watch_record& b) {
    return a.watch.created != b.watch.created ? a.watch.created < b.watch.created
                                              : a.watch.id < b.watch.id;
  });
  return out;
}

caf::expected<std::size_t> count_watches(record_txn& t, std::uint64_t owner) {
  std::size_t count = 0;
  auto err = t.for_each_prefix(record_table::watches, owner_prefix(owner),
                               [&](std::string_view, std::string_view) {
                                 ++count;
                                 return true;
                               });
  if (err)
    return err;
  return count;
}

caf::expected<core::failure> add_watch(record_txn& t, const watch_record& w,
                                           std::uint32_t max_per_account) {
  using core::error_code;
  auto held = list_watches(t, w.owner);
  if (!held)
    return held.error();
  for (auto& other : *held)
    if (other.watch.host == w.watch.host && other.watch.port == w.watch.port)
      return core::make_failure(
        error_code::watch_exists,
        "this account already watches " + core::host_for_url(w.watch.host) + ":"
          + std::to_string(w.watch.port) + " (watch " + other.watch.id
          + "); delete that watch to change its period");
  if (held->size() >= max_per_account)
    return core::make_failure(error_code::watch_limit_reached,
                                  "this account holds " + std::to_string(held->size())
                                    + " watches, the most this server allows; delete one "
                                      "first");
  if (auto err = t.put(record_table::watches, watch_key(w.watch.id), encode(w)))
    return err;
  if (auto err = t.put(record_table::watches, owner_watch_key(w.owner, w.watch.id), {}))
    return err;
  if (auto err = renew_watches_generation(t))
    return err;
  return core::failure{};
}

caf::expected<bool> delete_watch(record_txn& t, std::uint64_t owner, std::string_view id) {
  auto found = get_watch(t, id);
  if (!found)
    return found.error();
  if (!*found || (*found)->owner != owner)
    return false;
  if (auto err = t.del(record_table::watches, watch_key(id)))
    return err;
  if (auto err = t.del(record_table::watches, owner_watch_key(owner, id)))
    return err;
  if (auto err = delete_watch_webhooks(t, **found))
    return err;
  if (auto err = renew_watches_generation(t))
    return err;
  return true;
}

caf::expected<std::optional<std::string>> watches_generation(record_txn& t) {
  return value_of(t, record_table::watches, generation_key);
}

caf::error renew_watches_generation(record_txn& t) {
  auto bytes = base::random_bytes(generation_bytes);
  if (!bytes)
    return caf::make_error(caf::sec::runtime_error, "cannot draw random bytes");
  return t.put(record_table::watches, generation_key, base::base64url_encode(*bytes));
}

caf::expected<std::vector<watched_target>> watched_targets(record_txn& t) {
  std::map<std::string, watched_target> by_key;
  bool damaged = false;
  auto err = t.for_each_prefix(
    record_table::watches, watch_prefix, [&](std::string_view key, std::string_view value) {
      auto record = decode_watch(key.substr(watch_prefix.size()), value);
      if (!record) {
        damaged = true;
        return false;
      }
      auto& w = record->watch;
      auto& target = by_key[core::schedule_key(w.host, w.port)];
      if (target.watches == 0) {
        target.host = w.host;
        target.port = w.port;
        target.period_seconds = w.period_seconds;
      }
      target.period_seconds = std::min(target.period_seconds, w.period_seconds);
      target.is_public = target.is_public || w.is_public;
      ++target.watches;
      return true;
    });
  if (err)
    return err;
  if (damaged)
    return corrupt("watch");
  std::vector<watched_target> out;
  out.reserve(by_key.size());
  for (auto& [key, target] : by_key)
    out.push_back(std::move(target));
  return out;
}

} // namespace netherscope::storage
