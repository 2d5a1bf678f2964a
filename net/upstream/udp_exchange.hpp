// A small request and answer over UDP to a target's own port: one datagram per try, a few tries
// within about a second, and the first reply the caller's judge accepts (a status ping such as
// RakNet's unconnected ping; docs/PROTOCOL.md, "RakNet status").
//
// What the datagrams say is not known here, as in ice_check: the caller makes each try's bytes
// and judges each reply (net/report/raknet_status writes and reads RakNet). The target's name
// is resolved once; only addresses the address policy allows are sent to, the same policy and
// the same words as the HTTP client's. Each address gets its own socket, connected to the
// target's address and port, so the kernel drops datagrams from anyone else (and each reply's
// source is still checked); a connected socket also hears ICMP port unreachable, which tells
// "nothing listens on that UDP port" apart from "no answer".
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

#include "net/upstream/address_policy.hpp"
#include "net/upstream/dns.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net::upstream {

/// What a reply is to the exchange, as the caller's judge says.
enum class reply_verdict : std::uint8_t {
  /// Not an answer to this exchange: ignored.
  unrelated,
  /// The answer: the exchange ends with it.
  accepted,
  /// Meant as an answer but broken: remembered, and the exchange waits on for a good one.
  malformed,
};

/// The judge's word on one reply.
struct reply_judgement {
  reply_verdict verdict = reply_verdict::unrelated;
  /// For accepted: which try it answers, so the latency is measured from that try.
  std::size_t try_index = 0;
  /// For malformed: why, as a clause that follows "UDP host:port answered, but" ("it lacks
  /// RakNet's offline magic").
  std::string reason;
};

/// One exchange: where to, what to send, how to judge what comes back.
struct udp_exchange_request {
  /// The target's DNS name or IP literal (without brackets), looked up unless addresses is set.
  std::string host;
  std::uint16_t port = 0;
  /// Addresses already resolved for host; when not empty, nothing is looked up.
  std::vector<boost::asio::ip::address> addresses;
  /// The datagram of try i (counted from 0), made when the try leaves.
  std::function<std::string(std::size_t try_index)> datagram;
  /// Judges a datagram that came from the target's address and port.
  std::function<reply_judgement(std::string_view datagram)> judge;
  /// When every try ends, counted from the first try; zero means the settings' deadline, and
  /// a later one than that is cut to it.
  std::chrono::milliseconds deadline{0};
};

/// How an exchange ended.
enum class udp_outcome : std::uint8_t {
  /// The judge accepted a reply.
  answered,
  /// Every address answered with ICMP port unreachable: nothing listens on that UDP port.
  no_listener,
  /// Nothing the judge accepted came back before the deadline, and nothing broken either.
  timeout,
  /// Only replies the judge called malformed came back.
  malformed,
  /// The address policy refused every address; nothing was sent.
  forbidden,
  /// The name has no address, or the lookup failed.
  lookup_failed,
  /// No name server answered in time.
  lookup_timeout,
  /// No datagram could be sent, or the network said the host cannot be reached.
  unreachable,
};

/// The end of one exchange.
struct udp_exchange_result {
  udp_outcome outcome = udp_outcome::timeout;
  /// For answered: the accepted datagram.
  std::string reply;
  /// For answered: milliseconds from the try it answers to its arrival.
  double latency_ms = -1;
  /// For answered: which try it answers.
  std::size_t try_index = 0;
  /// For answered: the address that answered; otherwise the first one tried, if any.
  std::string address;
  /// How many tries left (each try sends one datagram to each address).
  std::size_t tries_sent = 0;
  /// For every other outcome: a sentence for the caller, such as "target 10.0.0.5:19132
  /// refused: 10.0.0.5 is private-use (10.0.0.0/8)" or "UDP 203.0.113.7:19132 answered, but
  /// it lacks RakNet's offline magic".
  std::string message;
};

/// The tries and their deadline.
struct udp_exchange_settings {
  /// When each try leaves, from the first: a lost datagram is sent again while a reply to
  /// the first could still come.
  std::vector<std::chrono::milliseconds> schedule{std::chrono::milliseconds{0},
                                                  std::chrono::milliseconds{250},
                                                  std::chrono::milliseconds{600}};
  /// When the exchange ends without an accepted reply, from the first try.
  std::chrono::milliseconds deadline{1000};
  /// How long the name may take to resolve, before the first try.
  std::chrono::milliseconds lookup_timeout{5000};
  /// The most addresses of one name sent to at once (a name may have hundreds).
  std::size_t max_addresses = 2;
  /// The largest reply read; a longer one is malformed, never cut and judged.
  std::size_t max_reply = 1500;
};

/// Runs UDP exchanges on an io_context; thread-safe, cheap to share.
class udp_exchanger {
public:
  /// An exchanger that looks names up with resolver (which may be null if every request
  /// brings its addresses) and sends only where policy allows.
  udp_exchanger(boost::asio::io_context& ioc, std::shared_ptr<dns_resolver> resolver,
                address_policy policy, udp_exchange_settings settings = {});

  /// Runs one exchange; done runs exactly once, on an io thread, and must not block.
  void run(udp_exchange_request request, std::function<void(udp_exchange_result&&)> done);

  struct state;

private:
  std::shared_ptr<state> state_;
};

/// The outcome as the API writes it: "answered", "no_listener", "timeout", "malformed",
/// "forbidden", "lookup_failed", "lookup_timeout", "unreachable".
std::string_view to_string(udp_outcome outcome);

} // namespace netherscope::net::upstream
