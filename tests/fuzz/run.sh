#!/usr/bin/env bash
# tests/fuzz/run.sh [--ci] [run_fuzzers.py args...]: builds the libFuzzer
# targets with clang into build-fuzz (only those targets and what they link)
# and runs every fuzz target for the CI-sized bound (docs/reliability.md).
# --ci, as scripts/test.sh runs it, leaves out the export loader's target,
# whose clang build of the whole runtime takes about 10 minutes on 2 cores
# cold: the suite's time goes to the kernel-IR target and the Python ones,
# and the export loader keeps its byte-mutation ctest (Export.Fuzzed*).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build_dir="${EMBER_FUZZ_BUILD_DIR:-$root/build-fuzz}"
targets=(ember_fuzz_export_loader ember_fuzz_kernel_ir)
names=()
if [ "${1:-}" = "--ci" ]; then
  shift
  targets=(ember_fuzz_kernel_ir)
  names=(kernel_ir safetensors nested_state plugin_metadata)
fi
launcher=()
# As scripts/build.sh: a clone in another folder reuses the cache's objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DEMBER_BUILD_FUZZERS=ON \
  -DEMBER_WITH_CPU=OFF -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_SAMPLES=OFF -DEMBER_BUILD_PYTHON=OFF \
  -DEMBER_WITH_CUDA=OFF -DEMBER_WITH_ROCM=OFF -DEMBER_WITH_XPU=OFF -DEMBER_WITH_GLOO=OFF \
  -DEMBER_WITH_NCCL=OFF >/dev/null
cmake --build "$build_dir" -j "${EMBER_BUILD_JOBS:-2}" --target "${targets[@]}"
# The export loader puts weights on the CPU device: the main build's plugin.
export EMBER_PLUGIN_PATH="${EMBER_PLUGIN_PATH:-$root/build/lib/ember/plugins}"
exec python3 "$root/tests/fuzz/run_fuzzers.py" --build "$build_dir" --python-build "$root/build" --runs 100000 \
  --max-time 60 "$@" "${names[@]}"
