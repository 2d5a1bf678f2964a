// netherscope-join: the worker that runs one join (net/join/session.hpp). The service starts
// one per join, writes the job as JSON on its standard input and reads the report as JSON from
// its standard output. A join reads a hostile server's bytes through OpenSSL and usrsctp, and
// usrsctp keeps global state: in a process of its own, a crash there ends this join only.
#include <sys/resource.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "net/join/session.hpp"

namespace {

/// The largest job read: a job is about 3 KiB (two PEM blocks and eight candidates).
constexpr std::size_t max_job_bytes = 256 * 1024;

/// Bounds that hold whatever a server sends: memory, CPU time and open files.
void limit_resources() {
  rlimit memory{512ul << 20, 512ul << 20};
  setrlimit(RLIMIT_AS, &memory);
  rlimit cpu{10, 10};
  setrlimit(RLIMIT_CPU, &cpu);
  rlimit files{32, 32};
  setrlimit(RLIMIT_NOFILE, &files);
  rlimit core{0, 0};
  setrlimit(RLIMIT_CORE, &core);
}

} // namespace

int main() {
  limit_resources();
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
  std::string why;
  auto job = netherscope::net::join::job_from_json(text, &why);
  if (!job) {
    std::fprintf(stderr, "netherscope-join: %s\n", why.c_str());
    return 2;
  }
  auto report = netherscope::net::join::run_join(*job);
  auto out = netherscope::net::join::report_to_json(report);
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fputc('\n', stdout);
  return 0;
}
