#include "net/upstream/join_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <optional>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

extern char** environ;

namespace netherscope::net::upstream {

namespace asio = boost::asio;

struct join_runner::state {
  state(asio::io_context& context, join_runner_settings s)
    : ioc(context), settings(std::move(s)) {
    // nop
  }
  asio::io_context& ioc;
  join_runner_settings settings;
  std::atomic<unsigned> running{0};
};

namespace {

/// The most a report may take: far above a real one (a few KiB), so a worker that floods its
/// output is cut off and reported as failed.
constexpr std::size_t max_report_bytes = 64 * 1024;

/// One worker from its start to its reaping.
class worker_run : public std::enable_shared_from_this<worker_run> {
public:
  worker_run(std::shared_ptr<join_runner::state> shared, pid_t pid, int in_fd, int out_fd,
             join_runner::done_fn done)
    : shared_(std::move(shared)), pid_(pid), in_(shared_->ioc, in_fd), out_(shared_->ioc, out_fd),
      timer_(shared_->ioc), done_(std::move(done)) {
    // nop
  }

  void start(std::string job, std::chrono::milliseconds limit) {
    job_ = std::move(job);
    auto self = shared_from_this();
    asio::async_write(in_, asio::buffer(job_), [self](boost::system::error_code, std::size_t) {
      // A worker that died before reading its job is found by the read and the reaping.
      boost::system::error_code ignored;
      self->in_.close(ignored);
    });
    timer_.expires_after(limit);
    timer_.async_wait([self](boost::system::error_code ec) {
      if (!ec && !self->reaped_) {
        self->killed_ = true;
        ::kill(self->pid_, SIGKILL);
      }
    });
    read_more();
  }

private:
  void read_more() {
    auto self = shared_from_this();
    out_.async_read_some(asio::buffer(chunk_), [self](boost::system::error_code ec, std::size_t n) {
      self->output_.append(self->chunk_.data(), n);
      if (!ec && self->output_.size() <= max_report_bytes)
        return self->read_more();
      if (self->output_.size() > max_report_bytes && !self->reaped_) {
        self->killed_ = true;
        ::kill(self->pid_, SIGKILL);
      }
      boost::system::error_code ignored;
      self->out_.close(ignored);
      if (!self->killed_)
        self->answer_early();
      self->reap();
    });
  }

  /// A worker writes its report as soon as the join's outcome is known and then closes the
  /// connection (up to 300 ms more): a readable report is the answer now, and the reaping
  /// goes on without the caller.
  void answer_early() {
    auto report = join::report_from_json(output_);
    if (!report)
      return;
    auto done = std::move(done_);
    done_ = nullptr;
    if (done)
      done(std::move(*report));
  }

  /// The output ended: waits for the exit without blocking, on a pidfd where the kernel has
  /// them, else checking every few milliseconds (a worker whose output closed is exiting; one
  /// that closed it and hangs is killed by the deadline).
  void reap() {
    int status = 0;
    auto r = ::waitpid(pid_, &status, WNOHANG);
    if (r == 0)
      return wait_for_exit();
    reaped_ = true;
    timer_.cancel();
    --shared_->running;
    finish(r == pid_ ? status : -1);
  }

  void wait_for_exit() {
    auto self = shared_from_this();
    if (!exit_) {
      auto fd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
      if (fd >= 0)
        exit_.emplace(shared_->ioc, fd);
    }
    if (exit_) {
      exit_->async_wait(asio::posix::stream_descriptor::wait_read,
                        [self](boost::system::error_code) { self->reap(); });
      return;
    }
    auto wait = std::make_shared<asio::steady_timer>(shared_->ioc, std::chrono::milliseconds{5});
    wait->async_wait([self, wait](boost::system::error_code) { self->reap(); });
  }

  void finish(int status) {
    auto done = std::move(done_);
    if (!done)
      return;
    if (killed_)
      return done(worker_failure(output_.size() > max_report_bytes
                                   ? "the join worker wrote more than a report"
                                   : "the join worker did not finish within the join's time"));
    if (status != -1 && WIFSIGNALED(status))
      return done(worker_failure("the join worker died of signal "
                                 + std::to_string(WTERMSIG(status))));
    auto report = join::report_from_json(output_);
    if (!report)
      return done(worker_failure("the join worker ended without a readable report"));
    done(std::move(*report));
  }

  std::shared_ptr<join_runner::state> shared_;
  pid_t pid_;
  asio::posix::stream_descriptor in_;
  asio::posix::stream_descriptor out_;
  asio::steady_timer timer_;
  join_runner::done_fn done_;
  std::string job_;
  std::string output_;
  std::array<char, 4096> chunk_{};
  /// Readable once the worker has exited (a pidfd), when the kernel gives one.
  std::optional<asio::posix::stream_descriptor> exit_;
  bool killed_ = false;
  bool reaped_ = false;
};

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
  char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
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

join_runner::~join_runner() = default;

unsigned join_runner::running() const {
  return state_->running.load();
}

bool join_runner::run(join::join_job job, done_fn done) {
  auto& s = *state_;
  if (s.running.fetch_add(1) >= s.settings.concurrency) {
    --s.running;
    return false;
  }
  pid_t pid = -1;
  int in_fd = -1;
  int out_fd = -1;
  if (!spawn(s.settings.worker_path, pid, in_fd, out_fd)) {
    --s.running;
    asio::post(s.ioc, [done = std::move(done)] {
      done(worker_failure("the join worker could not be started"));
    });
    return true;
  }
  auto limit = job.timeout + s.settings.grace;
  auto run = std::make_shared<worker_run>(state_, pid, in_fd, out_fd, std::move(done));
  run->start(join::job_to_json(job), limit);
  return true;
}

} // namespace netherscope::net::upstream
