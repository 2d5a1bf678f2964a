// Fuzzes the target a caller names (the host, port and tls query values and JSON fields):
// every accepted host is normalized for good, so that one target has one spelling in the
// cache, the quotas and the per-target limits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/host_port.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text{reinterpret_cast<const char*>(data), size};

  std::string error;
  if (auto host = normalize_host(text, error)) {
    std::string again_error;
    auto again = normalize_host(*host, again_error);
    require(again && *again == *host, "normalizing a normalized host changes nothing");
    auto in_url = normalize_host(host_for_url(*host), again_error);
    require(in_url && *in_url == *host, "a host written for a URL reads back as itself");
    if (host->find(':') != std::string::npos)
      require(is_ip_literal(*host), "a normalized host with a colon is an IPv6 literal");
  } else {
    require(!error.empty(), "a refused host says why");
  }

  error.clear();
  if (auto port = parse_port_text(text, error)) {
    require(*port >= 1, "an accepted port is 1..65535");
    std::string again_error;
    auto again = parse_port_text(std::to_string(*port), again_error);
    require(again && *again == *port, "a port written in decimal reads back as itself");
  } else {
    require(!error.empty(), "a refused port says why");
  }

  error.clear();
  if (!parse_tls_text(text, error))
    require(!error.empty(), "a refused tls value says why");
  return 0;
}
