#include "storage/redis_store.hpp"

#include <array>
#include <atomic>
#include <charconv>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <caf/sec.hpp>
#include <hiredis.h>

#include "net/api/telemetry.hpp"
#include "storage/redis_tls.hpp"
#include "storage/target_records.hpp"

namespace netherscope::storage {

namespace {

constexpr std::string_view key_prefix = "ns1:";

caf::error redis_error(std::string what) {
  return caf::make_error(caf::sec::runtime_error, "redis: " + std::move(what));
}

struct reply_free {
  void operator()(redisReply* r) const noexcept {
    freeReplyObject(r);
  }
};
using reply_ptr = std::unique_ptr<redisReply, reply_free>;

timeval to_timeval(std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((ms.count() % 1000) * 1000);
  return tv;
}

/// A reply that is an error becomes one; the text is Redis's own (no secrets in it).
caf::error reply_error(const redisReply* r) {
  if (r->type == REDIS_REPLY_ERROR)
    return redis_error(std::string{r->str, r->len});
  return {};
}

std::string_view text_of(const redisReply* r) {
  return {r->str, r->len};
}

// Redis answers the counter script with integers; anything else means a wrong server.
bool integer_at(const redisReply* r, std::size_t i, long long& out) {
  if (r->type != REDIS_REPLY_ARRAY || i >= r->elements
      || r->element[i]->type != REDIS_REPLY_INTEGER)
    return false;
  out = r->element[i]->integer;
  return true;
}

// The counters of one batch, atomically: KEYS are the counters, ARGV four values per counter
// (mode c/p/r, limit, expiry as Unix seconds, amount). A full counter is never incremented, and
// a count adds at most what the limit leaves; every write sets the expiry at the end of its
// window, so counters of past months go by themselves. Each counter answers three integers:
// its value after, whether it was refused, and how many were added or taken back.
constexpr std::string_view counter_script = R"lua(
local out = {}
for i, k in ipairs(KEYS) do
  local mode = ARGV[4 * i - 3]
  local limit = tonumber(ARGV[4 * i - 2])
  local amount = tonumber(ARGV[4 * i])
  local used = tonumber(redis.call('GET', k) or '0')
  local refused = 0
  local granted = 0
  if mode == 'c' then
    if used >= limit then
      refused = 1
    else
      granted = math.min(amount, limit - used)
      used = redis.call('INCRBY', k, granted)
      redis.call('EXPIREAT', k, ARGV[4 * i - 1])
    end
  elseif mode == 'r' and used > 0 then
    granted = math.min(amount, used)
    used = redis.call('DECRBY', k, granted)
    redis.call('EXPIREAT', k, ARGV[4 * i - 1])
  end
  out[#out + 1] = used
  out[#out + 1] = refused
  out[#out + 1] = granted
end
return out
)lua";

// Replaces a named record only if it still holds what the caller decided from.
constexpr std::string_view replace_script = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0
)lua";

std::string target_tag(std::string_view host, std::uint16_t port) {
  return std::string{key_prefix} + "t:{" + std::string{host} + ":" + std::to_string(port) + "}";
}

// A cached offer per target and TLS mode: with reachability (probe) or without.
std::string offer_key(const target& where, bool probe) {
  return target_tag(where.host, where.port) + ":offer:"
         + std::to_string(static_cast<int>(where.tls)) + (probe ? ":probed" : ":plain");
}

std::string flight_key(const target& where, bool probe) {
  return target_tag(where.host, where.port) + ":flight:"
         + std::to_string(static_cast<int>(where.tls)) + (probe ? ":probed" : ":plain");
}

// Frees a lock only for the replica that holds it: one whose lock expired must not free the
// next holder's.
constexpr std::string_view unlock_script = R"lua(
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
)lua";

// The per-target offer limit of every replica, per server as connected to: KEYS are two per
// server (the times of its offers in the last minute, a sorted set; its in-flight mark),
// ARGV the limit, the owner and the mark's lifetime in ms. Redis's own clock decides, so
// replicas whose clocks differ still agree. Returns 0 when the offer may go (and records it
// on every server), else the wait in ms.
constexpr std::string_view offer_slot_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local wait = 0
for i = 1, #KEYS, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - 60000)
  if redis.call('EXISTS', KEYS[i + 1]) == 1 then
    wait = math.max(wait, 1000)
  end
  if redis.call('ZCARD', KEYS[i]) >= limit then
    local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    wait = math.max(wait, tonumber(oldest[2]) + 60000 - now)
  end
end
if wait > 0 then
  return wait
end
for i = 1, #KEYS, 2 do
  redis.call('ZADD', KEYS[i], now, ARGV[2])
  redis.call('PEXPIRE', KEYS[i], 60000)
  redis.call('SET', KEYS[i + 1], ARGV[2], 'PX', ARGV[3])
end
return 0
)lua";

// Frees the in-flight marks the owner holds.
constexpr std::string_view offer_release_script = R"lua(
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('DEL', KEYS[i])
  end
end
return 0
)lua";

// A server's keys carry its address and port as their hash tag.
std::string server_tag(std::string_view server) {
  return std::string{key_prefix} + "a:{" + std::string{server} + "}";
}

} // namespace

// -- the pool -------------------------------------------------------------------

/// Connections, each behind its own mutex, reconnected on demand with a backoff.
struct redis_store::pool {
  struct slot {
    std::mutex mutex;
    redisContext* ctx = nullptr;
    /// The TLS tunnel whose plain end ctx reads and writes (rediss:// only).
    std::unique_ptr<redis_tls_tunnel> tunnel;
    std::chrono::steady_clock::time_point next_try{};
    std::chrono::milliseconds backoff{0};
  };

  explicit pool(const redis_settings& s) : settings(s), slots(std::max(1u, s.connections)) {
    // nop
  }

  ~pool() {
    for (auto& s : slots)
      if (s.ctx)
        redisFree(s.ctx);
  }

  static void drop(slot& s) {
    redisFree(s.ctx);
    s.ctx = nullptr;
    s.tunnel.reset();
  }

  // 100 ms, then doubling up to 1 s: a Redis that comes back is found within a second.
  static void back_off(slot& s) {
    s.backoff = std::min(std::chrono::milliseconds{1000},
                         std::max(std::chrono::milliseconds{100}, s.backoff * 2));
    s.next_try = std::chrono::steady_clock::now() + s.backoff;
  }

  // Errors after which this connection is the wrong one: the server became a replica
  // (a failover moved the primary, often behind the same DNS name), is loading its data, or
  // lost its primary. Dropping it makes the next call connect, and resolve, again.
  static bool wrong_server(const redisReply* r) {
    if (r->type != REDIS_REPLY_ERROR)
      return false;
    auto text = std::string_view{r->str, r->len};
    for (std::string_view prefix : {"READONLY", "LOADING", "MASTERDOWN"})
      if (text.substr(0, prefix.size()) == prefix)
        return true;
    return false;
  }

  // Connects, authenticates and selects the database; the error says which step failed,
  // never with the password.
  caf::error connect(slot& s) {
    auto now = std::chrono::steady_clock::now();
    if (now < s.next_try)
      return redis_error("unreachable (next reconnect attempt within "
                         + std::to_string(s.backoff.count()) + " ms)");
    auto& a = settings.address;
    redisContext* ctx = nullptr;
    auto fail = [&](std::string why) {
      if (ctx)
        redisFree(ctx);
      s.tunnel.reset();
      back_off(s);
      return redis_error(std::move(why));
    };
    if (a.tls) {
      std::string problem;
      s.tunnel = redis_tls_tunnel::open({a.host, a.port, a.ca_file, settings.timeout}, problem);
      if (!s.tunnel)
        return fail(problem);
      ctx = redisConnectFd(s.tunnel->take_client_fd());
    } else {
      ctx = redisConnectWithTimeout(a.host.c_str(), a.port, to_timeval(settings.timeout));
    }
    if (!ctx)
      return fail("cannot allocate a connection");
    if (ctx->err)
      return fail("cannot connect to " + a.host + ":" + std::to_string(a.port) + ": "
                  + ctx->errstr);
    redisSetTimeout(ctx, to_timeval(settings.timeout));
    s.ctx = ctx;
    if (!a.password.empty()) {
      auto r = a.user.empty() ? run(s, {"AUTH", a.password})
                              : run(s, {"AUTH", a.user, a.password});
      if (!r) {
        ctx = nullptr; // run dropped it on an I/O error, or it is still in s.ctx
        if (s.ctx)
          drop(s);
        return fail("AUTH failed");
      }
      if (auto err = reply_error(r->get())) {
        drop(s);
        ctx = nullptr;
        return fail("AUTH refused");
      }
    }
    if (a.db != 0) {
      auto r = run(s, {"SELECT", std::to_string(a.db)});
      if (!r || reply_error(r->get())) {
        if (s.ctx)
          drop(s);
        ctx = nullptr;
        return fail("SELECT " + std::to_string(a.db) + " failed");
      }
    }
    // The backoff ends once a command was answered (with_slot): a server that accepts
    // connections but never answers must not cost every call a fresh connect and a timeout.
    return {};
  }

  // Sends every command, then reads every reply: one round trip. An I/O error drops the
  // connection, so the next call starts with a fresh one.
  caf::expected<std::vector<reply_ptr>> pipeline(slot& s,
                                                 const std::vector<std::vector<std::string>>& cmds) {
    // An earlier command of the same call may have dropped the connection.
    if (!s.ctx)
      return redis_error("connection lost");
    for (auto& cmd : cmds) {
      std::vector<const char*> argv;
      std::vector<size_t> lens;
      for (auto& a : cmd) {
        argv.push_back(a.data());
        lens.push_back(a.size());
      }
      if (redisAppendCommandArgv(s.ctx, static_cast<int>(argv.size()), argv.data(),
                                 lens.data())
          != REDIS_OK) {
        auto why = std::string{s.ctx->errstr};
        drop(s);
        return redis_error(why);
      }
    }
    std::vector<reply_ptr> replies;
    for (std::size_t i = 0; i < cmds.size(); ++i) {
      void* raw = nullptr;
      if (redisGetReply(s.ctx, &raw) != REDIS_OK || !raw) {
        auto why = std::string{s.ctx->errstr};
        drop(s);
        return redis_error(why.empty() ? "connection lost" : why);
      }
      replies.emplace_back(static_cast<redisReply*>(raw));
    }
    for (auto& r : replies)
      if (wrong_server(r.get())) {
        drop(s);
        break;
      }
    return replies;
  }

  caf::expected<reply_ptr> run(slot& s, std::vector<std::string> cmd) {
    auto replies = pipeline(s, {std::move(cmd)});
    if (!replies)
      return replies.error();
    return std::move(replies->front());
  }

  /// Runs fn(slot) on a free connection, connected first: one round trip or several on one
  /// connection (WATCH ... EXEC). Redis is up when the connection survived them, whatever the
  /// commands said.
  template <class F>
  caf::error with_slot(F fn) {
    // The first free connection from a rotating start, so one long call (a record
    // transaction, a sweep) holds up no other caller while another connection is free; when
    // all are busy, wait for the one at the start.
    auto start = next.fetch_add(1, std::memory_order_relaxed) % slots.size();
    std::unique_lock<std::mutex> guard;
    slot* chosen = nullptr;
    for (std::size_t i = 0; i < slots.size() && !chosen; ++i) {
      auto& candidate = slots[(start + i) % slots.size()];
      std::unique_lock<std::mutex> attempt{candidate.mutex, std::try_to_lock};
      if (attempt.owns_lock()) {
        guard = std::move(attempt);
        chosen = &candidate;
      }
    }
    if (!chosen) {
      chosen = &slots[start];
      guard = std::unique_lock<std::mutex>{chosen->mutex};
    }
    auto& s = *chosen;
    bool fresh = false;
    if (!s.ctx) {
      if (auto err = connect(s)) {
        process_telemetry().set_redis_up(false);
        return err;
      }
      fresh = true;
    }
    auto err = fn(s);
    if (s.ctx) {
      s.backoff = std::chrono::milliseconds{0};
      s.next_try = {};
    } else if (fresh) {
      // Connected, then lost before any answer: back off as for a refused connect.
      back_off(s);
    }
    process_telemetry().set_redis_up(s.ctx != nullptr);
    return err;
  }

  /// Runs the commands on a free connection in one round trip.
  caf::expected<std::vector<reply_ptr>> exec(const std::vector<std::vector<std::string>>& cmds) {
    std::vector<reply_ptr> out;
    auto err = with_slot([&](slot& s) -> caf::error {
      auto replies = pipeline(s, cmds);
      if (!replies)
        return replies.error();
      out = std::move(*replies);
      return {};
    });
    if (err)
      return err;
    return out;
  }

  caf::expected<reply_ptr> exec_one(std::vector<std::string> cmd) {
    auto replies = exec({std::move(cmd)});
    if (!replies)
      return replies.error();
    if (auto err = reply_error(replies->front().get()))
      return err;
    return std::move(replies->front());
  }

  const redis_settings& settings;
  std::vector<slot> slots;
  std::atomic<std::size_t> next{0};
};

// -- account records ----------------------------------------------------------------

namespace {

// The record tables are three hashes under one hash tag, so one transaction can reach all of
// them in a Redis Cluster too. Accounts change rarely (sign-ins, new keys): one slot is plenty.
const std::string record_hashes[] = {
  std::string{key_prefix} + "{accounts}:accounts",
  std::string{key_prefix} + "{accounts}:auth",
  std::string{key_prefix} + "{accounts}:usage",
};

const std::string& hash_of(record_table table) {
  return record_hashes[static_cast<std::size_t>(table)];
}

// A MATCH pattern for the fields starting with prefix: glob characters in it are escaped.
std::string prefix_pattern(std::string_view prefix) {
  std::string out;
  for (char c : prefix) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
      out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('*');
  return out;
}

// HSCAN rounds of one walk at most: 4096 rounds of COUNT 256 is about a million fields, far
// past what the account tables hold; a walk that reaches it fails rather than loop forever.
constexpr int max_scan_rounds = 4096;

/// One record transaction on a Redis connection. Reads go to Redis (and are remembered, so a
/// value read twice is the same); writes stay here until commit sends them as one MULTI/EXEC,
/// which Redis refuses when another client changed a watched table in between.
class redis_record_txn final : public record_txn {
public:
  redis_record_txn(redis_store::pool& p, redis_store::pool::slot& s, bool write)
    : pool_(p), slot_(s), write_(write) {
    // nop
  }

  caf::expected<std::optional<std::string_view>> get(record_table table,
                                                     std::string_view key) override {
    auto name = entry_name(table, key);
    auto i = entries_.find(name);
    if (i == entries_.end()) {
      auto r = read(table, {"HGET", hash_of(table), std::string{key}});
      if (!r)
        return r.error();
      entry e;
      if ((*r)->type == REDIS_REPLY_STRING)
        e.value = std::string{text_of(r->get())};
      else if ((*r)->type != REDIS_REPLY_NIL)
        return redis_error("HGET answered something else than a value");
      i = entries_.emplace(std::move(name), std::move(e)).first;
    }
    if (!i->second.value)
      return std::optional<std::string_view>{};
    return std::optional<std::string_view>{*i->second.value};
  }

  caf::error put(record_table table, std::string_view key, std::string_view value) override {
    return change(table, key, std::string{value});
  }

  caf::error del(record_table table, std::string_view key) override {
    return change(table, key, std::nullopt);
  }

  caf::error for_each_prefix(record_table table, std::string_view prefix,
                             const visitor& fn) override {
    std::map<std::string, std::string> found;
    std::string cursor = "0";
    auto pattern = prefix_pattern(prefix);
    for (int round = 0;; ++round) {
      if (round == max_scan_rounds)
        return redis_error("a walk over " + hash_of(table) + " did not end");
      auto r = read(table, {"HSCAN", hash_of(table), cursor, "MATCH", pattern, "COUNT", "256"});
      if (!r)
        return r.error();
      auto* reply = r->get();
      if (reply->type != REDIS_REPLY_ARRAY || reply->elements != 2
          || reply->element[0]->type != REDIS_REPLY_STRING
          || reply->element[1]->type != REDIS_REPLY_ARRAY)
        return redis_error("HSCAN answered something else than a cursor and fields");
      auto* fields = reply->element[1];
      for (std::size_t i = 0; i + 1 < fields->elements; i += 2) {
        auto field = text_of(fields->element[i]);
        if (field.substr(0, prefix.size()) == prefix)
          found[std::string{field}] = std::string{text_of(fields->element[i + 1])};
      }
      cursor = std::string{text_of(reply->element[0])};
      if (cursor == "0")
        break;
    }
    // This transaction's own writes win over what Redis holds.
    auto first = entry_name(table, prefix);
    for (auto i = entries_.lower_bound(first);
         i != entries_.end() && i->first.compare(0, first.size(), first) == 0; ++i) {
      if (!i->second.dirty)
        continue;
      auto field = i->first.substr(1);
      if (i->second.value)
        found[field] = *i->second.value;
      else
        found.erase(field);
    }
    for (auto& [key, value] : found)
      if (!fn(key, value))
        break;
    return {};
  }

  /// The commands that apply this transaction's writes; empty when it wrote nothing.
  std::vector<std::vector<std::string>> writes() const {
    std::vector<std::vector<std::string>> cmds;
    for (auto& [name, e] : entries_) {
      if (!e.dirty)
        continue;
      auto table = static_cast<record_table>(name[0] - '0');
      if (e.value)
        cmds.push_back({"HSET", hash_of(table), name.substr(1), *e.value});
      else
        cmds.push_back({"HDEL", hash_of(table), name.substr(1)});
    }
    return cmds;
  }

private:
  struct entry {
    std::optional<std::string> value;
    bool dirty = false;
  };

  static std::string entry_name(record_table table, std::string_view key) {
    std::string out;
    out.push_back(static_cast<char>('0' + static_cast<int>(table)));
    out += key;
    return out;
  }

  caf::error change(record_table table, std::string_view key, std::optional<std::string> value) {
    if (!write_)
      return redis_error("a write in a read-only record transaction");
    auto& e = entries_[entry_name(table, key)];
    e.value = std::move(value);
    e.dirty = true;
    return {};
  }

  // A read of table. A write transaction watches a table with its first read of it (in the
  // same round trip), and only the tables it reads: its EXEC then fails exactly when what it
  // read changed, and a change to a table it only writes (or does not touch) costs it no
  // round. Writes need no watch: MULTI/EXEC applies them all or none.
  caf::expected<reply_ptr> read(record_table table, std::vector<std::string> cmd) {
    auto index = static_cast<std::size_t>(table);
    if (!write_ || watched_[index])
      return call(std::move(cmd));
    auto replies = pool_.pipeline(slot_, {{"WATCH", hash_of(table)}, std::move(cmd)});
    if (!replies)
      return replies.error();
    for (auto& r : *replies)
      if (auto err = reply_error(r.get()))
        return err;
    watched_[index] = true;
    return std::move(replies->back());
  }

  caf::expected<reply_ptr> call(std::vector<std::string> cmd) {
    // A connection lost earlier in this transaction was dropped; pipeline sends nothing then.
    auto r = pool_.run(slot_, std::move(cmd));
    if (!r)
      return r.error();
    if (auto err = reply_error(r->get()))
      return err;
    return r;
  }

  redis_store::pool& pool_;
  redis_store::pool::slot& slot_;
  bool write_;
  std::array<bool, 3> watched_{};
  std::map<std::string, entry> entries_;
};

} // namespace

// -- URLs -----------------------------------------------------------------------

std::optional<redis_address> read_redis_url(std::string_view url, std::string& problem) {
  auto refuse = [&](std::string why) -> std::optional<redis_address> {
    problem = std::move(why);
    return std::nullopt;
  };
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return refuse("--store is not a URL; expected redis://HOST:PORT[/DB]");
  auto& u = *parsed;
  if (u.scheme() != "redis" && u.scheme() != "rediss")
    return refuse("--store must be a redis:// or rediss:// URL");
  redis_address out;
  out.tls = u.scheme() == "rediss";
  out.host = u.host_address();
  if (out.host.empty())
    return refuse("--store names no host");
  if (u.has_port()) {
    auto port = u.port_number();
    if (port == 0)
      return refuse("--store has an invalid port");
    out.port = port;
  }
  auto path = u.path();
  if (!path.empty() && path != "/") {
    auto digits = std::string_view{path}.substr(1);
    if (digits.empty() || digits.size() > 4
        || digits.find_first_not_of("0123456789") != std::string_view::npos)
      return refuse("--store's path must be a database number, as in redis://host/2");
    out.db = static_cast<unsigned>(std::stoul(std::string{digits}));
  }
  if (u.has_userinfo()) {
    out.user = u.user();
    if (u.has_password())
      out.password = u.password();
    if (!out.user.empty() && out.password.empty())
      return refuse("--store names a user but no password: write redis://USER:PASSWORD@host, "
                    "or redis://:PASSWORD@host for the default user");
  }
  if (u.has_fragment())
    return refuse("--store takes no fragment");
  // rediss:// may name the CAs to trust, as redis-py's URLs do; nothing else is read.
  for (auto param : u.params()) {
    if (!out.tls || param.key != "ssl_ca_certs" || !param.has_value || param.value.empty()
        || !out.ca_file.empty())
      return refuse("--store takes no query but ?ssl_ca_certs=PATH, once, on rediss://");
    out.ca_file = param.value;
  }
  if (u.has_query() && u.params().empty())
    return refuse("--store takes no query but ?ssl_ca_certs=PATH, once, on rediss://");
  return out;
}

caf::expected<redis_address> parse_redis_url(std::string_view url) {
  std::string problem;
  auto address = read_redis_url(url, problem);
  if (!address)
    return caf::make_error(caf::sec::invalid_argument, problem);
  return std::move(*address);
}

std::string redis_url_problem(std::string_view url) {
  std::string problem;
  read_redis_url(url, problem);
  return problem;
}

std::string redacted_store_url(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed)
    return std::string{url};
  boost::urls::url copy{*parsed};
  if (copy.has_password())
    copy.set_password("REDACTED");
  if (!copy.user().empty())
    copy.set_user("REDACTED");
  return std::string{copy.buffer()};
}

std::string redis_counter_key(const counter_op& op) {
  // The hash tag is the subject, so every counter of one client or account sits in one slot.
  return std::string{key_prefix} + "u:{" + op.scope + ":" + op.subject + "}:" + op.endpoint
         + ":" + op.window;
}

// -- the store --------------------------------------------------------------------

redis_store::redis_store(redis_settings settings)
  : settings_(std::move(settings)), pool_(std::make_unique<pool>(settings_)) {
  // nop
}

redis_store::~redis_store() = default;

caf::error redis_store::ping() {
  auto r = pool_->exec_one({"PING"});
  if (!r)
    return r.error();
  if ((*r)->type != REDIS_REPLY_STATUS || text_of(r->get()) != "PONG")
    return redis_error("PING was not answered PONG");
  return {};
}

caf::expected<std::vector<counter_result>>
redis_store::apply_counters(const std::vector<counter_op>& ops) {
  if (ops.empty())
    return std::vector<counter_result>{};
  std::vector<std::string> cmd{"EVAL", std::string{counter_script}, std::to_string(ops.size())};
  for (auto& op : ops)
    cmd.push_back(redis_counter_key(op));
  for (auto& op : ops) {
    cmd.push_back(op.mode == counter_mode::count ? "c"
                  : op.mode == counter_mode::peek ? "p"
                                                   : "r");
    cmd.push_back(std::to_string(op.limit));
    cmd.push_back(std::to_string(op.expires_unix));
    cmd.push_back(std::to_string(op.amount));
  }
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  std::vector<counter_result> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    long long used = 0;
    long long refused = 0;
    long long granted = 0;
    if (!integer_at(r->get(), 3 * i, used) || !integer_at(r->get(), 3 * i + 1, refused)
        || !integer_at(r->get(), 3 * i + 2, granted) || used < 0 || granted < 0)
      return redis_error("the counter script answered something else than counts");
    out.push_back(counter_result{static_cast<std::uint64_t>(used), refused != 0,
                                 static_cast<std::uint64_t>(granted)});
  }
  return out;
}

caf::expected<std::vector<std::uint64_t>>
redis_store::read_counters(const std::vector<counter_op>& ops) {
  std::vector<std::vector<std::string>> cmds;
  for (auto& op : ops)
    cmds.push_back({"GET", redis_counter_key(op)});
  if (cmds.empty())
    return std::vector<std::uint64_t>{};
  auto replies = pool_->exec(cmds);
  if (!replies)
    return replies.error();
  std::vector<std::uint64_t> out;
  for (auto& r : *replies) {
    if (auto err = reply_error(r.get()))
      return err;
    std::uint64_t used = 0;
    if (r->type == REDIS_REPLY_STRING) {
      auto text = text_of(r.get());
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), used);
      if (ec != std::errc{} || end != text.data() + text.size())
        return redis_error("a counter holds something else than a count");
    } else if (r->type != REDIS_REPLY_NIL) {
      return redis_error("GET answered something else than a value");
    }
    out.push_back(used);
  }
  return out;
}

caf::error redis_store::with_records(bool write, const record_work& work) {
  // Each round runs work, which watches the tables it reads, and sends its writes as one
  // MULTI/EXEC; Redis refuses the EXEC when another replica changed one of those tables in
  // between, and work runs again on what that replica wrote. Account changes are rare and
  // quick, so a few rounds are plenty; a pause that grows, and differs by thread, keeps two
  // losers from meeting again.
  constexpr int rounds = 16;
  auto jitter = std::hash<std::thread::id>{}(std::this_thread::get_id()) % 500;
  for (int round = 0; round < rounds; ++round) {
    if (round > 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200 * round + jitter));
    bool lost_race = false;
    auto err = pool_->with_slot([&](pool::slot& s) -> caf::error {
      // The transaction watches each table as it first reads it (redis_record_txn::watch).
      redis_record_txn records{*pool_, s, write};
      auto keep = work(records);
      auto cmds = keep && *keep && write ? records.writes()
                                         : std::vector<std::vector<std::string>>{};
      if (cmds.empty()) {
        if (write && s.ctx)
          pool_->run(s, {"UNWATCH"});
        return keep ? caf::error{} : keep.error();
      }
      cmds.insert(cmds.begin(), {"MULTI"});
      cmds.push_back({"EXEC"});
      auto replies = pool_->pipeline(s, cmds);
      if (!replies)
        return replies.error();
      auto& exec = replies->back();
      if (exec->type == REDIS_REPLY_NIL) {
        lost_race = true;
        return {};
      }
      for (auto& r : *replies)
        if (auto err = reply_error(r.get()))
          return err;
      // EXEC answers with one reply per queued command, and a command that failed there
      // (a wrong type) is an error inside that array: Redis applied the others, so this must
      // not be reported as a success.
      if (exec->type == REDIS_REPLY_ARRAY)
        for (std::size_t i = 0; i < exec->elements; ++i)
          if (auto err = reply_error(exec->element[i]))
            return err;
      return {};
    });
    if (err || !lost_race)
      return err;
  }
  return redis_error("the account records kept changing under us; try again");
}

caf::expected<std::vector<std::optional<key_record>>>
redis_store::find_keys(const std::vector<std::string>& key_hashes) {
  std::vector<std::optional<key_record>> out;
  if (key_hashes.empty())
    return out;
  std::vector<std::string> cmd{"HMGET", hash_of(record_table::accounts)};
  for (auto& hash : key_hashes)
    cmd.push_back(key_key(hash));
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  auto* reply = r->get();
  if (reply->type != REDIS_REPLY_ARRAY || reply->elements != key_hashes.size())
    return redis_error("HMGET answered something else than one value per key");
  for (std::size_t i = 0; i < reply->elements; ++i) {
    auto* value = reply->element[i];
    if (value->type != REDIS_REPLY_STRING) {
      out.emplace_back();
      continue;
    }
    auto record = decode_key(text_of(value));
    if (!record)
      return redis_error("an unreadable key record");
    out.emplace_back(std::move(*record));
  }
  return out;
}

caf::expected<target_memory> redis_store::recall_target(std::string_view host,
                                                        std::uint16_t port,
                                                        std::int64_t now_unix) {
  auto tag = target_tag(host, port);
  auto replies = pool_->exec({{"GET", tag + ":scheme"}, {"GET", tag + ":key"}});
  if (!replies)
    return replies.error();
  target_memory out;
  auto& scheme = (*replies)[0];
  auto& key = (*replies)[1];
  for (auto* r : {scheme.get(), key.get()})
    if (auto err = reply_error(r))
      return err;
  if (scheme->type == REDIS_REPLY_STRING) {
    auto record = decode_scheme(text_of(scheme.get()));
    if (record && record->expires_unix > now_unix) {
      out.scheme = record->scheme;
      out.scheme_expires = record->expires_unix;
    }
  }
  if (key->type == REDIS_REPLY_STRING) {
    if (auto record = decode_identity_key(text_of(key.get())))
      out.key_sha256 = std::move(record->key_sha256);
  }
  return out;
}

caf::error redis_store::remember_target(std::string_view host, std::uint16_t port,
                                        const target_memory_update& update,
                                        std::int64_t now_unix) {
  using change = target_memory_update::scheme_change;
  auto tag = target_tag(host, port);
  std::vector<std::vector<std::string>> cmds;
  if (update.change == change::store && update.scheme_expires > now_unix)
    // The record expires with its hint, so Redis needs no sweep.
    cmds.push_back({"SET", tag + ":scheme",
                    encode(scheme_record{update.scheme, update.scheme_expires}), "EXAT",
                    std::to_string(update.scheme_expires)});
  else if (update.change != change::keep)
    cmds.push_back({"DEL", tag + ":scheme"});
  if (!update.key_sha256.empty())
    cmds.push_back(
      {"SET", tag + ":key", encode(identity_key_record{update.key_sha256, now_unix})});
  if (cmds.empty())
    return {};
  auto replies = pool_->exec(cmds);
  if (!replies)
    return replies.error();
  for (auto& r : *replies)
    if (auto err = reply_error(r.get()))
      return err;
  return {};
}

caf::expected<std::size_t> redis_store::sweep_targets(std::int64_t, std::size_t) {
  // Scheme records carry their expiry in Redis (EXAT); nothing is left to sweep.
  return std::size_t{0};
}

caf::expected<std::string> redis_store::load_or_replace_record(std::string_view name,
                                                               const record_decision& decide) {
  auto key = std::string{key_prefix} + "meta:" + std::string{name};
  // Another replica may write between our read and our write; then we read again and decide
  // on what it wrote. A few rounds are plenty: each lost round means someone else won.
  for (int round = 0; round < 5; ++round) {
    auto got = pool_->exec_one({"GET", key});
    if (!got)
      return got.error();
    std::optional<std::string> stored;
    if ((*got)->type == REDIS_REPLY_STRING)
      stored = std::string{text_of(got->get())};
    auto decision = decide(stored ? std::optional<std::string_view>{*stored} : std::nullopt);
    if (!decision)
      return decision.error();
    if (!*decision) {
      if (!stored)
        return caf::make_error(caf::sec::runtime_error, "nothing stored and nothing to store");
      return std::move(*stored);
    }
    caf::expected<reply_ptr> wrote = stored ? pool_->exec_one({"EVAL", std::string{replace_script},
                                                               "1", key, *stored, **decision})
                                            : pool_->exec_one({"SET", key, **decision, "NX"});
    if (!wrote)
      return wrote.error();
    auto won = stored ? (*wrote)->type == REDIS_REPLY_INTEGER && (*wrote)->integer == 1
                      : (*wrote)->type == REDIS_REPLY_STATUS;
    if (won)
      return std::move(**decision);
  }
  return redis_error("the record '" + std::string{name} + "' kept changing under us");
}

caf::expected<std::optional<shared_offer>> redis_store::get_offer(const target& where,
                                                                  bool probe) {
  // A call without probe is served by either entry, as the local cache does; the probed
  // one carries more.
  std::vector<std::vector<std::string>> cmds{{"GET", offer_key(where, true)}};
  if (!probe)
    cmds.push_back({"GET", offer_key(where, false)});
  auto replies = pool_->exec(cmds);
  if (!replies)
    return replies.error();
  std::optional<shared_offer> best;
  for (auto& r : *replies) {
    if (auto err = reply_error(r.get()))
      return err;
    if (r->type != REDIS_REPLY_STRING)
      continue;
    auto offer = decode_shared_offer(text_of(r.get()));
    if (offer && (!best || offer->retrieved_unix > best->retrieved_unix))
      best = std::move(offer);
  }
  return best;
}

caf::error redis_store::put_offer(const target& where, const shared_offer& offer,
                                  std::chrono::seconds ttl) {
  auto r = pool_->exec_one({"SET", offer_key(where, offer.probed), encode(offer), "EX",
                            std::to_string(std::max<std::int64_t>(1, ttl.count()))});
  if (!r)
    return r.error();
  return {};
}

caf::expected<bool> redis_store::lock_flight(const target& where, bool probe,
                                             std::string_view owner,
                                             std::chrono::milliseconds ttl) {
  auto r = pool_->exec_one({"SET", flight_key(where, probe), std::string{owner}, "NX", "PX",
                            std::to_string(std::max<std::int64_t>(1, ttl.count()))});
  if (!r)
    return r.error();
  return (*r)->type == REDIS_REPLY_STATUS;
}

caf::error redis_store::unlock_flight(const target& where, bool probe, std::string_view owner) {
  auto r = pool_->exec_one({"EVAL", std::string{unlock_script}, "1", flight_key(where, probe),
                            std::string{owner}});
  if (!r)
    return r.error();
  return {};
}

caf::expected<std::chrono::seconds>
redis_store::take_offer_slot(const std::vector<std::string>& servers, unsigned per_minute,
                             std::string_view owner, std::chrono::milliseconds in_flight_ttl) {
  if (servers.empty())
    return std::chrono::seconds::zero();
  std::vector<std::string> cmd{"EVAL", std::string{offer_slot_script},
                               std::to_string(2 * servers.size())};
  for (auto& server : servers) {
    cmd.push_back(server_tag(server) + ":sent");
    cmd.push_back(server_tag(server) + ":inflight");
  }
  cmd.push_back(std::to_string(per_minute));
  cmd.push_back(std::string{owner});
  cmd.push_back(std::to_string(std::max<std::int64_t>(1, in_flight_ttl.count())));
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  if ((*r)->type != REDIS_REPLY_INTEGER || (*r)->integer < 0)
    return redis_error("the offer limit script answered something else than a wait");
  if ((*r)->integer == 0)
    return std::chrono::seconds::zero();
  // Whole seconds, rounded up, and at least one, as the local limiter says them.
  return std::chrono::seconds{((*r)->integer + 999) / 1000};
}

caf::error redis_store::release_offer_slot(const std::vector<std::string>& servers,
                                           std::string_view owner) {
  if (servers.empty())
    return {};
  std::vector<std::string> cmd{"EVAL", std::string{offer_release_script},
                               std::to_string(servers.size())};
  for (auto& server : servers)
    cmd.push_back(server_tag(server) + ":inflight");
  cmd.push_back(std::string{owner});
  auto r = pool_->exec_one(std::move(cmd));
  if (!r)
    return r.error();
  return {};
}

caf::error redis_store::flush() {
  // Every write was acknowledged by Redis before its call returned; how Redis keeps it
  // (RDB, AOF) is its operator's setting.
  return {};
}

caf::expected<std::string> redis_store::command_text(const std::vector<std::string>& args) {
  auto r = pool_->exec_one(args);
  if (!r)
    return r.error();
  switch ((*r)->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
      return std::string{text_of(r->get())};
    case REDIS_REPLY_INTEGER:
      return std::to_string((*r)->integer);
    default:
      return std::string{};
  }
}

} // namespace netherscope::storage
