#!/usr/bin/env bash
# Installs the Debian bookworm packages netherscope needs to build, test and run.
# Idempotent and non-interactive: a second run with everything present takes well under a second.
#
#   WITH_BENCH=1 tools/setup.sh   also installs what tools/bench/ needs (wrk, nginx).
#   WITH_CLANG=1 tools/setup.sh   also installs clang and its runtimes (libFuzzer, ASan, UBSan,
#                                 TSan) for tools/fuzz.sh and the sanitizer stages of tools/test.sh.
set -euo pipefail

# Boost is pinned to the 1.81 packages: the unversioned libboost-*-dev packages are 1.74 and
# Conflict with 1.81 at the dpkg level, and apt silently removes 1.81 to satisfy them.
required=(g++ cmake ninja-build pkg-config make
          libcaf-dev
          libboost1.81-dev libboost-json1.81-dev libboost-system1.81-dev
          libboost-url1.81-dev libboost-program-options1.81-dev
          libssl-dev openssl liblmdb-dev lmdb-utils libc-ares-dev catch2
          libhiredis-dev redis-server libusrsctp-dev librsvg2-dev
          curl ca-certificates)
bench=(wrk nginx-light)
# libFuzzer and clang's sanitizer runtimes are in libclang-rt-14-dev, which clang-14 only
# recommends. Reports name their frames through addr2line (binutils, with g++) when
# llvm-symbolizer is missing.
clang=(clang-14 libclang-rt-14-dev)
# The tests answer our offer with third-party WebRTC stacks: aiortc from Debian, werift and
# libwebrtc from npm (tools/webrtc_target). Node.js and npm come from Debian unless the
# machine already has them (some images ship their own build, which Debian's npm conflicts with).
# The page's browser test drives Debian's chromium through playwright-core (tests/browser).
# promtool (in Debian's prometheus package) checks the /metrics text in
# tests/e2e/edge/metrics_e2e_test.cpp; tools/cluster.sh puts haproxy in front of the replicas.
# tools/check_kubernetes.sh renders deploy/kubernetes with kubectl (Debian's kubernetes-client,
# unless the machine has a kubectl of its own, which that package's would conflict with).
tests=(python3-aiortc python3-yaml chromium prometheus haproxy)

wanted=("${required[@]}")
[ "${WITH_BENCH:-0}" = 1 ] && wanted+=("${bench[@]}")
[ "${WITH_CLANG:-0}" = 1 ] && wanted+=("${clang[@]}")
if [ "${WITH_TESTS:-0}" = 1 ]; then
  wanted+=("${tests[@]}")
  command -v node >/dev/null 2>&1 || wanted+=(nodejs)
  command -v npm >/dev/null 2>&1 || wanted+=(npm)
  command -v kubectl >/dev/null 2>&1 || wanted+=(kubernetes-client)
fi

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo -E"
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  # No recommends: libcaf-dev would pull in its documentation, and redis/nginx would pull in extras.
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if dpkg-query -W -f='${Status}' libboost1.74-dev 2>/dev/null | grep -q 'ok installed'; then
  echo "setup: libboost1.74-dev is installed and conflicts with libboost1.81-dev; remove it" >&2
  exit 1
fi
test -f /usr/include/boost/json.hpp
test -f /usr/include/boost/url.hpp
test -f /usr/include/caf/all.hpp
test -f /usr/include/ares.h

if [ "${WITH_TESTS:-0}" = 1 ]; then
  # Exactly the versions in each package-lock.json; again only when a lock file changed.
  # playwright-core downloads no browser of its own: the test points it at /usr/bin/chromium.
  for node_dir in "$(dirname "$0")/webrtc_target" "$(dirname "$0")/../tests/browser"; do
    stamp="$node_dir/node_modules/.installed-lock"
    if ! cmp -s "$node_dir/package-lock.json" "$stamp" 2>/dev/null; then
      echo "setup: installing the npm packages of $node_dir"
      (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
      cp "$node_dir/package-lock.json" "$stamp"
    fi
  done
  /usr/bin/python3 -c 'import aiortc'
  test -x /usr/bin/chromium
  test -x /usr/bin/promtool
fi
