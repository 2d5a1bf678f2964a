// Test support: child processes whose stdout is read line by line.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace netherscope::test {

/// A child process started with posix_spawn; killed (SIGKILL) by the destructor if running.
class child_process {
public:
  /// Starts argv[0] with argv; extra_env entries ("NAME=value") are added to the environment.
  explicit child_process(std::vector<std::string> argv,
                         std::vector<std::string> extra_env = {});
  ~child_process();

  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const noexcept {
    return pid_;
  }

  /// Waits until a stdout line satisfies pred; returns it, or nullopt after timeout.
  std::optional<std::string> wait_for_line(const std::function<bool(const std::string&)>& pred,
                                           std::chrono::milliseconds timeout);

  /// Every stdout line so far.
  std::vector<std::string> lines();

  /// Sends a signal to this child (only this child, by its PID).
  void signal(int sig);

  /// Waits for the exit; returns the exit status, 128+signal when killed, or nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);

private:
  void read_loop();

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::optional<int> exit_status_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> lines_;
  bool eof_ = false;
};

/// Reads `"port":N` from a JSON log line, or 0.
unsigned port_from_line(const std::string& line);

/// A fresh empty directory under the system temp dir, removed by the destructor.
class temp_dir {
public:
  temp_dir();
  ~temp_dir();
  const std::string& path() const noexcept {
    return path_;
  }

private:
  std::string path_;
};

} // namespace netherscope::test
