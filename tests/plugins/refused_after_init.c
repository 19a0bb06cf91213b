/*
 * A plugin whose init succeeds and whose registration the core refuses (a
 * kernel, but no device): the core must call its shutdown hook once and keep the
 * library loaded. It exports the count of shutdown calls for the test.
 */
#include <ember/ember_plugin.h>

static const ember_host_api* g_host;

EMBER_PLUGIN_EXPORT int refused_after_init_shutdown_calls = 0;

static ember_status* kernel(const ember_kernel_call* call, void* data) {
  (void)call;
  (void)data;
  return NULL;
}

static ember_status* register_kernels(ember_registrar* registrar) {
  ember_kernel_registration registration = {0};
  registration.struct_size = sizeof registration;
  registration.op_name = "no_such_op";
  registration.dtype = EMBER_DTYPE_FLOAT32;
  registration.kernel = kernel;
  return g_host->register_kernel(registrar, &registration);
}

static void shutdown(void) { ++refused_after_init_shutdown_calls; }

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  g_host = host;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = EMBER_ABI_VERSION_MINOR;
  plugin->name = "refused_after_init";
  plugin->register_kernels = register_kernels;
  plugin->shutdown = shutdown;
  return NULL;
}
