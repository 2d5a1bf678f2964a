// Tests for net/nethernet/stun against the samples of RFC 5769 ("Test Vectors for Session
// Traversal Utilities for NAT (STUN)", April 2010), sections 2.1 to 2.3, typed in from the
// RFC's hex dumps row by row. Every sample uses the short-term password
// "VOkJxbRl1RmTxUk/WvJxBt" and the transaction ID b7 e7 a7 01 bc 34 d6 86 fa 87 df ae, and pads
// attribute values with spaces (0x20), which the writer can be told to do.
#include <catch2/catch.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "base/crypto.hpp"
#include "net/nethernet/stun.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
namespace stun = netherscope::net::nethernet::stun;

namespace {

std::string bytes_of(std::initializer_list<unsigned> values) {
  std::string out;
  for (auto v : values)
    out.push_back(static_cast<char>(v));
  return out;
}

const std::string password = "VOkJxbRl1RmTxUk/WvJxBt";

const stun::transaction_id sample_id{0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34,
                                     0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae};

// RFC 5769 §2.1, Sample Request: SOFTWARE "STUN test client", PRIORITY 0x6e0001ff,
// ICE-CONTROLLED 0x932ff9b151263b36, USERNAME "evtj:h6vY", MESSAGE-INTEGRITY, FINGERPRINT.
const std::string sample_request = bytes_of({
  0x00, 0x01, 0x00, 0x58, // Request type and message length
  0x21, 0x12, 0xa4, 0x42, // Magic cookie
  0xb7, 0xe7, 0xa7, 0x01, // }
  0xbc, 0x34, 0xd6, 0x86, // }  Transaction ID
  0xfa, 0x87, 0xdf, 0xae, // }
  0x80, 0x22, 0x00, 0x10, // SOFTWARE attribute header
  0x53, 0x54, 0x55, 0x4e, // }
  0x20, 0x74, 0x65, 0x73, // }  User-agent...
  0x74, 0x20, 0x63, 0x6c, // }  ...name
  0x69, 0x65, 0x6e, 0x74, // }
  0x00, 0x24, 0x00, 0x04, // PRIORITY attribute header
  0x6e, 0x00, 0x01, 0xff, // ICE priority value
  0x80, 0x29, 0x00, 0x08, // ICE-CONTROLLED attribute header
  0x93, 0x2f, 0xf9, 0xb1, // }  Pseudo-random tie breaker...
  0x51, 0x26, 0x3b, 0x36, // }   ...for ICE control
  0x00, 0x06, 0x00, 0x09, // USERNAME attribute header
  0x65, 0x76, 0x74, 0x6a, // }
  0x3a, 0x68, 0x36, 0x76, // }  Username (9 bytes) and padding (3 bytes)
  0x59, 0x20, 0x20, 0x20, // }
  0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
  0x9a, 0xea, 0xa7, 0x0c, // }
  0xbf, 0xd8, 0xcb, 0x56, // }
  0x78, 0x1e, 0xf2, 0xb5, // }  HMAC-SHA1 fingerprint
  0xb2, 0xd3, 0xf2, 0x49, // }
  0xc1, 0xb5, 0x71, 0xa2, // }
  0x80, 0x28, 0x00, 0x04, // FINGERPRINT attribute header
  0xe5, 0x7a, 0x3b, 0xcf, // CRC32 fingerprint
});

// RFC 5769 §2.2, Sample IPv4 Response: SOFTWARE "test vector", XOR-MAPPED-ADDRESS
// 192.0.2.1 port 32853, MESSAGE-INTEGRITY, FINGERPRINT.
const std::string sample_ipv4_response = bytes_of({
  0x01, 0x01, 0x00, 0x3c, // Response type and message length
  0x21, 0x12, 0xa4, 0x42, // Magic cookie
  0xb7, 0xe7, 0xa7, 0x01, // }
  0xbc, 0x34, 0xd6, 0x86, // }  Transaction ID
  0xfa, 0x87, 0xdf, 0xae, // }
  0x80, 0x22, 0x00, 0x0b, // SOFTWARE attribute header
  0x74, 0x65, 0x73, 0x74, // }
  0x20, 0x76, 0x65, 0x63, // }  UTF-8 server name
  0x74, 0x6f, 0x72, 0x20, // }
  0x00, 0x20, 0x00, 0x08, // XOR-MAPPED-ADDRESS attribute header
  0x00, 0x01, 0xa1, 0x47, // Address family (IPv4) and xor'd mapped port number
  0xe1, 0x12, 0xa6, 0x43, // Xor'd mapped IPv4 address
  0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
  0x2b, 0x91, 0xf5, 0x99, // }
  0xfd, 0x9e, 0x90, 0xc3, // }
  0x8c, 0x74, 0x89, 0xf9, // }  HMAC-SHA1 fingerprint
  0x2a, 0xf9, 0xba, 0x53, // }
  0xf0, 0x6b, 0xe7, 0xd7, // }
  0x80, 0x28, 0x00, 0x04, // FINGERPRINT attribute header
  0xc0, 0x7d, 0x4c, 0x96, // CRC32 fingerprint
});

// RFC 5769 §2.3, Sample IPv6 Response: the same with XOR-MAPPED-ADDRESS
// 2001:db8:1234:5678:11:2233:4455:6677 port 32853.
const std::string sample_ipv6_response = bytes_of({
  0x01, 0x01, 0x00, 0x48, // Response type and message length
  0x21, 0x12, 0xa4, 0x42, // Magic cookie
  0xb7, 0xe7, 0xa7, 0x01, // }
  0xbc, 0x34, 0xd6, 0x86, // }  Transaction ID
  0xfa, 0x87, 0xdf, 0xae, // }
  0x80, 0x22, 0x00, 0x0b, // SOFTWARE attribute header
  0x74, 0x65, 0x73, 0x74, // }
  0x20, 0x76, 0x65, 0x63, // }  UTF-8 server name
  0x74, 0x6f, 0x72, 0x20, // }
  0x00, 0x20, 0x00, 0x14, // XOR-MAPPED-ADDRESS attribute header
  0x00, 0x02, 0xa1, 0x47, // Address family (IPv6) and xor'd mapped port number
  0x01, 0x13, 0xa9, 0xfa, // }
  0xa5, 0xd3, 0xf1, 0x79, // }  Xor'd mapped IPv6 address
  0xbc, 0x25, 0xf4, 0xb5, // }
  0xbe, 0xd2, 0xb9, 0xd9, // }
  0x00, 0x08, 0x00, 0x14, // MESSAGE-INTEGRITY attribute header
  0xa3, 0x82, 0x95, 0x4e, // }
  0x4b, 0xe6, 0x7b, 0xf1, // }
  0x17, 0x84, 0xc9, 0x7c, // }  HMAC-SHA1 fingerprint
  0x82, 0x92, 0xc2, 0x75, // }
  0xbf, 0xe3, 0xed, 0x41, // }
  0x80, 0x28, 0x00, 0x04, // FINGERPRINT attribute header
  0xc8, 0xfb, 0x0b, 0x4c, // CRC32 fingerprint
});

stun::transport_address where(const char* address, std::uint16_t port) {
  return {boost::asio::ip::make_address(address), port};
}

/// One byte of a copy changed.
std::string flipped(std::string bytes, std::size_t at) {
  bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
  return bytes;
}

} // namespace

TEST_CASE("stun: RFC 5769 2.1 sample request is read and verifies", "[stun]") {
  stun::read_error why = stun::read_error::truncated;
  auto m = stun::read(sample_request, &why);
  REQUIRE(m);
  CHECK(why == stun::read_error::none);
  CHECK(m->type == static_cast<std::uint16_t>(stun::message_type::binding_request));
  CHECK(m->id == sample_id);
  REQUIRE(m->attributes.size() == 6);
  CHECK(m->find(stun::attribute_type::software)->value == "STUN test client");
  CHECK(m->find(stun::attribute_type::username)->value == "evtj:h6vY");
  CHECK(stun::integrity_ok(*m, password));
  CHECK(stun::fingerprint_ok(*m));
  CHECK_FALSE(stun::integrity_ok(*m, "VOkJxbRl1RmTxUk/WvJxBu"));
}

TEST_CASE("stun: the writer reproduces RFC 5769 2.1 byte for byte", "[stun]") {
  stun::message_writer w{stun::message_type::binding_request, sample_id, 0x20};
  w.add(stun::attribute_type::software, "STUN test client");
  w.add_u32(stun::attribute_type::priority, 0x6e0001ff);
  w.add_u64(stun::attribute_type::ice_controlled, 0x932ff9b151263b36);
  w.add(stun::attribute_type::username, "evtj:h6vY");
  REQUIRE(w.add_integrity(password));
  w.add_fingerprint();
  CHECK(w.bytes() == sample_request);
}

TEST_CASE("stun: RFC 5769 2.2 and 2.3 sample responses", "[stun]") {
  SECTION("IPv4: read, verified and written again") {
    auto m = stun::read(sample_ipv4_response);
    REQUIRE(m);
    CHECK(stun::integrity_ok(*m, password));
    CHECK(stun::fingerprint_ok(*m));
    auto mapped = stun::xor_mapped_address(*m);
    REQUIRE(mapped);
    CHECK(mapped->address == boost::asio::ip::make_address("192.0.2.1"));
    CHECK(mapped->port == 32853);

    stun::message_writer w{stun::message_type::binding_success, sample_id, 0x20};
    w.add(stun::attribute_type::software, "test vector");
    w.add_xor_mapped_address(where("192.0.2.1", 32853));
    REQUIRE(w.add_integrity(password));
    w.add_fingerprint();
    CHECK(w.bytes() == sample_ipv4_response);
    CHECK(stun::judge_response(sample_ipv4_response, sample_id, password)
          == stun::check_answer::success);
  }
  SECTION("IPv6: read, verified and written again") {
    auto m = stun::read(sample_ipv6_response);
    REQUIRE(m);
    CHECK(stun::integrity_ok(*m, password));
    CHECK(stun::fingerprint_ok(*m));
    auto mapped = stun::xor_mapped_address(*m);
    REQUIRE(mapped);
    CHECK(mapped->address == boost::asio::ip::make_address("2001:db8:1234:5678:11:2233:4455:6677"));
    CHECK(mapped->port == 32853);

    stun::message_writer w{stun::message_type::binding_success, sample_id, 0x20};
    w.add(stun::attribute_type::software, "test vector");
    w.add_xor_mapped_address(where("2001:db8:1234:5678:11:2233:4455:6677", 32853));
    REQUIRE(w.add_integrity(password));
    w.add_fingerprint();
    CHECK(w.bytes() == sample_ipv6_response);
  }
}

TEST_CASE("stun: a changed byte breaks integrity or fingerprint", "[stun]") {
  // A byte inside the HMAC's coverage (the mapped address) fails both checks; a byte of the
  // fingerprint itself fails only the fingerprint.
  auto changed_address = flipped(sample_ipv4_response, 44);
  auto m = stun::read(changed_address);
  REQUIRE(m);
  CHECK_FALSE(stun::integrity_ok(*m, password));
  CHECK_FALSE(stun::fingerprint_ok(*m));
  CHECK(stun::judge_response(changed_address, sample_id, password)
        == stun::check_answer::unrelated);

  auto changed_crc = flipped(sample_ipv4_response, sample_ipv4_response.size() - 1);
  auto n = stun::read(changed_crc);
  REQUIRE(n);
  CHECK(stun::integrity_ok(*n, password));
  CHECK_FALSE(stun::fingerprint_ok(*n));
}

TEST_CASE("stun: the Binding request of a connectivity check", "[stun]") {
  stun::binding_check check{"ansU:offU", stun::peer_reflexive_priority, 0x0102030405060708,
                            "answer-password-24-chars"};
  stun::transaction_id id{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  auto bytes = stun::binding_request(check, id);
  auto m = stun::read(bytes);
  REQUIRE(m);
  CHECK(m->type == 0x0001);
  CHECK(m->id == id);
  REQUIRE(m->attributes.size() == 5);
  // The order RFC 8489 §14.5 and §14.7 require: integrity, then fingerprint, last.
  CHECK(m->attributes[0].type == 0x0006);
  CHECK(m->attributes[0].value == "ansU:offU");
  CHECK(m->attributes[1].type == 0x0024);
  CHECK(m->attributes[1].value == bytes_of({0x6e, 0xff, 0xff, 0xff}));
  CHECK(m->attributes[2].type == 0x802A);
  CHECK(m->attributes[2].value == bytes_of({1, 2, 3, 4, 5, 6, 7, 8}));
  CHECK(m->attributes[3].type == 0x0008);
  CHECK(m->attributes[4].type == 0x8028);
  CHECK(stun::integrity_ok(*m, "answer-password-24-chars"));
  CHECK(stun::fingerprint_ok(*m));
  // USERNAME's 9 bytes are padded with zeros to 12.
  CHECK(bytes.substr(20 + 4 + 9, 3) == std::string(3, '\0'));
}

TEST_CASE("stun: judging responses to a check", "[stun]") {
  stun::transaction_id id{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1};
  auto response = [&](stun::message_type type, const stun::transaction_id& tid,
                      const std::string& key, bool fingerprint) {
    stun::message_writer w{type, tid};
    w.add_xor_mapped_address(where("203.0.113.7", 50000));
    REQUIRE(w.add_integrity(key));
    if (fingerprint)
      w.add_fingerprint();
    return w.bytes();
  };
  const std::string key = "the-answer-ice-password";
  CHECK(stun::judge_response(response(stun::message_type::binding_success, id, key, true), id, key)
        == stun::check_answer::success);
  // FINGERPRINT is optional to read (RFC 8489 §14.7); integrity is not.
  CHECK(stun::judge_response(response(stun::message_type::binding_success, id, key, false), id,
                             key)
        == stun::check_answer::success);
  CHECK(stun::judge_response(response(stun::message_type::binding_error, id, key, true), id, key)
        == stun::check_answer::error);
  CHECK(stun::judge_response(response(stun::message_type::binding_success, id, "wrong", true), id,
                             key)
        == stun::check_answer::bad_integrity);
  stun::transaction_id other = id;
  other[11] = 2;
  CHECK(stun::judge_response(response(stun::message_type::binding_success, other, key, true), id,
                             key)
        == stun::check_answer::unrelated);
  // A request is not an answer.
  CHECK(stun::judge_response(response(stun::message_type::binding_request, id, key, true), id,
                             key)
        == stun::check_answer::unrelated);
  // No MESSAGE-INTEGRITY at all.
  stun::message_writer bare{stun::message_type::binding_success, id};
  bare.add_fingerprint();
  CHECK(stun::judge_response(bare.bytes(), id, key) == stun::check_answer::bad_integrity);
}

TEST_CASE("stun: malformed datagrams are refused with a reason", "[stun]") {
  stun::read_error why = stun::read_error::none;
  CHECK_FALSE(stun::read(std::string(19, '\0'), &why));
  CHECK(why == stun::read_error::truncated);
  // Longer than the header says.
  CHECK_FALSE(stun::read(sample_ipv4_response + "xxxx", &why));
  CHECK(why == stun::read_error::truncated);
  // Wrong cookie; first bits set (an RTP packet, version 2); length not a multiple of four.
  CHECK_FALSE(stun::read(flipped(sample_ipv4_response, 4), &why));
  CHECK(why == stun::read_error::not_stun);
  auto rtp = sample_ipv4_response;
  rtp[0] = static_cast<char>(0x80);
  CHECK_FALSE(stun::read(rtp, &why));
  CHECK(why == stun::read_error::not_stun);
  auto odd = sample_ipv4_response;
  odd[3] = static_cast<char>(0x3d);
  CHECK_FALSE(stun::read(odd, &why));
  CHECK(why == stun::read_error::not_stun);
  // An attribute whose length runs past the end of the message.
  auto overrun = sample_ipv4_response;
  overrun[22] = static_cast<char>(0x7f);
  CHECK_FALSE(stun::read(overrun, &why));
  CHECK(why == stun::read_error::bad_attribute);
  // An attribute after FINGERPRINT.
  stun::message_writer w{stun::message_type::binding_success, sample_id};
  w.add_fingerprint();
  w.add(stun::attribute_type::software, "late");
  CHECK_FALSE(stun::read(w.bytes(), &why));
  CHECK(why == stun::read_error::bad_attribute);
  // XOR-MAPPED-ADDRESS with an unknown family or the wrong size reads as none.
  stun::message_writer bad_family{stun::message_type::binding_success, sample_id};
  bad_family.add(stun::attribute_type::xor_mapped_address, bytes_of({0, 3, 0, 1, 1, 2, 3, 4}));
  auto m = stun::read(bad_family.bytes());
  REQUIRE(m);
  CHECK_FALSE(stun::xor_mapped_address(*m));
}

TEST_CASE("crypto: HMAC-SHA1 matches RFC 2202 test case 2", "[crypto]") {
  // RFC 2202 §3, test_case 2: key "Jefe", data "what do ya want for nothing?".
  auto mac = hmac_sha1("Jefe", "what do ya want for nothing?");
  CHECK(hex_colon(mac) == "EF:FC:DF:6A:E5:EB:2F:A2:D2:74:16:D5:F1:84:DF:9C:25:9A:7C:79");
  // An empty key is a valid HMAC key (the key is zero-padded to the block).
  CHECK(hmac_sha1("", "x").size() == 20);
}

TEST_CASE("stun: no truncation reads, and no changed byte passes as a success", "[stun]") {
  // The header's length covers the whole sample, so every shorter prefix is refused.
  for (std::size_t n = 0; n < sample_ipv4_response.size(); ++n) {
    INFO("prefix of " << n << " bytes");
    CHECK_FALSE(stun::read(sample_ipv4_response.substr(0, n)));
  }
  // Every byte is under the HMAC, the FINGERPRINT or the transaction match: changing any one
  // of them, in any of its bits, must never give a success. The exception is the type of the
  // FINGERPRINT attribute (bytes 72 and 73): changed, it names an unknown attribute after
  // MESSAGE-INTEGRITY, which RFC 8489 §14.5 says to ignore, and the HMAC still proves who sent
  // everything before it.
  REQUIRE(stun::judge_response(sample_ipv4_response, sample_id, password)
          == stun::check_answer::success);
  for (std::size_t at = 0; at < sample_ipv4_response.size(); ++at) {
    for (unsigned bit = 0; bit < 8; ++bit) {
      auto changed = sample_ipv4_response;
      changed[at] = static_cast<char>(changed[at] ^ (1u << bit));
      INFO("byte " << at << " bit " << bit);
      auto judged = stun::judge_response(changed, sample_id, password);
      if (at == 72 || at == 73) {
        auto m = stun::read(changed);
        REQUIRE(m);
        CHECK(m->find(stun::attribute_type::fingerprint) == nullptr);
        CHECK(judged == stun::check_answer::success);
      } else {
        CHECK(judged != stun::check_answer::success);
      }
    }
  }
}
