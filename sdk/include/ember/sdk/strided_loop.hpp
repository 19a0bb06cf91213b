// strided_loop.hpp -- `StridedLoop` (coalescing, row-major or memory order,
// chunkable; Note [Strided loops]), `split_range()` and the typed
// `transform()`.
#ifndef EMBER_SDK_STRIDED_LOOP_HPP_
#define EMBER_SDK_STRIDED_LOOP_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/loop_geometry.hpp>
#include <ember/sdk/status.hpp>
#include <ember/sdk/tensor.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>

namespace ember::sdk {

// Note [Strided loops]: a StridedLoop walks several same-shape tensors (the
// outputs and the already-broadcast inputs of an elementwise op) in the
// row-major logical order of that shape, calling
//     fn(char* const ptrs[], const int64_t strides[], int64_t n)
// for runs of `n` elements along the innermost dimension, with one pointer
// and one byte stride per operand. Dimensions of size 1 are dropped and
// neighbouring dimensions merged when every operand allows it, so contiguous
// and expanded-scalar operands give one long run. By default dimensions are
// never reordered: the i-th element visited is logical element i, which
// random and arange kernels rely on. A kernel whose result does not depend
// on the order of its elements (an elementwise map, a fill) asks for
// LoopOrder::Memory instead: dimensions are then walked in the order of the
// operands' strides, the first operand's deciding where it is not a
// broadcast, so a transposed or permuted tensor, written in place or beside
// others of its layout, is one run along memory rather than a walk that
// touches a new cache line per element. Only an output identical to an
// input may alias it (no partial overlap), so the order cannot change a
// result. run(begin, end, fn) visits elements [begin, end) only, so a caller
// splits numel() into chunks (split_range) for threads.
enum class LoopOrder { Logical, Memory };

class StridedLoop {
 public:
  static constexpr int kMaxOperands = 8;
  static constexpr int kMaxDims = 25;

  // Every tensor must have the shape of the first; strides may differ.
  StridedLoop(std::initializer_list<const DLTensor*> tensors, LoopOrder order = LoopOrder::Logical) {
    init(tensors.begin(), static_cast<int>(tensors.size()), order);
  }
  StridedLoop(const DLTensor* const* tensors, int count, LoopOrder order = LoopOrder::Logical) {
    init(tensors, count, order);
  }

  int64_t numel() const { return numel_; }
  int num_operands() const { return num_operands_; }
  // Number of dimensions after coalescing (1 for 0-d and 1-element tensors).
  int ndim() const { return ndim_; }
  // Coalesced dimension d (0 is the innermost): its size and each operand's
  // byte stride along it; base(op) is operand op's first element.
  int64_t size(int d) const { return sizes_[d]; }
  const int64_t* strides(int d) const { return strides_[d]; }
  char* base(int op) const { return base_[op]; }
  // Bytes of one element of operand op.
  int64_t element_size(int op) const { return element_sizes_[op]; }

  template <class Fn>
  void run(int64_t begin, int64_t end, Fn&& fn) const {
    if (begin >= end) return;
    int64_t index[kMaxDims];
    char* ptrs[kMaxOperands];
    for (int op = 0; op < num_operands_; ++op) ptrs[op] = base_[op];
    int64_t rest = begin;
    for (int d = 0; d < ndim_; ++d) {
      index[d] = rest % sizes_[d];
      rest /= sizes_[d];
      for (int op = 0; op < num_operands_; ++op) ptrs[op] += index[d] * strides_[d][op];
    }
    for (int64_t pos = begin; pos < end;) {
      const int64_t n = std::min(sizes_[0] - index[0], end - pos);
      fn(static_cast<char* const*>(ptrs), static_cast<const int64_t*>(strides_[0]), n);
      pos += n;
      index[0] += n;
      for (int op = 0; op < num_operands_; ++op) ptrs[op] += n * strides_[0][op];
      for (int d = 0; d + 1 < ndim_ && index[d] == sizes_[d]; ++d) {
        index[d] = 0;
        ++index[d + 1];
        for (int op = 0; op < num_operands_; ++op) {
          ptrs[op] += strides_[d + 1][op] - sizes_[d] * strides_[d][op];
        }
      }
    }
  }

  template <class Fn>
  void run(Fn&& fn) const {
    run(0, numel_, std::forward<Fn>(fn));
  }

  // This walk as the plain data a device kernel takes (Note [Loop
  // geometry]); N must be num_operands(). A walk over more than MaxDims
  // coalesced dimensions is UNIMPLEMENTED.
  template <int N, int MaxDims>
  LoopGeometry<N, MaxDims> geometry() const {
    if (N != num_operands_) fail(EMBER_STATUS_INTERNAL, "LoopGeometry operand count differs from the loop's");
    if (ndim_ > MaxDims) {
      fail(EMBER_STATUS_UNIMPLEMENTED, "a loop over " + std::to_string(ndim_) +
                                           " dimensions that cannot be merged (at most " + std::to_string(MaxDims) +
                                           ")");
    }
    LoopGeometry<N, MaxDims> g{};
    g.numel = numel_;
    g.ndim = ndim_;
    g.narrow = numel_ <= INT32_MAX;
    for (int d = 0; d < ndim_; ++d) {
      g.sizes[d] = sizes_[d];
      for (int k = 0; k < N; ++k) g.strides[d][k] = strides_[d][k];
    }
    for (int k = 0; k < N; ++k) g.base[k] = base_[k];
    return g;
  }

 private:
  // The tensors' dimensions, innermost first: in logical order, or sorted by
  // stride as Note [Strided loops] says. An insertion sort, because "inner
  // than" decided by the first operand that tells two dimensions apart is
  // not a strict weak ordering when operands disagree. A dimension of size
  // 1, which the walk drops, steps aside rather than stop one moving past.
  static void walk_order(const DLTensor* const* tensors, int count, LoopOrder order, int* dims) {
    const int ndim = tensors[0]->ndim;
    for (int i = 0; i < ndim; ++i) dims[i] = ndim - 1 - i;
    if (order == LoopOrder::Logical) return;
    const int64_t* shape = tensors[0]->shape;
    const auto goes_inside = [&](int outer, int inner) {
      if (shape[outer] == 1) return false;
      if (shape[inner] == 1) return true;
      for (int op = 0; op < count; ++op) {
        const int64_t outer_stride = abs_stride(*tensors[op], outer);
        const int64_t inner_stride = abs_stride(*tensors[op], inner);
        if (outer_stride == 0 || inner_stride == 0 || outer_stride == inner_stride) continue;
        return outer_stride < inner_stride;
      }
      return false;
    };
    for (int i = 1; i < ndim; ++i) {
      for (int j = i; j > 0 && goes_inside(dims[j], dims[j - 1]); --j) std::swap(dims[j], dims[j - 1]);
    }
  }

  static int64_t abs_stride(const DLTensor& t, int d) { return t.strides[d] < 0 ? -t.strides[d] : t.strides[d]; }

  void init(const DLTensor* const* tensors, int count, LoopOrder order) {
    if (count < 1 || count > kMaxOperands) {
      fail(EMBER_STATUS_INTERNAL, "StridedLoop takes 1 to 8 operands");
    }
    num_operands_ = count;
    // Unused operand slots stay zero so no code path can read garbage.
    std::fill(strides_[0], strides_[0] + kMaxOperands, int64_t{0});
    const DLTensor& first = *tensors[0];
    for (int op = 0; op < count; ++op) {
      base_[op] = data_ptr(*tensors[op]);
      element_sizes_[op] = (tensors[op]->dtype.bits * tensors[op]->dtype.lanes + 7) / 8;
      strides_[0][op] = element_sizes_[op];
    }
    sizes_[0] = 1;
    ndim_ = 1;
    numel_ = 1;
    if (first.ndim > kMaxDims) fail(EMBER_STATUS_UNIMPLEMENTED, "tensor has too many dimensions");
    int dims[kMaxDims];
    walk_order(tensors, count, order, dims);
    // Walk from the innermost dimension out, merging into the current one
    // while every operand's stride continues it.
    bool current_empty = true;
    for (int i = 0; i < first.ndim; ++i) {
      const int d = dims[i];
      const int64_t size = first.shape[d];
      numel_ *= size;
      if (size == 1) continue;
      bool mergeable = !current_empty;
      for (int op = 0; op < count && mergeable; ++op) {
        mergeable = tensors[op]->strides[d] * element_sizes_[op] == strides_[ndim_ - 1][op] * sizes_[ndim_ - 1];
      }
      if (mergeable) {
        sizes_[ndim_ - 1] *= size;
        continue;
      }
      if (!current_empty) {
        if (ndim_ == kMaxDims) fail(EMBER_STATUS_UNIMPLEMENTED, "tensor has too many dimensions");
        ++ndim_;
      }
      sizes_[ndim_ - 1] = size;
      for (int op = 0; op < count; ++op) {
        strides_[ndim_ - 1][op] = tensors[op]->strides[d] * element_sizes_[op];
      }
      current_empty = false;
    }
    if (numel_ == 0) {
      ndim_ = 1;
      sizes_[0] = 0;
    }
  }

  int num_operands_ = 0;
  int ndim_ = 0;
  int64_t numel_ = 0;
  char* base_[kMaxOperands];
  int64_t element_sizes_[kMaxOperands];
  int64_t sizes_[kMaxDims];                  // innermost first
  int64_t strides_[kMaxDims][kMaxOperands];  // bytes
};

// A half-open range of elements.
struct Range {
  int64_t begin;
  int64_t end;
};

// The `index`-th of `count` near-equal chunks of [0, total).
inline Range split_range(int64_t total, int64_t count, int64_t index) {
  const int64_t base = total / count;
  const int64_t extra = total % count;
  const int64_t begin = index * base + std::min(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

namespace detail {
// Input accessors for the fast loops: a contiguous run or a broadcast scalar.
template <class T>
struct ContiguousInput {
  const T* data;
  T operator[](int64_t i) const { return data[i]; }
};
template <class T>
struct ScalarInput {
  T value;
  T operator[](int64_t) const { return value; }
};

// Picks an accessor for input K and recurses; returns false if some input
// is neither contiguous nor a scalar, leaving the run to the strided loop.
template <size_t K, class Out, class Inputs, class Fn, class... Accessors>
bool transform_fast(char* const* p, const int64_t* s, int64_t n, Fn& fn, Accessors... in) {
  if constexpr (K == std::tuple_size_v<Inputs>) {
    Out* out = reinterpret_cast<Out*>(p[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]...);
    return true;
  } else {
    using T = std::tuple_element_t<K, Inputs>;
    const T* data = reinterpret_cast<const T*>(p[K + 1]);
    if (s[K + 1] == static_cast<int64_t>(sizeof(T))) {
      return transform_fast<K + 1, Out, Inputs>(p, s, n, fn, in..., ContiguousInput<T>{data});
    }
    if (s[K + 1] == 0) {
      return transform_fast<K + 1, Out, Inputs>(p, s, n, fn, in..., ScalarInput<T>{*data});
    }
    return false;
  }
}

template <class Out, class... In, class Fn, size_t... I>
void transform_run(char* const* ptrs, const int64_t* strides, int64_t n, Fn& fn, std::index_sequence<I...>) {
  // Local copies: a store through a char-sized `Out` could otherwise alias
  // the pointer array and force a reload every iteration.
  char* p[sizeof...(In) + 1];
  int64_t s[sizeof...(In) + 1];
  for (size_t op = 0; op < sizeof...(In) + 1; ++op) {
    p[op] = ptrs[op];
    s[op] = strides[op];
  }
  if (s[0] == static_cast<int64_t>(sizeof(Out)) && transform_fast<0, Out, std::tuple<In...>>(p, s, n, fn)) {
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(p[0] + i * s[0]) = fn(*reinterpret_cast<const In*>(p[I + 1] + i * s[I + 1])...);
  }
}
}  // namespace detail

// out[i] = fn(in[i]...) over one run of a loop, as StridedLoop::run hands
// it out: for kernels that walk a loop in an order of their own.
template <class Out, class... In, class Fn>
void transform_run(char* const* ptrs, const int64_t* strides, int64_t n, Fn&& fn) {
  detail::transform_run<Out, In...>(ptrs, strides, n, fn, std::index_sequence_for<In...>{});
}

// out[i] = fn(in[i]...) over elements [begin, end) of a loop whose operands
// are (out, in...) with storage types (Out, In...). When the output run is
// contiguous and every input run is contiguous or a broadcast scalar, the
// loop is a plain indexed one the compiler can vectorise.
template <class Out, class... In, class Fn>
void transform(const StridedLoop& loop, int64_t begin, int64_t end, Fn&& fn) {
  loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
    transform_run<Out, In...>(ptrs, strides, n, fn);
  });
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_STRIDED_LOOP_HPP_
