#include "nvrtc_compiler.h"

#include <nvrtc.h>

#include <ember/sdk/status.hpp>

#include <cstdlib>
#include <sstream>

namespace ember::gpu::codegen {
namespace {

void check_nvrtc(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) {
    sdk::fail(EMBER_STATUS_INTERNAL, std::string("cuda codegen: ") + what + " failed: " + nvrtcGetErrorString(result));
  }
}

// Destroys the program whichever way compile_cubin leaves.
class Program {
 public:
  Program(const std::string& source, const std::string& name) {
    check_nvrtc(nvrtcCreateProgram(&program_, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr),
                "nvrtcCreateProgram");
  }
  ~Program() { nvrtcDestroyProgram(&program_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return program_; }

  std::string log() const {
    size_t size = 0;
    check_nvrtc(nvrtcGetProgramLogSize(program_, &size), "nvrtcGetProgramLogSize");
    std::string text(size, '\0');
    if (size > 0) check_nvrtc(nvrtcGetProgramLog(program_, text.data()), "nvrtcGetProgramLog");
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    return text;
  }

 private:
  nvrtcProgram program_ = nullptr;
};

}  // namespace

std::string architecture_name(int compute_capability) { return "sm_" + std::to_string(compute_capability); }

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtc_options() {
  std::vector<std::string> options = {"--fmad=false", "--std=c++17"};
  if (const char* extra = std::getenv("EMBER_CUDA_CODEGEN_OPTIONS")) {
    std::istringstream words(extra);
    for (std::string word; words >> word;) options.push_back(word);
  }
  return options;
}

Cubin compile_cubin(const std::string& source, const std::string& name, int compute_capability) {
  std::vector<std::string> options = nvrtc_options();
  options.insert(options.begin(), "--gpu-architecture=" + architecture_name(compute_capability));
  std::vector<const char*> argv;
  std::string spelled;
  for (const std::string& option : options) {
    argv.push_back(option.c_str());
    spelled += (spelled.empty() ? "" : " ") + option;
  }
  const Program program(source, name);
  const nvrtcResult result = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  Cubin cubin;
  cubin.log = program.log();
  if (result != NVRTC_SUCCESS) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "cuda codegen: NVRTC " + nvrtc_version() + " cannot compile kernel '" +
                                              name + "' (" + nvrtcGetErrorString(result) + ", options '" + spelled +
                                              "'):\n" + cubin.log);
  }
  size_t size = 0;
  check_nvrtc(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
  cubin.image.resize(size);
  check_nvrtc(nvrtcGetCUBIN(program.get(), cubin.image.data()), "nvrtcGetCUBIN");
  return cubin;
}

}  // namespace ember::gpu::codegen
