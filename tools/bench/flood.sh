#!/usr/bin/env bash
# Fair share under a flood: 10,000 idle connections from 100 loopback addresses while a
# well-behaved client keeps asking GET /healthz, one request every 5 ms on a keep-alive
# connection and another on a new connection each time (tools/bench/flood.cpp).
#
#   tools/bench/flood.sh [seconds]      (default 20 s of client requests per scenario)
#
# Scenarios, each on a fresh service with its own data directory:
#   no flood                     the client alone, for comparison;
#   flood, default limits        --max-connections 10000, 10% reserve, 8 per address when busy;
#   flood, no reserve            --connection-reserve-percent 0: the flood takes every slot and
#                                each new client connection takes an idle one's;
#   flood, BEFORE_BIN            only when BEFORE_BIN names another netherscope binary (an
#                                older build), with its default limits.
# Everything listens on 127.0.0.1 (the flood binds 127.0.1.1-127.0.1.100) and is stopped by
# PID at the end. Prints a Markdown table for docs/BENCHMARKS.md, and the raw JSON lines.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-20}
sources=${FLOOD_SOURCES:-100}
per_source=${FLOOD_PER_SOURCE:-100}

# Each held connection is a descriptor, in the flood tool and in the service: both need more
# than the usual 1024. The service keeps its connections within half its limit (the rest is
# for its fetches), so it needs twice the flood.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ]; then ulimit -n "$hard"; fi
need=$((2 * sources * per_source))
if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ]; then
  echo "flood: the open-files hard limit ($hard) is below $need; the service will hold fewer" \
       "than $((sources * per_source)) connections" >&2
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j2 --target netherscope bench_flood >/dev/null

source tools/bench/lib.sh

# Runs one scenario: name, binary, flood sources, then extra service flags. Prints the JSON.
scenario() {
  local name=$1 bin=$2 n=$3; shift 3
  "$bin" --port 0 --data-dir "$work/data-$name" --access-log=false "$@" >"$work/$name.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  local port
  port=$(port_of "$work/$name.log")
  build/tools/bench/bench_flood --port "$port" --sources "$n" --per-source "$per_source" \
    --seconds "$secs" --interval-ms 5
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

{
  echo "none $(scenario none build/netherscope 0)"
  echo "defaults $(scenario defaults build/netherscope "$sources")"
  echo "no-reserve $(scenario noreserve build/netherscope "$sources" --connection-reserve-percent 0)"
  if [ -n "${BEFORE_BIN:-}" ]; then
    echo "before $(scenario before "$BEFORE_BIN" "$sources")"
  fi
} >"$work/results.txt"

python3 - "$work/results.txt" "$secs" "$sources" "$per_source" <<'PY'
import json, sys
path, secs, sources, per_source = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
names = {
    "none": "no flood",
    "defaults": "flood, default limits",
    "no-reserve": "flood, `--connection-reserve-percent 0`",
    "before": "flood, BEFORE_BIN (defaults)",
}
print(f"| scenario ({sources} × {per_source} idle connections, client every 5 ms for {secs} s) "
      "| flood held | flood refused (503) / closed without a word | keep-alive p50 / p99 / max | "
      "failed | new connection p50 / p99 / max | failed |")
print("|---|---|---|---|---|---|---|")
raw = []
for line in open(path):
    name, _, text = line.partition(" ")
    r = json.loads(text)
    raw.append(line.strip())
    f0, f1, k, n = r["flood_settled"], r["flood_end"], r["keep_alive"], r["new_connection"]
    ms = lambda s: (f"{s['p50_ms']:.2f} / {s['p99_ms']:.2f} / {s['max_ms']:.1f} ms"
                    if s["ok"] else "no answer")
    held = "-" if f0["attempted"] == 0 else f"{f0['held']} of {f0['attempted']}"
    fate = "-" if f0["attempted"] == 0 else f"{f1['refused_503']} / {f1['closed_silently']}"
    fail = lambda s: f"{s['failed'] + s['non_200']} of {s['requests']}"  # errors and 503s
    print(f"| {names.get(name, name)} | {held} | {fate} | {ms(k)} | {fail(k)} | {ms(n)} | {fail(n)} |")
print()
print("Raw results:")
print()
for line in raw:
    print("    " + line)
PY
