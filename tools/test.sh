#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs every test (unit and end to end,
# all on loopback). Extra arguments go to ctest (e.g. -R e2e).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build -j"$(nproc)" --output-on-failure "$@"
