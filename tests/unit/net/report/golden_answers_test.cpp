// Golden tests: an answer recorded from a real WebRTC stack goes in, and the JSON we answer
// /api/offer with must equal the reviewed file beside it (tests/fixtures/*.expected.json).
//
// After a deliberate change to the output, rewrite the expected files with
//   UPDATE_GOLDEN_FILES=1 build/tests/netherscope_tests '[golden]'
// and review the diff as data before committing it. (Not a NETHERSCOPE_* name: the service
// refuses unknown ones, and the end-to-end tests start it with this environment.)
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <boost/json.hpp>

#include "net/report/replies.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// JSON with two-space indents and one member per line, so a golden file reads (and diffs) as
/// data. Boost.JSON 1.81 serializes on one line only.
void pretty(std::ostream& out, const json::value& v, int indent = 0) {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const std::string close(static_cast<std::size_t>(indent), ' ');
  if (const auto* object = v.if_object(); object && !object->empty()) {
    out << "{\n";
    std::size_t i = 0;
    for (const auto& [key, value] : *object) {
      out << pad << json::serialize(json::value(key)) << ": ";
      pretty(out, value, indent + 2);
      out << (++i < object->size() ? ",\n" : "\n");
    }
    out << close << "}";
  } else if (const auto* array = v.if_array(); array && !array->empty()) {
    out << "[\n";
    for (std::size_t i = 0; i < array->size(); ++i) {
      out << pad;
      pretty(out, (*array)[i], indent + 2);
      out << (i + 1 < array->size() ? ",\n" : "\n");
    }
    out << close << "]";
  } else {
    out << json::serialize(v);
  }
}

/// One recorded answer and the moment it is rendered at (inside its identity's minute).
struct golden_case {
  const char* stem;
  std::int64_t now_unix;
};

} // namespace

TEST_CASE("golden: recorded answers render as reviewed", "[golden][replies]") {
  auto c = GENERATE(values<golden_case>({
    // werift 0.24.4 behind target.js --identity string; its token's iat is 1795444121.
    {"werift-0.24.4-answer-identity-string", 1795444130},
    // libwebrtc (@roamhq/wrtc 0.10.0) behind target.js --identity jwk; iat 1795444122.
    {"libwebrtc-wrtc-0.10.0-answer-identity-jwk", 1795444130},
    // aiortc 1.4.0 behind aiortc_target.py, which adds no identity.
    {"aiortc-1.4.0-answer", 1795444130},
    // The libwebrtc M106 answer of shared/fixtures: no identity, UDP and TCP on loopback.
    {"libwebrtc-m106-answer", 1795444130},
    // The same with its candidates taken out: a drained port pool.
    {"libwebrtc-m106-answer-no-candidates", 1795444130},
  }));
  INFO("fixture " << c.stem);
  const std::string base = std::string{FIXTURES_DIR} + "/" + c.stem;
  net::upstream::fetch_result fetched;
  fetched.status = 200;
  fetched.body = read_file(base + ".sdp");
  REQUIRE_FALSE(fetched.body.empty());
  net::report::offer_context context;
  context.network_id = "1";
  context.signalling_port = 19132;
  context.now_unix = c.now_unix;
  auto reply = make_offer_reply(std::move(fetched), context);
  REQUIRE(reply.error.ok());
  auto actual = json::parse(reply.body);

  if (const char* update = std::getenv("UPDATE_GOLDEN_FILES"); update && *update == '1') {
    std::ofstream out{base + ".expected.json", std::ios::binary | std::ios::trunc};
    pretty(out, actual);
    out << "\n";
    WARN("rewrote " << base << ".expected.json");
    return;
  }
  auto expected_text = read_file(base + ".expected.json");
  REQUIRE_FALSE(expected_text.empty());
  auto expected = json::parse(expected_text);
  INFO("expected " << json::serialize(expected) << "\nactual   " << json::serialize(actual));
  CHECK(actual == expected);
}
