#include "app/xbox_admin.hpp"

#include <cstdio>
#include <functional>
#include <memory>
#include <utility>

#include <boost/asio/io_context.hpp>

#include "app/admin.hpp"
#include "base/cidr.hpp"
#include "base/crypto.hpp"
#include "base/text.hpp"
#include "net/upstream/xbox_chain.hpp"
#include "storage/xbox_records.hpp"

namespace netherscope::app {

namespace {

namespace xbox = net::xbox;
namespace upstream = net::upstream;

// The chain runner on an io_context of its own, run on this thread until an operation ends.
class chain_session {
public:
  explicit chain_session(const xbox_admin_settings& settings) {
    upstream::client_settings client;
    // The chain's hosts are the operator's (production, or what --xbox-endpoints names), not
    // a stranger's, so no address is refused.
    client.policy = upstream::address_policy{
      {*base::parse_cidr("0.0.0.0/0"), *base::parse_cidr("::/0")}, {}};
    client_ = upstream::http_client::make(ioc_, client, problem_);
    if (!client_)
      return;
    upstream::xbox_chain_settings chain;
    chain.endpoints = settings.endpoints;
    chain.timeout = settings.timeout;
    chain_ = std::make_unique<upstream::xbox_chain>(ioc_, client_, chain);
  }

  ~chain_session() {
    if (client_)
      client_->stop();
  }

  /// Why the runner could not start; empty when it did.
  const std::string& problem() const noexcept {
    return problem_;
  }

  upstream::xbox_linking link(std::function<void(const xbox::device_code&)> show) {
    std::optional<upstream::xbox_linking> result;
    chain_->link(std::move(show),
                 [&result](upstream::xbox_linking&& r) { result = std::move(r); });
    run_until([&result] { return result.has_value(); });
    if (!result) {
      upstream::xbox_linking stopped;
      stopped.error = xbox::make_error(xbox::step::device_poll, xbox::fault::unreachable,
                                       "the sign-in stopped without an answer");
      return stopped;
    }
    return std::move(*result);
  }

  /// Renews state for a throwaway identity key: enough to prove every step works and to learn
  /// the account's gamertag, without touching the service's own key.
  upstream::xbox_renewal renew(xbox::chain_state state) {
    std::optional<upstream::xbox_renewal> result;
    auto key = base::generate_ec_key(base::ec_curve::p384);
    auto spki = key ? base::public_key_der(*key) : std::nullopt;
    if (!spki) {
      upstream::xbox_renewal failed;
      failed.state = std::move(state);
      failed.error = xbox::make_error(xbox::step::multiplayer_start, xbox::fault::bad_answer,
                                      "could not make a P-384 key (OpenSSL)");
      return failed;
    }
    chain_->renew(std::move(state), *spki,
                  [&result](upstream::xbox_renewal&& r) { result = std::move(r); });
    run_until([&result] { return result.has_value(); });
    if (!result) {
      upstream::xbox_renewal stopped;
      stopped.error = xbox::make_error(xbox::step::refresh, xbox::fault::unreachable,
                                       "the renewal stopped without an answer");
      return stopped;
    }
    return std::move(*result);
  }

private:
  // Every handler runs on this thread; the operations end by setting their result, and each
  // has its own deadline, so the loop ends.
  void run_until(const std::function<bool()>& done) {
    ioc_.restart();
    while (!done() && ioc_.run_one() > 0) {
      // nop
    }
  }

  boost::asio::io_context ioc_;
  std::shared_ptr<upstream::http_client> client_;
  std::unique_ptr<upstream::xbox_chain> chain_;
  std::string problem_;
};

caf::error store_link(const storage::opened& s, const std::string& sealed) {
  return s.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    if (auto err = storage::save_xbox_link(t, sealed))
      return err;
    return true;
  });
}

// Seals and stores the link in state; false with a message printed when either fails.
bool keep_link(const storage::opened& s, const base::secrets_key& key,
               const xbox::account_link& link) {
  auto sealed = base::seal(key, xbox::link_seal_label, xbox::encode_link(link));
  if (!sealed) {
    admin_fail("could not seal the link (OpenSSL); nothing was stored");
    return false;
  }
  if (auto err = store_link(s, *sealed)) {
    admin_fail("the store refused the link: " + caf::to_string(err));
    return false;
  }
  return true;
}

void print_account(const xbox::chain_state& state) {
  if (state.sisu)
    std::printf("gamertag: %s\nXUID: %s\n", state.sisu->gamertag.c_str(),
                state.sisu->xuid.c_str());
}

} // namespace

int xbox_login(const storage::opened& s, const xbox_admin_settings& settings) {
  if (!settings.key)
    return admin_fail(settings.key_problem);
  auto existing = storage::read_xbox_link(*s.store);
  if (!existing)
    return admin_fail(caf::to_string(existing.error()));
  if (*existing)
    return admin_fail("an Xbox account is linked already (one per deployment); run xbox-logout "
                "first to link another");
  chain_session session{settings};
  if (!session.problem().empty())
    return admin_fail("cannot reach the Xbox services: " + session.problem());
  auto linking = session.link([](const xbox::device_code& code) {
    std::printf("To link an Xbox account, open %s\n"
                "or open %s and enter the code %s.\n"
                "The code expires in %lld minutes. Waiting for the sign-in...\n",
                code.direct_uri().c_str(), code.verification_uri.c_str(),
                code.user_code.c_str(), static_cast<long long>((code.expires_in_s + 59) / 60));
    std::fflush(stdout);
  });
  if (linking.error)
    return admin_fail(linking.error->message);
  // One run through the whole chain before anything is stored: an account Xbox or the
  // services refuse (no profile, a child account, a ban) is reported now, not at the first
  // check.
  auto renewal = session.renew(std::move(linking.state));
  if (renewal.error)
    return admin_fail(renewal.error->message + " (nothing was stored)");
  if (!keep_link(s, *settings.key, renewal.state.account))
    return 1;
  std::printf("linked; sealed with key %s\n", settings.key->id().c_str());
  print_account(renewal.state);
  std::printf("Servers checked in online mode see this gamertag; an allowlisted server must "
              "list it.\n");
  return 0;
}

int xbox_status(const storage::opened& s, const xbox_admin_settings& settings) {
  auto existing = storage::read_xbox_link(*s.store);
  if (!existing)
    return admin_fail(caf::to_string(existing.error()));
  if (!*existing) {
    std::printf("no Xbox account is linked; checks use the self-signed identity\n");
    return 1;
  }
  const auto& sealed = **existing;
  auto sealed_by = base::sealed_key_id(sealed);
  std::printf("linked: yes, sealed with key %s\n", sealed_by ? sealed_by->c_str() : "(unknown)");
  if (!settings.key)
    return admin_fail(settings.key_problem);
  base::open_error why = base::open_error::none;
  auto opened = base::open_sealed(*settings.key, xbox::link_seal_label, sealed, &why);
  if (!opened)
    return admin_fail(std::string{base::describe(why)});
  auto link = xbox::decode_link(*opened);
  if (!link)
    return admin_fail("the stored link is unreadable; run xbox-logout, then xbox-login");
  chain_session session{settings};
  if (!session.problem().empty())
    return admin_fail("cannot reach the Xbox services: " + session.problem());
  xbox::chain_state state;
  state.account = std::move(*link);
  auto renewal = session.renew(std::move(state));
  // A rotated refresh token replaces the stored one at once: the old one may no longer work.
  if (renewal.link_rotated && !keep_link(s, *settings.key, renewal.state.account))
    return 1;
  if (renewal.error) {
    std::printf("chain: failing at %s\n", std::string{xbox::step_name(renewal.error->step)}.c_str());
    return admin_fail(renewal.error->message);
  }
  std::printf("chain: works\n");
  print_account(renewal.state);
  if (renewal.state.game_server)
    std::printf("a GameServerToken was issued, valid until %s\n",
                base::rfc3339_utc(renewal.state.game_server->times.expires_ms / 1000)
                  .value_or("(unknown)")
                  .c_str());
  return 0;
}

int xbox_logout(const storage::opened& s) {
  bool removed = false;
  auto err = s.store->with_records(true, [&](storage::record_txn& t) -> caf::expected<bool> {
    auto gone = storage::delete_xbox_link(t);
    if (!gone)
      return gone.error();
    removed = *gone;
    return true;
  });
  if (err)
    return admin_fail(caf::to_string(err));
  std::printf(removed ? "unlinked; checks use the self-signed identity\n"
                      : "no Xbox account was linked\n");
  return 0;
}

} // namespace netherscope::app
