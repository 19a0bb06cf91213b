#!/usr/bin/env bash
# run.sh <ember build dir> <scratch dir> [compiler flags]: install, build the
# consumer with the same sanitizer flags as the build it consumes, run it.
set -euo pipefail
build_dir=$1
scratch=$2
flags=${3:-}
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$(dirname "$0")" -B "$scratch/build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$scratch/build" >/dev/null
EMBER_PLUGIN_PATH= "$scratch/build/consumer"
