#!/usr/bin/env bash
# fetch_debs.sh <folder>: downloads the Debian packages Ember builds against
# that the GPU machine's image lacks (oneDNN, spdlog, fmt, DLPack,
# GoogleTest, the OpenCL loader oneDNN links, nlohmann-json, Boost's
# headers, zlib, OpenSSL, Netlib's LAPACK and BLAS with their Fortran
# runtime), about 31 MB, for run_on_gpu.sh to unpack there, where nothing
# can be downloaded.
set -euo pipefail
folder=${1:?usage: fetch_debs.sh <folder>}
mkdir -p "$folder"
cd "$folder"
apt-get download libdnnl2 libdnnl-dev libspdlog1.10 libspdlog-dev libfmt9 libfmt-dev libdlpack-dev \
  googletest libgtest-dev libgmock-dev ocl-icd-libopencl1 nlohmann-json3-dev libboost1.74-dev zlib1g zlib1g-dev \
  libssl3 libssl-dev liblapack3 liblapack-dev libblas3 libblas-dev libgfortran5 libquadmath0
ls -l
