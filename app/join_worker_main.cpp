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

/// Bounds that hold whatever a server sends: memory, CPU time and open files.
void limit_resources() {
#ifndef NETHERSCOPE_JOIN_SANITIZED
  rlimit memory{512ul << 20, 512ul << 20};
  setrlimit(RLIMIT_AS, &memory);
#endif
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
  // The report goes out as soon as the outcome is known, and standard output closes: the
  // service answers then, while this process closes the connection as a client does.
  bool written = false;
  auto write_report = [&written](const netherscope::net::join::join_report& report) {
    if (written)
      return;
    written = true;
    auto out = netherscope::net::join::report_to_json(report);
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
    std::fclose(stdout);
  };
  write_report(netherscope::net::join::run_join(*job, write_report));
  return 0;
}
