#!/usr/bin/env bash
# The ThreadSanitizer run (docs/reliability.md): the core, the CPU plugin and
# the test plugins built with -fsanitize=thread into build-tsan, then the
# many-threads workload (tests/cpp/test_concurrency.cpp) and the profiler's
# and the kernel watchdog's thread tests. Any report fails it.
#     scripts/tsan.sh [build-dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$root/build-tsan}
# As scripts/build.sh: a clone in another folder reuses the cache's objects.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
cmake -S "$root" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DEMBER_SANITIZE_THREAD=ON -DEMBER_BUILD_PYTHON=OFF -DEMBER_BUILD_SAMPLES=OFF \
  -DEMBER_WITH_CUDA=OFF -DEMBER_WITH_ROCM=OFF -DEMBER_WITH_XPU=OFF -DEMBER_WITH_GLOO=OFF -DEMBER_WITH_NCCL=OFF \
  > /dev/null
ninja -C "$build_dir" -j "${EMBER_JOBS:-2}" ember_test_concurrency ember_test_profiler ember_test_kernel_errors \
  ember_test_device_time ember_plugin_cpu
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
export EMBER_PLUGIN_PATH=
"$build_dir/tests/ember_test_concurrency"
"$build_dir/tests/ember_test_profiler"
"$build_dir/tests/ember_test_device_time"
"$build_dir/tests/ember_test_kernel_errors" --gtest_filter='KernelWatchdog.AKernelThatNeverReturns*:KernelFaults.AKernelError*'
echo "tsan: clean"
