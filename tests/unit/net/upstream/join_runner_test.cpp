// The join runner (net/upstream/join_runner) on a real io_context with real worker processes:
// a worker that reports, one that hangs past its time (killed by its PID), one that writes
// nonsense, one that floods its output, one that cannot start, and the concurrency limit.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <csignal>
#include <fstream>
#include <optional>
#include <thread>

#include <boost/asio/io_context.hpp>

#include "net/upstream/join_runner.hpp"
#include "support/process.hpp"

namespace join = netherscope::net::join;
namespace upstream = netherscope::net::upstream;
using namespace std::chrono_literals;

namespace {

/// A worker of the test's own: a shell script that reads its first job (a line) and does what
/// it is told; a serving one loops itself.
std::string script(const netherscope::test::temp_dir& dir, const std::string& name,
                   const std::string& body) {
  auto path = dir.path() + "/" + name;
  {
    std::ofstream out{path};
    out << "#!/bin/sh\nread -r job\n" << body << "\n";
  }
  ::chmod(path.c_str(), 0700);
  return path;
}

join::join_job small_job(std::chrono::milliseconds timeout = 200ms) {
  join::join_job job;
  job.ice = {"a", "b", "c", "d"};
  job.protocol = 2193;
  job.timeout = timeout;
  return job;
}

/// Runs one job to its end on a fresh io_context; nullopt when the runner refused it.
std::optional<join::join_report> run_one(const std::string& worker, join::join_job job,
                                         std::chrono::milliseconds grace = 300ms) {
  boost::asio::io_context ioc;
  upstream::join_runner runner{ioc, {worker, 4, grace}};
  std::optional<join::join_report> got;
  if (!runner.run(std::move(job), [&](join::join_report&& r) { got = std::move(r); }))
    return std::nullopt;
  ioc.run_for(10s);
  CHECK(runner.running() == 0);
  return got;
}

/// The report a worker writes, naming its PID in detail.
constexpr const char* report_naming_pid =
  "echo '{\"stage\":\"game\",\"outcome\":\"joined\",\"detail\":\"'$$'\"}'";

/// Gives the runner one job and runs ioc until its report and its worker's ready line have
/// come (5 s at most); the report, or nullopt.
std::optional<join::join_report> run_until_ready(boost::asio::io_context& ioc,
                                                 upstream::join_runner& runner) {
  std::optional<join::join_report> got;
  REQUIRE(runner.run(small_job(), [&](join::join_report&& r) { got = std::move(r); }));
  auto until = std::chrono::steady_clock::now() + 5s;
  while ((!got || runner.running() != 0) && std::chrono::steady_clock::now() < until) {
    // A context that ran out of work stops; the next job gives it work again.
    ioc.restart();
    ioc.run_for(10ms);
  }
  CHECK(runner.running() == 0);
  return got;
}

} // namespace

TEST_CASE("join runner: a worker's report comes back, and every way a worker fails is "
          "worker_failed",
          "[join]") {
  std::signal(SIGPIPE, SIG_IGN);
  netherscope::test::temp_dir dir;
  SECTION("a report") {
    auto r = run_one(script(dir, "ok", "echo '{\"stage\":\"game\",\"outcome\":\"outdated_server\",\"playStatus\":2}'; "
                                       "echo '{\"ready\":true}'"),
                     small_job());
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::outdated_server);
    CHECK(r->play_status == 2);
  }
  SECTION("hangs: killed after the job's time and the grace") {
    auto started = std::chrono::steady_clock::now();
    auto r = run_one(script(dir, "hang", "exec sleep 30"), small_job(100ms), 200ms);
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::worker_failed);
    CHECK(r->detail == "the join worker did not finish within the join's time");
    CHECK(std::chrono::steady_clock::now() - started < 5s);
  }
  SECTION("nonsense") {
    auto r = run_one(script(dir, "junk", "echo 'not a report'"), small_job());
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::worker_failed);
    CHECK(r->detail == "the join worker ended without a readable report");
  }
  SECTION("a flood of output") {
    // Bytes without an end of line: more than any report.
    auto r = run_one(script(dir, "flood", "exec tr '\\000' x < /dev/zero"), small_job(2000ms));
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::worker_failed);
    CHECK(r->detail == "the join worker wrote more than a report");
  }
  SECTION("a crash") {
    auto r = run_one(script(dir, "crash", "kill -SEGV $$"), small_job());
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::worker_failed);
    CHECK(r->detail == "the join worker died of signal 11");
  }
  SECTION("a report, then the closing: the report comes back before the worker exits") {
    boost::asio::io_context ioc;
    upstream::join_runner runner{
      ioc, {script(dir, "closing",
                   "echo '{\"stage\":\"game\",\"outcome\":\"joined\"}'; exec 1>&-; sleep 1"),
            4, 300ms}};
    std::optional<join::join_report> got;
    std::chrono::steady_clock::duration answered{};
    auto started = std::chrono::steady_clock::now();
    REQUIRE(runner.run(small_job(2000ms), [&](join::join_report&& r) {
      got = std::move(r);
      answered = std::chrono::steady_clock::now() - started;
    }));
    ioc.run_for(10s);
    REQUIRE(got);
    CHECK(got->outcome == join::join_outcome::joined);
    CHECK(answered < 900ms);
    // The worker still counted against the concurrency until it was reaped.
    CHECK(std::chrono::steady_clock::now() - started >= 1s);
    CHECK(runner.running() == 0);
  }
  SECTION("a crash after the report: the report stands") {
    auto r = run_one(script(dir, "late_crash",
                            "echo '{\"stage\":\"game\",\"outcome\":\"joined\"}'; "
                            "exec 1>&-; kill -SEGV $$"),
                     small_job());
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::joined);
  }
  SECTION("no worker") {
    auto r = run_one(dir.path() + "/missing", small_job());
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::worker_failed);
  }
}

TEST_CASE("join runner: past the concurrency limit a join is refused at once", "[join]") {
  std::signal(SIGPIPE, SIG_IGN);
  netherscope::test::temp_dir dir;
  auto slow = script(dir, "slow", "sleep 0.3; echo '{\"stage\":\"ice\",\"outcome\":\"ice_failed\"}'");
  boost::asio::io_context ioc;
  upstream::join_runner runner{ioc, {slow, 2, 2000ms}};
  int reports = 0;
  auto count = [&](join::join_report&& r) {
    CHECK(r.outcome == join::join_outcome::ice_failed);
    ++reports;
  };
  CHECK(runner.run(small_job(1000ms), count));
  CHECK(runner.run(small_job(1000ms), count));
  CHECK_FALSE(runner.run(small_job(1000ms), count));
  CHECK(runner.running() == 2);
  ioc.run_for(10s);
  CHECK(reports == 2);
  CHECK(runner.running() == 0);
  // Room again once they ended.
  CHECK(runner.run(small_job(1000ms), count));
  ioc.restart();
  ioc.run_for(10s);
  CHECK(reports == 3);
}

TEST_CASE("join runner: a worker serves joins one after another, up to its share, and leaves "
          "the pool when unused",
          "[join]") {
  std::signal(SIGPIPE, SIG_IGN);
  netherscope::test::temp_dir dir;
  // Each report names the worker's PID; the ready line follows it.
  auto serving = dir.path() + "/serving";
  {
    std::ofstream out{serving};
    out << "#!/bin/sh\nwhile read -r job; do\n  " << report_naming_pid
        << "\n  echo '{\"ready\":true}'\ndone\n";
  }
  ::chmod(serving.c_str(), 0700);
  boost::asio::io_context ioc;
  upstream::join_runner_settings settings{serving, 4, 300ms};
  settings.joins_per_worker = 2;
  settings.idle_for = 300ms;
  upstream::join_runner runner{ioc, settings};
  auto one = [&] {
    auto r = run_until_ready(ioc, runner);
    REQUIRE(r);
    CHECK(r->outcome == join::join_outcome::joined);
    return r->detail;
  };
  auto first = one();
  auto second = one();
  REQUIRE_FALSE(first.empty());
  // The same process took the second job; after its share of two, a fresh one.
  CHECK(second == first);
  auto third = one();
  CHECK(third != first);
  // Unused for longer than idle_for, it leaves the pool: the next job starts another.
  ioc.restart();
  ioc.run_for(600ms);
  auto fourth = one();
  CHECK(fourth != third);
}

TEST_CASE("join runner: a job whose pooled worker closed its input goes to a fresh worker",
          "[join]") {
  std::signal(SIGPIPE, SIG_IGN);
  netherscope::test::temp_dir dir;
  // After one join it says it is ready, then stops reading and lingers: a worker that is in
  // the pool but cannot take a job.
  auto closing = script(dir, "closing",
                        std::string{report_naming_pid} + "\necho '{\"ready\":true}'\n"
                                                         "exec 0<&-\nsleep 3");
  boost::asio::io_context ioc;
  upstream::join_runner runner{ioc, {closing, 4, 300ms}};
  auto first = run_until_ready(ioc, runner);
  REQUIRE(first);
  CHECK(first->outcome == join::join_outcome::joined);
  // The first worker is idle now; the second job cannot be written to it.
  auto second = run_until_ready(ioc, runner);
  REQUIRE(second);
  CHECK(second->outcome == join::join_outcome::joined);
  CHECK(second->detail != first->detail);
}

TEST_CASE("join runner: a worker that says it is ready without a report fails its join",
          "[join]") {
  std::signal(SIGPIPE, SIG_IGN);
  netherscope::test::temp_dir dir;
  auto r = run_one(script(dir, "ready_only", "echo '{\"ready\":true}'; sleep 5"), small_job());
  REQUIRE(r);
  CHECK(r->outcome == join::join_outcome::worker_failed);
  CHECK(r->detail == "the join worker said it was ready without a report");
}
