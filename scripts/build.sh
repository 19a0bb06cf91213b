#!/usr/bin/env bash
# build.sh <build-dir> [extra cmake args...]: configures and builds Ember.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-"$root/build"}
shift || true
launcher=()
# Paths under the checkout are hashed relative to it, so that a clone in
# another folder (CI's) reuses what an earlier build put in the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
                                   -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "${launcher[@]}" "$@"
cmake --build "$build_dir" -j "${EMBER_BUILD_JOBS:-2}"
