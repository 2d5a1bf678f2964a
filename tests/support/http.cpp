#include "support/http.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace netherscope::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

template <class Stream>
void exchange(Stream& stream, http::request<http::string_body>& req, http_reply& out,
              beast::flat_buffer& buffer,
              http::response_parser<http::string_body>& parser) {
  http::async_write(stream, req, [&](beast::error_code ec, std::size_t) {
    if (ec) {
      out.error = "write: " + ec.message();
      return;
    }
    http::async_read(stream, buffer, parser, [&](beast::error_code ec, std::size_t) {
      if (ec) {
        out.error = "read: " + ec.message();
        return;
      }
      auto& res = parser.get();
      out.status = static_cast<int>(res.result_int());
      for (auto& field : res) {
        out.headers[lower(std::string{field.name_string()})] = std::string{field.value()};
        if (field.name() == http::field::set_cookie)
          out.set_cookies.emplace_back(field.value());
      }
      out.body = res.body();
    });
  });
}

} // namespace

std::string http_reply::header(const std::string& lower_name) const {
  auto i = headers.find(lower_name);
  return i == headers.end() ? std::string{} : i->second;
}

boost::json::value http_reply::json() const {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  return ec ? boost::json::value{} : value;
}

std::string http_reply::code() const {
  auto value = json();
  if (!value.is_object() || !value.as_object().contains("code") || !value.at("code").is_string())
    return {};
  return std::string{value.at("code").as_string()};
}

http_reply http_request(unsigned port, const std::string& method, const std::string& target,
                        const header_list& headers, const std::string& body,
                        std::chrono::milliseconds timeout, bool tls) {
  http_reply out;
  asio::io_context ioc;
  asio::ssl::context ssl_ctx{asio::ssl::context::tls_client};
  ssl_ctx.set_verify_mode(asio::ssl::verify_none);
  beast::tcp_stream plain{ioc};
  beast::ssl_stream<beast::tcp_stream> secure{ioc, ssl_ctx};
  tcp::endpoint ep{asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)};
  http::request<http::string_body> req{http::string_to_verb(method), target, 11};
  req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
  for (auto& [name, value] : headers)
    req.set(name, value);
  if (!body.empty() || method == "POST") {
    req.body() = body;
    req.prepare_payload();
  }
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16 * 1024 * 1024);
  auto& lowest = tls ? beast::get_lowest_layer(secure) : plain;
  lowest.async_connect(ep, [&](beast::error_code ec) {
    if (ec) {
      out.error = "connect: " + ec.message();
      return;
    }
    if (!tls)
      return exchange(plain, req, out, buffer, parser);
    secure.async_handshake(asio::ssl::stream_base::client, [&](beast::error_code ec) {
      if (ec) {
        out.error = "handshake: " + ec.message();
        return;
      }
      exchange(secure, req, out, buffer, parser);
    });
  });
  ioc.run_for(timeout);
  if (out.status == 0 && out.error.empty())
    out.error = "timeout";
  return out;
}

std::string raw_exchange(unsigned port, const std::string& bytes,
                         std::chrono::milliseconds timeout) {
  asio::io_context ioc;
  tcp::socket socket{ioc};
  std::string received;
  std::array<char, 4096> buf;
  std::function<void()> read_more;
  read_more = [&] {
    socket.async_read_some(asio::buffer(buf), [&](beast::error_code ec, std::size_t n) {
      received.append(buf.data(), n);
      if (!ec)
        read_more();
    });
  };
  tcp::endpoint ep{asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)};
  socket.async_connect(ep, [&](beast::error_code ec) {
    if (ec)
      return;
    asio::async_write(socket, asio::buffer(bytes), [&](beast::error_code ec, std::size_t) {
      if (!ec)
        read_more();
    });
  });
  ioc.run_for(timeout);
  return received;
}

service_process::service_process(std::vector<std::string> extra_args,
                                 std::vector<std::string> env, bool allow_loopback,
                                 std::string data_dir)
  : data_dir_(data_dir.empty() ? data_.path() : std::move(data_dir)) {
  std::vector<std::string> argv{NETHERSCOPE_BIN, "--port", "0", "--data-dir", data_dir_,
                                "--log-level", "info"};
  if (allow_loopback)
    argv.push_back("--allow-loopback");
  // A test that stops the service with SIGTERM means "now" unless it asks for the drain.
  if (std::find(extra_args.begin(), extra_args.end(), "--shutdown-drain-ms") == extra_args.end())
    argv.insert(argv.end(), {"--shutdown-drain-ms", "0"});
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  proc_ = std::make_unique<child_process>(argv, env);
  auto line = proc_->wait_for_line(
    [](const std::string& l) {
      return l.find("\"event\":\"listening\"") != std::string::npos
             || l.find("startup_failed") != std::string::npos;
    },
    std::chrono::seconds(20));
  if (!line || line->find("listening") == std::string::npos)
    throw std::runtime_error("netherscope did not start: " + line.value_or("(no output)"));
  port_ = port_from_line(*line);
}

fake_target_process::fake_target_process(std::vector<std::string> args) {
  // Every fake in one test run gets a port no earlier fake had. A service outlives the fakes
  // a test starts one after another, and it remembers targets by host and port (the offer
  // cache, the scheme and identity memory): a port the kernel handed out again would make the
  // new fake look like the old one, and the test would read the old one's cached answer. A
  // test that names the port (--port) wants exactly that, and gets it.
  static std::mutex mutex;
  static std::set<unsigned> used;
  bool chosen = std::find(args.begin(), args.end(), "--port") != args.end();
  std::vector<std::string> argv{FAKE_TARGET_BIN};
  argv.insert(argv.end(), args.begin(), args.end());
  for (int attempt = 0; attempt < 8; ++attempt) {
    proc_ = std::make_unique<child_process>(argv);
    auto line = proc_->wait_for_line(
      [](const std::string& l) { return l.find("\"event\":\"listening\"") != std::string::npos; },
      std::chrono::seconds(20));
    if (!line)
      throw std::runtime_error("fake_target did not start");
    port_ = port_from_line(*line);
    if (auto at = line->find("\"stats_port\":"); at != std::string::npos)
      stats_port_ = static_cast<unsigned>(std::strtoul(line->c_str() + at + 13, nullptr, 10));
    std::lock_guard<std::mutex> guard{mutex};
    if (used.insert(port_).second || chosen)
      return;
  }
  throw std::runtime_error("fake_target got only ports earlier fakes had");
}

boost::json::object fake_target_process::stats(bool tls) {
  auto reply = http_request(stats_port(), "GET", "/_fake/stats", {}, {}, std::chrono::seconds(10),
                            tls);
  auto value = reply.json();
  if (!value.is_object())
    throw std::runtime_error("fake_target stats unreadable: " + reply.error + reply.body);
  return value.as_object();
}

std::string run_admin(const std::string& data_dir, std::vector<std::string> args) {
  std::vector<std::string> argv{NETHERSCOPE_BIN, "admin", "--data-dir", data_dir};
  argv.insert(argv.end(), args.begin(), args.end());
  child_process admin{argv};
  auto status = admin.wait(std::chrono::seconds(20));
  admin.wait_for_line([](const std::string&) { return false; }, std::chrono::seconds(2));
  std::string out;
  for (auto& line : admin.lines())
    out += line + "\n";
  if (status != 0)
    throw std::runtime_error("netherscope admin failed: " + out);
  return out;
}

http_reply get_info(const service_process& svc, const std::string& query,
                    std::chrono::milliseconds timeout) {
  return http_request(svc.port(), "GET", "/api/info?" + query, {}, {}, timeout);
}

http_reply offer_call(const service_process& svc, unsigned target_port,
                      const header_list& extra_headers) {
  header_list headers{{"Content-Type", "application/json"}};
  headers.insert(headers.end(), extra_headers.begin(), extra_headers.end());
  auto body = R"({"host":"127.0.0.1","port":)" + std::to_string(target_port) + "}";
  return http_request(svc.port(), "POST", "/api/offer", headers, body, std::chrono::seconds(30));
}

http_reply post_offer(const service_process& svc, unsigned target_port,
                      const std::string& extra_fields) {
  auto body = R"({"host":"127.0.0.1","port":)" + std::to_string(target_port) + extra_fields + "}";
  return http_request(svc.port(), "POST", "/api/offer", {{"Content-Type", "application/json"}},
                      body, std::chrono::seconds(30));
}

boost::json::object body_of(const http_reply& reply) {
  auto value = reply.json();
  return value.is_object() ? value.as_object() : boost::json::object{};
}

std::string error_text(const http_reply& reply) {
  auto body = body_of(reply);
  if (!body.contains("error") || !body.at("error").is_string())
    return {};
  return std::string{body.at("error").as_string()};
}

long long remaining(const http_reply& reply) {
  auto text = reply.header("x-ratelimit-remaining");
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoll(text);
}

std::string shown(const http_reply& reply) {
  if (!reply.error.empty())
    return "no response: " + reply.error;
  auto body = body_of(reply);
  if (body.contains("answer") && body.at("answer").is_string())
    body["answer"] = "(" + std::to_string(body.at("answer").as_string().size()) + " chars)";
  auto text = body.empty() ? reply.body : boost::json::serialize(body);
  return text.size() > 3000 ? text.substr(0, 3000) + "..." : text;
}

std::int64_t stat(fake_target_process& fake, const char* name, bool tls) {
  return fake.stats(tls).at(name).to_number<std::int64_t>();
}

unsigned unused_port() {
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc, {asio::ip::make_address("127.0.0.1"), 0}};
  return acceptor.local_endpoint().port();
}

bool served_from_cache(const http_reply& reply) {
  auto body = reply.json();
  return body.is_object() && body.as_object().contains("cached")
         && body.as_object().at("cached") == true;
}

std::optional<std::int64_t> metric(const service_process& svc, const std::string& series) {
  auto reply = http_request(svc.port(), "GET", "/metrics", {}, {}, std::chrono::seconds(10));
  if (reply.status != 200)
    return std::nullopt;
  auto prefix = "\n" + series + " ";
  auto text = "\n" + reply.body;
  auto at = text.find(prefix);
  if (at == std::string::npos)
    return std::nullopt;
  return std::strtoll(text.c_str() + at + prefix.size(), nullptr, 10);
}

} // namespace netherscope::test
