#!/usr/bin/env bash
# Join time and CPU per join on loopback (docs/BENCHMARKS.md "Joins"): the service on its
# embedded defaults with --allow-loopback, a libwebrtc answerer (tools/webrtc_target) speaking
# the Bedrock prelude, N joins one after another (each POST /api/join's totalMs and its stage
# timings), then 50 joins at once. CPU per join is the service's and its join workers' CPU
# over the sequential run (the workers are the service's children, so their time shows in its
# cutime and cstime once reaped), divided by N.
#
#   tools/bench/join.sh [N]        (N joins in a row, default 200)
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/bench/lib.sh
count=${1:-200}
concurrent=50

[ -x build/netherscope ] && [ -x build/netherscope-join ] \
  || { echo "build first: cmake --build build --target netherscope netherscope-join" >&2; exit 1; }

node tools/webrtc_target/target.js --stack libwebrtc --port 0 >"$work/target.log" 2>&1 &
pids+=($!)
target_port=$(port_of "$work/target.log")
# A join per player counts as an offer call; the bench needs more than the anonymous month's.
build/netherscope --port 0 --data-dir "$work/data" --allow-loopback \
  --limit-offer-ip 1000000 --limit-info-ip 1000000 --offers-per-target-per-minute 10000 \
  --join-concurrency 64 >"$work/service.log" 2>&1 &
service_pid=$!
pids+=("$service_pid")
service_port=$(port_of "$work/service.log")

ticks=$(getconf CLK_TCK)
cpu_of() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }

python3 - "$service_port" "$target_port" "$count" "$concurrent" "$service_pid" "$ticks" <<'PY'
import json, statistics, sys, threading, time, http.client

service_port, target_port, count, concurrent, pid, ticks = map(int, sys.argv[1:])
body = json.dumps({"host": "127.0.0.1", "port": target_port, "tls": False})

def cpu():
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / ticks

def join():
    c = http.client.HTTPConnection("127.0.0.1", service_port, timeout=60)
    c.request("POST", "/api/join", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data)

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]

join()  # warm: the answerer's first connection, the service's probe and identity
start_cpu, start = cpu(), time.monotonic()
replies = [join() for _ in range(count)]
wall = time.monotonic() - start
time.sleep(0.5)  # the last worker reaped
used = cpu() - start_cpu
joined = [b for s, b in replies if s == 200 and b.get("joined")]
stages = ["signallingMs", "iceMs", "dtlsMs", "sctpMs", "channelsMs", "gameMs", "totalMs"]
print(f"sequential: {len(joined)} of {count} joined in {wall:.1f} s")
for st in stages:
    v = [b["timings"][st] for b in joined if b["timings"].get(st) is not None]
    if v:
        print(f"  {st:13s} p50 {pct(v, 50):7.2f} ms  p99 {pct(v, 99):7.2f} ms")
print(f"  CPU per join (service and workers): {1000 * used / count:.2f} ms")

results = []
lock = threading.Lock()
def one():
    r = join()
    with lock:
        results.append(r)
threads = [threading.Thread(target=one) for _ in range(concurrent)]
start = time.monotonic()
for t in threads: t.start()
for t in threads: t.join()
wall = time.monotonic() - start
ok = [b for s, b in results if s == 200 and b.get("joined")]
totals = [b["timings"]["totalMs"] for b in ok]
other = sorted({(s, b.get("outcome", b.get("error", {}).get("code") if isinstance(b.get("error"), dict) else b.get("error"))) for s, b in results if not (s == 200 and b.get("joined"))})
print(f"{concurrent} at once: {len(ok)} of {concurrent} joined in {wall:.2f} s"
      + (f", p50 {pct(totals, 50):.1f} ms, p99 {pct(totals, 99):.1f} ms" if totals else "")
      + (f"; others: {other}" if other else ""))
PY
