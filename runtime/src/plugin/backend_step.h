#pragma once

#include "dispatch/op.h"
#include "ember/device.h"

namespace ember::plugin {

// The DLPack view of a tensor on `device` (data = storage base, offset in
// bytes), as kernels and generated kernels receive it.
DLTensor to_dl_tensor(const Tensor& t, DLDevice device);

// The dispatcher's backend step for every op that is not a view: allocates
// the outputs the call leaves undefined from the op's meta function, then
// runs the kernel the device's plugin registered for (op, dtype), or fails
// naming op, dtype, device and plugin.
void run_backend_step(const dispatch::Op& op, dispatch::OpCall& call, Device device);

}  // namespace ember::plugin
