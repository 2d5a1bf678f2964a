#include "storage/redis_tls.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include <netdb.h>
#include <pthread.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <boost/asio/ip/address.hpp>

namespace netherscope::storage {

namespace {

// The newest OpenSSL error as text, with the verification result when that is what failed.
// Either way the thread's error queue is left empty, so no later message reads a stale entry.
std::string openssl_reason(SSL* ssl) {
  if (ssl) {
    auto verified = SSL_get_verify_result(ssl);
    if (verified != X509_V_OK) {
      ERR_clear_error();
      return std::string{"certificate: "} + X509_verify_cert_error_string(verified);
    }
  }
  char buf[256] = {0};
  auto code = ERR_get_error();
  ERR_clear_error();
  if (code == 0)
    return "connection closed during the handshake";
  ERR_error_string_n(code, buf, sizeof(buf));
  return buf;
}

// Connects a TCP socket to the first address of host that answers within the timeout (set
// as the socket's send timeout, which Linux applies to connect).
int connect_tcp(const redis_tls_settings& cfg, std::string& problem) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  auto port = std::to_string(cfg.port);
  if (auto rc = getaddrinfo(cfg.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    problem = "cannot resolve " + cfg.host + ": " + gai_strerror(rc);
    return -1;
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> guard{found, freeaddrinfo};
  std::string last = "no address";
  for (auto* ai = found; ai; ai = ai->ai_next) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0)
      continue;
    auto tv = to_timeval(cfg.timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
      return fd;
    last = std::strerror(errno);
    close(fd);
  }
  problem = "cannot connect to " + cfg.host + ":" + port + ": " + last;
  return -1;
}

} // namespace

struct redis_tls_tunnel::impl {
  SSL_CTX* ctx = nullptr;
  SSL* ssl = nullptr;
  int tcp = -1;
  /// Our end of the socketpair, and hiredis's until it takes it.
  int ours = -1;
  int theirs = -1;
  std::atomic<bool> stop{false};
  std::thread pump;

  ~impl() {
    stop = true;
    // Wakes the thread wherever it waits: a shut-down socket makes reads return at once.
    if (tcp >= 0)
      shutdown(tcp, SHUT_RDWR);
    if (ours >= 0)
      shutdown(ours, SHUT_RDWR);
    if (pump.joinable())
      pump.join();
    if (ssl)
      SSL_free(ssl);
    if (ctx)
      SSL_CTX_free(ctx);
    for (int fd : {tcp, ours, theirs})
      if (fd >= 0)
        close(fd);
  }

  // Writes all of data to the plain end; false when hiredis went away.
  bool write_plain(const char* data, std::size_t size) {
    while (size > 0) {
      auto n = send(ours, data, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      data += n;
      size -= static_cast<std::size_t>(n);
    }
    return true;
  }

  // Carries bytes both ways until either side closes or the tunnel stops. Redis answers
  // what it is asked, so one thread taking turns is enough.
  void run() {
    char buf[16384];
    while (!stop) {
      // Bytes OpenSSL already decrypted are not on the socket: hand them on first.
      if (SSL_pending(ssl) == 0) {
        pollfd fds[2] = {{ours, POLLIN, 0}, {tcp, POLLIN, 0}};
        auto ready = poll(fds, 2, 250);
        if (ready < 0 && errno != EINTR)
          return;
        if (ready <= 0)
          continue;
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
          auto n = read(ours, buf, sizeof(buf));
          if (n <= 0)
            return;
          if (SSL_write(ssl, buf, static_cast<int>(n)) <= 0)
            return;
        }
        if (!(fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
          continue;
      }
      auto n = SSL_read(ssl, buf, sizeof(buf));
      if (n <= 0) {
        auto err = SSL_get_error(ssl, n);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
          continue;
        return;
      }
      if (!write_plain(buf, static_cast<std::size_t>(n)))
        return;
    }
  }
};

redis_tls_tunnel::redis_tls_tunnel(std::unique_ptr<impl> x) : impl_(std::move(x)) {
  // nop
}

redis_tls_tunnel::~redis_tls_tunnel() = default;

int redis_tls_tunnel::take_client_fd() noexcept {
  auto fd = impl_->theirs;
  impl_->theirs = -1;
  return fd;
}

std::unique_ptr<redis_tls_tunnel> redis_tls_tunnel::open(const redis_tls_settings& cfg,
                                                         std::string& problem) {
  auto refuse = [&](std::string why) {
    problem = "TLS: " + std::move(why);
    return nullptr;
  };
  auto x = std::make_unique<impl>();
  x->ctx = SSL_CTX_new(TLS_client_method());
  if (!x->ctx)
    return refuse("cannot make a TLS context: " + openssl_reason(nullptr));
  SSL_CTX_set_min_proto_version(x->ctx, TLS1_2_VERSION);
  SSL_CTX_set_verify(x->ctx, SSL_VERIFY_PEER, nullptr);
  auto loaded = cfg.ca_file.empty()
                  ? SSL_CTX_set_default_verify_paths(x->ctx)
                  : SSL_CTX_load_verify_locations(x->ctx, cfg.ca_file.c_str(), nullptr);
  if (loaded != 1)
    return refuse("cannot load the CAs" + (cfg.ca_file.empty() ? "" : " of " + cfg.ca_file)
                     + ": " + openssl_reason(nullptr));
  x->tcp = connect_tcp(cfg, problem);
  if (x->tcp < 0)
    return nullptr;
  x->ssl = SSL_new(x->ctx);
  if (!x->ssl)
    return refuse("cannot make a TLS connection: " + openssl_reason(nullptr));
  // The certificate must name what the URL names: an IP address as an IP SAN, a name as a
  // DNS SAN (and sent as SNI).
  boost::system::error_code not_ip;
  boost::asio::ip::make_address(cfg.host, not_ip);
  // Either setting failing would leave no name to check, and any certificate a trusted CA
  // signed would pass: refuse instead.
  auto* param = SSL_get0_param(x->ssl);
  bool named = !not_ip ? X509_VERIFY_PARAM_set1_ip_asc(param, cfg.host.c_str()) == 1
                       : SSL_set_tlsext_host_name(x->ssl, cfg.host.c_str()) == 1
                           && X509_VERIFY_PARAM_set1_host(param, cfg.host.c_str(), 0) == 1;
  if (!named)
    return refuse("cannot ask TLS to check the name " + cfg.host + ": " + openssl_reason(nullptr));
  SSL_set_fd(x->ssl, x->tcp);
  if (SSL_connect(x->ssl) != 1)
    return refuse("handshake with " + cfg.host + ":" + std::to_string(cfg.port)
                  + " failed: " + openssl_reason(x->ssl));
  // TLS 1.3 servers send session tickets after the handshake. With auto-retry, a read that
  // finds only a ticket waits on for application data, which never comes while the command
  // that would bring it sits unforwarded: the read must return instead (SSL_ERROR_WANT_READ).
  SSL_clear_mode(x->ssl, SSL_MODE_AUTO_RETRY);
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    return refuse(std::string{"socketpair: "} + std::strerror(errno));
  x->ours = pair[0];
  x->theirs = pair[1];
  auto* raw = x.get();
  x->pump = std::thread{[raw] {
    // A peer that hung up makes a write fail with EPIPE on this thread, not a SIGPIPE that
    // ends the process (OpenSSL writes to the socket with write()).
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    raw->run();
    // Either side ended: the other learns it from a closed socket.
    shutdown(raw->ours, SHUT_RDWR);
    shutdown(raw->tcp, SHUT_RDWR);
  }};
  return std::unique_ptr<redis_tls_tunnel>{new redis_tls_tunnel(std::move(x))};
}

} // namespace netherscope::storage
