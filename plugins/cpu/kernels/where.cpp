// where(cond, a, b): the dispatch dtype is a's (input 1), cond is bool.
#include "elementwise.h"
#include "kernels.h"

namespace ember::cpu {
namespace {

template <class T>
void where_kernel(const ember_kernel_call& call) {
  // Select on storage values: no conversion to the compute type is needed.
  const sdk::StridedLoop loop{&call.outputs[0], &call.inputs[0], &call.inputs[1], &call.inputs[2]};
  parallel_for(0, loop.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
    sdk::transform<T, bool, T, T>(loop, begin, end,
                                  [](bool c, T a, T b) { return c ? a : b; });
  });
}

}  // namespace

void register_where_kernels(const sdk::Registrar& r) {
  r.add_each("where", sdk::AllTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&where_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
