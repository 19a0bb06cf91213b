#include "stream.h"

#include <mutex>

#include <ember/ember_plugin.hpp>

#include "devices.h"

namespace ember::xpu {

namespace {

struct Stream {
  int32_t device;
  cl_command_queue queue;
};

struct Event {
  std::mutex mutex;
  cl_event marker = nullptr;  // latest record, or NULL
};

Stream* stream_cast(ember_stream_t stream) { return reinterpret_cast<Stream*>(stream); }
Event* event_cast(ember_event_t event) { return reinterpret_cast<Event*>(event); }

// Takes a reference to the event's marker so a concurrent record cannot
// release it while it is used.
cl_event retain_marker(Event* event) {
  const std::lock_guard lock(event->mutex);
  if (event->marker != nullptr) clRetainEvent(event->marker);
  return event->marker;
}

}  // namespace

cl_command_queue queue_of(int32_t device, ember_stream_t stream) {
  if (stream == nullptr) return Devices::instance().at(device).default_queue;
  Stream* s = stream_cast(stream);
  if (s->device != device) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu: a stream of device " + std::to_string(s->device) +
                                                 " was used on device " + std::to_string(device));
  }
  return s->queue;
}

ember_stream_t create_stream(int32_t device) {
  const Device& d = Devices::instance().at(device);
  cl_int error = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(d.context, d.id, CL_QUEUE_PROFILING_ENABLE, &error);
  check_cl(error, "clCreateCommandQueue");
  return reinterpret_cast<ember_stream_t>(new Stream{device, queue});
}

void destroy_stream(ember_stream_t stream) {
  if (stream == nullptr) return;
  Stream* s = stream_cast(stream);
  clFinish(s->queue);
  clReleaseCommandQueue(s->queue);
  delete s;
}

ember_event_t create_event() { return reinterpret_cast<ember_event_t>(new Event()); }

void destroy_event(ember_event_t event) {
  Event* e = event_cast(event);
  if (e->marker != nullptr) clReleaseEvent(e->marker);
  delete e;
}

void record_event(ember_event_t event, cl_command_queue queue) {
  cl_event marker = nullptr;
  check_cl(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
  Event* e = event_cast(event);
  const std::lock_guard lock(e->mutex);
  if (e->marker != nullptr) clReleaseEvent(e->marker);
  e->marker = marker;
}

void wait_event(ember_event_t event, cl_command_queue queue) {
  cl_event marker = retain_marker(event_cast(event));
  if (marker == nullptr) return;
  const cl_int error = clEnqueueBarrierWithWaitList(queue, 1, &marker, nullptr);
  clReleaseEvent(marker);
  check_cl(error, "clEnqueueBarrierWithWaitList");
}

void synchronize_event(ember_event_t event) {
  cl_event marker = retain_marker(event_cast(event));
  if (marker == nullptr) return;
  const cl_int error = clWaitForEvents(1, &marker);
  clReleaseEvent(marker);
  check_cl(error, "clWaitForEvents");
}

}  // namespace ember::xpu
