// `netherscope admin`: accounts, keys and usage on the same LMDB store, while the service runs.
#pragma once

namespace netherscope::app {

/// Runs an admin command; argv[0] is "admin". Returns the exit code.
int run_admin(int argc, const char* const* argv);

} // namespace netherscope::app
