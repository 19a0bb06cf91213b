// loop_geometry.hpp -- `LoopGeometry<N, MaxDims>`: a strided walk over N
// operands as plain data a device kernel takes by value, and the address of
// every operand's element at a linear position, for host and device
// (Note [Loop geometry]). StridedLoop::geometry() builds one.
#ifndef EMBER_SDK_LOOP_GEOMETRY_HPP_
#define EMBER_SDK_LOOP_GEOMETRY_HPP_

#include <stdint.h>

#include <ember/sdk/host_device.hpp>

namespace ember::sdk {

// Note [Loop geometry]: a StridedLoop describes a walk over a shape in
// row-major order as coalesced dimensions (size-1 dimensions dropped,
// neighbours merged where every operand allows it, never reordered) with
// each operand's byte strides. A LoopGeometry is that description as plain
// data, so that a thread finds its operands' addresses from its linear
// element index alone. Element i of the walk is logical element i, which
// random numbers and index results rely on.
template <int N, int MaxDims>
struct LoopGeometry {
  static constexpr int kOperands = N;
  static constexpr int kMaxDims = MaxDims;

  int64_t numel;
  int32_t ndim;
  // Nonzero below 2^31 elements: the index arithmetic then runs in 32 bits,
  // several times cheaper than 64-bit division on GPUs.
  int32_t narrow;
  int64_t sizes[MaxDims];       // innermost first
  int64_t strides[MaxDims][N];  // bytes
  char* base[N];

  // Addresses of every operand's element at row-major position `linear`.
  EMBER_HOST_DEVICE void locate(int64_t linear, char* (&p)[N]) const {
    EMBER_UNROLL
    for (int k = 0; k < N; ++k) p[k] = base[k];
    if (narrow) {
      walk<uint32_t>(static_cast<uint32_t>(linear), p);
    } else {
      walk<int64_t>(linear, p);
    }
  }

  // Whether operand k walks its elements of `element_size` bytes densely
  // (or the walk has at most one element).
  EMBER_HOST_DEVICE bool dense(int k, int64_t element_size) const {
    return numel <= 1 || (ndim == 1 && strides[0][k] == element_size);
  }
  // Whether operand k reads one element throughout (a broadcast scalar).
  EMBER_HOST_DEVICE bool scalar(int k) const {
    if (numel <= 1) return true;
    for (int d = 0; d < ndim; ++d) {
      if (strides[d][k] != 0) return false;
    }
    return true;
  }

 private:
  // The outermost dimension needs no division: what is left of `rest`
  // there is the index itself.
  template <class I>
  EMBER_HOST_DEVICE void walk(I rest, char* (&p)[N]) const {
    EMBER_UNROLL
    for (int d = 0; d < MaxDims; ++d) {
      int64_t index;
      if (d == ndim - 1) {
        index = static_cast<int64_t>(rest);
      } else {
        const I size = static_cast<I>(sizes[d]);
        const I next = rest / size;
        index = static_cast<int64_t>(rest - next * size);
        rest = next;
      }
      EMBER_UNROLL
      for (int k = 0; k < N; ++k) p[k] += index * strides[d][k];
      if (d == ndim - 1) break;
    }
  }
};

}  // namespace ember::sdk

#endif  // EMBER_SDK_LOOP_GEOMETRY_HPP_
