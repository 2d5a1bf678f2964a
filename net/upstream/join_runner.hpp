// Runs joins in worker processes (netherscope-join --serve, docs/ARCHITECTURE.md "The join")
// from an io_context, never blocking it: each job goes to a worker's standard input as one
// line of JSON and its report comes back as one line from its standard output through Asio's
// pipe descriptors, then the worker's ready line. A worker runs one join at a time and up to
// joins_per_worker of them, one after another; between them it waits in a small pool. A worker
// that outlives its job's time (with a grace), floods its output or writes nonsense is killed
// by its PID, and a crash ends that worker and its one join only. At most `concurrency` joins
// run at once; a join past that is refused at once, for the caller to answer 503.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "net/join/job.hpp"

namespace boost::asio {
class io_context;
} // namespace boost::asio

namespace netherscope::net::upstream {

struct join_runner_settings {
  /// The worker's executable.
  std::string worker_path;
  /// The most workers at once (--join-concurrency).
  unsigned concurrency = 64;
  /// How long past the job's own time a worker may take to report before it is killed.
  std::chrono::milliseconds grace{1500};
  /// Joins one worker runs before it is retired (a fresh process then starts): what a hostile
  /// server might have left in a worker stays there for a bounded number of joins.
  unsigned joins_per_worker = 64;
  /// Ready workers kept for the next joins, and how long one is kept unused.
  unsigned idle_workers = 16;
  std::chrono::milliseconds idle_for{30000};
};

/// The report of a worker that could not run or said nothing readable.
join::join_report worker_failure(std::string detail);

class join_runner {
public:
  using done_fn = std::function<void(join::join_report&&)>;

  join_runner(boost::asio::io_context& ioc, join_runner_settings settings);
  ~join_runner();

  /// Gives the job to a ready worker, or starts one; done runs on the io_context with its
  /// report (a worker that crashed, hung or wrote nonsense gives worker_failed). Returns
  /// false, without calling done, when `concurrency` joins already run.
  bool run(join::join_job job, done_fn done);

  /// Joins running now (given to a worker that has not said it is ready again).
  unsigned running() const;

  struct state;

private:
  std::shared_ptr<state> state_;
};

} // namespace netherscope::net::upstream
