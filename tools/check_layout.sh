#!/usr/bin/env bash
# Checks that includes point one way (docs/ARCHITECTURE.md, "The layout"): each room may include
# only itself and the ROOMS its netherscope_room lists in CMakeLists.txt, and core/ no CAF,
# Asio or Beast header; and that each room's code is in the room's
# namespace (net/http in netherscope::net::http). Prints every include that breaks a rule, with its
# file and line, and exits 1 if there is one. Run from anywhere; reads only the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."

# room -> the rooms its files may include, itself first: read from CMakeLists.txt, where each
# netherscope_room(NAME FOLDER <folder> ROOMS <room>...) states it once. tools/ holds programs
# that stand apart from the service, as real servers would: it includes only itself.
declare -A allowed=([tools]="tools")
declare -A folder_of=()
while read -r name folder rooms; do
  folder_of[$name]=$folder
  allowed[$folder]=$folder
  for r in $rooms; do
    allowed[$folder]+=" {$r}"
  done
done < <(awk '
  /^netherscope_room\(/ { inside = 1; text = "" }
  inside { text = text " " $0 }
  inside && /\)[[:space:]]*$/ {
    inside = 0
    gsub(/[()]/, " ", text)
    n = split(text, w, /[[:space:]]+/)
    name = ""; folder = ""; rooms = ""; key = ""
    for (i = 1; i <= n; i++) {
      if (w[i] == "") continue
      if (w[i] == "netherscope_room") { key = "name"; continue }
      if (w[i] == "FOLDER" || w[i] == "ROOMS" || w[i] == "SOURCES" || w[i] == "DEPENDS") {
        key = w[i]; continue
      }
      if (key == "name") { name = w[i]; key = "" }
      else if (key == "FOLDER") folder = w[i]
      else if (key == "ROOMS") rooms = rooms " " w[i]
    }
    print name, folder, rooms
  }' CMakeLists.txt)
if [[ ${#folder_of[@]} -eq 0 ]]; then
  echo "check_layout: no netherscope_room(... FOLDER ...) found in CMakeLists.txt" >&2
  exit 1
fi
# The ROOMS lists name rooms; the checks below compare folders.
for folder in "${!allowed[@]}"; do
  resolved=""
  for r in ${allowed[$folder]}; do
    if [[ $r == "{"*"}" ]]; then
      r=${r#\{}; r=${r%\}}
      if [[ -z ${folder_of[$r]:-} ]]; then
        echo "check_layout: CMakeLists.txt: $folder lists room $r, which no netherscope_room names" >&2
        exit 1
      fi
      r=${folder_of[$r]}
    fi
    resolved+=" $r"
  done
  allowed[$folder]=${resolved# }
done

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
