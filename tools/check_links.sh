#!/usr/bin/env bash
# Checks that every relative link in the repository's Markdown files names a file or folder
# that exists in the repository, and that no document points at a path outside it (an
# absolute path works only on the machine it was written on). Prints each broken link with
# its file and line, and exits 1 if there is one. Run from anywhere; reads only the tree.
set -euo pipefail
cd "$(dirname "$0")/.."

broken=0
while IFS= read -r file; do
  dir=$(dirname "$file")
  # [text](target) links; the target ends at the first space or closing parenthesis.
  while IFS=: read -r line target; do
    [[ -z $target ]] && continue
    case $target in
      http://* | https://* | mailto:* | '#'*) continue ;;
    esac
    path=${target%%#*}
    if [[ $path == /* ]]; then
      echo "$file:$line: absolute link $target: use a path relative to the file" >&2
      broken=$((broken + 1))
    elif [[ ! -e "$dir/$path" ]]; then
      echo "$file:$line: $target does not exist in the repository" >&2
      broken=$((broken + 1))
    elif [[ $(realpath -m "$dir/$path") != "$PWD"/* && $(realpath -m "$dir/$path") != "$PWD" ]]; then
      echo "$file:$line: $target leaves the repository" >&2
      broken=$((broken + 1))
    fi
  done < <(grep -n -oE '\]\([^) ]+\)' "$file" | sed -E 's/^([0-9]+):\]\((.*)\)$/\1:\2/')
  # Paths of the machine the documents were written on.
  while IFS=: read -r line _; do
    echo "$file:$line: names a path outside the repository (/work/...)" >&2
    broken=$((broken + 1))
  done < <(grep -n -E '(^|[^[:alnum:]])/work/' "$file" || true)
done < <(git ls-files -co --exclude-standard -- '*.md' | grep -v '/node_modules/')

if [[ $broken -gt 0 ]]; then
  echo "check_links: $broken broken link(s)" >&2
  exit 1
fi
echo "check_links: every link resolves inside the repository"
