// The CPU device: its ember_device_api table and the allocator behind it.
#ifndef EMBER_PLUGINS_CPU_DEVICE_H_
#define EMBER_PLUGINS_CPU_DEVICE_H_

#include <ember/ember_plugin.h>

namespace ember::cpu {

const ember_device_api* device_api();

// The table's allocate and deallocate; they throw sdk::Error on failure.
void allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr);
void deallocate(int32_t device, void* ptr);

// INVALID_ARGUMENT unless `device` is 0, the only CPU device.
void check_device(int32_t device);

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_DEVICE_H_
