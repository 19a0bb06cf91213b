// Entry point of the cpu_codegen plugin: a code generator without a device
// (ABI 1.2) that compiles EKIR kernels for CPU tensors into shared objects
// with the system C++ compiler. It needs nothing of the CPU device plugin.
#include <ember/ember_plugin.hpp>
#include <ember/sdk/code_generator.hpp>

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

constexpr char kName[] = "cpu_codegen";

std::string fingerprint() { return find_toolchain().fingerprint; }

sdk::CompiledKernel compile(std::string_view ir, const char* options) {
  // The options are a JSON object; this generator knows none of its keys.
  if (options != nullptr) {
    const nlohmann::json parsed = nlohmann::json::parse(options, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
                "cpu_codegen: options are not a JSON object: " + std::string(options).substr(0, 80));
    }
  }
  const Kernel kernel = parse_ekir(ir);
  const Toolchain& toolchain = find_toolchain();
  const CppSource source = generate_cpp_source(kernel, toolchain.simd_functions);
  std::vector<SourceFile> headers;
  if (source.requirements.scalar_rules) {
    for (const embedded::Header& header : embedded::kSdkHeaders) headers.push_back({header.path, header.text});
  }
  std::vector<std::string> libraries;
  for (const std::string& function : source.requirements.math_functions) {
    if (toolchain.simd_functions.count(function) != 0) libraries = {"-lmvec"};
  }
  const CompileResult compiled = compile_shared_object(toolchain, kernel.name, source.text, headers, libraries);
  const std::vector<unsigned char> blob = write_blob(source.symbol, ir, compiled.shared_object);
  return {std::string(blob.begin(), blob.end()), source.text, compiled.log};
}

const ember_codegen_extension& codegen_extension() {
  static const std::string ops = all_op_names();
  static const std::string dtypes = sdk::all_dtype_names();
  static const ember_codegen_extension extension =
      sdk::codegen_extension<LoadedKernel, kName, fingerprint, compile>("cpu", ops.c_str(), dtypes.c_str(), nullptr);
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
