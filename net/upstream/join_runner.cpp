#include "net/upstream/join_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <vector>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>

extern char** environ;

namespace netherscope::net::upstream {

namespace asio = boost::asio;

// One worker process of the pool (below). Not in an anonymous namespace: the runner's state,
// declared in the header, holds the ready ones.
class pooled_worker;

namespace {

/// The most a report line may take: far above a real one (a few KiB), so a worker that floods
/// its output is cut off and reported as failed.
constexpr std::size_t max_report_bytes = 64 * 1024;

} // namespace

struct join_runner::state {
  state(asio::io_context& context, join_runner_settings s)
    : ioc(context), settings(std::move(s)) {
    // nop
  }
  asio::io_context& ioc;
  join_runner_settings settings;
  /// Joins given to a worker and not yet ended (the worker ready again, or gone).
  std::atomic<unsigned> running{0};
  std::mutex mutex;
  /// Workers waiting for a job, the most recently ready last.
  std::vector<std::shared_ptr<pooled_worker>> idle;
};

namespace {

using shared_state = std::shared_ptr<join_runner::state>;

/// Starts the worker with pipes on its standard input and output (the parent's ends close on
/// exec, so no other child inherits them); its standard error is the service's.
bool spawn(const std::string& path, pid_t& pid, int& in_fd, int& out_fd) {
  int to_child[2];
  int from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0)
    return false;
  if (::pipe2(from_child, O_CLOEXEC) != 0) {
    ::close(to_child[0]);
    ::close(to_child[1]);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  char serve[] = "--serve";
  char* argv[] = {const_cast<char*>(path.c_str()), serve, nullptr};
  int r = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(to_child[0]);
  ::close(from_child[1]);
  if (r != 0) {
    ::close(to_child[1]);
    ::close(from_child[0]);
    return false;
  }
  in_fd = to_child[1];
  out_fd = from_child[0];
  return true;
}

/// Starts a job on a worker of its own, not one from the pool: for a job whose pooled worker
/// was found gone when it came to it. Defined below the worker.
void start_on_fresh_worker(const shared_state& s, std::string job, std::chrono::milliseconds limit,
                           join_runner::done_fn done);

} // namespace

/// One worker process from its start to its reaping, running one join at a time. Every
/// handler runs on its strand; start and retire are posted there.
class pooled_worker : public std::enable_shared_from_this<pooled_worker> {
public:
  pooled_worker(shared_state shared, pid_t pid, int in_fd, int out_fd)
    : shared_(std::move(shared)), strand_(asio::make_strand(shared_->ioc)), pid_(pid),
      in_(strand_, in_fd), out_(strand_, out_fd), timer_(strand_), output_(max_report_bytes) {
    // nop
  }

  /// Starts the worker's reading; once per worker.
  void open() {
    asio::post(strand_, [self = shared_from_this()] { self->read_line(); });
  }

  /// Gives the worker a job, counted in running by the caller. A worker from the pool that
  /// turns out gone (it exited while idle, or its input closed) hands the job to a fresh one;
  /// a fresh one that is gone fails it.
  void start(std::string job, std::chrono::milliseconds limit, join_runner::done_fn done,
             bool pooled) {
    asio::post(strand_, [self = shared_from_this(), job = std::move(job), limit,
                         done = std::move(done), pooled]() mutable {
      self->begin(std::move(job), limit, std::move(done), pooled);
    });
  }

  /// Whether the process has ended (its output closed); an idle worker found so is dropped.
  bool gone() const { return gone_.load(); }

  /// Closes an idle worker's input, so that it exits.
  void stop() {
    asio::post(strand_, [self = shared_from_this()] {
      boost::system::error_code ignored;
      self->in_.close(ignored);
    });
  }

private:
  void begin(std::string job, std::chrono::milliseconds limit, join_runner::done_fn done,
             bool pooled) {
    if (gone_ || !in_.is_open()) {
      if (pooled)
        return start_on_fresh_worker(shared_, std::move(job), limit, std::move(done));
      --shared_->running;
      return done(worker_failure("the join worker could not be started"));
    }
    busy_ = true;
    reported_ = false;
    done_ = std::move(done);
    job_ = std::move(job);
    job_ += '\n';
    auto self = shared_from_this();
    asio::async_write(in_, asio::buffer(job_),
                      [self, limit, pooled](boost::system::error_code ec, std::size_t) {
                        if (ec)
                          self->not_taken(limit, pooled);
                      });
    arm(limit, "the join worker did not finish within the join's time");
  }

  /// The job could not be written: the worker closed its input, so it never read the job. A
  /// pooled worker's job goes to a fresh worker; this one is left to end (its read and its
  /// reaping find it so) with nothing to report to.
  void not_taken(std::chrono::milliseconds limit, bool pooled) {
    if (!pooled || !busy_ || reported_ || !done_)
      return;
    busy_ = false;
    ++generation_;
    timer_.cancel();
    auto done = std::move(done_);
    done_ = nullptr;
    job_.pop_back();
    start_on_fresh_worker(shared_, std::move(job_), limit, std::move(done));
    if (!reaped_)
      kill("the join worker closed its input");
  }

  /// The job's deadline, or an idle worker's: a worker still busy then is killed by its PID,
  /// and an idle one is told to stop.
  void arm(std::chrono::milliseconds after, std::string why) {
    auto generation = ++generation_;
    timer_.expires_after(after);
    timer_.async_wait([self = shared_from_this(), generation,
                       why = std::move(why)](boost::system::error_code ec) {
      if (ec || generation != self->generation_ || self->reaped_)
        return;
      if (self->busy_) {
        self->kill(why);
        return;
      }
      self->retire();
    });
  }

  void kill(std::string why) {
    if (killed_.empty())
      killed_ = std::move(why);
    ::kill(pid_, SIGKILL);
  }

  /// An idle worker leaves the pool: its input closes, and it exits at the end of it. One
  /// already taken from the pool for a job (its start is on the way) stays.
  void retire() {
    {
      std::lock_guard<std::mutex> guard{shared_->mutex};
      auto& idle = shared_->idle;
      auto it = std::find(idle.begin(), idle.end(), shared_from_this());
      if (it == idle.end())
        return;
      idle.erase(it);
    }
    boost::system::error_code ignored;
    in_.close(ignored);
  }

  void read_line() {
    auto self = shared_from_this();
    asio::async_read_until(out_, output_, '\n',
                           [self](boost::system::error_code ec, std::size_t n) {
                             self->on_line(ec, n);
                           });
  }

  void on_line(boost::system::error_code ec, std::size_t n) {
    if (ec) {
      if (ec == asio::error::not_found)
        kill("the join worker wrote more than a report");
      return ended();
    }
    std::string line(asio::buffers_begin(output_.data()),
                     asio::buffers_begin(output_.data()) + static_cast<std::ptrdiff_t>(n - 1));
    output_.consume(n);
    if (line == join::worker_ready_line) {
      ready();
    } else if (busy_ && !reported_) {
      // The report comes as soon as the outcome is known; the worker goes on closing the
      // connection (up to 300 ms) and says when it is ready for another job.
      auto report = join::report_from_json(line);
      if (!report) {
        kill("the join worker ended without a readable report");
        return ended();
      }
      reported_ = true;
      auto done = std::move(done_);
      done_ = nullptr;
      done(std::move(*report));
    } else {
      kill("the join worker wrote more than a report");
      return ended();
    }
    read_line();
  }

  /// The job is over and the worker waits for another, unless it has done its share.
  void ready() {
    if (!busy_ || !reported_) {
      kill("the join worker said it was ready without a report");
      return;
    }
    busy_ = false;
    ++joins_;
    --shared_->running;
    const auto& s = shared_->settings;
    bool keep = joins_ < s.joins_per_worker;
    if (keep) {
      std::lock_guard<std::mutex> guard{shared_->mutex};
      keep = shared_->idle.size() < s.idle_workers;
      if (keep)
        shared_->idle.push_back(shared_from_this());
    }
    if (!keep) {
      boost::system::error_code ignored;
      in_.close(ignored);
      return;
    }
    arm(s.idle_for, {});
  }

  /// The output ended (the worker exited, was killed, or closed it): out of the pool, and
  /// reaped without blocking, on a pidfd where the kernel has them, else checking every few
  /// milliseconds.
  void ended() {
    gone_ = true;
    {
      std::lock_guard<std::mutex> guard{shared_->mutex};
      auto& idle = shared_->idle;
      idle.erase(std::remove(idle.begin(), idle.end(), shared_from_this()), idle.end());
    }
    boost::system::error_code ignored;
    out_.close(ignored);
    in_.close(ignored);
    reap();
  }

  void reap() {
    int status = 0;
    auto r = ::waitpid(pid_, &status, WNOHANG);
    if (r == 0)
      return wait_for_exit();
    reaped_ = true;
    timer_.cancel();
    finish(r == pid_ ? status : -1);
  }

  void wait_for_exit() {
    auto self = shared_from_this();
    if (!exit_) {
      auto fd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
      if (fd >= 0)
        exit_.emplace(strand_, fd);
    }
    if (exit_) {
      exit_->async_wait(asio::posix::stream_descriptor::wait_read,
                        [self](boost::system::error_code) { self->reap(); });
      return;
    }
    auto wait = std::make_shared<asio::steady_timer>(strand_, std::chrono::milliseconds{5});
    wait->async_wait([self, wait](boost::system::error_code) { self->reap(); });
  }

  void finish(int status) {
    if (busy_) {
      busy_ = false;
      --shared_->running;
    }
    auto done = std::move(done_);
    done_ = nullptr;
    if (!done)
      return;
    if (!killed_.empty())
      return done(worker_failure(killed_));
    if (status != -1 && WIFSIGNALED(status))
      return done(worker_failure("the join worker died of signal "
                                 + std::to_string(WTERMSIG(status))));
    done(worker_failure("the join worker ended without a readable report"));
  }

  shared_state shared_;
  asio::strand<asio::io_context::executor_type> strand_;
  pid_t pid_;
  asio::posix::stream_descriptor in_;
  asio::posix::stream_descriptor out_;
  asio::steady_timer timer_;
  asio::streambuf output_;
  join_runner::done_fn done_;
  std::string job_;
  /// Readable once the worker has exited (a pidfd), when the kernel gives one.
  std::optional<asio::posix::stream_descriptor> exit_;
  /// Why the worker was killed; empty while it was not.
  std::string killed_;
  std::uint64_t generation_ = 0;
  unsigned joins_ = 0;
  bool busy_ = false;
  bool reported_ = false;
  bool reaped_ = false;
  std::atomic<bool> gone_{false};
};

namespace {

/// A worker from the pool, or null when none is ready.
std::shared_ptr<pooled_worker> take_idle_worker(const shared_state& s) {
  std::lock_guard<std::mutex> guard{s->mutex};
  while (!s->idle.empty()) {
    auto w = std::move(s->idle.back());
    s->idle.pop_back();
    if (!w->gone())
      return w;
  }
  return nullptr;
}

/// A new worker; null when none could be started.
std::shared_ptr<pooled_worker> new_worker(const shared_state& s) {
  pid_t pid = -1;
  int in_fd = -1;
  int out_fd = -1;
  if (!spawn(s->settings.worker_path, pid, in_fd, out_fd))
    return nullptr;
  auto w = std::make_shared<pooled_worker>(s, pid, in_fd, out_fd);
  w->open();
  return w;
}

void start_on_fresh_worker(const shared_state& s, std::string job, std::chrono::milliseconds limit,
                           join_runner::done_fn done) {
  auto worker = new_worker(s);
  if (!worker) {
    --s->running;
    asio::post(s->ioc, [done = std::move(done)] {
      done(worker_failure("the join worker could not be started"));
    });
    return;
  }
  worker->start(std::move(job), limit, std::move(done), false);
}

} // namespace

join::join_report worker_failure(std::string detail) {
  join::join_report r;
  r.stage = join::join_stage::ice;
  r.outcome = join::join_outcome::worker_failed;
  r.detail = std::move(detail);
  return r;
}

join_runner::join_runner(asio::io_context& ioc, join_runner_settings settings)
  : state_(std::make_shared<state>(ioc, std::move(settings))) {
  // nop
}

join_runner::~join_runner() {
  // The idle workers' input closes: each exits at its end.
  std::vector<std::shared_ptr<pooled_worker>> idle;
  {
    std::lock_guard<std::mutex> guard{state_->mutex};
    idle.swap(state_->idle);
  }
  for (auto& w : idle)
    w->stop();
}

unsigned join_runner::running() const {
  return state_->running.load();
}

bool join_runner::run(join::join_job job, done_fn done) {
  auto& s = *state_;
  if (s.running.fetch_add(1) >= s.settings.concurrency) {
    --s.running;
    return false;
  }
  auto limit = job.timeout + s.settings.grace;
  if (auto worker = take_idle_worker(state_))
    worker->start(join::job_to_json(job), limit, std::move(done), true);
  else
    start_on_fresh_worker(state_, join::job_to_json(job), limit, std::move(done));
  return true;
}

} // namespace netherscope::net::upstream
