#include "base/log.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

#include <boost/json/serialize.hpp>

namespace netherscope::base::log {

namespace {

std::atomic<level> current_level{level::info};

std::string_view level_name(level lvl) {
  switch (lvl) {
    case level::debug:
      return "debug";
    case level::info:
      return "info";
    case level::warn:
      return "warn";
    case level::error:
      return "error";
  }
  return "info";
}

// RFC 3339 UTC with milliseconds, which log processors parse without configuration.
std::string timestamp() {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto secs = system_clock::to_time_t(now);
  auto millis = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  auto n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(millis));
  return buf;
}

} // namespace

bool parse_level(std::string_view text, level& out) {
  for (auto lvl : {level::debug, level::info, level::warn, level::error}) {
    if (text == level_name(lvl)) {
      out = lvl;
      return true;
    }
  }
  return false;
}

void set_level(level lvl) {
  current_level.store(lvl, std::memory_order_relaxed);
}

bool enabled(level lvl) {
  return lvl >= current_level.load(std::memory_order_relaxed);
}

void write(level lvl, std::string_view event, boost::json::object fields) {
  if (!enabled(lvl))
    return;
  boost::json::object line;
  line.reserve(fields.size() + 3);
  line["ts"] = timestamp();
  line["level"] = level_name(lvl);
  line["event"] = event;
  for (auto& field : fields)
    line[field.key()] = std::move(field.value());
  auto text = boost::json::serialize(line);
  text += '\n';
  // One write per line keeps lines whole when several threads log at once. A short write
  // to stdout (a full pipe) is retried; a failed one is dropped, since logging must never
  // take the service down.
  const char* data = text.data();
  size_t left = text.size();
  while (left > 0) {
    auto n = ::write(STDOUT_FILENO, data, left);
    if (n <= 0)
      break;
    data += n;
    left -= static_cast<size_t>(n);
  }
}

std::optional<std::uint64_t> sampler::admit(clock_type::time_point now) {
  std::lock_guard<std::mutex> guard{mutex_};
  if (written_ && now - last_ < period_) {
    ++held_;
    return std::nullopt;
  }
  written_ = true;
  last_ = now;
  auto held = held_;
  held_ = 0;
  return held;
}

void write_sampled(sampler& sampled, level lvl, std::string_view event,
                   boost::json::object fields) {
  if (!enabled(lvl))
    return;
  auto held = sampled.admit();
  if (!held)
    return;
  fields["suppressed"] = *held;
  write(lvl, event, std::move(fields));
}

} // namespace netherscope::base::log
