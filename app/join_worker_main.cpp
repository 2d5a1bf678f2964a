// netherscope-join: the worker that runs joins (net/join/session.hpp). With --serve, as the
// service starts it, it reads one job per line of its standard input, writes each join's report
// as one line on its standard output as soon as the outcome is known, then the ready line once
// the connection is closed, and takes the next job; it exits at the end of its input. Without
// it, it runs the one job its whole input holds and writes its report. A join reads a hostile
// server's bytes through OpenSSL and usrsctp, and usrsctp keeps global state: in a process of
// its own, a crash there ends this worker and its one join only.
#include <sys/resource.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

#include "net/join/session.hpp"

// ASan and TSan reserve terabytes of address space for their shadow memory, so a build with
// either cannot run under an address-space limit; every other limit still holds there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NETHERSCOPE_JOIN_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NETHERSCOPE_JOIN_SANITIZED 1
#endif
#endif

namespace {

/// The largest job read: a job is about 3 KiB (two PEM blocks and eight candidates).
constexpr std::size_t max_job_bytes = 256 * 1024;

/// CPU time a join may use, counted from its start (the job's time bounds it well before).
constexpr rlim_t cpu_seconds_per_join = 10;

/// Bounds that hold whatever a server sends: memory, CPU time and open files.
void limit_resources() {
#ifndef NETHERSCOPE_JOIN_SANITIZED
  rlimit memory{512ul << 20, 512ul << 20};
  setrlimit(RLIMIT_AS, &memory);
#endif
  rlimit files{32, 32};
  setrlimit(RLIMIT_NOFILE, &files);
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
}

/// The CPU limit for the next join: what the process has used, and a join's share more.
void limit_cpu_for_next_join() {
  rusage used{};
  getrusage(RUSAGE_SELF, &used);
  auto seconds = static_cast<rlim_t>(used.ru_utime.tv_sec + used.ru_stime.tv_sec) + 1;
  rlimit cpu{seconds + cpu_seconds_per_join, seconds + cpu_seconds_per_join + 1};
  setrlimit(RLIMIT_CPU, &cpu);
}

/// Runs one job, writing its report as soon as the outcome is known; false when the job
/// cannot be read.
bool run_one(const std::string& text, bool serving) {
  std::string why;
  auto job = netherscope::net::join::job_from_json(text, &why);
  if (!job) {
    std::fprintf(stderr, "netherscope-join: %s\n", why.c_str());
    return false;
  }
  limit_cpu_for_next_join();
  // The report goes out as soon as the outcome is known: the service answers then, while
  // this process closes the connection as a client does.
  bool written = false;
  auto write_report = [&written, serving](const netherscope::net::join::join_report& report) {
    if (written)
      return;
    written = true;
    auto out = netherscope::net::join::report_to_json(report);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
    if (serving)
      std::fflush(stdout);
    else
      std::fclose(stdout);
  };
  write_report(netherscope::net::join::run_join(*job, write_report));
  return true;
}

/// One job per line until the input ends.
int serve() {
  std::string line;
  for (;;) {
    line.clear();
    int c = 0;
    while ((c = std::fgetc(stdin)) != EOF && c != '\n') {
      line += static_cast<char>(c);
      if (line.size() > max_job_bytes) {
        std::fputs("netherscope-join: the job is too large\n", stderr);
        return 2;
      }
    }
    if (c == EOF && line.empty())
      return 0;
    if (!run_one(line, true))
      return 2;
    auto ready = netherscope::net::join::worker_ready_line;
    std::fwrite(ready.data(), 1, ready.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
}

} // namespace

int main(int argc, char** argv) {
  limit_resources();
  if (argc == 2 && std::string_view{argv[1]} == "--serve")
    return serve();
  std::string text;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0) {
    text.append(buffer, n);
    if (text.size() > max_job_bytes) {
      std::fputs("netherscope-join: the job is too large\n", stderr);
      return 2;
    }
  }
  return run_one(text, false) ? 0 : 2;
}
