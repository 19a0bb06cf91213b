#include "extension.h"

#include <ember/kernel_ir/ekir.h>
#include <ember/sdk/code_generator.hpp>

#include <string>

#include "../devices.h"
#include "../native_handles.h"
#include "../runtime_error.h"
#include "architectures.h"
#include "compiled_kernel.h"
#include "cuda_codegen_sources.h"
#include "generated_kernel.h"
#include "nvrtc_compiler.h"

namespace ember::gpu::codegen {
namespace {

constexpr char kName[] = "cuda codegen";

// What decides a CUBIN besides the IR: the code this build writes (digests
// of the prelude, dialect and the SDK's kernel_ir library), NVRTC's version
// and options, each device's name and architecture, and the driver that
// loads the result. UNAVAILABLE, saying why, without a device.
std::string devices_fingerprint() {
  device_architectures();
  Devices& devices = Devices::instance();
  int driver = 0;
  check(cudaDriverGetVersion(&driver), "cudaDriverGetVersion");
  std::string options;
  for (const std::string& option : nvrtc_options()) options += " " + option;
  std::string text = std::string(kName) + " " + EMBER_GPU_PLUGIN_VERSION + " sources " +
                     embedded::kCudaCodegenSourcesDigest + " kernel_ir " + EMBER_KERNEL_IR_SOURCES_DIGEST +
                     "\nnvrtc " + nvrtc_version() + " driver " + std::to_string(driver) + " options" + options;
  for (int32_t d = 0; d < devices.count(); ++d) {
    text += "\ndevice " + std::to_string(d) + ": " + devices.at(d).name + " " +
            architecture_name(device_architecture(d));
  }
  return text;
}

// The options are a JSON object whose keys this generator does not read.
sdk::CompiledKernel compile(std::string_view ir, const char*) { return compile_kernel(ir, device_architectures()); }

}  // namespace

const ember_codegen_extension& codegen_extension() {
  static const std::string ops = kernel_ir::all_op_names();
  static const std::string dtypes = sdk::all_dtype_names();
  static const ember_codegen_extension extension =
      sdk::codegen_extension<GeneratedKernel, kName, devices_fingerprint, compile>(
          "cuda", ops.c_str(), dtypes.c_str(), &native_handles_extension().header);
  return extension;
}

}  // namespace ember::gpu::codegen
