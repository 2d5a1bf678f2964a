#!/usr/bin/env bash
# Benchmarks netherscope against nginx on this machine, in one run, as ratios.
#
#   tools/bench/run.sh [seconds]       (default 10 s per measurement)
#
# Everything listens on 127.0.0.1 and is stopped by PID at the end. Needs the bench packages:
# WITH_BENCH=1 tools/setup.sh (wrk, nginx-light). Prints a Markdown table for
# docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-10}
WITH_BENCH=1 tools/setup.sh >/dev/null
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target netherscope fake_target bench_single_flight >/dev/null

source tools/bench/lib.sh

# wrk's "Requests/sec", average latency, non-2xx count and 99th percentile latency.
measure() { wrk_summary "$secs" "$@"; }

build/tools/fake_target/fake_target >"$work/target.log" 2>&1 &
pids+=($!)
target_port=$(port_of "$work/target.log")

# Starts the service in this shell (not a subshell), so its PID is recorded for cleanup.
start_service() {
  local name=$1; shift
  build/netherscope --port 0 --data-dir "$work/data-$name" --allow-loopback --access-log=false \
    --limit-offer-ip 4000000000 --limit-info-ip 4000000000 --max-connections-per-ip 5000 \
    "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}

start_service main
start_service nosync --store-sync=false
svc_port=$(port_of "$work/main.log")
nosync_port=$(port_of "$work/nosync.log")

# The same service on Redis (issue: replicas): a charge is acknowledged by Redis, which keeps
# it in memory (--save '' --appendonly no, as the tests run it).
start_redis
start_service onredis --store "redis://127.0.0.1:$redis_port"
redis_svc_port=$(port_of "$work/onredis.log")
# And on Redis under Sentinel with one replica: each charge waits for the replica's
# acknowledgement (the default --store-min-replicas 1 under Sentinel).
start_sentinel_redis
start_service onsentinel --store "$sentinel_url"
sentinel_svc_port=$(port_of "$work/onsentinel.log")

# Warm the cache so every measured offer is a cache hit.
body="{\"host\":\"127.0.0.1\",\"port\":$target_port}"
curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" \
  "http://127.0.0.1:$svc_port/api/offer" -o "$work/offer.json"
curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" \
  "http://127.0.0.1:$nosync_port/api/offer" -o /dev/null
curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" \
  "http://127.0.0.1:$redis_svc_port/api/offer" -o /dev/null
curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" \
  "http://127.0.0.1:$sentinel_svc_port/api/offer" -o /dev/null

# nginx serves a static file the size of a cached offer reply.
mkdir -p "$work/www"
cp "$work/offer.json" "$work/www/offer.json"
nginx_port=$(free_port)
sed -e "s|@DIR@|$work|g" -e "s|@PORT@|$nginx_port|g" tools/bench/nginx.conf.in >"$work/nginx.conf"
nginx -c "$work/nginx.conf" -p "$work" &
pids+=($!)
sleep 0.5

read -r nginx_rps nginx_lat _ nginx_p99 < <(measure "http://127.0.0.1:$nginx_port/offer.json")
read -r offer_rps offer_lat offer_bad offer_p99 < <(TARGET_PORT=$target_port measure -s tools/bench/offer.lua "http://127.0.0.1:$svc_port/api/offer")
read -r nosync_rps nosync_lat nosync_bad nosync_p99 < <(TARGET_PORT=$target_port measure -s tools/bench/offer.lua "http://127.0.0.1:$nosync_port/api/offer")
read -r redis_rps redis_lat redis_bad redis_p99 < <(TARGET_PORT=$target_port measure -s tools/bench/offer.lua "http://127.0.0.1:$redis_svc_port/api/offer")
read -r sentinel_rps sentinel_lat sentinel_bad sentinel_p99 < <(TARGET_PORT=$target_port measure -s tools/bench/offer.lua "http://127.0.0.1:$sentinel_svc_port/api/offer")
read -r health_rps health_lat _ health_p99 < <(measure "http://127.0.0.1:$svc_port/healthz")
# An info call with invalid input: counted (a durable charge), no upstream work.
read -r charge_rps charge_lat charge_non2xx charge_p99 < <(measure "http://127.0.0.1:$svc_port/api/info?host=")

# One connection: the latency a durable charge adds to a call (the actor hops and a commit).
health_c1=$(wrk -t1 -c1 -d"${secs}s" "http://127.0.0.1:$svc_port/healthz" | awk '/^    Latency/ {print $2}')
charge_c1=$(wrk -t1 -c1 -d"${secs}s" "http://127.0.0.1:$svc_port/api/info?host=" | awk '/^    Latency/ {print $2}')
nosync_c1=$(wrk -t1 -c1 -d"${secs}s" "http://127.0.0.1:$nosync_port/api/info?host=" | awk '/^    Latency/ {print $2}')

upstream=$(curl -fsS "http://127.0.0.1:$target_port/_fake/stats" | sed -E 's/.*"offers":([0-9]+).*/\1/')
sf=$(build/tools/bench/bench_single_flight "$svc_port" "$target_port" 1000) || true

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f%%", 100 * a / b }'; }

cat <<TABLE
| measurement (wrk -t2 -c64, ${secs} s, loopback, one 2-core machine) | requests/s | avg latency | p99 | vs nginx |
|---|---|---|---|---|
| nginx, static file of a cached offer's size | $nginx_rps | $nginx_lat | $nginx_p99 | 100% |
| cached POST /api/offer + durable charge (fsync per group commit) | $offer_rps | $offer_lat | $offer_p99 | $(ratio "$offer_rps" "$nginx_rps") |
| cached POST /api/offer + charge, --store-sync=false | $nosync_rps | $nosync_lat | $nosync_p99 | $(ratio "$nosync_rps" "$nginx_rps") |
| cached POST /api/offer + charge on Redis (--store redis://, acknowledged by Redis) | $redis_rps | $redis_lat | $redis_p99 | $(ratio "$redis_rps" "$nginx_rps") |
| cached POST /api/offer + charge on Redis under Sentinel (acknowledged by a replica, --store-min-replicas 1) | $sentinel_rps | $sentinel_lat | $sentinel_p99 | $(ratio "$sentinel_rps" "$nginx_rps") |
| GET /healthz (no actors, no charge) | $health_rps | $health_lat | $health_p99 | $(ratio "$health_rps" "$nginx_rps") |
| GET /api/info invalid input (a charge and a 400, no upstream) | $charge_rps | $charge_lat | $charge_p99 | $(ratio "$charge_rps" "$nginx_rps") |

One connection (wrk -t1 -c1), average latency: GET /healthz $health_c1; a charged call
(invalid /api/info, fsync) $charge_c1; the same with --store-sync=false $nosync_c1.

Non-2xx replies in the offer runs: $offer_bad, $nosync_bad, $redis_bad and $sentinel_bad (must
be 0).
Upstream offers the target received across all offer runs: $upstream (the cache answered the
rest).

Single flight: $sf
TABLE

# The table above is the result; a smoke run (tools/test.sh runs `run.sh 1`) also needs every
# measured offer to have succeeded.
if [ "${offer_bad:-0}" != 0 ] || [ "${nosync_bad:-0}" != 0 ] || [ "${redis_bad:-0}" != 0 ] ||
  [ "${sentinel_bad:-0}" != 0 ]; then
  echo "bench: cached offers answered non-2xx ($offer_bad, $nosync_bad, $redis_bad, $sentinel_bad)" >&2
  exit 1
fi
