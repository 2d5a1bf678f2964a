#!/usr/bin/env bash
# Runs the start scripts of deploy/kubernetes-sentinel's Redis and sentinel pods as processes on
# loopback, without a cluster: each pod's DNS name (redis-0.redis-nodes, sentinel-1.sentinel-
# nodes, ...) is an address of 127.0.0.0/8 in a hosts file of a mount namespace of its own, and
# each pod's /data a folder here. It checks what the scripts are there for: the first start
# makes redis-0 the master and the others its replicas, the sentinels find one another and both
# replicas, the service's store URL from the overlay's Secret reaches the master, a master
# killed is replaced, a Redis pod started again joins the new master as its replica, and a
# sentinel started again monitors the new master.
#
#   tools/check_sentinel_kube.sh        (as root: it makes a mount namespace)
#
# Needs python3 with PyYAML, redis-server and a built build/netherscope. Exit status 0 when every check passed; ends what it started by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${NETHERSCOPE_IN_NAMESPACE:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "check_sentinel_kube: run as root (unshare -m)" >&2; exit 1; }
  for tool in redis-server redis-cli python3; do
    command -v "$tool" >/dev/null || { echo "check_sentinel_kube: $tool is missing" >&2; exit 1; }
  done
  [ -x build/netherscope ] || { echo "check_sentinel_kube: build the service first" >&2; exit 1; }
  exec env NETHERSCOPE_IN_NAMESPACE=1 unshare -m "$0" "$@"
fi

work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "check_sentinel_kube: FAILED: $*" >&2
  for f in "$work"/*.log; do echo "--- $f" >&2; tail -5 "$f" >&2; done
  exit 1
}

# The pods' names, each on an address of its own, as the headless Services give them.
declare -A address=(
  [redis-0]=127.0.0.21 [redis-1]=127.0.0.22 [redis-2]=127.0.0.23
  [sentinel-0]=127.0.0.24 [sentinel-1]=127.0.0.25 [sentinel-2]=127.0.0.26)
cp /etc/hosts "$work/hosts"
for pod in "${!address[@]}"; do
  service=redis-nodes
  [[ $pod == sentinel-* ]] && service=sentinel-nodes
  echo "${address[$pod]} $pod.$service" >>"$work/hosts"
done
mount --bind "$work/hosts" /etc/hosts

# The scripts, the password and the store URL, from the overlay's files as kustomize would put
# them together (read here directly: Debian's kubectl predates the overlay's patches:).
python3 - "$work" <<'PY'
import sys, yaml
work = sys.argv[1]
for doc in yaml.safe_load_all(open("deploy/kubernetes-sentinel/redis-sentinel.yaml")):
    if doc["kind"] == "StatefulSet":
        script = doc["spec"]["template"]["spec"]["containers"][0]["command"][2]
        open(f"{work}/{doc['metadata']['name']}.sh", "w").write(script)
base = yaml.safe_load(open("deploy/kubernetes/secret.yaml"))
store = yaml.safe_load(open("deploy/kubernetes-sentinel/secret-store.yaml"))
open(f"{work}/password", "w").write(base["stringData"]["redis-password"])
open(f"{work}/store.url", "w").write(store["stringData"]["NETHERSCOPE_STORE"])
PY
password=$(cat "$work/password")

# Starts POD's script (redis or sentinel) with its name, its address and a /data of its own.
# The scripts name /data and listen on every address; here they listen on the pod's address.
start_pod() {
  local pod=$1 kind=${1%-*} data="$work/$1"
  mkdir -p "$data"
  sed -e "s|/data|$data|g" -e "s|exec redis-server \"\$@\"|exec redis-server --bind ${address[$pod]} --save '' \"\$@\"|" \
    -e "s|\"port 26379\"|\"port 26379\" \"bind ${address[$pod]}\"|" "$work/$kind.sh" >"$data/start.sh"
  HOSTNAME="$pod" REDIS_PASSWORD="$password" REDISCLI_AUTH="$password" \
    sh "$data/start.sh" >"$work/$pod.log" 2>&1 &
  pids+=($!)
  echo $! >"$data/pid"
}
cli() { REDISCLI_AUTH="$password" redis-cli -h "$1" -p "$2" "${@:3}" 2>/dev/null; }
# Waits up to $1 seconds until the command after it succeeds.
within() {
  local secs=$1; shift
  for _ in $(seq 1 $((secs * 10))); do "$@" && return 0; sleep 0.1; done
  return 1
}
replicates_from() {
  cli "$1.redis-nodes" 6379 info replication | tr -d '\r' | grep -qx "master_host:$2"
}
monitors() {
  [ "$(cli "$1.sentinel-nodes" 26379 sentinel get-master-addr-by-name netherscope | head -n 1)" = "$2" ]
}
role_of() { cli "$1.redis-nodes" 6379 role | head -n 1; }
has_role() { [ "$(role_of "$1")" = "$2" ]; }
master_named() { cli sentinel-0.sentinel-nodes 26379 sentinel get-master-addr-by-name netherscope | head -n 1; }
promoted_other_than() { local m; m=$(master_named); [ -n "$m" ] && [ "$m" != "$1" ]; }
sentinels_ready() {
  local s
  for s in 0 1 2; do
    [ "$(cli "sentinel-$s.sentinel-nodes" 26379 sentinel replicas netherscope |
      grep -A1 -x master-link-status | grep -cx ok)" = 2 ] || return 1
    [ "$(cli "sentinel-$s.sentinel-nodes" 26379 sentinel master netherscope |
      grep -A1 -x num-other-sentinels | tail -n 1)" = 2 ] || return 1
  done
}

for pod in redis-0 redis-1 redis-2 sentinel-0 sentinel-1 sentinel-2; do start_pod "$pod"; done
within 20 has_role redis-0 master || fail "redis-0 is not the master at the first start"
for r in redis-1 redis-2; do
  within 20 has_role "$r" slave || fail "$r is not a replica at the first start"
done
within 30 sentinels_ready || fail "the sentinels did not find each other and both replicas"
echo "check_sentinel_kube: first start: redis-0 master, redis-1 and redis-2 its replicas, three sentinels"

store=$(cat "$work/store.url")
build/netherscope admin --store "$store" create-account --login sentinel-check >/dev/null \
  || fail "the overlay's NETHERSCOPE_STORE did not reach the master"
echo "check_sentinel_kube: the overlay's store URL reaches the master (an account made)"

kill -KILL "$(cat "$work/redis-0/pid")"
wait "$(cat "$work/redis-0/pid")" 2>/dev/null || true
within 30 promoted_other_than redis-0.redis-nodes || fail "no replica promoted within 30 s"
new_master=$(master_named)
echo "check_sentinel_kube: redis-0 killed; the sentinels promoted $new_master"

start_pod redis-0
within 20 has_role redis-0 slave || fail "redis-0 started again, but not as a replica"
within 20 replicates_from redis-0 "$new_master" || fail "redis-0 does not replicate from $new_master"
# Joined by its own start, not turned into a replica by the sentinels afterwards (which they
# would do too, after a while in which it took writes as a master).
if grep -q "enabled (user request" "$work/redis-0.log"; then
  fail "redis-0 started again as a master and was made a replica by the sentinels"
fi
echo "check_sentinel_kube: redis-0 started again joins $new_master as its replica"
build/netherscope admin --store "$store" accounts | grep -q sentinel-check \
  || fail "the account made before the failover is not on the new master"

kill "$(cat "$work/sentinel-2/pid")"
wait "$(cat "$work/sentinel-2/pid")" 2>/dev/null || true
start_pod sentinel-2
within 20 monitors sentinel-2 "$new_master" || fail "sentinel-2 started again does not monitor $new_master"
# From its start, not after the other sentinels' hello messages corrected it.
grep -q "+monitor master netherscope $new_master 6379" "$work/sentinel-2.log" \
  || fail "sentinel-2 started again monitored another master first"
echo "check_sentinel_kube: sentinel-2 started again monitors $new_master; passed"
