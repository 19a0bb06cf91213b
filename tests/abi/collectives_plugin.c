/*
 * A collective engine without a device (ABI 1.3) for a world of one rank:
 * collectives copy their input to their output. At connection it writes a
 * key through the host's store and reads it back. A reduce-scatter fails
 * with DEADLINE_EXCEEDED, so that the core's wording of an engine's timeout
 * can be tested. Built several ways: COLLECTIVES_MINOR sets the minor it
 * declares, COLLECTIVES_BROKEN leaves run NULL, COLLECTIVES_DEVICE_TYPES
 * makes it an engine that reads those devices' memory in place (the toy
 * devices' memory is host memory): its all-reduce of float32 writes what
 * it was lent instead of reducing (the native device ordinal, the native
 * stream, the DLPack device type and index of the output).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ember/ember_plugin.h>

static const ember_host_api* g_host;

typedef struct {
  char value[16];
  size_t size;
} probe_sink;

static ember_status* write_probe(ember_byte_sink* sink, const void* data, size_t size) {
  probe_sink* probe = (probe_sink*)sink->context;
  if (probe->size + size > sizeof(probe->value)) return g_host->status_create(EMBER_STATUS_INTERNAL, "too long");
  memcpy(probe->value + probe->size, data, size);
  probe->size += size;
  return NULL;
}

#ifndef COLLECTIVES_DEVICE_TYPES
#define COLLECTIVES_DEVICE_TYPES "cpu"
#endif

typedef struct {
  int32_t device_index;
  int64_t ordinal; /* -1: no native handles were lent */
  const ember_native_handles_extension* handles;
} fake_communicator;

static ember_status* create(const ember_communicator_config* config, ember_communicator_t* out) {
  if (strcmp(config->device_type, COLLECTIVES_DEVICE_TYPES) != 0) {
    return g_host->status_create(EMBER_STATUS_INTERNAL, "connected for another device type");
  }
  if (config->world_size != 1) {
    return g_host->status_create(EMBER_STATUS_UNIMPLEMENTED, "this engine serves a world of one rank");
  }
  ember_status* status = config->store->set(config->store->host_context, "probe", "hello", 5);
  if (status != NULL) return status;
  probe_sink probe = {{0}, 0};
  ember_byte_sink sink = {sizeof(ember_byte_sink), write_probe, &probe};
  status = config->store->get(config->store->host_context, "probe", 1000, &sink);
  if (status != NULL) return status;
  if (probe.size != 5 || memcmp(probe.value, "hello", 5) != 0) {
    return g_host->status_create(EMBER_STATUS_INTERNAL, "the store gave back another value");
  }
  fake_communicator* communicator = (fake_communicator*)calloc(1, sizeof(fake_communicator));
  communicator->device_index = config->device_index;
  communicator->ordinal = -1;
  for (const ember_extension* e = config->extension; e != NULL; e = e->next) {
    if (e->type != EMBER_EXTENSION_NATIVE_HANDLES) continue;
    communicator->handles = (const ember_native_handles_extension*)e;
    status = communicator->handles->native_device(config->device_index, &communicator->ordinal);
    if (status != NULL) {
      free(communicator);
      return status;
    }
  }
  *out = (ember_communicator_t)communicator;
  return NULL;
}

static size_t bytes_of(const DLTensor* t) {
  size_t n = (t->dtype.bits + 7) / 8;
  for (int d = 0; d < t->ndim; ++d) n *= (size_t)t->shape[d];
  return n;
}

static ember_status* report_what_was_lent(fake_communicator* communicator, const ember_collective_call* call) {
  void* native = NULL;
  if (communicator->handles != NULL) {
    ember_status* status = communicator->handles->native_stream(communicator->device_index, call->stream, &native);
    if (status != NULL) return status;
  }
  float* values = (float*)((char*)call->output->data + call->output->byte_offset);
  values[0] = (float)communicator->ordinal;
  values[1] = (float)(uintptr_t)native;
  values[2] = (float)call->output->device.device_type;
  values[3] = (float)call->output->device.device_id;
  return NULL;
}

static ember_status* run(ember_communicator_t handle, const ember_collective_call* call) {
  fake_communicator* communicator = (fake_communicator*)handle;
  if (strcmp(COLLECTIVES_DEVICE_TYPES, "cpu") != 0 && call->kind == EMBER_COLLECTIVE_ALL_REDUCE &&
      call->output->dtype.code == kDLFloat && bytes_of(call->output) >= 4 * sizeof(float)) {
    return report_what_was_lent(communicator, call);
  }
  if (call->kind == EMBER_COLLECTIVE_REDUCE_SCATTER) {
    return g_host->status_create(EMBER_STATUS_DEADLINE_EXCEEDED, "fake engine: waited 1 ms for nobody");
  }
  if (call->input != NULL && call->output != NULL && call->input != call->output) {
    memcpy((char*)call->output->data + call->output->byte_offset,
           (const char*)call->input->data + call->input->byte_offset, bytes_of(call->input));
  }
  return NULL;
}

static ember_status* abort_communicator(ember_communicator_t communicator) {
  (void)communicator;
  return NULL;
}

static ember_status* destroy(ember_communicator_t communicator) {
  free(communicator);
  return NULL;
}

static ember_collectives_extension g_collectives;

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
  g_collectives.header.struct_size = sizeof(g_collectives);
  g_collectives.header.type = EMBER_EXTENSION_COLLECTIVES;
  g_collectives.engine = COLLECTIVES_ENGINE;
  g_collectives.device_types = COLLECTIVES_DEVICE_TYPES;
  g_collectives.dtypes = "float32 int64";
  g_collectives.create_communicator = create;
#ifndef COLLECTIVES_BROKEN
  g_collectives.run = run;
#endif
  g_collectives.abort = abort_communicator;
  g_collectives.destroy_communicator = destroy;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = COLLECTIVES_MINOR;
  plugin->extension = &g_collectives.header;
  plugin->name = COLLECTIVES_NAME;
  plugin->version = "0.1";
  return NULL;
}
