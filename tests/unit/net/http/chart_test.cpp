// GET /chart.svg's renderer: well-formed SVG by a parser we did not write (minidom through
// support/xml_check, and Boost.PropertyTree's XML reader for attributes), nothing that runs or
// loads, legible sizes, the band's cells and colours, the uptime text, no data, escaping, and a
// bounded size.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <boost/json.hpp>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "net/http/badge.hpp"
#include "net/http/chart.hpp"
#include "support/history_rows.hpp"
#include "support/xml_check.hpp"
#include "support/rooms.hpp"
#include "support/dates.hpp"

using namespace netherscope::test;
using netherscope::test::check_row;
using netherscope::net::http::band_cells;
using netherscope::net::http::chart_summary;
using netherscope::net::http::colours_of;
using netherscope::net::http::render_chart;
using netherscope::test::parse_svg;
namespace pt = boost::property_tree;

namespace {


/// A 24h slice whose window ends with the cell that starts at h0.
history_slice day_slice(std::vector<history_row> rows) {
  history_slice s;
  s.range = history_range::day;
  s.window = window_for(s.range, h0);
  s.rows = std::move(rows);
  return s;
}

std::vector<std::string> texts_of(const boost::json::value& array) {
  std::vector<std::string> out;
  for (auto& item : array.as_array())
    out.emplace_back(item.as_string());
  return out;
}

pt::ptree read_svg(const std::string& svg) {
  std::istringstream in{svg};
  pt::ptree tree;
  pt::read_xml(in, tree);
  return tree;
}

std::string attribute(const pt::ptree& node, const std::string& name) {
  return node.get<std::string>("<xmlattr>." + name, "");
}

/// Calls f(name, node) for every element below node, depth first.
void each_element(const pt::ptree& node,
                  const std::function<void(const std::string&, const pt::ptree&)>& f) {
  for (const auto& [name, child] : node) {
    if (name == "<xmlattr>" || name == "<xmlcomment>")
      continue;
    f(name, child);
    each_element(child, f);
  }
}

/// The band: for each cell group's class, how many rects it holds and its fill.
struct band_facts {
  std::map<std::string, std::size_t> cells;
  std::map<std::string, std::string> fills;
  std::size_t total = 0;
};

band_facts band_of(const std::string& svg) {
  band_facts facts;
  each_element(read_svg(svg), [&](const std::string& name, const pt::ptree& node) {
    if (name != "g" || attribute(node, "shape-rendering") != "crispEdges")
      return;
    auto cls = attribute(node, "class");
    facts.fills[cls] = attribute(node, "fill");
    for (const auto& [child, _] : node)
      if (child == "rect") {
        ++facts.cells[cls];
        ++facts.total;
      }
  });
  return facts;
}

/// Checks what every chart must be: well-formed, 320 x 120, no script, no reference outside
/// the document, and no text under the smallest size.
void check_safe_and_legible(const std::string& svg) {
  INFO(svg);
  auto doc = parse_svg(svg);
  REQUIRE_FALSE(doc.contains("error"));
  CHECK(doc.at("root") == "svg");
  CHECK(doc.at("xmlns") == "http://www.w3.org/2000/svg");
  CHECK(doc.at("width") == "320");
  CHECK(doc.at("height") == "120");
  const std::set<std::string> allowed{"title", "style", "rect", "g", "text", "path"};
  for (auto& element : texts_of(doc.at("elements")))
    CHECK(allowed.count(element) == 1);
  CHECK(svg.find("href") == std::string::npos);
  CHECK(svg.find("url(") == std::string::npos);
  CHECK(svg.find("@import") == std::string::npos);
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.size() <= net::http::chart_max_bytes);
  std::size_t texts = 0;
  each_element(read_svg(svg), [&](const std::string& name, const pt::ptree& node) {
    if (name != "text")
      return;
    ++texts;
    CHECK(std::stoi(attribute(node, "font-size")) >= static_cast<int>(net::http::chart_min_font_px));
  });
  CHECK(texts >= 3);
}

} // namespace

TEST_CASE("chart: cells show the class most of their checks had, ties to the worse",
          "[chart]") {
  auto slice = day_slice({
    // The last cell (h0 .. h0+900): one joinable, one offline: a tie, so offline.
    check_row(h0 + 10, verdict_code::joinable), check_row(h0 + 20, verdict_code::offline),
    // The cell before: two joinable, one signalling_only: joinable.
    check_row(h0 - 800, verdict_code::joinable), check_row(h0 - 700, verdict_code::joinable),
    check_row(h0 - 600, verdict_code::signalling_only),
    // Two cells before: one joinable, one auth_required (up): a tie, so up.
    check_row(h0 - 1700, verdict_code::joinable), check_row(h0 - 1600, verdict_code::auth_required),
    // Outside the window: ignored.
    check_row(h0 + 900, verdict_code::offline), check_row(h0 - 86400 - 1, verdict_code::offline),
  });
  auto cells = band_cells(slice);
  REQUIRE(cells.size() == 96);
  CHECK(cells.front().from == slice.window.from);
  CHECK(cells[95].from == h0);
  CHECK(cells[95].shown == verdict_class::offline);
  CHECK(cells[95].joinable == 1);
  CHECK(cells[95].offline == 1);
  CHECK(cells[94].shown == verdict_class::joinable);
  CHECK(cells[93].shown == verdict_class::up);
  std::size_t empty = 0;
  for (auto& cell : cells)
    empty += cell.shown == verdict_class::none ? 1 : 0;
  CHECK(empty == 93);
}

TEST_CASE("chart: a day's chart has 96 cells in the colours of their classes", "[chart]") {
  std::vector<history_row> rows;
  // Six hours of checks every 5 minutes: joinable, then up for an hour, then offline.
  for (std::int64_t t = h0 - 6 * 3600; t < h0; t += 300) {
    auto verdict = t < h0 - 2 * 3600   ? verdict_code::joinable
                   : t < h0 - 3600     ? verdict_code::signalling_only
                                       : verdict_code::offline;
    rows.push_back(verdict == verdict_code::offline ? check_row(t, verdict)
                                                   : check_row(t, verdict, 7, 20));
  }
  auto slice = day_slice(rows);
  auto svg = render_chart("play.example.com", 19132, slice);
  check_safe_and_legible(svg);

  auto band = band_of(svg);
  CHECK(band.total == 96);
  CHECK(band.cells["j"] == 16);
  CHECK(band.cells["u"] == 4);
  CHECK(band.cells["o"] == 4);
  CHECK(band.cells["n"] == 72);
  CHECK(band.fills["j"] == std::string{colours_of(verdict_class::joinable).light});
  CHECK(band.fills["u"] == std::string{colours_of(verdict_class::up).light});
  CHECK(band.fills["o"] == std::string{colours_of(verdict_class::offline).light});
  CHECK(band.fills["n"] == std::string{colours_of(verdict_class::none).light});
  // Each class has its own colour, in each scheme, and the dark ones are in the style sheet
  // under the dark colour scheme.
  std::set<std::string_view> light;
  std::set<std::string_view> dark;
  auto style_at = svg.find("@media (prefers-color-scheme:dark){");
  REQUIRE(style_at != std::string::npos);
  for (auto c : {verdict_class::joinable, verdict_class::up, verdict_class::offline,
                 verdict_class::none}) {
    light.insert(colours_of(c).light);
    dark.insert(colours_of(c).dark);
    CHECK(svg.find(std::string{colours_of(c).dark}, style_at) != std::string::npos);
  }
  CHECK(light.size() == 4);
  CHECK(dark.size() == 4);

  auto doc = parse_svg(svg);
  auto texts = texts_of(doc.at("texts"));
  // 72 checks: 48 joinable (66.6%, rounded down), 60 online (83.3%).
  CHECK(texts.at(0) == "play.example.com:19132 \xC2\xB7 24h");
  CHECK(texts.at(1) == "66.6% joinable");
  CHECK(std::find(texts.begin(), texts.end(), "players: peak 7 of 20") != texts.end());
  CHECK(texts_of(doc.at("title"))
        == std::vector<std::string>{"play.example.com:19132, last 24 hours: joinable 66.6% of 72 "
                                    "checks, online 83.3%; players peak 7 of 20"});
  CHECK(doc.at("aria") == chart_summary("play.example.com", 19132, slice).c_str());
  // The players' line and the limit's ceiling are drawn.
  std::set<std::string> paths;
  each_element(read_svg(svg), [&](const std::string& name, const pt::ptree& node) {
    if (name == "path")
      paths.insert(attribute(node, "class"));
  });
  CHECK(paths == std::set<std::string>{"x", "c", "a", "l"});
}

TEST_CASE("chart: hours fill the longer ranges' cells", "[chart]") {
  history_slice slice;
  slice.range = history_range::week;
  slice.window = window_for(slice.range, h0);
  // Two hours in the last 2-hour cell: 10 joinable checks and 30 offline, so offline.
  auto last = slice.window.to - 7200;
  auto first = fold_hours({check_row(last, verdict_code::joinable, 3, 10)});
  first[0].checks = 10;
  first[0].online = 10;
  first[0].joinable = 10;
  auto second = fold_hours({check_row(last + 3600, verdict_code::offline)});
  second[0].checks = 30;
  slice.hours = {first[0], second[0]};
  auto cells = band_cells(slice);
  REQUIRE(cells.size() == 84);
  CHECK(cells.back().from == last);
  CHECK(cells.back().joinable == 10);
  CHECK(cells.back().offline == 30);
  CHECK(cells.back().shown == verdict_class::offline);
  auto svg = render_chart("203.0.113.7", 19132, slice);
  check_safe_and_legible(svg);
  CHECK(band_of(svg).total == 84);
  CHECK(texts_of(parse_svg(svg).at("texts")).at(1) == "25.0% joinable");
}

TEST_CASE("chart: no checks yet draws an empty band and says so", "[chart]") {
  auto slice = day_slice({});
  auto svg = render_chart("play.example.com", 19132, slice);
  check_safe_and_legible(svg);
  auto band = band_of(svg);
  CHECK(band.total == 96);
  CHECK(band.cells["n"] == 96);
  auto doc = parse_svg(svg);
  auto texts = texts_of(doc.at("texts"));
  CHECK(std::find(texts.begin(), texts.end(), "no data yet") != texts.end());
  CHECK(texts_of(doc.at("title"))
        == std::vector<std::string>{"play.example.com:19132, last 24 hours: no data yet"});
  CHECK(svg.find("class=\"l\"") == std::string::npos);
}

TEST_CASE("chart: a host is text, never markup, and a long one is cut to fit", "[chart]") {
  auto slice = day_slice({check_row(h0 - 60, verdict_code::joinable, 1, 5)});
  auto hostile = "<script>alert(1)</script>&\"'";
  auto svg = render_chart(hostile, 19132, slice);
  check_safe_and_legible(svg);
  auto doc = parse_svg(svg);
  // The title line cuts it to fit; the tooltip has it whole.
  CHECK(texts_of(doc.at("texts")).at(0).find("<script>alert(1)</sc") == 0);
  CHECK(texts_of(doc.at("title")).at(0).find(std::string{hostile} + ":19132, last 24 hours") == 0);

  std::string long_host;
  while (long_host.size() < 240)
    long_host += "abcdefghi.";
  long_host += "example";
  auto long_svg = render_chart(long_host, 19132, slice);
  check_safe_and_legible(long_svg);
  auto title = texts_of(parse_svg(long_svg).at("texts")).at(0);
  CHECK(title.find("\xE2\x80\xA6:19132 \xC2\xB7 24h") != std::string::npos);
  auto share = texts_of(parse_svg(long_svg).at("texts")).at(1);
  // The cut address and the share fit the width between the margins.
  CHECK(badge_text_width(title) + badge_text_width(share) + 8 <= 304);
}

TEST_CASE("chart: the size stays bounded whatever the history holds", "[chart]") {
  // A check every 5 s for a day, the count swinging on every one: more points than pixels.
  std::vector<history_row> rows;
  for (std::int64_t t = h0 - 86400 + 900; t < h0 + 900; t += 5) {
    auto i = static_cast<std::uint32_t>((t / 5) % 7);
    auto verdict = static_cast<verdict_code>(1 + (t / 5) % 9);
    rows.push_back(i == 3 ? check_row(t, verdict)
                          : check_row(t, verdict, i * 1000003u, 4000000000u));
  }
  auto svg = render_chart("play.example.com", 65535, day_slice(rows));
  check_safe_and_legible(svg);

  // A count in every other pixel column, each a subpath of its own, every cell another class,
  // and the longest host made of the character that escapes longest.
  auto sparse = day_slice({});
  for (std::int64_t c = 0; c < 304; ++c) {
    auto t = sparse.window.from + c * 86400 / 304 + 1;
    auto verdict = static_cast<verdict_code>(1 + c % 9);
    sparse.rows.push_back(c % 2 ? check_row(t, verdict) : check_row(t, verdict, 1000 + c, 3000));
  }
  check_safe_and_legible(render_chart(std::string(253, '&'), 65535, sparse));

  history_slice quarter;
  quarter.range = history_range::quarter;
  quarter.window = window_for(quarter.range, h0);
  for (std::int64_t h = quarter.window.from; h < quarter.window.to; h += 3600) {
    auto players = static_cast<std::uint32_t>(h % 97);
    auto hour = fold_hours({check_row(h, verdict_code::joinable, players),
                            check_row(h + 1, verdict_code::offline)});
    quarter.hours.push_back(hour[0]);
  }
  auto quarter_svg = render_chart("play.example.com", 19132, quarter);
  check_safe_and_legible(quarter_svg);
  CHECK(band_of(quarter_svg).total == 90);
}

TEST_CASE("chart: metric=players draws each hour's average and peak under the limit",
          "[chart]") {
  using netherscope::core::chart_metric;
  history_slice slice;
  slice.range = history_range::week;
  slice.window = window_for(slice.range, h0);
  // Two hours with counts (2 and 6, then 10, all of 20) and one whose checks reported none.
  auto a = slice.window.to - 3 * 3600;
  auto first = fold_hours({check_row(a, verdict_code::joinable, 2, 20),
                           check_row(a + 600, verdict_code::joinable, 6, 20)});
  auto second = fold_hours({check_row(a + 3600, verdict_code::joinable, 10, 20)});
  auto third = fold_hours({check_row(a + 7200, verdict_code::offline)});
  slice.hours = {first[0], second[0], third[0]};

  auto svg = render_chart("play.example.com", 19132, slice, chart_metric::players);
  check_safe_and_legible(svg);
  // No uptime band: the chart is about players.
  CHECK(band_of(svg).total == 0);
  std::set<std::string> paths;
  each_element(read_svg(svg), [&](const std::string& name, const pt::ptree& node) {
    if (name == "path")
      paths.insert(attribute(node, "class"));
  });
  // The axis, the limit's ceiling, the peaks' area and line, and the averages' line.
  CHECK(paths == std::set<std::string>{"x", "c", "q", "p", "l"});
  auto summary = std::string{"play.example.com:19132, last 7 days: players avg 6.0, peak 10 of 20 "
                             "(hourly)"};
  CHECK(chart_summary("play.example.com", 19132, slice, chart_metric::players) == summary);
  auto doc = parse_svg(svg);
  CHECK(texts_of(doc.at("title")) == std::vector<std::string>{summary});
  auto texts = texts_of(doc.at("texts"));
  CHECK(texts.at(1) == "peak 10");
  CHECK(std::find(texts.begin(), texts.end(), "hourly avg 6.0, peak 10 of 20") != texts.end());
  // The same slice's verdicts chart is another picture.
  CHECK(render_chart("play.example.com", 19132, slice) != svg);
  CHECK(band_of(render_chart("play.example.com", 19132, slice)).total == 84);
}

TEST_CASE("chart: metric=players says when there are no counts or no checks", "[chart]") {
  using netherscope::core::chart_metric;
  auto empty = day_slice({});
  auto none = render_chart("play.example.com", 19132, empty, chart_metric::players);
  check_safe_and_legible(none);
  auto none_texts = texts_of(parse_svg(none).at("texts"));
  CHECK(std::find(none_texts.begin(), none_texts.end(), "no data yet") != none_texts.end());
  CHECK(chart_summary("play.example.com", 19132, empty, chart_metric::players)
        == "play.example.com:19132, last 24 hours: no data yet");

  // Checks that found the server but no count: said, and nothing drawn as if it were zero.
  auto uncounted = day_slice({check_row(h0 - 60, verdict_code::offline)});
  auto svg = render_chart("play.example.com", 19132, uncounted, chart_metric::players);
  check_safe_and_legible(svg);
  auto texts = texts_of(parse_svg(svg).at("texts"));
  CHECK(std::find(texts.begin(), texts.end(), "no player counts") != texts.end());
  CHECK(svg.find("class=\"p\"") == std::string::npos);
  CHECK(chart_summary("play.example.com", 19132, uncounted, chart_metric::players)
        == "play.example.com:19132, last 24 hours: no player counts");
}

TEST_CASE("chart: metric=players stays bounded and escapes its host", "[chart]") {
  using netherscope::core::chart_metric;
  history_slice quarter;
  quarter.range = history_range::quarter;
  quarter.window = window_for(quarter.range, h0);
  for (std::int64_t h = quarter.window.from; h < quarter.window.to; h += 3600) {
    auto players = static_cast<std::uint32_t>((h / 3600) % 97);
    auto hour = fold_hours({check_row(h, verdict_code::joinable, players, 4000000000u),
                            check_row(h + 7, verdict_code::joinable, players / 2 + 1)});
    quarter.hours.push_back(hour[0]);
  }
  check_safe_and_legible(render_chart(std::string(253, '&'), 65535, quarter, chart_metric::players));
  auto hostile = "<script>alert(1)</script>";
  auto svg = render_chart(hostile, 19132, quarter, chart_metric::players);
  check_safe_and_legible(svg);
  CHECK(svg.find(hostile) == std::string::npos);
}
