// End to end: the service's HTTP client against the fake target (a real process on
// loopback) with a shared per-target gate that answers in time, late, or never. The gate
// stands for the replicas' Redis (actors/offer_gate); what is under test is how a fetch
// treats its answer, so the gate here is a function the test controls.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "net/upstream/http_client.hpp"
#include "support/http.hpp"
#include "support/loopback_client.hpp"
#include "support/rooms.hpp"

using namespace netherscope::test;
using namespace std::chrono_literals;

namespace {

/// Whom the gate let start and whom it was told finished.
struct gate_log {
  std::mutex mutex;
  std::vector<std::string> owners_started;
  std::vector<std::string> owners_finished;
};

/// The service's client to targets, with a shared gate that answers as the test says, and
/// what the gate was asked.
struct gated_client {
  /// How the gate answers a start: at once, later (keeping done), or never.
  using answer_fn
    = std::function<void(boost::asio::io_context&, net::upstream::shared_offer_gate::done_fn)>;

  boost::asio::io_context ioc;
  std::shared_ptr<net::upstream::http_client> client = loopback_client(ioc, 10);
  std::shared_ptr<gate_log> log = std::make_shared<gate_log>();
  answer_fn answer;

  explicit gated_client(answer_fn how) : answer(std::move(how)) {
    net::upstream::shared_offer_gate gate;
    gate.start = [this](const std::vector<std::string>&, const std::string& owner, unsigned,
                        net::upstream::shared_offer_gate::done_fn done) {
      {
        std::lock_guard<std::mutex> guard{log->mutex};
        log->owners_started.push_back(owner);
      }
      answer(ioc, std::move(done));
    };
    gate.finish = [log = log](const std::vector<std::string>&, const std::string& owner) {
      std::lock_guard<std::mutex> guard{log->mutex};
      log->owners_finished.push_back(owner);
    };
    client->share_offer_gate(std::move(gate));
  }

  ~gated_client() {
    client->stop();
  }

  /// One fetch of the target's join status, counted against the per-target offer limit.
  net::upstream::fetch_result fetch(unsigned port) {
    net::upstream::fetch_request req;
    req.where = target{"127.0.0.1", static_cast<std::uint16_t>(port), tls_mode::off};
    req.connect_timeout = 400ms;
    req.total_timeout = 5000ms;
    req.limited = true;
    std::optional<net::upstream::fetch_result> result;
    client->fetch(std::move(req), [&](net::upstream::fetch_result&& r) { result = std::move(r); });
    ioc.restart();
    ioc.run_for(10s);
    REQUIRE(result);
    return std::move(*result);
  }
};

struct gate_run {
  net::upstream::fetch_result result;
  std::shared_ptr<gate_log> log;
};

/// One fetch of the target's join status on a client whose shared gate calls answer(done)
/// when asked; answer may keep done to call later, or never.
gate_run fetch_gated(unsigned port, gated_client::answer_fn answer) {
  gated_client gated{std::move(answer)};
  auto result = gated.fetch(port);
  return {std::move(result), gated.log};
}

/// A gate that answers at once: go (zero) or wait this long.
auto answers_at_once(std::chrono::seconds wait) {
  return [wait](boost::asio::io_context&, net::upstream::shared_offer_gate::done_fn done) { done(wait); };
}

} // namespace

TEST_CASE("shared gate e2e: a gate that says go lets the fetch through and is freed after",
          "[e2e][redis]") {
  fake_target_process fake;
  auto run = fetch_gated(fake.port(), answers_at_once(std::chrono::seconds{0}));
  INFO(run.result.error.message);
  CHECK(run.result.error.ok());
  CHECK(run.result.status == 200);
  REQUIRE(run.log->owners_started.size() == 1);
  CHECK_FALSE(run.log->owners_started[0].empty());
  CHECK(run.log->owners_finished == run.log->owners_started);
}

TEST_CASE("shared gate e2e: a gate that says wait refuses the fetch with target_rate_limited",
          "[e2e][redis]") {
  fake_target_process fake;
  gated_client gated{answers_at_once(std::chrono::seconds{17})};
  auto refused = gated.fetch(fake.port());
  CHECK(refused.error.code == error_code::target_rate_limited);
  CHECK(refused.error.retry_after == 17);
  // Nothing reached the target.
  CHECK(fake.stats().at("status_requests").to_number<std::int64_t>() == 0);
  // This process's own record of the start was taken back: the next offer, which the gate
  // lets go, is not held by this process's one-at-a-time rule.
  gated.answer = answers_at_once(std::chrono::seconds{0});
  auto next = gated.fetch(fake.port());
  INFO(next.error.message);
  CHECK(next.error.ok());
  CHECK(fake.stats().at("status_requests").to_number<std::int64_t>() == 1);
}

TEST_CASE("shared gate e2e: a gate that never answers costs the connect deadline, and the "
          "fetch goes on under the local limit instead of blaming the target",
          "[e2e][redis]") {
  fake_target_process fake;
  auto started = std::chrono::steady_clock::now();
  // done is dropped uncalled (keeping it past the io_context would outlive the fetch's strand).
  auto run = fetch_gated(fake.port(), [](boost::asio::io_context&,
                                         net::upstream::shared_offer_gate::done_fn) {});
  auto took = std::chrono::steady_clock::now() - started;
  INFO(run.result.error.message);
  CHECK(run.result.error.ok());
  CHECK(run.result.status == 200);
  CHECK(took >= 400ms);
  CHECK(took < 4s);
  CHECK(fake.stats().at("status_requests").to_number<std::int64_t>() == 1);
  // The slot a late answer may still take is freed by its owner.
  REQUIRE(run.log->owners_started.size() == 1);
  CHECK(run.log->owners_finished == run.log->owners_started);
}

TEST_CASE("shared gate e2e: an answer that comes after the fetch went on is ignored",
          "[e2e][redis]") {
  // The target holds its answer, so the late refusal arrives while the fetch is in flight.
  fake_target_process fake{{"--fault", "delay", "--delay-ms", "1200"}};
  auto run = fetch_gated(fake.port(), [](boost::asio::io_context& ioc,
                                         net::upstream::shared_offer_gate::done_fn done) {
    auto late = std::make_shared<boost::asio::steady_timer>(ioc, 700ms);
    late->async_wait([late, done](const boost::system::error_code&) {
      done(std::chrono::seconds{30});
    });
  });
  INFO(run.result.error.message);
  CHECK(run.result.error.ok());
  CHECK(run.result.status == 200);
  CHECK(fake.stats().at("status_requests").to_number<std::int64_t>() == 1);
  CHECK(run.log->owners_finished == run.log->owners_started);
}
