#include "program_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "devices.h"
#include "program_source.h"

namespace ember::xpu {

// Note [Program binary cache]: building from source costs seconds on PoCL,
// so a built program's binary is written to
//   $EMBER_XPU_CACHE_DIR, else $XDG_CACHE_HOME/ember/xpu, else ~/.cache/ember/xpu
// under a name hashing the source, the build options and the device's
// fingerprint (platform, device and driver versions), and later processes
// load it instead. The folder is created private (0700) and used only if
// it belongs to the current user and nobody else may write to it: a binary
// found there is code the plugin will run. A binary the driver refuses is
// rebuilt from source and overwritten. EMBER_XPU_CACHE_DIR=off disables it.

namespace {

namespace fs = std::filesystem;

std::string build_options() {
  const char* extra = std::getenv("EMBER_XPU_BUILD_OPTIONS");
  return extra != nullptr ? extra : "";
}

std::string cache_folder() {
  if (const char* dir = std::getenv("EMBER_XPU_CACHE_DIR")) return std::string(dir) == "off" ? "" : dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/ember/xpu";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/ember/xpu";
  }
  return "";
}

bool folder_is_private(const std::string& folder) {
  std::error_code ignored;
  fs::create_directories(folder, ignored);
  chmod(folder.c_str(), 0700);
  struct stat info {};
  return stat(folder.c_str(), &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == getuid() &&
         (info.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// FNV-1a, 64 bits: stable across processes and builds, unlike std::hash.
std::string fingerprint_hash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h));
  return name;
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size > 0) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  return log;
}

cl_program load_binary(const Device& device, const std::string& path, const std::string& options) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return nullptr;
  const std::vector<unsigned char> binary{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  const unsigned char* data = binary.data();
  const size_t size = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int error = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(device.context, 1, &device.id, &size, &data, &binary_status, &error);
  if (error != CL_SUCCESS || binary_status != CL_SUCCESS) return nullptr;
  if (clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

void store_binary(cl_program program, const std::string& path) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS || size == 0) {
    return;
  }
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr) != CL_SUCCESS) return;
  // Written aside and renamed, so a concurrent reader never sees half a file.
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::binary);
    file.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(size));
    if (!file) return;
  }
  std::error_code ignored;
  fs::rename(temporary, path, ignored);
}

cl_program build_from_source(const Device& device, const DTypeInfo& dtype, const std::string& source,
                             const std::string& options) {
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int error = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(device.context, 1, &text, &length, &error);
  check_cl(error, "clCreateProgramWithSource");
  error = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
  if (error != CL_SUCCESS) {
    const std::string log = build_log(program, device.id);
    clReleaseProgram(program);
    sdk::fail(EMBER_STATUS_INTERNAL, std::string("xpu: building the ") + sdk::dtype_name(dtype.dtype) +
                                         " kernels for " + device.name + " failed (" + cl_error_name(error) +
                                         ", options '" + options + "'):\n" + log);
  }
  return program;
}

cl_program build_program(const Device& device, const DTypeInfo& dtype) {
  const std::string source = program_source(dtype, device.has_fp64);
  const std::string options = build_options();
  const std::string folder = cache_folder();
  const bool use_disk = !folder.empty() && folder_is_private(folder);
  const std::string path =
      use_disk ? folder + "/" + fingerprint_hash(device.fingerprint + '\n' + options + '\n' + source) + ".bin" : "";
  if (use_disk) {
    if (cl_program cached = load_binary(device, path, options)) return cached;
  }
  cl_program program = build_from_source(device, dtype, source, options);
  if (use_disk) store_binary(program, path);
  return program;
}

struct ProgramTable {
  std::mutex mutex;
  std::map<std::pair<int32_t, ember_dtype>, cl_program> programs;
};

ProgramTable& program_table() {
  static ProgramTable table;
  return table;
}

}  // namespace

cl_program program_for(int32_t ordinal, ember_dtype dtype) {
  ProgramTable& table = program_table();
  // Builds run under the lock: two threads wanting one program build it once.
  const std::lock_guard lock(table.mutex);
  const auto it = table.programs.try_emplace({ordinal, dtype}, nullptr).first;
  if (it->second == nullptr) {
    try {
      it->second = build_program(Devices::instance().at(ordinal), dtype_info(dtype));
    } catch (...) {
      table.programs.erase(it);
      throw;
    }
  }
  return it->second;
}

void release_programs() {
  ProgramTable& table = program_table();
  const std::lock_guard lock(table.mutex);
  for (auto& [key, program] : table.programs) clReleaseProgram(program);
  table.programs.clear();
}

}  // namespace ember::xpu
