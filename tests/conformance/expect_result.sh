#!/usr/bin/env bash
# expect_result.sh <status> <kit> <plugin> [kit options...] -- <pattern>...:
# runs the conformance kit on the plugin, which must exit with <status> and
# print every pattern (grep -E).
set -uo pipefail
expected=$1
kit=$2
plugin=$3
shift 3
options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  options+=("$1")
  shift
done
shift || true
output=$("$kit" "$plugin" "${options[@]}" 2>&1)
status=$?
echo "$output"
if [ "$status" -ne "$expected" ]; then
  echo "expected exit status $expected, got $status"
  exit 1
fi
for pattern in "$@"; do
  if ! grep -Eq -- "$pattern" <<<"$output"; then
    echo "the kit's output lacks: $pattern"
    exit 1
  fi
done
