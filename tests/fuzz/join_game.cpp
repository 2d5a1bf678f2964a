// Fuzzes what a join reads from a server after DTLS (net/join): the NetherNet segments of the
// reliable channel, the Bedrock batch inside them and the packets a server answers with, the
// DCEP messages, a STUN datagram from a candidate, and the worker's report as the service reads
// it back. One input is a run of messages, each `[u8 length][bytes]`, as a hostile server may
// send any number of any bytes on the channel.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "net/join/dcep.hpp"
#include "net/join/game.hpp"
#include "net/join/ice_agent.hpp"
#include "net/join/job.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace join = netherscope::net::join;
using netherscope::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input{reinterpret_cast<const char*>(data), size};

  join::reassembler segments;
  std::size_t pos = 0;
  while (pos < input.size()) {
    std::size_t n = static_cast<unsigned char>(input[pos++]);
    auto message = input.substr(pos, n);
    pos += message.size();
    join::read_dcep(message);
    auto whole = segments.add(message);
    require(!(whole.message && !whole.error.empty()), "a segment gives a message or an error");
    if (!whole.error.empty())
      break;
    if (whole.message) {
      require(whole.message->size() <= join::max_message_bytes, "messages stay under the bound");
      auto batch = join::read_batch(*whole.message);
      require(batch.error.empty() || !whole.message->empty() || batch.packets.empty(),
              "an empty message has no packets");
      require(batch.packets.size() <= 64, "at most 64 packets a batch");
      for (auto& p : batch.packets)
        if (auto* d = std::get_if<join::disconnect>(&p))
          require(d->message.size() <= join::max_disconnect_message, "messages are cut");
    }
  }

  // The whole input as one datagram from a candidate the join checks.
  join::ice_agent agent{{"ours", "our-password-0123456789", "them", "their-password-0123456"},
                        42,
                        {{{boost::asio::ip::make_address("127.0.0.1"), 19140}, "candidate:1"}}};
  agent.on_stun(input, {boost::asio::ip::make_address("127.0.0.1"), 19140}, {});
  require(!agent.selected(), "no pair is chosen before a check was sent");

  // The worker's report, as the service reads it back.
  if (auto r = join::report_from_json(input)) {
    require(r->tried.size() <= join::max_pairs, "at most eight pairs");
    require(!r->pair || *r->pair < r->tried.size(), "the pair is one of those tried");
  }
  return 0;
}
