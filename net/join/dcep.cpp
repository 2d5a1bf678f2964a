#include "net/join/dcep.hpp"

namespace netherscope::net::join {

std::string_view channel_label(channel c) {
  return c == channel::reliable ? "ReliableDataChannel" : "UnreliableDataChannel";
}

std::string open_message(channel c) {
  auto label = channel_label(c);
  std::string out;
  out.push_back('\x03');
  out.push_back(c == channel::reliable ? '\x00' : '\x81');
  out.append(2, '\0');  // priority
  out.append(4, '\0');  // reliability parameter: no retransmissions for 0x81
  out.push_back(static_cast<char>((label.size() >> 8) & 0xFF));
  out.push_back(static_cast<char>(label.size() & 0xFF));
  out.append(2, '\0');  // protocol length: NetherNet channels have none
  out.append(label);
  return out;
}

dcep_message read_dcep(std::string_view message) {
  if (message.empty())
    return dcep_message::unknown;
  switch (static_cast<unsigned char>(message[0])) {
    case 0x02:
      return dcep_message::ack;
    case 0x03:
      return dcep_message::open;
    default:
      return dcep_message::unknown;
  }
}

} // namespace netherscope::net::join
