// `netherscope admin`: accounts, keys and usage on the same LMDB store, while the service runs.
#pragma once

#include <string>

namespace netherscope::app {

/// Runs an admin command; argv[0] is "admin". Returns the exit code.
int run_admin(int argc, const char* const* argv);

/// Prints "netherscope admin: <message>" on stderr and returns 1, the exit status of a command
/// the store or the services refused.
int admin_fail(const std::string& message);

} // namespace netherscope::app
