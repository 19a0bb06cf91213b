// copy (with conversion to any dtype) and where.
#include "elementwise_ops.cuh"
#include "kernels.h"
#include "map.cuh"
#include "registration.cuh"

namespace ember::gpu {

namespace {

// The dispatch dtype is the source's; the output may be any dtype.
template <class>
struct CopyKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    const DLTensor& out = call.outputs[0];
    visit_device_dtype(sdk::dtype_of(out), [&](auto tag) {
      using Out = typename decltype(tag)::type;
      launch_map<Out, T>(context, out, {&call.inputs[0]}, ops::Identity{});
    });
  }
};

struct Select {
  template <class C>
  __device__ C operator()(bool condition, C a, C b) const {
    return condition ? a : b;
  }
};

template <class>
struct WhereKernel {
  template <class T>
  static void run(const ember_kernel_call& call) {
    const CallContext context(call);
    launch_map<T, bool, T, T>(context, call.outputs[0], {&call.inputs[0], &call.inputs[1], &call.inputs[2]},
                              Select{});
  }
};

}  // namespace

void register_copy_kernels(const sdk::Registrar& r) {
  add_kernels<CopyKernel, void>(r, "copy", sdk::AllTypes{});
  add_kernels<WhereKernel, void>(r, "where", sdk::AllTypes{});
}

}  // namespace ember::gpu
