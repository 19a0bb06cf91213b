// Kernels run asynchronously: the call the core makes only copies what the
// kernel needs (the ember_kernel_call and everything it points to is
// borrowed for the call's duration) and queues the work on the call's
// stream. The kernel body itself is ordinary synchronous SDK code.
#pragma once

#include <ember/ember_plugin.hpp>

namespace emu {

// Queues `body` on the stream of `call`; throws a pending error of that stream.
void launch(const ember_kernel_call& call, ember::sdk::KernelBody body);

// [guide:launcher]
// The launcher every kernel is registered with (sdk::add_each<Body, QueueOnStream>):
// its entry queues the body behind the fence.
struct QueueOnStream {
  template <ember::sdk::KernelBody Body>
  static ember_status* entry(const ember_kernel_call* call, void* /*kernel_data*/) noexcept {
    return ember::sdk::fence([&] { launch(*call, Body); });
  }
};
// [/guide:launcher]

}  // namespace emu
