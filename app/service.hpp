// Wires the service together: sockets, actors, signals; runs until SIGINT or SIGTERM.
#pragma once

#include "app/options.hpp"

namespace netherscope::app {

/// Runs the service; returns the process exit code.
int run_service(const config& cfg);

/// The OpenAPI document (docs/openapi.json), embedded at build time.
extern const char* const openapi_document;

} // namespace netherscope::app
