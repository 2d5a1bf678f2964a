#include "core/watch_request.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include <boost/json/parse.hpp>

#include "core/api_json.hpp"
#include "core/host_port.hpp"
#include "core/offer_request.hpp"
#include "base/text.hpp"

namespace netherscope::core {

namespace {

constexpr std::array<std::string_view, 4> watch_fields{"host", "port", "periodSeconds", "public"};

constexpr std::string_view period_rule = "periodSeconds must be a whole number of seconds, e.g. 300";

// Characters of a watch id: 12 random bytes in base64url, no padding.
constexpr std::size_t watch_id_length = 16;

// A whole, positive number of seconds; integral doubles (300.0) are accepted as for ports.
std::optional<std::uint32_t> whole_seconds(const boost::json::value& v) {
  constexpr double most = 4294967295.0;
  if (v.is_int64() && v.get_int64() >= 1 && v.get_int64() <= static_cast<std::int64_t>(most))
    return static_cast<std::uint32_t>(v.get_int64());
  if (v.is_uint64() && v.get_uint64() >= 1 && v.get_uint64() <= static_cast<std::uint64_t>(most))
    return static_cast<std::uint32_t>(v.get_uint64());
  if (v.is_double() && v.get_double() >= 1 && v.get_double() <= most
      && v.get_double() == static_cast<double>(static_cast<std::uint32_t>(v.get_double())))
    return static_cast<std::uint32_t>(v.get_double());
  return std::nullopt;
}

} // namespace

std::optional<watch_spec> parse_watch_body(std::string_view body, failure& error) {
  auto parsed = read_object_body(body, R"({"host":"play.example.com","port":19132})", error);
  if (!parsed)
    return std::nullopt;
  auto& obj = *parsed;
  for (auto& field : obj)
    if (std::find(watch_fields.begin(), watch_fields.end(), field.key()) == watch_fields.end()) {
      error = invalid_input("unknown field \"" + valid_utf8(field.key(), 64)
                            + "\": a watch takes host, port, periodSeconds and public");
      return std::nullopt;
    }
  // The target is read by the parser /api/offer and /api/check use, so a watch names a server
  // exactly as a check does; it takes no tls field (refused above), so only host and port.
  target where;
  if (!read_target(obj, where, error))
    return std::nullopt;
  watch_spec spec;
  spec.host = std::move(where.host);
  spec.port = where.port;
  if (auto period = obj.if_contains("periodSeconds"); period != nullptr && !period->is_null()) {
    auto seconds = whole_seconds(*period);
    if (!seconds) {
      error = invalid_input(std::string{period_rule});
      return std::nullopt;
    }
    spec.period_seconds = *seconds;
  }
  if (auto shown = obj.if_contains("public"); shown != nullptr && !shown->is_null()) {
    if (!shown->is_bool()) {
      error = invalid_input("public must be true or false (true lets anyone read the server's "
                            "history and chart)");
      return std::nullopt;
    }
    spec.is_public = shown->as_bool();
  }
  return spec;
}

std::optional<watch_spec> parse_watch_text(std::string_view host, std::string_view port,
                                           std::string_view period_seconds, bool is_public,
                                           failure& error) {
  watch_spec spec;
  spec.is_public = is_public;
  std::string message;
  if (base::trim(host).empty()) {
    error = invalid_input(std::string{host_required});
    return std::nullopt;
  }
  auto normalized = normalize_host(base::trim(host), message);
  if (!normalized) {
    error = invalid_input(message);
    return std::nullopt;
  }
  spec.host = std::move(*normalized);
  if (!base::trim(port).empty()) {
    auto n = parse_port_text(base::trim(port), message);
    if (!n) {
      error = invalid_input(message);
      return std::nullopt;
    }
    spec.port = *n;
  }
  if (auto text = base::trim(period_seconds); !text.empty()) {
    std::uint32_t seconds = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (ec != std::errc{} || end != text.data() + text.size() || seconds == 0) {
      error = invalid_input(std::string{period_rule});
      return std::nullopt;
    }
    spec.period_seconds = seconds;
  }
  return spec;
}

failure check_watch_period(std::uint32_t period_seconds, const watch_bounds& bounds) {
  if (period_seconds >= bounds.min_period_seconds && period_seconds <= bounds.max_period_seconds)
    return {};
  return invalid_input("periodSeconds must be from " + std::to_string(bounds.min_period_seconds)
                       + " to " + std::to_string(bounds.max_period_seconds) + " on this server");
}

bool is_watch_id(std::string_view text) {
  return text.size() == watch_id_length
         && std::all_of(text.begin(), text.end(), [](char c) {
              return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                     || c == '-' || c == '_';
            });
}

} // namespace netherscope::core
