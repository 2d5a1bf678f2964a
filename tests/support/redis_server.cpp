#include "support/redis_server.hpp"

#include <algorithm>
#include <csignal>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <hiredis.h>

#include "support/wait.hpp"

namespace netherscope::test {

namespace {

constexpr const char* redis_bin = "/usr/bin/redis-server";

// A port the kernel has just handed out: free now, and unlikely to be handed out again in the
// moment before redis-server binds it (the kernel cycles through the ephemeral range).
unsigned free_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a{ioc, {boost::asio::ip::make_address("127.0.0.1"), 0}};
  return a.local_endpoint().port();
}

} // namespace

bool have_redis_server() {
  return access(redis_bin, X_OK) == 0;
}

redis_tls_files make_redis_tls_files(const std::string& dir, const std::string& name) {
  redis_tls_files out{dir + "/" + name + "-ca.pem", dir + "/" + name + ".pem",
                      dir + "/" + name + ".key"};
  auto ext = dir + "/" + name + ".ext";
  auto ca_key = dir + "/" + name + "-ca.key";
  auto csr = dir + "/" + name + ".csr";
  const std::string ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
  auto script = "set -e; printf 'subjectAltName=IP:127.0.0.1\\n' > '" + ext + "'; "
                + "openssl req -x509 " + ec + " -keyout '" + ca_key + "' -out '" + out.ca
                + "' -days 1 -subj '/CN=" + name + " test CA'; "
                + "openssl req " + ec + " -keyout '" + out.key + "' -out '" + csr
                + "' -subj '/CN=127.0.0.1'; "
                + "openssl x509 -req -in '" + csr + "' -CA '" + out.ca + "' -CAkey '" + ca_key
                + "' -CAcreateserial -out '" + out.cert + "' -days 1 -extfile '" + ext + "'";
  child_process openssl{{"/bin/sh", "-c", script + " 2>&1"}};
  auto status = openssl.wait(std::chrono::seconds(30));
  if (status != 0) {
    std::string said;
    for (auto& line : openssl.lines())
      said += line + "\n";
    throw std::runtime_error("openssl could not make the Redis TLS files: " + said);
  }
  return out;
}

redis_server::redis_server(std::optional<redis_tls_files> tls, std::string password,
                           std::vector<std::string> extra_args)
  : port_(free_port()), tls_(std::move(tls)), password_(std::move(password)),
    extra_args_(std::move(extra_args)) {
  start();
}

redis_server::~redis_server() {
  if (process_)
    kill();
}

std::string redis_server::url() const {
  auto auth = password_.empty() ? std::string{} : ":" + password_ + "@";
  if (tls_)
    return "rediss://" + auth + "127.0.0.1:" + std::to_string(port_) + "?ssl_ca_certs="
           + tls_->ca;
  return "redis://" + auth + "127.0.0.1:" + std::to_string(port_);
}

void redis_server::start() {
  std::vector<std::string> argv{redis_bin,  "--bind",       "127.0.0.1", "--save",
                                "",         "--appendonly", "no",        "--protected-mode",
                                "no",       "--dir",        dir_.path()};
  if (tls_) {
    for (auto& arg : {std::string{"--port"}, std::string{"0"}, std::string{"--tls-port"},
                      std::to_string(port_), std::string{"--tls-cert-file"}, tls_->cert,
                      std::string{"--tls-key-file"}, tls_->key, std::string{"--tls-ca-cert-file"},
                      tls_->ca, std::string{"--tls-auth-clients"}, std::string{"no"}})
      argv.push_back(arg);
  } else {
    argv.push_back("--port");
    argv.push_back(std::to_string(port_));
  }
  if (!password_.empty()) {
    argv.push_back("--requirepass");
    argv.push_back(password_);
  }
  argv.insert(argv.end(), extra_args_.begin(), extra_args_.end());
  process_ = std::make_unique<child_process>(argv);
  if (!wait_until([this] { return answers(); }, std::chrono::seconds(10)))
    throw std::runtime_error("redis-server on port " + std::to_string(port_)
                             + " did not answer PING");
}

void redis_server::kill() {
  process_->signal(SIGKILL);
  process_->wait(std::chrono::seconds(10));
  process_.reset();
}

bool redis_server::answers() const {
  if (tls_) {
    // hiredis 0.14 speaks no TLS: a TLS port that accepts is taken as up.
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::socket s{ioc};
    boost::system::error_code ec;
    s.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port_)},
              ec);
    return !ec;
  }
  timeval tv{0, 200000};
  auto* ctx = redisConnectWithTimeout("127.0.0.1", static_cast<int>(port_), tv);
  if (!ctx)
    return false;
  bool pong = false;
  if (!ctx->err && !password_.empty()) {
    if (auto* r = static_cast<redisReply*>(redisCommand(ctx, "AUTH %s", password_.c_str())))
      freeReplyObject(r);
  }
  if (!ctx->err) {
    if (auto* r = static_cast<redisReply*>(redisCommand(ctx, "PING"))) {
      pong = r->type == REDIS_REPLY_STATUS && std::string{r->str, r->len} == "PONG";
      freeReplyObject(r);
    }
  }
  redisFree(ctx);
  return pong;
}

redis_sentinels::redis_sentinels(const std::string& dir, std::size_t replicas) {
  // Redis 7 waits 5 s before a diskless sync by default, for more replicas to join it; here
  // they start together, on either side of a failover.
  std::vector<std::string> no_delay{"--repl-diskless-sync-delay", "0"};
  master_ = std::make_unique<redis_server>(std::nullopt, std::string{}, no_delay);
  auto replica_args = no_delay;
  replica_args.insert(replica_args.end(),
                      {"--replicaof", "127.0.0.1", std::to_string(master_->port())});
  for (std::size_t i = 0; i < std::max<std::size_t>(1, replicas); ++i)
    replicas_.push_back(std::make_unique<redis_server>(std::nullopt, std::string{}, replica_args));
  for (int i = 0; i < 3; ++i) {
    auto port = free_port();
    auto conf = dir + "/sentinel" + std::to_string(i) + ".conf";
    {
      // Sentinel rewrites its configuration as it learns: a file of its own, writable.
      std::ofstream out{conf};
      out << "port " << port << "\nbind 127.0.0.1\nprotected-mode no\n"
          << "sentinel monitor netherscope 127.0.0.1 " << master_->port() << " 2\n"
          << "sentinel down-after-milliseconds netherscope 1000\n"
          << "sentinel failover-timeout netherscope 5000\n"
          << "sentinel parallel-syncs netherscope 1\n";
    }
    sentinel_ports_.push_back(port);
    sentinels_.push_back(
      std::make_unique<child_process>(std::vector<std::string>{redis_bin, conf, "--sentinel"}));
  }
  // Ready once every sentinel has found every replica through the master, each with its link
  // to the master up: a sentinel promotes no other.
  auto knows_replicas = [this] {
    for (auto port : sentinel_ports_) {
      timeval tv{0, 200000};
      auto* ctx = redisConnectWithTimeout("127.0.0.1", static_cast<int>(port), tv);
      if (!ctx || ctx->err) {
        if (ctx)
          redisFree(ctx);
        return false;
      }
      auto* r = static_cast<redisReply*>(redisCommand(ctx, "SENTINEL replicas netherscope"));
      std::size_t linked = 0;
      if (r && r->type == REDIS_REPLY_ARRAY)
        for (std::size_t e = 0; e < r->elements; ++e) {
          const auto* fields = r->element[e];
          if (fields->type != REDIS_REPLY_ARRAY)
            continue;
          for (std::size_t f = 0; f + 1 < fields->elements; f += 2)
            if (std::string{fields->element[f]->str, fields->element[f]->len}
                  == "master-link-status"
                && std::string{fields->element[f + 1]->str, fields->element[f + 1]->len} == "ok")
              ++linked;
        }
      if (r)
        freeReplyObject(r);
      redisFree(ctx);
      if (linked != replicas_.size())
        return false;
    }
    return true;
  };
  // And once each replica has its first copy of the master.
  auto replicas_online = [this] {
    return acknowledging_replicas(master_->port(), replicas_.size()) == replicas_.size();
  };
  if (!wait_until(replicas_online, std::chrono::seconds(20)))
    throw std::runtime_error("the replicas did not come online within 20 s");
  if (!wait_until(knows_replicas, std::chrono::seconds(20)))
    throw std::runtime_error("the sentinels did not find the replicas within 20 s");
}

redis_sentinels::~redis_sentinels() {
  for (auto& s : sentinels_)
    if (s) {
      s->signal(SIGKILL);
      s->wait(std::chrono::seconds(10));
    }
}

std::string redis_sentinels::url() const {
  std::string hosts;
  for (auto port : sentinel_ports_)
    hosts += (hosts.empty() ? "" : ",") + std::string{"127.0.0.1:"} + std::to_string(port);
  return "redis+sentinel://" + hosts + "/netherscope";
}

void redis_sentinels::kill_sentinel(std::size_t i) {
  sentinels_.at(i)->signal(SIGKILL);
  sentinels_.at(i)->wait(std::chrono::seconds(10));
  sentinels_.at(i).reset();
}

unsigned redis_sentinels::named_master() const {
  for (std::size_t i = 0; i < sentinel_ports_.size(); ++i) {
    if (!sentinels_[i])
      continue;
    timeval tv{0, 200000};
    auto* ctx = redisConnectWithTimeout("127.0.0.1", static_cast<int>(sentinel_ports_[i]), tv);
    if (!ctx || ctx->err) {
      if (ctx)
        redisFree(ctx);
      continue;
    }
    auto* r = static_cast<redisReply*>(
      redisCommand(ctx, "SENTINEL get-master-addr-by-name netherscope"));
    unsigned port = 0;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2)
      port = static_cast<unsigned>(std::stoul(std::string{r->element[1]->str, r->element[1]->len}));
    if (r)
      freeReplyObject(r);
    redisFree(ctx);
    return port;
  }
  return 0;
}

namespace {

/// The reply to one command on ctx as text: the status or bulk string, the integer, or (when
/// errors_too) an error's message; nullopt when no reply came, or an error when not errors_too.
std::optional<std::string> reply_text(redisContext* ctx, const std::vector<std::string>& cmd,
                                      bool errors_too) {
  std::vector<const char*> argv;
  std::vector<std::size_t> lens;
  for (auto& a : cmd) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* r = static_cast<redisReply*>(
    redisCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lens.data()));
  if (!r)
    return std::nullopt;
  std::optional<std::string> out;
  if (errors_too || r->type != REDIS_REPLY_ERROR)
    out = r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer)
          : r->str                        ? std::string{r->str, r->len}
                                          : std::string{};
  freeReplyObject(r);
  return out;
}

} // namespace

std::vector<std::string> redis_commands(unsigned port,
                                        const std::vector<std::vector<std::string>>& cmds,
                                        const std::string& password, unsigned db) {
  auto* ctx = redisConnect("127.0.0.1", static_cast<int>(port));
  REQUIRE(ctx);
  REQUIRE(ctx->err == 0);
  auto run = [&](const std::vector<std::string>& cmd) {
    auto out = reply_text(ctx, cmd, true);
    REQUIRE(out);
    return *out;
  };
  if (!password.empty())
    REQUIRE(run({"AUTH", password}) == "OK");
  if (db != 0)
    REQUIRE(run({"SELECT", std::to_string(db)}) == "OK");
  std::vector<std::string> out;
  for (const auto& cmd : cmds)
    out.push_back(run(cmd));
  redisFree(ctx);
  return out;
}

std::string redis_command(unsigned port, const std::vector<std::string>& args,
                          const std::string& password, unsigned db) {
  return redis_commands(port, {args}, password, db).front();
}

std::optional<std::string> try_redis_command(unsigned port, const std::vector<std::string>& args) {
  auto* ctx = redisConnect("127.0.0.1", static_cast<int>(port));
  if (!ctx)
    return std::nullopt;
  std::optional<std::string> out;
  if (ctx->err == 0)
    out = reply_text(ctx, args, false);
  redisFree(ctx);
  return out;
}

std::string redis_role(unsigned port) {
  auto info = try_redis_command(port, {"INFO", "replication"});
  for (auto role : {"master", "slave"})
    if (info && info->find(std::string{"role:"} + role) != std::string::npos)
      return role;
  return {};
}

std::size_t online_replicas(unsigned port) {
  auto info = try_redis_command(port, {"INFO", "replication"}).value_or("");
  std::size_t online = 0;
  for (auto at = info.find("state=online"); at != std::string::npos;
       at = info.find("state=online", at + 1))
    ++online;
  return online;
}

std::size_t acknowledging_replicas(unsigned port, std::size_t wanted) {
  auto* ctx = redisConnect("127.0.0.1", static_cast<int>(port));
  if (!ctx)
    return 0;
  std::optional<std::string> acknowledged;
  if (ctx->err == 0 && reply_text(ctx, {"SET", "netherscope-test:acknowledged", "1"}, false))
    acknowledged = reply_text(ctx, {"WAIT", std::to_string(wanted), "200"}, false);
  redisFree(ctx);
  return acknowledged ? std::stoul(*acknowledged) : 0;
}

} // namespace netherscope::test
