// Watches as every room sees them: what a caller asks to watch, a watch as the API shows it,
// the operator's limits, and the answer of a watch call (docs/WATCHES.md, "Watches").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/failure.hpp"
#include "core/webhook.hpp"

namespace netherscope::core {

/// The longest period a watch may have: one check a day.
inline constexpr std::uint32_t max_watch_period_seconds = 86400;

/// A server to watch, as POST /api/watch names it.
struct watch_spec {
  /// Normalized as /api/check normalizes it (normalize_host).
  std::string host;
  std::uint16_t port = 19132;
  std::uint32_t period_seconds = 300;
  /// Whether its history and chart are anyone's to read.
  bool is_public = false;
};

/// One watch as the API shows it.
struct watch_view {
  /// 16 URL-safe characters (12 random bytes in base64url).
  std::string id;
  std::string host;
  std::uint16_t port = 19132;
  std::uint32_t period_seconds = 300;
  bool is_public = false;
  /// Unix seconds.
  std::int64_t created = 0;
  /// Its webhooks, oldest first: in a list, all of them; for a webhook made or tested, that
  /// one.
  std::vector<webhook_view> webhooks;
};

/// The operator's limits on watches (--watch-min-period, --watch-max-per-account).
struct watch_bounds {
  std::uint32_t min_period_seconds = 60;
  std::uint32_t max_period_seconds = max_watch_period_seconds;
  std::uint32_t max_per_account = 10;
};

/// What the watch actor answers: the watch made (one), the account's watches (a list), or
/// nothing for a deletion; for a webhook made or tested, its watch holding only it. error
/// says why not.
struct watch_answer {
  failure error;
  std::vector<watch_view> watches;
  /// The account's limit, shown with a list.
  std::uint32_t limit = 0;
  /// For a webhook made: its secret, shown this once and never again.
  std::string secret;
};

} // namespace netherscope::core
