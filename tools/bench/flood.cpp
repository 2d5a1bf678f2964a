// Floods a server with idle connections from many loopback addresses while a well-behaved
// client keeps asking it, and reports what each of them got.
//
//   bench_flood --port P [--sources 100] [--per-source 100] [--first-source 127.0.1.1]
//               [--client-source 127.0.0.1] [--seconds 20] [--interval-ms 5]
//               [--path /healthz] [--reconnect-ms 1000] [--concurrency 256]
//
// The flood: sources × per-source connections, each bound to its own 127.0.x.y address
// (127.0.0.0/8 is loopback as a whole), sending nothing. A connection the server closes, with
// a 503 or without a word (evicted, or timed out), is opened again after --reconnect-ms, as
// an attacker would (0: never). Once the flood has settled, two clients ask --path every
// --interval-ms for --seconds: one on a keep-alive connection, one on a new connection per
// request; each request's latency runs from the first byte sent (or the connect) to the
// last byte of the response, reconnects included. Prints one JSON object.
//
// Talks only to 127.0.0.0/8. Raises its own open-files limit to the hard limit.
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

namespace {

struct options {
  unsigned short port = 0;
  unsigned sources = 100;
  unsigned per_source = 100;
  std::string first_source = "127.0.1.1";
  std::string client_source = "127.0.0.1";
  unsigned seconds = 20;
  unsigned interval_ms = 5;
  std::string path = "/healthz";
  unsigned reconnect_ms = 1000;
  unsigned concurrency = 256;
};

/// Parses "--name value" pairs; exits with a message on anything else.
options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string name = argv[i];
    std::string value = argv[i + 1];
    auto number = [&] { return static_cast<unsigned>(std::stoul(value)); };
    if (name == "--port")
      o.port = static_cast<unsigned short>(number());
    else if (name == "--sources")
      o.sources = number();
    else if (name == "--per-source")
      o.per_source = number();
    else if (name == "--first-source")
      o.first_source = value;
    else if (name == "--client-source")
      o.client_source = value;
    else if (name == "--seconds")
      o.seconds = number();
    else if (name == "--interval-ms")
      o.interval_ms = number();
    else if (name == "--path")
      o.path = value;
    else if (name == "--reconnect-ms")
      o.reconnect_ms = number();
    else if (name == "--concurrency")
      o.concurrency = std::max(1u, number());
    else {
      std::fprintf(stderr, "bench_flood: unknown option %s\n", name.c_str());
      std::exit(2);
    }
  }
  if (o.port == 0 || argc % 2 == 0) {
    std::fprintf(stderr, "usage: bench_flood --port P [--sources N] [--per-source N] ...\n");
    std::exit(2);
  }
  return o;
}

/// The flood: idle connections from many addresses, counted by what became of them.
class flood {
public:
  flood(asio::io_context& ioc, const options& o) : ioc_(ioc), opt_(o) {
    server_ = tcp::endpoint{asio::ip::make_address_v4("127.0.0.1"), o.port};
    auto first = asio::ip::make_address_v4(o.first_source).to_uint();
    for (unsigned s = 0; s < o.sources; ++s)
      for (unsigned i = 0; i < o.per_source; ++i)
        queue_.push_back(asio::ip::address_v4{first + s});
  }

  void start() {
    pump();
  }

  void stop() {
    stopping_ = true;
  }

  /// Whether every first attempt has connected or failed.
  bool launched() const {
    return queue_.empty() && connecting_ == 0;
  }

  boost::json::object counts() const {
    return {{"attempted", std::uint64_t{opt_.sources} * opt_.per_source},
            {"open", open_},
            {"held", held_},
            {"connects", connects_},
            {"connect_failed", connect_failed_},
            {"refused_503", refused_},
            {"closed_silently", closed_silently_}};
  }

  /// Connections open that have received nothing: the ones the server holds for the flood.
  std::size_t held() const {
    return held_;
  }

private:
  struct connection {
    explicit connection(asio::io_context& ioc) : socket(ioc) {
      // nop
    }
    tcp::socket socket;
    asio::ip::address_v4 source;
    std::array<char, 512> buffer{};
    bool got_data = false;
  };

  // Keeps at most --concurrency connects in flight, so the flood does not overrun the
  // listen queue and measure the kernel instead of the server.
  void pump() {
    while (!queue_.empty() && connecting_ < opt_.concurrency) {
      auto source = queue_.front();
      queue_.pop_front();
      open_one(source);
    }
  }

  void open_one(asio::ip::address_v4 source) {
    auto c = std::make_shared<connection>(ioc_);
    c->source = source;
    boost::system::error_code ec;
    c->socket.open(tcp::v4(), ec);
    if (!ec)
      c->socket.bind(tcp::endpoint{source, 0}, ec);
    if (ec) {
      ++connect_failed_;
      return;
    }
    ++connecting_;
    c->socket.async_connect(server_, [this, c](boost::system::error_code ec) {
      --connecting_;
      if (ec) {
        ++connect_failed_;
      } else {
        ++connects_;
        ++open_;
        ++held_;
        read(c);
      }
      pump();
    });
  }

  void read(const std::shared_ptr<connection>& c) {
    c->socket.async_read_some(asio::buffer(c->buffer),
                              [this, c](boost::system::error_code ec, std::size_t n) {
                                if (!ec) {
                                  if (!c->got_data && n >= 12
                                      && std::string(c->buffer.data(), 12) == "HTTP/1.1 503")
                                    ++refused_;
                                  if (!c->got_data)
                                    --held_;
                                  c->got_data = true;
                                  return read(c);
                                }
                                ended(c);
                              });
  }

  void ended(const std::shared_ptr<connection>& c) {
    --open_;
    if (!c->got_data) {
      --held_;
      ++closed_silently_;
    }
    if (stopping_ || opt_.reconnect_ms == 0)
      return;
    auto timer = std::make_shared<asio::steady_timer>(ioc_);
    timer->expires_after(std::chrono::milliseconds(opt_.reconnect_ms));
    timer->async_wait([this, timer, source = c->source](boost::system::error_code ec) {
      if (!ec && !stopping_)
        open_one(source);
    });
  }

  asio::io_context& ioc_;
  options opt_;
  tcp::endpoint server_;
  std::deque<asio::ip::address_v4> queue_;
  std::size_t connecting_ = 0;
  std::size_t open_ = 0;
  std::size_t held_ = 0;
  std::uint64_t connects_ = 0;
  std::uint64_t connect_failed_ = 0;
  std::uint64_t refused_ = 0;
  std::uint64_t closed_silently_ = 0;
  std::atomic<bool> stopping_{false};
};

/// Latencies of one client's answered (200) requests, and how many failed or were refused.
struct samples {
  std::vector<double> ms;
  std::uint64_t failed = 0;
  std::uint64_t non_200 = 0;

  boost::json::object summary() const {
    auto sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    auto pct = [&](double p) {
      if (sorted.empty())
        return 0.0;
      auto rank = static_cast<std::size_t>(p * static_cast<double>(sorted.size()) + 0.999999);
      return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
    };
    return {{"requests", sorted.size() + failed + non_200},
            {"ok", sorted.size()},
            {"failed", failed},
            {"non_200", non_200},
            {"p50_ms", pct(0.50)},
            {"p90_ms", pct(0.90)},
            {"p99_ms", pct(0.99)},
            {"max_ms", sorted.empty() ? 0.0 : sorted.back()}};
  }
};

/// One well-behaved client: a request every interval, on one keep-alive connection or on a
/// new connection each time; blocking calls on a thread of its own.
samples probe(const options& o, bool keep_alive) {
  samples out;
  asio::io_context ioc;
  tcp::endpoint server{asio::ip::make_address_v4("127.0.0.1"), o.port};
  tcp::endpoint local{asio::ip::make_address_v4(o.client_source), 0};
  std::unique_ptr<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  auto end = clock_type::now() + std::chrono::seconds(o.seconds);
  while (clock_type::now() < end) {
    auto next = clock_type::now() + std::chrono::milliseconds(o.interval_ms);
    auto started = clock_type::now();
    beast::error_code ec;
    if (!stream) {
      stream = std::make_unique<beast::tcp_stream>(ioc);
      buffer.clear();
      stream->socket().open(tcp::v4(), ec);
      if (!ec)
        stream->socket().bind(local, ec);
      if (!ec)
        stream->socket().connect(server, ec);
    }
    http::request<http::empty_body> req{http::verb::get, o.path, 11};
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(keep_alive);
    http::response<http::string_body> res;
    if (!ec) {
      stream->expires_after(std::chrono::seconds(5));
      http::write(*stream, req, ec);
    }
    if (!ec)
      http::read(*stream, buffer, res, ec);
    auto took = std::chrono::duration<double, std::milli>(clock_type::now() - started).count();
    if (ec) {
      ++out.failed;
      stream.reset();
    } else {
      // Only answers count toward the latencies: a quick 503 is no service.
      if (res.result_int() == 200)
        out.ms.push_back(took);
      else
        ++out.non_200;
      if (!keep_alive || !res.keep_alive())
        stream.reset();
    }
    std::this_thread::sleep_until(next);
  }
  return out;
}

void raise_file_limit() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
}

} // namespace

int main(int argc, char** argv) {
  auto opt = parse(argc, argv);
  raise_file_limit();
  asio::io_context ioc{1};
  flood f{ioc, opt};
  auto guard = asio::make_work_guard(ioc);
  std::thread flood_thread{[&] { ioc.run(); }};
  asio::post(ioc, [&] { f.start(); });

  // Settled: every first connect done and the count of held connections steady for a second
  // (the server's 503s and closes have arrived; refused ones keep coming back, as an attacker
  // would, and are not held).
  auto ask = [&](auto fn) {
    std::promise<decltype(fn())> p;
    auto result = p.get_future();
    asio::post(ioc, [&] { p.set_value(fn()); });
    return result.get();
  };
  auto settle_start = clock_type::now();
  std::size_t last_held = 0;
  int steady = 0;
  while (steady < 10 && clock_type::now() - settle_start < std::chrono::seconds(120)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto [launched, held] = ask([&] { return std::make_pair(f.launched(), f.held()); });
    steady = launched && held == last_held ? steady + 1 : 0;
    last_held = held;
  }
  auto settle_s = std::chrono::duration<double>(clock_type::now() - settle_start).count();
  auto before = ask([&] { return f.counts(); });

  samples kept;
  samples fresh;
  std::thread keep_thread{[&] { kept = probe(opt, true); }};
  std::thread fresh_thread{[&] { fresh = probe(opt, false); }};
  keep_thread.join();
  fresh_thread.join();

  auto after = ask([&] {
    f.stop();
    return f.counts();
  });
  guard.reset();
  ioc.stop();
  flood_thread.join();

  boost::json::object report{{"settle_s", settle_s},
                             {"flood_settled", before},
                             {"flood_end", after},
                             {"keep_alive", kept.summary()},
                             {"new_connection", fresh.summary()}};
  std::printf("%s\n", boost::json::serialize(report).c_str());
  return 0;
}
