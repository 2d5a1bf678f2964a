#include "core/explain.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <unordered_map>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "base/json_access.hpp"
#include "base/text.hpp"

namespace netherscope::core {

namespace {

/// Longer requests are no code of ours; they are refused before any work. The longest code
/// we serve is an Xbox error's name (XO_E_SIGNIN_COUNT_BY_DEVICE_TYPE_EXCEEDED, 41).
constexpr std::size_t longest_code = 64;
/// The most digits a codeword's number may have ("door-83").
constexpr std::size_t longest_variant = 6;

constexpr std::string_view signalling_kind = "signalling_error";
constexpr std::string_view codeword_kind = "client_codeword";
/// GET /api/check's verdicts and the codes of a RakNet status, as the API writes them.
constexpr std::string_view verdict_kind = "check_verdict";
constexpr std::string_view raknet_kind = "raknet_status";
constexpr std::string_view join_kind = "join_outcome";
/// The Xbox sign-in errors (XErr), written in decimal as Xbox sends them; each also carries
/// the short summary and fix that net/xbox/xerr.cpp gives operators.
constexpr std::string_view xbox_error_kind = "xbox_error";
/// How Microsoft writes an XErr in hex ("0x8015DC09"), lower-cased as the lookup sees it.
constexpr std::string_view hex_prefix = "0x";
constexpr std::array<std::string_view, 3> evidence_levels = {"source_code", "reports",
                                                            "name_only"};

/// One explanation, ready to serve.
struct entry {
  std::string code;
  std::string name;
  std::string kind;
  /// The reply body as an object, for the rare reply that adds a variant.
  boost::json::object body;
  /// The same body serialized once, for every other reply.
  std::string rendered;
  /// An Xbox error's words for operators, which the reply leaves out.
  std::string summary;
  std::string fix;
};

/// The data file, read once: the entries in file order, each code, name and alias (lower
/// case) pointing at its entry, and what was wrong with the file.
struct book {
  std::vector<entry> entries;
  std::unordered_map<std::string, std::size_t> by_key;
  std::string index;
  std::vector<std::string> problems;
};

bool all_of_class(std::string_view text, bool (*in_class)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), in_class);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_code_character(char c) {
  return (c >= 'a' && c <= 'z') || c == '_';
}

/// Reads an unsigned 32-bit number written in text in the given base, all of it; nullopt for
/// anything else (empty, a sign, a stray character, too large).
std::optional<std::uint32_t> read_number(std::string_view text, int base) {
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc{} || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

/// A non-empty string member, or null.
const boost::json::string* text_at(const boost::json::object& o, std::string_view key) {
  auto* s = base::string_at(o, key);
  return s != nullptr && !s->empty() ? s : nullptr;
}

/// A non-empty array of non-empty strings, or null.
const boost::json::array* texts_at(const boost::json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  if (v == nullptr || !v->is_array() || v->get_array().empty())
    return nullptr;
  for (auto& item : v->get_array())
    if (!item.is_string() || item.get_string().empty())
      return nullptr;
  return &v->get_array();
}

/// Checks one entry of the file and builds its reply body, sources resolved; nullopt (with
/// the reasons added to problems) when the entry is unusable.
std::optional<entry> read_entry(const boost::json::value& raw, std::size_t position,
                                const boost::json::object& sources,
                                std::vector<std::string>& problems) {
  auto where = "entry " + std::to_string(position);
  auto* o = raw.if_object();
  if (o == nullptr) {
    problems.push_back(where + " is not an object");
    return std::nullopt;
  }
  auto before = problems.size();
  auto require_text = [&](std::string_view key) {
    auto* s = text_at(*o, key);
    if (s == nullptr)
      problems.push_back(where + " lacks the text \"" + std::string{key} + "\"");
    return s;
  };
  auto require_texts = [&](std::string_view key) {
    auto* a = texts_at(*o, key);
    if (a == nullptr)
      problems.push_back(where + " lacks the list of texts \"" + std::string{key} + "\"");
    return a;
  };
  auto* code = require_text("code");
  auto* kind = require_text("kind");
  auto* name = require_text("name");
  auto* meaning = require_text("meaning");
  auto* evidence = require_text("evidence");
  auto* causes = require_texts("causes");
  auto* checks = require_texts("checks");
  auto* cited = require_texts("sources");
  if (o->contains("aliases") && texts_at(*o, "aliases") == nullptr)
    problems.push_back(where + " has aliases that are not a list of texts");
  if (o->contains("note") && text_at(*o, "note") == nullptr)
    problems.push_back(where + " has a note that is not a text");
  const boost::json::string* summary = nullptr;
  const boost::json::string* fix = nullptr;
  if (kind != nullptr && base::view(*kind) == xbox_error_kind) {
    summary = require_text("summary");
    fix = require_text("fix");
  }
  if (code != nullptr && kind != nullptr) {
    // Numbers are written without leading zeros, so the lookup can strip them; codewords are
    // letters only, so "word-<digits>" can only be a codeword with its number.
    if (base::view(*kind) == signalling_kind) {
      if (!all_of_class(base::view(*code), is_digit) || (code->size() > 1 && code->front() == '0'))
        problems.push_back(where + " is a signalling error whose code is not a plain number");
    } else if (base::view(*kind) == codeword_kind) {
      if (!all_of_class(base::view(*code), is_letter))
        problems.push_back(where + " is a codeword that is not made of letters only");
    } else if (base::view(*kind) == xbox_error_kind) {
      // The hex spelling is looked up through the decimal code, so it must be a 32-bit one.
      if (!all_of_class(base::view(*code), is_digit) || code->front() == '0'
          || !read_number(base::view(*code), 10))
        problems.push_back(where + " is an Xbox error whose code is not a plain 32-bit number");
    } else if (base::view(*kind) == verdict_kind || base::view(*kind) == raknet_kind
               || base::view(*kind) == join_kind) {
      // As the API writes them ("auth_required"), so that a reply's code is its path.
      if (!all_of_class(base::view(*code), is_code_character))
        problems.push_back(where + " is an API code not made of lower-case letters and '_'");
    } else {
      problems.push_back(where + " has an unknown kind");
    }
  }
  if (evidence != nullptr
      && std::find(evidence_levels.begin(), evidence_levels.end(), base::view(*evidence))
           == evidence_levels.end())
    problems.push_back(where + " has an unknown evidence level");
  boost::json::array resolved;
  if (cited != nullptr) {
    for (auto& key : *cited) {
      auto* source = sources.if_contains(key.get_string());
      auto* source_object = source == nullptr ? nullptr : source->if_object();
      if (source_object == nullptr || text_at(*source_object, "url") == nullptr
          || text_at(*source_object, "what") == nullptr) {
        problems.push_back(where + " cites the unknown source \""
                           + std::string{base::view(key.get_string())} + "\"");
        continue;
      }
      boost::json::object item;
      item["url"] = *text_at(*source_object, "url");
      item["what"] = *text_at(*source_object, "what");
      resolved.push_back(std::move(item));
    }
  }
  if (problems.size() != before)
    return std::nullopt;

  entry e;
  e.code = std::string{base::view(*code)};
  e.name = std::string{base::view(*name)};
  e.kind = std::string{base::view(*kind)};
  if (summary != nullptr && fix != nullptr) {
    e.summary = std::string{base::view(*summary)};
    e.fix = std::string{base::view(*fix)};
  }
  auto& body = e.body;
  body["ok"] = true;
  body["code"] = *code;
  body["kind"] = *kind;
  body["name"] = *name;
  if (auto* aliases = texts_at(*o, "aliases"))
    body["aliases"] = *aliases;
  body["meaning"] = *meaning;
  body["causes"] = *causes;
  body["checks"] = *checks;
  body["evidence"] = *evidence;
  if (auto* note = text_at(*o, "note"))
    body["note"] = *note;
  body["sources"] = std::move(resolved);
  e.rendered = boost::json::serialize(body);
  return e;
}

book load(std::string_view text) {
  book b;
  boost::system::error_code ec;
  auto doc = boost::json::parse(text, ec);
  auto* top = ec ? nullptr : doc.if_object();
  auto* sources = top == nullptr ? nullptr : top->if_contains("sources");
  auto* entries = top == nullptr ? nullptr : top->if_contains("entries");
  if (sources == nullptr || !sources->is_object() || entries == nullptr || !entries->is_array()) {
    b.problems.emplace_back("the data file is not a JSON object with \"sources\" and \"entries\"");
    return b;
  }
  boost::json::array listing;
  std::size_t position = 0;
  for (auto& raw : entries->get_array()) {
    auto e = read_entry(raw, position++, sources->get_object(), b.problems);
    if (!e)
      continue;
    auto index = b.entries.size();
    std::vector<std::string> keys{base::ascii_lower(e->code), base::ascii_lower(e->name)};
    if (auto* aliases = e->body.if_contains("aliases"))
      for (auto& alias : aliases->get_array())
        keys.push_back(base::ascii_lower(base::view(alias.get_string())));
    for (auto& key : keys) {
      auto [at, inserted] = b.by_key.emplace(key, index);
      // An entry may repeat its own code as its name (codewords do); two entries may not
      // share a key, or one of them could never be found.
      if (!inserted && at->second != index)
        b.problems.push_back("\"" + key + "\" is claimed by entry " + std::to_string(position - 1)
                             + " and by an earlier one");
    }
    boost::json::object item;
    item["code"] = e->code;
    item["kind"] = e->kind;
    item["name"] = e->name;
    item["href"] = std::string{explain_route} + "/" + e->code;
    listing.push_back(std::move(item));
    b.entries.push_back(std::move(*e));
  }
  boost::json::object index;
  index["ok"] = true;
  index["codes"] = std::move(listing);
  b.index = boost::json::serialize(index);
  return b;
}

const book& the_book() {
  // Read on first use; the initialisation of a function-local static is thread-safe, and
  // the book is never written afterwards.
  static const book b = load(explanations_document);
  return b;
}

const entry* find(const book& b, const std::string& key) {
  auto at = b.by_key.find(key);
  return at == b.by_key.end() ? nullptr : &b.entries[at->second];
}

} // namespace

std::string explanation_meaning(std::string_view code) {
  const auto* e = find(the_book(), base::ascii_lower(code));
  if (e == nullptr)
    return {};
  const auto* meaning = e->body.if_contains("meaning");
  return meaning != nullptr && meaning->is_string() ? std::string{base::view(meaning->as_string())}
                                                    : std::string{};
}

std::vector<xbox_error_words> xbox_errors() {
  std::vector<xbox_error_words> out;
  for (const auto& e : the_book().entries)
    if (e.kind == xbox_error_kind)
      if (auto code = read_number(e.code, 10))
        out.push_back({static_cast<std::uint32_t>(*code), e.name, e.summary, e.fix});
  std::sort(out.begin(), out.end(),
            [](const xbox_error_words& a, const xbox_error_words& b) { return a.code < b.code; });
  return out;
}

std::vector<std::string> explanation_checks(std::string_view code) {
  std::vector<std::string> out;
  const auto* e = find(the_book(), base::ascii_lower(code));
  const auto* checks = e != nullptr ? e->body.if_contains("checks") : nullptr;
  if (checks == nullptr || !checks->is_array())
    return out;
  for (const auto& c : checks->as_array())
    if (c.is_string())
      out.emplace_back(base::view(c.as_string()));
  return out;
}

std::optional<std::string> render_explanation(std::string_view code) {
  if (code.empty() || code.size() > longest_code)
    return std::nullopt;
  const auto& b = the_book();
  auto key = base::ascii_lower(code);
  if (all_of_class(key, is_digit)) {
    auto first = key.find_first_not_of('0');
    key = first == std::string::npos ? "0" : key.substr(first);
  }
  // Microsoft writes XErrs in hex (0x8015DC09); only an Xbox error answers to that spelling,
  // so "0x25" is not signalling error 37.
  if (key.size() > hex_prefix.size() && key.compare(0, hex_prefix.size(), hex_prefix) == 0) {
    auto number = read_number(std::string_view{key}.substr(hex_prefix.size()), 16);
    auto* e = number ? find(b, std::to_string(*number)) : nullptr;
    if (e == nullptr || e->kind != xbox_error_kind)
      return std::nullopt;
    return e->rendered;
  }
  if (auto* e = find(b, key))
    return e->rendered;
  auto dash = key.rfind('-');
  if (dash == std::string::npos)
    return std::nullopt;
  auto number = std::string_view{key}.substr(dash + 1);
  if (number.size() > longest_variant || !all_of_class(number, is_digit))
    return std::nullopt;
  auto* e = find(b, key.substr(0, dash));
  if (e == nullptr || e->kind != codeword_kind)
    return std::nullopt;
  auto body = e->body;
  body["variant"] = number;
  return boost::json::serialize(body);
}

std::string render_explanation_index() {
  return the_book().index;
}

std::string explanation_path(std::int64_t nethernet_error) {
  if (nethernet_error < 0)
    return {};
  auto key = std::to_string(nethernet_error);
  auto* e = find(the_book(), key);
  if (e == nullptr || e->kind != signalling_kind)
    return {};
  return std::string{explain_route} + "/" + key;
}

std::vector<std::string> explanation_problems() {
  return the_book().problems;
}

} // namespace netherscope::core
