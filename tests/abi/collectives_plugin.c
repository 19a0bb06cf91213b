/*
 * A collective engine without a device (ABI 1.3) for a world of one rank:
 * collectives copy their input to their output. At connection it writes a
 * key through the host's store and reads it back. A reduce-scatter fails
 * with DEADLINE_EXCEEDED, so that the core's wording of an engine's timeout
 * can be tested. Built several ways: COLLECTIVES_MINOR sets the minor it
 * declares, COLLECTIVES_BROKEN leaves run NULL.
 */
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

static ember_status* create(const ember_communicator_config* config, ember_communicator_t* out) {
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
  *out = (ember_communicator_t)malloc(1);
  return NULL;
}

static size_t bytes_of(const DLTensor* t) {
  size_t n = (t->dtype.bits + 7) / 8;
  for (int d = 0; d < t->ndim; ++d) n *= (size_t)t->shape[d];
  return n;
}

static ember_status* run(ember_communicator_t communicator, const ember_collective_call* call) {
  (void)communicator;
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
  g_collectives.device_types = "cpu";
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
