#!/usr/bin/env bash
# fetch_debs.sh <folder>: downloads the Debian packages Ember builds against
# that the GPU machine's image lacks (oneDNN, spdlog, fmt, DLPack,
# GoogleTest, the OpenCL loader oneDNN links), about 9 MB, for
# run_on_gpu.sh to unpack there, where nothing can be downloaded.
set -euo pipefail
folder=${1:?usage: fetch_debs.sh <folder>}
mkdir -p "$folder"
cd "$folder"
apt-get download libdnnl2 libdnnl-dev libspdlog1.10 libspdlog-dev libfmt9 libfmt-dev libdlpack-dev \
  googletest libgtest-dev libgmock-dev ocl-icd-libopencl1
ls -l
