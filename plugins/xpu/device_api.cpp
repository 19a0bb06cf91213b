#include "device_api.h"

#include <vector>

#include <ember/ember_plugin.hpp>

#include "buffer.h"
#include "devices.h"
#include "stream.h"

namespace ember::xpu {

namespace {

void device_count(int32_t* count) {
  Devices& devices = Devices::instance();
  *count = devices.count();
  if (*count == 0) {
    sdk::host()->log(EMBER_LOG_INFO, "xpu", ("no device: " + devices.absence_reason()).c_str());
  }
}

void device_properties(int32_t ordinal, ember_device_properties* props) {
  const Device& d = Devices::instance().at(ordinal);
  ember_device_properties mine{};
  mine.name = d.name.c_str();
  mine.total_memory = d.global_memory;
  mine.compute_units = d.compute_units;
  sdk::write_struct(props, mine);
}

void allocate(int32_t ordinal, size_t num_bytes, size_t, void** ptr) {
  const Device& d = Devices::instance().at(ordinal);
  *ptr = nullptr;
  if (num_bytes == 0) return;
  if (num_bytes > d.max_allocation) {
    sdk::fail(EMBER_STATUS_OUT_OF_MEMORY, "xpu: cannot allocate " + std::to_string(num_bytes) + " bytes on " + d.name +
                                              ": one buffer holds at most " + std::to_string(d.max_allocation) +
                                              " bytes");
  }
  cl_int error = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(d.context, CL_MEM_READ_WRITE, num_bytes, nullptr, &error);
  check_cl(error, "clCreateBuffer of " + std::to_string(num_bytes) + " bytes on " + d.name);
  *ptr = buffer;
}

void deallocate(int32_t, void* ptr) {
  if (ptr != nullptr) check_cl(clReleaseMemObject(buffer_of(ptr)), "clReleaseMemObject");
}

bool ranges_overlap(size_t a, size_t b, size_t n) { return a < b + n && b < a + n; }

// Within one device the copy is queued; OpenCL refuses overlapping ranges of
// one buffer, which go through a temporary buffer instead.
void copy_on_device(const ember_copy_args& args, cl_command_queue queue) {
  const Device& d = Devices::instance().at(args.src_device);
  cl_mem src = buffer_of(args.src);
  cl_mem dst = buffer_of(args.dst);
  if (src != dst || !ranges_overlap(args.src_offset, args.dst_offset, args.num_bytes)) {
    check_cl(
        clEnqueueCopyBuffer(queue, src, dst, args.src_offset, args.dst_offset, args.num_bytes, 0, nullptr, nullptr),
        "clEnqueueCopyBuffer");
    return;
  }
  cl_int error = CL_SUCCESS;
  cl_mem staging = clCreateBuffer(d.context, CL_MEM_READ_WRITE, args.num_bytes, nullptr, &error);
  check_cl(error, "clCreateBuffer for an overlapping copy");
  error = clEnqueueCopyBuffer(queue, src, staging, args.src_offset, 0, args.num_bytes, 0, nullptr, nullptr);
  if (error == CL_SUCCESS) {
    error = clEnqueueCopyBuffer(queue, staging, dst, 0, args.dst_offset, args.num_bytes, 0, nullptr, nullptr);
  }
  clReleaseMemObject(staging);  // OpenCL keeps it alive until the copies finish
  check_cl(error, "clEnqueueCopyBuffer");
}

// Devices have separate contexts, so a copy between two goes through the host.
void copy_between_devices(const ember_copy_args& args) {
  std::vector<char> staging(args.num_bytes);
  check_cl(clEnqueueReadBuffer(queue_of(args.src_device, nullptr), buffer_of(args.src), CL_TRUE, args.src_offset,
                               args.num_bytes, staging.data(), 0, nullptr, nullptr),
           "clEnqueueReadBuffer");
  check_cl(clEnqueueWriteBuffer(queue_of(args.dst_device, nullptr), buffer_of(args.dst), CL_TRUE, args.dst_offset,
                                args.num_bytes, staging.data(), 0, nullptr, nullptr),
           "clEnqueueWriteBuffer");
}

// Copies that touch host memory are blocking, as ember_copy_args requires.
void copy(const ember_copy_args* args) {
  if (args->num_bytes == 0) return;
  switch (args->kind) {
    case EMBER_COPY_HOST_TO_DEVICE:
      check_cl(clEnqueueWriteBuffer(queue_of(args->dst_device, args->stream), buffer_of(args->dst), CL_TRUE,
                                    args->dst_offset, args->num_bytes,
                                    static_cast<const char*>(args->src) + args->src_offset, 0, nullptr, nullptr),
               "clEnqueueWriteBuffer");
      break;
    case EMBER_COPY_DEVICE_TO_HOST:
      check_cl(
          clEnqueueReadBuffer(queue_of(args->src_device, args->stream), buffer_of(args->src), CL_TRUE, args->src_offset,
                              args->num_bytes, static_cast<char*>(args->dst) + args->dst_offset, 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
      break;
    case EMBER_COPY_DEVICE_TO_DEVICE:
      if (args->src_device == args->dst_device) {
        copy_on_device(*args, queue_of(args->src_device, args->stream));
      } else {
        check_cl(clFinish(queue_of(args->src_device, args->stream)), "clFinish");
        copy_between_devices(*args);
      }
      break;
    default:
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu: unknown copy kind " + std::to_string(args->kind));
  }
}

void stream_create(int32_t device, ember_stream_t* stream) { *stream = create_stream(device); }

void stream_destroy(int32_t, ember_stream_t stream) { destroy_stream(stream); }

void stream_synchronize(int32_t device, ember_stream_t stream) {
  check_cl(clFinish(queue_of(device, stream)), "clFinish");
}

void event_create(int32_t device, ember_event_t* event) {
  Devices::instance().at(device);
  *event = create_event();
}

void event_destroy(int32_t, ember_event_t event) { destroy_event(event); }

void event_record(int32_t device, ember_event_t event, ember_stream_t stream) {
  record_event(event, queue_of(device, stream));
}

void event_wait(int32_t device, ember_event_t event, ember_stream_t stream) {
  wait_event(event, queue_of(device, stream));
}

void event_synchronize(int32_t, ember_event_t event) { synchronize_event(event); }

void synchronize(int32_t device) { check_cl(clFinish(queue_of(device, nullptr)), "clFinish"); }

ember_device_api make_device_api() {
  // The OpenCL API is thread-safe, and so is every table the plugin keeps.
  ember_device_api api = sdk::device_table(
      "xpu", kDLOpenCL,
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

}  // namespace ember::xpu
