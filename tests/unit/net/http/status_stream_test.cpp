// POST /api/status's streamed reply at the edge, over real sockets on loopback: the server of
// net/http with a call sink the test answers itself, playing the actors' part (the head
// through the reply, then the lines from other threads, with pauses).
#include <catch2/catch.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/parse.hpp>

#include "net/http/listener.hpp"
#include "support/rooms.hpp"
#include "support/wait.hpp"

using namespace netherscope::test;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr auto patience = 5s;

/// The edge on one io thread, its calls held by the test until it answers them.
class edge_server {
public:
  explicit edge_server(server_settings settings = {}) : ctx_(settings, "{}") {
    ctx_.set_call_sinks({[this](api_call&& call) {
      std::lock_guard<std::mutex> guard{mutex_};
      calls_.push_back(std::move(call));
      arrived_.notify_all();
    }});
    boost::system::error_code ec;
    listener_ = std::make_shared<listener>(
      ioc_, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0}, ctx_, ec);
    REQUIRE_FALSE(ec);
    listener_->run();
    thread_ = std::thread([this] { ioc_.run(); });
  }

  ~edge_server() {
    listener_->stop();
    ioc_.stop();
    thread_.join();
    // The calls' callbacks hold sessions and the pending calls: they go before the context.
    calls_.clear();
    ctx_.set_call_sinks({});
  }

  edge_server(const edge_server&) = delete;
  edge_server& operator=(const edge_server&) = delete;

  unsigned short port() const {
    return listener_->local_endpoint().port();
  }

  /// The next call the edge handed on.
  api_call next_call() {
    std::unique_lock<std::mutex> lock{mutex_};
    REQUIRE(arrived_.wait_for(lock, patience, [&] { return !calls_.empty(); }));
    auto call = std::move(calls_.front());
    calls_.pop_front();
    return call;
  }

  /// Runs f on the io thread and blocks that thread until the returned release is called:
  /// whatever the actors hand on meanwhile is taken by the io thread in one batch.
  std::function<void()> hold_io_thread() {
    auto gate = std::make_shared<std::promise<void>>();
    auto held = std::make_shared<std::promise<void>>();
    asio::post(ioc_, [gate, held] {
      held->set_value();
      gate->get_future().wait();
    });
    held->get_future().wait();
    return [gate] { gate->set_value(); };
  }

  server_context& context() {
    return ctx_;
  }

private:
  server_context ctx_;
  // Declared after the context, so destroyed before it: the sessions it still holds
  // release their connection slots into the context.
  asio::io_context ioc_{1};
  std::shared_ptr<listener> listener_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<api_call> calls_;
};

/// A client connection with a deadline on every read.
class client {
public:
  explicit client(unsigned short port) {
    stream_.expires_after(patience);
    stream_.connect(tcp::endpoint{asio::ip::make_address("127.0.0.1"), port});
  }

  void send(const std::string& bytes) {
    asio::write(stream_.socket(), asio::buffer(bytes));
  }

  /// Reads into the parser until done(), or fails the test after the deadline.
  template <class Parser, class Done>
  void read_until(Parser& parser, Done done, std::chrono::milliseconds deadline = patience) {
    while (!done()) {
      boost::system::error_code result = asio::error::would_block;
      stream_.expires_after(deadline);
      http::async_read_some(stream_, buffer_, parser,
                            [&](boost::system::error_code ec, std::size_t) { result = ec; });
      ioc_.restart();
      ioc_.run();
      INFO(result.message());
      REQUIRE_FALSE(result);
    }
  }

  /// Reads raw bytes until text holds what, or the connection ends (eof is set).
  std::string read_raw_until(std::string_view what, bool& eof) {
    std::string text;
    eof = false;
    while (text.find(what) == std::string::npos) {
      char chunk[4096];
      boost::system::error_code result = asio::error::would_block;
      std::size_t got = 0;
      stream_.expires_after(patience);
      stream_.async_read_some(asio::buffer(chunk), [&](boost::system::error_code ec, std::size_t n) {
        result = ec;
        got = n;
      });
      ioc_.restart();
      ioc_.run();
      text.append(chunk, got);
      if (result == asio::error::eof) {
        eof = true;
        break;
      }
      INFO(result.message());
      REQUIRE_FALSE(result);
    }
    return text;
  }

  /// Reads one whole response.
  http::response<http::string_body> read_response() {
    http::response_parser<http::string_body> parser;
    read_until(parser, [&] { return parser.is_done(); });
    return parser.release();
  }

  void close() {
    boost::system::error_code ignored;
    stream_.socket().close(ignored);
  }

private:
  asio::io_context ioc_;
  beast::tcp_stream stream_{ioc_};
  beast::flat_buffer buffer_;
};

/// Beast's parser for a chunked response, with the size of each chunk it read.
struct chunked_reader {
  http::response_parser<http::string_body> parser;
  std::vector<std::uint64_t> chunk_sizes;
  std::function<void(std::uint64_t, beast::string_view, boost::system::error_code&)> on_chunk
    = [this](std::uint64_t size, beast::string_view, boost::system::error_code&) {
        chunk_sizes.push_back(size);
      };

  chunked_reader() {
    parser.on_chunk_header(on_chunk);
  }
  chunked_reader(const chunked_reader&) = delete;
  chunked_reader& operator=(const chunked_reader&) = delete;
};

std::string status_post(const std::string& body, const std::string& version = "1.1") {
  return "POST /api/status HTTP/" + version + "\r\nHost: 127.0.0.1\r\n"
         "Content-Type: application/json\r\nContent-Length: "
         + std::to_string(body.size()) + "\r\n\r\n" + body;
}

const std::string two_targets
  = R"({"targets":[{"host":"a.example"},{"host":"b.example","port":19133}]})";

/// Sends POST /api/status for two_targets on c and takes its call.
api_call post_two_targets(edge_server& server, client& c, const std::string& version = "1.1") {
  c.send(status_post(two_targets, version));
  return server.next_call();
}

/// The head the actors give: a stream, with the quota as it stood.
api_outcome stream_head() {
  api_outcome head;
  head.streaming = true;
  head.has_quota = true;
  head.quota.limit = 200;
  head.quota.remaining = 198;
  head.quota.reset = 1798761600;
  return head;
}

std::string line_for(const char* host) {
  return std::string{R"({"ok":true,"online":true,"host":")"} + host + R"(","port":19132})";
}

/// Calls a call's lines from another thread after a pause, as an actor would.
void send_line_later(api_call& call, std::string line, bool last,
                     std::chrono::milliseconds pause = 50ms) {
  std::thread([lines = call.lines, line = std::move(line), last, pause]() mutable {
    std::this_thread::sleep_for(pause);
    lines(std::move(line), last);
  }).join();
}

std::size_t metric_route(std::string_view name) {
  for (std::size_t i = 0; i < metric_routes.size(); ++i)
    if (metric_routes[i] == name)
      return i;
  FAIL("no metric route " << name);
  return 0;
}

} // namespace

TEST_CASE("status stream: lines reach the client as they come, chunked, and a pipelined "
          "request is answered after the stream",
          "[status_stream]") {
  server_settings settings;
  // Shorter than the pause between lines: a stream that is owed keeps the connection.
  settings.read_timeout = 300ms;
  edge_server server{settings};
  client c{server.port()};
  c.send(status_post(two_targets) + "GET /api/info?host=c.example HTTP/1.1\r\nHost: x\r\n\r\n");

  auto batch = server.next_call();
  CHECK(batch.kind == call_kind::status_batch);
  REQUIRE(batch.batch.size() == 2);
  CHECK(batch.batch[1].where.port == 19133);
  REQUIRE(batch.reply);
  REQUIRE(batch.lines);
  auto info = server.next_call();
  CHECK(info.kind == call_kind::info);
  CHECK_FALSE(info.lines);
  // The info call finishes first; its response still waits for the stream before it.
  api_outcome info_ok;
  info_ok.body = R"({"ok":true,"info":null})";
  info.reply(std::move(info_ok));

  batch.reply(stream_head());
  chunked_reader reader;
  auto& parser = reader.parser;
  auto& chunk_sizes = reader.chunk_sizes;
  c.read_until(parser, [&] { return parser.is_header_done(); });
  auto& head = parser.get();
  CHECK(head.result() == http::status::ok);
  CHECK(head[http::field::content_type] == "application/x-ndjson");
  CHECK(head.chunked());
  CHECK(head.find(http::field::content_length) == head.end());
  CHECK(head[http::field::cache_control] == "no-store");
  CHECK(head["X-Content-Type-Options"] == "nosniff");
  CHECK(head[http::field::access_control_allow_origin] == "*");
  CHECK(head["X-RateLimit-Remaining"] == "198");
  CHECK_FALSE(head["X-Request-Id"].empty());
  CHECK(head.keep_alive());

  auto first = line_for("a.example");
  auto last = line_for("b.example");
  send_line_later(batch, first, false, 500ms);
  // The first line is read before the last one is sent.
  c.read_until(parser, [&] { return parser.get().body() == first + "\n"; });
  CHECK_FALSE(parser.is_done());
  send_line_later(batch, last, true);
  c.read_until(parser, [&] { return parser.is_done(); });
  CHECK(parser.get().body() == first + "\n" + last + "\n");
  // A chunk per line, then the last chunk.
  CHECK(chunk_sizes == std::vector<std::uint64_t>{first.size() + 1, last.size() + 1, 0});
  // Each line parses as JSON on its own.
  CHECK(boost::json::parse(first).as_object().at("host") == "a.example");

  // Then the pipelined response, in order, on the same connection.
  auto next = c.read_response();
  CHECK(next.result() == http::status::ok);
  CHECK(next.body() == R"({"ok":true,"info":null})");

  // The stream is counted once it ended, as a 2xx of its route.
  INFO("the stream is counted");
  CHECK(wait_until([&] { return server.context().requests.get(metric_route("/api/status"), 0) == 1; },
                   2s));
  CHECK(wait_until([&] { return server.context().in_flight.load() == 0; }, 2s));
  // Lines after the last are dropped.
  batch.lines("{\"late\":true}", false);
  batch.lines("{\"late\":true}", true);
}

TEST_CASE("status stream: lines that wait while the edge is busy leave as one chunk",
          "[status_stream]") {
  edge_server server;
  client c{server.port()};
  auto batch = post_two_targets(server, c);
  {
    // The head and the lines reach the io thread together.
    auto release = server.hold_io_thread();
    batch.reply(stream_head());
    batch.lines(line_for("a.example"), false);
    batch.lines(line_for("b.example"), false);
    batch.lines(line_for("c.example"), true);
    release();
  }
  chunked_reader reader;
  auto& parser = reader.parser;
  auto& chunk_sizes = reader.chunk_sizes;
  c.read_until(parser, [&] { return parser.is_done(); });
  auto body = line_for("a.example") + "\n" + line_for("b.example") + "\n" + line_for("c.example")
              + "\n";
  CHECK(parser.get().body() == body);
  // One chunk of the three lines, then the last chunk.
  CHECK(chunk_sizes == std::vector<std::uint64_t>{body.size(), 0});
}

TEST_CASE("status stream: an HTTP/1.0 client gets the lines unframed, ended by the close",
          "[status_stream]") {
  edge_server server;
  client c{server.port()};
  auto batch = post_two_targets(server, c, "1.0");
  batch.reply(stream_head());
  auto first = line_for("a.example");
  send_line_later(batch, first, false);
  bool eof = false;
  auto seen = c.read_raw_until(first + "\n", eof);
  REQUIRE_FALSE(eof);
  auto end_of_head = seen.find("\r\n\r\n");
  REQUIRE(end_of_head != std::string::npos);
  auto head = seen.substr(0, end_of_head + 4);
  CHECK_THAT(head, Catch::StartsWith("HTTP/1.0 200 OK\r\n"));
  CHECK_THAT(head, Catch::Contains("Content-Type: application/x-ndjson\r\n"));
  CHECK_THAT(head, Catch::Contains("Connection: close\r\n"));
  CHECK_THAT(head, !Catch::Contains("Transfer-Encoding") && !Catch::Contains("Content-Length"));
  CHECK_THAT(head, Catch::Contains("X-RateLimit-Limit: 200\r\n"));
  CHECK(seen.substr(head.size()) == first + "\n");

  auto last = line_for("b.example");
  send_line_later(batch, last, true);
  seen += c.read_raw_until("never in the reply", eof);
  CHECK(eof);
  CHECK(seen.substr(head.size()) == first + "\n" + last + "\n");
}

TEST_CASE("status stream: a batch's error is a plain JSON error, and no line follows it",
          "[status_stream]") {
  edge_server server;
  client c{server.port()};
  c.send(status_post(two_targets) + status_post(two_targets));
  auto refused = server.next_call();
  auto served = server.next_call();
  api_outcome error;
  error.error = make_failure(error_code::quota_exhausted, "no calls left this month");
  error.error.retry_after = 30;
  refused.reply(std::move(error));
  // Lines for a reply that was no stream are dropped, as are those of a lost callback.
  refused.lines(line_for("a.example"), true);
  refused = api_call{};

  auto res = c.read_response();
  CHECK(res.result() == http::status::too_many_requests);
  CHECK(res[http::field::content_type] == "application/json");
  CHECK_FALSE(res.chunked());
  CHECK(res[http::field::retry_after] == "30");
  CHECK(boost::json::parse(res.body()).as_object().at("code") == "quota_exhausted");

  // The connection goes on: the next request's stream follows.
  served.reply(stream_head());
  served.lines(line_for("a.example"), true);
  res = c.read_response();
  CHECK(res.result() == http::status::ok);
  CHECK(res.body() == line_for("a.example") + "\n");
}

TEST_CASE("status stream: a stream the actors drop ends with an error line", "[status_stream]") {
  edge_server server;
  client c{server.port()};
  auto batch = post_two_targets(server, c);
  batch.reply(stream_head());
  send_line_later(batch, line_for("a.example"), false);
  // The actor goes away without the last line.
  batch = api_call{};
  auto res = c.read_response();
  CHECK(res.result() == http::status::ok);
  auto body = res.body();
  REQUIRE(body.size() > 1);
  CHECK(body.back() == '\n');
  auto first = line_for("a.example") + "\n";
  REQUIRE(body.substr(0, first.size()) == first);
  auto error = boost::json::parse(body.substr(first.size())).as_object();
  CHECK(error.at("ok") == false);
  CHECK(error.at("code") == "unavailable");
  INFO("the stream's slot is done");
  CHECK(wait_until([&] { return server.context().in_flight.load() == 0; }, patience));
}

TEST_CASE("status stream: a client that leaves mid-stream leaves the service healthy",
          "[status_stream]") {
  edge_server server;
  {
    client c{server.port()};
    auto batch = post_two_targets(server, c);
    batch.reply(stream_head());
    send_line_later(batch, line_for("a.example"), false);
    http::response_parser<http::string_body> parser;
    c.read_until(parser, [&] { return !parser.get().body().empty(); });
    c.close();
    // The actors go on and finish; the lines have nowhere to go and are dropped.
    for (int i = 0; i < 3; ++i)
      send_line_later(batch, std::string(64 * 1024, 'x'), false, 20ms);
    send_line_later(batch, line_for("b.example"), true);
    INFO("the connection is closed and its call no longer counted in flight");
    CHECK(wait_until([&] { return server.context().in_flight.load() == 0; }, patience));
  }
  INFO("the session is gone once the actors let go of its callbacks");
  CHECK(wait_until([&] { return server.context().connections.load() == 0; }, patience));

  // A new client is served as before.
  client again{server.port()};
  again.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  CHECK(again.read_response().result() == http::status::ok);
}

TEST_CASE("status stream: a client that stops reading is closed by the write timeout",
          "[status_stream]") {
  server_settings settings;
  settings.write_timeout = 300ms;
  edge_server server{settings};
  client c{server.port()};
  auto batch = post_two_targets(server, c);
  batch.reply(stream_head());
  // More than loopback's socket buffers hold, never read: a write waits, then times out.
  auto line = std::string(1024 * 1024, 'x');
  for (int i = 0; i < 64 && server.context().in_flight.load() != 0; ++i)
    send_line_later(batch, line, false, 10ms);
  INFO("the stream's slot is done once its write failed");
  CHECK(wait_until([&] { return server.context().in_flight.load() == 0; }, patience));
  batch = api_call{};
  CHECK(wait_until([&] { return server.context().connections.load() == 0; }, patience));
}
