#!/usr/bin/env bash
# A netherscope cluster on this machine: redis-server, three replicas on one Redis store, and
# HAProxy in front passing the client's address (X-Forwarded-For), which the replicas trust
# only from the proxy. Plain processes on 127.0.0.1, as deploy/compose.yaml runs containers.
#
#   tools/cluster.sh up      start it; prints the proxy's URL; state in $CLUSTER_DIR
#   tools/cluster.sh down    end exactly the processes `up` started (by their PIDs)
#   tools/cluster.sh smoke   up, check one quota, one offer cache and one set of keys across
#                            the replicas
#                            through the proxy, then down; exits non-zero on any failure
#   tools/cluster.sh rolling up, then restart the replicas one at a time (SIGTERM, wait for
#                            the exit, start again on the same port) under a steady load of
#                            calls through the proxy, then down; exits non-zero unless every
#                            call was answered 200
#
# CLUSTER_DIR (default build/cluster) holds the logs, data dirs and PIDs. REPLICA_ARGS adds
# options to every replica (smoke sets a small quota and --allow-loopback for its fake target).
# Needs a built service (cmake --build build) and Debian's redis-server and haproxy
# (WITH_TESTS=1 tools/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${CLUSTER_DIR:-build/cluster}
replicas=3

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits up to 10 s for an HTTP 200 from a URL.
wait_ok() {
  for _ in $(seq 1 100); do
    curl -fsS -o /dev/null --max-time 1 "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "cluster: $1 did not answer 200 within 10 s" >&2
  return 1
}

# Starts a command in the background, its output in a log, and records its PID (also in
# $dir/NAME.pid).
start() {
  local name=$1
  shift
  "$@" >>"$dir/$name.log" 2>&1 &
  echo "$!" >>"$dir/pids"
  echo "$!" >"$dir/$name.pid"
}

# Starts replica i on its port (chosen on its first start, kept after).
start_replica() {
  local i=$1 port
  if [ -f "$dir/replica$i.port" ]; then
    port=$(cat "$dir/replica$i.port")
  else
    port=$(free_port)
    echo "$port" >"$dir/replica$i.port"
  fi
  mkdir -p "$dir/replica$i"
  # shellcheck disable=SC2086 # REPLICA_ARGS is a list of options
  start "replica$i" build/netherscope --listen 127.0.0.1 --port "$port" \
    --data-dir "$dir/replica$i" --store "redis://127.0.0.1:$(cat "$dir/redis.port")" \
    --trusted-proxy 127.0.0.1/32 ${REPLICA_ARGS:-}
  wait_ok "http://127.0.0.1:$port/readyz"
}

up() {
  [ -x build/netherscope ] || { echo "cluster: build the service first (cmake --build build)" >&2; exit 1; }
  if [ -s "$dir/pids" ]; then
    echo "cluster: $dir/pids exists; run tools/cluster.sh down first" >&2
    exit 1
  fi
  mkdir -p "$dir"
  : >"$dir/pids"
  local redis_port proxy_port
  redis_port=$(free_port)
  echo "$redis_port" >"$dir/redis.port"
  start redis redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no
  for _ in $(seq 1 100); do
    redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  local servers=""
  for i in $(seq 1 "$replicas"); do
    start_replica "$i"
    # Down after 2 failed checks a second apart: within the replicas' drain period (5 s).
    servers+="  server replica$i 127.0.0.1:$(cat "$dir/replica$i.port") check inter 1s fall 2 rise 2"$'\n'
  done
  proxy_port=$(free_port)
  cat >"$dir/haproxy.cfg" <<EOF
# Written by tools/cluster.sh: the proxy of deploy/haproxy.cfg, on loopback.
global
  maxconn 2000
defaults
  mode http
  timeout connect 5s
  timeout client 35s
  timeout server 35s
frontend api
  bind 127.0.0.1:$proxy_port
  # Only this proxy's X-Forwarded-For may be believed: drop the client's, add the address.
  http-request del-header X-Forwarded-For
  option forwardfor
  default_backend netherscope
backend netherscope
  balance roundrobin
  option httpchk GET /readyz
$servers
EOF
  start haproxy haproxy -db -f "$dir/haproxy.cfg"
  echo "$proxy_port" >"$dir/proxy.port"
  wait_ok "http://127.0.0.1:$proxy_port/readyz"
  echo "cluster: http://127.0.0.1:$proxy_port (redis 127.0.0.1:$redis_port, $replicas replicas;" \
    "PIDs in $dir/pids)"
}

down() {
  [ -f "$dir/pids" ] || return 0
  local pids
  pids=$(cat "$dir/pids")
  # shellcheck disable=SC2086 # one PID per word
  [ -n "$pids" ] && kill $pids 2>/dev/null || true
  for pid in $pids; do
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  done
  rm -f "$dir/pids"
}

fail() {
  echo "cluster smoke: FAILED: $*" >&2
  for log in "$dir"/*.log; do
    echo "--- $log (last lines)" >&2
    tail -5 "$log" >&2
  done
  exit 1
}

# One info call through the proxy from a loopback source address; prints "status remaining".
info_call() {
  local source=$1
  curl -sS --max-time 10 --interface "$source" -o /dev/null -D - \
    "http://127.0.0.1:$proxy/api/info?host=127.0.0.1&port=$target_port" |
    awk 'NR == 1 {status = $2} tolower($1) == "x-ratelimit-remaining:" {r = $2}
         END {gsub("\r", "", r); print status, r}'
}

# The number of answered /api/info calls a replica counts in its /metrics.
info_calls_of() {
  curl -fsS --max-time 5 "http://127.0.0.1:$(cat "$dir/replica$1.port")/metrics" |
    awk '/^netherscope_requests_total\{route="\/api\/info"/ {n += $2} END {print n + 0}'
}

# A fake target and the cluster in a fresh directory that goes, with every process, on exit;
# the replicas take REPLICA_ARGS (kept for replicas started again). Sets target_port and proxy.
up_with_target() {
  dir=$(mktemp -d "${TMPDIR:-/tmp}/netherscope-cluster.XXXXXX")
  trap 'down; rm -rf "$dir"' EXIT
  mkdir -p "$dir"
  : >"$dir/pids"
  start target build/tools/fake_target/fake_target
  for _ in $(seq 1 100); do
    target_port=$(sed -nE 's/.*"port":([0-9]+).*/\1/p;T;q' "$dir/target.log")
    [ -n "$target_port" ] && break
    sleep 0.1
  done
  [ -n "$target_port" ] || fail "the fake target did not start"
  # `up` refuses a non-empty pids file; it appends the rest to the target's PID.
  mv "$dir/pids" "$dir/pids.target"
  up
  cat "$dir/pids.target" >>"$dir/pids"
  proxy=$(cat "$dir/proxy.port")
}

smoke() {
  local limit=5
  REPLICA_ARGS="--allow-loopback --access-log=false --limit-info-ip $limit"
  up_with_target

  # One quota across three replicas: calls spread round robin stop exactly at the limit.
  local ok=0 refused=0 i line status remaining
  for i in $(seq 1 $((limit + 3))); do
    line=$(info_call 127.0.0.1)
    read -r status remaining <<<"$line"
    if [ "$status" = 200 ]; then
      ok=$((ok + 1))
      [ "$remaining" = $((limit - ok)) ] || fail "call $i: remaining $remaining, expected $((limit - ok))"
    elif [ "$status" = 429 ]; then
      refused=$((refused + 1))
    else
      fail "call $i: status $status"
    fi
  done
  [ "$ok" = "$limit" ] && [ "$refused" = 3 ] || fail "$ok answered and $refused refused, expected $limit and 3"
  local answering=0
  for i in $(seq 1 "$replicas"); do
    [ "$(info_calls_of "$i")" -gt 0 ] && answering=$((answering + 1))
  done
  [ "$answering" -ge 2 ] || fail "the calls reached $answering replica(s); the proxy should spread them"
  echo "cluster smoke: $limit calls answered and 3 refused across $answering replicas: one quota"

  # The proxy's X-Forwarded-For is trusted: another client address has a quota of its own.
  read -r status remaining <<<"$(info_call 127.0.0.2)"
  [ "$status" = 200 ] && [ "$remaining" = $((limit - 1)) ] ||
    fail "a second client address got $status with $remaining left, expected 200 with $((limit - 1))"
  echo "cluster smoke: a second client address counts apart"

  # One offer cache: three offers through the proxy, one upstream offer.
  for i in 1 2 3; do
    status=$(curl -sS --max-time 30 --interface 127.0.0.3 -o /dev/null -w '%{http_code}' \
      -X POST -H 'Content-Type: application/json' \
      -d "{\"host\":\"127.0.0.1\",\"port\":$target_port}" "http://127.0.0.1:$proxy/api/offer")
    [ "$status" = 200 ] || fail "offer $i: status $status"
  done
  local offers
  offers=$(curl -fsS --max-time 5 "http://127.0.0.1:$target_port/_fake/stats" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["offers"])')
  [ "$offers" = 1 ] || fail "the target received $offers offers, expected 1"
  echo "cluster smoke: three offers through the proxy, one upstream offer"

  # One set of accounts: a key made with admin on the cluster's Redis works through every
  # replica, and its key quota is one across them.
  local key store="redis://127.0.0.1:$(cat "$dir/redis.port")"
  key=$(build/netherscope admin --data-dir "$dir/admin" --store "$store" create-account \
    --login cluster-smoke 2>/dev/null)
  [ -n "$key" ] || fail "admin create-account on the cluster's Redis printed no key"
  local keyed=0
  for i in $(seq 1 6); do
    status=$(curl -sS --max-time 10 --interface 127.0.0.4 -o /dev/null -w '%{http_code}' \
      -H "X-API-Key: $key" "http://127.0.0.1:$proxy/api/account")
    [ "$status" = 200 ] && keyed=$((keyed + 1))
  done
  [ "$keyed" = 6 ] || fail "the key worked for $keyed of 6 account calls through the proxy"
  echo "cluster smoke: a key made by admin works through every replica"
  echo "cluster smoke: passed"
}

# Restarts every replica in turn under load: no call through the proxy may fail.
rolling() {
  # The default drain period (5 s), so the check is of what operators get.
  REPLICA_ARGS="--allow-loopback --access-log=false --limit-info-ip 100000000"
  up_with_target

  # Four clients on keep-alive connections through the proxy, calling until told to stop
  # (at most 10 minutes); each call's status or error is counted.
  python3 - "$proxy" "$target_port" "$dir/load.stop" >"$dir/load.out" 2>&1 <<'PY' &
import http.client, os, sys, threading, time
proxy, target, stop = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
counts, lock = {}, threading.Lock()
def client():
    c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=30)
    until = time.monotonic() + 600
    while not os.path.exists(stop) and time.monotonic() < until:
        try:
            c.request("GET", f"/api/info?host=127.0.0.1&port={target}")
            r = c.getresponse()
            r.read()
            key = str(r.status)
        except Exception as e:
            key = type(e).__name__
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=30)
        with lock:
            counts[key] = counts.get(key, 0) + 1
threads = [threading.Thread(target=client) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(" ".join(f"{k}:{v}" for k, v in sorted(counts.items())))
PY
  local load=$!
  sleep 2
  local i pid
  for i in $(seq 1 "$replicas"); do
    pid=$(cat "$dir/replica$i.pid")
    kill -TERM "$pid"
    # The drain period (5 s), then the calls in flight: well within 20 s.
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && fail "replica$i did not exit within 20 s of SIGTERM"
    sed -i "/^$pid\$/d" "$dir/pids"
    start_replica "$i"
    # Back in the proxy's rotation (two good checks a second apart) before the next goes.
    sleep 3
    echo "cluster rolling: replica$i restarted"
  done
  touch "$dir/load.stop"
  wait "$load" || fail "the load generator failed"
  local result
  result=$(tail -1 "$dir/load.out")
  echo "cluster rolling: calls through the proxy while restarting: $result"
  [[ "$result" =~ ^200:[0-9]+$ ]] || fail "some calls were not answered 200: $result"
  local answered=${result#200:}
  [ "$answered" -ge 100 ] || fail "only $answered calls were made"
  echo "cluster rolling: passed"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  smoke) smoke ;;
  rolling) rolling ;;
  *)
    echo "usage: tools/cluster.sh up|down|smoke|rolling" >&2
    exit 2
    ;;
esac
