#include "net/http/wire.hpp"

namespace netherscope::net::http {

namespace beast = boost::beast;

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

} // namespace netherscope::net::http
