// Measures single flight: N concurrent identical POST /api/offer calls on a cold cache, and
// how many offers the target received for them.
//
//   bench_single_flight SERVICE_PORT TARGET_PORT N
//
// Talks only to 127.0.0.1. Prints one line of results.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/parse.hpp>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

/// One call: connect, send, read; records its status.
struct call : std::enable_shared_from_this<call> {
  beast::tcp_stream stream;
  http::request<http::string_body> req;
  http::response<http::string_body> res;
  beast::flat_buffer buffer;
  int* status;

  call(asio::io_context& ioc, http::request<http::string_body> r, int* out)
    : stream(ioc), req(std::move(r)), status(out) {
    // nop
  }

  void start(const tcp::endpoint& ep) {
    stream.expires_after(std::chrono::seconds(60));
    stream.async_connect(ep, [self = shared_from_this()](beast::error_code ec) {
      if (ec)
        return;
      http::async_write(self->stream, self->req,
                        [self](beast::error_code ec, std::size_t) {
                          if (ec)
                            return;
                          http::async_read(self->stream, self->buffer, self->res,
                                           [self](beast::error_code ec, std::size_t) {
                                             if (!ec)
                                               *self->status = self->res.result_int();
                                           });
                        });
    });
  }
};

// The fake target's count of offers received.
long offers_seen(asio::io_context& ioc, unsigned short port) {
  beast::tcp_stream stream{ioc};
  stream.connect(tcp::endpoint{asio::ip::make_address("127.0.0.1"), port});
  http::request<http::empty_body> req{http::verb::get, "/_fake/stats", 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return static_cast<long>(boost::json::parse(res.body()).at("offers").to_number<long>());
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_single_flight SERVICE_PORT TARGET_PORT N\n");
    return 2;
  }
  auto service = static_cast<unsigned short>(std::atoi(argv[1]));
  auto target = static_cast<unsigned short>(std::atoi(argv[2]));
  auto n = std::atoi(argv[3]);
  asio::io_context ioc;
  auto before = offers_seen(ioc, target);
  // tls=false is a cache key no earlier run used, so the cache is cold for it.
  std::string body = R"({"host":"127.0.0.1","tls":false,"port":)" + std::to_string(target) + "}";
  std::vector<int> statuses(static_cast<std::size_t>(n), 0);
  tcp::endpoint ep{asio::ip::make_address("127.0.0.1"), service};
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    http::request<http::string_body> req{http::verb::post, "/api/offer", 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    std::make_shared<call>(ioc, std::move(req), &statuses[static_cast<std::size_t>(i)])->start(ep);
  }
  ioc.run();
  auto elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now()
                                                           - start);
  ioc.restart();
  auto after = offers_seen(ioc, target);
  int ok = 0;
  for (auto s : statuses)
    ok += s == 200;
  std::printf("%d concurrent identical offers on a cold cache: %ld upstream offer(s), %d of %d "
              "answered 200, all done in %.0f ms\n",
              n, after - before, ok, n, elapsed.count());
  return ok == n && after - before == 1 ? 0 : 1;
}
