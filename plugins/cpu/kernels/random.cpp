// uniform and normal: counter-based Philox4x32-10, so every device yields
// the same numbers for the same (seed, offset) (ops.md "Random numbers").
#include <array>
#include <cmath>
#include <numbers>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

using Philox = std::array<uint32_t, 4>;

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
Philox philox4x32_10(Philox counter, uint32_t key0, uint32_t key1) {
  constexpr uint32_t kMul0 = 0xD2511F53u;
  constexpr uint32_t kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{kMul0} * counter[0];
    const uint64_t p1 = uint64_t{kMul1} * counter[2];
    counter = {static_cast<uint32_t>(p1 >> 32) ^ counter[1] ^ key0, static_cast<uint32_t>(p1),
               static_cast<uint32_t>(p0 >> 32) ^ counter[3] ^ key1, static_cast<uint32_t>(p0)};
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  return counter;
}

constexpr double k2Pow24 = 1.0 / 16777216.0;
constexpr double k2Pow53 = 1.0 / 9007199254740992.0;

template <class T>
struct Uniform {
  static constexpr double kNsPerElement = 6;
  double low;
  double high;
  T operator()(const Philox& r) const {
    if constexpr (std::is_same_v<T, double>) {
      const double u = static_cast<double>(((uint64_t{r[0]} << 32) | r[1]) >> 11) * k2Pow53;
      return low + (high - low) * u;
    } else {
      const float u = static_cast<float>((r[0] >> 8) * k2Pow24);
      const float lo = static_cast<float>(low);
      const float hi = static_cast<float>(high);
      return sdk::convert<T>(lo + (hi - lo) * u);
    }
  }
};

template <class T>
struct Normal {
  static constexpr double kNsPerElement = 27;
  double mean;
  double std;
  T operator()(const Philox& r) const {
    const double u1 = ((r[0] >> 8) + 1) * k2Pow24;
    const double u2 = (r[1] >> 8) * k2Pow24;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    return sdk::convert<T>(mean + std * z);
  }
};

// Element i of out (row-major logical order) draws from counter offset + i;
// StridedLoop visits elements in exactly that order.
template <class T, class Draw>
void generate(const ember_kernel_call& call, const Draw& draw) {
  // Each draw's cost per element sets the grain (Note [Grain sizes]).
  constexpr int64_t kGrain = grain_for(Draw::kNsPerElement);
  const uint64_t seed = static_cast<uint64_t>(sdk::attr_int(call, "seed"));
  const uint64_t offset = static_cast<uint64_t>(sdk::attr_int(call, "offset"));
  const uint32_t key0 = static_cast<uint32_t>(seed);
  const uint32_t key1 = static_cast<uint32_t>(seed >> 32);
  const sdk::StridedLoop loop{&call.outputs[0]};
  parallel_for(0, loop.numel(), kGrain, [&](int64_t begin, int64_t end) {
    uint64_t c = offset + static_cast<uint64_t>(begin);
    loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i, ++c) {
        const Philox r = philox4x32_10(
            {static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32), 0, 0}, key0, key1);
        *reinterpret_cast<T*>(ptrs[0] + i * strides[0]) = draw(r);
      }
    });
  });
}

template <class T>
void uniform_kernel(const ember_kernel_call& call) {
  generate<T>(call, Uniform<T>{sdk::attr_float(call, "low"), sdk::attr_float(call, "high")});
}

template <class T>
void normal_kernel(const ember_kernel_call& call) {
  generate<T>(call, Normal<T>{sdk::attr_float(call, "mean"), sdk::attr_float(call, "std")});
}

}  // namespace

void register_random_kernels(const sdk::Registrar& r) {
  r.add_each("uniform", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&uniform_kernel<typename decltype(tag)::type>>;
  });
  r.add_each("normal", sdk::FloatingTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&normal_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
