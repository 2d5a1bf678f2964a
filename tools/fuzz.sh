#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang in build-fuzz/ and runs each for a
# while (docs/FUZZING.md). Fails when a harness finds a crash, a leak, a timeout or a broken
# property; prints each harness's executions and coverage either way.
#
#   tools/fuzz.sh              each harness for 20 s (the CI smoke)
#   tools/fuzz.sh 300          each for 5 minutes
#   tools/fuzz.sh 60 identity  only the named harnesses
#
# Seeds come from tests/fuzz/corpus/<harness> (committed) and tests/fixtures (the recorded
# answers); what the fuzzer learns goes to build-fuzz/corpus/<harness>, which is kept between
# runs on this machine and never committed. A finding is written to build-fuzz/artifacts/;
# replay it with build-fuzz/tests/fuzz/fuzz_<harness> <file>.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-20}
shift || true
all=(http_request offer_body host_port motd sdp_answer candidate identity stun raknet_pong join_game)
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=("${all[@]}")

WITH_CLANG=1 tools/setup.sh

# Debug with -O1, as OSS-Fuzz builds: assertions (Boost's among them) stay on, and the code is
# fast enough to fuzz.
build=build-fuzz
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DNETHERSCOPE_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only" >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${harnesses[@]/#/fuzz_}"

# The dictionary of each harness, and its largest input: an HTTP request may fill the 8 KiB
# header and some of the 16 KiB body; the others read one line, body or SDP, and a STUN
# datagram or a RakNet pong fits the 1,500 bytes the service reads of one.
declare -A dict=([http_request]=http_request [offer_body]=offer_body [host_port]=host_port [motd]=motd
                 [sdp_answer]=sdp [candidate]=sdp [identity]=identity [stun]=stun
                 [raknet_pong]=raknet [join_game]=join)
declare -A max_len=([http_request]=32768 [offer_body]=4096 [host_port]=1024 [motd]=1024
                    [sdp_answer]=16384 [candidate]=4096 [identity]=8192
                    [stun]=1500 [raknet_pong]=1500 [join_game]=4096)

mkdir -p "$build/artifacts"
summary=()
failed=0
for h in "${harnesses[@]}"; do
  corpus="$build/corpus/$h"
  mkdir -p "$corpus"
  # The recorded answers seed the SDP parser as they are; the identity harness takes them
  # behind its layer byte (tests/fuzz/corpus/identity).
  [ "$h" = sdp_answer ] && cp tests/fixtures/*.sdp "$corpus/"
  log="$build/fuzz-$h.log"
  echo "== fuzz $h for ${seconds} s"
  status=0
  "$build/tests/fuzz/fuzz_$h" "$corpus" "tests/fuzz/corpus/$h" \
    -dict="tests/fuzz/dict/${dict[$h]}.dict" -max_len="${max_len[$h]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$h-" >"$log" 2>&1 || status=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -nE 's/.* cov: ([0-9]+) .*/\1/p' <<<"$done_line")
  ft=$(sed -nE 's/.* ft: ([0-9]+) .*/\1/p' <<<"$done_line")
  corp=$(sed -nE 's/.* corp: ([0-9]+\/[0-9]+[a-zA-Z]+) .*/\1/p' <<<"$done_line")
  if [ "$status" -eq 0 ]; then
    result=ok
  else
    result="FAILED (exit $status, see $log)"
    failed=1
    # The sanitizer's or libFuzzer's report, and the input it kept.
    grep -E -A20 '^==[0-9]+==ERROR|^SUMMARY|fuzz property broken|^artifact_prefix|Test unit written' \
      "$log" | head -60 || true
  fi
  summary+=("$(printf '%-13s %12s %8s %6s %6s %12s  %s' "$h" "${runs:-?}" "${rate:-?}" \
                "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")")
done

echo "== fuzz summary (${seconds} s each)"
printf '%-13s %12s %8s %6s %6s %12s  %s\n' harness executions exec/s cov ft corpus result
printf '%s\n' "${summary[@]}"
exit "$failed"
