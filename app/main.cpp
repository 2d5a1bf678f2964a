// netherscope: a JSON API that looks into Minecraft Bedrock servers speaking NetherNet.
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "app/admin.hpp"
#include "app/options.hpp"
#include "app/service.hpp"

int main(int argc, char** argv) {
  // A peer that closed its end (Redis restarted, a TLS tunnel's other side gone) must be an
  // EPIPE error on that connection, not a signal that ends the process: hiredis and OpenSSL
  // write to their sockets with plain write(), which raises SIGPIPE otherwise.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc > 1 && std::strcmp(argv[1], "admin") == 0)
    return netherscope::app::run_admin(argc - 1, argv + 1);
  auto parsed = netherscope::app::parse_options(argc, argv);
  switch (parsed.status) {
    case netherscope::app::parse_status::exit_ok:
      std::fputs(parsed.message.c_str(), stdout);
      return 0;
    case netherscope::app::parse_status::exit_error:
      std::fprintf(stderr, "netherscope: %s (see --help)\n", parsed.message.c_str());
      return 2;
    case netherscope::app::parse_status::run:
      break;
  }
  // glibc's default threshold for serving a block with its own mmap, fixed so that it stays
  // there: left to itself, glibc raises it to the size of the largest mmap'd block freed, so
  // after one answer of 1 MiB from a target every later one comes from the heap, where small
  // long-lived blocks above the freed ones keep that memory from returning to the system
  // (docs/BENCHMARKS.md, "Hostile answers: memory", has what it costs).
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  return netherscope::app::run_service(parsed.cfg);
}
