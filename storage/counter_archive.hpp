// Usage counters kept after their window ends, which only a store whose counters do not expire
// by themselves keeps (LMDB; Redis expires each counter at the end of its window). The admin
// CLI lists a month's counters and prunes past months through it; storage::open returns it
// beside the store, or null.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <caf/expected.hpp>

namespace netherscope::storage {

/// One stored usage counter.
struct counter_entry {
  /// "info", "offer", "signin" or "rotate".
  std::string endpoint;
  /// "ip" or "key".
  std::string scope;
  /// The client's address or the account's user id.
  std::string subject;
  /// The window's label (storage::window_of or hour_of).
  std::string window;
  std::uint64_t count = 0;
};

/// The usage counters of past and present windows.
class counter_archive {
public:
  virtual ~counter_archive() = default;

  /// Every counter of this window, in key order (one read transaction).
  virtual caf::expected<std::vector<counter_entry>> counters_of(std::string_view window) = 0;

  /// Deletes every counter whose window label sorts before this one, in one write
  /// transaction; returns how many went.
  virtual caf::expected<std::size_t> prune_counters_before(std::string_view window) = 0;
};

} // namespace netherscope::storage
