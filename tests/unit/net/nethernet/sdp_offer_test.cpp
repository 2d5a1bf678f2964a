// Tests for net/sdp_offer: the exact layout of our offer, its random parts, and that it passes
// the checks a NetherNet server applies to an offer (PROTOCOL.md §3.2).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "net/nethernet/identity.hpp"
#include "net/nethernet/identity_check.hpp"
#include "net/nethernet/sdp_offer.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;

namespace {

constexpr std::int64_t now = 1760000000;

const std::string ice_alphabet =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

bool all_ice_chars(const std::string& s) {
  return s.find_first_not_of(ice_alphabet) == std::string::npos;
}

// Splits on CRLF; a bare LF or CR anywhere makes the result empty.
std::vector<std::string> crlf_lines(const std::string& sdp) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < sdp.size()) {
    auto end = sdp.find("\r\n", start);
    if (end == std::string::npos)
      return {};
    auto line = sdp.substr(start, end - start);
    if (line.find_first_of("\r\n") != std::string::npos)
      return {};
    lines.push_back(line);
    start = end + 2;
  }
  return lines;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The checks a NetherNet server makes before answering an offer (go-nethernet's are the
// strictest; PROTOCOL.md §3.2), plus BDS's session-level a=identity. Returns the problems
// found; empty means the offer passes.
std::vector<std::string> offer_problems(const std::string& sdp) {
  std::vector<std::string> problems;
  auto lines = crlf_lines(sdp);
  if (lines.empty())
    return {"lines do not all end with CRLF"};
  if (lines.front() != "v=0")
    problems.push_back("does not start with v=0");

  std::size_t media_sections = 0;
  bool in_media = false;
  bool session_identity = false;
  std::string ufrag, pwd, fingerprint, setup, max_message_size;
  for (const auto& line : lines) {
    if (starts_with(line, "m=")) {
      ++media_sections;
      in_media = true;
      if (line.size() < 2 || line.find(' ') == std::string::npos)
        problems.push_back("malformed m= line");
      // m=application <port> UDP/DTLS/SCTP webrtc-datachannel
      std::vector<std::string> f;
      std::size_t s = 2;
      for (;;) {
        auto e = line.find(' ', s);
        f.push_back(line.substr(s, e == std::string::npos ? e : e - s));
        if (e == std::string::npos)
          break;
        s = e + 1;
      }
      bool port_ok = f.size() > 1 && !f[1].empty()
                     && std::all_of(f[1].begin(), f[1].end(),
                                    [](unsigned char c) { return std::isdigit(c); });
      if (f.size() != 4 || f[0] != "application" || !port_ok || f[2] != "UDP/DTLS/SCTP"
          || f[3] != "webrtc-datachannel")
        problems.push_back("m= line is not application UDP/DTLS/SCTP webrtc-datachannel");
    } else if (starts_with(line, "a=identity:")) {
      if (in_media)
        problems.push_back("a=identity is inside the media section");
      else
        session_identity = true;
    } else if (starts_with(line, "a=ice-ufrag:")) {
      if (in_media)
        ufrag = line.substr(12);
    } else if (starts_with(line, "a=ice-pwd:")) {
      if (in_media)
        pwd = line.substr(10);
    } else if (starts_with(line, "a=fingerprint:")) {
      fingerprint = line.substr(14); // media or session level
    } else if (starts_with(line, "a=setup:")) {
      setup = line.substr(8);
    } else if (starts_with(line, "a=max-message-size:")) {
      max_message_size = line.substr(19);
    }
  }
  if (media_sections != 1)
    problems.push_back("not exactly one media section");
  if (!session_identity)
    problems.push_back("no session-level a=identity");
  // RFC 8839: ufrag 4..256 ice-chars, pwd 22..256 ice-chars.
  if (ufrag.size() < 4 || ufrag.size() > 256 || !all_ice_chars(ufrag))
    problems.push_back("bad or missing ice-ufrag");
  if (pwd.size() < 22 || pwd.size() > 256 || !all_ice_chars(pwd))
    problems.push_back("bad or missing ice-pwd");
  // sha-256 followed by 32 uppercase or lowercase hex pairs joined by colons.
  bool fp_ok = starts_with(fingerprint, "sha-256 ") && fingerprint.size() == 8 + 32 * 3 - 1;
  for (std::size_t i = 8; fp_ok && i < fingerprint.size(); ++i) {
    bool colon_place = (i - 8) % 3 == 2;
    auto c = static_cast<unsigned char>(fingerprint[i]);
    fp_ok = colon_place ? c == ':' : std::isxdigit(c) != 0;
  }
  if (!fp_ok)
    problems.push_back("bad or missing sha-256 fingerprint");
  if (setup != "actpass" && setup != "active" && setup != "passive")
    problems.push_back("bad or missing setup");
  bool mms_ok = !max_message_size.empty() && max_message_size.size() < 10
                && std::all_of(max_message_size.begin(), max_message_size.end(),
                               [](unsigned char c) { return std::isdigit(c); })
                && std::stoul(max_message_size) > 1;
  if (!mms_ok)
    problems.push_back("bad or missing max-message-size");
  return problems;
}

std::string replace_line(const std::string& sdp, const std::string& prefix,
                         const std::string& with) {
  auto lines = crlf_lines(sdp);
  std::string out;
  for (const auto& l : lines) {
    if (starts_with(l, prefix)) {
      if (!with.empty())
        out += with + "\r\n";
    } else {
      out += l + "\r\n";
    }
  }
  return out;
}

offer_parameters fixed_parameters() {
  offer_parameters p;
  p.session_id = 4611731400430051336ULL;
  p.ice_ufrag = "Qx7d";
  p.ice_pwd = "8mJv0cT3yLk2pWq9sZa4Rb+/";
  p.fingerprint = "3C:1A:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:"
                  "EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:9F";
  p.identity = "eyJhc3NlcnRpb24iOiIuLi4ifQ==";
  return p;
}

} // namespace

TEST_CASE("build_offer writes the exact libwebrtc-like layout", "[sdp_offer]") {
  auto p = fixed_parameters();
  const std::string expected =
    "v=0\r\n"
    "o=- 4611731400430051336 2 IN IP4 127.0.0.1\r\n"
    "s=-\r\n"
    "t=0 0\r\n"
    "a=group:BUNDLE 0\r\n"
    "a=extmap-allow-mixed\r\n"
    "a=msid-semantic: WMS\r\n"
    "a=identity:eyJhc3NlcnRpb24iOiIuLi4ifQ==\r\n"
    "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
    "c=IN IP4 0.0.0.0\r\n"
    "a=ice-ufrag:Qx7d\r\n"
    "a=ice-pwd:8mJv0cT3yLk2pWq9sZa4Rb+/\r\n"
    "a=ice-options:trickle\r\n"
    "a=fingerprint:sha-256 3C:1A:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:"
    "EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:9F\r\n"
    "a=setup:actpass\r\n"
    "a=mid:0\r\n"
    "a=sctp-port:5000\r\n"
    "a=max-message-size:262144\r\n";
  // No a=end-of-candidates without candidates: aiortc answers such an offer with none.
  CHECK(build_offer(p) == expected);

  SECTION("candidates go after c= and before the ICE credentials") {
    p.candidates = {"candidate:1 1 udp 2122260223 192.0.2.44 50123 typ host generation 0",
                    "candidate:2 1 udp 2122262783 2001:db8::44 50124 typ host generation 0"};
    auto lines = crlf_lines(build_offer(p));
    REQUIRE(lines.size() == 21);
    CHECK(lines[9] == "c=IN IP4 0.0.0.0");
    CHECK(lines[10] == "a=" + p.candidates[0]);
    CHECK(lines[11] == "a=" + p.candidates[1]);
    CHECK(lines[12] == "a=ice-ufrag:Qx7d");
    CHECK(lines.back() == "a=end-of-candidates");
  }
}

TEST_CASE("make_offer_parameters draws fresh ICE credentials and signs our fingerprint",
          "[sdp_offer]") {
  auto id = make_local_identity();
  REQUIRE(id);
  auto a = make_offer_parameters(*id, now);
  auto b = make_offer_parameters(*id, now);
  REQUIRE((a && b));
  for (const auto* p : {&*a, &*b}) {
    CHECK(p->ice_ufrag.size() == 4);
    CHECK(p->ice_pwd.size() == 24);
    CHECK(all_ice_chars(p->ice_ufrag));
    CHECK(all_ice_chars(p->ice_pwd));
    CHECK(p->session_id < (std::uint64_t{1} << 62));
    CHECK(p->fingerprint == id->fingerprint);
    CHECK(p->candidates.empty());
    CHECK(verify_identity_attribute(p->identity, {id->fingerprint}, now).verified);
  }
  CHECK(a->ice_ufrag != b->ice_ufrag);
  CHECK(a->ice_pwd != b->ice_pwd);
  CHECK(a->session_id != b->session_id);
  CHECK(a->identity != b->identity); // ECDSA signatures are randomized

  // Over many draws every ice-char shows up (a missing one has probability below 1e-30).
  std::set<char> seen;
  for (int i = 0; i < 200; ++i) {
    auto p = make_offer_parameters(*id, now);
    REQUIRE(p);
    seen.insert(p->ice_pwd.begin(), p->ice_pwd.end());
  }
  CHECK(seen.size() == 64);

  local_identity empty;
  CHECK_FALSE(make_offer_parameters(empty, now));
}

TEST_CASE("our offer passes the checks a NetherNet server applies", "[sdp_offer]") {
  auto id = make_local_identity();
  REQUIRE(id);
  auto p = make_offer_parameters(*id, now);
  REQUIRE(p);
  auto offer = build_offer(*p);
  CHECK(offer_problems(offer).empty());

  auto lines = crlf_lines(offer);
  REQUIRE_FALSE(lines.empty());
  CHECK(std::count(offer.begin(), offer.end(), '\n')
        == std::count(offer.begin(), offer.end(), '\r'));
  CHECK(offer.size() >= 2);
  CHECK(offer.substr(offer.size() - 2) == "\r\n");
  auto m = std::find_if(lines.begin(), lines.end(),
                        [](const std::string& l) { return starts_with(l, "m="); });
  auto identity = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return starts_with(l, "a=identity:");
  });
  REQUIRE(m != lines.end());
  REQUIRE(identity != lines.end());
  CHECK(identity < m);
  CHECK(std::count_if(lines.begin(), lines.end(),
                      [](const std::string& l) { return starts_with(l, "m="); })
        == 1);
  CHECK(*identity == "a=identity:" + p->identity);
  CHECK(std::find(lines.begin(), lines.end(), "a=fingerprint:sha-256 " + id->fingerprint)
        != lines.end());
  // Our offer has no candidates of its own yet, so it must not end them (PROTOCOL.md §3.2).
  CHECK(std::find(lines.begin(), lines.end(), "a=end-of-candidates") == lines.end());
}

TEST_CASE("the offer checker itself catches broken offers", "[sdp_offer]") {
  auto offer = build_offer(fixed_parameters());
  REQUIRE(offer_problems(offer).empty());
  auto one = [](const std::string& sdp) {
    auto problems = offer_problems(sdp);
    if (problems.size() == 1)
      return problems.front();
    return "(" + std::to_string(problems.size()) + " problems)";
  };

  CHECK(one(replace_line(offer, "a=ice-ufrag:", "")) == "bad or missing ice-ufrag");
  CHECK(one(replace_line(offer, "a=ice-ufrag:", "a=ice-ufrag:ab")) == "bad or missing ice-ufrag");
  CHECK(one(replace_line(offer, "a=ice-pwd:", "a=ice-pwd:short")) == "bad or missing ice-pwd");
  CHECK(one(replace_line(offer, "a=fingerprint:", "a=fingerprint:sha-1 AB:CD"))
        == "bad or missing sha-256 fingerprint");
  CHECK(one(replace_line(offer, "a=setup:", "a=setup:holdconn")) == "bad or missing setup");
  CHECK(one(replace_line(offer, "a=max-message-size:", "a=max-message-size:1"))
        == "bad or missing max-message-size");
  CHECK(one(replace_line(offer, "a=identity:", "")) == "no session-level a=identity");
  CHECK(one(replace_line(offer, "m=", "m=audio 9 UDP/TLS/RTP/SAVPF 111"))
        == "m= line is not application UDP/DTLS/SCTP webrtc-datachannel");
  CHECK(one(offer + "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n")
        == "not exactly one media section");
  CHECK(one(offer + "a=identity:x\r\n") == "a=identity is inside the media section");
  std::string lf_only = offer;
  lf_only.erase(std::remove(lf_only.begin(), lf_only.end(), '\r'), lf_only.end());
  CHECK(one(lf_only) == "lines do not all end with CRLF");

#ifdef FIXTURES_DIR
  // A real libwebrtc offer passes everything except the identity BDS wants.
  std::ifstream in(std::string{FIXTURES_DIR} + "/libwebrtc-m106-offer.sdp", std::ios::binary);
  std::string fixture{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE_FALSE(fixture.empty());
  CHECK(offer_problems(fixture) == std::vector<std::string>{"no session-level a=identity"});
#endif
}
