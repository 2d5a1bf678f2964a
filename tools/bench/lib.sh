# Shared by the bench scripts (source it after cd to the repository root): a scratch folder,
# the PIDs of the processes a script starts, which are ended by PID on exit, and a reader of
# the port a started program announces.

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
