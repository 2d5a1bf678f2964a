// SCTP over the join's DTLS session (RFC 8261) with usrsctp, which runs no thread of its own
// here: usrsctp_init_nothreads, and every callback happens inside conninput, sendv or the timer
// call, on the caller's thread (PROTOCOL.md "SCTP over DTLS"). usrsctp keeps global state, so
// one process runs one association at a time: the join worker.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// usrsctp's socket, declared as its header does (at global scope).
struct socket;

namespace netherscope::net::join {

/// Something the association delivered.
struct sctp_delivery {
  enum class kind {
    /// A message on a stream.
    message,
    /// The association came up (SCTP_COMM_UP).
    up,
    /// The association went down, was refused or aborted.
    down,
    /// The peer reset a stream (how a data channel is closed).
    stream_reset,
  };
  kind what = kind::message;
  std::uint16_t stream = 0;
  std::uint32_t ppid = 0;
  std::string data;
};

/// One association, simultaneous open to the peer's port.
class sctp_association {
public:
  /// Called with each SCTP packet to send, as one DTLS record.
  using output_fn = std::function<void(std::string_view packet)>;

  /// Sets the stack up once per process and opens the socket; nullptr when usrsctp refuses.
  static std::unique_ptr<sctp_association> make(std::uint16_t local_port,
                                                std::uint16_t remote_port, output_fn output,
                                                std::string* why = nullptr);
  ~sctp_association();
  sctp_association(const sctp_association&) = delete;
  sctp_association& operator=(const sctp_association&) = delete;

  /// Sends INIT.
  bool connect();

  /// Takes one SCTP packet that came out of DTLS.
  void on_packet(std::string_view packet);

  /// Runs usrsctp's timers for the time since the last call.
  void on_timer(std::chrono::steady_clock::time_point now);

  /// Sends a message on a stream, ordered and reliable or unordered with no retransmission.
  bool send(std::uint16_t stream, std::uint32_t ppid, std::string_view data, bool ordered,
            bool reliable);

  /// Sends SHUTDOWN.
  void shutdown();

  /// Events since the last call, taken.
  std::vector<sctp_delivery> take_events();

  /// Internal: the callbacks' way in.
  void emit(std::string_view packet);
  void deliver(sctp_delivery e);

private:
  sctp_association() = default;

  struct ::socket* sock_ = nullptr;
  output_fn output_;
  std::uint16_t local_port_ = 0;
  std::uint16_t remote_port_ = 0;
  std::vector<sctp_delivery> events_;
  std::optional<std::chrono::steady_clock::time_point> last_timer_;
};

} // namespace netherscope::net::join
