#include "support/redis_server.hpp"

#include <csignal>
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

redis_server::redis_server(std::optional<redis_tls_files> tls, std::string password)
  : port_(free_port()), tls_(std::move(tls)), password_(std::move(password)) {
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
                                "no"};
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

std::string redis_command(unsigned port, const std::vector<std::string>& args,
                          const std::string& password, unsigned db) {
  auto* ctx = redisConnect("127.0.0.1", static_cast<int>(port));
  REQUIRE(ctx);
  REQUIRE(ctx->err == 0);
  auto run = [&](const std::vector<std::string>& cmd) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (auto& a : cmd) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(
      redisCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), lens.data()));
    REQUIRE(r);
    std::string out = r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer)
                      : r->str                        ? std::string{r->str, r->len}
                                                      : std::string{};
    freeReplyObject(r);
    return out;
  };
  if (!password.empty())
    REQUIRE(run({"AUTH", password}) == "OK");
  if (db != 0)
    REQUIRE(run({"SELECT", std::to_string(db)}) == "OK");
  auto out = run(args);
  redisFree(ctx);
  return out;
}

} // namespace netherscope::test
