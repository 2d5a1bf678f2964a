#!/usr/bin/env bash
# Watching many servers on one machine (issue 26): the service checks WATCHES fake servers on
# loopback every PERIOD seconds while a fixed rate of cached POST /api/offer calls measures the
# API's latency (beside nginx at the same rate, the machine's own yardstick); then it reads the
# schedule's lag and the checks counted from /metrics, and the service's peak memory.
#
#   tools/bench/watch_scale.sh [--watches N] [--period S] [--duration S] [--replicas R]
#
# Settings, as options or in the environment (an option wins):
#   WATCHES=10000      watched servers, one watch each
#   PERIOD=300         each watch's period, in seconds (60 or more)
#   DURATION=          seconds measured once every watch is scheduled (default: PERIOD + 60,
#                      so every server is due at least once)
#   REPLICAS=1         1: one service on LMDB; 2 or more: that many services on one
#                      redis-server, which must run each check once per period between them
#   ACCOUNTS=100       accounts the watches are spread over (each holds WATCHES / ACCOUNTS):
#                      making a watch reads all of its account's watches
#   OFFER_RATE=1000    cached offers asked for per second in each load run, open loop
#                      (tools/bench/fixed_rate.cpp), over LOAD_CONNECTIONS=16 connections
#   LOAD_EVERY=60      seconds between the starts of the load runs during the measurement
#   LOAD_SECONDS=10    length of each load run; nginx then gets the same load for as long
#   FAKE_BASE_PORT=20000  the fake servers' first port; the run must stay below the kernel's
#                      ephemeral ports (net.ipv4.ip_local_port_range)
#   PORTS_PER_FAKE=2500   ports one fake_target process serves (--port-count)
#   RAKNET=on          the fakes' --raknet: on answers the RakNet ping each check sends, off
#                      leaves it to the kernel's port unreachable
#   FAKE_NICE=19       the fakes' nice value: they stand in for servers on other machines, so
#                      by default they take only the CPU time the service and nginx leave
#   NETHERSCOPE=path   measure this netherscope binary (another checkout's build, say) and
#                      build nothing; FAKE_TARGET=path likewise for the fake (it needs
#                      --port-count), FIXED_RATE=path for the load's driver
#
# Progress goes to stderr with the time since the start; the result is a Markdown table on
# stdout for docs/BENCHMARKS.md ("Watching 10,000 servers"). Everything listens on 127.0.0.1
# and every process started is ended by PID at the end. The exit status is 1 when a watch
# could not be made, a measured offer got a non-2xx, or /metrics had no watch checks.
set -euo pipefail
cd "$(dirname "$0")/../.."

watches=${WATCHES:-10000}
period=${PERIOD:-300}
duration=${DURATION:-}
replicas=${REPLICAS:-1}
accounts=${ACCOUNTS:-100}
offer_rate=${OFFER_RATE:-1000}
load_connections=${LOAD_CONNECTIONS:-16}
load_every=${LOAD_EVERY:-60}
load_seconds=${LOAD_SECONDS:-10}
fake_base=${FAKE_BASE_PORT:-20000}
per_fake=${PORTS_PER_FAKE:-2500}
raknet=${RAKNET:-on}
fake_nice=${FAKE_NICE:-19}

usage() { sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case $1 in
    --watches) watches=${2:?}; shift 2 ;;
    --period) period=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --replicas) replicas=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "watch_scale: unknown argument '$1'" >&2; usage ;;
  esac
done
duration=${duration:-$((period + 60))}
for name in watches period duration replicas accounts offer_rate load_connections load_every \
  load_seconds fake_base per_fake; do
  value=${!name}
  if ! [[ $value =~ ^[1-9][0-9]*$ ]]; then
    echo "watch_scale: $name must be a positive whole number, not '$value'" >&2; exit 2
  fi
done
[ "$period" -ge 60 ] || { echo "watch_scale: the period must be 60 s or more" >&2; exit 2; }
[[ $fake_nice =~ ^(1?[0-9])$ ]] || { echo "watch_scale: FAKE_NICE is 0 to 19" >&2; exit 2; }
[ "$raknet" = on ] || [ "$raknet" = off ] || { echo "watch_scale: RAKNET is on or off" >&2; exit 2; }
[ "$accounts" -le "$watches" ] || accounts=$watches
per_account=$(((watches + accounts - 1) / accounts))
last_port=$((fake_base + watches - 1))
read -r ephemeral_low ephemeral_high </proc/sys/net/ipv4/ip_local_port_range
if [ "$last_port" -gt 65535 ] || { [ "$last_port" -ge "$ephemeral_low" ] && [ "$fake_base" -le "$ephemeral_high" ]; }; then
  echo "watch_scale: ports $fake_base-$last_port must end below the ephemeral ports" \
       "($ephemeral_low-$ephemeral_high); set FAKE_BASE_PORT" >&2
  exit 2
fi

start_time=$EPOCHREALTIME
phase() { awk -v now="$EPOCHREALTIME" -v t0="$start_time" -v text="$*" 'BEGIN { printf "[%7.1f s] %s\n", now - t0, text }' >&2; }

bin=${NETHERSCOPE:-build/netherscope}
fake=${FAKE_TARGET:-build/tools/fake_target/fake_target}
fixed_rate=${FIXED_RATE:-build/tools/bench/bench_fixed_rate}
if [ -z "${NETHERSCOPE:-}" ]; then
  phase "building netherscope, fake_target and bench_fixed_rate"
  WITH_BENCH=1 tools/setup.sh >/dev/null
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build -j"$(nproc)" --target netherscope fake_target bench_fixed_rate >/dev/null
fi
for program in "$bin" "$fake" "$fixed_rate"; do
  [ -x "$program" ] || { echo "watch_scale: no $program: build first" >&2; exit 1; }
done

source tools/bench/lib.sh

# The service is not given more descriptors than this shell has.
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ]; then ulimit -n "$hard"; fi

fakes=$(((watches + per_fake - 1) / per_fake))
phase "starting $fakes fake_target processes for ports $fake_base-$last_port (--raknet $raknet, nice $fake_nice)"
fake_ports=()
fake_pids=()
for i in $(seq 0 $((fakes - 1))); do
  first=$((fake_base + i * per_fake))
  count=$((last_port - first + 1 < per_fake ? last_port - first + 1 : per_fake))
  nice -n "$fake_nice" "$fake" --port "$first" --port-count "$count" --raknet "$raknet" \
    >"$work/fake$i.log" 2>&1 &
  pids+=($!)
  fake_pids+=($!)
  fake_ports+=("$first")
done
for i in $(seq 0 $((fakes - 1))); do
  port_of "$work/fake$i.log" >/dev/null || { cat "$work/fake$i.log" >&2; exit 1; }
done
# The cached offer the load asks for is another server's, watched by nobody.
"$fake" >"$work/offer-target.log" 2>&1 &
pids+=($!)
offer_target=$(port_of "$work/offer-target.log")

# On LMDB the accounts go into the one service's data folder before it starts; on Redis into
# the store the replicas share.
store=()
admin_store=(--data-dir "$work/data-r1")
if [ "$replicas" -gt 1 ]; then
  start_redis
  store=(--store "redis://127.0.0.1:$redis_port")
  admin_store=("${store[@]}")
  phase "redis-server on port $redis_port for $replicas replicas"
fi

phase "making $accounts accounts and their keys"
for r in $(seq 1 "$replicas"); do mkdir -p "$work/data-r$r"; done
for i in $(seq 1 "$accounts"); do
  "$bin" admin "${admin_store[@]}" create-account --login "bench$i" 2>>"$work/admin.log" \
    || { cat "$work/admin.log" >&2; exit 1; }
done >"$work/keys.txt"

names=()
svc_pids=()
svc_ports=()
for r in $(seq 1 "$replicas"); do
  "$bin" --port 0 --data-dir "$work/data-r$r" "${store[@]}" --allow-loopback \
    --access-log=false --limit-offer-ip 4000000000 --limit-info-ip 4000000000 \
    --max-connections-per-ip 5000 --watch-min-period 60 --watch-max-per-account "$per_account" \
    >"$work/r$r.log" 2>&1 &
  pids+=($!)
  names+=("r$r")
  svc_pids+=($!)
done
for r in $(seq 1 "$replicas"); do svc_ports+=("$(port_of "$work/r$r.log")"); done
phase "services listening on ${svc_ports[*]}"
svc=${svc_ports[0]}

# A cached offer: every measured request is a cache hit (the cache keeps an offer 120 s, so
# each run warms it again first).
offer_body="{\"host\":\"127.0.0.1\",\"port\":$offer_target}"
warm() {
  curl -fsS -X POST -H 'Content-Type: application/json' -d "$offer_body" \
    "http://127.0.0.1:$svc/api/offer" -o "$1"
}

# nginx serves a file of the cached offer reply's size at the same rate right after each run:
# its latency is what the machine itself gives at that moment, with the same neighbours.
mkdir -p "$work/www"
warm "$work/www/offer.json"
nginx_port=$(free_port)
sed -e "s|@DIR@|$work|g" -e "s|@PORT@|$nginx_port|g" tools/bench/nginx.conf.in >"$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" &
pids+=($!)
sleep 0.5

# One load run on the service, then the same on nginx, as one JSON line named after $1.
offer_load() {
  warm /dev/null
  local service nginx
  service=$("$fixed_rate" "$svc" "$offer_rate" "$load_seconds" "$load_connections" /api/offer \
    "$offer_body") || true
  nginx=$("$fixed_rate" "$nginx_port" "$offer_rate" "$load_seconds" "$load_connections" \
    /offer.json) || true
  printf '{"when":"%s","service":%s,"nginx":%s}\n' "$1" "${service:-null}" "${nginx:-null}"
}
p99s() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print("service p99 %s ms, nginx p99 %s ms, non-2xx %s" % (r["service"]["p99_ms"], r["nginx"]["p99_ms"], r["service"]["non2xx"]))' "$1"; }
phase "cached offers before any watch ($offer_rate/s for $load_seconds s, then nginx)"
result=$(offer_load before)
echo "$result" >"$work/load.jsonl"
phase "before: $(p99s "$result")"

phase "creating $watches watches every $period s ($per_account per account)"
python3 tools/bench/make_watches.py "$svc" "$work/keys.txt" "$fake_base" "$watches" "$period" \
  >"$work/created.json" || { cat "$work/created.json" >&2; exit 1; }
phase "created: $(cat "$work/created.json")"

# Each scheduler reads the watches again within 10 s (docs/WATCHES.md, "Checks and the
# schedule"); the counting starts once every watch is on the schedule.
phase "waiting 15 s for the schedule to hold every watch"
sleep 15

# Reads every service's /metrics and every fake's stats into files named after $1.
snapshot() {
  for r in $(seq 1 "$replicas"); do
    curl -fsS "http://127.0.0.1:${svc_ports[$((r - 1))]}/metrics" >"$work/metrics-r$r-$1.txt"
  done
  for i in $(seq 0 $((fakes - 1))); do
    curl -fsS "http://127.0.0.1:${fake_ports[$i]}/_fake/stats" >"$work/fake$i-$1.json"
  done
  date +%s.%N >"$work/time-$1.txt"
  # CPU seconds used so far (user and system, fields 14 and 15 of /proc/PID/stat, in ticks, and
# those of the children it has waited for, 16 and 17, and of its live children: a service's
# join workers, reaped or waiting in its pool).
  for r in $(seq 1 "$replicas"); do cpu_of "r$r" "${svc_pids[$((r - 1))]}"; done >"$work/cpu-$1.txt"
  for i in $(seq 0 $((fakes - 1))); do cpu_of "fake$i" "${fake_pids[$i]}"; done >>"$work/cpu-$1.txt"
}
ticks=$(getconf CLK_TCK)
cpu_of() {
  local files=("/proc/$2/stat")
  for child in $(pgrep -P "$2" || true); do files+=("/proc/$child/stat"); done
  awk -v name="$1" -v hz="$ticks" -v self="/proc/$2/stat" \
    '{ t += $14 + $15; if (FILENAME == self) t += $16 + $17 } END { printf "%s %.2f\n", name, t / hz }' \
    "${files[@]}" 2>/dev/null
}

snapshot start
end=$(($(date +%s) + duration))
phase "measuring for $duration s: RSS every 2 s, a load run every $load_every s"
(
  for _ in $(seq 1 $((duration / 2 + 2))); do
    [ "$(date +%s)" -lt "$end" ] || break
    for r in $(seq 1 "$replicas"); do echo "r$r $(kib "${svc_pids[$((r - 1))]}" VmRSS)"; done
    sleep 2
  done
) >"$work/rss.txt" &
sampler=$!
pids+=("$sampler")

next_load=$(($(date +%s) + 5))
round=0
for _ in $(seq 1 $((duration + 10))); do
  now=$(date +%s)
  [ "$now" -lt "$end" ] || break
  if [ "$now" -ge "$next_load" ] && [ $((now + 2 * load_seconds)) -le "$end" ]; then
    round=$((round + 1))
    result=$(offer_load during)
    echo "$result" >>"$work/load.jsonl"
    phase "load run $round: $(p99s "$result")"
    next_load=$((next_load + load_every))
  else
    sleep 1
  fi
done
snapshot end
wait "$sampler"
for r in $(seq 1 "$replicas"); do echo "r$r $(kib "${svc_pids[$((r - 1))]}" VmHWM)"; done >"$work/hwm.txt"
printf '{"watches":%s,"period":%s,"replicas":%s,"accounts":%s,"fakes":%s,"raknet":"%s","fake_nice":%s,' \
  "$watches" "$period" "$replicas" "$accounts" "$fakes" "$raknet" "$fake_nice" >"$work/settings.json"
printf '"offer_rate":%s,"load_connections":%s,"load_seconds":%s,"load_every":%s}\n' \
  "$offer_rate" "$load_connections" "$load_seconds" "$load_every" >>"$work/settings.json"
phase "measured; the table follows"

python3 tools/bench/watch_report.py "$work"
