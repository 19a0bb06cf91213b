#include "extension.h"

#include <ember/kernel_ir/ekir.h>
#include <ember/ember_plugin.hpp>

#include <string>

#include "../devices.h"
#include "../dtypes.h"
#include "../profiling.h"
#include "generated_kernel.h"

namespace ember::xpu::codegen {
namespace {

void require_output(const ember_codegen_output* out) {
  if (out == nullptr || out->write == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: no output sink");
}

void write(ember_codegen_output* out, ember_codegen_artifact artifact, const std::string& bytes) {
  sdk::check(out->write(out, artifact, bytes.data(), bytes.size()));
}

void fingerprint(ember_codegen_output* out) {
  require_output(out);
  write(out, EMBER_CODEGEN_TEXT, devices_fingerprint());
}

// The options are a JSON object whose keys this generator does not read.
void compile(const char* ir, size_t ir_size, const char*, ember_codegen_output* out) {
  require_output(out);
  if (ir == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: the IR is NULL");
  const CompiledKernel compiled = compile_kernel(std::string_view(ir, ir_size));
  write(out, EMBER_CODEGEN_SOURCE, compiled.source);
  if (!compiled.log.empty()) write(out, EMBER_CODEGEN_LOG, compiled.log);
  write(out, EMBER_CODEGEN_BINARY, compiled.blob);
}

void load(const void* blob, size_t blob_size, ember_codegen_kernel_t* kernel) {
  if (kernel == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: load without a kernel to write");
  *kernel = reinterpret_cast<ember_codegen_kernel_t>(new GeneratedKernel(blob, blob_size));
}

void launch(ember_codegen_kernel_t kernel, const ember_codegen_launch_args* args) {
  if (kernel == nullptr || args == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: launch of NULL");
  reinterpret_cast<GeneratedKernel*>(kernel)->launch(*args);
}

void unload(ember_codegen_kernel_t kernel) { delete reinterpret_cast<GeneratedKernel*>(kernel); }

// float64 only where every device has cl_khr_fp64 (Note [XPU dtypes]).
std::string served_dtype_names() {
  std::string names;
  for (ember_dtype d : served_dtypes(Devices::instance().all_have_fp64())) {
    names += (names.empty() ? "" : " ") + std::string(sdk::dtype_name(d));
  }
  return names;
}

}  // namespace

const ember_codegen_extension& codegen_extension() {
  static const std::string ops = kernel_ir::all_op_names();
  static const std::string dtypes = served_dtype_names();
  static const ember_codegen_extension extension = [] {
    ember_codegen_extension e{};
    e.header = {sizeof(ember_codegen_extension), EMBER_EXTENSION_CODEGEN, &profiling_extension().header};
    e.device_type = "xpu";
    e.ir_versions = "1.0";
    e.ops = ops.c_str();
    e.dtypes = dtypes.c_str();
    e.thread_safety = EMBER_CODEGEN_COMPILE_THREAD_SAFE | EMBER_CODEGEN_LAUNCH_THREAD_SAFE;
    e.fingerprint = sdk::fenced<fingerprint>;
    e.compile = sdk::fenced<compile>;
    e.load = sdk::fenced<load>;
    e.launch = sdk::fenced<launch>;
    e.unload = sdk::fenced<unload>;
    return e;
  }();
  return extension;
}

}  // namespace ember::xpu::codegen
