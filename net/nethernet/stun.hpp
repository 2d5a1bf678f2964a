// STUN messages (RFC 8489, which obsoletes RFC 5389, with the ICE attributes of RFC 8445 §16.1)
// as pure functions over bytes: writing a Binding request for an ICE connectivity check and
// reading the response, with MESSAGE-INTEGRITY (HMAC-SHA1 under the short-term key, §14.5) and
// FINGERPRINT (CRC-32 XOR 0x5354554e, §14.7).
//
// Only what a connectivity check needs is here: no long-term credentials, no
// MESSAGE-INTEGRITY-SHA256, no TURN. Reading never trusts a length it has not checked against
// the datagram, so any bytes a stranger sends give a value or an error, never a crash.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace netherscope::net::nethernet::stun {

/// The fixed value in every RFC 5389 / 8489 header (§5).
constexpr std::uint32_t magic_cookie = 0x2112A442;

/// The header's size in bytes.
constexpr std::size_t header_size = 20;

/// FINGERPRINT is the CRC-32 of the message XORed with this ("STUN" in ASCII, §14.7).
constexpr std::uint32_t fingerprint_xor = 0x5354554e;

/// Message types (method and class combined, §5): the Binding method's request and answers.
enum class message_type : std::uint16_t {
  binding_request = 0x0001,
  binding_success = 0x0101,
  binding_error = 0x0111,
};

/// Attribute types this service writes or reads (RFC 8489 §18.3, RFC 8445 §16.1).
enum class attribute_type : std::uint16_t {
  username = 0x0006,
  message_integrity = 0x0008,
  error_code = 0x0009,
  xor_mapped_address = 0x0020,
  priority = 0x0024,
  use_candidate = 0x0025,
  software = 0x8022,
  fingerprint = 0x8028,
  ice_controlled = 0x8029,
  ice_controlling = 0x802A,
};

/// A transaction ID: 96 bits, random per transaction (§5).
using transaction_id = std::array<std::uint8_t, 12>;

/// A fresh transaction id from OpenSSL's CSPRNG (all zero in the unlikely case that it
/// fails: a check only needs its id to be unlikely to collide with another's).
transaction_id random_transaction();

/// An IP address and port, as XOR-MAPPED-ADDRESS carries it.
struct transport_address {
  boost::asio::ip::address address;
  std::uint16_t port = 0;
};

/// Writes one message: the header, then attributes in the order they are added. Values are
/// padded to four bytes with `padding` (zero unless a test reproduces a sample that pads with
/// another byte; §14 lets the sender choose). MESSAGE-INTEGRITY and FINGERPRINT cover what was
/// added before them, so they are added last, in that order.
class message_writer {
public:
  /// Starts a message of the given type and transaction.
  message_writer(message_type type, const transaction_id& id, std::uint8_t padding = 0);

  /// Adds an attribute with the given value; values longer than 65535 bytes are cut there
  /// (the length field has 16 bits; nothing this service sends comes close).
  message_writer& add(attribute_type type, std::string_view value);

  /// Adds a 32-bit attribute (PRIORITY) in network byte order.
  message_writer& add_u32(attribute_type type, std::uint32_t value);

  /// Adds a 64-bit attribute (ICE-CONTROLLING, ICE-CONTROLLED) in network byte order.
  message_writer& add_u64(attribute_type type, std::uint64_t value);

  /// Adds XOR-MAPPED-ADDRESS (§14.2), XORed with the cookie and, for IPv6, the transaction.
  message_writer& add_xor_mapped_address(const transport_address& where);

  /// Adds MESSAGE-INTEGRITY: HMAC-SHA1 under key over the message so far, its length field
  /// counting this attribute (§14.5). For ICE the key is the peer's ice-pwd as it is written.
  /// Returns false when OpenSSL fails (the message is then unusable).
  bool add_integrity(std::string_view key);

  /// Adds FINGERPRINT over the message so far (§14.7).
  message_writer& add_fingerprint();

  /// The message's bytes.
  const std::string& bytes() const noexcept {
    return bytes_;
  }

private:
  void set_length(std::size_t body_bytes);
  void add_header(attribute_type type, std::size_t length);

  std::string bytes_;
  std::uint8_t padding_;
  transaction_id id_;
};

/// One attribute of a message that was read, pointing into the datagram.
struct attribute {
  std::uint16_t type = 0;
  std::string_view value;
  /// Where the attribute's header begins in the datagram.
  std::size_t offset = 0;
};

/// Why a datagram is not a STUN message this service can read.
enum class read_error {
  none,
  /// Shorter than a header, or longer than the header's length says.
  truncated,
  /// The first two bits are not zero, the cookie is wrong, or the length is not a multiple
  /// of four (§6: this is how STUN is told from other protocols on one port).
  not_stun,
  /// An attribute runs past the end, or FINGERPRINT is not last (§14.7).
  bad_attribute,
};

/// A message that was read; its views point into the datagram given to read().
struct message {
  std::uint16_t type = 0;
  transaction_id id{};
  std::vector<attribute> attributes;
  /// The whole datagram.
  std::string_view raw;

  /// The first attribute of this type, or null.
  const attribute* find(attribute_type t) const noexcept;
};

/// Reads a datagram as a STUN message; on failure returns nullopt and sets why when given.
std::optional<message> read(std::string_view datagram, read_error* why = nullptr);

/// Whether the message has a MESSAGE-INTEGRITY attribute that is right for key (§14.5): its
/// HMAC covers the message before it, with the header's length counting up to its end.
/// Attributes after it other than FINGERPRINT are ignored, as the RFC requires.
bool integrity_ok(const message& m, std::string_view key);

/// Whether the message has a FINGERPRINT and it is right.
bool fingerprint_ok(const message& m);

/// The address in XOR-MAPPED-ADDRESS, when the message has a well-formed one.
std::optional<transport_address> xor_mapped_address(const message& m);

/// What an ICE connectivity check (RFC 8445 §7.2.2) says about the agent that sends it.
struct binding_check {
  /// "<answer ufrag>:<offer ufrag>": the peer's fragment first (RFC 8445 §7.2.2).
  std::string username;
  /// The priority a peer-reflexive candidate of ours would have (§7.2.2, §5.1.2).
  std::uint32_t priority = 0;
  /// Our tie-breaker (§7.3.1.1), random per session.
  std::uint64_t tie_breaker = 0;
  /// The peer's ice-pwd: the short-term key of the check and of its response.
  std::string key;
  /// Whether the check nominates its pair (USE-CANDIDATE, RFC 8445 §7.2.2): a join's checks
  /// do (aggressive nomination); the reachability probe's do not.
  bool use_candidate = false;
};

/// The priority RFC 8445 §5.1.2.1 gives a peer-reflexive candidate on component 1 with the
/// highest local preference: (2^24)*110 + (2^8)*65535 + (256 - 1).
constexpr std::uint32_t peer_reflexive_priority = (110u << 24) | (65535u << 8) | 255u;

/// A Binding request for one check: USERNAME, PRIORITY, ICE-CONTROLLING (we made the offer,
/// so we are the controlling agent, RFC 8445 §6.1.1), USE-CANDIDATE when asked,
/// MESSAGE-INTEGRITY, FINGERPRINT. Empty when OpenSSL fails.
std::string binding_request(const binding_check& check, const transaction_id& id);

/// How a datagram answers a check.
enum class check_answer {
  /// Not a response to this transaction (another transaction, not STUN, unreadable).
  unrelated,
  /// A Binding success whose MESSAGE-INTEGRITY (and FINGERPRINT, when present) verify.
  success,
  /// A Binding error response whose integrity verifies (a role conflict, a bad request).
  error,
  /// A response to this transaction whose MESSAGE-INTEGRITY is missing or wrong: someone
  /// who does not know the peer's ice-pwd answered, or the peer used another key.
  bad_integrity,
};

/// A Binding success answering the request `request` that came from `from`: the same
/// transaction, XOR-MAPPED-ADDRESS, MESSAGE-INTEGRITY under key (our ice-pwd, which the
/// request was keyed with) and FINGERPRINT. Empty when OpenSSL fails.
std::string binding_success(const message& request, const transport_address& from,
                            std::string_view key);

/// Judges a datagram received for the check with this transaction and key.
check_answer judge_response(std::string_view datagram, const transaction_id& id,
                            std::string_view key);

} // namespace netherscope::net::nethernet::stun
