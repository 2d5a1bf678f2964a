// Structured logging: one JSON object per line on stdout.
//
// Lines are written with a single write(2) each, so lines from different threads never
// interleave. Callers pass only fields that are safe to show: never keys, tokens or secrets.
#pragma once

#include <string_view>

#include <boost/json/object.hpp>

namespace netherscope::log {

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

} // namespace netherscope::log
