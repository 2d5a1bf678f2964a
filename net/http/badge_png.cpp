#include "net/http/badge_png.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>

#include <cairo.h>
#include <librsvg/rsvg.h>

namespace netherscope::net::http {

namespace {

/// How many distinct badges keep their PNG: a badge's text is its state and player count,
/// so a few hundred cover every server being unfurled at once.
constexpr std::size_t kept_pngs = 256;

cairo_status_t append_png(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

std::shared_ptr<const std::string> draw(std::string_view svg) {
  GError* error = nullptr;
  auto* handle = rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()),
                                           svg.size(), &error);
  if (handle == nullptr) {
    g_clear_error(&error);
    return nullptr;
  }
  double width = 0;
  double height = 0;
  std::shared_ptr<const std::string> png;
  if (rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) && width >= 1
      && height >= 1) {
    auto scale = std::min(badge_png_scale, badge_png_max_side / std::max(width, height));
    auto w = static_cast<int>(std::ceil(width * scale));
    auto h = static_cast<int>(std::ceil(height * scale));
    auto* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    auto* cr = cairo_create(surface);
    RsvgRectangle viewport{0, 0, static_cast<double>(w), static_cast<double>(h)};
    if (rsvg_handle_render_document(handle, cr, &viewport, &error)) {
      std::string bytes;
      cairo_surface_flush(surface);
      if (cairo_surface_write_to_png_stream(surface, append_png, &bytes) == CAIRO_STATUS_SUCCESS)
        png = std::make_shared<const std::string>(std::move(bytes));
    }
    g_clear_error(&error);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
  }
  g_object_unref(handle);
  return png;
}

struct png_memory {
  std::mutex lock;
  std::map<std::string, std::shared_ptr<const std::string>, std::less<>> by_svg;
  /// The badges in the order they were drawn; the oldest is forgotten first.
  std::deque<std::string> order;
};

png_memory& memory() {
  static png_memory m;
  return m;
}

} // namespace

std::shared_ptr<const std::string> badge_png(std::string_view svg) {
  auto& m = memory();
  std::lock_guard<std::mutex> guard{m.lock};
  if (auto found = m.by_svg.find(svg); found != m.by_svg.end())
    return found->second;
  auto png = draw(svg);
  if (!png)
    return nullptr;
  if (m.order.size() >= kept_pngs) {
    m.by_svg.erase(m.order.front());
    m.order.pop_front();
  }
  m.order.emplace_back(svg);
  m.by_svg.emplace(std::string{svg}, png);
  return png;
}

} // namespace netherscope::net::http
