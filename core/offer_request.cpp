#include "core/offer_request.hpp"

#include <algorithm>

#include <boost/json/parse.hpp>

#include "base/crypto.hpp"
#include "base/text.hpp"
#include "core/host_port.hpp"

namespace netherscope::core {

namespace {

constexpr std::string_view max_uint64 = "18446744073709551615";

// Reads expectPorts: an array of at most max_expected_ports port numbers.
bool read_expected_ports(const boost::json::value& v, std::vector<std::uint16_t>& out,
                         failure& error) {
  auto shape = "expectPorts must be an array of at most " + std::to_string(max_expected_ports)
               + " UDP port numbers, e.g. [19132, 19133]";
  if (!v.is_array() || v.get_array().size() > max_expected_ports) {
    error = invalid_input(std::move(shape));
    return false;
  }
  auto& items = v.get_array();
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto port = port_number(items[i]);
    if (!port) {
      error = invalid_input("expectPorts[" + std::to_string(i)
                      + "] must be an integer from 1 to 65535");
      return false;
    }
    out.push_back(*port);
  }
  return true;
}

} // namespace

// Integral doubles (19132.0) are accepted: some JSON writers emit every number so.
std::optional<std::uint16_t> port_number(const boost::json::value& v) {
  if (v.is_int64() && v.get_int64() >= 1 && v.get_int64() <= 65535)
    return static_cast<std::uint16_t>(v.get_int64());
  if (v.is_uint64() && v.get_uint64() >= 1 && v.get_uint64() <= 65535)
    return static_cast<std::uint16_t>(v.get_uint64());
  if (v.is_double() && v.get_double() >= 1 && v.get_double() <= 65535
      && v.get_double() == static_cast<double>(static_cast<int>(v.get_double())))
    return static_cast<std::uint16_t>(v.get_double());
  return std::nullopt;
}

bool read_target(const boost::json::object& obj, target& where, failure& error) {
  auto host = obj.if_contains("host");
  if (host == nullptr || host->is_null()) {
    error = invalid_input(std::string{host_required});
    return false;
  }
  if (!host->is_string()) {
    error = invalid_input("host must be a string");
    return false;
  }
  std::string message;
  auto normalized = normalize_host(host->as_string(), message);
  if (!normalized) {
    error = invalid_input(message);
    return false;
  }
  where.host = std::move(*normalized);

  if (auto port = obj.if_contains("port"); port != nullptr && !port->is_null()) {
    auto n = port_number(*port);
    if (!n) {
      error = invalid_input("port must be an integer from 1 to 65535");
      return false;
    }
    where.port = *n;
  }

  if (auto tls = obj.if_contains("tls"); tls != nullptr && !tls->is_null()) {
    if (!tls->is_bool()) {
      error = invalid_input("tls must be true or false (omit it to auto-detect)");
      return false;
    }
    where.tls = tls->as_bool() ? tls_mode::on : tls_mode::off;
  }
  return true;
}

bool is_json_media_type(std::string_view content_type) {
  return base::iequals(base::trim(content_type.substr(0, content_type.find(';'))), "application/json");
}

bool is_valid_network_id(std::string_view text) {
  if (text.empty() || text.size() > max_uint64.size())
    return false;
  if (!std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  // Same length as the maximum: compare as text, which orders digits numerically.
  return text.size() < max_uint64.size() || text <= max_uint64;
}

std::optional<boost::json::object> read_object_body(std::string_view body, std::string_view example,
                                                    failure& error) {
  boost::system::error_code ec;
  auto value = boost::json::parse(body, ec);
  if (ec || !value.is_object()) {
    error = invalid_input("the body must be a JSON object such as " + std::string{example});
    return std::nullopt;
  }
  return std::move(value.as_object());
}

std::optional<offer_request> parse_offer_body(std::string_view body, failure& error) {
  auto parsed = read_object_body(body, R"({"host":"play.example.com"})", error);
  if (!parsed)
    return std::nullopt;
  auto& obj = *parsed;
  offer_request req;

  if (!read_target(obj, req.where, error))
    return std::nullopt;

  if (auto nid = obj.if_contains("networkId"); nid != nullptr && !nid->is_null()) {
    if (nid->is_number()) {
      error = invalid_input("networkId must be a string of 1 to 20 digits, e.g. \"12345\": "
                      "numbers past 2^53 lose precision in JavaScript");
      return std::nullopt;
    }
    if (!nid->is_string() || !is_valid_network_id(nid->as_string())) {
      error = invalid_input("networkId must be a string of 1 to 20 decimal digits that fits in an "
                      "unsigned 64-bit integer (at most 18446744073709551615)");
      return std::nullopt;
    }
    req.network_id = std::string{nid->as_string()};
  }

  if (auto fresh = obj.if_contains("fresh"); fresh != nullptr && !fresh->is_null()) {
    if (!fresh->is_bool()) {
      error = invalid_input("fresh must be true or false");
      return std::nullopt;
    }
    req.fresh = fresh->as_bool();
  }

  if (auto probe = obj.if_contains("probe"); probe != nullptr && !probe->is_null()) {
    if (!probe->is_bool()) {
      error = invalid_input("probe must be true or false (true checks each UDP candidate for "
                      "reachability)");
      return std::nullopt;
    }
    req.probe = probe->as_bool();
  }

  if (auto ports = obj.if_contains("expectPorts"); ports != nullptr && !ports->is_null()) {
    if (!read_expected_ports(*ports, req.expect_ports, error))
      return std::nullopt;
  }
  return req;
}

std::string random_network_id() {
  auto bytes = base::random_bytes(8);
  std::uint64_t value = 0;
  if (bytes) {
    for (unsigned char c : *bytes)
      value = (value << 8) | c;
  }
  // Zero is a valid uint64 but looks like "unset" to some servers; never send it.
  if (value == 0)
    value = 1;
  return std::to_string(value);
}

} // namespace netherscope::core
