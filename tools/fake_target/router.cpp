// Request handling for the fake target: the status route of PROTOCOL.md §1 with its faults,
// the offer route of §2–§4 with its three server styles, and the stats route for tests.
#include "router.hpp"

#include "identity.hpp"
#include "sdp.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <memory>

namespace fake_target {

namespace json = boost::json;

namespace {

constexpr std::string_view status_path = "/v1/join";
constexpr std::string_view offer_prefix = "/v1/join/";
constexpr std::string_view stats_path = "/_fake/stats";

// NetherNet error codes from go-nethernet's signal.go (PROTOCOL §2.4).
constexpr int error_failed_to_set_remote_description = 13;
constexpr int error_identity_verification_failed = 37;

// The Content-Length the close-mid-body fault promises, of which it sends only 10 bytes.
constexpr std::size_t promised_length = 1000;
constexpr std::size_t sent_before_close = 10;

std::string_view path_of(std::string_view target) {
  return target.substr(0, target.find('?'));
}

response make_response(const request& req, unsigned status, std::string body, std::string_view content_type) {
  response res;
  res.version(req.version());
  res.result(status);
  res.keep_alive(req.keep_alive());
  if (!content_type.empty()) res.set(http::field::content_type, content_type);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

response text(const request& req, unsigned status, std::string body) {
  return make_response(req, status, std::move(body), "text/plain");
}

response method_not_allowed(const request& req, std::string_view allow) {
  auto res = text(req, 405, "Method Not Allowed");
  res.set(http::field::allow, allow);
  return res;
}

// Digits only and at most 2^64-1: what go-nethernet's strconv.ParseUint(id, 10, 64) accepts.
bool is_uint64(std::string_view id) {
  if (id.empty() || id.size() > 20) return false;
  for (const char c : id)
    if (c < '0' || c > '9') return false;
  return id.size() < 20 || id <= std::string_view("18446744073709551615");
}

// Steps 1 and 2 of the offer checks that need no body: the network ID and the framing.
std::optional<response> check_id_and_length(const request& req, bool has_length, std::uint64_t length) {
  const auto id = path_of(req.target()).substr(offer_prefix.size());
  if (id.empty()) return text(req, 400, "Expected /v1/join/{networkID}");
  if (!is_uint64(id)) return text(req, 400, "Network ID must be uint64");
  if (!has_length) return text(req, 411, "Length Required");
  if (length > max_body_size) return text(req, 413, "SDP offer is too large");
  return std::nullopt;
}

std::string random_string(std::mt19937_64& random, std::size_t length) {
  static constexpr std::string_view alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string out;
  for (std::size_t i = 0; i < length; ++i) out += alphabet[pick(random)];
  return out;
}

// A JSON object of exactly `size` bytes: {"name":"xxx...x"}.
std::string padded_json(std::size_t size) {
  constexpr std::string_view head = R"({"name":")";
  constexpr std::string_view tail = R"("})";
  const std::size_t fill = size > head.size() + tail.size() ? size - head.size() - tail.size() : 0;
  return std::string(head) + std::string(fill, 'x') + std::string(tail);
}

// An SDP-looking body of exactly `size` bytes, for the offer oversize fault.
std::string padded_sdp(std::size_t size) {
  std::string out = "v=0\r\na=x-padding:";
  const std::size_t fill = size > out.size() + 2 ? size - out.size() - 2 : 0;
  return out + std::string(fill, 'x') + "\r\n";
}

// Bytes a JSON writer has to escape as \u00XX, six bytes for one: the controls other than
// \b \t \n \f \r (and NUL, which is awkward in C tools), and never CR or LF, so that they fit on
// one SDP line.
constexpr std::string_view six_byte_controls =
    "\x01\x02\x03\x04\x05\x06\x07\x0B\x0E\x0F\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1A\x1B\x1C\x1D\x1E\x1F";

// `size` control bytes, cycling through six_byte_controls.
std::string control_bytes(std::size_t size) {
  std::string out(size, '\0');
  for (std::size_t i = 0; i < size; ++i) out[i] = six_byte_controls[i % six_byte_controls.size()];
  return out;
}

// The words of an interim status line: the registered reason phrase, or a generic one.
std::string_view interim_reason(unsigned status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 102: return "Processing";
    case 103: return "Early Hints";
    default: return "Informational";
  }
}

// The --interim responses as they go on the wire. 103 carries a Link header, as Early Hints
// do; a 101 names an upgrade nobody asked for.
std::string interim_bytes(const config& cfg) {
  std::string out;
  for (const auto status : cfg.interim) {
    out += "HTTP/1.1 " + std::to_string(status) + " " + std::string(interim_reason(status)) + "\r\n";
    if (status == 103) out += "Link: </style.css>; rel=preload; as=style\r\n";
    if (status == 101) out += "Upgrade: websocket\r\nConnection: Upgrade\r\n";
    out += "\r\n";
  }
  return out;
}

// -- GET /v1/join ----------------------------------------------------------------------------

response normal_status(const request& req, const config& cfg) {
  switch (cfg.body) {
    case body_mode::empty:
      // go-nethernet, Pumpkin and BDS with LAN visibility off: 200, no body, no type (§1.3).
      return make_response(req, cfg.status_code, "", "");
    case body_mode::text:
      return make_response(req, cfg.status_code, cfg.text, "text/plain");
    case body_mode::json:
      break;
  }
  return make_response(req, cfg.status_code, cfg.info_json, "application/json");
}

reply_plan status_reply(const request& req, const config& cfg) {
  if (req.method() == http::verb::head) {
    // HEAD gets GET's header, Content-Length included, and no body; faults are GET-only.
    auto res = normal_status(req, cfg);
    const auto length = res.body().size();
    res.body().clear();
    res.content_length(length);
    return {reply_kind::respond, std::move(res), {}};
  }
  switch (cfg.fault) {
    case status_fault::delay:
      return {reply_kind::respond, normal_status(req, cfg), cfg.delay};
    case status_fault::hang:
      return {reply_kind::hang, {}, {}};
    case status_fault::drip:
      return {reply_kind::drip, normal_status(req, cfg), cfg.delay};
    case status_fault::oversize:
      return {reply_kind::respond,
              make_response(req, 200, padded_json(cfg.oversize_bytes), "application/json"),
              {}};
    case status_fault::close_mid_body: {
      auto res = make_response(req, cfg.status_code,
                               padded_json(promised_length).substr(0, sent_before_close), "application/json");
      res.content_length(promised_length);
      return {reply_kind::close_mid_body, std::move(res), {}};
    }
    case status_fault::redirect: {
      auto res = make_response(req, 302, "", "");
      res.set(http::field::location, cfg.redirect_to);
      return {reply_kind::respond, std::move(res), {}};
    }
    case status_fault::control_bytes:
      return {reply_kind::respond,
              make_response(req, cfg.status_code, control_bytes(cfg.oversize_bytes), "text/plain"),
              {}};
    case status_fault::none:
      break;
  }
  return {reply_kind::respond, normal_status(req, cfg), {}};
}

// -- POST /v1/join/{id} ----------------------------------------------------------------------

// Why an offer was refused, in terms every style can word.
struct refusal {
  int code;                  // NetherNet error code for bds and go
  std::string pumpkin_text;  // Pumpkin's 400 message
};

response refuse(const request& req, const config& cfg, const refusal& why) {
  switch (cfg.style) {
    case server_style::go:
      return make_response(req, 400, "Negotiation failed with error code: " + std::to_string(why.code),
                           "text/plain; charset=utf-8");
    case server_style::pumpkin:
      return text(req, 400, why.pumpkin_text);
    case server_style::bds:
      break;
  }
  // BDS puts the bare code in the body; client libraries expect it with 200 (§2.4).
  return text(req, cfg.error_status, std::to_string(why.code));
}

// Pumpkin's words for each fault of an identity, as an offline-mode Pumpkin would refuse it
// (PROTOCOL.md, "Refusals of an anonymous offer").
refusal identity_refusal(const identity_problem& problem) {
  switch (problem.kind) {
    case identity_failure::fingerprint_signature:
      return {error_identity_verification_failed, "fingerprint signature verification failed"};
    case identity_failure::expired:
      return {error_identity_verification_failed, "identity token has expired"};
    case identity_failure::cpk_not_string:
      return {error_identity_verification_failed,
              "invalid identity public key: Public key build failed: " + problem.detail};
    case identity_failure::token_signature:
    case identity_failure::malformed:
      break;
  }
  return {error_identity_verification_failed, "invalid identity token payload: " + problem.detail};
}

// Pumpkin's words for an identity that is no Xbox GameServerToken the fake can verify: the
// only refusal there is without --xbox-issuer, where an anonymous prober never has one.
std::string unverifiable_pumpkin_text(const offer_summary& offer) {
  if (offer.session_identities.empty()) return "SDP offer is missing its identity assertion";
  const auto view = read_for_online(offer.session_identities.front());
  if (!view.decodes) return "invalid identity JSON: no idp, assertion and token in the a=identity value";
  if (!view.provider_ok) return "invalid identity provider";
  // Pumpkin looks the token's key up in the Xbox service's key set by its kid.
  return view.kid.empty() ? "invalid GameServerToken: Public key build failed: OIDC header missing kid"
                          : "invalid GameServerToken: Public key build failed: Key not found in JWKS: " + view.kid;
}

// An online-mode refusal (--auth online) in the --auth-style shape. Only Pumpkin says why;
// crustaceans answer 401 for an identity they cannot verify and 403 for a player the host
// turns away (`http401_status`).
response refuse_online(const request& req, const config& cfg, const std::string& pumpkin_text,
                       unsigned http401_status = 401) {
  switch (cfg.auth_shape) {
    case auth_style::go_nethernet:
      return make_response(req, 400,
                           "Negotiation failed with error code: " + std::to_string(error_identity_verification_failed),
                           "text/plain; charset=utf-8");
    case auth_style::pumpkin:
      return text(req, 400, pumpkin_text);
    case auth_style::http401:
      return make_response(req, http401_status, "", "");
    case auth_style::bds:
    case auth_style::automatic:
      break;
  }
  return text(req, cfg.error_status, std::to_string(error_identity_verification_failed));
}

// Step 4: the a=identity policy. Returns the refusal, if any.
std::optional<refusal> check_identity(const offer_summary& offer, const target_state& state) {
  const auto policy = state.cfg.identity;
  if (policy == identity_policy::ignore) return std::nullopt;
  if (offer.session_identities.empty()) {
    if (policy == identity_policy::optional) return std::nullopt;
    return refusal{error_identity_verification_failed, "SDP offer is missing its identity assertion"};
  }
  if (offer.session_identities.size() > 1)
    return identity_refusal({identity_failure::malformed, "more than one a=identity line"});
  // Pumpkin parses the token's claims into typed fields, so a JWK cpk fails that parse.
  const auto accepted =
      policy == identity_policy::strict ? cpk_forms::der_only : cpk_forms::jwk_or_der;
  const auto& value = offer.session_identities.front();
  if (auto problem = verify_identity(value, offer.fingerprints, state.now(), accepted))
    return identity_refusal(*problem);
  return std::nullopt;
}

candidate_dialect dialect_of(server_style style) {
  switch (style) {
    case server_style::go:
      return candidate_dialect::go;
    case server_style::pumpkin:
      return candidate_dialect::pumpkin;
    case server_style::bds:
      break;
  }
  return candidate_dialect::bds;
}

std::string make_answer(target_state& state, std::optional<std::uint16_t> port,
                        const ice_credentials& credentials) {
  const auto& cfg = state.cfg;
  answer_fields fields;
  fields.session_id = state.random() >> 1;
  fields.connection_address = cfg.bind;
  fields.ipv6 = cfg.bind.find(':') != std::string::npos;
  const auto& advertised = cfg.candidate_address.empty() ? cfg.bind : cfg.candidate_address;
  if (port) fields.candidates.push_back({static_cast<std::uint32_t>(state.random()), advertised, *port});
  fields.extra_lines = cfg.extra_candidates;
  fields.dialect = dialect_of(cfg.style);
  fields.ice_ufrag = credentials.ufrag;
  fields.ice_pwd = credentials.pwd;
  fields.fingerprint = state.dtls_fingerprint;
  fields.identity =
      make_identity(state.identity_key.get(), {answer_fingerprint(fields)}, state.now(), cfg.answer_cpk);
  return write_answer(fields);
}

// Step 5 for an offer whose identity passed: --reject-offers, then the answer with a leased
// port.
reply_plan answer_offer(const request& req, target_state& state, const offer_summary& offer) {
  const auto& cfg = state.cfg;
  if (cfg.reject_offers >= 0) {
    ++state.stats.offers_rejected;
    return {reply_kind::respond,
            refuse(req, cfg,
                   {cfg.reject_offers, "offer refused by --reject-offers "
                                         + std::to_string(cfg.reject_offers)}),
            {}};
  }

  // The port answers connectivity checks made with this answer's credentials.
  const ice_credentials credentials{random_string(state.random, 4), random_string(state.random, 24)};
  // A client that joins on the port must present the certificate its offer names.
  std::string peer_fingerprint;
  for (const auto& f : offer.fingerprints)
    if (f.algorithm == "sha-256") {
      peer_fingerprint = f.digest;
      break;
    }
  const auto port = state.ports ? state.ports->lease(credentials, peer_fingerprint) : std::nullopt;
  if (!port && cfg.style == server_style::pumpkin) {
    // Pumpkin refuses to send an answer without a UDP host candidate (§2.2).
    ++state.stats.offers_rejected;
    return {reply_kind::respond, text(req, 400, "WebRTC answer has no UDP host candidate"), {}};
  }
  // A drained pool still yields an answer, with no candidates: what §2.6 suspects BDS does.
  return {reply_kind::respond, make_response(req, 200, make_answer(state, port, credentials), "application/sdp"),
          cfg.answer_delay};
}

// Whether --allowlist admits the gamertag, compared as BDS compares allowlist.json names.
bool on_allowlist(const config& cfg, const std::string& xname) {
  if (cfg.allowlist.empty()) return true;
  std::string name = xname;
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::find(cfg.allowlist.begin(), cfg.allowlist.end(), name) != cfg.allowlist.end();
}

// Step 4 with --xbox-issuer: the offer's GameServerToken verified against the issuer's keys,
// then the allowlist. A kid the keys lack makes the fake fetch the JWKS once more (the issuer
// may have rotated its key) and decide when that ends; `may_refresh` is false on that second
// look.
reply_plan signed_in_reply(const request& req, target_state& state, const offer_summary& offer, bool may_refresh) {
  const auto& cfg = state.cfg;
  const auto refuse_identity = [&](const std::string& pumpkin_text) {
    ++state.stats.offers_rejected;
    ++state.stats.offers_unauthenticated;
    return reply_plan{reply_kind::respond, refuse_online(req, cfg, pumpkin_text), {}};
  };
  if (offer.session_identities.empty()) return refuse_identity(unverifiable_pumpkin_text(offer));
  if (offer.session_identities.size() > 1)
    return refuse_identity("invalid identity JSON: more than one a=identity line");
  const auto verdict = verify_game_server_identity(offer.session_identities.front(), offer.fingerprints,
                                                   state.now(), state.issuer->keys());
  if (verdict.outcome == online_outcome::unknown_kid && may_refresh) {
    reply_plan later;
    later.deferred = [&state, held_req = std::make_shared<request>(req),
                      held_offer = std::make_shared<offer_summary>(offer)](std::function<void(reply_plan)> deliver) {
      auto again = [&state, held_req, held_offer, deliver] {
        deliver(signed_in_reply(*held_req, state, *held_offer, false));
      };
      if (!state.issuer->refresh(again)) again();
    };
    return later;
  }
  if (verdict.outcome != online_outcome::verified) return refuse_identity(verdict.pumpkin_text);
  if (!on_allowlist(cfg, verdict.xname)) {
    ++state.stats.offers_rejected;
    ++state.stats.offers_not_allowlisted;
    return {reply_kind::respond, refuse_online(req, cfg, "You are not white-listed on this server", 403), {}};
  }
  ++state.stats.offers_signed_in;
  return answer_offer(req, state, offer);
}

reply_plan offer_reply(const request& req, target_state& state) {
  const auto& cfg = state.cfg;
  if (req.method() != http::verb::post) return {reply_kind::respond, method_not_allowed(req, "POST"), {}};
  const bool has_length = req.find(http::field::content_length) != req.end();
  if (auto bad = check_id_and_length(req, has_length, req.body().size()))
    return {reply_kind::respond, std::move(*bad), {}};
  if (req.body().empty())
    return {reply_kind::respond, text(req, 400, "Missing SDP offer in request body"), {}};

  // Step 5: from here on the POST counts as an offer received, whatever becomes of it.
  ++state.stats.offers;
  switch (cfg.post_fault) {
    case offer_fault::hang:
      return {reply_kind::hang, {}, {}};
    case offer_fault::oversize:
      return {reply_kind::respond,
              make_response(req, 200, padded_sdp(cfg.oversize_bytes), "application/sdp"),
              {}};
    case offer_fault::close_mid_body: {
      auto res = make_response(req, 200, padded_sdp(promised_length).substr(0, sent_before_close),
                               "application/sdp");
      res.content_length(promised_length);
      return {reply_kind::close_mid_body, std::move(res), {}};
    }
    case offer_fault::control_error:
      return {reply_kind::respond, text(req, 400, control_bytes(cfg.oversize_bytes)), {}};
    case offer_fault::control_answer: {
      // A valid answer, so that it is parsed and echoed, with one line of control bytes
      // after it that brings the body to --oversize-bytes (its CRLF included).
      // No port is leased, so the credentials only fill the answer's ice lines.
      const ice_credentials credentials{random_string(state.random, 4),
                                        random_string(state.random, 24)};
      auto answer = make_answer(state, std::nullopt, credentials);
      const auto pad = cfg.oversize_bytes > answer.size() + 2 ? cfg.oversize_bytes - answer.size() - 2 : 0;
      answer += control_bytes(pad) + "\r\n";
      return {reply_kind::respond, make_response(req, 200, std::move(answer), "application/sdp"), {}};
    }
    case offer_fault::none:
      break;
  }

  const auto checked = check_offer(req.body());
  if (!checked.summary) {
    ++state.stats.offers_rejected;
    return {reply_kind::respond,
            refuse(req, cfg, {error_failed_to_set_remote_description, "invalid SDP offer"}),
            {}};
  }
  if (cfg.auth == auth_mode::online && state.issuer) return signed_in_reply(req, state, *checked.summary, true);
  if (cfg.auth == auth_mode::online) {
    ++state.stats.offers_rejected;
    ++state.stats.offers_unauthenticated;
    return {reply_kind::respond, refuse_online(req, cfg, unverifiable_pumpkin_text(*checked.summary)), {}};
  }
  if (const auto why = check_identity(*checked.summary, state)) {
    ++state.stats.offers_rejected;
    return {reply_kind::respond, refuse(req, cfg, *why), {}};
  }
  return answer_offer(req, state, *checked.summary);
}

// -- GET /_fake/stats ------------------------------------------------------------------------

response stats_response(const request& req, const target_state& state) {
  const auto& s = state.stats;
  const json::object body{
      {"status_requests", s.status_requests},
      {"offers", s.offers},
      {"offers_rejected", s.offers_rejected},
      {"ports_in_use", state.ports ? state.ports->in_use() : 0},
      {"tls_alerts", s.tls_alerts},
      {"connections", s.connections},
      {"connections_open", s.connections_open},
      {"tls_handshake_failures", s.tls_handshake_failures},
      {"tls_hellos_ignored", s.tls_hellos_ignored},
      {"stun_requests", s.stun_requests},
      {"stun_answers", s.stun_answers},
      {"offers_unauthenticated", s.offers_unauthenticated},
      {"offers_signed_in", s.offers_signed_in},
      {"offers_not_allowlisted", s.offers_not_allowlisted},
      {"raknet_pings", s.raknet_pings},
      {"raknet_pongs", s.raknet_pongs},
      {"joins_started", s.joins_started},
      {"dtls_established", s.dtls_established},
      {"dtls_srtp", s.dtls_srtp},
      {"dtls_failures", s.dtls_failures},
      {"channels_opened", s.channels_opened},
      {"game_requests", s.game_requests},
  };
  return make_response(req, 200, json::serialize(body), "application/json");
}

reply_plan route(const request& req, target_state& state) {
  const auto path = path_of(req.target());
  if (path == stats_path) {
    if (req.method() != http::verb::get) return {reply_kind::respond, method_not_allowed(req, "GET"), {}};
    return {reply_kind::respond, stats_response(req, state), {}};
  }
  // --raknet only: this port is the stats' alone; the game port has no TCP listener at all.
  if (state.stats_only) return {reply_kind::respond, text(req, 404, "404 page not found"), {}};
  if (path == status_path) {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return {reply_kind::respond, method_not_allowed(req, "GET, HEAD"), {}};
    ++state.stats.status_requests;
    auto plan = status_reply(req, state.cfg);
    plan.interim = interim_bytes(state.cfg);
    return plan;
  }
  if (path.substr(0, offer_prefix.size()) == offer_prefix) {
    auto plan = offer_reply(req, state);
    if (plan.deferred) {
      // The interim responses go with the real plan, once it is known.
      plan.deferred = [&state, start = std::move(plan.deferred)](std::function<void(reply_plan)> deliver) {
        start([&state, deliver](reply_plan real) {
          real.interim = interim_bytes(state.cfg);
          deliver(std::move(real));
        });
      };
      return plan;
    }
    plan.interim = interim_bytes(state.cfg);
    return plan;
  }
  return {reply_kind::respond, text(req, 404, "404 page not found"), {}};
}

// One event line per request. A hung request has no status yet, so it reports 0.
void log_request(const request& req, const reply_plan& plan, target_state& state) {
  if (!state.emit) return;
  const auto path = path_of(req.target());
  json::object event{
      {"event", "request"},
      {"method", std::string_view(req.method_string())},
      {"path", path},
      {"status", plan.kind == reply_kind::hang ? 0u : plan.res.result_int()},
  };
  if (plan.kind != reply_kind::respond)
    event["delivery"] = plan.kind == reply_kind::hang   ? "hang"
                        : plan.kind == reply_kind::drip ? "drip"
                                                        : "close-mid-body";
  if (req.method() == http::verb::post && path.substr(0, offer_prefix.size()) == offer_prefix)
    event["offers"] = state.stats.offers;
  state.emit(json::serialize(event));
}

}  // namespace

std::optional<response> check_header(const request& header, std::optional<std::uint64_t> content_length,
                                     target_state& state) {
  const auto path = path_of(header.target());
  const bool is_offer =
      header.method() == http::verb::post && path.substr(0, offer_prefix.size()) == offer_prefix;
  std::optional<response> early;
  if (is_offer && (!content_length || *content_length > max_body_size))
    early = check_id_and_length(header, content_length.has_value(), content_length.value_or(0));
  else if (content_length && *content_length > max_body_size)
    early = text(header, 413, "Payload Too Large");
  if (early) log_request(header, {reply_kind::respond, *early, {}}, state);
  return early;
}

response body_too_large(const request& header, target_state& state) {
  const auto path = path_of(header.target());
  const bool is_offer =
      header.method() == http::verb::post && path.substr(0, offer_prefix.size()) == offer_prefix;
  auto res = text(header, 413, is_offer ? "SDP offer is too large" : "Payload Too Large");
  res.keep_alive(false);
  log_request(header, {reply_kind::respond, res, {}}, state);
  return res;
}

reply_plan handle_request(const request& req, target_state& state) {
  auto plan = route(req, state);
  if (plan.deferred) {
    // The event line waits for the real plan, so that it carries the status sent.
    plan.deferred = [&state, header = std::make_shared<request>(req.base(), std::string()),
                     start = std::move(plan.deferred)](std::function<void(reply_plan)> deliver) {
      start([&state, header, deliver](reply_plan real) {
        log_request(*header, real, state);
        deliver(std::move(real));
      });
    };
    return plan;
  }
  log_request(req, plan, state);
  return plan;
}

}  // namespace fake_target
