// Indexing: index_select, gather, scatter_add and cat. Index values are
// data, so only the device can check them: an out-of-range index fails the
// queued work with OUT_OF_RANGE, which the next call on the stream reports,
// naming this op (Note [Asynchronous errors] in ember/sdk/async.hpp).
#include <string>

#include "kernels.h"

namespace emu {

namespace {

// Index value `at` of an int64 or int32 index tensor, checked against
// [0, size) (the catalogue's contract: the core has already wrapped the
// indices that count from the end).
// [guide:read_index]
int64_t read_index(const DLTensor& index, const int64_t* at, int64_t size) {
  const int64_t raw = sdk::dtype_of(index) == EMBER_DTYPE_INT32 ? *sdk::element<const int32_t>(index, at)
                                                                : *sdk::element<const int64_t>(index, at);
  if (raw < 0 || raw >= size) {
    sdk::fail(EMBER_STATUS_OUT_OF_RANGE,
              "index " + std::to_string(raw) + " is out of range for a dimension of size " + std::to_string(size));
  }
  return raw;
}
// [/guide:read_index]

template <class T>
struct IndexSelect {
  static void run(const ember_kernel_call& call) {
    const DLTensor& x = call.inputs[0];
    const DLTensor& index = call.inputs[1];
    const DLTensor& out = call.outputs[0];
    const int64_t dim = sdk::attr_int(call, "dim");
    std::vector<int64_t> source(static_cast<size_t>(x.ndim));
    sdk::for_each_index(out.shape, out.ndim, [&](const int64_t* at) {
      std::copy(at, at + out.ndim, source.begin());
      if (x.ndim > 0) source[dim] = read_index(index, &at[dim], x.shape[dim]);
      *sdk::element<T>(out, at) = *sdk::element<const T>(x, source.data());
    });
  }
};

template <class T>
struct Gather {
  static void run(const ember_kernel_call& call) {
    const DLTensor& x = call.inputs[0];
    const DLTensor& index = call.inputs[1];
    const DLTensor& out = call.outputs[0];
    const int64_t dim = sdk::attr_int(call, "dim");
    std::vector<int64_t> source(static_cast<size_t>(x.ndim));
    sdk::for_each_index(out.shape, out.ndim, [&](const int64_t* at) {
      std::copy(at, at + out.ndim, source.begin());
      source[dim] = read_index(index, at, x.shape[dim]);
      *sdk::element<T>(out, at) = *sdk::element<const T>(x, source.data());
    });
  }
};

template <class T>
struct ScatterAdd {
  static void run(const ember_kernel_call& call) {
    const DLTensor& x = call.inputs[0];
    const DLTensor& index = call.inputs[1];
    const DLTensor& src = call.inputs[2];
    const DLTensor& out = call.outputs[0];
    const int64_t dim = sdk::attr_int(call, "dim");
    if (out.data != x.data || out.byte_offset != x.byte_offset) {
      const sdk::StridedLoop loop({&out, &x});
      sdk::transform<T, T>(loop, 0, loop.numel(), [](T v) { return v; });
    }
    std::vector<int64_t> target(static_cast<size_t>(out.ndim));
    sdk::for_each_index(index.shape, index.ndim, [&](const int64_t* at) {
      std::copy(at, at + index.ndim, target.begin());
      target[dim] = read_index(index, at, out.shape[dim]);
      T& slot = *sdk::element<T>(out, target.data());
      const T value = *sdk::element<const T>(src, at);
      if constexpr (std::is_same_v<T, bool>) {
        slot = slot || value;
      } else if constexpr (std::is_integral_v<T>) {
        slot = sdk::wrap_add(slot, value);
      } else {
        slot = T(sdk::Compute<T>(slot) + sdk::Compute<T>(value));
      }
    });
  }
};

template <class T>
struct Cat {
  static void run(const ember_kernel_call& call) {
    const DLTensor& out = call.outputs[0];
    const int64_t dim = sdk::attr_int(call, "dim");
    int64_t offset = 0;
    std::vector<int64_t> target(static_cast<size_t>(out.ndim));
    for (int64_t i = 0; i < call.num_inputs; ++i) {
      const DLTensor& piece = call.inputs[i];
      if (sdk::numel(piece) == 0) continue;  // empty inputs, of any rank, add nothing
      sdk::for_each_index(piece.shape, piece.ndim, [&](const int64_t* at) {
        std::copy(at, at + piece.ndim, target.begin());
        target[dim] += offset;
        *sdk::element<T>(out, target.data()) = *sdk::element<const T>(piece, at);
      });
      offset += piece.shape[dim];
    }
  }
};

}  // namespace

void register_index_kernels(const sdk::Registrar& r) {
  sdk::add_each<IndexSelect, QueueOnStream>(r, "index_select", sdk::AllTypes{});
  sdk::add_each<Gather, QueueOnStream>(r, "gather", sdk::AllTypes{});
  sdk::add_each<ScatterAdd, QueueOnStream>(r, "scatter_add", sdk::AllTypes{});
  sdk::add_each<Cat, QueueOnStream>(r, "cat", sdk::AllTypes{});
}

}  // namespace emu
