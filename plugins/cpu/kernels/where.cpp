// where(cond, a, b): the dispatch dtype is a's (input 1), cond is bool.
#include <cstring>
#include <type_traits>

#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

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

template <class T>
void where_kernel(const ember_kernel_call& call) {
  // Select on storage values: no conversion to the compute type is needed.
  const sdk::StridedLoop loop{&call.outputs[0], &call.inputs[0], &call.inputs[1], &call.inputs[2]};
  parallel_for(0, loop.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    sdk::transform<T, bool, T, T>(loop, begin, end, [](bool c, T a, T b) { return select_bits(c, a, b); });
  });
}

}  // namespace

void register_where_kernels(const sdk::Registrar& r) {
  r.add_each("where", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&where_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
