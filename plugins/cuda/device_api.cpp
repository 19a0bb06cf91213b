#include "device_api.h"

#include <ember/ember_plugin.hpp>

#include "devices.h"
#include "gpu_runtime.h"
#include "host_staging.h"
#include "runtime_error.h"
#include "stream.h"

namespace ember::gpu {

namespace {

void device_count(int32_t* count) {
  const Devices& devices = Devices::instance();
  *count = devices.count();
  if (*count == 0) {
    sdk::host()->log(EMBER_LOG_INFO, device_type_name(), ("no device: " + devices.absence_reason()).c_str());
  }
}

void device_properties(int32_t device, ember_device_properties* props) {
  const Device& d = Devices::instance().at(device);
  ember_device_properties mine{};
  mine.name = d.name.c_str();
  mine.total_memory = d.total_memory;
  mine.compute_units = d.multiprocessors;
  sdk::write_struct(props, mine);
}

// Plain device memory, never managed memory: the core's caching allocator
// sits on top, so cudaMalloc's cost is paid once per block.
void allocate(int32_t device, size_t num_bytes, size_t, void** ptr) {
  *ptr = nullptr;
  if (num_bytes == 0) return;
  use_device(device);
  check(cudaMalloc(ptr, num_bytes), "cudaMalloc of " + std::to_string(num_bytes) + " bytes on device " +
                                        std::to_string(device) + " (" + Devices::instance().at(device).name + ")");
}

void deallocate(int32_t device, void* ptr) {
  if (ptr == nullptr) return;
  use_device(device);
  check(cudaFree(ptr), "cudaFree");
}

bool ranges_overlap(const char* a, const char* b, size_t n) { return a < b + n && b < a + n; }

// cudaMemcpy leaves overlapping ranges undefined; those go through a
// temporary buffer.
void copy_on_device(const ember_copy_args& args, cudaStream_t stream) {
  const char* src = static_cast<const char*>(args.src) + args.src_offset;
  char* dst = static_cast<char*>(args.dst) + args.dst_offset;
  if (!ranges_overlap(src, dst, args.num_bytes)) {
    check(cudaMemcpyAsync(dst, src, args.num_bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    return;
  }
  void* staging = nullptr;
  check(cudaMalloc(&staging, args.num_bytes), "cudaMalloc for an overlapping copy");
  cudaError_t error = cudaMemcpyAsync(staging, src, args.num_bytes, cudaMemcpyDeviceToDevice, stream);
  if (error == cudaSuccess) error = cudaMemcpyAsync(dst, staging, args.num_bytes, cudaMemcpyDeviceToDevice, stream);
  if (error == cudaSuccess) error = cudaStreamSynchronize(stream);
  (void)cudaFree(staging);
  check(error, "cudaMemcpyAsync of an overlapping range");
}

void copy(const ember_copy_args* args) {
  if (args->num_bytes == 0) return;
  const cudaStream_t stream = stream_of(args->stream);
  switch (args->kind) {
    case EMBER_COPY_HOST_TO_DEVICE:
      use_device(args->dst_device);
      copy_host_to_device(args->dst_device, static_cast<char*>(args->dst) + args->dst_offset,
                          static_cast<const char*>(args->src) + args->src_offset, args->num_bytes, stream);
      break;
    case EMBER_COPY_DEVICE_TO_HOST:
      use_device(args->src_device);
      copy_device_to_host(args->src_device, static_cast<char*>(args->dst) + args->dst_offset,
                          static_cast<const char*>(args->src) + args->src_offset, args->num_bytes, stream);
      break;
    case EMBER_COPY_DEVICE_TO_DEVICE:
      use_device(args->src_device);
      if (args->src_device == args->dst_device) {
        copy_on_device(*args, stream);
      } else {
        Devices::instance().at(args->dst_device);
        check(cudaMemcpyPeerAsync(static_cast<char*>(args->dst) + args->dst_offset, args->dst_device,
                                  static_cast<const char*>(args->src) + args->src_offset, args->src_device,
                                  args->num_bytes, stream),
              "cudaMemcpyPeerAsync");
      }
      break;
    default:
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
                std::string(device_type_name()) + ": unknown copy kind " + std::to_string(args->kind));
  }
}

void stream_create(int32_t device, ember_stream_t* stream) {
  use_device(device);
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  *stream = handle_of(s);
}

void stream_destroy(int32_t device, ember_stream_t stream) {
  use_device(device);
  if (stream != nullptr) check(cudaStreamDestroy(stream_of(stream)), "cudaStreamDestroy");
}

void stream_synchronize(int32_t device, ember_stream_t stream) {
  use_device(device);
  check(cudaStreamSynchronize(stream_of(stream)), "cudaStreamSynchronize");
}

void event_create(int32_t device, ember_event_t* event) {
  use_device(device);
  cudaEvent_t e = nullptr;
  check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  *event = reinterpret_cast<ember_event_t>(e);
}

void event_destroy(int32_t device, ember_event_t event) {
  use_device(device);
  check(cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)), "cudaEventDestroy");
}

void event_record(int32_t device, ember_event_t event, ember_stream_t stream) {
  use_device(device);
  check(cudaEventRecord(reinterpret_cast<cudaEvent_t>(event), stream_of(stream)), "cudaEventRecord");
}

void event_wait(int32_t device, ember_event_t event, ember_stream_t stream) {
  use_device(device);
  check(cudaStreamWaitEvent(stream_of(stream), reinterpret_cast<cudaEvent_t>(event), 0), "cudaStreamWaitEvent");
}

void event_synchronize(int32_t device, ember_event_t event) {
  use_device(device);
  check(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
}

void synchronize(int32_t device) {
  use_device(device);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

ember_device_api make_device_api() {
#if defined(EMBER_GPU_HIP)
  constexpr DLDeviceType kDLDevice = kDLROCM;
#else
  constexpr DLDeviceType kDLDevice = kDLCUDA;
#endif
  // The runtime API is thread-safe, and so is the staging registry.
  ember_device_api api = sdk::device_table(
      device_type_name(), kDLDevice,
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
  return api;
}

}  // namespace

const ember_device_api* device_api() {
  static const ember_device_api api = make_device_api();
  return &api;
}

}  // namespace ember::gpu
