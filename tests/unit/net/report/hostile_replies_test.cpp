// What a hostile target can make of our replies: every reply is valid JSON in valid UTF-8, and
// none is larger than a small multiple of the caps, whatever the target sends (issue 13,
// "Upstream hostility"). The replies are built by the same pure functions the probe calls.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "app/service.hpp"
#include "core/api_json.hpp"
#include "net/report/bodies.hpp"
#include "net/report/replies.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace json = boost::json;

namespace {

/// The body limit of an offer's answer (actors/probe_actor.cpp): the largest answer a target
/// can make us read.
constexpr std::size_t answer_body_limit = 1024 * 1024;

/// Bytes Boost.JSON writes as \u00XX, six for one: what makes an echo grow the most.
std::string control_bytes(std::size_t size) {
  static const std::string six_byte = "\x01\x02\x03\x04\x05\x06\x07\x0B\x0E\x0F\x10\x11\x12\x13"
                                      "\x14\x15\x16\x17\x18\x19\x1A\x1B\x1C\x1D\x1E\x1F";
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i)
    out[i] = six_byte[i % six_byte.size()];
  return out;
}

/// A valid answer (it has every part a client needs) with the given lines after it.
std::string answer_then(const std::string& tail) {
  return "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
         "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 0.0.0.0\r\n"
         "a=ice-ufrag:abcd\r\na=ice-pwd:0123456789abcdef012345\r\n"
         "a=fingerprint:sha-256 AA:BB\r\n"
         + tail;
}

/// The answer padded to exactly size bytes with one line of control bytes.
std::string control_answer(std::size_t size, const std::string& lines_before = {}) {
  auto head = answer_then(lines_before);
  return head + control_bytes(size - head.size() - 2) + "\r\n";
}

net::upstream::fetch_result hostile_answer(std::uint16_t status, std::string body) {
  net::upstream::fetch_result r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

net::report::offer_context context() {
  net::report::offer_context c;
  c.network_id = "1";
  c.signalling_port = 19132;
  c.now_unix = 1795444130;
  return c;
}

/// The JSON the API answers with for an offer: the body, or the error's.
std::string offer_json(std::uint16_t status, std::string body) {
  auto reply = make_offer_reply(hostile_answer(status, std::move(body)), context());
  return reply.error.ok() ? reply.body : core::render_error(reply.error);
}

/// The same for info.
std::string info_json(std::uint16_t status, std::string body) {
  auto reply = make_info_reply(hostile_answer(status, std::move(body)));
  return reply.error.ok() ? reply.body : core::render_error(reply.error);
}

/// Whether text is one JSON value in valid UTF-8. Boost.JSON's parser refuses every form of
/// invalid UTF-8 (the first test case below holds it to that), so it serves as the judge.
bool valid_json(const std::string& text) {
  boost::system::error_code ec;
  json::parse(text, ec);
  return !ec;
}

} // namespace

TEST_CASE("hostile: the judge, Boost.JSON's parser, refuses every form of invalid UTF-8",
          "[hostile]") {
  // Overlong forms, surrogates, code points past U+10FFFF, stray and missing continuation
  // bytes: if the parser let one through, the checks below could pass on invalid replies.
  for (std::string bad : {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xED\xA0\x80",
                          "\xED\xBF\xBF", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF",
                          "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\x80", "\xC3",
                          "\xE2\x82", "\xF0\x9F\x98"}) {
    INFO("bytes " << bad.size());
    CHECK_FALSE(valid_json("[\"" + bad + "\"]"));
    CHECK(valid_json("[\"" + core::valid_utf8(bad) + "\"]"));
  }
  CHECK(valid_json("[\"\xF4\x8F\xBF\xBF\xED\x9F\xBF\"]"));
}

TEST_CASE("hostile: fit_for_json bounds the JSON form, escapes counted", "[hostile]") {
  auto json_size = [](const std::string& text) {
    return json::serialize(json::value(text)).size() - 2;
  };
  // Control bytes are six bytes each in JSON: 100 bytes of JSON hold 16 of them.
  auto controls = core::fit_for_json(control_bytes(1000), 100);
  CHECK(controls.text.size() == 16);
  CHECK(controls.truncated);
  CHECK(json_size(controls.text) == 96);
  // Quotes and backslashes are two.
  auto quotes = core::fit_for_json(std::string(1000, '"'), 100);
  CHECK(quotes.text.size() == 50);
  CHECK(json_size(quotes.text) == 100);
  // Text that fits is whole and not truncated; the limit is inclusive.
  auto exact = core::fit_for_json(std::string(100, 'a'), 100);
  CHECK(exact.text.size() == 100);
  CHECK_FALSE(exact.truncated);
  // A character is never split, and a replaced byte counts as its U+FFFD.
  auto euro = core::fit_for_json("ab\xE2\x82\xAC", 4);
  CHECK(euro.text == "ab");
  CHECK(euro.truncated);
  CHECK(core::fit_for_json("\xFF\xFF", 5).text == "\xEF\xBF\xBD");

  // Whatever the bytes, the bound holds and the result is valid JSON.
  std::mt19937 random{13};
  std::uniform_int_distribution<int> byte{0, 255};
  for (int round = 0; round < 500; ++round) {
    std::string text(static_cast<std::size_t>(byte(random)) * 4, '\0');
    for (auto& c : text)
      c = static_cast<char>(byte(random));
    auto limit = static_cast<std::size_t>(byte(random));
    auto fitted = core::fit_for_json(text, limit);
    INFO("round " << round);
    CHECK(json_size(fitted.text) <= limit);
    CHECK(valid_json("[" + json::serialize(json::value(fitted.text)) + "]"));
  }
}

TEST_CASE("hostile: an answer of 1 MiB of control bytes gives a reply under 4x the cap",
          "[hostile]") {
  // A candidate line past the cap: the answer shown is cut, but it was parsed whole.
  const std::string candidate
    = "a=candidate:1 1 udp 2122260223 203.0.113.7 19132 typ host generation 0\r\n";
  auto head = answer_then(control_bytes(200 * 1024) + "\r\n" + candidate);
  auto sdp = head + control_bytes(answer_body_limit - head.size() - 2) + "\r\n";
  REQUIRE(sdp.size() == answer_body_limit);

  auto text = offer_json(200, sdp);
  INFO("reply of " << text.size() << " bytes");
  // Before the cap, this reply was about 6 MB: each byte escaped to \u00XX.
  CHECK(text.size() < 4 * net::report::answer_json_limit);
  REQUIRE(valid_json(text));
  auto body = json::parse(text).as_object();
  CHECK(body.at("ok") == true);
  CHECK(body.at("answerTruncated") == true);
  CHECK(json::serialize(body.at("answer")).size() - 2 <= net::report::answer_json_limit);
  // The answer shown is the answer's start, whole characters only.
  const auto& shown = body.at("answer").as_string();
  CHECK(std::string_view{sdp}.substr(0, shown.size()) == std::string_view{shown});
  REQUIRE(body.at("candidates").as_array().size() == 1);
  CHECK(body.at("candidates").as_array()[0].at("address") == "203.0.113.7");
  CHECK(body.at("exhausted") == false);
  CHECK_FALSE(body.contains("candidatesTruncated"));
}

TEST_CASE("hostile: an answer under the cap is whole, with no truncation flag", "[hostile]") {
  auto sdp = control_answer(10 * 1024);
  auto body = json::parse(offer_json(200, sdp)).as_object();
  CHECK(body.at("answer").as_string() == sdp);
  CHECK_FALSE(body.contains("answerTruncated"));
}

TEST_CASE("hostile: the fattest candidates the parser keeps give a reply under 4x the cap",
          "[hostile]") {
  // 256 candidate lines (the parser's most) of nearly 4 KiB (its longest line), each with
  // an extension value of quotes, which JSON writes twice over: once in raw, once in the
  // extension, each quote escaped. Without a bound this made a reply of about 4 MB.
  std::string lines;
  for (int i = 0; i < 256; ++i) {
    std::string line = "a=candidate:" + std::to_string(i) + " 1 udp 2122260223 203.0.113.7 "
                       + std::to_string(19132 + i) + " typ host x ";
    line += std::string(4000 - line.size(), '"') + "\r\n";
    lines += line;
  }
  auto sdp = answer_then(lines);
  REQUIRE(sdp.size() < answer_body_limit);
  auto text = offer_json(200, sdp);
  INFO("reply of " << text.size() << " bytes");
  CHECK(text.size() < 4 * net::report::answer_json_limit);
  REQUIRE(valid_json(text));
  auto body = json::parse(text).as_object();
  CHECK(body.at("candidatesTruncated") == true);
  auto& shown = body.at("candidates").as_array();
  CHECK_FALSE(shown.empty());
  CHECK(shown.size() < 256);
  CHECK(json::serialize(shown).size() <= net::report::candidates_json_limit + 2);
  // The first candidates are the ones shown, in order.
  CHECK(shown[0].at("port") == 19132);
  CHECK(body.at("exhausted") == false);
}

TEST_CASE("hostile: every echo at its worst at once still gives a reply under 4x the cap",
          "[hostile]") {
  // 64 malformed candidate lines (each quoted in a warning, its bytes written as \xNN), then
  // fat candidates up to the body limit: the answer, the candidates and the warnings each at
  // their cap in one reply.
  std::string lines;
  for (int i = 0; i < 64; ++i)
    lines += "a=candidate:" + control_bytes(300) + "\r\n";
  for (int i = 0;; ++i) {
    std::string line = "a=candidate:" + std::to_string(i) + " 1 udp 2122260223 203.0.113.7 "
                       + std::to_string(19132 + i % 1000) + " typ host x ";
    line += std::string(3900 - line.size(), '\\') + "\r\n";
    if (answer_then(lines + line).size() > answer_body_limit)
      break;
    lines += line;
  }
  auto text = offer_json(200, answer_then(lines));
  INFO("reply of " << text.size() << " bytes");
  CHECK(text.size() < 4 * net::report::answer_json_limit);
  REQUIRE(valid_json(text));
  auto body = json::parse(text).as_object();
  CHECK(body.at("answerTruncated") == true);
  CHECK(body.at("candidatesTruncated") == true);
  CHECK(body.at("warnings").as_array().size() >= 64);
}

TEST_CASE("hostile: the truncation flags are in the OpenAPI document", "[hostile][openapi]") {
  auto doc = json::parse(openapi_document);
  auto& schemas = doc.at("components").at("schemas");
  auto& offer = schemas.at("OfferResult").at("properties").as_object();
  CHECK(offer.contains("answerTruncated"));
  CHECK(offer.contains("candidatesTruncated"));
  CHECK(schemas.at("UpstreamStatus").at("properties").as_object().contains("bodyTruncated"));
  // And every member of a reply that has them all is described.
  std::string lines;
  for (int i = 0; i < 40; ++i)
    lines += "a=candidate:" + std::to_string(i) + " 1 udp 1 203.0.113.7 19132 typ host x "
             + std::string(3000, '"') + "\r\n";
  auto reply = json::parse(offer_json(200, answer_then(lines + control_bytes(100 * 1024))));
  for (const auto& member : reply.as_object()) {
    INFO("member " << member.key());
    CHECK(offer.contains(member.key()));
  }
}

TEST_CASE("hostile: a 1 MiB error body of control bytes is quoted within the cap", "[hostile]") {
  auto check_error = [](const std::string& text, int status) {
    INFO("reply of " << text.size() << " bytes");
    CHECK(text.size() < 4 * core::quoted_body_limit);
    REQUIRE(valid_json(text));
    auto body = json::parse(text).as_object();
    CHECK(body.at("code") == "upstream_status");
    CHECK(body.at("error").at("httpStatus") == status);
    CHECK(body.at("error").at("bodyTruncated") == true);
    CHECK(json::serialize(body.at("error").at("body")).size() - 2 <= core::quoted_body_limit);
  };
  SECTION("offer") {
    check_error(offer_json(400, control_bytes(answer_body_limit)), 400);
  }
  SECTION("info") {
    check_error(info_json(500, control_bytes(answer_body_limit)), 500);
  }
  SECTION("the failure carries only what can be quoted") {
    auto reply = make_offer_reply(hostile_answer(400, control_bytes(answer_body_limit)), context());
    CHECK(reply.error.body.size() == core::quoted_body_limit + 1);
  }
  SECTION("a short body is whole, with no flag") {
    auto body = json::parse(offer_json(400, "busy")).as_object();
    CHECK(body.at("error").at("body") == "busy");
    CHECK_FALSE(body.at("error").as_object().contains("bodyTruncated"));
  }
}

TEST_CASE("hostile: a 2xx body of control bytes that is no answer is quoted briefly",
          "[hostile]") {
  auto offer = offer_json(200, control_bytes(answer_body_limit));
  CHECK(offer.size() < 4 * 1024);
  REQUIRE(valid_json(offer));
  CHECK(json::parse(offer).at("code") == "upstream_invalid_answer");
  auto info = info_json(200, control_bytes(64 * 1024));
  CHECK(info.size() < 4 * 1024);
  REQUIRE(valid_json(info));
  CHECK(json::parse(info).at("infoErrorCode") == "not_json");
}

TEST_CASE("hostile: replies to random bytes are always valid UTF-8 JSON", "[hostile]") {
  // Bytes of every kind, invalid UTF-8 among them, in the places a reply echoes: the answer,
  // its ufrag and fingerprint, candidate lines (kept or quoted in a warning), error bodies
  // and status bodies.
  std::mt19937 random{2026};
  std::uniform_int_distribution<int> byte{0, 255};
  auto noise = [&](std::size_t size) {
    std::string out(size, '\0');
    for (auto& c : out) {
      c = static_cast<char>(byte(random));
      // No line ends, so each noise stays inside its line.
      if (c == '\r' || c == '\n')
        c = '\xC0';
    }
    return out;
  };
  for (int round = 0; round < 300; ++round) {
    INFO("round " << round);
    auto sdp = "v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=ice-ufrag:"
               + noise(40) + "\r\na=ice-pwd:x\r\na=fingerprint:sha-256 " + noise(40)
               + "\r\na=candidate:1 1 udp 1 203.0.113.7 19132 typ host x " + noise(30)
               + "\r\na=candidate:" + noise(60) + "\r\n" + noise(200) + "\r\n";
    CHECK(valid_json(offer_json(200, sdp)));
    CHECK(valid_json(offer_json(400, noise(300))));
    CHECK(valid_json(offer_json(200, noise(300))));
    CHECK(valid_json(info_json(200, noise(300))));
    CHECK(valid_json(info_json(200, "{\"name\":\"" + noise(50) + "\"}")));
    CHECK(valid_json(info_json(503, noise(300))));
  }
}

TEST_CASE("hostile: error messages that echo a host or a path stay valid UTF-8", "[hostile]") {
  // The router and the host check quote what the caller sent: a host that is not one, a path
  // no route has. Those bytes come percent-decoded or raw off the wire.
  for (auto message : {std::string{"host '\xFF\xFE' is not a valid DNS name"},
                       std::string{"no route /\xC0\xAF\xED\xA0\x80"}}) {
    auto text = core::render_error(make_failure(error_code::invalid_input, message));
    CHECK(valid_json(text));
  }
}
