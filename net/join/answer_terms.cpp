#include "net/join/answer_terms.hpp"

#include <charconv>

#include <openssl/pem.h>

#include "base/text.hpp"
#include "net/nethernet/sdp_answer.hpp"

namespace netherscope::net::join {

namespace {

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
  for (auto raw : nethernet::sdp_lines(sdp)) {
    auto line = base::trim(raw);
    if (line.size() > 4096)
      continue;
    if (t.ice_ufrag.empty() && base::istarts_with(line, "a=ice-ufrag:"))
      t.ice_ufrag = std::string{base::trim(line.substr(12))};
    else if (t.ice_pwd.empty() && base::istarts_with(line, "a=ice-pwd:"))
      t.ice_pwd = std::string{base::trim(line.substr(10))};
    else if (t.fingerprint.empty() && base::istarts_with(line, "a=fingerprint:sha-256 "))
      t.fingerprint = std::string{base::trim(line.substr(22))};
    else if (!have_setup && base::istarts_with(line, "a=setup:")) {
      have_setup = true;
      t.setup = std::string{base::trim(line.substr(8))};
    } else if (!have_port && base::istarts_with(line, "a=sctp-port:")) {
      if (auto p = number<std::uint16_t>(base::trim(line.substr(12))); p && *p > 0) {
        have_port = true;
        t.sctp_port = *p;
      }
    } else if (!have_size && base::istarts_with(line, "a=max-message-size:")) {
      if (auto n = number<std::uint32_t>(base::trim(line.substr(19)))) {
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

namespace {

template <class Write>
std::string pem_of(Write write) {
  BIO* b = BIO_new(BIO_s_mem());
  if (b == nullptr)
    return {};
  std::string out;
  if (write(b) == 1) {
    char* data = nullptr;
    auto n = BIO_get_mem_data(b, &data);
    if (n > 0)
      out.assign(data, static_cast<std::size_t>(n));
  }
  BIO_free(b);
  return out;
}

} // namespace

std::optional<join_job> job_from_answer(std::string_view answer_sdp, const job_inputs& in,
                                        std::string* why) {
  auto terms = read_answer_terms(answer_sdp, why);
  if (!terms)
    return std::nullopt;
  join_job job;
  job.ice = {in.local_ufrag, in.local_pwd, terms->ice_ufrag, terms->ice_pwd};
  for (auto line : nethernet::sdp_lines(answer_sdp)) {
    if (job.candidates.size() == max_pairs)
      break;
    auto c = nethernet::parse_candidate(line);
    if (!c || c->transport != "udp" || c->component != 1)
      continue;
    boost::system::error_code ec;
    auto address = boost::asio::ip::make_address(c->address, ec);
    if (ec || !in.allowed || !in.allowed(address))
      continue;
    job.candidates.push_back({{address, c->port}, c->raw});
  }
  job.fingerprint = terms->fingerprint;
  job.role = terms->role;
  job.sctp_port = terms->sctp_port;
  job.max_message_size = terms->max_message_size;
  if (in.identity != nullptr) {
    job.certificate_pem = pem_of(
      [&](BIO* b) { return PEM_write_bio_X509(b, in.identity->dtls_cert.get()); });
    job.key_pem = pem_of([&](BIO* b) {
      return PEM_write_bio_PrivateKey(b, in.identity->dtls_key.get(), nullptr, nullptr, 0,
                                      nullptr, nullptr);
    });
  }
  if (job.certificate_pem.empty() || job.key_pem.empty()) {
    if (why != nullptr)
      *why = "our DTLS certificate or key cannot be written";
    return std::nullopt;
  }
  job.protocol = in.protocol;
  job.timeout = in.timeout;
  job.tie_breaker = in.tie_breaker;
  return job;
}

} // namespace netherscope::net::join
