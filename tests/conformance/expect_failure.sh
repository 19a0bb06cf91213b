#!/usr/bin/env bash
# expect_failure.sh <kit> <plugin> <pattern>...: runs the conformance kit,
# which must exit with status 1 and print every pattern (grep -E).
set -uo pipefail
kit=$1
plugin=$2
shift 2
output=$("$kit" "$plugin" 2>&1)
status=$?
echo "$output"
if [ "$status" -ne 1 ]; then
  echo "expected exit status 1, got $status"
  exit 1
fi
for pattern in "$@"; do
  if ! grep -Eq -- "$pattern" <<<"$output"; then
    echo "the kit's output lacks: $pattern"
    exit 1
  fi
done
