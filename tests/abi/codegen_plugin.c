/*
 * A code generator without a device (ABI 1.2): its "binary" is the kernel
 * IR it was given, prefixed. Built several ways: CODEGEN_MINOR sets the
 * minor it declares, CODEGEN_BROKEN leaves compile NULL.
 */
#include <string.h>

#include <ember/ember_plugin.h>

static const char kPrefix[] = "fake-binary:";

static ember_status* fingerprint(ember_codegen_output* out) {
  static const char text[] = "fake generator 1";
  return out->write(out, EMBER_CODEGEN_TEXT, text, sizeof(text) - 1);
}

static ember_status* compile(const char* ir, size_t ir_size, const char* options, ember_codegen_output* out) {
  (void)options;
  ember_status* status = out->write(out, EMBER_CODEGEN_BINARY, kPrefix, sizeof(kPrefix) - 1);
  return status != NULL ? status : out->write(out, EMBER_CODEGEN_BINARY, ir, ir_size);
}

static int g_kernel;

static ember_status* load(const void* blob, size_t size, ember_codegen_kernel_t* kernel) {
  (void)blob;
  (void)size;
  *kernel = (ember_codegen_kernel_t)&g_kernel;
  return NULL;
}

static ember_status* launch(ember_codegen_kernel_t kernel, const ember_codegen_launch_args* args) {
  (void)kernel;
  (void)args;
  return NULL;
}

static ember_status* unload(ember_codegen_kernel_t kernel) {
  (void)kernel;
  return NULL;
}

static ember_codegen_extension g_codegen;

EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host, ember_plugin* plugin) {
  (void)host;
  g_codegen.header.struct_size = sizeof(g_codegen);
  g_codegen.header.type = EMBER_EXTENSION_CODEGEN;
  g_codegen.device_type = CODEGEN_DEVICE;
  g_codegen.ir_versions = "1.0";
  g_codegen.ops = "load store sin";
  g_codegen.dtypes = "float32";
  g_codegen.fingerprint = fingerprint;
#ifndef CODEGEN_BROKEN
  g_codegen.compile = compile;
#endif
  g_codegen.load = load;
  g_codegen.launch = launch;
  g_codegen.unload = unload;
  plugin->abi_major = EMBER_ABI_VERSION_MAJOR;
  plugin->abi_minor = CODEGEN_MINOR;
  plugin->extension = &g_codegen.header;
  plugin->name = CODEGEN_NAME;
  plugin->version = "0.1";
  return NULL;
}
