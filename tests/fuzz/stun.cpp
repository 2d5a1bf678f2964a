// Fuzzes the STUN reader (RFC 8489 with the ICE attributes of RFC 8445) that judges what a
// target's UDP candidate sends back to our connectivity check. One input is one datagram, as
// a stranger's server may send any bytes to the socket the probe listens on.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "net/nethernet/stun.hpp"
#include "tests/fuzz/fuzz_check.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using netherscope::fuzz::require;

namespace {

/// The check's key: any key will do, since what is fuzzed is how a datagram is read.
constexpr std::string_view key = "fuzzing-ice-password-0123";

/// The transaction the datagram claims, so that judge_response gets past its first test.
stun::transaction_id claimed_transaction(std::string_view datagram) {
  stun::transaction_id id{};
  if (datagram.size() >= stun::header_size)
    std::memcpy(id.data(), datagram.data() + 8, id.size());
  return id;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view datagram{reinterpret_cast<const char*>(data), size};

  stun::read_error why = stun::read_error::none;
  auto message = stun::read(datagram, &why);
  auto id = claimed_transaction(datagram);
  auto answer = stun::judge_response(datagram, id, key);
  if (!message) {
    require(why != stun::read_error::none, "a refused datagram says why");
    require(answer == stun::check_answer::unrelated, "an unreadable datagram answers nothing");
    return 0;
  }
  require(message->raw.data() == datagram.data() && message->raw.size() == datagram.size(),
          "a message is the whole datagram");
  std::size_t next = stun::header_size;
  for (const auto& a : message->attributes) {
    require(a.offset >= next, "attributes follow each other");
    require(a.value.data() == datagram.data() + a.offset + 4, "a value follows its header");
    require(a.offset + 4 + a.value.size() <= datagram.size(), "a value lies inside the datagram");
    next = a.offset + 4 + a.value.size();
  }
  require(message->id == id, "the transaction is the header's");

  bool integrity = stun::integrity_ok(*message, key);
  bool fingerprint = stun::fingerprint_ok(*message);
  auto mapped = stun::xor_mapped_address(*message);
  if (answer == stun::check_answer::success || answer == stun::check_answer::error)
    require(integrity, "an answer is believed only with the right MESSAGE-INTEGRITY");
  (void)fingerprint;

  // What we write, we read back: the mapped address (if any) in a message we sign.
  stun::message_writer writer(stun::message_type::binding_success, id);
  if (mapped)
    writer.add_xor_mapped_address(*mapped);
  require(writer.add_integrity(key), "OpenSSL signs a message");
  writer.add_fingerprint();
  auto again = stun::read(writer.bytes());
  require(again.has_value(), "a written message reads");
  require(stun::integrity_ok(*again, key) && stun::fingerprint_ok(*again),
          "a written message verifies");
  require(stun::judge_response(writer.bytes(), id, key) == stun::check_answer::success,
          "a signed Binding success answers its check");
  if (mapped) {
    auto back = stun::xor_mapped_address(*again);
    require(back && back->address == mapped->address && back->port == mapped->port,
            "a mapped address survives writing and reading");
  }
  return 0;
}
