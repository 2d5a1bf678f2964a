#include "support/redis_server.hpp"

#include <csignal>
#include <stdexcept>
#include <unistd.h>

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

redis_server::redis_server() : port_(free_port()) {
  start();
}

redis_server::~redis_server() {
  if (process_)
    kill();
}

std::string redis_server::url() const {
  return "redis://127.0.0.1:" + std::to_string(port_);
}

void redis_server::start() {
  process_ = std::make_unique<child_process>(std::vector<std::string>{
    redis_bin, "--port", std::to_string(port_), "--bind", "127.0.0.1", "--save", "",
    "--appendonly", "no", "--protected-mode", "no"});
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
  timeval tv{0, 200000};
  auto* ctx = redisConnectWithTimeout("127.0.0.1", static_cast<int>(port_), tv);
  if (!ctx)
    return false;
  bool pong = false;
  if (!ctx->err) {
    if (auto* r = static_cast<redisReply*>(redisCommand(ctx, "PING"))) {
      pong = r->type == REDIS_REPLY_STATUS && std::string{r->str, r->len} == "PONG";
      freeReplyObject(r);
    }
  }
  redisFree(ctx);
  return pong;
}

} // namespace netherscope::test
