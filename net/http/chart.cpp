#include "net/http/chart.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "core/history_days.hpp"
#include "core/host_port.hpp"
#include "net/http/badge.hpp"

namespace netherscope::net::http {

namespace {

using core::verdict_class;

// The layout, in pixels of the 320 x 120 canvas.
constexpr int left = 8;
constexpr int right = 312;
constexpr int plot_width = right - left;
constexpr int title_y = 15;
constexpr int band_y = 22;
constexpr int band_height = 14;
constexpr int plot_top = 44;
constexpr int plot_bottom = 100;
constexpr int peak_y = 55;
constexpr int footer_y = 114;
constexpr unsigned title_px = 11;
constexpr unsigned small_px = chart_min_font_px;
constexpr std::size_t longest_host = 253;

// Each drawn part has a class; the light colours are written as attributes (what a renderer
// without CSS shows), and the style sheet swaps in the dark ones when the viewer prefers dark.
struct paint {
  std::string_view css_class;
  std::string_view property;
  std::string_view light;
  std::string_view dark;
};

constexpr std::array<paint, 4> band_paints{{
  {"j", "fill", "#2e8540", "#3fb950"},
  {"u", "fill", "#d4a72c", "#d29922"},
  {"o", "fill", "#c1432e", "#f85149"},
  {"n", "fill", "#d0d7de", "#30363d"},
}};

constexpr paint background{"bg", "fill", "#ffffff", "#0d1117"};
constexpr paint text_paint{"t", "fill", "#24292f", "#e6edf3"};
constexpr paint muted{"m", "fill", "#57606a", "#8b949e"};
constexpr paint line{"l", "stroke", "#0969da", "#58a6ff"};
constexpr paint area{"a", "fill", "#0969da", "#58a6ff"};
constexpr paint ceiling{"c", "stroke", "#8c959f", "#6e7681"};
constexpr paint axis{"x", "stroke", "#d0d7de", "#30363d"};
// The halo behind a label drawn over the players' line: the background's colour.
constexpr paint halo{"h", "stroke", "#ffffff", "#0d1117"};
// With metric=players: the hourly peak's line and area, apart from the average's.
constexpr paint peak_line{"p", "stroke", "#8250df", "#a371f7"};
constexpr paint peak_area{"q", "fill", "#8250df", "#a371f7"};
// With metric=players there is no band, so the plot starts under the title.
constexpr int players_plot_top = 26;

const paint& band_paint(verdict_class c) {
  switch (c) {
    case verdict_class::joinable:
      return band_paints[0];
    case verdict_class::up:
      return band_paints[1];
    case verdict_class::offline:
      return band_paints[2];
    default:
      return band_paints[3];
  }
}

std::string dark_style() {
  std::string css = "@media (prefers-color-scheme:dark){";
  auto rule = [&](const paint& p) {
    css.append(".").append(p.css_class).append("{").append(p.property).append(":");
    css.append(p.dark).append("}");
  };
  for (const auto& p : band_paints)
    rule(p);
  for (const auto* p : {&background, &text_paint, &muted, &line, &area, &ceiling, &axis, &halo,
                        &peak_line, &peak_area})
    rule(*p);
  css += "}";
  return css;
}

/// class="x" fill="#..." (or stroke) for a part.
std::string painted(const paint& p) {
  return "class=\"" + std::string{p.css_class} + "\" " + std::string{p.property} + "=\""
         + std::string{p.light} + "\"";
}

std::string n(long long v) {
  return std::to_string(v);
}

/// What the range is called in words: "24 hours", "7 days", ...
std::string_view range_words(core::history_range range) {
  switch (range) {
    case core::history_range::day:
      return "24 hours";
    case core::history_range::week:
      return "7 days";
    case core::history_range::month:
      return "30 days";
    default:
      return "90 days";
  }
}

/// The players over the plot's columns (one per pixel): the greatest count seen in each, or
/// none; and the greatest limit over the whole slice.
struct players_series {
  std::vector<std::optional<std::uint32_t>> columns;
  std::optional<std::uint32_t> peak;
  std::optional<std::uint32_t> limit;
};

/// The plot's column (one per pixel) holding a time of the window.
std::int64_t column_of(const core::history_window& window, std::int64_t t) {
  auto length = std::max<std::int64_t>(window.to - window.from, 1);
  auto c = (t - window.from) * plot_width / length;
  return std::clamp<std::int64_t>(c, 0, plot_width - 1);
}

players_series series_of(const core::history_slice& slice) {
  players_series s;
  s.columns.assign(plot_width, std::nullopt);
  auto from = slice.window.from;
  auto column = [&](std::int64_t t) { return column_of(slice.window, t); };
  // A count holds from its time until the next one, or for at most a cell.
  auto cover = [&](std::int64_t t0, std::int64_t t1, std::uint32_t value) {
    if (t1 <= from || t0 >= slice.window.to)
      return;
    for (auto c = column(t0); c <= column(std::max(t0, t1 - 1)); ++c) {
      auto& slot = s.columns[static_cast<std::size_t>(c)];
      slot = std::max(slot.value_or(0), value);
    }
    s.peak = std::max(s.peak.value_or(0), value);
  };
  auto note_limit = [&](const std::optional<std::uint32_t>& limit) {
    if (limit)
      s.limit = std::max(s.limit.value_or(0), *limit);
  };
  if (core::uses_hours(slice.range)) {
    for (const auto& h : slice.hours) {
      note_limit(h.max_players);
      if (h.player_samples > 0)
        cover(h.start, h.start + 3600, h.players_max);
    }
  } else {
    auto cell = core::cell_seconds(slice.range);
    for (std::size_t i = 0; i < slice.rows.size(); ++i) {
      const auto& row = slice.rows[i];
      note_limit(row.max_players);
      if (!row.players)
        continue;
      auto until = std::min(row.at + cell, slice.window.to);
      if (i + 1 < slice.rows.size())
        until = std::min(until, std::max(slice.rows[i + 1].at, row.at + 1));
      cover(row.at, until, *row.players);
    }
  }
  return s;
}

/// The steps through columns [b, e) of ys, from the left edge of b: "h3V40h1...".
std::string step_commands(const std::vector<int>& ys, std::size_t b, std::size_t e) {
  std::string out;
  int y = ys[b];
  int run = 0;
  for (auto i = b; i < e; ++i) {
    if (ys[i] != y) {
      out += "h" + n(run) + "V" + n(ys[i]);
      y = ys[i];
      run = 0;
    }
    ++run;
  }
  out += "h" + n(run);
  return out;
}

/// A value's height in a plot from top to bottom whose top stands for top_value.
int y_in(double v, double top_value, int top, int bottom) {
  return bottom - static_cast<int>(v * static_cast<double>(bottom - top) / top_value + 0.5);
}

/// The area under and the line along the columns' heights (-1 for a column without a value),
/// one subpath per run of columns with values.
struct run_paths {
  std::string area;
  std::string line;
};

run_paths paths_of(const std::vector<int>& ys) {
  run_paths out;
  for (std::size_t b = 0; b < ys.size();) {
    if (ys[b] < 0) {
      ++b;
      continue;
    }
    auto e = b;
    while (e < ys.size() && ys[e] >= 0)
      ++e;
    auto x = n(left + static_cast<int>(b));
    auto steps = step_commands(ys, b, e);
    out.area += "M" + x + " " + n(plot_bottom) + "V" + n(ys[b]) + steps + "V" + n(plot_bottom)
                + "Z";
    out.line += "M" + x + " " + n(ys[b]) + steps;
    b = e;
  }
  return out;
}

/// The player limit as a faint dashed ceiling.
void draw_ceiling(std::string& svg, int y) {
  svg += "<path " + painted(ceiling) + " stroke-dasharray=\"2 3\" d=\"M" + n(left) + " " + n(y)
         + "H" + n(right) + "\"/>";
}

/// The players' area and line, one subpath per run of columns with counts.
void draw_players(std::string& svg, const players_series& s) {
  double top_value = std::max<std::uint32_t>({s.limit.value_or(0), s.peak.value_or(0), 1});
  auto y_of = [&](std::uint32_t v) { return y_in(v, top_value, plot_top, plot_bottom); };
  if (s.limit)
    draw_ceiling(svg, y_of(*s.limit));
  std::vector<int> ys(s.columns.size(), -1);
  for (std::size_t c = 0; c < s.columns.size(); ++c)
    if (s.columns[c])
      ys[c] = y_of(*s.columns[c]);
  auto paths = paths_of(ys);
  if (paths.line.empty())
    return;
  svg += "<path " + painted(area) + " fill-opacity=\".15\" d=\"" + paths.area + "\"/>";
  svg += "<path " + painted(line) + " fill=\"none\" stroke-width=\"1.5\" d=\"" + paths.line
         + "\"/>";
}

/// For metric=players: each hour's average and peak over the plot's columns, and the
/// window's hours summed.
struct hourly_series {
  std::vector<std::optional<double>> avg;
  std::vector<std::optional<double>> peak;
  core::history_span total;
};

hourly_series hourly_of(const core::history_slice& slice) {
  auto hours = core::uses_hours(slice.range) ? slice.hours : core::fold_hours(slice.rows);
  hours.erase(std::remove_if(hours.begin(), hours.end(),
                             [&](const core::history_hour& h) {
                               return h.start + 3600 <= slice.window.from
                                      || h.start >= slice.window.to;
                             }),
              hours.end());
  hourly_series s;
  s.avg.assign(plot_width, std::nullopt);
  s.peak.assign(plot_width, std::nullopt);
  s.total = core::total_of(hours);
  for (const auto& h : hours) {
    auto avg = h.players_avg();
    if (!avg)
      continue;
    auto first = column_of(slice.window, std::max(h.start, slice.window.from));
    auto last = column_of(slice.window, std::min(h.start + 3600, slice.window.to) - 1);
    for (auto c = first; c <= last; ++c) {
      auto i = static_cast<std::size_t>(c);
      // Where two hours share a column (90 days is 7 hours a pixel), the higher shows.
      s.avg[i] = std::max(s.avg[i].value_or(0), *avg);
      s.peak[i] = std::max(s.peak[i].value_or(0), static_cast<double>(h.players_max));
    }
  }
  return s;
}

/// An average as the chart writes it: one decimal.
std::string one_decimal(double v) {
  auto tenths = static_cast<long long>(v * 10.0 + 0.5);
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}

/// "avg 4.2, peak 12 of 100", or empty without player counts.
std::string hourly_words(const core::history_span& total) {
  auto avg = total.players_avg();
  if (!avg)
    return {};
  auto words = "avg " + one_decimal(*avg) + ", peak " + std::to_string(total.players_max);
  if (total.max_players)
    words += " of " + std::to_string(*total.max_players);
  return words;
}

/// The peaks as an area with its line, the averages as a line over it, under the limit.
void draw_hourly(std::string& svg, const hourly_series& s) {
  double top_value = std::max<std::uint32_t>(
    {s.total.max_players.value_or(0), s.total.players_max, 1});
  auto y_of = [&](double v) { return y_in(v, top_value, players_plot_top, plot_bottom); };
  if (s.total.max_players)
    draw_ceiling(svg, y_of(*s.total.max_players));
  auto ys_of = [&](const std::vector<std::optional<double>>& columns) {
    std::vector<int> ys(columns.size(), -1);
    for (std::size_t c = 0; c < columns.size(); ++c)
      if (columns[c])
        ys[c] = y_of(*columns[c]);
    return ys;
  };
  auto peaks = paths_of(ys_of(s.peak));
  auto avgs = paths_of(ys_of(s.avg));
  if (peaks.line.empty())
    return;
  svg += "<path " + painted(peak_area) + " fill-opacity=\".15\" d=\"" + peaks.area + "\"/>";
  svg += "<path " + painted(peak_line) + " fill=\"none\" stroke-width=\"1\" d=\"" + peaks.line
         + "\"/>";
  svg += "<path " + painted(line) + " fill=\"none\" stroke-width=\"1.5\" d=\"" + avgs.line
         + "\"/>";
}

/// "host:port", with the host cut and ended with an ellipsis until the text fits max_px at
/// the title's size.
std::string fitted_address(std::string_view host, std::uint16_t port, unsigned max_px) {
  auto shown = core::host_for_url(host.substr(0, longest_host));
  auto tail = ":" + std::to_string(port);
  auto text = shown + tail;
  while (badge_text_width(text) > max_px && shown.size() > 1) {
    shown.pop_back();
    text = shown + "\xE2\x80\xA6" + tail;
  }
  return text;
}

/// Text of the chart: escaped, in the chart's font, at size px.
std::string text_element(int x, int y, unsigned px, std::string_view anchor,
                         const std::string& attributes, std::string_view content) {
  return "<text x=\"" + n(x) + "\" y=\"" + n(y) + "\" font-size=\"" + n(px)
         + "\" text-anchor=\"" + std::string{anchor} + "\" " + attributes + ">"
         + xml_text(content, 400) + "</text>";
}

/// A label's attributes over the plot's lines: muted, with a halo of the background's colour
/// around each glyph.
std::string halo_label() {
  return "class=\"" + std::string{muted.css_class} + " " + std::string{halo.css_class}
         + "\" fill=\"" + std::string{muted.light} + "\" stroke=\"" + std::string{halo.light}
         + "\" stroke-width=\"3\" paint-order=\"stroke\"";
}

std::string players_words(const players_series& s) {
  if (!s.peak)
    return {};
  auto words = "peak " + std::to_string(*s.peak);
  if (s.limit)
    words += " of " + std::to_string(*s.limit);
  return words;
}

std::string summary_head(std::string_view host, std::uint16_t port, core::history_range range) {
  return core::host_for_url(host.substr(0, longest_host)) + ":" + std::to_string(port)
         + ", last " + std::string{range_words(range)} + ": ";
}

/// For metric=players: "host:port, last 7 days: players avg 4.2, peak 12 of 100 (hourly)".
std::string hourly_summary(std::string_view host, std::uint16_t port,
                           core::history_range range, const hourly_series& series) {
  auto text = summary_head(host, port, range);
  if (series.total.checks == 0)
    return text + "no data yet";
  auto words = hourly_words(series.total);
  return text + (words.empty() ? "no player counts" : "players " + words + " (hourly)");
}

std::string summary_of(std::string_view host, std::uint16_t port, core::history_range range,
                       const core::uptime& up, const players_series& series) {
  auto text = summary_head(host, port, range);
  if (up.checks == 0)
    return text + "no data yet";
  text += "joinable " + core::percent_text(*up.joinable_share()) + " of "
          + std::to_string(up.checks) + (up.checks == 1 ? " check" : " checks") + ", online "
          + core::percent_text(*up.online_share());
  auto players = players_words(series);
  if (!players.empty())
    text += "; players " + players;
  return text;
}

} // namespace

std::vector<band_cell> band_cells(const core::history_slice& slice) {
  auto count = core::cell_count(slice.range);
  auto width = core::cell_seconds(slice.range);
  std::vector<band_cell> cells(count);
  for (std::size_t i = 0; i < count; ++i)
    cells[i].from = slice.window.from + static_cast<std::int64_t>(i) * width;
  auto cell_at = [&](std::int64_t t) -> band_cell* {
    if (t < slice.window.from || t >= slice.window.to)
      return nullptr;
    return &cells[static_cast<std::size_t>((t - slice.window.from) / width)];
  };
  if (core::uses_hours(slice.range)) {
    for (const auto& h : slice.hours)
      if (auto* cell = cell_at(h.start)) {
        cell->joinable += h.joinable;
        cell->up += h.online - h.joinable;
        cell->offline += h.checks - h.online;
      }
  } else {
    for (const auto& row : slice.rows)
      if (auto* cell = cell_at(row.at)) {
        switch (core::class_of(row.verdict)) {
          case verdict_class::joinable:
            ++cell->joinable;
            break;
          case verdict_class::up:
            ++cell->up;
            break;
          default:
            ++cell->offline;
        }
      }
  }
  for (auto& cell : cells) {
    if (cell.joinable + cell.up + cell.offline == 0)
      cell.shown = verdict_class::none;
    else if (cell.offline >= cell.up && cell.offline >= cell.joinable)
      cell.shown = verdict_class::offline;
    else if (cell.up >= cell.joinable)
      cell.shown = verdict_class::up;
    else
      cell.shown = verdict_class::joinable;
  }
  return cells;
}

class_colours colours_of(verdict_class c) {
  const auto& p = band_paint(c);
  return {p.light, p.dark};
}

std::string chart_summary(std::string_view host, std::uint16_t port,
                          const core::history_slice& slice, core::chart_metric metric) {
  if (metric == core::chart_metric::players)
    return hourly_summary(host, port, slice.range, hourly_of(slice));
  return summary_of(host, port, slice.range, core::uptime_of(slice), series_of(slice));
}

std::string render_chart(std::string_view host, std::uint16_t port,
                         const core::history_slice& slice, core::chart_metric metric) {
  auto up = core::uptime_of(slice);
  auto series = series_of(slice);
  auto hourly = metric == core::chart_metric::players ? hourly_of(slice) : hourly_series{};
  auto summary = metric == core::chart_metric::players
                   ? hourly_summary(host, port, slice.range, hourly)
                   : summary_of(host, port, slice.range, up, series);

  std::string svg;
  svg.reserve(8 * 1024);
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + n(chart_width) + "\" height=\""
         + n(chart_height) + "\" viewBox=\"0 0 " + n(chart_width) + " " + n(chart_height)
         + "\" role=\"img\" aria-label=\"" + xml_text(summary, 400) + "\">";
  svg += "<title>" + xml_text(summary, 400) + "</title>";
  svg += "<style>" + dark_style() + "</style>";
  svg += "<rect " + painted(background) + " width=\"" + n(chart_width) + "\" height=\""
         + n(chart_height) + "\" rx=\"6\"/>";
  svg += "<g font-family=\"Verdana,DejaVu Sans,sans-serif\">";

  // The title: the address on the left, the joinable share (or the peak) on the right.
  std::string share;
  if (metric == core::chart_metric::players) {
    if (hourly.total.player_samples > 0)
      share = "peak " + std::to_string(hourly.total.players_max);
  } else if (up.checks > 0) {
    share = core::percent_text(*up.joinable_share()) + " joinable";
  }
  auto share_px = share.empty() ? 0 : badge_text_width(share) + 8;
  auto range_text = " \xC2\xB7 " + std::string{core::to_string(slice.range)};
  auto address_px = plot_width - share_px - badge_text_width(range_text);
  svg += text_element(left, title_y, title_px, "start", painted(text_paint),
                      fitted_address(host, port, address_px) + range_text);
  if (!share.empty())
    svg += text_element(right, title_y, title_px, "end", painted(text_paint), share);

  if (metric == core::chart_metric::players) {
    svg += "<path " + painted(axis) + " d=\"M" + n(left) + " " + n(plot_bottom) + "H" + n(right)
           + "\"/>";
    auto words = hourly_words(hourly.total);
    if (hourly.total.checks == 0 || words.empty()) {
      svg += text_element(chart_width / 2, (players_plot_top + plot_bottom) / 2 + 4, title_px,
                          "middle", painted(muted),
                          hourly.total.checks == 0 ? "no data yet" : "no player counts");
    } else {
      draw_hourly(svg, hourly);
      svg += text_element(left + 2, players_plot_top + 11, small_px, "start", halo_label(),
                          "hourly " + words);
    }
    svg += text_element(left, footer_y, small_px, "start", painted(muted),
                        std::string{range_words(slice.range)} + " ago");
    svg += text_element(right, footer_y, small_px, "end", painted(muted), "now");
    svg += "</g></svg>";
    return svg;
  }

  // The uptime band, one rect per cell, grouped by the class it shows.
  auto cells = band_cells(slice);
  for (auto c : {verdict_class::joinable, verdict_class::up, verdict_class::offline,
                 verdict_class::none}) {
    std::string rects;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i].shown != c)
        continue;
      auto x0 = left + static_cast<int>(i * plot_width / cells.size());
      auto x1 = left + static_cast<int>((i + 1) * plot_width / cells.size());
      rects += "<rect x=\"" + n(x0) + "\" y=\"" + n(band_y) + "\" width=\"" + n(x1 - x0)
               + "\" height=\"" + n(band_height) + "\"/>";
    }
    if (!rects.empty())
      svg += "<g " + painted(band_paint(c)) + " shape-rendering=\"crispEdges\">" + rects + "</g>";
  }

  // The players, under the limit as a faint dashed ceiling.
  svg += "<path " + painted(axis) + " d=\"M" + n(left) + " " + n(plot_bottom) + "H" + n(right)
         + "\"/>";
  if (up.checks == 0) {
    svg += text_element(chart_width / 2, (plot_top + plot_bottom) / 2 + 4, title_px, "middle",
                        painted(muted), "no data yet");
  } else {
    draw_players(svg, series);
    auto words = players_words(series);
    svg += text_element(left + 2, peak_y, small_px, "start", halo_label(),
                        words.empty() ? "no player counts" : "players: " + words);
  }
  svg += text_element(left, footer_y, small_px, "start", painted(muted),
                      std::string{range_words(slice.range)} + " ago");
  svg += text_element(right, footer_y, small_px, "end", painted(muted), "now");
  svg += "</g></svg>";
  return svg;
}

} // namespace netherscope::net::http
