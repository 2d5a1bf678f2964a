# shellcheck shell=bash
# Shared by the bench scripts (source it after cd to the repository root): a scratch folder,
# the PIDs of the processes a script starts, which are ended by PID on exit, a reader of the
# port a started program announces, a free port, a redis-server of the script's own, a field of
# /proc/PID/status and a wrk run's summary.

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Reads the "port" of the first JSON line containing "listening" in a log file.
port_of() {
  for _ in $(seq 1 200); do
    if p=$(grep -m1 '"listening"' "$1" 2>/dev/null | sed -E 's/.*"port":([0-9]+).*/\1/'); then
      [ -n "$p" ] && { echo "$p"; return; }
    fi
    sleep 0.05
  done
  echo "no listening line in $1" >&2; exit 1
}

# A TCP port on 127.0.0.1 that nothing listened on a moment ago.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null \
    || echo $((20000 + RANDOM % 20000))
}

# Starts a redis-server on a free port, as the tests start it (nothing saved to disk), with any
# further redis-server options given, and waits until it answers; sets redis_port. Call it in
# the script's own shell, not in $(...), so that its PID is recorded for the cleanup.
start_redis() {
  redis_port=$(free_port)
  mkdir -p "$work/redis-$redis_port"
  redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no \
    --dir "$work/redis-$redis_port" "$@" >"$work/redis-$redis_port.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    redis-cli -p "$redis_port" ping >/dev/null 2>&1 && return
    sleep 0.05
  done
  echo "redis-server did not answer on port $redis_port" >&2; exit 1
}

# Starts a Redis master, one replica of it and one sentinel watching it as "bench", and waits
# until the replica acknowledges writes and the sentinel names the master; sets sentinel_url to
# the --store URL. Call it in the script's own shell, as start_redis.
start_sentinel_redis() {
  start_redis --repl-diskless-sync-delay 0
  local master=$redis_port sentinel acked=0
  start_redis --repl-diskless-sync-delay 0 --replicaof 127.0.0.1 "$master"
  for _ in $(seq 1 50); do
    acked=$(printf 'SET bench:ack 1\nWAIT 1 200\n' | redis-cli -p "$master" | tail -1)
    [ "$acked" = 1 ] && break
    sleep 0.2
  done
  [ "$acked" = 1 ] || { echo "the Redis replica did not acknowledge within 10 s" >&2; exit 1; }
  sentinel=$(free_port)
  mkdir -p "$work/sentinel"
  printf '%s\n' "port $sentinel" "bind 127.0.0.1" "dir $work/sentinel" \
    "sentinel monitor bench 127.0.0.1 $master 1" >"$work/sentinel/sentinel.conf"
  redis-server "$work/sentinel/sentinel.conf" --sentinel >"$work/sentinel.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    redis-cli -p "$sentinel" sentinel get-master-addr-by-name bench 2>/dev/null |
      grep -qx "$master" && break
    sleep 0.05
  done
  # shellcheck disable=SC2034 # read by the script that sources this file
  sentinel_url="redis+sentinel://127.0.0.1:$sentinel/bench"
}

# A field of /proc/PID/status in KiB (VmRSS, VmHWM).
kib() { awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"; }

# Runs wrk -t2 -c64 for $1 seconds with the rest of the arguments (URL, -s script) and prints
# its requests/s, average latency, non-2xx count and 99th percentile latency on one line.
wrk_summary() {
  local secs=$1; shift
  local out
  out=$(wrk -t2 -c64 -d"${secs}s" --latency "$@")
  local rps lat p99 non2xx
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  lat=$(awk '/^    Latency/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  non2xx=$(awk '/Non-2xx/ {print $5}' <<<"$out")
  echo "$rps $lat ${non2xx:-0} ${p99:-?}"
}
