#include "device_api.h"

#include <cstring>

#include <ember/ember_plugin.hpp>

#include "emu_device.h"

namespace emu {

namespace sdk = ember::sdk;

namespace {

void device_count(int32_t* count) { *count = 1; }

void device_properties(int32_t device, ember_device_properties* props) {
  if (device != 0) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "emu: device " + std::to_string(device) + " does not exist");
  ember_device_properties mine{};
  mine.name = "Ember emulated accelerator";
  mine.total_memory = emu_memory_bytes();
  mine.compute_units = 1;
  sdk::write_struct(props, mine);
}

void allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr) {
  *ptr = emu_device(device).arena().allocate(num_bytes, alignment);
}

void deallocate(int32_t device, void* ptr) {
  if (ptr != nullptr) emu_device(device).arena().free(ptr);
}

// [guide:copy]
// Every copy runs on the device's worker, in stream order. Copies that touch
// host memory wait for their completion, as ember_copy_args requires; a
// device-to-device copy only queues.
void copy(const ember_copy_args* args) {
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
}
// [/guide:copy]

void stream_create(int32_t device, ember_stream_t* stream) { *stream = emu_device(device).create_stream(); }

void stream_destroy(int32_t device, ember_stream_t stream) { emu_device(device).destroy_stream(stream); }

void stream_synchronize(int32_t device, ember_stream_t stream) { emu_device(device).stream(stream).synchronize(); }

void event_create(int32_t device, ember_event_t* event) {
  emu_device(device);
  *event = reinterpret_cast<ember_event_t>(new Event());
}

void event_destroy(int32_t, ember_event_t event) { delete reinterpret_cast<Event*>(event); }

void event_record(int32_t device, ember_event_t event, ember_stream_t stream) {
  reinterpret_cast<Event*>(event)->record(emu_device(device).stream(stream));
}

void event_wait(int32_t device, ember_event_t event, ember_stream_t stream) {
  reinterpret_cast<Event*>(event)->wait_on(emu_device(device).stream(stream));
}

void event_synchronize(int32_t, ember_event_t event) { reinterpret_cast<Event*>(event)->synchronize(); }

void synchronize(int32_t device) { emu_device(device).synchronize(); }

// [guide:device_api]
// Each function above throws sdk::Error on failure; sdk::fenced<> makes it
// the C callback that returns the error as a status instead.
ember_device_api make_device_api() {
  // Every entry point locks what it shares, so the core need not serialise.
  ember_device_api api = sdk::device_table(
      "emu", kDLExtDev,
      EMBER_DEVICE_ALLOCATOR_THREAD_SAFE | EMBER_DEVICE_COPY_THREAD_SAFE | EMBER_DEVICE_STREAM_THREAD_SAFE);
  api.device_count = sdk::fenced<device_count>;
  api.device_properties = sdk::fenced<device_properties>;
  api.allocate = sdk::fenced<allocate>;
  api.deallocate = sdk::fenced<deallocate>;
  api.copy = sdk::fenced<copy>;
  api.stream_create = sdk::fenced<stream_create>;
  api.stream_destroy = sdk::fenced<stream_destroy>;
  api.stream_synchronize = sdk::fenced<stream_synchronize>;
  api.event_create = sdk::fenced<event_create>;
  api.event_destroy = sdk::fenced<event_destroy>;
  api.event_record = sdk::fenced<event_record>;
  api.event_wait = sdk::fenced<event_wait>;
  api.event_synchronize = sdk::fenced<event_synchronize>;
  api.synchronize = sdk::fenced<synchronize>;
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
