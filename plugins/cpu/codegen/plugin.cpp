// Entry point of the cpu_codegen plugin: a code generator without a device
// (ABI 1.2) that compiles EKIR kernels for CPU tensors into shared objects
// with the system C++ compiler. It needs nothing of the CPU device plugin.
#include <ember/ember_plugin.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "../parallel.h"
#include "blob.h"
#include "cpp_source.h"
#include "embedded_sources.h"
#include "loaded_kernel.h"
#include "system_compiler.h"

namespace ember::cpu_codegen {
namespace {

void write(ember_codegen_output* out, ember_codegen_artifact artifact, const void* data, size_t size) {
  sdk::check(out->write(out, artifact, data, size));
}

void require_output(const ember_codegen_output* out) {
  if (out == nullptr || out->write == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cpu_codegen: no output sink");
}

void fingerprint(ember_codegen_output* out) {
  require_output(out);
  const std::string& text = find_toolchain().fingerprint;
  write(out, EMBER_CODEGEN_TEXT, text.data(), text.size());
}

void compile(const char* ir, size_t ir_size, const char* options, ember_codegen_output* out) {
  require_output(out);
  if (ir == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cpu_codegen: the IR is NULL");
  // The options are a JSON object; this generator knows none of its keys.
  if (options != nullptr) {
    const nlohmann::json parsed = nlohmann::json::parse(options, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
                "cpu_codegen: options are not a JSON object: " + std::string(options).substr(0, 80));
    }
  }
  const std::string_view text(ir, ir_size);
  const Kernel kernel = parse_ekir(text);
  const Toolchain& toolchain = find_toolchain();
  const CppSource source = generate_cpp_source(kernel, toolchain.simd_functions);
  write(out, EMBER_CODEGEN_SOURCE, source.text.data(), source.text.size());
  std::vector<SourceFile> headers;
  if (source.requirements.scalar_rules) {
    for (const embedded::Header& header : embedded::kSdkHeaders) headers.push_back({header.path, header.text});
  }
  std::vector<std::string> libraries;
  for (const std::string& function : source.requirements.math_functions) {
    if (toolchain.simd_functions.count(function) != 0) libraries = {"-lmvec"};
  }
  const CompileResult compiled = compile_shared_object(toolchain, kernel.name, source.text, headers, libraries);
  if (!compiled.log.empty()) write(out, EMBER_CODEGEN_LOG, compiled.log.data(), compiled.log.size());
  const std::vector<unsigned char> blob = write_blob(source.symbol, text, compiled.shared_object);
  write(out, EMBER_CODEGEN_BINARY, blob.data(), blob.size());
}

void load(const void* blob, size_t blob_size, ember_codegen_kernel_t* kernel) {
  if (kernel == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cpu_codegen: load without a kernel to write");
  *kernel = reinterpret_cast<ember_codegen_kernel_t>(new LoadedKernel(blob, blob_size));
}

void launch(ember_codegen_kernel_t kernel, const ember_codegen_launch_args* args) {
  if (kernel == nullptr || args == nullptr) sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "cpu_codegen: launch of NULL");
  reinterpret_cast<const LoadedKernel*>(kernel)->launch(*args);
}

void unload(ember_codegen_kernel_t kernel) { delete reinterpret_cast<LoadedKernel*>(kernel); }

std::string all_dtype_names() {
  std::string names;
  for (int d = 0; d < EMBER_DTYPE_COUNT_V1_0; ++d) {
    names += (d > 0 ? " " : "") + std::string(sdk::dtype_name(static_cast<ember_dtype>(d)));
  }
  return names;
}

const ember_codegen_extension& codegen_extension() {
  static const std::string ops = all_op_names();
  static const std::string dtypes = all_dtype_names();
  static const ember_codegen_extension extension = [] {
    ember_codegen_extension e{};
    e.header = {sizeof(ember_codegen_extension), EMBER_EXTENSION_CODEGEN, nullptr};
    e.device_type = "cpu";
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

ember_plugin describe_plugin() {
  // Apart from the CPU plugin's pool's "ember-cpu" threads.
  cpu::set_worker_name("ember-codegen");
  ember_plugin plugin{};
  plugin.name = "cpu_codegen";
  plugin.version = EMBER_CPU_CODEGEN_VERSION;
  plugin.extension = &codegen_extension().header;
  return plugin;
}

}  // namespace
}  // namespace ember::cpu_codegen

EMBER_PLUGIN_ENTRY(ember::cpu_codegen::describe_plugin)
