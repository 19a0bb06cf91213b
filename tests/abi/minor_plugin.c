/*
 * A host-memory device of 1 MiB with float32 kernels, built as a plugin of
 * a chosen ABI minor by redefining the header's version macro, the way a
 * plugin built against an older or newer SDK would be:
 *   MINOR_PLUGIN_NAME / MINOR_PLUGIN_DEVICE  its name and device type
 *   MINOR_PLUGIN_FUTURE   built as ABI 1.(core minor + 3): every struct it
 *                         fills carries a field this core does not know
 *   MINOR_PLUGIN_CURRENT  built as this SDK builds it
 *   (otherwise)           built as ABI 1.0 with the 1.0 struct sizes
 * Its kernels:
 *   neg                  out = -x
 *   abs                  asks for more scratch than the device has and
 *                        fails: from ABI 1.1 with the code and message it
 *                        read from the host's status, in 1.0 by passing
 *                        that status on
 *   max_pool2d_backward  an op of ABI 1.1 (fails UNIMPLEMENTED if run): the
 *                        1.0 build registers it as 1.0 plugins could, later
 *                        builds only where the host's minor has it
 *   op_of_a_later_minor  (future build) an op this core does not know
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ember/ember_plugin.h>

enum { kCoreMinor = EMBER_ABI_VERSION_MINOR };
#if defined(MINOR_PLUGIN_FUTURE)
#undef EMBER_ABI_VERSION_MINOR
#define EMBER_ABI_VERSION_MINOR (kCoreMinor + 3)
#elif !defined(MINOR_PLUGIN_CURRENT)
#undef EMBER_ABI_VERSION_MINOR
#define EMBER_ABI_VERSION_MINOR 0
#define MINOR_PLUGIN_V1_0 /* for the preprocessor, which cannot read kCoreMinor */
#endif

#define DEVICE_CAPACITY ((size_t)1 << 20)

#if defined(MINOR_PLUGIN_FUTURE)
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
#if defined(MINOR_PLUGIN_CURRENT)
#define DEVICE_API_SIZE sizeof(ember_device_api)
#define REGISTRATION_SIZE sizeof(ember_kernel_registration)
#define PLUGIN_SIZE sizeof(ember_plugin)
#else
#define DEVICE_API_SIZE EMBER_DEVICE_API_SIZE_V1_0
#define REGISTRATION_SIZE EMBER_KERNEL_REGISTRATION_SIZE_V1_0
#define PLUGIN_SIZE EMBER_PLUGIN_SIZE_V1_0
#endif
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
  if (num_bytes > DEVICE_CAPACITY) return g_host->status_create(EMBER_STATUS_OUT_OF_MEMORY, "the device has 1 MiB");
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

#ifdef MINOR_PLUGIN_V1_0
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
#ifdef MINOR_PLUGIN_V1_0
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

/* What a kernel returns when the host refuses it scratch memory. */
static ember_status* scratch_refused(ember_status* status) {
#ifndef MINOR_PLUGIN_V1_0
  if (g_host->struct_size >= EMBER_STRUCT_SIZE(ember_host_api, status_message)) {
    char message[512];
    const ember_status_code code = g_host->status_code(status);
    snprintf(message, sizeof message, "scratch refused (code %d): %s", (int)code, g_host->status_message(status));
    g_host->status_destroy(status);
    return g_host->status_create(code, message);
  }
#endif
  return status; /* a 1.0 host's status cannot be read, only passed on */
}

static ember_status* abs_kernel(const ember_kernel_call* call, void* data) {
  (void)data;
  void* scratch = NULL;
  ember_status* status = call->allocate_scratch(call, 2 * DEVICE_CAPACITY, &scratch);
  if (status != NULL) return scratch_refused(status);
  return g_host->status_create(EMBER_STATUS_INTERNAL, "the host gave more scratch than the device has");
}

static ember_status* unimplemented_kernel(const ember_kernel_call* call, void* data) {
  (void)data;
  char message[128];
  snprintf(message, sizeof message, "%s is registered, not computed, by this test plugin", call->op_name);
  return g_host->status_create(EMBER_STATUS_UNIMPLEMENTED, message);
}

static ember_status* register_float32(ember_registrar* registrar, const char* op_name, ember_kernel_fn kernel) {
  registration_t registration;
  memset(&registration, 0, sizeof(registration));
  registration.known.struct_size = REGISTRATION_SIZE;
  registration.known.op_name = op_name;
  registration.known.dtype = EMBER_DTYPE_FLOAT32;
  registration.known.kernel = kernel;
  registration.known.flags = EMBER_KERNEL_THREAD_SAFE;
  return g_host->register_kernel(registrar, &registration.known);
}

static ember_status* register_kernels(ember_registrar* registrar) {
  ember_status* status = register_float32(registrar, "neg", neg_kernel);
  if (status == NULL) status = register_float32(registrar, "abs", abs_kernel);
  /* An op of ABI 1.1: a 1.0 core quarantines a plugin that registers it. */
  if (status == NULL && (EMBER_ABI_VERSION_MINOR == 0 || g_host->abi_minor >= 1)) {
    status = register_float32(registrar, "max_pool2d_backward", unimplemented_kernel);
  }
#if defined(MINOR_PLUGIN_FUTURE)
  /* Registered whatever the host's minor, as a plugin that does not check
   * its ops' minors would: a 1.1 core skips it and keeps the others. */
  if (status == NULL) status = register_float32(registrar, "op_of_a_later_minor", unimplemented_kernel);
#endif
  return status;
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
