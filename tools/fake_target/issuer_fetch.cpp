// GET requests to the issuer with Beast, in the shape of Beast's async HTTP client example:
// connect, write, read, each under the stream's timeout, one object per request kept alive by
// shared_from_this.
#include "issuer_fetch.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

namespace fake_target {

// The same aliases as transport.hpp and router.hpp, which a unity batch may put beside these.
namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

namespace {

// The issuer's documents are a few kilobytes; anything past this is not one of them.
constexpr std::uint64_t issuer_body_limit = 1024 * 1024;

// A token whose kid is unknown makes the fake fetch the JWKS again, as servers do when the
// issuer rotates its keys, but not more often than this, so that a stream of forged kids
// cannot keep the issuer busy.
constexpr std::chrono::seconds refetch_interval{5};

using fetch_handler = std::function<void(std::string error, std::string body)>;

class issuer_get : public std::enable_shared_from_this<issuer_get> {
 public:
  issuer_get(net::io_context& ioc, loopback_url url, std::chrono::milliseconds timeout, fetch_handler done)
      : stream_(ioc), url_(std::move(url)), timeout_(timeout), done_(std::move(done)) {}

  void run() {
    boost::system::error_code ec;
    const auto address = net::ip::make_address(url_.host, ec);
    if (ec) return finish("bad address " + url_.host);
    req_ = {http::verb::get, url_.target, 11};
    req_.set(http::field::host, url_.host + ":" + std::to_string(url_.port));
    req_.set(http::field::accept, "application/json");
    stream_.expires_after(timeout_);
    stream_.async_connect(net::ip::tcp::endpoint(address, url_.port),
                          beast::bind_front_handler(&issuer_get::on_connect, shared_from_this()));
  }

 private:
  void on_connect(beast::error_code ec) {
    if (ec) return finish("cannot connect: " + ec.message());
    stream_.expires_after(timeout_);
    http::async_write(stream_, req_, beast::bind_front_handler(&issuer_get::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t) {
    if (ec) return finish("cannot send the request: " + ec.message());
    parser_.body_limit(issuer_body_limit);
    stream_.expires_after(timeout_);
    http::async_read(stream_, buffer_, parser_, beast::bind_front_handler(&issuer_get::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return finish("no answer: " + ec.message());
    const auto& res = parser_.get();
    if (res.result() != http::status::ok) return finish("status " + std::to_string(res.result_int()));
    finish({}, res.body());
  }

  void finish(std::string error, std::string body = {}) {
    beast::error_code ignored;
    stream_.socket().shutdown(net::ip::tcp::socket::shutdown_both, ignored);
    done_(error.empty() ? std::string() : "GET " + url_.target + ": " + error, std::move(body));
  }

  beast::tcp_stream stream_;
  loopback_url url_;
  std::chrono::milliseconds timeout_;
  fetch_handler done_;
  http::request<http::empty_body> req_;
  beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
};

void get_json(net::io_context& ioc, const std::string& url, std::chrono::milliseconds timeout, fetch_handler done) {
  auto parsed = parse_loopback_url(url);
  if (!parsed) return done(url + " is not an http URL on a loopback address", {});
  std::make_shared<issuer_get>(ioc, std::move(*parsed), timeout, std::move(done))->run();
}

}  // namespace

struct issuer_source::impl : std::enable_shared_from_this<impl> {
  impl(net::io_context& ioc, std::string base, std::chrono::milliseconds timeout)
      : ioc(ioc), base(std::move(base)), timeout(timeout) {}

  // Fetches the JWKS and replaces the keys when it reads; a failed fetch keeps the old ones.
  void fetch_keys(std::function<void(std::string)> done) {
    get_json(ioc, jwks_uri, timeout, [self = shared_from_this(), done](std::string error, std::string body) {
      if (error.empty()) {
        auto keys = read_jwks(body, error);
        if (keys) self->current.by_kid = std::move(*keys);
      }
      done(std::move(error));
    });
  }

  net::io_context& ioc;
  std::string base;
  std::chrono::milliseconds timeout;
  std::string jwks_uri;
  issuer_keys current;
  bool refreshing = false;
  std::chrono::steady_clock::time_point last_refresh{};
  std::vector<std::function<void()>> waiting;
};

issuer_source::issuer_source(net::io_context& ioc, std::string base, std::chrono::milliseconds timeout)
    : impl_(std::make_shared<impl>(ioc, std::move(base), timeout)) {
  impl_->current.issuers.push_back(impl_->base + "/");
}

issuer_source::~issuer_source() = default;

void issuer_source::load(std::function<void(std::string error)> done) {
  const auto url = impl_->base + "/.well-known/openid-configuration";
  get_json(impl_->ioc, url, impl_->timeout, [self = impl_, done](std::string error, std::string body) {
    if (!error.empty()) return done(std::move(error));
    const auto config = read_openid_configuration(body, error);
    if (!config) return done(std::move(error));
    if (!config->issuer.empty() && config->issuer != self->current.issuers.front())
      self->current.issuers.push_back(config->issuer);
    self->jwks_uri = config->jwks_uri;
    self->fetch_keys([self, done](std::string error) {
      if (error.empty() && self->current.by_kid.empty()) error = "the JWKS at " + self->jwks_uri + " has no RSA key";
      done(std::move(error));
    });
  });
}

const issuer_keys& issuer_source::keys() const {
  return impl_->current;
}

bool issuer_source::refresh(std::function<void()> done) {
  auto& self = *impl_;
  if (self.refreshing) {
    self.waiting.push_back(std::move(done));
    return true;
  }
  const auto now = std::chrono::steady_clock::now();
  if (self.last_refresh != std::chrono::steady_clock::time_point{} && now - self.last_refresh < refetch_interval)
    return false;
  self.refreshing = true;
  self.last_refresh = now;
  self.waiting.push_back(std::move(done));
  self.fetch_keys([state = impl_](std::string) {
    state->refreshing = false;
    auto waiting = std::move(state->waiting);
    state->waiting.clear();
    for (auto& handler : waiting) handler();
  });
  return true;
}

}  // namespace fake_target
