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
#   tools/cluster.sh failover
#                            up under Sentinel, then kill -9 the Redis master under a steady
#                            load of calls through the proxy; exits non-zero unless the
#                            promoted master counts every call answered 200 and every call
#                            from 5 s after the promotion on is answered 200
#
# CLUSTER_DIR (default build/cluster) holds the logs, data dirs and PIDs. REPLICA_ARGS adds
# options to every replica (smoke sets a small quota and --allow-loopback for its fake target).
# SENTINEL=1 makes `up` run Redis as operators run it under Sentinel: a master, two replicas
# of it and three sentinels (quorum two, a master down after 1 s), the service's replicas on
# its redis+sentinel:// URL (and so waiting for a Redis replica on each charge).
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
    --data-dir "$dir/replica$i" --store "$(cat "$dir/store.url")" \
    --trusted-proxy 127.0.0.1/32 ${REPLICA_ARGS:-}
  wait_ok "http://127.0.0.1:$port/readyz"
}

# Starts a redis-server as NAME on a free port (in $dir/NAME.port) with its own --dir and the
# given options; waits up to 10 s for its PONG.
start_redis() {
  local name=$1 port
  shift
  port=$(free_port)
  echo "$port" >"$dir/$name.port"
  mkdir -p "$dir/$name"
  start "$name" redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
    --dir "$dir/$name" "$@"
  for _ in $(seq 1 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "cluster: $name did not answer PING within 10 s" >&2
  return 1
}

# Redis under Sentinel: the master (redis), redis-replica1 and 2, sentinel1 to 3. Waits until
# both replicas acknowledge a write and every sentinel knows them and the other sentinels,
# since a sentinel promotes only a replica it has seen linked to the master.
start_sentinel_set() {
  # Redis 7 waits 5 s before a diskless sync for more replicas to join; these start together.
  start_redis redis --repl-diskless-sync-delay 0
  local master i port conf url="redis+sentinel://" acked=0 ready=0
  master=$(cat "$dir/redis.port")
  for i in 1 2; do
    start_redis "redis-replica$i" --repl-diskless-sync-delay 0 --replicaof 127.0.0.1 "$master"
  done
  for _ in $(seq 1 50); do
    acked=$(printf 'SET netherscope-cluster:ack 1\nWAIT 2 200\n' | redis-cli -p "$master" | tail -1)
    [ "$acked" = 2 ] && break
    sleep 0.2
  done
  [ "$acked" = 2 ] || { echo "cluster: the Redis replicas did not acknowledge within 10 s" >&2; return 1; }
  for i in 1 2 3; do
    port=$(free_port)
    echo "$port" >"$dir/sentinel$i.port"
    mkdir -p "$dir/sentinel$i"
    conf="$dir/sentinel$i/sentinel.conf"
    printf '%s\n' "port $port" "bind 127.0.0.1" "dir $dir/sentinel$i" \
      "sentinel monitor netherscope 127.0.0.1 $master 2" \
      "sentinel down-after-milliseconds netherscope 1000" \
      "sentinel failover-timeout netherscope 5000" >"$conf"
    start "sentinel$i" redis-server "$conf" --sentinel
    url+="127.0.0.1:$port,"
  done
  for _ in $(seq 1 200); do
    ready=0
    for i in 1 2 3; do
      port=$(cat "$dir/sentinel$i.port")
      [ "$(redis-cli -p "$port" sentinel replicas netherscope 2>/dev/null |
        grep -A1 -x master-link-status | grep -cx ok)" = 2 ] &&
        [ "$(redis-cli -p "$port" sentinel master netherscope 2>/dev/null |
          grep -A1 -x num-other-sentinels | tail -1)" = 2 ] && ready=$((ready + 1))
    done
    [ "$ready" = 3 ] && break
    sleep 0.1
  done
  [ "$ready" = 3 ] || { echo "cluster: the sentinels did not find each other and the replicas within 20 s" >&2; return 1; }
  echo "${url%,}/netherscope" >"$dir/store.url"
}

up() {
  [ -x build/netherscope ] || { echo "cluster: build the service first (cmake --build build)" >&2; exit 1; }
  if [ -s "$dir/pids" ]; then
    echo "cluster: $dir/pids exists; run tools/cluster.sh down first" >&2
    exit 1
  fi
  mkdir -p "$dir"
  : >"$dir/pids"
  local proxy_port
  if [ "${SENTINEL:-0}" = 1 ]; then
    start_sentinel_set
  else
    start_redis redis
    echo "redis://127.0.0.1:$(cat "$dir/redis.port")" >"$dir/store.url"
  fi
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
  echo "cluster: http://127.0.0.1:$proxy_port (store $(cat "$dir/store.url"), $replicas replicas;" \
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
  local key store
  store=$(cat "$dir/store.url")
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

# Four clients on keep-alive connections through the proxy, calling /api/info on the target
# until stop_load (at most 10 minutes); each call's start and end (Unix seconds) and its status
# or error go to $dir/calls.txt when they stop.
start_load() {
  python3 - "$proxy" "$target_port" "$dir/load.stop" "$dir/calls.txt" >"$dir/load.out" 2>&1 <<'PY' &
import http.client, os, sys, threading, time
proxy, target, stop, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
calls, lock = [], threading.Lock()
def client():
    c = http.client.HTTPConnection("127.0.0.1", proxy, timeout=30)
    until = time.monotonic() + 600
    while not os.path.exists(stop) and time.monotonic() < until:
        began = time.time()
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
            calls.append((began, time.time(), key))
threads = [threading.Thread(target=client) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
with open(out, "w") as f:
    for began, ended, key in calls:
        f.write(f"{began:.6f} {ended:.6f} {key}\n")
PY
  load_pid=$!
}

stop_load() {
  touch "$dir/load.stop"
  wait "$load_pid" || fail "the load generator failed: $(cat "$dir/load.out")"
}

# Restarts every replica in turn under load: no call through the proxy may fail.
rolling() {
  # The default drain period (5 s), so the check is of what operators get.
  REPLICA_ARGS="--allow-loopback --access-log=false --limit-info-ip 100000000"
  up_with_target

  start_load
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
  stop_load
  local result
  result=$(awk '{print $3}' "$dir/calls.txt" | sort | uniq -c | awk '{printf "%s%s:%s", (NR > 1 ? " " : ""), $2, $1}')
  echo "cluster rolling: calls through the proxy while restarting: $result"
  [[ "$result" =~ ^200:[0-9]+$ ]] || fail "some calls were not answered 200: $result"
  local answered=${result#200:}
  [ "$answered" -ge 100 ] || fail "only $answered calls were made"
  echo "cluster rolling: passed"
}

# Kills the Redis master under load, under Sentinel: no call answered 200 may go uncounted on
# the promoted master, and the service must answer again within 5 s of the promotion.
failover() {
  SENTINEL=1
  # Each call counted on its own (no reservation counted ahead), so the promoted master's
  # counter can be held against the calls answered.
  REPLICA_ARGS="--allow-loopback --access-log=false --limit-info-ip 100000000 --quota-reserve 0"
  up_with_target

  start_load
  sleep 3
  local old named sentinel killed_at promoted_at
  old=$(cat "$dir/redis.port")
  sentinel=$(cat "$dir/sentinel1.port")
  killed_at=$(date +%s.%N)
  kill -KILL "$(cat "$dir/redis.pid")"
  # Reaped here, so that bash does not report the kill as if it were a failure.
  wait "$(cat "$dir/redis.pid")" 2>/dev/null || true
  sed -i "/^$(cat "$dir/redis.pid")\$/d" "$dir/pids"
  echo "cluster failover: killed the Redis master (port $old)"
  # The sentinels notice within 1 s and elect: look every 50 ms, for at most 30 s.
  named=$old
  for _ in $(seq 1 600); do
    named=$(redis-cli -p "$sentinel" sentinel get-master-addr-by-name netherscope | tail -1)
    [ "$named" != "$old" ] && break
    sleep 0.05
  done
  promoted_at=$(date +%s.%N)
  [ "$named" != "$old" ] || fail "the sentinels promoted no replica within 30 s"
  echo "cluster failover: the sentinels promoted port $named" \
    "$(python3 -c "print(f'{$promoted_at - $killed_at:.2f}')") s after the kill"
  # Ten seconds of calls after the promotion.
  sleep 10
  stop_load

  # The promoted master's count of the calls: one client address, one month's counter.
  local counted=0 key value
  while read -r key; do
    [ -n "$key" ] || continue
    value=$(redis-cli -p "$named" get "$key")
    counted=$((counted + value))
  done < <(redis-cli -p "$named" --scan --pattern 'ns1:u:*:info:*')
  python3 - "$dir/calls.txt" "$killed_at" "$promoted_at" "$counted" <<'PY' || fail "see above"
import sys
path, killed, promoted, counted = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
calls = [l.split() for l in open(path)]
calls = [(float(b), float(e), k) for b, e, k in calls]
answered = sum(1 for c in calls if c[2] == "200")
statuses = {}
for c in calls:
    statuses[c[2]] = statuses.get(c[2], 0) + 1
print("cluster failover: calls " + " ".join(f"{k}:{v}" for k, v in sorted(statuses.items())))
print(f"cluster failover: the promoted master counts {counted} calls; {answered} were answered 200")
first_back = min((e for b, e, k in calls if k == "200" and b >= promoted), default=None)
late = [c for c in calls if c[0] >= promoted + 5 and c[2] != "200"]
ok = True
if counted < answered:
    print(f"cluster failover: FAILED: {answered - counted} calls answered 200 are not counted")
    ok = False
if counted > len(calls):
    print(f"cluster failover: FAILED: {counted} counted, more than the {len(calls)} calls made")
    ok = False
if first_back is None:
    print("cluster failover: FAILED: no call was answered 200 after the promotion")
    ok = False
else:
    print(f"cluster failover: first call answered 200 {first_back - promoted:.2f} s after the promotion")
    if first_back - promoted > 5:
        ok = False
        print("cluster failover: FAILED: later than 5 s")
if late:
    print(f"cluster failover: FAILED: {len(late)} calls made 5 s or more after the promotion "
          f"were not answered 200, the first {late[0][0] - promoted:.2f} s after it: {late[0][2]}")
    ok = False
if sum(1 for c in calls if c[0] >= promoted + 5) < 100:
    print("cluster failover: FAILED: fewer than 100 calls after the promotion")
    ok = False
sys.exit(0 if ok else 1)
PY
  echo "cluster failover: passed"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  smoke) smoke ;;
  rolling) rolling ;;
  failover) failover ;;
  *)
    echo "usage: tools/cluster.sh up|down|smoke|rolling|failover" >&2
    exit 2
    ;;
esac
