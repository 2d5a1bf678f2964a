#include "net/join/answer_terms.hpp"

#include <cctype>
#include <charconv>

namespace netherscope::net::join {

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  return s;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size())
    return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

template <class T>
std::optional<T> number(std::string_view s) {
  T v{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

} // namespace

std::optional<answer_terms> read_answer_terms(std::string_view sdp, std::string* why) {
  auto fail = [&](const char* reason) -> std::optional<answer_terms> {
    if (why != nullptr)
      *why = reason;
    return std::nullopt;
  };
  answer_terms t;
  bool have_setup = false;
  bool have_port = false;
  bool have_size = false;
  while (!sdp.empty()) {
    auto end = sdp.find('\n');
    auto line = trimmed(sdp.substr(0, end));
    sdp = end == std::string_view::npos ? std::string_view{} : sdp.substr(end + 1);
    if (line.size() > 4096)
      continue;
    if (t.ice_ufrag.empty() && starts_with_nocase(line, "a=ice-ufrag:"))
      t.ice_ufrag = std::string{trimmed(line.substr(12))};
    else if (t.ice_pwd.empty() && starts_with_nocase(line, "a=ice-pwd:"))
      t.ice_pwd = std::string{trimmed(line.substr(10))};
    else if (t.fingerprint.empty() && starts_with_nocase(line, "a=fingerprint:sha-256 "))
      t.fingerprint = std::string{trimmed(line.substr(22))};
    else if (!have_setup && starts_with_nocase(line, "a=setup:")) {
      have_setup = true;
      t.setup = std::string{trimmed(line.substr(8))};
    } else if (!have_port && starts_with_nocase(line, "a=sctp-port:")) {
      if (auto p = number<std::uint16_t>(trimmed(line.substr(12))); p && *p > 0) {
        have_port = true;
        t.sctp_port = *p;
      }
    } else if (!have_size && starts_with_nocase(line, "a=max-message-size:")) {
      if (auto n = number<std::uint32_t>(trimmed(line.substr(19)))) {
        have_size = true;
        t.max_message_size = *n;
      }
    }
  }
  if (t.ice_ufrag.empty() || t.ice_pwd.empty())
    return fail("the answer has no ICE credentials");
  if (t.fingerprint.empty())
    return fail("the answer has no sha-256 fingerprint");
  if (t.setup == "active" || t.setup.empty())
    t.role = dtls_role::server;
  else if (t.setup == "passive")
    t.role = dtls_role::client;
  else
    return fail("the answer's a=setup is neither active nor passive");
  return t;
}

} // namespace netherscope::net::join
