// uniform and normal: counter-based Philox4x32-10, so every device yields
// the same numbers for the same (seed, offset) (ops.md "Random numbers").
#include "vector_math.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "elementwise.h"
#include "kernels.h"
#include "vector_map.h"

namespace ember::cpu {
namespace {

// Note [Vectorised Philox]: counters go through Philox4x32-10 in blocks of
// kVectorBlock: each round is a loop over the block's lanes (the 32x32->64
// bit products vectorise), and so is the draw that turns a lane's words into
// a number (Box-Muller's logarithm and cosine through libmvec, Note [Vector
// math]). A block at the end of a run is computed whole and only its first
// elements stored, so every number takes the same vector path whatever the
// run and thread layout (Note [Position-independent vector math]): a
// (seed, offset) gives the same numbers for any thread count.

// The first two words of Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3") for the counters first .. first +
// kVectorBlock - 1, (c & 0xffffffff, c >> 32, 0, 0) each: the draws use no
// others.
struct PhiloxBlock {
  uint32_t r0[kVectorBlock];
  uint32_t r1[kVectorBlock];
};

inline __attribute__((always_inline)) void philox_block(uint64_t first, uint32_t key0, uint32_t key1,
                                                        PhiloxBlock& out) {
  constexpr uint32_t kMul0 = 0xD2511F53u;
  constexpr uint32_t kMul1 = 0xCD9E8D57u;
  constexpr uint32_t kWeyl0 = 0x9E3779B9u;
  constexpr uint32_t kWeyl1 = 0xBB67AE85u;
  uint32_t c0[kVectorBlock], c1[kVectorBlock], c2[kVectorBlock], c3[kVectorBlock];
  for (int64_t j = 0; j < kVectorBlock; ++j) {
    const uint64_t counter = first + static_cast<uint64_t>(j);
    c0[j] = static_cast<uint32_t>(counter);
    c1[j] = static_cast<uint32_t>(counter >> 32);
    c2[j] = 0;
    c3[j] = 0;
  }
  for (int round = 0; round < 10; ++round) {
    for (int64_t j = 0; j < kVectorBlock; ++j) {
      const uint64_t p0 = uint64_t{kMul0} * c0[j];
      const uint64_t p1 = uint64_t{kMul1} * c2[j];
      const uint32_t next0 = static_cast<uint32_t>(p1 >> 32) ^ c1[j] ^ key0;
      const uint32_t next2 = static_cast<uint32_t>(p0 >> 32) ^ c3[j] ^ key1;
      c1[j] = static_cast<uint32_t>(p1);
      c3[j] = static_cast<uint32_t>(p0);
      c0[j] = next0;
      c2[j] = next2;
    }
    key0 += kWeyl0;
    key1 += kWeyl1;
  }
  std::copy(c0, c0 + kVectorBlock, out.r0);
  std::copy(c1, c1 + kVectorBlock, out.r1);
}

constexpr double k2Pow24 = 1.0 / 16777216.0;
constexpr double k2Pow53 = 1.0 / 9007199254740992.0;

template <class T>
struct Uniform {
  static constexpr double kNsPerElement = 1.4;
  double low;
  double high;
  T operator()(uint32_t r0, uint32_t r1) const {
    if constexpr (std::is_same_v<T, double>) {
      const double u = static_cast<double>(((uint64_t{r0} << 32) | r1) >> 11) * k2Pow53;
      return low + (high - low) * u;
    } else {
      const float u = static_cast<float>((r0 >> 8) * k2Pow24);
      const float lo = static_cast<float>(low);
      const float hi = static_cast<float>(high);
      return sdk::convert<T>(lo + (hi - lo) * u);
    }
  }
};

template <class T>
struct Normal {
  static constexpr double kNsPerElement = 2.8;
  double mean;
  double std;
  T operator()(uint32_t r0, uint32_t r1) const {
    const double u1 = ((r0 >> 8) + 1) * k2Pow24;
    const double u2 = (r1 >> 8) * k2Pow24;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
    return sdk::convert<T>(mean + std * z);
  }
};

// out[j] = draw of counter first + j for j < kVectorBlock.
template <class T, class Draw>
EMBER_CPU_ISA_CLONES void draw_block(uint64_t first, uint32_t key0, uint32_t key1, const Draw& draw, T* out) {
  PhiloxBlock words;
  philox_block(first, key0, key1, words);
  for (int64_t j = 0; j < kVectorBlock; ++j) out[j] = draw(words.r0[j], words.r1[j]);
}

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
      T block[kVectorBlock];
      for (int64_t start = 0; start < n; start += kVectorBlock) {
        const int64_t m = std::min(kVectorBlock, n - start);
        const uint64_t counter = c + static_cast<uint64_t>(start);
        char* first = ptrs[0] + start * strides[0];
        if (m == kVectorBlock && strides[0] == static_cast<int64_t>(sizeof(T))) {
          draw_block(counter, key0, key1, draw, reinterpret_cast<T*>(first));
          continue;
        }
        draw_block(counter, key0, key1, draw, block);
        for (int64_t j = 0; j < m; ++j) *reinterpret_cast<T*>(first + j * strides[0]) = block[j];
      }
      c += static_cast<uint64_t>(n);
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
  r.add_each("uniform", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&uniform_kernel<typename decltype(tag)::type>>; });
  r.add_each("normal", sdk::FloatingTypes{},
             [](auto tag) { return &sdk::kernel_entry<&normal_kernel<typename decltype(tag)::type>>; });
}

}  // namespace ember::cpu
