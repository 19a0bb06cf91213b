/*
 * A host-memory device with one kernel (float32 neg), built as a plugin of
 * another ABI minor than the core's by redefining the header's version
 * macro, the way a plugin built against an older or newer SDK would be:
 *   MINOR_PLUGIN_NAME / MINOR_PLUGIN_DEVICE  its name and device type
 *   MINOR_PLUGIN_FUTURE   built as ABI 1.(core minor + 3): every struct it
 *                         fills carries a field this core does not know
 *   (otherwise)           built as ABI 1.0 with the 1.0 struct sizes
 */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

#include <ember/ember_plugin.h>

enum { kCoreMinor = EMBER_ABI_VERSION_MINOR };
#undef EMBER_ABI_VERSION_MINOR
#ifdef MINOR_PLUGIN_FUTURE
#define EMBER_ABI_VERSION_MINOR (kCoreMinor + 3)
#else
#define EMBER_ABI_VERSION_MINOR 0
#endif

#ifdef MINOR_PLUGIN_FUTURE
typedef struct device_api_t {
  ember_device_api known;
  ember_status* (*function_added_later)(int32_t device);
} device_api_t;
typedef struct registration_t {
  ember_kernel_registration known;
  uint64_t field_added_later;
} registration_t;
typedef struct plugin_t {
  ember_plugin known;
  const char* field_added_later;
} plugin_t;
#define DEVICE_API_SIZE sizeof(device_api_t)
#define REGISTRATION_SIZE sizeof(registration_t)
#define PLUGIN_SIZE sizeof(plugin_t)
#else
typedef struct device_api_t {
  ember_device_api known;
} device_api_t;
typedef struct registration_t {
  ember_kernel_registration known;
} registration_t;
/* The ABI 1.0 sizes: up to each struct's last 1.0 field. */
#define DEVICE_API_SIZE (offsetof(ember_device_api, supports_op) + sizeof(void*))
#define REGISTRATION_SIZE (offsetof(ember_kernel_registration, flags) + sizeof(uint32_t))
#define PLUGIN_SIZE (offsetof(ember_plugin, shutdown) + sizeof(void*))
#endif

static const ember_host_api* g_host;

static ember_status* device_count(int32_t* count) {
  *count = 1;
  return NULL;
}

static ember_status* device_properties(int32_t device, ember_device_properties* props) {
  (void)device;
  props->name = MINOR_PLUGIN_NAME;
  return NULL;
}

static ember_status* allocate(int32_t device, size_t num_bytes, size_t alignment, void** ptr) {
  (void)device;
  *ptr = NULL;
  if (num_bytes == 0) return NULL;
  if (posix_memalign(ptr, alignment, num_bytes) != 0) {
    return g_host->status_create(EMBER_STATUS_OUT_OF_MEMORY, "out of host memory");
  }
  return NULL;
}

static ember_status* deallocate(int32_t device, void* ptr) {
  (void)device;
  free(ptr);
  return NULL;
}

static ember_status* copy(const ember_copy_args* args) {
  if (args->num_bytes != 0) {
    memmove((char*)args->dst + args->dst_offset, (const char*)args->src + args->src_offset, args->num_bytes);
  }
  return NULL;
}

static ember_status* synchronize(int32_t device) {
  (void)device;
  return NULL;
}

#ifndef MINOR_PLUGIN_FUTURE
/* Slots of later minors lie past a 1.0 table's struct_size, where a real 1.0
 * plugin has whatever memory follows its table: a core that reads them calls
 * these and fails. */
static ember_status* set_num_threads_past_struct_size(int32_t num_threads) {
  (void)num_threads;
  return g_host->status_create(EMBER_STATUS_INTERNAL, "the core called a slot past a 1.0 table's struct_size");
}
static ember_status* get_num_threads_past_struct_size(int32_t* num_threads) {
  *num_threads = -1;
  return g_host->status_create(EMBER_STATUS_INTERNAL, "the core called a slot past a 1.0 table's struct_size");
}
#endif

static device_api_t g_device = {
    .known =
        {
            .struct_size = DEVICE_API_SIZE,
            .device_type = MINOR_PLUGIN_DEVICE,
            .dl_device_type = kDLExtDev,
            .device_count = device_count,
            .device_properties = device_properties,
            .allocate = allocate,
            .deallocate = deallocate,
            .copy = copy,
            .synchronize = synchronize,
#ifndef MINOR_PLUGIN_FUTURE
            .set_num_threads = set_num_threads_past_struct_size,
            .get_num_threads = get_num_threads_past_struct_size,
#endif
        },
};

/* out = -x over any shape and strides. */
static ember_status* neg_kernel(const ember_kernel_call* call, void* data) {
  (void)data;
  const DLTensor* x = &call->inputs[0];
  const DLTensor* out = &call->outputs[0];
  int64_t index[32] = {0};
  int64_t count = 1;
  for (int d = 0; d < x->ndim; ++d) count *= x->shape[d];
  for (int64_t n = 0; n < count; ++n) {
    int64_t x_offset = 0, out_offset = 0;
    for (int d = 0; d < x->ndim; ++d) {
      x_offset += index[d] * x->strides[d];
      out_offset += index[d] * out->strides[d];
    }
    ((float*)((char*)out->data + out->byte_offset))[out_offset] =
        -((const float*)((const char*)x->data + x->byte_offset))[x_offset];
    for (int d = x->ndim - 1; d >= 0 && ++index[d] == x->shape[d]; --d) index[d] = 0;
  }
  return NULL;
}

static ember_status* register_kernels(ember_registrar* registrar) {
  registration_t registration;
  memset(&registration, 0, sizeof(registration));
  registration.known.struct_size = REGISTRATION_SIZE;
  registration.known.op_name = "neg";
  registration.known.dtype = EMBER_DTYPE_FLOAT32;
  registration.known.kernel = neg_kernel;
  registration.known.flags = EMBER_KERNEL_THREAD_SAFE;
  return g_host->register_kernel(registrar, &registration.known);
}

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
#ifdef MINOR_PLUGIN_FUTURE
  /* The new field is written only where the host's struct has room for it. */
  if (plugin->struct_size >= sizeof(plugin_t)) ((plugin_t*)plugin)->field_added_later = "later";
#endif
  plugin->struct_size = PLUGIN_SIZE;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = MINOR_PLUGIN_NAME;
  plugin->version = "1.0";
  plugin->device = &g_device.known;
  plugin->register_kernels = register_kernels;
  return NULL;
}
