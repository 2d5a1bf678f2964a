#include "net/upstream/xbox_chain.hpp"

#include <chrono>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "base/crypto.hpp"
#include "net/upstream/oauth.hpp"
#include "net/xbox/signing.hpp"

namespace netherscope::net::upstream {

namespace asio = boost::asio;
namespace xb = xbox;

namespace {

// Session starts and discovery answers carry configuration blobs; a megabyte bounds them.
constexpr std::size_t chain_body_limit = 1024 * 1024;

// RFC 8628 §3.5: what each slow_down adds to the polling interval.
constexpr std::int64_t slow_down_step_s = 5;

std::int64_t system_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

xb::chain_error unreachable(xb::step s, const core::failure& why) {
  return xb::make_error(s, xb::fault::unreachable, "could not reach the service: " + why.message);
}

xb::http_answer answer_of(fetch_result&& r) {
  xb::http_answer answer;
  answer.status = r.status;
  answer.body = std::move(r.body);
  answer.headers = std::move(r.headers);
  return answer;
}

} // namespace

struct xbox_chain::shared {
  asio::io_context& ioc;
  std::shared_ptr<http_client> client;
  xbox_chain_settings settings;

  std::int64_t now() const {
    return settings.now_ms ? settings.now_ms() : system_now_ms();
  }
};

std::optional<fetch_request> xbox_fetch_request(const xb::http_call& call,
                                                std::chrono::milliseconds timeout) {
  auto req = request_for(call.url, call.method, timeout);
  if (!req)
    return std::nullopt;
  req->content_type = call.content_type;
  req->body = call.body;
  req->headers = call.headers;
  req->response_headers = xb::answer_headers();
  req->body_limit = chain_body_limit;
  return req;
}

namespace {

using shared_ptr = std::shared_ptr<xbox_chain::shared>;

// Moves what a reader read into the state's slot; false when it read nothing.
template <class T>
bool keep(std::optional<T>&& read, std::optional<T>& slot) {
  if (!read)
    return false;
  slot = std::move(*read);
  return true;
}

// Sends one call on behalf of an operation and hands the answer (or why there is none) to
// the operation's strand.
template <class Strand, class Handler>
void send(const shared_ptr& sh, Strand& strand, xb::step s, const xb::http_call& call,
          Handler&& on_answer) {
  auto req = xbox_fetch_request(call, sh->settings.timeout);
  if (!req) {
    asio::post(strand, [s, handler = std::forward<Handler>(on_answer)]() mutable {
      handler(std::optional<xb::http_answer>{},
              xb::make_error(s, xb::fault::bad_answer, "its URL is not an http(s) URL"));
    });
    return;
  }
  sh->client->fetch(std::move(*req), [s, &strand, handler = std::forward<Handler>(on_answer)](
                                       fetch_result&& r) mutable {
    asio::post(strand, [s, r = std::move(r), handler = std::move(handler)]() mutable {
      if (!r.error.ok())
        handler(std::optional<xb::http_answer>{}, unreachable(s, r.error));
      else
        handler(std::optional<xb::http_answer>{answer_of(std::move(r))}, xb::chain_error{});
    });
  });
}

// -- renewal --

class renew_op : public std::enable_shared_from_this<renew_op> {
public:
  renew_op(shared_ptr sh, xb::chain_state state, std::string spki,
           std::function<void(xbox_renewal&&)> done)
    : sh_(std::move(sh)),
      strand_(asio::make_strand(sh_->ioc)),
      spki_(std::move(spki)),
      done_(std::move(done)) {
    result_.state = std::move(state);
  }

  void start() {
    asio::post(strand_, [self = shared_from_this()] {
      self->plan_ = xb::plan_renewal(self->result_.state, self->spki_, self->sh_->now());
      self->next();
    });
  }

private:
  xb::chain_state& st() {
    return result_.state;
  }

  void next() {
    if (at_ == plan_.size())
      return finish();
    auto s = plan_[at_++];
    auto call = build(s);
    if (!call)
      return finish();
    result_.steps.push_back(s);
    send(sh_, strand_, s, *call,
         [self = shared_from_this(), s](std::optional<xb::http_answer> answer,
                                        xb::chain_error error) {
           if (!answer)
             return self->fail(std::move(error));
           self->read(s, *answer);
         });
  }

  // The request of a step from what the state holds, signed when Xbox wants it; nullopt (with
  // the result's error set) when the state lacks an input or signing fails.
  std::optional<xb::http_call> build(xb::step s) {
    const auto& map = sh_->settings.endpoints;
    xb::http_call call;
    switch (s) {
      case xb::step::refresh:
        return xb::refresh_call(map, st().account.refresh_token);
      case xb::step::device_token:
        if (!load_device_key())
          return std::nullopt;
        call = xb::device_token_call(map, st().account.device_id, proof_key_);
        break;
      case xb::step::sisu:
        if (!load_device_key() || !st().msa_access || !st().device_token)
          return missing(s);
        call = xb::sisu_call(map, st().msa_access->token, st().device_token->token, proof_key_);
        break;
      case xb::step::xsts:
        if (!load_device_key() || !st().sisu || !st().device_token)
          return missing(s);
        call = xb::xsts_call(map, xb::playfab_relying_party, st().device_token->token,
                             st().sisu->title.token, st().sisu->user.token);
        break;
      case xb::step::playfab:
        if (!st().playfab_xsts)
          return missing(s);
        return xb::playfab_login_call(
          map, xb::xbl3_authorization(st().playfab_xsts->user_hash, st().playfab_xsts->xsts.token));
      case xb::step::discovery:
        return xb::discovery_call(map);
      case xb::step::session_start:
        if (!st().environment || !st().playfab)
          return missing(s);
        return xb::session_start_call(*st().environment, st().playfab->session_ticket,
                                      st().account.device_id);
      case xb::step::multiplayer_start:
        if (!st().environment || !st().mc)
          return missing(s);
        return xb::multiplayer_start_call(*st().environment, *st().mc, spki_);
      case xb::step::device_code:
      case xb::step::device_poll:
        return missing(s);
    }
    if (!xb::sign_call(call, *device_key_, sh_->now())) {
      set_error(xb::make_error(s, xb::fault::bad_answer, "signing the request failed"));
      return std::nullopt;
    }
    return call;
  }

  std::optional<xb::http_call> missing(xb::step s) {
    set_error(xb::make_error(s, xb::fault::bad_answer,
                             "an earlier step's token is missing (a bug in the plan)"));
    return std::nullopt;
  }

  // Parses the link's proof key once; a key that does not parse means the link is unusable.
  bool load_device_key() {
    if (device_key_)
      return true;
    device_key_ = base::private_key_from_der(st().account.device_key_der);
    auto jwk = device_key_ ? xb::proof_key(*device_key_) : std::nullopt;
    if (!jwk) {
      device_key_.reset();
      set_error(xb::make_error(xb::step::device_token, xb::fault::link_revoked,
                               "the stored link's device key is not a P-256 key; link the "
                               "account again"));
      return false;
    }
    proof_key_ = std::move(*jwk);
    return true;
  }

  void read(xb::step s, const xb::http_answer& answer) {
    auto now = sh_->now();
    xb::chain_error error;
    bool ok = false;
    switch (s) {
      case xb::step::refresh:
        if (auto tokens = xb::read_refresh(answer, error)) {
          if (!tokens->refresh_token.empty()
              && tokens->refresh_token != st().account.refresh_token) {
            st().account.refresh_token = std::move(tokens->refresh_token);
            result_.link_rotated = true;
          }
          st().msa_access =
            xb::timed_token{std::move(tokens->access_token),
                            xb::times_from_lifetime(now, tokens->expires_in_s)};
          ok = true;
        }
        break;
      case xb::step::device_token:
        ok = keep(xb::read_device_token(answer, now, error), st().device_token);
        break;
      case xb::step::sisu:
        ok = keep(xb::read_sisu(answer, now, error), st().sisu);
        break;
      case xb::step::xsts:
        ok = keep(xb::read_xsts(answer, now, error), st().playfab_xsts);
        break;
      case xb::step::playfab:
        ok = keep(xb::read_playfab_login(answer, now, error), st().playfab);
        break;
      case xb::step::discovery:
        ok = keep(xb::read_discovery(answer, error), st().environment);
        break;
      case xb::step::session_start:
        ok = keep(xb::read_session_start(answer, now, error), st().mc);
        break;
      case xb::step::multiplayer_start:
        ok = keep(xb::read_multiplayer_start(answer, spki_, now, error), st().game_server);
        break;
      case xb::step::device_code:
      case xb::step::device_poll:
        break;
    }
    if (!ok)
      return fail(std::move(error));
    next();
  }

  void set_error(xb::chain_error error) {
    if (!result_.error)
      result_.error = std::move(error);
  }

  void fail(xb::chain_error error) {
    xb::drop_inputs(st(), error);
    set_error(std::move(error));
    finish();
  }

  void finish() {
    auto done = std::move(done_);
    if (done)
      done(std::move(result_));
  }

  shared_ptr sh_;
  asio::strand<asio::io_context::executor_type> strand_;
  std::string spki_;
  std::function<void(xbox_renewal&&)> done_;
  xbox_renewal result_;
  std::vector<xb::step> plan_;
  std::size_t at_ = 0;
  base::pkey_ptr device_key_;
  boost::json::object proof_key_;
};

// -- linking --

class link_op : public std::enable_shared_from_this<link_op> {
public:
  link_op(shared_ptr sh, std::function<void(const xb::device_code&)> show,
          std::function<void(xbox_linking&&)> done)
    : sh_(std::move(sh)),
      strand_(asio::make_strand(sh_->ioc)),
      timer_(strand_),
      show_(std::move(show)),
      done_(std::move(done)) {
    // nop
  }

  void start() {
    asio::post(strand_, [self = shared_from_this()] {
      send(self->sh_, self->strand_, xb::step::device_code,
           xb::device_code_call(self->sh_->settings.endpoints),
           [self](std::optional<xb::http_answer> answer, xb::chain_error error) {
             if (!answer)
               return self->finish(std::move(error));
             auto code = xb::read_device_code(*answer, error);
             if (!code)
               return self->finish(std::move(error));
             self->code_ = std::move(*code);
             self->deadline_ms_ = self->sh_->now() + self->code_.expires_in_s * 1000;
             self->interval_s_ = self->code_.interval_s;
             if (self->show_)
               self->show_(self->code_);
             self->wait();
           });
    });
  }

private:
  void wait() {
    if (sh_->now() + interval_s_ * 1000 > deadline_ms_)
      return finish(expired());
    timer_.expires_after(std::chrono::seconds(interval_s_));
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec)
        return self->finish(xb::make_error(xb::step::device_poll, xb::fault::unreachable,
                                           "polling was stopped"));
      self->poll();
    });
  }

  void poll() {
    send(sh_, strand_, xb::step::device_poll,
         xb::device_poll_call(sh_->settings.endpoints, code_.device_code),
         [self = shared_from_this()](std::optional<xb::http_answer> answer,
                                     xb::chain_error error) {
           if (!answer)
             return self->finish(std::move(error));
           self->on_poll(xb::read_device_poll(*answer));
         });
  }

  void on_poll(xb::poll_result r) {
    switch (r.state) {
      case xb::poll_state::pending:
        return wait();
      case xb::poll_state::slow_down:
        interval_s_ += slow_down_step_s;
        return wait();
      case xb::poll_state::failed:
        return finish(std::move(r.error));
      case xb::poll_state::granted:
        break;
    }
    auto key = base::generate_ec_key(base::ec_curve::p256);
    auto der = key ? base::private_key_der(*key) : std::nullopt;
    auto id = xb::make_device_id();
    if (!der || id.empty())
      return finish(xb::make_error(xb::step::device_poll, xb::fault::bad_answer,
                                   "making the device key failed (OpenSSL)"));
    xbox_linking out;
    out.state.account.refresh_token = std::move(r.tokens.refresh_token);
    out.state.account.device_key_der = std::move(*der);
    out.state.account.device_id = std::move(id);
    out.state.msa_access = xb::timed_token{
      std::move(r.tokens.access_token), xb::times_from_lifetime(sh_->now(), r.tokens.expires_in_s)};
    deliver(std::move(out));
  }

  xb::chain_error expired() const {
    return xb::make_error(xb::step::device_poll, xb::fault::code_expired,
                          "the code expired before it was approved; run admin xbox-login again");
  }

  void finish(xb::chain_error error) {
    xbox_linking out;
    out.error = std::move(error);
    deliver(std::move(out));
  }

  void deliver(xbox_linking&& out) {
    auto done = std::move(done_);
    if (done)
      done(std::move(out));
  }

  shared_ptr sh_;
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  std::function<void(const xb::device_code&)> show_;
  std::function<void(xbox_linking&&)> done_;
  xb::device_code code_;
  std::int64_t deadline_ms_ = 0;
  std::int64_t interval_s_ = 5;
};

} // namespace

xbox_chain::xbox_chain(asio::io_context& ioc, std::shared_ptr<http_client> client,
                       xbox_chain_settings settings)
  : shared_(std::make_shared<shared>(shared{ioc, std::move(client), std::move(settings)})) {
  // nop
}

void xbox_chain::renew(xb::chain_state state, std::string identity_spki_der,
                       std::function<void(xbox_renewal&&)> done) {
  std::make_shared<renew_op>(shared_, std::move(state), std::move(identity_spki_der),
                             std::move(done))
    ->start();
}

void xbox_chain::link(std::function<void(const xb::device_code&)> show_code,
                      std::function<void(xbox_linking&&)> done) {
  std::make_shared<link_op>(shared_, std::move(show_code), std::move(done))->start();
}

} // namespace netherscope::net::upstream
