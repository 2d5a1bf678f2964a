// The options that shape the connection slots: defaults, parsing and their bounds.
#include <catch2/catch.hpp>

#include <vector>

#include "app/options.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

parse_result parse(std::vector<const char*> args) {
  args.insert(args.begin(), "netherscope");
  return parse_options(static_cast<int>(args.size()), args.data());
}

} // namespace

TEST_CASE("connection options: defaults keep a tenth in reserve and 8 per address when busy",
          "[options][slots]") {
  auto r = parse({});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.max_connections == 10000);
  CHECK(r.cfg.max_connections_per_ip == 100);
  CHECK(r.cfg.connection_reserve_percent == 10);
  CHECK(r.cfg.busy_connections_per_ip == 8);
}

TEST_CASE("connection options: set by flags, and refused out of range", "[options][slots]") {
  auto r = parse({"--connection-reserve-percent", "0", "--busy-connections-per-ip", "3"});
  REQUIRE(r.status == parse_status::run);
  CHECK(r.cfg.connection_reserve_percent == 0);
  CHECK(r.cfg.busy_connections_per_ip == 3);
  // More than half the cap in reserve would refuse most clients' second connection.
  CHECK(parse({"--connection-reserve-percent", "51"}).status == parse_status::exit_error);
  CHECK(parse({"--busy-connections-per-ip", "0"}).status == parse_status::exit_error);
  CHECK(parse({"--busy-connections-per-ip", "-1"}).status == parse_status::exit_error);
}
