#!/usr/bin/env bash
# run_on_gpu.sh <debs folder> <results folder>: the whole GPU check in one
# run, on a machine with an NVIDIA GPU, CUDA's nvcc and PyTorch but without
# Ember's Debian dependencies (fetch_debs.sh brings them as packages).
# Builds the core, the CPU and CUDA plugins (sm_90) and the Python module,
# then writes to the results folder: the CUDA and NCCL plugins' tests (NCCL
# where the toolkit has it; the code generator's where NVRTC is found: the
# toolkit's or pip's nvidia-cuda-nvrtc), the compiled tests on cuda, the
# conformance kit's report, the digits demo on cuda, and gpu_bench.py's
# table beside PyTorch.
set -uo pipefail
debs=$(cd "${1:?usage: run_on_gpu.sh <debs folder> <results folder>}" && pwd)
results=${2:?usage: run_on_gpu.sh <debs folder> <results folder>}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$results"
deps=/tmp/ember-gpu-deps
for deb in "$debs"/*.deb; do dpkg -x "$deb" "$deps"; done
# dpkg -x runs no maintainer scripts: links that point at absolute paths
# (libz.so) are made to point into the unpacked tree, and LAPACK and BLAS,
# which Debian installs through update-alternatives, are linked where
# FindLAPACK looks (BLA_VENDOR=Generic below picks these, not the image's).
find "$deps" -type l | while read -r link; do
  target=$(readlink "$link")
  case "$target" in /*) [ -e "$deps$target" ] && ln -sfn "$deps$target" "$link" ;; esac
done
lib="$deps/usr/lib/x86_64-linux-gnu"
for library in lapack/liblapack blas/libblas; do
  ln -sf "$lib/$library.so.3" "$lib/$(basename "$library").so"
  ln -sf "$lib/$library.so.3" "$lib/$(basename "$library").so.3"
done
export CMAKE_PREFIX_PATH="$deps/usr" LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu:$lib:${LD_LIBRARY_PATH:-}"
export CPATH="$deps/usr/include" LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu"

# cuBLAS from the CUDA toolkit, or else from pip's nvidia-cublas.
cublas_root=$(python3 -c 'import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], "cu13"))' 2>/dev/null || true)
build="$root/build-gpu"
{
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DBLA_VENDOR=Generic \
    -DEMBER_WITH_XPU=OFF -DEMBER_WITH_ROCM=OFF -DEMBER_BUILD_SAMPLES=OFF -DEMBER_CUBLAS_ROOT="$cublas_root" &&
    cmake --build "$build" -j 16
} 2>&1 | tail -40 >"$results/build.log"
plugins="$build/plugins/cuda"
(cd "$build" && ctest -R "cuda|nccl" --output-on-failure) >"$results/tests.log" 2>&1
cp "$build/plugins/cuda/tests/conformance_cuda.json" "$results/" 2>/dev/null
export EMBER_PLUGIN_PATH="$plugins" PYTHONPATH="$root/python:$build/python" PYTHONUNBUFFERED=1
# Compiled against eager on cuda through the plugin's NVRTC generator.
(cd "$root/python/tests" && EMBER_PLUGIN_AUTOLOAD=0 EMBER_CACHE_DIR="$build/kernel-cache" timeout 600 \
  python3 -m pytest -q -rs -p no:cacheprovider test_compile_devices.py -k cuda) >"$results/compile.log" 2>&1
timeout 240 python3 "$root/samples/train_digits.py" --device cuda >"$results/digits.log" 2>&1
timeout 300 python3 "$root/bench/gpu/gpu_bench.py" --device cuda >"$results/bench.md" 2>&1
timeout 60 python3 "$root/bench/gpu/profile_check.py" --device cuda >"$results/profile.txt" 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >"$results/gpu.txt" 2>&1
tail -5 "$results"/*.log "$results/bench.md"
