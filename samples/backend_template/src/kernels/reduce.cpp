// Reductions. The core hands every kernel `out` in keepdim shape, so a
// reduced dimension is one where out has size 1: each element of x adds into
// the output element found by zeroing its index there.
#include <cmath>

#include "kernels.h"

namespace emu {

namespace {

// Visits x in row-major order as step(position of its output element, value,
// how many elements that output element had already seen), then writes
// finish(position, elements per output) into every output element.
template <class T, class Out, class Step, class Finish>
void reduce(const ember_kernel_call& call, Step step, Finish finish) {
  const DLTensor& x = call.inputs[0];
  const DLTensor& out = call.outputs[0];
  std::vector<int64_t> position_stride(static_cast<size_t>(x.ndim), 0);
  int64_t outputs = 1;
  for (int d = x.ndim - 1; d >= 0; --d) {
    if (out.shape[d] != 1) position_stride[d] = outputs;
    outputs *= out.shape[d];
  }
  std::vector<int64_t> seen(static_cast<size_t>(outputs), 0);
  sdk::for_each_index(x.shape, x.ndim, [&](const int64_t* index) {
    int64_t position = 0;
    for (int d = 0; d < x.ndim; ++d) position += index[d] * position_stride[d];
    step(position, *sdk::element<const T>(x, index), seen[position]++);
  });
  const int64_t per_output = outputs == 0 ? 0 : sdk::numel(x) / outputs;
  int64_t position = 0;
  sdk::for_each_index(out.shape, out.ndim,
                      [&](const int64_t* index) { *sdk::element<Out>(out, index) = finish(position++, per_output); });
}

// Sums wrap for integers and accumulate in double for floating dtypes.
template <class T>
using SumAcc = std::conditional_t<sdk::is_floating_v<T>, double, uint64_t>;
template <class T>
using SumOut = std::conditional_t<sdk::is_floating_v<T>, T, int64_t>;

template <class T>
SumOut<T> from_acc(SumAcc<T> acc) {
  if constexpr (sdk::is_floating_v<T>)
    return T(static_cast<sdk::Compute<T>>(acc));
  else return static_cast<int64_t>(acc);
}

template <class T>
std::vector<SumAcc<T>> accumulators(const ember_kernel_call& call, SumAcc<T> init) {
  return std::vector<SumAcc<T>>(static_cast<size_t>(sdk::numel(call.outputs[0])), init);
}

template <class T>
struct Sum {
  static void run(const ember_kernel_call& call) {
    auto acc = accumulators<T>(call, 0);
    reduce<T, SumOut<T>>(
        call, [&](int64_t p, T x, int64_t) { acc[p] += static_cast<SumAcc<T>>(sdk::Compute<T>(x)); },
        [&](int64_t p, int64_t) { return from_acc<T>(acc[p]); });
  }
};

template <class T>
struct Prod {
  static void run(const ember_kernel_call& call) {
    auto acc = accumulators<T>(call, 1);
    reduce<T, SumOut<T>>(
        call, [&](int64_t p, T x, int64_t) { acc[p] *= static_cast<SumAcc<T>>(sdk::Compute<T>(x)); },
        [&](int64_t p, int64_t) { return from_acc<T>(acc[p]); });
  }
};

template <class T>
struct Mean {
  static void run(const ember_kernel_call& call) {
    auto acc = accumulators<T>(call, 0);
    reduce<T, T>(
        call, [&](int64_t p, T x, int64_t) { acc[p] += static_cast<double>(sdk::Compute<T>(x)); },
        [&](int64_t p, int64_t n) { return T(static_cast<sdk::Compute<T>>(acc[p] / static_cast<double>(n))); });
  }
};

// A running extreme: uint8_t for bool, since std::vector<bool> hands out no references.
template <class T>
using ExtremeSlot = std::conditional_t<std::is_same_v<T, bool>, uint8_t, sdk::Compute<T>>;

// amax (kMax) or amin; NaN propagates.
template <bool kMax>
struct Extreme {
  template <class T>
  struct Kernel {
    static void run(const ember_kernel_call& call) {
      std::vector<ExtremeSlot<T>> best(static_cast<size_t>(sdk::numel(call.outputs[0])));
      reduce<T, T>(
          call,
          [&](int64_t p, T value, int64_t seen) {
            const ExtremeSlot<T> x(sdk::Compute<T>{value});
            ExtremeSlot<T>& b = best[p];
            if (seen == 0 || x != x)
              b = x;
            else if (b == b && (kMax ? x > b : x < b))
              b = x;
          },
          [&](int64_t p, int64_t) { return T(static_cast<sdk::Compute<T>>(best[p])); });
    }
  };
};

// argmax (kMax) or argmin: the first extreme, NaN counting as the extreme.
// `seen` counts the elements reduced so far: row-major order visits them by
// increasing index along the reduced dims, so it is that index.
template <bool kMax>
struct ArgExtreme {
  template <class T>
  struct Kernel {
    static void run(const ember_kernel_call& call) {
      const size_t outputs = static_cast<size_t>(sdk::numel(call.outputs[0]));
      std::vector<sdk::Compute<T>> best(outputs);
      std::vector<int64_t> best_index(outputs, 0);
      reduce<T, int64_t>(
          call,
          [&](int64_t p, T value, int64_t seen) {
            const sdk::Compute<T> x(value);
            const bool best_is_nan = best[p] != best[p];
            if (seen == 0 || (!best_is_nan && (x != x || (kMax ? x > best[p] : x < best[p])))) {
              best[p] = x;
              best_index[p] = seen;
            }
          },
          [&](int64_t p, int64_t) { return best_index[p]; });
    }
  };
};

}  // namespace

void register_reduce_kernels(const sdk::Registrar& r) {
  sdk::add_each<Sum, QueueOnStream>(r, "sum", sdk::AllTypes{});
  sdk::add_each<Prod, QueueOnStream>(r, "prod", sdk::AllTypes{});
  sdk::add_each<Mean, QueueOnStream>(r, "mean", sdk::FloatingTypes{});
  sdk::add_each<Extreme<true>::Kernel, QueueOnStream>(r, "amax", sdk::AllTypes{});
  sdk::add_each<Extreme<false>::Kernel, QueueOnStream>(r, "amin", sdk::AllTypes{});
  sdk::add_each<ArgExtreme<true>::Kernel, QueueOnStream>(r, "argmax", sdk::NumericTypes{});
  sdk::add_each<ArgExtreme<false>::Kernel, QueueOnStream>(r, "argmin", sdk::NumericTypes{});
}

}  // namespace emu
