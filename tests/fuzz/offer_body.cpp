// Fuzzes the JSON bodies of POST /api/offer and POST /api/join: any bytes give either a request
// whose every field is within its rules, or an invalid_input failure with a message; never
// anything else.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/host_port.hpp"
#include "core/join_request.hpp"
#include "core/offer_request.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view body{reinterpret_cast<const char*>(data), size};
  // The same bytes as a Content-Type and as a networkId: both are read from callers' text.
  is_json_media_type(body);
  is_valid_network_id(body);

  failure join_error;
  if (auto join = parse_join_body(body, join_error)) {
    require(join_error.ok(), "an accepted join body leaves the failure untouched");
    require(join->players >= 1 && join->players <= max_join_players, "players is 1 or 2");
    require(join->protocol >= 0 && join->protocol <= 100000, "protocol is bounded");
    require(join->network_id.empty() || is_valid_network_id(join->network_id),
            "an accepted join networkId is 1..20 digits within uint64");
  } else {
    require(join_error.code == error_code::invalid_input && !join_error.message.empty(),
            "a refused join body is invalid_input and says why");
  }

  failure error;
  auto req = parse_offer_body(body, error);
  if (!req) {
    require(error.code == error_code::invalid_input, "a refused body is invalid_input");
    require(!error.message.empty(), "a refused body says why");
    return 0;
  }
  require(error.ok(), "an accepted body leaves the failure untouched");
  std::string message;
  auto again = normalize_host(req->where.host, message);
  require(again && *again == req->where.host, "an accepted host is already normalized");
  require(req->where.port >= 1, "an accepted port is 1..65535");
  require(req->network_id.empty() || is_valid_network_id(req->network_id),
          "an accepted networkId is 1..20 digits within uint64");
  require(req->expect_ports.size() <= max_expected_ports, "expectPorts is bounded");
  for (auto port : req->expect_ports)
    require(port >= 1, "an expected port is 1..65535");
  return 0;
}
