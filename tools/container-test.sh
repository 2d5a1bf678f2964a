#!/usr/bin/env bash
# Builds the Dockerfile's image with podman and checks it runs: /healthz, the fixed UID, the
# image's HEALTHCHECK, one /api/info call, and admin on the same store; then, where podman has
# `kube play`, plays deploy/kubernetes with it (three replicas on Redis) and checks each
# replica's /readyz. The bookworm base is made here with debootstrap from Debian's archive and
# imported with `podman import`, so nothing is pulled from a container registry.
#
#   tools/container-test.sh              (as root, or with sudo available)
#
# Environment:
#   DEBIAN_MIRROR   the archive debootstrap reads (default http://deb.debian.org/debian)
#   KEEP_IMAGES=1   keep the base and the built images afterwards (the default removes the built
#                   image and the kube step's Redis image, keeps the base: debootstrap is the
#                   slow part)
#
# Exit status 0 when every check passed; 1 with a message naming the step that failed. The
# containers, pods, volume, secret and network it makes are removed on every exit, by name.
# Optional in CI (WITH_CONTAINER=1).
set -euo pipefail
cd "$(dirname "$0")/.."

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
base_image=localhost/netherscope-base:bookworm
image=localhost/netherscope:container-test
name=netherscope-container-test-$$
expected_uid=10001

fail() {
  echo "container-test: FAILED: $*" >&2
  exit 1
}
step() {
  echo "container-test: $*"
}

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo -E"

# -- tools ---------------------------------------------------------------------------------
missing=()
for p in podman buildah debootstrap runc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" uidmap slirp4netns fuse-overlayfs
fi
podman=($sudo podman)
"${podman[@]}" info >/dev/null 2>&1 \
  || fail "podman cannot run here ('podman info' failed): it needs root or working user
namespaces, and a cgroup it may use. Run this script on a machine or CI runner that allows them."

# -- the base image, from Debian's archive ------------------------------------------------
if ! "${podman[@]}" image exists "$base_image"; then
  rootfs=$(mktemp -d /tmp/netherscope-rootfs.XXXXXX)
  trap '$sudo rm -rf "$rootfs"' EXIT
  step "debootstrap bookworm (minbase) from $mirror"
  $sudo debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null \
    || fail "debootstrap could not make a bookworm root from $mirror"
  # debootstrap leaves its package cache behind; the image does not need it.
  $sudo rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  step "importing it as $base_image"
  $sudo tar -C "$rootfs" -c . | "${podman[@]}" import --change 'CMD ["/bin/bash"]' - "$base_image" \
    >/dev/null || fail "podman import of the debootstrap root failed"
  $sudo rm -rf "$rootfs"
  trap - EXIT
fi

# -- how containers can run here -------------------------------------------------------------
# podman's defaults (crun, and raising the open-files limit to 2^20) work on most hosts. Some
# sandboxes and CI runners have a hybrid cgroup v1/v2 layout crun refuses, and a hard limit
# below what podman asks for: there runc with the host's own limits works. The first of the
# two that starts a container is used for the build and the run alike.
runtime_flags=()
if ! "${podman[@]}" run --rm "$base_image" true >/dev/null 2>&1; then
  open_files=$(ulimit -Hn)
  [ "$open_files" = unlimited ] && open_files=1048576
  runtime_flags=(--runtime runc --ulimit "nofile=$open_files:$open_files"
                 --ulimit nproc=4096:4096)
  step "podman's defaults cannot start a container here; using ${runtime_flags[*]}"
  "${podman[@]}" run --rm "${runtime_flags[@]}" "$base_image" true \
    || fail "podman cannot start a container here, with crun or with runc (see the error above)"
fi

# -- the image -----------------------------------------------------------------------------
step "building $image (--format docker keeps HEALTHCHECK)"
"${podman[@]}" build "${runtime_flags[@]}" --format docker --pull=never \
  --build-arg "BASE_IMAGE=$base_image" -t "$image" -f Dockerfile . \
  || fail "the image did not build"

# -- running it ----------------------------------------------------------------------------
# What the deploy/kubernetes step below makes, all removed by name: the pods (named by podman
# after the manifests' Deployments: redis-pod, netherscope-pod, with -0, -1... before podman
# 4.4), the volume of the claim, the secret, a network of this run and the Redis image.
kube_dir=deploy/kubernetes
kube_net=netherscope-kube-test-$$
redis_image=localhost/netherscope-redis:container-test
kube_tmp=""
kube_made=0
kube_pods() {
  "${podman[@]}" pod ps --format '{{.Name}}' | grep -E '^(redis|netherscope)-pod(-[0-9]+)?$' || true
}
kube_containers() { # the container of that name in each of the Deployment's pods
  "${podman[@]}" ps -a --format '{{.Names}}' | grep -E "^$1-pod(-[0-9]+)?-$1\$" || true
}
kube_cleanup() {
  if [ "$kube_made" = 1 ]; then
    local pod
    for pod in $(kube_pods); do
      "${podman[@]}" pod rm -f --time 5 "$pod" >/dev/null 2>&1 || true
    done
    "${podman[@]}" volume rm -f redis-data >/dev/null 2>&1 || true
    "${podman[@]}" secret rm netherscope-secrets >/dev/null 2>&1 || true
    "${podman[@]}" network rm -f "$kube_net" >/dev/null 2>&1 || true
    if [ "${KEEP_IMAGES:-0}" != 1 ]; then
      "${podman[@]}" rmi -f "$redis_image" >/dev/null 2>&1 || true
    fi
    kube_made=0
  fi
  [ -z "$kube_tmp" ] || rm -rf "$kube_tmp"
}
cleanup() {
  kube_cleanup
  "${podman[@]}" rm -f --time 5 "$name" >/dev/null 2>&1 || true
  if [ "${KEEP_IMAGES:-0}" != 1 ]; then
    "${podman[@]}" rmi -f "$image" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

step "starting $name, its port published on 127.0.0.1 only"
"${podman[@]}" run -d "${runtime_flags[@]}" --name "$name" -p 127.0.0.1::8080 "$image" \
  >/dev/null \
  || fail "the container did not start"
port=$("${podman[@]}" port "$name" 8080/tcp | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p' | head -n 1)
[ -n "$port" ] || fail "no port published on 127.0.0.1 ('podman port' said: $("${podman[@]}" port "$name"))"

step "waiting for /healthz on 127.0.0.1:$port"
healthy=0
for _ in $(seq 1 100); do
  if curl -fsS --max-time 2 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
    healthy=1
    break
  fi
  [ "$("${podman[@]}" inspect --format '{{.State.Running}}' "$name")" = true ] || break
  sleep 0.3
done
if [ "$healthy" != 1 ]; then
  "${podman[@]}" logs "$name" >&2 || true
  fail "/healthz did not answer 200 within 30 s"
fi

step "checking the service runs as UID $expected_uid"
pid_uid=$("${podman[@]}" top "$name" huser | sed -n 2p | tr -d ' ')
exec_uid=$("${podman[@]}" exec "$name" id -u)
[ "$exec_uid" = "$expected_uid" ] || fail "processes in the container run as UID $exec_uid"
[ "$pid_uid" = "$expected_uid" ] || [ "$pid_uid" != 0 ] \
  || fail "the service's process runs as root on the host (host UID $pid_uid)"
config_user=$("${podman[@]}" inspect --format '{{.Config.User}}' "$image")
[ "$config_user" = "$expected_uid:$expected_uid" ] || fail "the image's USER is '$config_user'"

step "running the image's HEALTHCHECK"
health_cmd=$("${podman[@]}" image inspect --format '{{json .HealthCheck}}' "$image")
case $health_cmd in
  *'"StartPeriod":0'*) fail "the image's HEALTHCHECK has no start period ($health_cmd)" ;;
  *healthz*'"StartPeriod":'*) ;;
  *) fail "the image has no HEALTHCHECK on /healthz with a start period (got $health_cmd)" ;;
esac
# Without systemd podman cannot schedule the periodic check and says so ("unable to get
# systemd connection"); running it by hand below is what this test relies on.
"${podman[@]}" healthcheck run "$name" >/dev/null \
  || fail "the HEALTHCHECK command failed inside the container"

step "one /api/info call (a loopback target: the address policy refuses it, with JSON)"
info=$(curl -sS --max-time 30 -w '\n%{http_code}' "http://127.0.0.1:$port/api/info?host=127.0.0.1&port=7551")
status=${info##*$'\n'}
body=${info%$'\n'*}
[ "$status" = 403 ] || fail "/api/info answered $status: $body"
case $body in
  *'"code":"forbidden_target"'*) ;;
  *) fail "/api/info answered without the forbidden_target code: $body" ;;
esac

step "admin in the container opens the service's store (NETHERSCOPE_DATA_DIR)"
"${podman[@]}" exec "$name" netherscope admin --version >/dev/null || fail "admin --version failed"
"${podman[@]}" exec "$name" netherscope admin accounts >/dev/null \
  || fail "admin accounts failed on the container's store"
"${podman[@]}" exec "$name" sh -c 'test -s /var/lib/netherscope/data.mdb' \
  || fail "no store in the data volume"
"${podman[@]}" exec "$name" sh -c 'command -v mdb_copy' >/dev/null \
  || fail "mdb_copy (lmdb-utils) is not in the image"

step "stopping it with SIGTERM"
"${podman[@]}" stop --time 10 "$name" >/dev/null || fail "podman stop failed"
exit_code=$("${podman[@]}" inspect --format '{{.State.ExitCode}}' "$name")
[ "$exit_code" = 0 ] || fail "the service exited $exit_code on SIGTERM"

# -- deploy/kubernetes under podman kube play ----------------------------------------------
# The manifests, played with the image built above: Redis and the replicas start, and each
# replica's /readyz answers 200, which it does only once it has reached Redis by the name
# `redis` with the Secret's password. Skipped where podman has no `kube play`. podman cannot
# play the folder exactly as Kubernetes applies it, and each difference here is forced by it
# (4.3, Debian 12's, or later):
# - Images: the one built above stands in for localhost/netherscope:latest, and Debian's
#   redis-server on the bookworm base for Redis's, so nothing is pulled from a registry.
# - The Secret: made with `podman secret create` from secret.yaml's values, because kube play
#   4.3 keeps a played Secret in a form its own secretKeyRef cannot read (fixed in 4.4).
# - The name `redis`: podman has no Services, so redis.yaml is played on a network of this run
#   with `redis` as its pod's alias, and the rest on the same network.
# - /readyz is asked from inside each replica (podman exec, bash's /dev/tcp, as the image's
#   HEALTHCHECK does): nothing is published. podman skips readiness probes, and turns the
#   liveness probe into a curl command the image does not have; it runs that only where
#   systemd schedules health checks, and there it would restart the replicas after a while.
if ! "${podman[@]}" kube play --help >/dev/null 2>&1; then
  step "this podman has no 'kube play': $kube_dir was not played"
else
  step "playing $kube_dir with podman kube play"
  [ -z "$(kube_pods)" ] || fail "podman already has pods named as the manifests' ($(kube_pods | tr '\n' ' ')); remove them first"
  ! "${podman[@]}" volume exists redis-data || fail "podman already has a volume redis-data, which redis.yaml's claim would take"
  ! "${podman[@]}" secret inspect netherscope-secrets >/dev/null 2>&1 \
    || fail "podman already has a secret netherscope-secrets, which this step would replace"
  # The network needs a DNS server for the alias, and the pods an infra image, which podman
  # builds from catatonit.
  kube_missing=()
  case $("${podman[@]}" info --format '{{.Host.NetworkBackend}}' 2>/dev/null) in
    netavark) kube_wanted=(aardvark-dns catatonit) ;;
    cni) kube_wanted=(golang-github-containernetworking-plugin-dnsname catatonit) ;;
    *) kube_wanted=(catatonit) ;;
  esac
  for p in "${kube_wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || kube_missing+=("$p")
  done
  if [ ${#kube_missing[@]} -gt 0 ]; then
    step "installing ${kube_missing[*]}"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "${kube_missing[@]}" >/dev/null || fail "could not install ${kube_missing[*]}"
  fi
  kube_made=1
  kube_tmp=$(mktemp -d /tmp/netherscope-kube.XXXXXX)
  "${podman[@]}" network create "$kube_net" >/dev/null || fail "podman network create failed"
  [ "$("${podman[@]}" network inspect --format '{{.DNSEnabled}}' "$kube_net")" = true ] \
    || fail "podman's network $kube_net has no DNS, so the replicas cannot find redis"

  step "building $redis_image: Debian's redis-server on the base"
  mkdir -p "$kube_tmp/redis"
  # /data belongs to UID 999, as in the Redis image redis.yaml names; podman gives the claim's
  # empty volume the owner of the folder it is mounted on.
  printf '%s\n' "FROM $base_image" \
    'RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends redis-server \' \
    ' && rm -rf /var/lib/apt/lists/* && mkdir -p /data && chown 999:999 /data' > "$kube_tmp/redis/Containerfile"
  "${podman[@]}" build "${runtime_flags[@]}" --pull=never -t "$redis_image" "$kube_tmp/redis" >/dev/null \
    || fail "the Redis image did not build"

  # secret.yaml's stringData, as the JSON of base64 values podman's secretKeyRef reads.
  kube_secret=$(sed -n 's/^  \([A-Za-z0-9_.-]*\): "\(.*\)"$/\1 \2/p' "$kube_dir/secret.yaml" \
    | while read -r key value; do printf '"%s":"%s"\n' "$key" "$(printf '%s' "$value" | base64 -w0)"; done \
    | paste -sd, -)
  case $kube_secret in
    *'"NETHERSCOPE_STORE":'*'"redis-password":'* | *'"redis-password":'*'"NETHERSCOPE_STORE":'*) ;;
    *) fail "could not read NETHERSCOPE_STORE and redis-password from $kube_dir/secret.yaml" ;;
  esac
  printf '{%s}' "$kube_secret" > "$kube_tmp/secret.json"
  "${podman[@]}" secret create netherscope-secrets "$kube_tmp/secret.json" >/dev/null \
    || fail "podman secret create failed"

  # The files, their images replaced, as one stream each.
  kube_yaml() {
    local f sep=""
    for f in "$@"; do
      printf '%s' "$sep"
      sed -e "s|image: localhost/netherscope:latest\$|image: $image|" \
          -e "s|image: docker.io/library/redis:.*\$|image: $redis_image|" "$kube_dir/$f"
      sep=$'---\n'
    done
  }
  kube_yaml redis.yaml > "$kube_tmp/redis.yaml"
  kube_yaml configmap.yaml netherscope.yaml > "$kube_tmp/netherscope.yaml"
  grep -q "image: $redis_image\$" "$kube_tmp/redis.yaml" \
    || fail "redis.yaml no longer names docker.io/library/redis; update this step"
  grep -q "image: $image\$" "$kube_tmp/netherscope.yaml" \
    || fail "netherscope.yaml no longer names localhost/netherscope:latest; update this step"
  # Where podman's defaults cannot start a container, the same runc and limits as above.
  kube_podman=("${podman[@]}")
  if [ ${#runtime_flags[@]} -gt 0 ]; then
    printf '[containers]\ndefault_ulimits = ["nofile=%s:%s", "nproc=4096:4096"]\n[engine]\nruntime = "runc"\n' \
      "$open_files" "$open_files" > "$kube_tmp/containers.conf"
    kube_podman=($sudo env CONTAINERS_CONF="$kube_tmp/containers.conf" podman)
  fi
  "${kube_podman[@]}" kube play --network "$kube_net:alias=redis" "$kube_tmp/redis.yaml" >/dev/null \
    || fail "podman kube play of redis.yaml failed"
  "${kube_podman[@]}" kube play --network "$kube_net" "$kube_tmp/netherscope.yaml" >/dev/null \
    || fail "podman kube play of configmap.yaml and netherscope.yaml failed"
  redis_ctr=$(kube_containers redis | head -n 1)
  replicas=$(kube_containers netherscope)
  [ -n "$redis_ctr" ] || fail "kube play started no Redis container"
  [ -n "$replicas" ] || fail "kube play started no netherscope container"

  step "waiting for /readyz in each replica ($(tr '\n' ' ' <<<"$replicas"))"
  ready_request='exec 3<>/dev/tcp/127.0.0.1/8080 && printf "GET /readyz HTTP/1.0\r\nHost: localhost\r\n\r\n" >&3 && head -n 1 <&3'
  for c in $replicas; do
    ready=0
    for _ in $(seq 1 60); do
      if "${podman[@]}" exec "$c" bash -c "$ready_request" 2>/dev/null | grep -q ' 200 '; then
        ready=1
        break
      fi
      sleep 1
    done
    if [ "$ready" != 1 ]; then
      "${podman[@]}" logs "$c" >&2 || true
      "${podman[@]}" logs "$redis_ctr" >&2 || true
      fail "$c's /readyz did not answer 200 within 60 s"
    fi
  done

  step "checking the replicas' user, root filesystem and identity, and what Redis holds"
  for c in $replicas; do
    [ "$("${podman[@]}" exec "$c" id -u)" = "$expected_uid" ] || fail "$c does not run as UID $expected_uid"
    [ "$("${podman[@]}" inspect --format '{{.HostConfig.ReadonlyRootfs}}' "$c")" = true ] \
      || fail "$c's root filesystem is not read-only"
  done
  # The identity the first replica made in Redis is the one every replica presents.
  identities=$(for c in $replicas; do
                 "${podman[@]}" logs "$c" 2>&1 | grep -o '"fingerprint":"[^"]*"' | tail -n 1 || true
               done | sort -u)
  [ "$(grep -c . <<<"$identities")" = 1 ] \
    || fail "the replicas do not present one identity: $(tr '\n' ' ' <<<"$identities")"
  "${podman[@]}" exec "$redis_ctr" redis-cli ping 2>&1 | grep -q NOAUTH \
    || fail "Redis answers without the password"
  [ "$("${podman[@]}" exec "$redis_ctr" sh -c 'redis-cli --no-auth-warning -a "$REDIS_PASSWORD" exists ns1:meta:identity')" = 1 ] \
    || fail "Redis holds no identity: the replicas did not write to it"

  step "removing what kube play made, by name"
  kube_cleanup
fi

step "all checks passed"
