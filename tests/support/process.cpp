#include "support/process.hpp"

#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "support/wait.hpp"

extern char** environ;

namespace netherscope::test {

child_process::child_process(std::vector<std::string> argv, std::vector<std::string> extra_env) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (auto& a : argv)
    args.push_back(a.data());
  args.push_back(nullptr);
  std::vector<std::string> env_storage;
  for (auto e = environ; *e != nullptr; ++e)
    env_storage.emplace_back(*e);
  for (auto& e : extra_env)
    env_storage.push_back(e);
  std::vector<char*> env;
  for (auto& e : env_storage)
    env.push_back(e.data());
  env.push_back(nullptr);
  auto rc = posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(rc));
  }
  stdout_fd_ = fds[0];
  reader_ = std::thread([this] { read_loop(); });
}

child_process::~child_process() {
  if (!exit_status_) {
    ::kill(pid_, SIGKILL);
    wait(std::chrono::seconds(10));
  }
  if (reader_.joinable())
    reader_.join();
  if (stdout_fd_ >= 0)
    close(stdout_fd_);
}

void child_process::read_loop() {
  std::string partial;
  char buf[4096];
  for (;;) {
    auto n = ::read(stdout_fd_, buf, sizeof(buf));
    if (n <= 0)
      break;
    partial.append(buf, static_cast<std::size_t>(n));
    std::size_t pos;
    while ((pos = partial.find('\n')) != std::string::npos) {
      std::lock_guard<std::mutex> guard{mutex_};
      lines_.push_back(partial.substr(0, pos));
      partial.erase(0, pos + 1);
      changed_.notify_all();
    }
  }
  std::lock_guard<std::mutex> guard{mutex_};
  eof_ = true;
  changed_.notify_all();
}

std::optional<std::string>
child_process::wait_for_line(const std::function<bool(const std::string&)>& pred,
                             std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> guard{mutex_};
  std::size_t checked = 0;
  std::optional<std::string> found;
  changed_.wait_for(guard, timeout, [&] {
    for (; checked < lines_.size(); ++checked) {
      if (pred(lines_[checked])) {
        found = lines_[checked];
        return true;
      }
    }
    return eof_;
  });
  return found;
}

std::vector<std::string> child_process::lines() {
  std::lock_guard<std::mutex> guard{mutex_};
  return lines_;
}

void child_process::signal(int sig) {
  if (!exit_status_)
    ::kill(pid_, sig);
}

std::optional<int> child_process::wait(std::chrono::milliseconds timeout) {
  if (exit_status_)
    return exit_status_;
  // waitpid has no timeout of its own, so it is polled without blocking until the child is
  // reaped or the deadline passes.
  wait_until(
    [this] {
      int status = 0;
      auto rc = ::waitpid(pid_, &status, WNOHANG);
      if (rc == pid_)
        exit_status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      // rc < 0: nothing left to wait for (not our child any more); waiting longer cannot help.
      return rc == pid_ || rc < 0;
    },
    timeout, std::chrono::milliseconds(5));
  return exit_status_;
}

unsigned port_from_line(const std::string& line) {
  auto pos = line.find("\"port\":");
  if (pos == std::string::npos)
    return 0;
  return static_cast<unsigned>(std::strtoul(line.c_str() + pos + 7, nullptr, 10));
}

temp_dir::temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "netherscope-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

temp_dir::~temp_dir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

} // namespace netherscope::test
