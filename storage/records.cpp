#include "storage/records.hpp"

#include <ctime>

#include <caf/sec.hpp>

#include "base/bytes.hpp"

namespace netherscope::storage {

namespace {

constexpr std::uint8_t counter_version = 1;
// Version 2 of both added what pruning needs: the account's recent revoked keys, and when a
// key was revoked. Version 1 records are still read.
constexpr std::uint8_t account_version_1 = 1;
constexpr std::uint8_t account_version = 2;
constexpr std::uint8_t key_version_1 = 1;
constexpr std::uint8_t key_version = 2;

// Every integer in these records is a u64, little-endian: the width is fixed here, once.
void put_u64(std::string& out, std::uint64_t value) {
  base::put_le(out, value);
}

bool take_u64(std::string_view& in, std::uint64_t& value) {
  return base::take_le(in, value);
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_u64(out, bytes.size());
  out += bytes;
}

bool take_bytes(std::string_view& in, std::string& out) {
  std::uint64_t length = 0;
  if (!take_u64(in, length) || in.size() < length)
    return false;
  out.assign(in.substr(0, length));
  in.remove_prefix(length);
  return true;
}

} // namespace

month_window window_of(std::int64_t now_unix) {
  auto t = static_cast<time_t>(now_unix);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char label[32];
  std::snprintf(label, sizeof(label), "%04d-%02d", utc.tm_year + 1900, utc.tm_mon + 1);
  std::tm next{};
  next.tm_year = utc.tm_mon == 11 ? utc.tm_year + 1 : utc.tm_year;
  next.tm_mon = utc.tm_mon == 11 ? 0 : utc.tm_mon + 1;
  next.tm_mday = 1;
  return {label, static_cast<std::int64_t>(timegm(&next))};
}

hour_window hour_of(std::int64_t now_unix) {
  auto t = static_cast<time_t>(now_unix);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char label[32];
  std::snprintf(label, sizeof(label), "%04d-%02d-%02dT%02d", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour);
  // Hours are all 3600 s long in UTC (no leap seconds in Unix time).
  auto start = now_unix - ((now_unix % 3600) + 3600) % 3600;
  return {label, start + 3600};
}

std::string usage_key(std::string_view endpoint, std::string_view scope,
                      std::string_view subject, std::string_view window) {
  std::string key{usage_prefix};
  key.append(endpoint).append("|").append(scope).append("|").append(subject).append("|");
  key.append(window);
  return key;
}

std::optional<counter_entry> parse_usage_key(std::string_view key) {
  if (key.substr(0, usage_prefix.size()) != usage_prefix)
    return std::nullopt;
  key.remove_prefix(usage_prefix.size());
  counter_entry out;
  for (auto* field : {&out.endpoint, &out.scope, &out.subject}) {
    auto bar = key.find('|');
    if (bar == std::string_view::npos)
      return std::nullopt;
    *field = std::string{key.substr(0, bar)};
    key.remove_prefix(bar + 1);
  }
  if (key.find('|') != std::string_view::npos)
    return std::nullopt;
  out.window = std::string{key};
  return out;
}

namespace {

caf::expected<std::uint64_t> count_of(caf::expected<std::optional<std::string_view>> value) {
  if (!value)
    return value.error();
  if (!*value)
    return std::uint64_t{0};
  auto in = **value;
  std::uint64_t count = 0;
  if (!base::take_version(in, counter_version) || !take_u64(in, count) || !in.empty())
    return corrupt("usage");
  return count;
}

std::string encode_count(std::uint64_t count) {
  std::string value;
  value.push_back(static_cast<char>(counter_version));
  put_u64(value, count);
  return value;
}

} // namespace

caf::expected<std::uint64_t> read_count(record_txn& t, std::string_view key) {
  return count_of(t.get(record_table::usage, key));
}

caf::error write_count(record_txn& t, std::string_view key, std::uint64_t count) {
  return t.put(record_table::usage, key, encode_count(count));
}

std::string encode(const account_record& x) {
  std::string out;
  out.push_back(static_cast<char>(account_version));
  put_u64(out, x.user_id);
  put_u64(out, static_cast<std::uint64_t>(x.created_unix));
  put_bytes(out, x.login);
  put_bytes(out, x.active_key_hash);
  put_u64(out, x.revoked_key_hashes.size());
  for (auto& hash : x.revoked_key_hashes)
    put_bytes(out, hash);
  return out;
}

std::optional<account_record> decode_account(std::string_view in) {
  account_record x;
  std::uint64_t created = 0;
  if (in.empty())
    return std::nullopt;
  auto version = static_cast<std::uint8_t>(in[0]);
  if (version != account_version && version != account_version_1)
    return std::nullopt;
  in.remove_prefix(1);
  if (!take_u64(in, x.user_id) || !take_u64(in, created) || !take_bytes(in, x.login)
      || !take_bytes(in, x.active_key_hash))
    return std::nullopt;
  if (version == account_version) {
    std::uint64_t count = 0;
    // A count larger than the bytes left could hold is corrupt, not a reason to allocate.
    if (!take_u64(in, count) || count > in.size() / 8)
      return std::nullopt;
    for (std::uint64_t i = 0; i < count; ++i) {
      std::string hash;
      if (!take_bytes(in, hash))
        return std::nullopt;
      x.revoked_key_hashes.push_back(std::move(hash));
    }
  }
  if (!in.empty())
    return std::nullopt;
  x.created_unix = static_cast<std::int64_t>(created);
  return x;
}

std::string encode(const key_record& x) {
  std::string out;
  out.push_back(static_cast<char>(key_version));
  put_u64(out, x.user_id);
  put_u64(out, static_cast<std::uint64_t>(x.created_unix));
  out.push_back(x.revoked ? 1 : 0);
  put_u64(out, static_cast<std::uint64_t>(x.revoked_unix));
  return out;
}

std::optional<key_record> decode_key(std::string_view in) {
  key_record x;
  std::uint64_t created = 0;
  if (in.empty())
    return std::nullopt;
  auto version = static_cast<std::uint8_t>(in[0]);
  if (version != key_version && version != key_version_1)
    return std::nullopt;
  in.remove_prefix(1);
  if (!take_u64(in, x.user_id) || !take_u64(in, created) || in.empty()
      || (in[0] != 0 && in[0] != 1))
    return std::nullopt;
  x.revoked = in[0] == 1;
  in.remove_prefix(1);
  if (version == key_version) {
    std::uint64_t revoked = 0;
    if (!take_u64(in, revoked))
      return std::nullopt;
    x.revoked_unix = static_cast<std::int64_t>(revoked);
  }
  if (!in.empty())
    return std::nullopt;
  x.created_unix = static_cast<std::int64_t>(created);
  return x;
}

std::string account_key(std::uint64_t user_id) {
  return "a|" + std::to_string(user_id);
}

std::string key_key(std::string_view key_hash) {
  return "k|" + std::string{key_hash};
}

namespace {

// A stored record decoded, nullopt when absent, an error when unreadable.
template <class Record, class Decode>
caf::expected<std::optional<Record>>
decoded(caf::expected<std::optional<std::string_view>> value, Decode decode,
        std::string_view what) {
  if (!value)
    return value.error();
  if (!*value)
    return std::optional<Record>{};
  auto record = decode(**value);
  if (!record)
    return corrupt(what);
  return std::optional<Record>{std::move(*record)};
}

} // namespace

caf::expected<std::optional<account_record>> get_account(record_txn& t, std::uint64_t user_id) {
  return decoded<account_record>(t.get(record_table::accounts, account_key(user_id)),
                                 decode_account, "account");
}

caf::expected<std::optional<key_record>> get_key(record_txn& t, std::string_view key_hash) {
  return decoded<key_record>(t.get(record_table::accounts, key_key(key_hash)), decode_key,
                             "key");
}

caf::error corrupt(std::string_view what) {
  return caf::make_error(caf::sec::runtime_error, "unreadable " + std::string{what} + " record");
}

caf::expected<std::optional<std::string>> value_of(record_txn& t, record_table table,
                                                   std::string_view key) {
  auto value = t.get(table, key);
  if (!value)
    return value.error();
  if (!*value)
    return std::optional<std::string>{};
  return std::optional<std::string>{std::string{**value}};
}

caf::expected<std::vector<std::string>> keys_under(record_txn& t, record_table table,
                                                   std::string_view prefix) {
  std::vector<std::string> out;
  auto err = t.for_each_prefix(table, prefix, [&](std::string_view key, std::string_view) {
    out.emplace_back(key.substr(prefix.size()));
    return true;
  });
  if (err)
    return err;
  return out;
}

} // namespace netherscope::storage
