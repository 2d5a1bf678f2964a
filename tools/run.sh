#!/usr/bin/env bash
# Installs what is missing, builds, and runs netherscope with its embedded defaults:
# listening on 127.0.0.1:8080, data under ./data. Extra arguments go to netherscope.
#
#   tools/run.sh --help    lists every option at once, before anything is installed or built
#   tools/run.sh admin ... runs the admin CLI (accounts, keys, usage) on the store
set -euo pipefail
cd "$(dirname "$0")/.."
# The options are kept in docs/netherscope-help.txt, which a unit test compares with the
# binary's --help, so a newcomer sees them without waiting for a first build.
if [ "${1:-}" != "admin" ]; then
  for arg in "$@"; do
    if [ "$arg" = "--help" ] || [ "$arg" = "-h" ]; then
      cat docs/netherscope-help.txt
      exit 0
    fi
  done
fi
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# The join worker goes beside the service, and the fake target comes along: the README's demo
# uses it.
cmake --build build -j"$(nproc)" --target netherscope netherscope-join fake_target
exec build/netherscope "$@"
