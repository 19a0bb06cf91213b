#include "launch.h"

#include <memory>

#include <ember/ember_plugin.hpp>
#include <ember/sdk/async.hpp>

#include "emu_device.h"

namespace emu {

namespace sdk = ember::sdk;

// [guide:launch]
void launch(const ember_kernel_call& call, sdk::KernelBody body) {
  EmuDevice& device = emu_device(call.device_index);
  Stream& stream = device.stream(call.stream);
  stream.raise_pending_error();
  auto owned = std::make_shared<const sdk::OwnedCall>(call);
  stream.enqueue([owned, body, &device] {
    Arena::Access access(device.arena());
    // A failure names this call: it reaches the user through a later one.
    owned->run(body);
  });
}
// [/guide:launch]

}  // namespace emu
