#!/usr/bin/env bash
# Checks that includes point one way (docs/ARCHITECTURE.md, "Rules"): each room may include
# only itself and the rooms listed for it; and that each room's code is in the room's
# namespace (net/http in netherscope::net::http). Prints every include that breaks a rule, with its
# file and line, and exits 1 if there is one. Run from anywhere; reads only the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."

# room -> the rooms its files may include (besides system and third-party headers).
declare -A allowed=(
  [net/base]="net/base"
  [net/api]="net/api net/base"
  [net/nethernet]="net/nethernet net/base"
  [net/raknet]="net/raknet net/base"
  [net/xbox]="net/xbox net/base"
  [net/join]="net/join net/nethernet net/base"
  [net/upstream]="net/upstream net/join net/xbox net/api net/base"
  [net/report]="net/report net/join net/upstream net/xbox net/nethernet net/raknet net/api net/base"
  [net/http]="net/http net/api net/base"
  [storage]="storage net/api net/base"
  [actors]="actors net/join net/report net/upstream net/xbox net/nethernet net/raknet net/api net/base storage"
  [app]="app actors net/http net/join net/report net/upstream net/xbox net/nethernet net/raknet net/api net/base storage"
  [tools]="tools"
)

# The room of a path: the longest prefix named in the table.
room_of() {
  local path=$1 best=""
  for room in "${!allowed[@]}"; do
    if [[ $path == "$room"/* && ${#room} -gt ${#best} ]]; then
      best=$room
    fi
  done
  printf '%s' "$best"
}

# The namespace a room's code opens: netherscope:: and the room's folders, with / as ::.
namespace_of() {
  local room=$1
  printf 'netherscope::%s' "${room//\//::}"
}

violations=0
strays=0
misplaced=0
while IFS= read -r file; do
  room=$(room_of "$file")
  if [[ -z $room ]]; then
    echo "stray: $file is in no room of the layout" >&2
    strays=$((strays + 1))
    continue
  fi
  # Every namespace a file of a service room opens at the top level is the room's own, or
  # one nested in it (tools/ holds programs, whose namespaces are their own).
  if [[ $room != tools ]]; then
    want=$(namespace_of "$room")
    while IFS=: read -r line name; do
      if [[ $name != "$want" && $name != "$want"::* ]]; then
        echo "$file:$line: $room/ opens namespace $name, not $want" >&2
        misplaced=$((misplaced + 1))
      fi
    done < <(grep -n -oE '^namespace netherscope[A-Za-z0-9_:]*' "$file" \
               | sed -E 's/^([0-9]+):namespace /\1:/')
  fi
  # Quoted includes name our own headers; angle brackets are the system's and libraries'.
  while IFS=: read -r line target; do
    [[ -z $target ]] && continue
    target_room=$(room_of "$target")
    # Includes relative to the file's own folder (tools/ uses them) stay in the room.
    if [[ -z $target_room && -e "$(dirname "$file")/$target" ]]; then
      continue
    fi
    ok=0
    for r in ${allowed[$room]}; do
      [[ $target_room == "$r" ]] && ok=1
    done
    if [[ $ok -eq 0 ]]; then
      echo "$file:$line: $room/ must not include \"$target\"" >&2
      violations=$((violations + 1))
    fi
  done < <(grep -n -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[^"]+"' "$file" \
             | sed -E 's/^([0-9]+):.*"([^"]+)"$/\1:\2/')
done < <(git ls-files -co --exclude-standard -- net actors storage app tools \
           | grep -E '\.(hpp|cpp|h|cc|in)$')

if [[ $violations -gt 0 || $strays -gt 0 || $misplaced -gt 0 ]]; then
  echo "check_layout: $violations include(s) against the rules, $strays stray file(s)," \
    "$misplaced namespace(s) outside their room" >&2
  exit 1
fi
echo "check_layout: every include follows the rules, every namespace its room"
