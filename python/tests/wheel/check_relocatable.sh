#!/usr/bin/env bash
# check_relocatable.sh <installed folder> <forbidden text>...: every ELF file
# under the folder must find its libraries through $ORIGIN alone (each
# RUNPATH/RPATH entry relative to it and existing there) and contain none of
# the forbidden texts (the source and build folders, /tmp/), so that an
# installed copy never reads or loads anything from where it was built.
set -euo pipefail
folder=$1
shift
status=0
while IFS= read -r -d '' file; do
  [ "$(head -c 4 "$file" | tr -d '\0')" = $'\x7fELF' ] || continue
  for entry in $(readelf -d "$file" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p' | tr ':' ' '); do
    case $entry in
      '$ORIGIN'*) [ -d "$(dirname "$file")${entry#\$ORIGIN}" ] || {
                    echo "$file: RUNPATH entry $entry names no folder"; status=1; } ;;
      *) echo "$file: RUNPATH entry $entry is not relative to \$ORIGIN"; status=1 ;;
    esac
  done
  contents=$(strings -a "$file")
  for text in "$@"; do
    if grep -qF -- "$text" <<<"$contents"; then
      echo "$file holds the build-machine path '$text':"
      grep -F -m 3 -- "$text" <<<"$contents"
      status=1
    fi
  done
done < <(find "$folder" -type f -print0)
exit $status
