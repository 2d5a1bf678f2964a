#!/usr/bin/env bash
# Join time and CPU per join on loopback (docs/BENCHMARKS.md "Joins"): the service on its
# embedded defaults with --allow-loopback, a libwebrtc answerer (tools/webrtc_target) speaking
# the Bedrock prelude, N joins one after another (each POST /api/join's totalMs and its stage
# timings), then 50 joins at once, to 50 signalling ports of one answerer process (each a server
# of its own to the per-target offer limit, which lets two offers at most be in flight to one
# server). CPU per join is the service's and its join workers' CPU
# over the sequential run (the workers are the service's children: their time shows in its
# cutime and cstime once reaped, and in their own /proc/PID/stat while they wait in its pool),
# divided by N.
#
#   tools/bench/join.sh [N]        (N joins in a row, default 200)
#
# JOIN_BENCH_STACK=werift runs the answerer on werift instead, JOIN_BENCH_STACK=fake on
# tools/fake_target (a BDS-like server written apart from the join, 50 ports in one process,
# answering at once: the join's own time shows alone); JOIN_BENCH_WORKER names another
# worker executable (a wrapper that profiles it); JOIN_BENCH_DEBUG=1 prints each join of the
# concurrent run that did not join.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tools/bench/lib.sh
count=${1:-200}
concurrent=50

[ -x build/netherscope ] && [ -x build/netherscope-join ] \
  || { echo "build first: cmake --build build --target netherscope netherscope-join" >&2; exit 1; }

stack=${JOIN_BENCH_STACK:-libwebrtc}
if [ "$stack" = fake ]; then
  [ -x build/tools/fake_target/fake_target ] || { echo "build first: cmake --build build --target fake_target" >&2; exit 1; }
  base=$(free_port)
  build/tools/fake_target/fake_target --port "$base" --port-count "$concurrent" >"$work/target.log" 2>&1 &
  pids+=($!)
  target_port=$(port_of "$work/target.log")
  target_ports=$(seq -s, "$target_port" $((target_port + concurrent - 1)))
else
  node tools/webrtc_target/target.js --stack "$stack" --port 0 --extra-ports $((concurrent - 1)) \
    --max-sessions 256 >"$work/target.log" 2>&1 &
  pids+=($!)
  target_port=$(port_of "$work/target.log")
  target_ports=$(grep -m1 '"listening"' "$work/target.log" | sed -E 's/.*"ports":\[([0-9,]+)\].*/\1/')
fi
# A join per player counts as an offer call; the bench needs more than the anonymous month's.
build/netherscope --port 0 --data-dir "$work/data" --allow-loopback \
  --limit-offer-ip 1000000 --limit-info-ip 1000000 --offers-per-target-per-minute 10000 \
  --join-concurrency 64 ${JOIN_BENCH_WORKER:+--join-worker "$JOIN_BENCH_WORKER"} >"$work/service.log" 2>&1 &
service_pid=$!
pids+=("$service_pid")
service_port=$(port_of "$work/service.log")

ticks=$(getconf CLK_TCK)
cpu_of() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }

python3 - "$service_port" "$target_port" "$count" "$concurrent" "$service_pid" "$ticks" "$target_ports" "$stack" <<'PY'
import json, os, sys, threading, time, http.client

service_port, target_port, count, concurrent, pid, ticks = map(int, sys.argv[1:7])
ports = [int(p) for p in sys.argv[7].split(",")]
stack = sys.argv[8]

def body_for(port):
    return json.dumps({"host": "127.0.0.1", "port": port, "tls": False})

def stat_fields(p):
    with open(f"/proc/{p}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()

def cpu():
    """The service's own CPU, and its workers' (reaped, and those still in its pool), in
    seconds."""
    fields = stat_fields(pid)
    workers = int(fields[13]) + int(fields[14])
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            f = stat_fields(entry)
        except OSError:
            continue
        if int(f[1]) == pid:
            workers += int(f[11]) + int(f[12])
    return (int(fields[11]) + int(fields[12])) / ticks, workers / ticks

def join(port=target_port):
    c = http.client.HTTPConnection("127.0.0.1", service_port, timeout=60)
    c.request("POST", "/api/join", body_for(port), {"Content-Type": "application/json"})
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
end_cpu = cpu()
own, workers = end_cpu[0] - start_cpu[0], end_cpu[1] - start_cpu[1]
joined = [b for s, b in replies if s == 200 and b.get("joined")]
stages = ["signallingMs", "iceMs", "dtlsMs", "sctpMs", "channelsMs", "gameMs", "totalMs"]
others = sorted({b.get("outcome", "error") for s, b in replies if not (s == 200 and b.get("joined"))})
print(f"sequential: {len(joined)} of {count} joined in {wall:.1f} s" + (f"; others: {others}" if others else ""))
for st in stages:
    v = [b["timings"][st] for b in joined if b["timings"].get(st) is not None]
    if v:
        print(f"  {st:13s} p50 {pct(v, 50):7.2f} ms  p99 {pct(v, 99):7.2f} ms")
after = [b["timings"]["totalMs"] - b["timings"]["signallingMs"] for b in joined]
if after:
    print(f"  after the answer p50 {pct(after, 50):7.2f} ms  p99 {pct(after, 99):7.2f} ms")
if stack != "fake":
    # What the answerer itself took from the offer to its answer (its gathering): the part of
    # signalling no client can shorten.
    c = http.client.HTTPConnection("127.0.0.1", target_port, timeout=10)
    c.request("GET", "/_target/stats")
    answerer = json.loads(c.getresponse().read()).get("answer_ms", [])[-count:]
    c.close()
    if answerer:
        print(f"  the answerer's own answer time p50 {pct(answerer, 50):7.2f} ms  p99 {pct(answerer, 99):7.2f} ms")
print(f"  CPU per join: {1000 * (own + workers) / count:.2f} ms "
      f"(service {1000 * own / count:.2f} ms, worker {1000 * workers / count:.2f} ms)")

def target_requests():
    c = http.client.HTTPConnection("127.0.0.1", target_port, timeout=10)
    if stack == "fake":
        c.request("GET", "/_fake/stats")
        stats = json.loads(c.getresponse().read())
        c.close()
        return stats.get("game_requests", 0), stats.get("dtls_established", 0), stats.get("dtls_failures", 0)
    c.request("GET", "/_target/stats")
    stats = json.loads(c.getresponse().read())
    c.close()
    return len(stats["requests"]), stats.get("replies", 0), stats.get("send_failures", 0)
results = []
lock = threading.Lock()
def one(port):
    r = join(port)
    with lock:
        results.append(r)
seen_before = target_requests()
threads = [threading.Thread(target=one, args=(p,)) for p in ports[:concurrent]]
start = time.monotonic()
for t in threads: t.start()
for t in threads: t.join()
wall = time.monotonic() - start
ok = [b for s, b in results if s == 200 and b.get("joined")]
for s, b in results:
    if s == 200 and not b.get("joined") and "JOIN_BENCH_DEBUG" in __import__("os").environ:
        print(json.dumps({k: b.get(k) for k in ("outcome", "detail", "timings", "channels")}))
totals = [b["timings"]["totalMs"] for b in ok]
other = sorted({(s, b.get("outcome", b.get("error", {}).get("code") if isinstance(b.get("error"), dict) else b.get("error"))) for s, b in results if not (s == 200 and b.get("joined"))})
print(f"{concurrent} at once: {len(ok)} of {concurrent} joined in {wall:.2f} s"
      + (f", p50 {pct(totals, 50):.1f} ms, p99 {pct(totals, 99):.1f} ms" if totals else "")
      + (f"; others: {other}" if other else "")
      + ("; the fake read {} RequestNetworkSettings, finished {} handshakes, failed {}"
         if stack == "fake" else
         "; the answerer read {} RequestNetworkSettings, sent {} answers, failed {}").format(
          *(a - b for a, b in zip(target_requests(), seen_before))))
# A smoke run fails on a join that did not join one after another; figures are never judged.
sys.exit(0 if len(joined) == count else 1)
PY
