#!/usr/bin/env bash
# Builds the Dockerfile's image with podman and checks it runs: /healthz, the fixed UID, the
# image's HEALTHCHECK, one /api/info call, and admin on the same store. The bookworm base is
# made here with debootstrap from Debian's archive and imported with `podman import`, so
# nothing is pulled from a container registry.
#
#   tools/container-test.sh              (as root, or with sudo available)
#
# Environment:
#   DEBIAN_MIRROR   the archive debootstrap reads (default http://deb.debian.org/debian)
#   KEEP_IMAGES=1   keep the base and the built image afterwards (the default removes the built
#                   image, keeps the base: debootstrap is the slow part)
#
# Exit status 0 when every check passed; 1 with a message naming the step that failed. The
# container it starts is removed on every exit, by its name. Optional in CI (WITH_CONTAINER=1).
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
cleanup() {
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

step "all checks passed"
