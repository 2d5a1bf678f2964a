#include "support/json_schema.hpp"

#include <regex>

#include <boost/json.hpp>

namespace netherscope::test {

namespace json = boost::json;

namespace {

bool has_type(const json::value& value, std::string_view type) {
  if (type == "object")
    return value.is_object();
  if (type == "array")
    return value.is_array();
  if (type == "string")
    return value.is_string();
  if (type == "boolean")
    return value.is_bool();
  if (type == "null")
    return value.is_null();
  if (type == "integer")
    return value.is_int64() || value.is_uint64()
           || (value.is_double() && value.as_double() == static_cast<double>(static_cast<long long>(value.as_double())));
  if (type == "number")
    return value.is_number();
  return false;
}

double number_of(const json::value& v) {
  return v.is_int64() ? static_cast<double>(v.as_int64())
       : v.is_uint64() ? static_cast<double>(v.as_uint64())
                       : v.as_double();
}

// The length of a string in characters (code points), as JSON Schema counts it.
std::size_t characters(json::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80)
      ++n;
  return n;
}

void check(const json::value& doc, const json::value& schema_value, const json::value& value,
           const std::string& path, std::vector<std::string>& out) {
  if (!schema_value.is_object())
    return;
  const auto& schema = schema_value.as_object();
  if (auto* ref = schema.if_contains("$ref")) {
    auto* target = resolve_ref(doc, ref->as_string());
    if (target == nullptr)
      out.push_back(path + ": unresolved $ref " + std::string{ref->as_string()});
    else
      check(doc, *target, value, path, out);
  }
  if (auto* type = schema.if_contains("type")) {
    bool ok = false;
    if (type->is_string()) {
      ok = has_type(value, type->as_string());
    } else if (type->is_array()) {
      for (auto& t : type->as_array())
        ok = ok || (t.is_string() && has_type(value, t.as_string()));
    }
    if (!ok) {
      out.push_back(path + ": " + json::serialize(value).substr(0, 80) + " is not of type "
                    + json::serialize(*type));
      return;
    }
  }
  if (auto* c = schema.if_contains("const"); c && *c != value)
    out.push_back(path + ": expected " + json::serialize(*c) + ", got " + json::serialize(value));
  if (auto* e = schema.if_contains("enum")) {
    bool found = false;
    for (auto& item : e->as_array())
      found = found || item == value;
    if (!found)
      out.push_back(path + ": " + json::serialize(value) + " is not in the enum");
  }
  if (value.is_number()) {
    if (auto* m = schema.if_contains("minimum"); m && number_of(value) < number_of(*m))
      out.push_back(path + ": below the minimum");
    if (auto* m = schema.if_contains("maximum"); m && number_of(value) > number_of(*m))
      out.push_back(path + ": above the maximum");
  }
  if (value.is_string()) {
    if (auto* m = schema.if_contains("maxLength");
        m && characters(value.as_string()) > static_cast<std::size_t>(number_of(*m)))
      out.push_back(path + ": longer than maxLength");
    if (auto* p = schema.if_contains("pattern")) {
      std::regex re{std::string{p->as_string()}, std::regex::ECMAScript};
      if (!std::regex_search(std::string{value.as_string()}, re))
        out.push_back(path + ": does not match " + std::string{p->as_string()});
    }
  }
  if (value.is_array()) {
    const auto& items = value.as_array();
    if (auto* m = schema.if_contains("maxItems");
        m && items.size() > static_cast<std::size_t>(number_of(*m)))
      out.push_back(path + ": more than maxItems");
    if (auto* item_schema = schema.if_contains("items"))
      for (std::size_t i = 0; i < items.size(); ++i)
        check(doc, *item_schema, items[i], path + "[" + std::to_string(i) + "]", out);
  }
  if (value.is_object()) {
    const auto& object = value.as_object();
    if (auto* required = schema.if_contains("required"))
      for (auto& name : required->as_array())
        if (!object.contains(name.as_string()))
          out.push_back(path + ": lacks the required " + std::string{name.as_string()});
    const json::object* properties = nullptr;
    if (auto* p = schema.if_contains("properties"))
      properties = &p->as_object();
    auto* additional = schema.if_contains("additionalProperties");
    for (auto& [key, member] : object) {
      auto member_path = path + "." + std::string{key};
      if (properties != nullptr && properties->contains(key))
        check(doc, properties->at(key), member, member_path, out);
      else if (additional != nullptr && additional->is_object())
        check(doc, *additional, member, member_path, out);
      else if (properties != nullptr
               && (additional == nullptr || (additional->is_bool() && !additional->as_bool())))
        // Stricter than JSON Schema's default: a member the document does not describe is a
        // gap in the document, which is what these checks are for.
        out.push_back(member_path + ": not described");
    }
  }
  for (auto keyword : {"oneOf", "anyOf"}) {
    auto* options = schema.if_contains(keyword);
    if (options == nullptr)
      continue;
    int matches = 0;
    for (auto& option : options->as_array()) {
      std::vector<std::string> inner;
      check(doc, option, value, path, inner);
      if (inner.empty())
        ++matches;
    }
    bool ok = std::string_view{keyword} == "oneOf" ? matches == 1 : matches >= 1;
    if (!ok)
      out.push_back(path + ": matches " + std::to_string(matches) + " of the " + keyword
                    + " options");
  }
}

} // namespace

const json::value* resolve_ref(const json::value& doc, std::string_view ref) {
  if (ref.substr(0, 2) != "#/")
    return nullptr;
  boost::system::error_code ec;
  return doc.find_pointer(ref.substr(1), ec);
}

std::vector<std::string> schema_violations(const json::value& doc, const json::value& schema,
                                           const json::value& value) {
  std::vector<std::string> out;
  check(doc, schema, value, "$", out);
  return out;
}

} // namespace netherscope::test
