#!/usr/bin/env bash
# Installs what is missing, builds, and runs netherscope with its embedded defaults:
# listening on 127.0.0.1:8080, data under ./data. Extra arguments go to netherscope.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# The fake target comes along: the README's demo uses it.
cmake --build build -j"$(nproc)" --target netherscope fake_target
exec build/netherscope "$@"
