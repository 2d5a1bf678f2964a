#include "net/http/wire.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/chunk_encode.hpp>

namespace netherscope::net::http {

namespace beast = boost::beast;

namespace {

template <class ConstBufferSequence>
void append_buffers(const ConstBufferSequence& buffers, std::string& out) {
  for (auto b : beast::buffers_range_ref(buffers))
    out.append(static_cast<const char*>(b.data()), b.size());
}

} // namespace

void write_wire(const beast::http::response<beast::http::string_body>& res, std::string& out) {
  out.clear();
  auto version = res.version();
  out += "HTTP/";
  out += static_cast<char>('0' + version / 10 % 10);
  out += '.';
  out += static_cast<char>('0' + version % 10);
  out += ' ';
  // A three-digit code, as Beast writes it.
  auto code = res.result_int();
  out += static_cast<char>('0' + code / 100 % 10);
  out += static_cast<char>('0' + code / 10 % 10);
  out += static_cast<char>('0' + code % 10);
  out += ' ';
  auto reason = res.reason();
  if (reason.empty())
    reason = beast::http::obsolete_reason(res.result());
  out.append(reason.data(), reason.size());
  out += "\r\n";
  for (const auto& field : res) {
    auto name = field.name_string();
    auto value = field.value();
    out.append(name.data(), name.size());
    out += ": ";
    out.append(value.data(), value.size());
    out += "\r\n";
  }
  out += "\r\n";
  out += res.body();
}

void append_chunk(std::string_view data, std::string& out) {
  append_buffers(beast::http::make_chunk(boost::asio::const_buffer(data.data(), data.size())), out);
}

void append_last_chunk(std::string& out) {
  append_buffers(beast::http::make_chunk_last(), out);
}

} // namespace netherscope::net::http
