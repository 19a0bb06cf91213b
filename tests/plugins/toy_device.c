/*
 * A host-memory device for the loader and allocator tests. One source builds
 * several plugins; each target picks its variant with compile definitions:
 *   TOY_NAME              the plugin's name
 *   TOY_DEVICE_TYPE       the device type it claims
 *   TOY_KERNEL_OP         optional: registers a float32 kernel for this op that
 *                         fails with "kernel exploded"
 *   TOY_NULL_KERNEL       optional: registers that kernel with a NULL function
 *   TOY_TRUNCATE_AT_COPY  optional: its ember_device_api ends before `copy`
 *   TOY_STREAMS           optional: stream and event slots (streams are
 *                         numbered handles, events complete at once) and the
 *                         TOY_KERNEL_OP kernel writes the number of the stream
 *                         it was called on into every element of its output,
 *                         after taking TOY_SCRATCH_BYTES of scratch memory
 *   TOY_REFUSES_OPS       optional: a supports_op that says no to everything
 *   TOY_NATIVE_HANDLES    optional (with TOY_STREAMS): native handles (ABI
 *                         1.3) of API "toy": stream n is native 1000 + n,
 *                         device d is ordinal 10 + d
 * It has two devices of TOY_CAPACITY bytes each, declares nothing
 * thread-safe, and answers a concurrent call into its allocator with an
 * error, so a test can see whether the core serialises calls.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ember/ember_plugin.h>

#define TOY_DEVICES 2
#define TOY_CAPACITY ((size_t)8 << 20)

static const ember_host_api* g_host;
static size_t g_used[TOY_DEVICES];
static int g_calls_in_progress;

/* Each block is preceded by its size and its offset from the raw pointer. */
typedef struct block_header {
  size_t size;
  size_t offset;
} block_header;

static ember_status* enter_allocator(void) {
  if (__atomic_fetch_add(&g_calls_in_progress, 1, __ATOMIC_SEQ_CST) != 0) {
    __atomic_fetch_sub(&g_calls_in_progress, 1, __ATOMIC_SEQ_CST);
    return g_host->status_create(EMBER_STATUS_INTERNAL, "concurrent call into an allocator not declared thread-safe");
  }
  /* Long enough that two unserialised calls overlap. */
  struct timespec pause = {0, 20000};
  nanosleep(&pause, NULL);
  return NULL;
}

static void leave_allocator(void) { __atomic_fetch_sub(&g_calls_in_progress, 1, __ATOMIC_SEQ_CST); }

static ember_status* bad_device(int32_t device) {
  return device >= 0 && device < TOY_DEVICES ? NULL
                                             : g_host->status_create(EMBER_STATUS_OUT_OF_RANGE, "no such toy device");
}

static ember_status* toy_device_count(int32_t* count) {
  *count = TOY_DEVICES;
  return NULL;
}

static ember_status* toy_device_properties(int32_t device, ember_device_properties* props) {
  ember_status* status = bad_device(device);
  if (status != NULL) return status;
  props->name = "toy device";
  props->total_memory = TOY_CAPACITY;
  props->compute_units = 1;
  return NULL;
}

static ember_status* toy_allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr) {
  ember_status* status = bad_device(device);
  if (status == NULL) status = enter_allocator();
  if (status != NULL) return status;
  void* raw = NULL;
  if (g_used[device] + num_bytes > TOY_CAPACITY) {
    status = g_host->status_create(EMBER_STATUS_OUT_OF_MEMORY, "toy device is full");
  } else if (posix_memalign(&raw, alignment, alignment + num_bytes) != 0) {
    status = g_host->status_create(EMBER_STATUS_OUT_OF_MEMORY, "host memory exhausted");
  } else {
    char* data = (char*)raw + alignment;
    block_header header = {num_bytes, alignment};
    memcpy(data - sizeof(header), &header, sizeof(header));
    g_used[device] += num_bytes;
    *ptr = data;
  }
  leave_allocator();
  return status;
}

static ember_status* toy_deallocate(int32_t device, void* ptr) {
  ember_status* status = bad_device(device);
  if (status == NULL) status = enter_allocator();
  if (status != NULL) return status;
  block_header header;
  memcpy(&header, (char*)ptr - sizeof(header), sizeof(header));
  g_used[device] -= header.size;
  free((char*)ptr - header.offset);
  leave_allocator();
  return NULL;
}

static ember_status* toy_copy(const ember_copy_args* args) {
  memcpy((char*)args->dst + args->dst_offset, (const char*)args->src + args->src_offset, args->num_bytes);
  return NULL;
}

static ember_status* toy_synchronize(int32_t device) { return bad_device(device); }

#ifdef TOY_STREAMS
static uintptr_t g_next_stream = 1;

static ember_status* toy_stream_create(int32_t device, ember_stream_t* stream) {
  *stream = (ember_stream_t)g_next_stream++;
  return bad_device(device);
}

static ember_status* toy_stream_or_event_call(int32_t device, void* handle) {
  (void)handle;
  return bad_device(device);
}

static ember_status* toy_stream_destroy(int32_t device, ember_stream_t stream) {
  return toy_stream_or_event_call(device, stream);
}

static ember_status* toy_stream_synchronize(int32_t device, ember_stream_t stream) {
  return toy_stream_or_event_call(device, stream);
}

static ember_status* toy_event_create(int32_t device, ember_event_t* event) {
  *event = (ember_event_t)malloc(1);
  return bad_device(device);
}

static ember_status* toy_event_destroy(int32_t device, ember_event_t event) {
  free(event);
  return bad_device(device);
}

static ember_status* toy_event_on_stream(int32_t device, ember_event_t event, ember_stream_t stream) {
  (void)stream;
  return toy_stream_or_event_call(device, event);
}

static ember_status* toy_event_synchronize(int32_t device, ember_event_t event) {
  return toy_stream_or_event_call(device, event);
}
#endif

#ifdef TOY_REFUSES_OPS
static ember_status* toy_supports_op(const ember_op_query* query, int32_t* supported) {
  (void)query;
  *supported = 0;
  return NULL;
}
#endif

static ember_device_api g_device = {
#ifdef TOY_TRUNCATE_AT_COPY
    .struct_size = offsetof(ember_device_api, copy),
#else
    .struct_size = sizeof(ember_device_api),
#endif
    .device_type = TOY_DEVICE_TYPE,
    .dl_device_type = kDLExtDev,
    .thread_safety = 0,
    .device_count = toy_device_count,
    .device_properties = toy_device_properties,
    .allocate = toy_allocate,
    .deallocate = toy_deallocate,
    .copy = toy_copy,
    .synchronize = toy_synchronize,
#ifdef TOY_STREAMS
    .stream_create = toy_stream_create,
    .stream_destroy = toy_stream_destroy,
    .stream_synchronize = toy_stream_synchronize,
    .event_create = toy_event_create,
    .event_destroy = toy_event_destroy,
    .event_record = toy_event_on_stream,
    .event_wait = toy_event_on_stream,
    .event_synchronize = toy_event_synchronize,
#endif
#ifdef TOY_REFUSES_OPS
    .supports_op = toy_supports_op,
#endif
};

#if defined(TOY_KERNEL_OP) && defined(TOY_STREAMS)
/* Host memory, a contiguous float32 output: enough for the stream tests. */
#define TOY_SCRATCH_BYTES ((size_t)64 << 10)
static ember_status* stream_number_kernel(const ember_kernel_call* call, void* data) {
  (void)data;
  void* scratch = NULL;
  ember_status* status = call->allocate_scratch(call, TOY_SCRATCH_BYTES, &scratch);
  if (status != NULL) return status;
  const DLTensor* out = &call->outputs[0];
  int64_t count = 1;
  for (int32_t d = 0; d < out->ndim; ++d) count *= out->shape[d];
  float* values = (float*)((char*)out->data + out->byte_offset);
  for (int64_t i = 0; i < count; ++i) values[i] = (float)(uintptr_t)call->stream;
  return NULL;
}
#define TOY_KERNEL stream_number_kernel
#elif defined(TOY_KERNEL_OP)
static ember_status* exploding_kernel(const ember_kernel_call* call, void* data) {
  (void)call;
  (void)data;
  return g_host->status_create(EMBER_STATUS_INTERNAL, "kernel exploded");
}
#define TOY_KERNEL exploding_kernel
#endif

static ember_status* toy_register_kernels(ember_registrar* registrar) {
#ifdef TOY_KERNEL_OP
  ember_kernel_registration kernel;
  memset(&kernel, 0, sizeof(kernel));
  kernel.struct_size = sizeof(kernel);
  kernel.op_name = TOY_KERNEL_OP;
  kernel.dtype = EMBER_DTYPE_FLOAT32;
#ifdef TOY_NULL_KERNEL
  kernel.kernel = NULL;
#else
  kernel.kernel = TOY_KERNEL;
#endif
#ifdef TOY_SERIAL_KERNEL
  kernel.flags = 0;
#else
  kernel.flags = EMBER_KERNEL_THREAD_SAFE;
#endif
  return g_host->register_kernel(registrar, &kernel);
#else
  (void)registrar;
  return NULL;
#endif
}

#ifdef TOY_NATIVE_HANDLES
static ember_status* toy_native_stream(int32_t device, ember_stream_t stream, void** native) {
  ember_status* status = bad_device(device);
  if (status != NULL) return status;
  *native = (void*)(1000 + (uintptr_t)stream);
  return NULL;
}

static ember_status* toy_native_device(int32_t device, int64_t* ordinal) {
  ember_status* status = bad_device(device);
  if (status != NULL) return status;
  *ordinal = 10 + device;
  return NULL;
}

static const ember_native_handles_extension g_native_handles = {
    .header = {sizeof(ember_native_handles_extension), EMBER_EXTENSION_NATIVE_HANDLES, NULL},
    .api = "toy",
    .native_stream = toy_native_stream,
    .native_device = toy_native_device,
};
#endif

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = TOY_NAME;
  plugin->version = "0.1";
  plugin->device = &g_device;
  plugin->register_kernels = toy_register_kernels;
#ifdef TOY_NATIVE_HANDLES
  plugin->extension = &g_native_handles.header;
#endif
  return NULL;
}
