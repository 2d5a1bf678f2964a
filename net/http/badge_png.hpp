// GET /badge.png: the SVG badge rasterized, for the pages that unfurl a link (Discord, Slack,
// X), which show an og:image only as PNG, JPEG or GIF.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace netherscope::net::http {

/// The largest width or height of a PNG badge, in pixels.
inline constexpr int badge_png_max_side = 1024;

/// How much larger than the SVG's own size the PNG is drawn, so it stays sharp where an
/// unfurl shows it enlarged.
inline constexpr double badge_png_scale = 4.0;

/// svg drawn as a PNG with librsvg, badge_png_scale times its intrinsic size (less when a
/// side would pass badge_png_max_side); null when librsvg cannot read it or it has no size.
/// The PNGs of the last badges drawn are kept, so an unfurler's repeated fetches draw
/// nothing; calls from any thread are serialized, since librsvg's text layout (Pango and
/// fontconfig) is not safe to use from several threads at once.
std::shared_ptr<const std::string> badge_png(std::string_view svg);

} // namespace netherscope::net::http
