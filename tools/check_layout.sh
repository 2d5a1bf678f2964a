#!/usr/bin/env bash
# Checks that includes point one way (docs/ARCHITECTURE.md, "Rules"): each room may include
# only itself and the rooms listed for it; and that each room's code is in the room's
# namespace (net/http in netherscope::net::http). Prints every include that breaks a rule, with its
# file and line, and exits 1 if there is one. Run from anywhere; reads only the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."

# room -> the rooms its files may include (besides system and third-party headers).
declare -A allowed=(
  [base]="base"
  [core]="core base"
  [net/nethernet]="net/nethernet base"
  [net/raknet]="net/raknet base"
  [net/xbox]="net/xbox base"
  [net/join]="net/join net/nethernet base"
  [net/upstream]="net/upstream net/join net/xbox core base"
  [net/report]="net/report net/join net/upstream net/xbox net/nethernet net/raknet core base"
  [net/http]="net/http core base"
  [storage]="storage core base"
  [actors]="actors net/join net/report net/upstream net/xbox net/nethernet net/raknet core base storage"
  [app]="app actors net/http net/join net/report net/upstream net/xbox net/nethernet net/raknet core base storage"
  [tools]="tools"
)

# room -> the libraries whose headers its files must not include: the rules are plain C++17
# and Boost.JSON, whatever runs them (actors) or carries them (the wire).
declare -A refused=(
  [core]="caf/ boost/asio boost/beast"
)

# Files that open a namespace of another room, and the one they open: CAF finds a type's
# inspect overloads by argument-dependent lookup, so they must be in the type's namespace,
# while CAF itself belongs to the runtime.
declare -A adl_homes=(
  [actors/inspect.hpp]="netherscope::core"
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
      if [[ $name != "$want" && $name != "$want"::* && $name != "${adl_homes[$file]:-}" ]]; then
        echo "$file:$line: $room/ opens namespace $name, not $want" >&2
        misplaced=$((misplaced + 1))
      fi
    done < <(grep -n -oE '^namespace netherscope[A-Za-z0-9_:]*' "$file" \
               | sed -E 's/^([0-9]+):namespace /\1:/')
  fi
  # Angle brackets name the system's and libraries' headers; some rooms refuse some of them.
  for lib in ${refused[$room]:-}; do
    while IFS=: read -r line target; do
      echo "$file:$line: $room/ must not include <$target> (it needs no $lib)" >&2
      violations=$((violations + 1))
    done < <(grep -n -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]+<'"$lib"'[^>]*>' "$file" \
               | sed -E 's/^([0-9]+):.*<([^>]+)>$/\1:\2/')
  done
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
done < <(git ls-files -co --exclude-standard -- base core net actors storage app tools \
           | grep -E '\.(hpp|cpp|h|cc|in)$')

if [[ $violations -gt 0 || $strays -gt 0 || $misplaced -gt 0 ]]; then
  echo "check_layout: $violations include(s) against the rules, $strays stray file(s)," \
    "$misplaced namespace(s) outside their room" >&2
  exit 1
fi
echo "check_layout: every include follows the rules, every namespace its room"
