#!/usr/bin/env bash
# Measures the service's memory while many targets answer offers at once with hostile
# answers: valid SDP padded to the 1 MiB body limit with control bytes, which a JSON writer
# escapes six bytes for one (issue 13, "Upstream hostility").
#
#   tools/bench/hostile_rss.sh [rounds] [targets]      (default: 3 rounds of 40 at once)
#
# Each round sends one fresh offer to each of `targets` fake targets (one process each, so
# neither the cache nor the per-target limit joins the calls), all at once, and reads the
# service's VmRSS and VmHWM from /proc/PID/status: before the round, the round's peak (VmHWM,
# reset before each round through /proc/PID/clear_refs), right after the last reply, and 2 s
# later. Environment: NETHERSCOPE=path measures another binary (an older commit's build, say);
# ANSWER_BYTES sets the answer size (default 1048576, the limit); SERVICE_ARGS adds options.
# Everything listens on 127.0.0.1 and is stopped by PID at the end. Prints a Markdown table
# for docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
targets=${2:-40}
answer_bytes=${ANSWER_BYTES:-1048576}
bin=${NETHERSCOPE:-build/netherscope}
fake=build/tools/fake_target/fake_target
if [ -z "${NETHERSCOPE:-}" ]; then
  cmake --build build --target netherscope fake_target >/dev/null
fi
[ -x "$bin" ] && [ -x "$fake" ] || { echo "no $bin or $fake: build first" >&2; exit 1; }

source tools/bench/lib.sh

mib() { awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }

for i in $(seq 1 "$targets"); do
  "$fake" --offer-fault control-answer --oversize-bytes "$answer_bytes" >"$work/fake$i.log" 2>&1 &
  pids+=($!)
done
"$fake" >"$work/normal.log" 2>&1 &
pids+=($!)
# shellcheck disable=SC2086 # SERVICE_ARGS is a list of options
"$bin" --port 0 --data-dir "$work/data" --allow-loopback --access-log=false \
  --limit-offer-ip 4000000000 --offers-per-target-per-minute 10000 ${SERVICE_ARGS:-} \
  >"$work/service.log" 2>&1 &
svc=$!
pids+=($svc)
svc_port=$(port_of "$work/service.log")
ports=()
for i in $(seq 1 "$targets"); do ports+=("$(port_of "$work/fake$i.log")"); done

offer() {
  curl -sS -o /dev/null -w '%{http_code} %{size_download}\n' -X POST \
    -H 'Content-Type: application/json' \
    -d "{\"host\":\"127.0.0.1\",\"port\":$1,\"tls\":false,\"fresh\":true}" \
    "http://127.0.0.1:$svc_port/api/offer"
}

# One ordinary offer first, so that what the service sets up lazily is in the baseline.
offer "$(port_of "$work/normal.log")" >/dev/null
start_rss=$(kib "$svc" VmRSS)

echo "service: $bin, $targets targets at once, answers of $answer_bytes bytes"
echo
echo "| round | replies | largest reply | RSS before | peak (VmHWM) | RSS after | RSS 2 s later |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  before=$(kib "$svc" VmRSS)
  # Resets VmHWM to the current RSS (Linux 4.0+), so each round's peak is its own.
  echo 5 >"/proc/$svc/clear_refs"
  calls=()
  for port in "${ports[@]}"; do
    offer "$port" >>"$work/round$round.txt" &
    calls+=($!)
  done
  for pid in "${calls[@]}"; do wait "$pid"; done
  peak=$(kib "$svc" VmHWM)
  after=$(kib "$svc" VmRSS)
  sleep 2
  settled=$(kib "$svc" VmRSS)
  codes=$(awk '{print $1}' "$work/round$round.txt" | sort | uniq -c | awk '{printf "%s%s x %s", sep, $1, $2; sep=", "}')
  largest=$(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$work/round$round.txt")
  echo "| $round | $codes | $largest B | $(mib "$before") MiB | $(mib "$peak") MiB | $(mib "$after") MiB | $(mib "$settled") MiB |"
done
echo
echo "RSS after start and one ordinary offer: $(mib "$start_rss") MiB; end: $(mib "$(kib "$svc" VmRSS)") MiB"
