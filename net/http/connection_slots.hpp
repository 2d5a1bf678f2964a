// Who may hold a connection: the accounting behind the listener's admission, without sockets.
//
// Slots are counted per source (an IPv4 address, or an IPv6 /64, which one subscriber usually
// holds whole), under a global cap that keeps a reserve: once the open connections pass the
// high-water mark (the cap less the reserve), a source already holding its small fair share
// is refused while sources holding less are still admitted, so one source or a hundred
// cannot take the slots other clients need. At the cap itself, the connection that has been
// idle longest (waiting for a request, owing nothing) is closed to make room.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

#include <boost/asio/ip/address.hpp>

namespace netherscope::net::http {

/// What one connection slot is counted against: an IPv4 address (an IPv4-mapped IPv6 address
/// is the IPv4 client it maps) or an IPv6 /64. Kept as 16 bytes: IPv4 in its mapped form.
struct connection_source {
  std::array<unsigned char, 16> bytes{};

  friend bool operator==(const connection_source& a, const connection_source& b) noexcept {
    return a.bytes == b.bytes;
  }
  friend bool operator!=(const connection_source& a, const connection_source& b) noexcept {
    return !(a == b);
  }
};

/// The source a peer address counts against: IPv4 (and IPv4-mapped IPv6) as the address,
/// other IPv6 as its /64.
connection_source source_of(const boost::asio::ip::address& peer);

/// The limits the accounting enforces.
struct slot_limits {
  /// Connections open at once, across all sources.
  std::size_t max_total = 10000;
  /// Connections one source may hold at any time.
  std::size_t max_per_source = 100;
  /// Slots kept for sources that hold few connections: past max_total - reserve, a source
  /// holding fair_share or more is refused.
  std::size_t reserve = 1000;
  /// What a source may hold once the reserve is being used.
  std::size_t fair_share = 8;
};

/// The reserve for a cap and a percentage of it (rounded up, so a nonzero percentage of a
/// small cap still keeps one slot), never the whole cap.
std::size_t reserve_for(std::size_t max_total, unsigned percent) noexcept;

/// Where a new connection stands under the rules.
enum class admission_rule {
  /// A free slot: admit.
  admit,
  /// Every slot is taken but the source is within its share: admit if an idle connection can
  /// be closed to make room, else refuse as full.
  admit_by_eviction,
  /// The source holds max_per_source already.
  refuse_source_full,
  /// Past the high-water mark, the source holds its fair share already.
  refuse_over_fair_share,
};

/// The rule for one more connection from a source holding `held` while `total` are open.
/// An exempt source (a trusted proxy, which carries many clients) is bound by the global cap
/// only.
admission_rule judge_admission(const slot_limits& limits, std::size_t total, std::size_t held,
                               bool exempt) noexcept;

/// What an admission attempt ended in.
enum class admission_verdict {
  admitted,
  /// Admitted in the slot of an idle connection, which the caller must now close.
  admitted_by_eviction,
  refused_source_full,
  refused_over_fair_share,
  /// Every slot taken and none idle.
  refused_full,
};

/// Counters since start, for logs and tests.
struct slot_stats {
  std::size_t open = 0;
  std::size_t idle = 0;
  std::uint64_t admitted = 0;
  std::uint64_t evicted = 0;
  std::uint64_t refused_source_full = 0;
  std::uint64_t refused_over_fair_share = 0;
  std::uint64_t refused_full = 0;
};

/// The slots of one server, shared by its listener and its sessions; every member is
/// thread-safe (one mutex: each call is a few hash-map steps).
class connection_slots {
public:
  /// A connection's entry; 0 is never issued.
  using ticket = std::uint64_t;

  /// The result of admit().
  struct admission {
    admission_verdict verdict = admission_verdict::refused_full;
    /// The new connection's ticket when admitted, else 0.
    ticket id = 0;
    /// With admitted_by_eviction: closes the idle connection whose slot was taken. Called by
    /// the caller after admit() returns, never under the lock.
    std::function<void()> evict;
  };

  explicit connection_slots(slot_limits limits);

  const slot_limits& limits() const noexcept {
    return limits_;
  }

  /// Takes a slot for a connection from source, or says why not. An exempt source is bound
  /// by the global cap only.
  admission admit(const connection_source& source, bool exempt);

  /// Sets what closes the connection if its slot is taken back. Until this is called the
  /// connection is never chosen for eviction.
  void attach(ticket id, std::function<void()> evict);

  /// Marks a connection idle (waiting for a request, owing nothing) or busy. The longest
  /// idle connection is the first evicted.
  void set_idle(ticket id, bool idle);

  /// Frees the slot of a connection that ended (a no-op for one already evicted, whose slot
  /// went to another connection).
  void release(ticket id);

  /// Connections the source holds now.
  std::size_t held_by(const connection_source& source) const;

  slot_stats stats() const;

private:
  struct entry {
    connection_source source;
    bool exempt = false;
    bool evicted = false;
    std::function<void()> evict;
    // The idle list, oldest first, runs through the entries themselves: the map's nodes
    // keep their addresses, and marking idle or busy, twice per request, allocates nothing.
    entry* older = nullptr;
    entry* newer = nullptr;
    bool idle = false;
  };

  struct source_hash {
    std::size_t operator()(const connection_source& s) const noexcept;
  };

  void unlink_idle(entry& e) noexcept;
  void forget_source(const connection_source& source) noexcept;

  slot_limits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<ticket, entry> entries_;
  std::unordered_map<connection_source, std::size_t, source_hash> per_source_;
  entry* oldest_idle_ = nullptr;
  entry* newest_idle_ = nullptr;
  ticket next_ticket_ = 1;
  /// Slots in use: every admitted connection not yet released, less the evicted ones.
  std::size_t open_ = 0;
  slot_stats stats_;
};

} // namespace netherscope::net::http
