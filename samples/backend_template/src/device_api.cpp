#include "device_api.h"

#include <cstring>

#include <ember/ember_plugin.hpp>

#include "emu_device.h"

namespace emu {

namespace sdk = ember::sdk;

namespace {

ember_status* device_count(int32_t* count) {
  *count = 1;
  return nullptr;
}

ember_status* device_properties(int32_t device, ember_device_properties* props) {
  return sdk::fence([&] {
    if (device != 0) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "emu: device " + std::to_string(device) + " does not exist");
    ember_device_properties mine{};
    mine.name = "Ember emulated accelerator";
    mine.total_memory = emu_memory_bytes();
    mine.compute_units = 1;
    sdk::write_struct(props, mine);
  });
}

ember_status* allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr) {
  return sdk::fence([&] { *ptr = emu_device(device).arena().allocate(num_bytes, alignment); });
}

ember_status* deallocate(int32_t device, void* ptr) {
  return sdk::fence([&] {
    if (ptr != nullptr) emu_device(device).arena().free(ptr);
  });
}

// [guide:copy]
// Every copy runs on the device's worker, in stream order. Copies that touch
// host memory wait for their completion, as ember_copy_args requires; a
// device-to-device copy only queues.
ember_status* copy(const ember_copy_args* args) {
  return sdk::fence([&] {
    const int32_t ordinal = args->kind == EMBER_COPY_HOST_TO_DEVICE ? args->dst_device : args->src_device;
    EmuDevice& device = emu_device(ordinal);
    Stream& stream = device.stream(args->stream);
    stream.raise_pending_error();
    if (args->num_bytes == 0) return;
    char* dst = static_cast<char*>(args->dst) + args->dst_offset;
    const char* src = static_cast<const char*>(args->src) + args->src_offset;
    const size_t bytes = args->num_bytes;
    stream.enqueue([&device, dst, src, bytes] {
      Arena::Access access(device.arena());
      std::memmove(dst, src, bytes);
    });
    if (args->kind != EMBER_COPY_DEVICE_TO_DEVICE) stream.synchronize();
  });
}
// [/guide:copy]

ember_status* stream_create(int32_t device, ember_stream_t* stream) {
  return sdk::fence([&] { *stream = emu_device(device).create_stream(); });
}

ember_status* stream_destroy(int32_t device, ember_stream_t stream) {
  return sdk::fence([&] { emu_device(device).destroy_stream(stream); });
}

ember_status* stream_synchronize(int32_t device, ember_stream_t stream) {
  return sdk::fence([&] { emu_device(device).stream(stream).synchronize(); });
}

ember_status* event_create(int32_t device, ember_event_t* event) {
  return sdk::fence([&] {
    emu_device(device);
    *event = reinterpret_cast<ember_event_t>(new Event());
  });
}

ember_status* event_destroy(int32_t, ember_event_t event) {
  return sdk::fence([&] { delete reinterpret_cast<Event*>(event); });
}

ember_status* event_record(int32_t device, ember_event_t event, ember_stream_t stream) {
  return sdk::fence([&] { reinterpret_cast<Event*>(event)->record(emu_device(device).stream(stream)); });
}

ember_status* event_wait(int32_t device, ember_event_t event, ember_stream_t stream) {
  return sdk::fence([&] { reinterpret_cast<Event*>(event)->wait_on(emu_device(device).stream(stream)); });
}

ember_status* event_synchronize(int32_t, ember_event_t event) {
  return sdk::fence([&] { reinterpret_cast<Event*>(event)->synchronize(); });
}

ember_status* synchronize(int32_t device) {
  return sdk::fence([&] { emu_device(device).synchronize(); });
}

// [guide:device_api]
ember_device_api make_device_api() {
  ember_device_api api{};
  api.struct_size = sizeof api;
  api.device_type = "emu";
  api.dl_device_type = kDLExtDev;
  // Every entry point locks what it shares, so the core need not serialise.
  api.thread_safety =
      EMBER_DEVICE_ALLOCATOR_THREAD_SAFE | EMBER_DEVICE_COPY_THREAD_SAFE | EMBER_DEVICE_STREAM_THREAD_SAFE;
  api.device_count = device_count;
  api.device_properties = device_properties;
  api.allocate = allocate;
  api.deallocate = deallocate;
  api.copy = copy;
  api.stream_create = stream_create;
  api.stream_destroy = stream_destroy;
  api.stream_synchronize = stream_synchronize;
  api.event_create = event_create;
  api.event_destroy = event_destroy;
  api.event_record = event_record;
  api.event_wait = event_wait;
  api.event_synchronize = event_synchronize;
  api.synchronize = synchronize;
  // supports_op stays NULL: "supported iff a kernel is registered" fits.
  return api;
}
// [/guide:device_api]

}  // namespace

const ember_device_api* device_api() {
  static const ember_device_api api = make_device_api();
  return &api;
}

}  // namespace emu
