// GET /chart.svg?host=&port=&range=&metric=: a watched server's history as a small embeddable
// SVG (docs/WATCHES.md, "The chart"): a title line, an uptime band with one cell per time
// bucket coloured by verdict class, and the players over time under the server's limit; or,
// with metric=players, each hour's average and peak players alone. Light and dark by the
// viewer's colour scheme, no script, nothing loaded.
//
// Pure: the route reads the history slice and renders it here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/history_slice.hpp"
#include "core/verdict_codes.hpp"

namespace netherscope::net::http {

/// The chart's size in pixels; it scales as any SVG does.
inline constexpr unsigned chart_width = 320;
inline constexpr unsigned chart_height = 120;

/// No chart is longer than this, whatever the history holds.
inline constexpr std::size_t chart_max_bytes = 24 * 1024;

/// The smallest font size the chart uses, in pixels.
inline constexpr unsigned chart_min_font_px = 10;

/// One cell of the uptime band: the checks in its time bucket by class, and the class shown.
struct band_cell {
  /// The bucket's first second, Unix seconds.
  std::int64_t from = 0;
  std::uint64_t joinable = 0;
  std::uint64_t up = 0;
  std::uint64_t offline = 0;
  /// The class most checks had; a tie goes to the worse class (offline, then up); none
  /// without checks.
  core::verdict_class shown = core::verdict_class::none;
};

/// The band's cells, cell_count(slice.range) of them, oldest first: raw rows fall in the cell
/// holding their time, hours in the cell holding their start.
std::vector<band_cell> band_cells(const core::history_slice& slice);

/// A class's colours: the fill in light mode (also the one a renderer without CSS shows) and
/// in dark mode.
struct class_colours {
  std::string_view light;
  std::string_view dark;
};

/// The colours of a band cell of that class.
class_colours colours_of(core::verdict_class c);

/// The chart's one-line summary, used as its title and aria-label: "play.example.com:19132,
/// last 24h: joinable 99.9% of 288 checks, online 100.0%; players peak 12 of 100", or
/// "..., last 24h: no data yet"; with metric=players, "play.example.com:19132, last 7 days:
/// players avg 4.2, peak 12 of 100 (hourly)".
std::string chart_summary(std::string_view host, std::uint16_t port,
                          const core::history_slice& slice,
                          core::chart_metric metric = core::chart_metric::verdicts);

/// Renders the chart (chart_width x chart_height, at most chart_max_bytes). Every text from
/// outside (the host) is XML-escaped with xml_text (net/http/badge.hpp).
std::string render_chart(std::string_view host, std::uint16_t port,
                         const core::history_slice& slice,
                         core::chart_metric metric = core::chart_metric::verdicts);

} // namespace netherscope::net::http
