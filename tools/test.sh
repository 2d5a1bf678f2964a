#!/usr/bin/env bash
# Installs what is missing, checks the layout rules, the document links and the Kubernetes
# manifests, builds everything and runs every test (unit and end to end, all on loopback), then
# the same suite under ASan+UBSan and again under TSan, and a short run of each fuzzer
# (docs/FUZZING.md). This is what CI runs. Prints each stage's time, and a table of them at the
# end.
#
#   tools/test.sh                  every stage below, in this order
#   tools/test.sh --quick [ARGS]   the plain build, its tests, the cluster and bench smokes; ARGS go to
#                                  ctest (e.g. -R e2e). Arguments without a mode mean --quick.
#   tools/test.sh --sanitize [ARGS]  ASan+UBSan build of the whole suite (build-asan/)
#   tools/test.sh --tsan [ARGS]    TSan build of the whole suite (build-tsan/), with a TSan
#                                  build of CAF's core library
#   tools/test.sh --fuzz [SECONDS] tools/fuzz.sh: each harness for SECONDS (default 20)
#
# Each build has its own directory, so switching modes rebuilds nothing needlessly. A sanitizer
# report from any process (the test binary, or the service and fake target the end-to-end
# tests start) fails the stage: reports go to <build>/sanitizer-logs/ and are printed there.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
case "${1:-}" in
  --quick | --sanitize | --tsan | --fuzz) mode=${1#--}; shift ;;
  "") ;;
  *) mode=quick ;;
esac

jobs=$(nproc)
start=$SECONDS
stage_start=$SECONDS
stage_name=""
timings=()
stage() {
  if [ -n "$stage_name" ]; then
    timings+=("$(printf '%-22s %5d s' "$stage_name" $((SECONDS - stage_start)))")
  fi
  stage_name=$1
  stage_start=$SECONDS
  [ "$1" = done ] || echo "== $1 ($((SECONDS - start)) s since start)"
}

# Runs ctest with sanitizer reports written to files (log_path), prints them, and fails if any
# process wrote one: a child that dies of a report may not fail the test that started it.
sanitized_run() {
  local logs=$1
  shift
  rm -rf "$logs"
  mkdir -p "$logs"
  local status=0
  "$@" || status=$?
  if compgen -G "$logs/*" >/dev/null; then
    echo "sanitizer reports (also in $logs):"
    for f in "$logs"/*; do
      echo "--- $f"
      head -80 "$f"
    done
    return 1
  fi
  return "$status"
}

plain() {
  stage "configure"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  stage "build"
  cmake --build build -j"$jobs"
  stage "tests"
  ctest --test-dir build -j"$jobs" --output-on-failure "$@"
  # Redis, three replicas and HAProxy as processes on loopback: one quota and one offer cache
  # across the replicas, through the proxy (tools/cluster.sh).
  stage "cluster smoke"
  tools/cluster.sh smoke
  # The replicas restarted one at a time under load through the proxy: no call may fail.
  stage "cluster rolling"
  tools/cluster.sh rolling
  # Three replicas on a Redis master with two replicas under three sentinels: the master is
  # killed under load, and every call answered 200 must be counted on the promoted master.
  stage "cluster failover"
  tools/cluster.sh failover
  # deploy/kubernetes-sentinel's Redis and sentinel start scripts as processes, each pod's name
  # on an address of loopback in a mount namespace (so it needs root).
  stage "kubernetes sentinel scripts"
  if [ "$(id -u)" -eq 0 ]; then
    tools/check_sentinel_kube.sh
  else
    echo "not root, so tools/check_sentinel_kube.sh was not run (it makes a mount namespace)"
  fi
  # A one-second run of each benchmark: it proves the bench still runs and every cached offer
  # succeeds; its figures are not judged here (timings belong to docs/BENCHMARKS.md).
  stage "bench smoke"
  tools/bench/run.sh 1 > build/bench-smoke.md
  cat build/bench-smoke.md
  # Five joins in a row and 50 at once through the service; it fails when one of the five
  # does not join.
  tools/bench/join.sh 5
}

# The sanitizer builds use clang, as the fuzzers do: its UBSan takes an ignorelist for library
# code (tools/ubsan.ignorelist) and writes every report to log_path, also from the processes
# the end-to-end tests start. Debug with -O1: assertions (Boost's among them) stay on, and the
# end-to-end tests stay fast enough for their deadlines. Line tables are all the reports'
# stacks need, and full debug information would make the builds much slower.
sanitizer_build() {
  cmake -S . -B "$1" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DNETHERSCOPE_SANITIZE="$2" >/dev/null
}

sanitize() {
  local dir=build-asan
  stage "asan+ubsan build"
  sanitizer_build "$dir" address,undefined
  cmake --build "$dir" -j"$jobs"
  stage "asan+ubsan tests"
  local logs=$PWD/$dir/sanitizer-logs
  ASAN_OPTIONS="log_path=$logs/asan:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1" \
  LSAN_OPTIONS="suppressions=$PWD/tools/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS="log_path=$logs/ubsan:print_stacktrace=1:halt_on_error=1" \
    sanitized_run "$logs" ctest --test-dir "$dir" -j"$jobs" --output-on-failure "$@"
}

# CAF is the one library whose threads run our code, and Debian's libcaf_core is not built
# for TSan: every hand-over through its mailboxes and scheduler (atomics inside the library)
# would be invisible, and every message a reported race. So the TSan stage builds libcaf_core
# itself, from the source Debian builds its package from (the same 0.17.6, default build
# options, so the headers in /usr/include/caf match it), and the tests load it instead of
# Debian's through LD_LIBRARY_PATH (its SONAME is the same). About 100 files, built once per
# build directory.
caf_version=0.17.6
caf_tarball=actor-framework_${caf_version}.orig.tar.gz
caf_url=http://deb.debian.org/debian/pool/main/a/actor-framework/$caf_tarball
# The SHA-256 that actor-framework_0.17.6-2.1.dsc (bookworm's source package) lists.
caf_sha256=e2bf5bd243f08bb7d8adde197cfe3e6d71314ed3378fe0692f8932f4c3b3928c
tsan_caf() {
  local dir=$1
  [ -f "$dir/build/lib/libcaf_core.so.$caf_version" ] && return 0
  mkdir -p "$dir"
  if [ ! -f "$dir/$caf_tarball" ]; then
    curl -fsSL -o "$dir/$caf_tarball.part" "$caf_url"
    mv "$dir/$caf_tarball.part" "$dir/$caf_tarball"
  fi
  echo "$caf_sha256  $dir/$caf_tarball" | sha256sum -c --quiet
  rm -rf "$dir/src"
  mkdir -p "$dir/src"
  tar xzf "$dir/$caf_tarball" -C "$dir/src" --strip-components=1
  # CAF would switch to libc++ under clang; our code uses libstdc++.
  cmake -S "$dir/src" -B "$dir/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS=-fsanitize=thread \
    -DCAF_NO_AUTO_LIBCPP=yes -DCAF_NO_IO=yes -DCAF_NO_OPENSSL=yes -DCAF_NO_EXAMPLES=yes \
    -DCAF_NO_UNIT_TESTS=yes -DCAF_NO_TOOLS=yes -DCAF_NO_PYTHON=yes -DCAF_NO_OPENCL=yes \
    -DCAF_NO_SUMMARY=yes >/dev/null
  cmake --build "$dir/build" -j"$jobs" --target libcaf_core_shared
}

# Every test under TSan: the unit tests of the actors (quota, keys, cache, target memory) and
# the store run their actors on CAF's threads, and the end-to-end tests run the service (io
# threads, the edge bridge, every actor) as a TSan-built process.
tsan() {
  local dir=build-tsan
  stage "tsan build"
  tsan_caf "$dir/caf"
  sanitizer_build "$dir" thread
  cmake --build "$dir" -j"$jobs"
  stage "tsan tests"
  local caf_lib=$PWD/$dir/caf/build/lib
  # Refuse to run against Debian's uninstrumented CAF by mistake. ldd's output is read whole
  # first: `ldd | grep -q` under pipefail fails whenever grep exits on its match while ldd is
  # still writing (SIGPIPE), which is how CI once refused a good build.
  local libs
  libs=$(LD_LIBRARY_PATH=$caf_lib ldd "$dir/tests/netherscope_tests")
  if [[ "$libs" != *"$caf_lib/libcaf_core"* ]]; then
    echo "tsan: the tests would not load the TSan build of CAF in $caf_lib" >&2
    return 1
  fi
  local logs=$PWD/$dir/sanitizer-logs
  LD_LIBRARY_PATH=$caf_lib \
  TSAN_OPTIONS="log_path=$logs/tsan:suppressions=$PWD/tools/tsan.supp:second_deadlock_stack=1" \
    sanitized_run "$logs" ctest --test-dir "$dir" -j"$jobs" --output-on-failure "$@"
}

fuzz() {
  stage "fuzz smoke"
  tools/fuzz.sh "${1:-20}"
}

stage "setup"
case $mode in
  quick) WITH_TESTS=1 tools/setup.sh ;;
  sanitize | tsan) WITH_TESTS=1 WITH_CLANG=1 tools/setup.sh ;;
  fuzz) WITH_CLANG=1 tools/setup.sh ;;
  all) WITH_TESTS=1 WITH_CLANG=1 tools/setup.sh ;;
esac
stage "layout rules, document links and manifests"
tools/check_layout.sh
tools/check_links.sh
tools/check_kubernetes.sh
case $mode in
  quick) plain "$@" ;;
  sanitize) sanitize "$@" ;;
  tsan) tsan "$@" ;;
  fuzz) fuzz "$@" ;;
  all)
    plain
    sanitize
    tsan
    fuzz
    ;;
esac
stage "done"
echo "== stage times"
printf '%s\n' "${timings[@]}"
printf '%-22s %5d s\n' total $((SECONDS - start))
