// Runs joins in worker processes (netherscope-join, docs/ARCHITECTURE.md "The join") from an
// io_context, never blocking it: the job goes to the worker's standard input and the report
// comes from its standard output through Asio's pipe descriptors, and a worker that outlives
// its job's time (with a grace) is killed by its PID. At most `concurrency` workers run at
// once; a join past that is refused at once, for the caller to answer 503.
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
};

/// The report of a worker that could not run or said nothing readable.
join::join_report worker_failure(std::string detail);

class join_runner {
public:
  using done_fn = std::function<void(join::join_report&&)>;

  join_runner(boost::asio::io_context& ioc, join_runner_settings settings);
  ~join_runner();

  /// Starts a worker for the job; done runs on the io_context with its report (a worker that
  /// crashed, hung or wrote nonsense gives worker_failed). Returns false, without calling done,
  /// when `concurrency` workers already run.
  bool run(join::join_job job, done_fn done);

  /// Workers running now.
  unsigned running() const;

  struct state;

private:
  std::shared_ptr<state> state_;
};

} // namespace netherscope::net::upstream
