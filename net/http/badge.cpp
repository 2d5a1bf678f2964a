#include "net/http/badge.hpp"

#include <array>

#include <boost/json/value.hpp>

#include "core/api_json.hpp"
#include "core/error_table.hpp"
#include "core/motd.hpp"
#include "base/json_access.hpp"
#include "base/text.hpp"

namespace netherscope::net::http {

namespace {

constexpr std::string_view label = "bedrock";
constexpr std::string_view middle_dot = "\xC2\xB7";
/// How long a server's name may be in the tooltip, in characters.
constexpr std::size_t longest_name = 80;

constexpr unsigned height = 20;
/// Space left and right of each half's text.
constexpr unsigned padding = 6;

// Approximate advance widths of Verdana's printable ASCII characters (' ' to '~'), in font
// units of 2048 per em, as recalled from the font's metrics rather than measured here: close
// to a few percent, which is what a badge needs. Shields-style badges use Verdana 11 px. The
// SVG also gives each text a textLength, so a renderer with another font stretches or
// squeezes the glyphs to the width computed here instead of spilling out of the box.
constexpr std::array<std::uint16_t, 95> verdana_ascii = {
  720,  821,  945,  1716, 1303, 2222, 1493, 553,  1030, 1030, 1303, 1716, 745,  930,  745,
  1177, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 930,  930,  1716, 1716,
  1716, 1113, 2052, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 862,  945,  1424, 1147,
  1722, 1532, 1643, 1243, 1643, 1444, 1401, 1263, 1519, 1401, 2069, 1407, 1262, 1403, 1030,
  1177, 1030, 1716, 1303, 1303, 1226, 1273, 1060, 1273, 1213, 720,  1273, 1292, 562,  688,
  1198, 562,  1986, 1292, 1246, 1273, 1273, 874,  1064, 807,  1292, 1198, 1659, 1198, 1198,
  1055, 1300, 1177, 1300, 1716};
constexpr unsigned units_per_em = 2048;
constexpr unsigned font_px = 11;
/// Characters outside ASCII: about an uppercase letter; ideographs and other wide scripts
/// about a full em.
constexpr unsigned other_units = 1400;
constexpr unsigned wide_units = 2048;
constexpr char32_t first_wide = 0x2E80;

constexpr std::string_view online_colour = "#2e8540";
constexpr std::string_view not_joinable_colour = "#b7791f";
constexpr std::string_view offline_colour = "#c1432e";
constexpr std::string_view error_colour = "#8a8a8a";
constexpr std::string_view label_colour = "#555";

/// Decodes the next code point of valid UTF-8 (valid_utf8 made it so) and advances i.
char32_t next_code_point(std::string_view s, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  auto lead = byte(i);
  std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  if (i + length > s.size())
    length = 1;
  char32_t cp = length == 1 ? lead : lead & (0xFF >> (length + 1));
  for (std::size_t k = 1; k < length; ++k)
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  i += length;
  return cp;
}

/// Whether XML 1.0 allows the character in a document (its Char production).
bool xml_char(char32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF)
         || (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string_view colour_of(badge_state state) {
  switch (state) {
    case badge_state::joinable:
    case badge_state::online:
      return online_colour;
    case badge_state::not_joinable:
      return not_joinable_colour;
    case badge_state::offline:
      return offline_colour;
    default:
      return error_colour;
  }
}

/// "join_failed: dtls_failed at dtls", from a history point's verdict and join.
std::string verdict_detail(const boost::json::object& check) {
  std::string out;
  if (auto* verdict = base::string_at(check, "verdict"))
    out = std::string{base::view(*verdict)};
  if (auto* join = base::object_at(check, "join")) {
    auto* outcome = base::string_at(*join, "outcome");
    auto* stage = base::string_at(*join, "stage");
    if (outcome != nullptr)
      out += (out.empty() ? "" : ": ") + std::string{base::view(*outcome)};
    if (outcome != nullptr && stage != nullptr && *outcome != "joined")
      out += " at " + std::string{base::view(*stage)};
  }
  return out;
}

/// The latest watch check's say on an online badge.
void take_verdict(const boost::json::object& check, badge_view& view) {
  auto* cls = base::string_at(check, "class");
  if (cls == nullptr)
    return;
  if (*cls == "joinable") {
    view.state = badge_state::joinable;
  } else if (*cls == "up") {
    view.state = badge_state::not_joinable;
    view.detail = verdict_detail(check);
  }
}

/// "<what> · 3/10", or what alone without both counts.
std::string with_counts(std::string what, const badge_view& view) {
  if (view.players && view.max_players)
    return what + " " + std::string{middle_dot} + " " + std::to_string(*view.players) + "/"
           + std::to_string(*view.max_players);
  return what;
}

} // namespace

badge_view badge_from_status(std::string_view status_body) {
  badge_view view;
  auto body = base::parse_object(status_body);
  if (!body) {
    view.detail = "the status could not be read";
    return view;
  }
  auto* online = body->if_contains("online");
  auto* nethernet = base::object_at(*body, "nethernet");
  auto* raknet = base::object_at(*body, "raknet");
  auto answered = [](const boost::json::object* o) {
    auto* ok = o == nullptr ? nullptr : o->if_contains("ok");
    return ok != nullptr && ok->is_bool() && ok->get_bool();
  };
  if (online == nullptr || !online->is_bool() || !online->get_bool()) {
    view.state = badge_state::offline;
    // Why NetherNet did not answer, as /api/info's error says it, then why RakNet did not.
    if (nethernet != nullptr) {
      auto* code = base::string_at(*nethernet, "code");
      auto* detail = base::object_at(*nethernet, "error");
      auto* message = base::string_at(*nethernet, "error");
      if (code != nullptr && *code == "upstream_status" && detail != nullptr)
        if (auto status = base::int64_at(*detail, "httpStatus"))
          view.detail = "GET /v1/join answered " + std::to_string(*status);
      if (view.detail.empty() && message != nullptr)
        view.detail = std::string{base::view(*message)};
    }
    if (raknet != nullptr)
      if (auto* message = base::string_at(*raknet, "error"))
        view.detail += (view.detail.empty() ? "" : "; ") + std::string{"RakNet: "}
                       + std::string{base::view(*message)};
    return view;
  }
  view.state = badge_state::online;
  // NetherNet's status first, as GET /v1/join gives it; the pong's where it gives none.
  if (answered(nethernet))
    if (auto* info = base::object_at(*nethernet, "info")) {
      // The name without its formatting codes, which a badge's one colour cannot show.
      if (auto* name = base::string_at(*info, "name"))
        view.name = core::motd_clean(base::view(*name));
      view.players = base::int64_at(*info, "players");
      view.max_players = base::int64_at(*info, "maxPlayers");
    }
  if (answered(raknet)) {
    if (view.name.empty())
      if (auto* name = base::string_at(*raknet, "motdPlain"))
        view.name = std::string{base::view(*name)};
    if (!view.players || !view.max_players) {
      view.players = base::int64_at(*raknet, "players");
      view.max_players = base::int64_at(*raknet, "maxPlayers");
    }
  }
  if (auto* check = base::object_at(*body, "latestCheck"))
    take_verdict(*check, view);
  return view;
}

badge_view badge_from_failure(const core::failure& error) {
  badge_view view;
  switch (error.code) {
    case core::error_code::upstream_status:
    case core::error_code::upstream_failure:
    case core::error_code::upstream_invalid_answer:
    case core::error_code::upstream_timeout:
      view.state = badge_state::offline;
      break;
    default:
      view.state = badge_state::error;
      break;
  }
  if (error.code == core::error_code::upstream_status)
    view.detail = "GET /v1/join answered " + std::to_string(error.http_status);
  else
    view.detail = error.message.empty() ? std::string{core::lookup(error.code).default_message}
                                        : error.message;
  return view;
}

std::string badge_value(const badge_view& view) {
  switch (view.state) {
    case badge_state::joinable:
      return with_counts("joinable", view);
    case badge_state::not_joinable:
      return with_counts("can't join", view);
    case badge_state::online:
      return with_counts("online", view);
    case badge_state::offline:
      return "offline";
    default:
      return "error";
  }
}

unsigned badge_text_width(std::string_view utf8) {
  auto text = core::valid_utf8(utf8);
  unsigned long units = 0;
  for (std::size_t i = 0; i < text.size();) {
    auto cp = next_code_point(text, i);
    if (cp >= 0x20 && cp <= 0x7E)
      units += verdana_ascii[cp - 0x20];
    else if (cp == 0xB7)
      units += verdana_ascii['.' - 0x20];
    else
      units += cp >= first_wide ? wide_units : other_units;
  }
  return static_cast<unsigned>((units * font_px + units_per_em - 1) / units_per_em);
}

std::string xml_text(std::string_view untrusted, std::size_t max_chars) {
  auto text = core::valid_utf8(untrusted);
  std::string kept;
  kept.reserve(text.size());
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size() && chars < max_chars; ++chars) {
    auto cp = next_code_point(text, i);
    // Tab, LF and CR are allowed by XML, but a tooltip reads better on one line.
    if (cp == '\t' || cp == '\n' || cp == '\r')
      kept += ' ';
    else
      append_utf8(kept, xml_char(cp) ? cp : U'\uFFFD');
  }
  return base::html_escape(kept);
}

std::string render_badge(const badge_view& view) {
  auto value = badge_value(view);
  auto label_text = badge_text_width(label);
  auto value_text = badge_text_width(value);
  auto left = label_text + 2 * padding;
  auto right = value_text + 2 * padding;
  auto total = left + right;
  auto summary = std::string{label} + ": " + value;
  // The tooltip adds the server's name, or why there is no status: text from outside, escaped
  // here like everything else that goes into the document.
  std::string tail;
  bool up = view.state == badge_state::online || view.state == badge_state::joinable
            || view.state == badge_state::not_joinable;
  if (up && !view.name.empty())
    tail = " \xE2\x80\x94 " + xml_text(view.name, longest_name);
  if (view.state != badge_state::online && view.state != badge_state::joinable
      && !view.detail.empty())
    tail += " \xE2\x80\x94 " + xml_text(view.detail);
  auto n = [](unsigned v) { return std::to_string(v); };

  std::string svg;
  svg.reserve(1024);
  svg += R"svg(<svg xmlns="http://www.w3.org/2000/svg" width=")svg" + n(total)
         + R"svg(" height=")svg" + n(height) + R"svg(" role="img" aria-label=")svg"
         + xml_text(summary) + "\">";
  svg += "<title>" + xml_text(summary) + tail + "</title>";
  svg += R"svg(<clipPath id="r"><rect width=")svg" + n(total) + R"svg(" height=")svg"
         + n(height) + R"svg(" rx="3"/></clipPath>)svg";
  svg += R"svg(<g clip-path="url(#r)">)svg";
  svg += R"svg(<rect width=")svg" + n(left) + R"svg(" height=")svg" + n(height)
         + R"svg(" fill=")svg" + std::string{label_colour} + R"svg("/>)svg";
  svg += R"svg(<rect x=")svg" + n(left) + R"svg(" width=")svg" + n(right)
         + R"svg(" height=")svg" + n(height) + R"svg(" fill=")svg"
         + std::string{colour_of(view.state)} + R"svg("/>)svg";
  svg += "</g>";
  svg += R"svg(<g fill="#fff" text-anchor="middle" )svg"
         R"svg(font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">)svg";
  auto text = [&](unsigned centre, unsigned width, std::string_view content) {
    svg += R"svg(<text x=")svg" + n(centre) + R"svg(" y="14" textLength=")svg" + n(width)
           + R"svg(" lengthAdjust="spacingAndGlyphs">)svg" + xml_text(content) + "</text>";
  };
  text(left / 2, label_text, label);
  text(left + right / 2, value_text, value);
  svg += "</g></svg>";
  return svg;
}

} // namespace netherscope::net::http
