#!/usr/bin/env bash
# Where a cached POST /api/offer spends CPU, per thread, in microseconds per request.
#
#   tools/bench/thread_cpu.sh [BINARY] [service options...]
#
# Starts the fake target and the service (default build/netherscope) on 127.0.0.1, warms the
# cache, drives cached offers with wrk -t2 -c64 for 5 s, and reads each thread's CPU time
# (utime + stime in /proc/PID/task/*/stat) over 3 s of it. Compare two builds in turns: the
# machine's noise moves both alike. Needs wrk (WITH_BENCH=1 tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/netherscope}
shift || true
source tools/bench/lib.sh

build/tools/fake_target/fake_target >"$work/target.log" 2>&1 &
pids+=($!)
target_port=$(port_of "$work/target.log")
"$bin" --port 0 --data-dir "$work/data" --allow-loopback --access-log=false \
  --limit-offer-ip 4000000000 --max-connections-per-ip 5000 "$@" >"$work/svc.log" 2>&1 &
svc=$!
pids+=($svc)
svc_port=$(port_of "$work/svc.log")
curl -fsS -X POST -H 'Content-Type: application/json' \
  -d "{\"host\":\"127.0.0.1\",\"port\":$target_port}" "http://127.0.0.1:$svc_port/api/offer" -o /dev/null

ticks() {
  for t in /proc/"$svc"/task/*; do
    echo "$(basename "$t") $(cat "$t/comm") $(awk '{print $14 + $15}' "$t/stat")"
  done | sort
}
TARGET_PORT=$target_port wrk -t2 -c64 -d5s -s tools/bench/offer.lua \
  "http://127.0.0.1:$svc_port/api/offer" >"$work/wrk.txt" &
load=$!
sleep 1
ticks >"$work/before"
sleep 3
ticks >"$work/after"
wait "$load"
rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
hz=$(getconf CLK_TCK)
echo "requests/s: $rps"
join "$work/before" "$work/after" | awk -v rps="$rps" -v hz="$hz" '
  { d = $5 - $3; if (d > 0) { us = d * 1e6 / hz / (rps * 3); total += us;
      printf "  %-16s %6.1f us/request\n", $2, us } }
  END { printf "  %-16s %6.1f us/request\n", "total", total }'
