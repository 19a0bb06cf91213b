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
  # Without their GPU the GPU plugins are only compiled and loaded, which
  # one target each checks as well as all of them, in half the time.
  gpu_targets=()
  nvidia-smi -L >/dev/null 2>&1 || gpu_targets+=(-DCMAKE_CUDA_ARCHITECTURES=90)
  rocminfo >/dev/null 2>&1 || gpu_targets+=(-DEMBER_ROCM_ARCHITECTURES=gfx90a)
  "$root/scripts/build.sh" "$build_dir" "${gpu_targets[@]}"
  # The wheels python_wheel installs and runs (dist/).
  "$root/scripts/build-wheels.sh"
fi
ctest --test-dir "$build_dir" --output-on-failure -j 2
if [ "${EMBER_SANITIZE:-0}" != "1" ]; then
  # The fuzz targets (tests/fuzz, docs/reliability.md), once.
  "$root/tests/fuzz/run.sh" --ci
  # The many-threads workload under ThreadSanitizer (docs/reliability.md).
  "$root/scripts/tsan.sh"
fi
