# The sources of the GPU plugin, shared by plugins/cuda and plugins/rocm
# (which compiles the same files with hipcc). Paths are relative to
# plugins/cuda.
set(EMBER_GPU_HOST_SOURCES
  plugin.cpp
  runtime_error.cpp
  devices.cpp
  device_api.cpp
  native_handles.cpp
  profiling.cpp
  host_staging.cpp)
set(EMBER_GPU_KERNEL_SOURCES
  kernels/unary.cu
  kernels/binary.cu
  kernels/copy.cu
  kernels/factory.cu
  kernels/reduce.cu
  kernels/index.cu
  kernels/sort.cu
  kernels/matmul.cu)
