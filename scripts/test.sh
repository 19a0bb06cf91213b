#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every test.
# EMBER_SANITIZE=1 builds into build-asan with AddressSanitizer and
# UndefinedBehaviorSanitizer instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
if [ "${EMBER_SANITIZE:-0}" = "1" ]; then
  build_dir="$root/build-asan"
  BUILD_TYPE=RelWithDebInfo "$root/scripts/build.sh" "$build_dir" \
    -DEMBER_SANITIZE_ADDRESS=ON -DEMBER_SANITIZE_UNDEFINED=ON
else
  build_dir="$root/build"
  "$root/scripts/build.sh" "$build_dir"
  # The wheels python_wheel installs and runs (dist/).
  "$root/scripts/build-wheels.sh"
fi
ctest --test-dir "$build_dir" --output-on-failure -j 2
# The fuzz targets (tests/fuzz, docs/reliability.md), once, where clang is present.
if [ "${EMBER_SANITIZE:-0}" != "1" ]; then
  if command -v clang >/dev/null && command -v clang++ >/dev/null; then
    "$root/tests/fuzz/run.sh"
  else
    echo "clang not found: the fuzz targets (tests/fuzz) are not run"
  fi
fi
