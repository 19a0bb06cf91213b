// Streams are in-order OpenCL command queues; events are markers on them.
#pragma once

#include <ember/ember_plugin.h>

#include "opencl.h"

namespace ember::xpu {

// The queue behind a stream handle: NULL is the device's default queue,
// any other handle was made by create_stream for that device.
cl_command_queue queue_of(int32_t device, ember_stream_t stream);

ember_stream_t create_stream(int32_t device);
void destroy_stream(ember_stream_t stream);

// An event remembers the marker of its latest record; waiting on an event
// never recorded returns at once (as in CUDA).
ember_event_t create_event();
void destroy_event(ember_event_t event);
void record_event(ember_event_t event, cl_command_queue queue);
void wait_event(ember_event_t event, cl_command_queue queue);
void synchronize_event(ember_event_t event);

}  // namespace ember::xpu
