// Kernels run asynchronously: the call the core makes only copies what the
// kernel needs (the ember_kernel_call and everything it points to is
// borrowed for the call's duration) and queues the work on the call's
// stream. The kernel body itself is ordinary synchronous SDK code.
#pragma once

#include <ember/ember_plugin.hpp>

namespace emu {

using KernelBody = void (*)(const ember_kernel_call& call);

// Queues `body` on the stream of `call`; throws a pending error of that stream.
void launch(const ember_kernel_call& call, KernelBody body);

// [guide:async_kernel]
// The ember_kernel_fn registered for a body: launches it behind the fence.
template <KernelBody Body>
ember_status* async_kernel(const ember_kernel_call* call, void* /*kernel_data*/) noexcept {
  return ember::sdk::fence([&] { launch(*call, Body); });
}
// [/guide:async_kernel]

}  // namespace emu
