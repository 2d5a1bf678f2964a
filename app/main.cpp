// netherscope: a JSON API that looks into Minecraft Bedrock servers speaking NetherNet.
#include <cstdio>

#include <cstring>

#include "app/admin.hpp"
#include "app/options.hpp"
#include "app/service.hpp"

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "admin") == 0)
    return netherscope::run_admin(argc - 1, argv + 1);
  auto parsed = netherscope::parse_options(argc, argv);
  switch (parsed.status) {
    case netherscope::parse_status::exit_ok:
      std::fputs(parsed.message.c_str(), stdout);
      return 0;
    case netherscope::parse_status::exit_error:
      std::fprintf(stderr, "netherscope: %s (see --help)\n", parsed.message.c_str());
      return 2;
    case netherscope::parse_status::run:
      break;
  }
  return netherscope::run_service(parsed.cfg);
}
