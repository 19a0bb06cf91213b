// host_device.hpp -- EMBER_HOST_DEVICE, the qualifier of SDK functions that
// device code calls too: `__host__ __device__` when nvcc or hipcc compiles,
// nothing for a host compiler. Headers whose functions carry it use no std::
// facility device code lacks (no <cmath> overloads, no exceptions).
#ifndef EMBER_SDK_HOST_DEVICE_HPP_
#define EMBER_SDK_HOST_DEVICE_HPP_

#if defined(__CUDACC__) || defined(__HIPCC__)
#define EMBER_HOST_DEVICE __host__ __device__
#else
#define EMBER_HOST_DEVICE
#endif

// Unrolling, asked of the device compiler only: host compilers warn about
// the pragma in functions both sides compile.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define EMBER_UNROLL _Pragma("unroll")
#else
#define EMBER_UNROLL
#endif

#endif  // EMBER_SDK_HOST_DEVICE_HPP_
