// Measures latency at a fixed request rate, open loop: a request falls due every 1/RATE
// seconds whether or not the earlier ones have been answered, and each latency counts from the
// moment its request fell due. A stall of the service therefore shows in the percentiles
// instead of quietly slowing the load down, as it would with a closed-loop tool such as wrk.
//
//   bench_fixed_rate PORT RATE SECONDS CONNECTIONS PATH [BODY]
//
// Sends GET PATH, or POST PATH with BODY as JSON, to 127.0.0.1:PORT over CONNECTIONS
// keep-alive connections. Prints one JSON line: requests due, answered, non-2xx, failed, and
// the latency percentiles in milliseconds. Exits 1 when any request failed or went unanswered.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using clock_type = std::chrono::steady_clock;

namespace {

/// What the run counted.
struct tally {
  std::vector<double> latencies_ms;
  long non_2xx = 0;
  long failed = 0;
};

/// The requests that fell due and wait for a free connection, in the order they fell due.
struct backlog {
  std::deque<clock_type::time_point> due;
  long issued = 0;
};

/// One keep-alive connection that takes the oldest due request whenever it is free.
class connection : public std::enable_shared_from_this<connection> {
public:
  connection(asio::io_context& ioc, tcp::endpoint ep, const http::request<http::string_body>& req,
             backlog& queue, tally& counts)
    : ep_(ep), stream_(ioc), req_(req), queue_(queue), counts_(counts) {
    // nop
  }

  bool busy() const {
    return busy_;
  }

  /// Takes the oldest due request, if any, connecting first when the connection is closed.
  void next() {
    if (busy_ || queue_.due.empty())
      return;
    busy_ = true;
    due_ = queue_.due.front();
    queue_.due.pop_front();
    if (open_)
      return send();
    stream_.async_connect(ep_, [self = shared_from_this()](beast::error_code ec) {
      if (ec)
        return self->fail();
      self->open_ = true;
      self->send();
    });
  }

private:
  void send() {
    stream_.expires_after(std::chrono::seconds(10));
    http::async_write(stream_, req_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec)
        return self->fail();
      self->res_ = {};
      http::async_read(self->stream_, self->buffer_, self->res_,
                       [self](beast::error_code ec, std::size_t) { self->done(ec); });
    });
  }

  void done(beast::error_code ec) {
    if (ec)
      return fail();
    auto took = std::chrono::duration<double, std::milli>(clock_type::now() - due_).count();
    counts_.latencies_ms.push_back(took);
    if (res_.result_int() / 100 != 2)
      ++counts_.non_2xx;
    busy_ = false;
    if (!res_.keep_alive())
      close();
    next();
  }

  void fail() {
    ++counts_.failed;
    close();
    busy_ = false;
    next();
  }

  // A closed socket is opened again by the next connect.
  void close() {
    beast::error_code ignored;
    stream_.socket().close(ignored);
    buffer_.clear();
    open_ = false;
  }

  tcp::endpoint ep_;
  beast::tcp_stream stream_;
  const http::request<http::string_body>& req_;
  http::response<http::string_body> res_;
  beast::flat_buffer buffer_;
  backlog& queue_;
  tally& counts_;
  clock_type::time_point due_;
  bool busy_ = false;
  bool open_ = false;
};

double percentile(const std::vector<double>& sorted, double share) {
  if (sorted.empty())
    return 0;
  auto at = static_cast<std::size_t>(share * static_cast<double>(sorted.size() - 1));
  return sorted[at];
}

long whole_number(const char* text, long low, long high) {
  char* end = nullptr;
  auto value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < low || value > high) {
    std::fprintf(stderr, "bench_fixed_rate: '%s' is not a whole number from %ld to %ld\n", text,
                 low, high);
    std::exit(2);
  }
  return value;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr,
                 "usage: bench_fixed_rate PORT RATE SECONDS CONNECTIONS PATH [JSON_BODY]\n");
    return 2;
  }
  auto port = static_cast<unsigned short>(whole_number(argv[1], 1, 65535));
  auto rate = whole_number(argv[2], 1, 1000000);
  auto seconds = whole_number(argv[3], 1, 3600);
  auto connections = whole_number(argv[4], 1, 4096);

  http::request<http::string_body> req{argc == 7 ? http::verb::post : http::verb::get, argv[5],
                                       11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  req.set(http::field::user_agent, "netherscope-bench-fixed-rate");
  req.keep_alive(true);
  if (argc == 7) {
    req.set(http::field::content_type, "application/json");
    req.body() = argv[6];
  }
  req.prepare_payload();

  asio::io_context ioc{1};
  tcp::endpoint ep{asio::ip::make_address_v4("127.0.0.1"), port};
  backlog queue;
  tally counts;
  counts.latencies_ms.reserve(static_cast<std::size_t>(rate * seconds));
  std::vector<std::shared_ptr<connection>> pool;
  for (long i = 0; i < connections; ++i)
    pool.push_back(std::make_shared<connection>(ioc, ep, req, queue, counts));

  // Each wake-up adds the requests that fell due since the last one, each stamped with the
  // moment it fell due, not the moment the timer ran; the timer is set for the next one.
  auto start = clock_type::now();
  auto total = rate * seconds;
  auto interval = std::chrono::duration<double>(1.0 / static_cast<double>(rate));
  auto due_at = [&](long n) {
    return start + std::chrono::duration_cast<clock_type::duration>(interval * static_cast<double>(n));
  };
  asio::steady_timer tick{ioc};
  auto drain_until = start + std::chrono::seconds(seconds + 10);
  std::function<void()> on_tick = [&] {
    auto now = clock_type::now();
    while (queue.issued < total && due_at(queue.issued) <= now) {
      queue.due.push_back(due_at(queue.issued));
      ++queue.issued;
    }
    for (auto& c : pool)
      c->next();
    auto answered = static_cast<long>(counts.latencies_ms.size()) + counts.failed;
    if ((queue.issued == total && answered == total) || now > drain_until)
      return ioc.stop();
    if (queue.issued < total)
      tick.expires_at(due_at(queue.issued));
    else
      tick.expires_after(std::chrono::milliseconds(10));
    tick.async_wait([&](beast::error_code) { on_tick(); });
  };
  on_tick();
  ioc.run();

  auto& lat = counts.latencies_ms;
  std::sort(lat.begin(), lat.end());
  auto unanswered = total - static_cast<long>(lat.size()) - counts.failed;
  std::printf("{\"due\":%ld,\"answered\":%zu,\"non2xx\":%ld,\"failed\":%ld,\"unanswered\":%ld,"
              "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f}\n",
              total, lat.size(), counts.non_2xx, counts.failed, unanswered, percentile(lat, 0.50),
              percentile(lat, 0.90), percentile(lat, 0.99), percentile(lat, 0.999),
              lat.empty() ? 0.0 : lat.back());
  return counts.failed == 0 && unanswered == 0 ? 0 : 1;
}
