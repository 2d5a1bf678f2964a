// Structured logging: one JSON object per line on stdout.
//
// Lines are written with a single write(2) each, so lines from different threads never
// interleave. Callers pass only fields that are safe to show: never keys, tokens or secrets.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>

#include <boost/json/object.hpp>

namespace netherscope::base::log {

/// Severity of a line; lines below the configured level are dropped.
enum class level { debug, info, warn, error };

/// Parses "debug", "info", "warn" or "error"; returns false for anything else.
bool parse_level(std::string_view text, level& out);

/// Sets the lowest level that is written.
void set_level(level lvl);

/// Whether a line at lvl would be written.
bool enabled(level lvl);

/// Writes {"ts":...,"level":...,"event":event, ...fields} as one line.
void write(level lvl, std::string_view event, boost::json::object fields = {});

/// Lets one line of a repeating event through per period, and counts the ones it held back,
/// so a failure that repeats on every call (a store that is down) shows in the log without
/// flooding it. Thread-safe.
class sampler {
public:
  using clock_type = std::chrono::steady_clock;

  explicit sampler(clock_type::duration period) : period_(period) {
    // nop
  }

  /// When a line may be written at now: how many were held back since the last one written.
  /// nullopt: hold this one back.
  std::optional<std::uint64_t> admit(clock_type::time_point now = clock_type::now());

private:
  clock_type::duration period_;
  std::mutex mutex_;
  bool written_ = false;
  clock_type::time_point last_{};
  std::uint64_t held_ = 0;
};

/// Writes the line when sampled admits it, with "suppressed": the lines held back before it.
void write_sampled(sampler& sampled, level lvl, std::string_view event,
                   boost::json::object fields = {});

} // namespace netherscope::base::log
