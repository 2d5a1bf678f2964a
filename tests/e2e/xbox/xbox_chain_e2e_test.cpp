// The chain runner (net/upstream/xbox_chain) against the fake Xbox chain (tools/fake_xbox) on
// loopback: linking by device code, renewal to a GameServerToken the issuer's JWKS verifies,
// renewal of only what expired, refresh-token rotation, a revoked link, each XErr named, and
// PlayFab's and the services' refusals.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include "base/crypto.hpp"
#include "net/upstream/xbox_chain.hpp"
#include "net/xbox/signing.hpp"
#include "support/fake_xbox.hpp"
#include "support/http.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace json = boost::json;
namespace xb = net::xbox;

namespace {

std::int64_t system_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

template <class T>
T wait_for(std::future<T>& f, std::chrono::seconds limit = 60s) {
  REQUIRE(f.wait_for(limit) == std::future_status::ready);
  return f.get();
}

// The fake chain, an io thread, an HTTP client that may reach loopback, and the runner, whose
// clock the test may move (offset_ms) to make its tokens look older than they are.
class chain_rig {
public:
  explicit chain_rig(std::vector<std::string> args = {}, bool reachable = true)
    : fake(std::move(args)), work(asio::make_work_guard(ioc)) {
    thread = std::thread([this] { ioc.run(); });
    client = make_chain_client(ioc);
    net::upstream::xbox_chain_settings chain_settings;
    chain_settings.endpoints = fake.endpoints();
    if (!reachable)
      for (auto& [host, base] : chain_settings.endpoints.bases)
        base = "http://127.0.0.1:1";
    chain_settings.timeout = 10s;
    chain_settings.now_ms = [this] { return system_ms() + offset_ms.load(); };
    chain = std::make_unique<net::upstream::xbox_chain>(ioc, client, chain_settings);
    identity = base::generate_ec_key(base::ec_curve::p384);
    REQUIRE(identity);
    spki = *base::public_key_der(*identity);
  }

  ~chain_rig() {
    work.reset();
    ioc.stop();
    thread.join();
    client->stop();
  }

  net::upstream::xbox_renewal renew(xb::chain_state state) {
    std::promise<net::upstream::xbox_renewal> done;
    auto f = done.get_future();
    chain->renew(std::move(state), spki,
                 [&done](net::upstream::xbox_renewal&& r) { done.set_value(std::move(r)); });
    return wait_for(f);
  }

  // Starts linking; the first future gets the code to show, the second the result.
  std::pair<std::future<xb::device_code>, std::future<net::upstream::xbox_linking>> start_link() {
    auto code = std::make_shared<std::promise<xb::device_code>>();
    auto result = std::make_shared<std::promise<net::upstream::xbox_linking>>();
    auto futures = std::make_pair(code->get_future(), result->get_future());
    chain->link([code](const xb::device_code& c) { code->set_value(c); },
                [result](net::upstream::xbox_linking&& r) { result->set_value(std::move(r)); });
    return futures;
  }

  // Links with the operator approving at once.
  xb::chain_state linked() {
    auto [code, result] = start_link();
    wait_for(code);
    fake.control({{"device", "approve"}});
    auto linking = wait_for(result);
    INFO((linking.error ? linking.error->message : std::string{}));
    REQUIRE_FALSE(linking.error);
    return std::move(linking.state);
  }

  // Links and renews once, so every token is held.
  xb::chain_state renewed() {
    auto r = renew(linked());
    INFO((r.error ? r.error->message : std::string{}));
    REQUIRE_FALSE(r.error);
    return std::move(r.state);
  }

  fake_xbox_process fake;
  asio::io_context ioc;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread thread;
  std::shared_ptr<net::upstream::http_client> client;
  std::atomic<std::int64_t> offset_ms{0};
  std::unique_ptr<net::upstream::xbox_chain> chain;
  base::pkey_ptr identity;
  std::string spki;
};

// Verifies a compact RS256 JWT with the JWKS key its kid names, as a server would.
bool verify_with_jwks(const std::string& jwt, const json::object& jwks) {
  auto dot1 = jwt.find('.');
  auto dot2 = jwt.rfind('.');
  auto header = json::parse(*base::base64url_decode(jwt.substr(0, dot1))).as_object();
  auto kid = header.at("kid").as_string();
  for (const auto& k : jwks.at("keys").as_array()) {
    const auto& key = k.as_object();
    if (key.at("kid") != kid)
      continue;
    auto n = *base::base64url_decode(key.at("n").as_string());
    auto e = *base::base64url_decode(key.at("e").as_string());
    base::bignum_ptr bn_n{BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()),
                                   static_cast<int>(n.size()), nullptr)};
    base::bignum_ptr bn_e{BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()),
                                   static_cast<int>(e.size()), nullptr)};
    std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> build(OSSL_PARAM_BLD_new(),
                                                                         OSSL_PARAM_BLD_free);
    OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get());
    OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get());
    std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(
      OSSL_PARAM_BLD_to_param(build.get()), OSSL_PARAM_free);
    base::pkey_ctx_ptr ctx{EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr)};
    EVP_PKEY* raw = nullptr;
    if (EVP_PKEY_fromdata_init(ctx.get()) != 1
        || EVP_PKEY_fromdata(ctx.get(), &raw, EVP_PKEY_PUBLIC_KEY, params.get()) != 1)
      return false;
    base::pkey_ptr pub{raw};
    auto sig = *base::base64url_decode(jwt.substr(dot2 + 1));
    auto input = jwt.substr(0, dot2);
    base::md_ctx_ptr md{EVP_MD_CTX_new()};
    return EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, pub.get()) == 1
           && EVP_DigestVerify(md.get(), reinterpret_cast<const unsigned char*>(sig.data()),
                               sig.size(), reinterpret_cast<const unsigned char*>(input.data()),
                               input.size())
                == 1;
  }
  return false;
}

// A state whose tokens from SISU on are gone, so a renewal starts at SISU.
xb::chain_state from_sisu(xb::chain_state s) {
  s.sisu.reset();
  s.playfab_xsts.reset();
  s.playfab.reset();
  s.mc.reset();
  s.game_server.reset();
  return s;
}

} // namespace

TEST_CASE("xbox chain e2e: linking and a renewal give a GameServerToken for our key",
          "[xbox][e2e]") {
  chain_rig rig;
  auto [code_future, result_future] = rig.start_link();
  auto code = wait_for(code_future);
  CHECK(code.verification_uri == "https://www.microsoft.com/link");
  CHECK(code.user_code.size() == 8);
  CHECK(code.interval_s == 1);
  // The operator has not approved yet: the runner keeps polling.
  REQUIRE(result_future.wait_for(2500ms) == std::future_status::timeout);
  rig.fake.control({{"device", "approve"}});
  auto linking = wait_for(result_future);
  REQUIRE_FALSE(linking.error);
  CHECK(rig.fake.stat("device_poll") >= 2);
  CHECK(rig.fake.stat("slow_down") == 0);
  const auto& account = linking.state.account;
  CHECK(account.refresh_token.rfind("M.R3_BAY.", 0) == 0);
  CHECK(account.device_id.size() == 36);
  auto device_key = base::private_key_from_der(account.device_key_der);
  REQUIRE(device_key);
  CHECK(base::key_curve(*device_key) == base::ec_curve::p256);
  REQUIRE(linking.state.msa_access);

  auto r = rig.renew(linking.state);
  INFO((r.error ? r.error->message : std::string{}));
  REQUIRE_FALSE(r.error);
  // The access token from linking is still good: no refresh, so no rotation.
  CHECK_FALSE(r.link_rotated);
  CHECK(r.steps
        == std::vector<xb::step>{xb::step::device_token, xb::step::sisu, xb::step::xsts,
                                 xb::step::playfab, xb::step::discovery, xb::step::session_start,
                                 xb::step::multiplayer_start});
  const auto& s = r.state;
  REQUIRE(s.sisu);
  CHECK(s.sisu->gamertag == "Fake Steve");
  CHECK(s.sisu->xuid == "2535400000000001");
  REQUIRE(s.environment);
  CHECK(s.environment->service_uri == rig.fake.base_url());
  CHECK(s.environment->idp_domain() == rig.fake.base_url() + "/");
  REQUIRE(s.game_server);
  const auto& claims = s.game_server->claims;
  CHECK(claims.alg == "RS256");
  CHECK(claims.kid == rig.fake.kid());
  CHECK(claims.cpk == base::base64_encode(rig.spki));
  CHECK(claims.iss == rig.fake.base_url() + "/");
  CHECK(claims.aud == "api://auth-minecraft-services/multiplayer");
  CHECK(claims.xname == "Fake Steve");
  CHECK(claims.xid == "2535400000000001");

  // The issuer's OpenID configuration leads to a JWKS that verifies the token.
  auto config = http_request(rig.fake.port(), "GET", "/.well-known/openid-configuration").json();
  REQUIRE(config.is_object());
  CHECK(config.as_object().at("issuer") == (rig.fake.base_url() + "/").c_str());
  CHECK(config.as_object().at("jwks_uri") == (rig.fake.base_url() + "/.well-known/keys").c_str());
  auto jwks = http_request(rig.fake.port(), "GET", "/.well-known/keys").json();
  REQUIRE(jwks.is_object());
  CHECK(verify_with_jwks(s.game_server->token, jwks.as_object()));
  auto forged = s.game_server->token;
  forged[forged.find('.') + 5] ^= 1;
  CHECK_FALSE(verify_with_jwks(forged, jwks.as_object()));

  // The device token, SISU and XSTS requests were all signed, and the signatures held.
  CHECK(rig.fake.stat("signatures_verified") == 3);
  CHECK(rig.fake.stat("signatures_rejected") == 0);
  CHECK(rig.fake.stat("xsts_unsigned") == 0);
}

TEST_CASE("xbox chain e2e: a renewal runs only what is no longer good", "[xbox][e2e]") {
  chain_rig rig{{"--gst-lifetime-s", "20"}};
  auto state = rig.renewed();
  auto first_gst = state.game_server->token;

  // Nothing to do while everything is good.
  auto again = rig.renew(state);
  REQUIRE_FALSE(again.error);
  CHECK(again.steps.empty());
  CHECK(again.state.game_server->token == first_gst);

  // 16 s later the 20-second GameServerToken is within a quarter of its life of expiry; the
  // one-minute tokens behind it are not.
  rig.offset_ms = 16000;
  auto gst_only = rig.renew(again.state);
  REQUIRE_FALSE(gst_only.error);
  CHECK(gst_only.steps == std::vector<xb::step>{xb::step::multiplayer_start});
  CHECK(rig.fake.stat("game_server_tokens") == 2);

  // 70 s later everything is stale: the whole chain, and the refresh token rotates.
  rig.offset_ms = 70000;
  auto all = rig.renew(gst_only.state);
  INFO((all.error ? all.error->message : std::string{}));
  REQUIRE_FALSE(all.error);
  CHECK(all.steps.front() == xb::step::refresh);
  CHECK(all.steps.size() == 8);
  CHECK(all.link_rotated);
  CHECK(all.state.account.refresh_token != state.account.refresh_token);
  CHECK(all.state.account.device_key_der == state.account.device_key_der);
  CHECK(rig.fake.stat("refresh_rotations") == 1);
}

TEST_CASE("xbox chain e2e: a token the services dropped early is fetched anew", "[xbox][e2e]") {
  chain_rig rig{{"--mc-lifetime-s", "2"}};
  auto state = rig.renewed();
  std::this_thread::sleep_for(2100ms);
  // Our clock lags: we still think the MCToken good, the services know it expired.
  rig.offset_ms = -2000;
  state.game_server.reset();
  auto refused = rig.renew(state);
  REQUIRE(refused.error);
  CHECK(refused.error->step == xb::step::multiplayer_start);
  CHECK(refused.error->fault == xb::fault::services_refused);
  CHECK(refused.error->provider_code == "InvalidMCToken");
  CHECK_FALSE(refused.state.mc);
  // The next renewal starts a new session instead of offering the dead MCToken again.
  auto recovered = rig.renew(refused.state);
  INFO((recovered.error ? recovered.error->message : std::string{}));
  REQUIRE_FALSE(recovered.error);
  CHECK(recovered.steps
        == std::vector<xb::step>{xb::step::discovery, xb::step::session_start,
                                 xb::step::multiplayer_start});
}

TEST_CASE("xbox chain e2e: after rotation the old refresh token is refused", "[xbox][e2e]") {
  chain_rig rig;
  auto state = rig.renewed();
  auto old_link = state.account;
  state.msa_access.reset();
  state.sisu.reset();
  state = from_sisu(state);
  auto rotated = rig.renew(state);
  REQUIRE_FALSE(rotated.error);
  REQUIRE(rotated.link_rotated);

  // Someone who kept the old refresh token (a store not written at once) is locked out.
  xb::chain_state stale;
  stale.account = old_link;
  auto refused = rig.renew(stale);
  REQUIRE(refused.error);
  CHECK(refused.error->step == xb::step::refresh);
  CHECK(refused.error->fault == xb::fault::link_revoked);
  CHECK(refused.error->needs_relink());
  CHECK(refused.error->message.find("admin xbox-login") != std::string::npos);
  CHECK(refused.error->message.find(old_link.refresh_token) == std::string::npos);
  CHECK_FALSE(refused.link_rotated);
  CHECK(refused.state.account.refresh_token == old_link.refresh_token);
  CHECK(refused.steps == std::vector<xb::step>{xb::step::refresh});

  // The rotated one works.
  xb::chain_state fresh;
  fresh.account = rotated.state.account;
  auto ok = rig.renew(fresh);
  INFO((ok.error ? ok.error->message : std::string{}));
  CHECK_FALSE(ok.error);
}

TEST_CASE("xbox chain e2e: a revoked link says to link again", "[xbox][e2e]") {
  chain_rig rig;
  auto state = rig.linked();
  rig.fake.control({{"revoke", true}});
  state.msa_access.reset();
  auto r = rig.renew(state);
  REQUIRE(r.error);
  CHECK(r.error->fault == xb::fault::link_revoked);
  CHECK(r.error->provider_code == "invalid_grant");
  CHECK(r.error->status == 400);
  CHECK(r.error->message.rfind("Microsoft sign-in (refresh): ", 0) == 0);
  CHECK(rig.fake.stat("refresh_refused") == 1);
}

TEST_CASE("xbox chain e2e: each XErr is named with its fix", "[xbox][e2e]") {
  chain_rig rig;
  auto state = rig.renewed();
  struct xerr_case {
    const char* control;
    std::uint32_t code;
    xb::step step;
    const char* words;
  };
  for (auto c : {xerr_case{"sisu_xerr", 2148916233u, xb::step::sisu, "has no profile"},
                 xerr_case{"sisu_xerr", 2148916234u, xb::step::sisu, "terms of use"},
                 xerr_case{"xsts_xerr", 2148916238u, xb::step::xsts, "under 18"},
                 xerr_case{"xsts_xerr", 2148916227u, xb::step::xsts, "banned"},
                 xerr_case{"xsts_xerr", 2148916229u, xb::step::xsts, "turned off online play"}}) {
    INFO(c.control << " " << c.code);
    rig.fake.control({{c.control, c.code}});
    auto r = rig.renew(from_sisu(state));
    rig.fake.control({{c.control, 0}});
    REQUIRE(r.error);
    CHECK(r.error->step == c.step);
    CHECK(r.error->fault == xb::fault::xbox_refused);
    CHECK(r.error->xerr == c.code);
    CHECK(r.error->status == 401);
    CHECK(r.error->message.find(c.words) != std::string::npos);
    CHECK(r.error->message.find(std::to_string(c.code)) != std::string::npos);
    CHECK_FALSE(r.error->needs_relink());
    CHECK_FALSE(r.state.game_server);
  }
  // With the faults cleared, the same state renews.
  auto ok = rig.renew(from_sisu(state));
  INFO((ok.error ? ok.error->message : std::string{}));
  CHECK_FALSE(ok.error);
}

TEST_CASE("xbox chain e2e: PlayFab's and the services' refusals, and a token for another key",
          "[xbox][e2e]") {
  chain_rig rig;
  auto state = rig.renewed();
  auto from_playfab = state;
  from_playfab.playfab.reset();
  from_playfab.mc.reset();
  from_playfab.game_server.reset();

  rig.fake.control({{"playfab_error", "InvalidXboxLiveToken"}});
  auto playfab = rig.renew(from_playfab);
  rig.fake.control({{"playfab_error", ""}});
  REQUIRE(playfab.error);
  CHECK(playfab.error->step == xb::step::playfab);
  CHECK(playfab.error->fault == xb::fault::playfab_refused);
  CHECK(playfab.error->provider_code == "InvalidXboxLiveToken");
  CHECK(playfab.error->message.find("(1188)") != std::string::npos);
  // The XSTS token PlayFab refused is not offered again.
  CHECK_FALSE(playfab.state.playfab_xsts);

  rig.fake.control({{"session_status", 403}});
  auto session = rig.renew(from_playfab);
  rig.fake.control({{"session_status", 0}});
  REQUIRE(session.error);
  CHECK(session.error->step == xb::step::session_start);
  CHECK(session.error->fault == xb::fault::services_refused);
  CHECK(session.error->status == 403);

  auto no_gst = state;
  no_gst.game_server.reset();
  rig.fake.control({{"wrong_cpk", true}});
  auto wrong = rig.renew(no_gst);
  rig.fake.control({{"wrong_cpk", false}});
  REQUIRE(wrong.error);
  CHECK(wrong.error->step == xb::step::multiplayer_start);
  CHECK(wrong.error->fault == xb::fault::wrong_key);
  CHECK_FALSE(wrong.state.game_server);
}

TEST_CASE("xbox chain e2e: the device code flow's refusals, expiry and slow_down",
          "[xbox][e2e]") {
  chain_rig rig{{"--device-code-lifetime-s", "30"}};

  auto [denied_code, denied_result] = rig.start_link();
  wait_for(denied_code);
  rig.fake.control({{"device", "deny"}});
  auto denied = wait_for(denied_result);
  REQUIRE(denied.error);
  CHECK(denied.error->fault == xb::fault::denied);
  CHECK(denied.error->needs_relink());

  auto [expired_code, expired_result] = rig.start_link();
  wait_for(expired_code);
  rig.fake.control({{"device", "expire"}});
  auto expired = wait_for(expired_result);
  REQUIRE(expired.error);
  CHECK(expired.error->fault == xb::fault::code_expired);
  CHECK(expired.error->provider_code == "expired_token");

  // slow_down adds 5 s to the interval; polling sooner would be slow_down again.
  auto [slow_code, slow_result] = rig.start_link();
  wait_for(slow_code);
  rig.fake.control({{"device", "slow_down"}});
  REQUIRE(slow_result.wait_for(3s) == std::future_status::timeout);
  rig.fake.control({{"device", "approve"}});
  auto slow = wait_for(slow_result);
  INFO((slow.error ? slow.error->message : std::string{}));
  REQUIRE_FALSE(slow.error);
  CHECK(rig.fake.stat("slow_down") == 1);
}

TEST_CASE("xbox chain e2e: an unreachable service is the operator's failure, named",
          "[xbox][e2e]") {
  chain_rig rig{{}, false};
  xb::chain_state state;
  state.account = {"M.R3_BAY.x", "der", "id"};
  auto r = rig.renew(state);
  REQUIRE(r.error);
  CHECK(r.error->step == xb::step::refresh);
  CHECK(r.error->fault == xb::fault::unreachable);
  CHECK(r.error->message.rfind("Microsoft sign-in (refresh): could not reach the service", 0) == 0);
}

TEST_CASE("xbox chain e2e: the fake refuses unsigned and tampered device requests",
          "[xbox][e2e]") {
  fake_xbox_process fake;
  auto key = base::generate_ec_key(base::ec_curve::p256);
  REQUIRE(key);
  auto call = xb::device_token_call(fake.endpoints(), xb::make_device_id(), *xb::proof_key(*key));
  header_list headers;
  for (const auto& [name, value] : call.headers)
    headers.emplace_back(name, value);
  headers.emplace_back("Content-Type", "application/json");

  auto unsigned_reply = http_request(fake.port(), "POST", "/device/authenticate", headers, call.body);
  CHECK(unsigned_reply.status == 401);

  REQUIRE(xb::sign_call(call, *key, system_ms()));
  auto signed_headers = headers;
  signed_headers.emplace_back("Signature", call.header_value("Signature"));
  auto tampered = http_request(fake.port(), "POST", "/device/authenticate", signed_headers,
                               call.body + " ");
  CHECK(tampered.status == 401);
  auto good = http_request(fake.port(), "POST", "/device/authenticate", signed_headers, call.body);
  CHECK(good.status == 200);

  // A signature from an hour ago is refused, whatever its bytes.
  auto old_call = xb::device_token_call(fake.endpoints(), xb::make_device_id(), *xb::proof_key(*key));
  REQUIRE(xb::sign_call(old_call, *key, system_ms() - 3600 * 1000));
  auto old_headers = headers;
  old_headers.emplace_back("Signature", old_call.header_value("Signature"));
  CHECK(http_request(fake.port(), "POST", "/device/authenticate", old_headers, old_call.body).status
        == 401);
  CHECK(fake.stat("signatures_rejected") == 3);
  CHECK(fake.stat("signatures_verified") == 1);
}
