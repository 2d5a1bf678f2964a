#!/usr/bin/env bash
# Checks the manifests of deploy/kubernetes against the service, without a cluster or a network:
# every NETHERSCOPE_* name in them is an option of app/options.cpp (the service stops at start
# on one that is not), the probes ask /readyz and /healthz on the port the image listens on, the
# Service sends there, the pods run as the image's user, and the grace period covers the drain.
# With kubectl installed it also renders the folder (`kubectl kustomize`), with and without the
# Xbox key patch; without, it says so and checks the files alone. Prints each problem and exits
# 1 if there is one. Run from anywhere; reads only the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=deploy/kubernetes
problems=0
problem() {
  echo "check_kubernetes: $*" >&2
  problems=$((problems + 1))
}

# -- what the service reads ------------------------------------------------------------------
# The option table's entries open with ("name", ...; the environment-only ones (the client
# secret) are in the same file. Each is NETHERSCOPE_<NAME> in the environment.
options=$(sed -n 's/^ *("\([a-z0-9-]*\)",.*/\1/p' app/options.cpp | sort -u)
for must in store trusted-proxy public-base-url github-client-secret; do
  grep -qx "$must" <<<"$options" \
    || { echo "check_kubernetes: found no option '$must' in app/options.cpp: has its table changed?" >&2; exit 1; }
done
# --help and --version end the process instead of setting anything.
variables=$(grep -vx -e help -e version <<<"$options" | tr 'a-z-' 'A-Z_' | sed 's/^/NETHERSCOPE_/')
image_port=$(sed -n 's/.*NETHERSCOPE_PORT=\([0-9]*\).*/\1/p' Dockerfile | head -n 1)
image_uid=$(sed -n 's/^USER \([0-9]*\):[0-9]*$/\1/p' Dockerfile | head -n 1)
grace_ms=$(sed -n 's/.*shutdown_grace{\([0-9]*\)}.*/\1/p' app/options.hpp | head -n 1)
drain_ms=$(sed -n 's/.*shutdown_drain{\([0-9]*\)}.*/\1/p' app/options.hpp | head -n 1)
[[ -n $image_port && -n $image_uid && -n $grace_ms ]] \
  || { echo "check_kubernetes: could not read the port or user (Dockerfile) or the shutdown grace (app/options.hpp)" >&2; exit 1; }

# -- the manifests, flattened --------------------------------------------------------------
# One line per scalar: file, kind/name of its document, path, value; a list item is [] in the
# path (spec.template.spec.containers[].readinessProbe.httpGet.path /readyz). Enough YAML for
# block mappings and lists, in either indentation of list items; flow lists stay one value.
flatten() {
  awk '
    function reset() { depth = 0; kind = ""; name = ""; n = 0; file = FILENAME }
    function pop_to(indent, keep_key_at_same) {
      while (depth > 0 && (ind[depth] > indent || (ind[depth] == indent && !(keep_key_at_same && key[depth] != "[]"))))
        depth--
    }
    function path(last,   p, i) {
      p = ""
      for (i = 1; i <= depth; i++) p = p (key[i] == "[]" || p == "" ? "" : ".") key[i]
      return p (last == "" ? "" : (p == "" || last == "[]" ? "" : ".") last)
    }
    function unquote(v) {
      if (v ~ /^".*"$/ || v ~ /^\047.*\047$/) v = substr(v, 2, length(v) - 2)
      return v
    }
    function emit(p, v) { rows[++n] = p "\t" unquote(v) }
    function flush(   i) {
      for (i = 1; i <= n; i++) print file "\t" kind "/" name "\t" rows[i]
      n = 0
    }
    function take(indent, text,   k, v) {
      if (match(text, /^[A-Za-z0-9_.\/-]+:( |$)/)) {
        k = substr(text, 1, RLENGTH - 1); sub(/:$/, "", k)
        v = substr(text, RLENGTH + 1); sub(/^ +/, "", v)
        pop_to(indent, 0)
        if (v == "") { depth++; ind[depth] = indent; key[depth] = k; return }
        if (depth == 0 && k == "kind") kind = v
        if (depth == 1 && key[1] == "metadata" && k == "name") name = unquote(v)
        emit(path(k), v)
      } else {
        emit(path(""), text)
      }
    }
    FNR == 1 { if (NR > 1) flush(); reset() }
    /^---/ { flush(); reset(); next }
    {
      line = $0
      sub(/(^| +)#.*$/, "", line)
      if (line ~ /^ *$/) next
      match(line, /^ */); indent = RLENGTH; text = substr(line, indent + 1)
      if (text ~ /^- /) {
        pop_to(indent, 1)
        depth++; ind[depth] = indent; key[depth] = "[]"
        take(indent + 2, substr(text, 3))
      } else {
        take(indent, text)
      }
    }
    END { flush() }
  ' "$@"
}

mapfile -t resources < <(sed -n 's/^  - \([A-Za-z0-9_.-]*\.yaml\)$/\1/p' "$dir/kustomization.yaml")
[[ ${#resources[@]} -gt 0 ]] || { echo "check_kubernetes: $dir/kustomization.yaml lists no resources" >&2; exit 1; }
patch=xbox-key.yaml
flat=$(cd "$dir" && flatten "${resources[@]}" "$patch")
# value FILE-or-* KIND/NAME PATH: the values at that path, one a line.
value() {
  awk -F'\t' -v f="$1" -v d="$2" -v p="$3" '(f == "*" || $1 == f) && $2 == d && $3 == p { print $4 }' <<<"$flat"
}

# Every file of the folder is applied or is the patch, and every resource exists.
for f in "$dir"/*.yaml; do
  base=${f##*/}
  [[ $base == kustomization.yaml || $base == "$patch" ]] && continue
  printf '%s\n' "${resources[@]}" | grep -qx "$base" || problem "$f is not in kustomization.yaml's resources"
done
for r in "${resources[@]}" "$patch"; do
  [[ -f $dir/$r ]] || problem "kustomization.yaml names $r, which is not in $dir"
done
grep -q "path: $patch" "$dir/kustomization.yaml" || problem "kustomization.yaml does not show how to apply $patch"

# -- names -----------------------------------------------------------------------------------
while read -r where name; do
  grep -qx "$name" <<<"$variables" \
    || problem "$where: $name names no option of the service (app/options.cpp); it would stop at start"
done < <(cd "$dir" && grep -oH -E 'NETHERSCOPE_[A-Z0-9_]+' ./*.yaml | sed 's|^\./||; s/:/ /' | sort -u)

service=Deployment/netherscope
containers=spec.template.spec.containers[]
[[ -n $(value "*" "$service" "$containers.name") ]] || { echo "check_kubernetes: no $service in $dir" >&2; exit 1; }
# What the container's environment holds: its env names and the keys of the ConfigMaps it takes
# whole. Any of them not NETHERSCOPE_* is one the service never reads.
set_names=$(value "*" "$service" "$containers.env[].name")
while read -r map; do
  [[ -z $map ]] && continue
  keys=$(awk -F'\t' -v d="ConfigMap/$map" '$2 == d && $3 ~ /^data\./ { sub(/^data\./, "", $3); print $3 }' <<<"$flat")
  [[ -n $keys ]] || problem "$service takes ConfigMap $map whole, which is not in $dir or is empty"
  set_names+=$'\n'$keys
done < <(value "*" "$service" "$containers.envFrom[].configMapRef.name")
[[ -z $(value "*" "$service" "$containers.envFrom[].secretRef.name") ]] \
  || problem "$service takes a Secret whole (envFrom secretRef): name its keys with secretKeyRef, so none is set unread"
while read -r name; do
  [[ -z $name ]] && continue
  grep -qx "$name" <<<"$variables" || problem "$service sets $name, which the service does not read"
done <<<"$set_names"

# -- port, probes, user, drain ------------------------------------------------------------
port=$image_port
set_port=$(awk -F'\t' -v d="$service" '($2 == d && $3 ~ /env\[\]\.name$/ && $4 == "NETHERSCOPE_PORT") || ($3 == "data.NETHERSCOPE_PORT") { print }' <<<"$flat")
[[ -z $set_port ]] || problem "the manifests set NETHERSCOPE_PORT; keep the image's ($image_port), which the probes and Service use"
# A probe or Service port is the number, or the name of a container port with that number.
port_ok() {
  [[ $1 == "$port" ]] && return 0
  local named
  named=$(awk -F'\t' -v d="$service" -v c="$containers.ports[]" '$2 == d && $3 == c ".name" { n = $4 } $2 == d && $3 == c ".containerPort" { print n "=" $4 }' <<<"$flat")
  grep -qx "$1=$port" <<<"$named"
}
while read -r p; do
  [[ -z $p || $p == "$port" ]] || problem "$service declares containerPort $p; the image listens on $port"
done < <(value "*" "$service" "$containers.ports[].containerPort")
for probe in readinessProbe:/readyz livenessProbe:/healthz; do
  kind=${probe%%:*} want=${probe#*:}
  got=$(value netherscope.yaml "$service" "$containers.$kind.httpGet.path")
  [[ $got == "$want" ]] || problem "$service's $kind asks '${got:-nothing}', not $want"
  got=$(value netherscope.yaml "$service" "$containers.$kind.httpGet.port")
  port_ok "$got" || problem "$service's $kind asks port '${got:-none}'; the image listens on $port"
done
target=$(value "*" Service/netherscope spec.ports[].targetPort)
[[ -n $target ]] || problem "no Service/netherscope with a targetPort"
while read -r t; do
  [[ -z $t ]] || port_ok "$t" || problem "Service/netherscope sends to port $t; the image listens on $port"
done <<<"$target"
[[ $(value "*" "$service" spec.template.spec.enableServiceLinks) == false ]] \
  || problem "$service must set enableServiceLinks: false, or Kubernetes sets NETHERSCOPE_PORT=tcp://... for the Service named netherscope"
[[ $(value "*" "$service" spec.template.spec.securityContext.runAsUser) == "$image_uid" ]] \
  || problem "$service does not run as the image's user $image_uid (securityContext.runAsUser)"
[[ $(value "*" "$service" spec.template.spec.securityContext.runAsNonRoot) == true ]] \
  || problem "$service does not set runAsNonRoot: true"
grace_set=$(value "*" ConfigMap/netherscope-config data.NETHERSCOPE_SHUTDOWN_GRACE_MS)
[[ -z $grace_set ]] || grace_ms=$grace_set
drain_set=$(value "*" ConfigMap/netherscope-config data.NETHERSCOPE_SHUTDOWN_DRAIN_MS)
[[ -z $drain_set ]] || drain_ms=$drain_set
pause=$(value "*" "$service" "$containers.lifecycle.preStop.exec.command" | sed -n 's/^\[ *"sleep", *"\([0-9]*\)" *\]$/\1/p')
tgp=$(value "*" "$service" spec.template.spec.terminationGracePeriodSeconds)
# The pause before SIGTERM, the drain period, the grace for calls in flight, and 1 s to write
# the last 503s.
needed_ms=$(( ${pause:-0} * 1000 + drain_ms + grace_ms + 1000 ))
if [[ -z $tgp ]] || (( tgp * 1000 < needed_ms )); then
  problem "$service's terminationGracePeriodSeconds (${tgp:-30 by default}) is shorter than the drain: preStop ${pause:-0} s + drain $drain_ms ms + shutdown grace $grace_ms ms + 1 s"
fi

# -- the store URL and Redis ----------------------------------------------------------------
store=$(value secret.yaml Secret/netherscope-secrets stringData.NETHERSCOPE_STORE)
if [[ $store =~ ^redis://:([^@]*)@([^:/]+):([0-9]+)$ ]]; then
  url_password=${BASH_REMATCH[1]} host=${BASH_REMATCH[2]} url_port=${BASH_REMATCH[3]}
  [[ $(value "*" "Service/$host" spec.ports[].port) == "$url_port" ]] \
    || problem "NETHERSCOPE_STORE names $host:$url_port, which is no Service port in $dir"
  [[ $url_password == "$(value secret.yaml Secret/netherscope-secrets stringData.redis-password)" ]] \
    || problem "the password in NETHERSCOPE_STORE is not redis-password of the same Secret"
else
  problem "secret.yaml's NETHERSCOPE_STORE is not redis://:PASSWORD@HOST:PORT"
fi

# -- kustomize ---------------------------------------------------------------------------------
if ! command -v kubectl >/dev/null 2>&1; then
  echo "check_kubernetes: kubectl is not installed, so 'kubectl kustomize $dir' was not run (Debian: apt-get install kubernetes-client); the files themselves were checked"
else
  if rendered=$(kubectl kustomize "$dir" 2>&1); then
    # Every document of the files, and nothing else, in what kubectl would apply.
    want=$(awk -F'\t' -v p="$patch" '$1 != p { print $2 }' <<<"$flat" | sort -u)
    got=$(flatten <(printf '%s\n' "$rendered") | cut -f2 | sort -u)
    [[ $want == "$got" ]] || problem "kubectl kustomize renders other objects than the files hold: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
  else
    problem "kubectl kustomize $dir failed: $rendered"
  fi
  # The patch works with kustomize v4 and newer (kubectl 1.21); Debian bookworm's kubectl is 1.20.
  minor=$(kubectl version --client 2>/dev/null | grep -oE 'v1\.[0-9]+' | head -n 1 | cut -d. -f2)
  if [[ -n $minor && $minor -ge 21 ]]; then
    copy=$(mktemp -d)
    trap 'rm -rf "$copy"' EXIT
    cp "$dir"/*.yaml "$copy"/
    sed -i 's/^# patches:$/patches:/; s/^#   - path: '"$patch"'$/  - path: '"$patch"'/' "$copy/kustomization.yaml"
    if patched=$(kubectl kustomize "$copy" 2>&1); then
      grep -q 'NETHERSCOPE_SECRETS_KEY_FILE' <<<"$patched" && grep -q 'secretName: netherscope-secrets-key' <<<"$patched" \
        || problem "with $patch enabled, the rendered Deployment has no secrets key"
    else
      problem "kubectl kustomize with $patch enabled failed: $patched"
    fi
  else
    echo "check_kubernetes: this kubectl (1.${minor:-?}) predates kustomize's patches:, so $patch was not rendered"
  fi
fi

if [[ $problems -gt 0 ]]; then
  echo "check_kubernetes: $problems problem(s)" >&2
  exit 1
fi
echo "check_kubernetes: $dir matches the service's options, probes, port and user"
