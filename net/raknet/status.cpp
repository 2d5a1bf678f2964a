#include "net/raknet/status.hpp"

#include <charconv>

#include "base/text.hpp"

namespace netherscope::net::raknet {

namespace {

/// The fields of text: split on ';' unless escaped as "\;", one trailing empty field dropped.
std::vector<std::string> split_fields(std::string_view text) {
  std::vector<std::string> fields(1);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ';') {
      fields.back().push_back(';');
      ++i;
    } else if (text[i] == ';') {
      fields.emplace_back();
    } else {
      fields.back().push_back(text[i]);
    }
  }
  // Most servers end the string with ';' (BDS, PocketMine, Geyser, Pumpkin), current Nukkit
  // does not; either way the last real field is the one before.
  if (fields.back().empty())
    fields.pop_back();
  return fields;
}

std::optional<std::string> text_at(const std::vector<std::string>& fields, std::size_t i) {
  if (i >= fields.size() || fields[i].empty())
    return std::nullopt;
  return fields[i];
}

/// A decimal integer, blanks around it allowed; nullopt for anything else.
template <class Int>
std::optional<Int> number(std::string_view text) {
  text = base::trim(text);
  Int value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

std::optional<std::int64_t> number_at(const std::vector<std::string>& fields, std::size_t i) {
  return i < fields.size() ? number<std::int64_t>(fields[i]) : std::nullopt;
}

std::optional<std::uint64_t> guid_at(const std::vector<std::string>& fields, std::size_t i) {
  if (i >= fields.size())
    return std::nullopt;
  if (auto unsigned_value = number<std::uint64_t>(fields[i]))
    return unsigned_value;
  // Nukkit writes the id with Java's Long.toString, so half of all ids come negative.
  if (auto signed_value = number<std::int64_t>(fields[i]))
    return static_cast<std::uint64_t>(*signed_value);
  return std::nullopt;
}

std::optional<std::uint16_t> port_at(const std::vector<std::string>& fields, std::size_t i) {
  auto value = number_at(fields, i);
  if (!value || *value < 1 || *value > 65535)
    return std::nullopt;
  return static_cast<std::uint16_t>(*value);
}

} // namespace

status read_status(std::string_view text) {
  auto fields = split_fields(text);
  status out;
  out.field_count = fields.size();
  out.edition = text_at(fields, 0);
  out.motd = text_at(fields, 1);
  out.protocol = number_at(fields, 2);
  out.version = text_at(fields, 3);
  out.players = number_at(fields, 4);
  out.max_players = number_at(fields, 5);
  out.server_guid = guid_at(fields, 6);
  out.level = text_at(fields, 7);
  out.game_mode = text_at(fields, 8);
  out.game_mode_id = number_at(fields, 9);
  out.port_v4 = port_at(fields, 10);
  out.port_v6 = port_at(fields, 11);
  for (std::size_t i = 12; i < fields.size() && out.extra.size() < max_extra_fields; ++i)
    out.extra.push_back(std::move(fields[i]));
  return out;
}

} // namespace netherscope::net::raknet
