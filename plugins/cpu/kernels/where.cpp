// where(cond, a, b): the dispatch dtype is a's (input 1), cond is bool.
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

// A selected element costs about 0.15 ns (Note [Grain sizes]).
constexpr int64_t kSelectGrain = grain_for(0.15);

// Selects on the storage bits with a mask instead of a branch: conditions
// such as relu's (x <= 0) are unpredictable, and a mispredicted branch per
// element costs more than the memory traffic. The loop also vectorises.
template <class T>
T select_bits(bool c, T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 1, uint8_t,
                                  std::conditional_t<sizeof(T) == 2, uint16_t,
                                                     std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
  Bits ua, ub;
  std::memcpy(&ua, &a, sizeof(T));
  std::memcpy(&ub, &b, sizeof(T));
  const Bits mask = static_cast<Bits>(-static_cast<Bits>(c));
  const Bits picked = static_cast<Bits>((ua & mask) | (ub & static_cast<Bits>(~mask)));
  T out;
  std::memcpy(static_cast<void*>(&out), &picked, sizeof(T));
  return out;
}

// A contiguous stretch, each of a and b either contiguous or one broadcast
// value. sdk::transform's loop over these operands did not vectorise (it
// kept the operand pointers in memory); this one does, in every ISA clone
// (Note [ISA clones]), into blends: the condition is read as bytes (GCC does
// not vectorise loads of bool) and both values are loaded before the select.
template <class T, bool a_is_scalar, bool b_is_scalar>
EMBER_CPU_ISA_CLONES void select_contiguous(const uint8_t* __restrict cond, const T* __restrict a,
                                            const T* __restrict b, T* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const T if_true = a[a_is_scalar ? 0 : i];
    const T if_false = b[b_is_scalar ? 0 : i];
    out[i] = cond[i] != 0 ? if_true : if_false;
  }
}

template <class T>
void where_kernel(const ember_kernel_call& call) {
  // Select on storage values: no conversion to the compute type is needed.
  const sdk::StridedLoop loop({&call.outputs[0], &call.inputs[0], &call.inputs[1], &call.inputs[2]},
                              sdk::LoopOrder::Memory);
  constexpr int64_t size = sizeof(T);
  parallel_for(0, loop.numel(), kSelectGrain, [&](int64_t begin, int64_t end) {
    loop.run(begin, end, [&](char* const* p, const int64_t* s, int64_t n) {
      const auto* cond = reinterpret_cast<const uint8_t*>(p[1]);
      const auto* a = reinterpret_cast<const T*>(p[2]);
      const auto* b = reinterpret_cast<const T*>(p[3]);
      auto* out = reinterpret_cast<T*>(p[0]);
      const bool contiguous = s[0] == size && s[1] == static_cast<int64_t>(sizeof(bool));
      if (contiguous && s[2] == size && s[3] == size) return select_contiguous<T, false, false>(cond, a, b, out, n);
      if (contiguous && s[2] == 0 && s[3] == size) return select_contiguous<T, true, false>(cond, a, b, out, n);
      if (contiguous && s[2] == size && s[3] == 0) return select_contiguous<T, false, true>(cond, a, b, out, n);
      for (int64_t i = 0; i < n; ++i) {
        *reinterpret_cast<T*>(p[0] + i * s[0]) =
            select_bits(*reinterpret_cast<const bool*>(p[1] + i * s[1]), *reinterpret_cast<const T*>(p[2] + i * s[2]),
                        *reinterpret_cast<const T*>(p[3] + i * s[3]));
      }
    });
  });
}

}  // namespace

void register_where_kernels(const sdk::Registrar& r) {
  r.add_each("where", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&where_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
