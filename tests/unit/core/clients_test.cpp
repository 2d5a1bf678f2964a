// Tests for core/clients: the client-version table is whole and sourced, and the
// "clients" field says which versions reach a server over what answered, and how sure that is.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <boost/json.hpp>

#include "core/clients.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

const json::object& range_named(const json::object& clients, const std::string& versions) {
  for (const auto& r : clients.at("ranges").as_array())
    if (r.at("versions") == versions.c_str())
      return r.as_object();
  FAIL("no range " << versions);
  static const json::object none;
  return none;
}

bool summary_mentions(const json::object& clients, const std::string& part) {
  const auto& s = clients.at("summary").as_array();
  return std::any_of(s.begin(), s.end(), [&](const json::value& v) {
    return std::string{v.as_string().c_str()}.find(part) != std::string::npos;
  });
}

} // namespace

TEST_CASE("clients: the table covers every protocol once, each fact with its source",
          "[clients]") {
  const auto& rows = client_versions();
  REQUIRE(rows.size() >= 5);
  CHECK(rows.front().protocol_min == 0);
  CHECK(rows.back().protocol_max == -1);
  for (std::size_t i = 0; i + 1 < rows.size(); ++i)
    CHECK(rows[i].protocol_max + 1 == rows[i + 1].protocol_min);
  for (const auto& row : rows) {
    INFO(row.versions);
    CHECK_FALSE(row.raknet.source.empty());
    CHECK_FALSE(row.nethernet.source.empty());
  }
  // The protocols the sources give: 975 (1.26.20), 1001 (1.26.30), 2169 (1.26.45), 2177
  // (1.26.50), 2193 (1.26.51).
  CHECK(client_range_of(975)->versions == "1.26.20 and earlier");
  CHECK(client_range_of(1001)->versions == "1.26.30 to 1.26.45");
  CHECK(client_range_of(2169)->versions == "1.26.30 to 1.26.45");
  CHECK(client_range_of(2177)->versions == "1.26.50");
  CHECK(client_range_of(2193)->versions == "1.26.51");
  CHECK(client_range_of(2250)->versions == "later than 1.26.51");
  CHECK(client_range_of(-1) == nullptr);
  // HTTP signalling came with 1.26.30: older clients never reach NetherNet.
  CHECK(rows.front().nethernet.can == reach::no);
  CHECK(rows.front().nethernet.tag == evidence::verified);
  // That later clients drop RakNet is a report, and says so.
  CHECK(rows.back().raknet.can == reach::no);
  CHECK(rows.back().raknet.tag == evidence::reported);
}

TEST_CASE("clients: a NetherNet-only server on 1.26.51", "[clients]") {
  transports_seen seen;
  seen.nethernet = true;
  seen.nethernet_protocol = 2193;
  seen.nethernet_version = "1.26.51";
  seen.raknet_tried = true;
  auto c = describe_clients(seen);
  CHECK(c.at("nethernet") == true);
  CHECK(c.at("raknet") == false);
  CHECK(c.at("protocol") == 2193);
  CHECK(c.at("version") == "1.26.51");
  const auto& old = range_named(c, "1.26.20 and earlier");
  CHECK(old.at("canJoin") == "no");
  CHECK(old.at("over").is_null());
  CHECK(old.at("evidence") == "verified");
  CHECK(old.at("protocolMin").is_null());
  CHECK(old.at("protocolMax") == 1000);
  const auto& own = range_named(c, "1.26.51");
  CHECK(own.at("canJoin") == "yes");
  CHECK(own.at("over") == "nethernet");
  CHECK(own.at("evidence") == "verified");
  CHECK(own.at("serverProtocol") == true);
  CHECK(own.at("nethernet").at("source").as_string().find("mcutil#15") != json::string::npos);
  CHECK(range_named(c, "1.26.50").at("evidence") == "reported");
  CHECK(range_named(c, "1.26.50").at("serverProtocol") == false);
  CHECK(range_named(c, "later than 1.26.51").at("protocolMax").is_null());
  CHECK(summary_mentions(c, "NetherNet signalling (GET /v1/join) answered; RakNet status did "
                            "not."));
  CHECK(summary_mentions(c, "The server reports protocol 2193 (1.26.51), which falls in 1.26.51"));
  CHECK(summary_mentions(c, "Clients that reach it over NetherNet: 1.26.30 to 1.26.45 "
                            "(verified), 1.26.50 (reported), 1.26.51 (verified), later than "
                            "1.26.51 (reported)."));
  CHECK(summary_mentions(c, "Clients that cannot reach it over what answered: 1.26.20 and "
                            "earlier (verified)."));
  CHECK_FALSE(summary_mentions(c, "pong"));
}

TEST_CASE("clients: a RakNet-only server", "[clients]") {
  transports_seen seen;
  seen.raknet_tried = true;
  seen.raknet = true;
  seen.raknet_protocol = 527;
  seen.raknet_version = "1.19.1";
  auto c = describe_clients(seen);
  CHECK(c.at("protocol") == 527);
  CHECK(range_named(c, "1.26.20 and earlier").at("over") == "raknet");
  CHECK(range_named(c, "1.26.20 and earlier").at("serverProtocol") == true);
  CHECK(range_named(c, "1.26.50").at("over") == "raknet");
  CHECK(range_named(c, "1.26.50").at("evidence") == "reported");
  const auto& later = range_named(c, "later than 1.26.51");
  CHECK(later.at("canJoin") == "no");
  CHECK(later.at("evidence") == "reported");
  CHECK(summary_mentions(c, "RakNet status answered; NetherNet signalling (GET /v1/join) did "
                            "not."));
  CHECK(summary_mentions(c, "cannot reach it over what answered: later than 1.26.51 "
                            "(reported)"));
  CHECK(summary_mentions(c, "does not prove that RakNet joins work"));
}

TEST_CASE("clients: both transports, and protocols that disagree", "[clients]") {
  transports_seen seen;
  seen.nethernet = true;
  seen.nethernet_protocol = 2193;
  seen.nethernet_version = "1.26.51";
  seen.raknet_tried = true;
  seen.raknet = true;
  seen.raknet_protocol = 2168;
  seen.raknet_version = "1.26.40";
  auto c = describe_clients(seen);
  CHECK(range_named(c, "1.26.20 and earlier").at("over") == "raknet");
  CHECK(range_named(c, "1.26.30 to 1.26.45").at("over") == "nethernet");
  CHECK(range_named(c, "later than 1.26.51").at("over") == "nethernet");
  CHECK(summary_mentions(c, "Both transports answered"));
  CHECK(summary_mentions(c, "reported not to fall back to RakNet"));
  CHECK(summary_mentions(c, "Its NetherNet status reports protocol 2193 (1.26.51) and its RakNet "
                            "pong protocol 2168 (1.26.40)."));
}

TEST_CASE("clients: nothing answered, or RakNet not asked", "[clients]") {
  transports_seen none;
  none.raknet_tried = true;
  auto c = describe_clients(none);
  CHECK(c.at("protocol").is_null());
  CHECK(c.at("version").is_null());
  for (const auto& r : c.at("ranges").as_array()) {
    CHECK(r.at("canJoin") == "no");
    CHECK(r.at("serverProtocol") == false);
  }
  CHECK(summary_mentions(c, "no client version is shown to reach the server"));

  transports_seen not_asked;
  auto n = describe_clients(not_asked);
  CHECK(n.at("raknet").is_null());
  // A range that could use RakNet is not known to be shut out when nobody asked.
  CHECK(range_named(n, "1.26.20 and earlier").at("canJoin") == "unknown");
  CHECK(range_named(n, "later than 1.26.51").at("canJoin") == "no");
  CHECK(summary_mentions(n, "RakNet was not asked"));

  // NetherNet answered with an empty body: no protocol to place.
  transports_seen empty;
  empty.nethernet = true;
  empty.raknet_tried = true;
  auto e = describe_clients(empty);
  CHECK(e.at("protocol").is_null());
  CHECK(summary_mentions(e, "did not say its protocol"));
}

TEST_CASE("clients: what the status reply and the RakNet reply show", "[clients]") {
  info_reply info;
  info.body = R"({"ok":true,"status":200,"tls":false,"info":{"name":"x","protocol":2193,)"
              R"("version":"1.26.51"}})";
  raknet_reply raknet;
  raknet.tried = true;
  raknet.ok = true;
  raknet.protocol = 2168;
  raknet.version = "1.26.40";
  auto seen = seen_from(info, raknet);
  CHECK(seen.nethernet);
  CHECK(seen.nethernet_protocol == 2193);
  CHECK(seen.nethernet_version == "1.26.51");
  CHECK(seen.raknet);
  CHECK(seen.raknet_protocol == 2168);

  info_reply empty;
  empty.body = R"({"ok":true,"status":200,"tls":false,"info":null})";
  CHECK(seen_from(empty, raknet_reply{}).nethernet_protocol == -1);
  CHECK_FALSE(seen_from(empty, raknet_reply{}).raknet_tried);
  info_reply failed;
  failed.error = make_failure(error_code::upstream_timeout, "slow");
  CHECK_FALSE(seen_from(failed, raknet).nethernet);
}
