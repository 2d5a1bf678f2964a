// The outbound client: resolution, the address policy, connecting and plain HTTP.
#include "net/upstream/http_client_op.hpp"

#include <openssl/ssl.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>

#include "core/host_port.hpp"
#include "base/crypto.hpp"
#include "base/log.hpp"

namespace netherscope::net::upstream {

/// The most allowed addresses of one name a fetch tries (and charges to the per-target limit).
constexpr std::size_t max_endpoints = 8;

namespace {

std::string ms_text(std::chrono::milliseconds ms) {
  return std::to_string(ms.count()) + " ms";
}

// ALPN tells a TLS-terminating proxy we speak HTTP/1.1, which is all Beast speaks.
constexpr unsigned char alpn_http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

} // namespace

// -- http_client --------------------------------------------------------------

std::shared_ptr<http_client> http_client::make(asio::io_context& ioc, client_settings settings,
                                               std::string& error) {
  auto resolver = dns_resolver::make(ioc, settings.dns, error);
  if (!resolver)
    return nullptr;
  auto per_minute = settings.offers_per_minute;
  auto st = std::shared_ptr<state>(new state{
    ioc, asio::ssl::context{asio::ssl::context::tls_client}, std::move(settings),
    std::move(resolver), asio::make_strand(ioc), offer_limiter{per_minute}});
  beast::error_code ec;
  st->tls.set_default_verify_paths(ec);
  if (ec) {
    error = "cannot load the system CA store: " + ec.message();
    return nullptr;
  }
  if (!st->settings.ca_file.empty()) {
    st->tls.load_verify_file(st->settings.ca_file, ec);
    if (ec) {
      error = "cannot load --upstream-ca-file '" + st->settings.ca_file + "': " + ec.message();
      return nullptr;
    }
  }
  SSL_CTX_set_min_proto_version(st->tls.native_handle(), TLS1_2_VERSION);
  SSL_CTX_set_alpn_protos(st->tls.native_handle(), alpn_http11, sizeof(alpn_http11));
  return std::shared_ptr<http_client>(new http_client(std::move(st)));
}

void http_client::stop() {
  state_->resolver->stop();
}

void http_client::fetch(fetch_request request, std::function<void(fetch_result&&)> done) {
  std::make_shared<fetch_op>(state_, std::move(request), std::move(done))->start();
}

void http_client::share_offer_gate(shared_offer_gate gate) {
  state_->limiter.share(std::move(gate));
}

// -- fetch_op: setup ----------------------------------------------------------

fetch_op::fetch_op(std::shared_ptr<http_client::state> st, fetch_request req,
                   std::function<void(fetch_result&&)> done)
  : st_(std::move(st)),
    req_(std::move(req)),
    done_(std::move(done)),
    deadline_(clock_type::now() + req_.total_timeout),
    strand_(st_->strand),
    resolve_timer_(strand_) {
  switch (req_.where.tls) {
    case core::tls_mode::auto_detect:
      // A target remembered as plain HTTP gets no ClientHello at all; one remembered as TLS
      // gets the whole connect deadline for its handshake, since it is known to answer; an
      // unknown one gets the short detection deadline, so that a target silent on a
      // ClientHello costs little before plain HTTP is tried.
      if (req_.remembered == scheme_hint::plain) {
        attempts_ = {false};
      } else {
        attempts_ = {true, false};
        detecting_ = req_.remembered == scheme_hint::unknown;
      }
      break;
    case core::tls_mode::on:
      attempts_ = {true};
      break;
    case core::tls_mode::off:
      attempts_ = {false};
      break;
  }
  auto method = http::string_to_verb(req_.method);
  request_.method(method == http::verb::unknown ? http::verb::get : method);
  request_.target(req_.path);
  request_.version(11);
  // The vanilla client's Host carries the port and brackets IPv6 (PROTOCOL.md §1.4).
  request_.set(http::field::host,
               core::host_for_url(req_.where.host) + ":" + std::to_string(req_.where.port));
  request_.set(http::field::user_agent, st_->settings.user_agent);
  for (auto& [name, value] : req_.headers)
    request_.set(name, value);
  if (!req_.body.empty() || request_.method() == http::verb::post) {
    request_.set(http::field::content_type, req_.content_type);
    request_.body() = req_.body;
  }
  // Sets Content-Length, never chunked: BDS does not read chunked bodies (PROTOCOL.md §2.1).
  request_.prepare_payload();
}

void fetch_op::start() {
  asio::dispatch(strand_, [self = shared_from_this()] { self->resolve(); });
}

fetch_op::clock_type::duration fetch_op::remaining() const {
  auto left = deadline_ - clock_type::now();
  return left > clock_type::duration::zero() ? left : clock_type::duration::zero();
}

fetch_op::clock_type::duration fetch_op::connect_budget() const {
  return std::min<clock_type::duration>(remaining(), req_.connect_timeout);
}

std::string fetch_op::target_text() const {
  return core::host_for_url(req_.where.host) + ":" + std::to_string(req_.where.port);
}

std::string fetch_op::fallback_note() const {
  if (using_tls_ || !detect_timed_out_)
    return {};
  return " (TLS was tried first and got no answer within "
         + ms_text(std::min(req_.tls_detect_timeout, req_.connect_timeout))
         + "; if the target speaks TLS slowly, pass tls=true)";
}

// -- fetch_op: resolve once, then check every address -------------------------

void fetch_op::resolve() {
  // The resolver's own timeout and tries end every lookup; this timer keeps the lookup
  // within the connect deadline as well, which may be shorter.
  resolving_ = true;
  resolve_timer_.expires_after(connect_budget());
  resolve_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
    // The answer may have come first, with this handler already queued.
    if (!ec && self->resolving_)
      self->fail(core::error_code::upstream_timeout,
                 "resolving " + self->req_.where.host + " took longer than "
                   + ms_text(self->req_.connect_timeout));
  });
  // An IP literal comes back as itself without a query; names are asked of c-ares, and the
  // answer is posted to this fetch's strand.
  st_->resolver->resolve(req_.where.host, strand_,
                         beast::bind_front_handler(&fetch_op::on_resolved, shared_from_this()));
}

void fetch_op::on_resolved(dns_answer answer) {
  resolving_ = false;
  // The deadline above may have ended the fetch already.
  if (finished_)
    return;
  resolve_timer_.cancel();
  if (answer.status == dns_status::timeout)
    return fail(core::error_code::upstream_timeout,
                "no name server answered for " + req_.where.host + " in time");
  if (answer.status == dns_status::not_found)
    return fail(core::error_code::upstream_failure,
                "cannot resolve " + req_.where.host + ": no such name, or it has no address");
  if (answer.status != dns_status::ok)
    return fail(core::error_code::upstream_failure,
                "cannot resolve " + req_.where.host + ": " + answer.detail);
  std::vector<tcp::endpoint> candidates;
  for (auto& address : answer.addresses)
    candidates.emplace_back(address, req_.where.port);
  use_endpoints(std::move(candidates));
}

void fetch_op::use_endpoints(std::vector<tcp::endpoint> candidates) {
  // These are the only addresses ever connected to: the name is not resolved again, so a
  // second, different DNS answer cannot slip a refused address past the check.
  std::string first_refusal;
  for (auto& ep : candidates) {
    // A name may resolve to thousands of addresses (a DNS answer over TCP holds ~4000 A
    // records); each allowed one is tried and charged to the per-target limit, so a stranger's
    // name could otherwise hold the limit of many servers at once. A handful is plenty for a
    // server's own addresses.
    if (endpoints_.size() == max_endpoints)
      break;
    auto verdict = st_->settings.policy.check(ep.address());
    if (verdict.allowed)
      endpoints_.push_back(ep);
    else if (first_refusal.empty())
      first_refusal = verdict.reason;
  }
  if (endpoints_.empty()) {
    if (first_refusal.empty())
      return fail(core::error_code::upstream_failure,
                  req_.where.host + " resolved to no address");
    return fail(core::error_code::forbidden_target,
                "target " + target_text() + " refused: " + first_refusal);
  }
  if (req_.limited) {
    std::vector<std::string> servers;
    for (auto& ep : endpoints_)
      servers.push_back(core::host_for_url(ep.address().to_string()) + ":" + std::to_string(ep.port()));
    auto wait = st_->limiter.try_start(servers, clock_type::now(), req_.in_flight_limit);
    if (wait > std::chrono::seconds::zero())
      return refuse_for_limit(servers.front(), wait);
    limited_ = std::move(servers);
    if (st_->limiter.gate().start)
      return ask_shared_gate();
  }
  next_attempt();
}

void fetch_op::refuse_for_limit(const std::string& server, std::chrono::seconds wait) {
  fetch_result result;
  result.error = core::make_failure(core::error_code::target_rate_limited,
                              "at most " + std::to_string(st_->limiter.per_minute())
                                + " fresh offers per minute, one at a time, go to the server at "
                                + server + "; retry in " + std::to_string(wait.count()) + " s");
  result.error.retry_after = static_cast<std::uint32_t>(wait.count());
  finish(std::move(result));
}

void fetch_op::ask_shared_gate() {
  // The other replicas' offers count too: one round trip to the shared store, made by a
  // worker off this thread, whose answer is posted back to this fetch's strand. The connect
  // deadline bounds the wait, as it bounds the lookup. A store that answers late is treated
  // as one that failed: the offer goes on under this replica's own limit, which it already
  // passed. Failing it would blame the target (a 504) for our store's slowness.
  auto token = base::random_bytes(12);
  if (!token) {
    // Without a token of its own the fetch could not free the mark it takes (every such
    // fetch would share one), so it does not ask.
    base::log::write(base::log::level::warn, "offer_gate_skipped", {{"reason", "no random bytes"}});
    return next_attempt();
  }
  gate_owner_ = base::base64url_encode(*token);
  gating_ = true;
  auto budget = std::chrono::duration_cast<std::chrono::milliseconds>(connect_budget());
  resolve_timer_.expires_after(budget);
  resolve_timer_.async_wait([self = shared_from_this(), budget](beast::error_code ec) {
    if (ec || !self->gating_ || self->finished_)
      return;
    self->gating_ = false;
    // A store that hangs makes every offer wait: one line per 10 s, with how many it stands for.
    static base::log::sampler slow{std::chrono::seconds{10}};
    base::log::write_sampled(slow, base::log::level::warn, "offer_gate_slow",
                       {{"server", self->limited_.front()}, {"waited_ms", budget.count()}});
    self->next_attempt();
  });
  st_->limiter.gate().start(
    limited_, gate_owner_, req_.in_flight_limit, [self = shared_from_this()](std::chrono::seconds wait) {
      asio::post(self->strand_, [self, wait] { self->on_shared_gate(wait); });
    });
}

void fetch_op::on_shared_gate(std::chrono::seconds wait) {
  // The deadline may have ended the fetch already (finish freed what the gate holds), or the
  // wait for this answer ran out and the offer went on without it; a slot it took is freed
  // by finish, since the owner token stays.
  if (!gating_ || finished_)
    return;
  gating_ = false;
  resolve_timer_.cancel();
  if (wait > std::chrono::seconds::zero()) {
    // Refused for every replica: this process's own record of the start goes too.
    st_->limiter.cancel(limited_);
    auto server = limited_.front();
    limited_.clear();
    gate_owner_.clear();
    return refuse_for_limit(server, wait);
  }
  next_attempt();
}

// -- fetch_op: connect --------------------------------------------------------

void fetch_op::next_attempt() {
  using_tls_ = attempts_.front();
  attempts_.pop_front();
  tls_.reset();
  plain_.emplace(strand_);
  plain_->expires_after(connect_budget());
  plain_->async_connect(endpoints_, beast::bind_front_handler(&fetch_op::on_connected,
                                                              shared_from_this()));
}

void fetch_op::on_connected(beast::error_code ec, const tcp::endpoint&) {
  if (ec == beast::error::timeout)
    return fail(core::error_code::upstream_timeout,
                "connect to " + target_text() + " took longer than "
                  + ms_text(std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::min<clock_type::duration>(req_.connect_timeout, req_.total_timeout))));
  if (ec) {
    // Beast reports the error of the last endpoint tried; name it when there was one.
    auto where = endpoints_.size() == 1
                   ? core::host_for_url(endpoints_.front().address().to_string()) + ":"
                       + std::to_string(endpoints_.front().port())
                   : target_text();
    return fail(core::error_code::upstream_failure, "connect to " + where + ": " + ec.message());
  }
  if (using_tls_)
    start_tls();
  else
    send_plain();
}

void fetch_op::send_plain() {
  exchange(*plain_);
}

// -- fetch_op: the response ---------------------------------------------------

void fetch_op::on_response(beast::error_code ec) {
  if (finished_)
    return;
  auto scheme = using_tls_ ? "HTTPS" : "HTTP";
  if (ec == beast::error::timeout)
    return fail(core::error_code::upstream_timeout,
                std::string{"the target "} + target_text() + " did not answer within "
                  + ms_text(req_.total_timeout));
  if (ec == http::error::body_limit)
    return fail(core::error_code::upstream_failure,
                "the response body from " + target_text() + " is larger than "
                  + std::to_string(req_.body_limit) + " bytes");
  if (ec == http::error::header_limit)
    return fail(core::error_code::upstream_failure,
                "the response headers from " + target_text() + " are too large");
  if (ec == http::error::partial_message)
    return fail(core::error_code::upstream_failure,
                "the target " + target_text() + " closed the connection mid-response");
  if (ec == http::error::end_of_stream || ec == asio::error::eof
      || ec == asio::error::connection_reset || ec == asio::ssl::error::stream_truncated) {
    auto hint = !using_tls_ && req_.where.tls == core::tls_mode::off
                  ? " (does it require TLS? try without tls=false)"
                  : "";
    return fail(core::error_code::upstream_failure,
                std::string{"the target "} + target_text()
                  + " closed the connection without a complete " + scheme + " response"
                  + hint);
  }
  if (ec.category() == http::make_error_code(http::error::bad_version).category()) {
    auto hint = !using_tls_ ? " (does it require TLS?)" : "";
    return fail(core::error_code::upstream_failure,
                "the reply from " + target_text() + " is not valid HTTP: " + ec.message()
                  + hint);
  }
  if (ec)
    return fail(core::error_code::upstream_failure,
                std::string{scheme} + " exchange with " + target_text() + " failed: "
                  + ec.message());
  // skip_interim let every other 1xx through to here.
  const auto status = parser_->get().result_int();
  if (status == 101)
    return fail(core::error_code::upstream_failure,
                "the target " + target_text()
                  + " answered 101 Switching Protocols, which only a request asking to upgrade "
                    "may get");
  if (status >= 100 && status <= 199)
    return fail(core::error_code::upstream_failure,
                "the target " + target_text() + " sent more than "
                  + std::to_string(max_interim_responses)
                  + " interim (1xx) responses without a final one");
  auto res = parser_->release();
  fetch_result result;
  result.status = static_cast<std::uint16_t>(res.result_int());
  result.tls = using_tls_;
  result.content_type = std::string{res[http::field::content_type]};
  for (const auto& name : req_.response_headers)
    if (auto it = res.find(name); it != res.end())
      result.headers.emplace_back(name, std::string{it->value()});
  result.body = std::move(res.body());
  result.certificate = std::move(certificate_);
  finish(std::move(result));
}

bool fetch_op::skip_interim() {
  // RFC 9110 §15.2: a client must accept interim responses before the final one, and they
  // carry nothing a fetch reports. 101 ends HTTP on the connection, so it is no interim
  // response here: our requests never ask for an upgrade.
  const auto status = parser_->get().result_int();
  if (status < 100 || status > 199 || status == 101)
    return false;
  return ++interim_seen_ <= max_interim_responses;
}

void fetch_op::fail(core::error_code code, std::string message) {
  fetch_result result;
  result.error = make_failure(code, message + fallback_note());
  result.tls = using_tls_;
  result.certificate = std::move(certificate_);
  finish(std::move(result));
}

void fetch_op::finish(fetch_result&& result) {
  if (finished_)
    return;
  finished_ = true;
  if (!limited_.empty()) {
    st_->limiter.finish(limited_);
    if (!gate_owner_.empty())
      st_->limiter.gate().finish(limited_, gate_owner_);
  }
  // No TLS close_notify exchange: the response is complete, and a peer that never answers
  // close_notify would hold the connection until the deadline.
  beast::error_code ignored;
  if (tls_)
    beast::get_lowest_layer(*tls_).socket().close(ignored);
  if (plain_)
    plain_->socket().close(ignored);
  auto done = std::move(done_);
  done(std::move(result));
}

} // namespace netherscope::net::upstream
