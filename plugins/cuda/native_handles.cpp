#include "native_handles.h"

#include <ember/ember_plugin.hpp>

#include "devices.h"
#include "profiling.h"
#include "stream.h"

namespace ember::gpu {
namespace {

// An Ember stream of this plugin is the runtime's stream itself, and
// Ember's device index is the runtime's ordinal.
void native_stream(int32_t device_index, ember_stream_t stream, void** native) {
  if (native == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "native_stream: NULL output");
  Devices::instance().at(device_index);
  *native = static_cast<void*>(stream_of(stream));
}

void native_device(int32_t device_index, int64_t* ordinal) {
  if (ordinal == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "native_device: NULL output");
  Devices::instance().at(device_index);
  *ordinal = device_index;
}

}  // namespace

const ember_native_handles_extension& native_handles_extension() {
  static const ember_native_handles_extension extension = [] {
    ember_native_handles_extension e{};
    e.header = {sizeof(ember_native_handles_extension), EMBER_EXTENSION_NATIVE_HANDLES, &profiling_extension().header};
#ifdef EMBER_GPU_HIP
    e.api = "hip";
#else
    e.api = "cuda";
#endif
    e.native_stream = sdk::fenced<native_stream>;
    e.native_device = sdk::fenced<native_device>;
    return e;
  }();
  return extension;
}

}  // namespace ember::gpu
