#include "devices.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <ember/ember_plugin.hpp>

namespace ember::xpu {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string value(size, '\0');
  clGetPlatformInfo(platform, what, size, value.data(), nullptr);
  value.resize(size - 1);
  return value;
}

std::string device_string(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string value(size, '\0');
  clGetDeviceInfo(device, what, size, value.data(), nullptr);
  value.resize(size - 1);
  return value;
}

template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof value, &value, nullptr);
  return value;
}

std::vector<cl_device_id> platform_devices(cl_platform_id platform, cl_device_type type) {
  cl_uint n = 0;
  if (clGetDeviceIDs(platform, type, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::vector<cl_device_id> ids(n);
  clGetDeviceIDs(platform, type, n, ids.data(), nullptr);
  return ids;
}

Device open_device(cl_platform_id platform, cl_device_id id) {
  Device d;
  d.id = id;
  d.name = device_string(id, CL_DEVICE_NAME);
  d.fingerprint = platform_string(platform, CL_PLATFORM_VERSION) + "|" + device_string(id, CL_DEVICE_VERSION) + "|" +
                  device_string(id, CL_DRIVER_VERSION) + "|" + d.name;
  d.global_memory = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
  d.max_allocation = device_value<cl_ulong>(id, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  d.compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
  d.has_fp64 = device_string(id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos;
  cl_int error = CL_SUCCESS;
  d.context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &error);
  check_cl(error, "clCreateContext for " + d.name);
  d.default_queue = clCreateCommandQueue(d.context, id, CL_QUEUE_PROFILING_ENABLE, &error);
  if (error != CL_SUCCESS) clReleaseContext(d.context);
  check_cl(error, "clCreateCommandQueue for " + d.name);
  return d;
}

}  // namespace

Devices& Devices::instance() {
  static Devices devices;
  return devices;
}

Devices::Devices() {
  cl_uint num_platforms = 0;
  const cl_int error = clGetPlatformIDs(0, nullptr, &num_platforms);
  if (error != CL_SUCCESS || num_platforms == 0) {
    absence_reason_ = "no OpenCL platform is installed (clGetPlatformIDs: " + std::string(cl_error_name(error)) + ")";
    return;
  }
  std::vector<cl_platform_id> platforms(num_platforms);
  clGetPlatformIDs(num_platforms, platforms.data(), nullptr);

  const char* wanted = std::getenv("EMBER_XPU_PLATFORM");
  if (wanted != nullptr && *wanted != '\0') {
    const auto named = std::find_if(platforms.begin(), platforms.end(), [&](cl_platform_id p) {
      return lower(platform_string(p, CL_PLATFORM_NAME)).find(lower(wanted)) != std::string::npos;
    });
    if (named == platforms.end()) {
      absence_reason_ = "no OpenCL platform name contains EMBER_XPU_PLATFORM='" + std::string(wanted) + "'";
      return;
    }
    platforms = {*named};
  }

  cl_platform_id chosen = nullptr;
  std::vector<cl_device_id> ids;
  for (cl_platform_id p : platforms) {
    ids = platform_devices(p, CL_DEVICE_TYPE_GPU);
    if (!ids.empty()) {
      chosen = p;
      break;
    }
  }
  if (chosen == nullptr) {
    for (cl_platform_id p : platforms) {
      ids = platform_devices(p, CL_DEVICE_TYPE_ALL);
      if (!ids.empty()) {
        chosen = p;
        break;
      }
    }
  }
  if (chosen == nullptr) {
    absence_reason_ = "the OpenCL platforms present offer no device";
    return;
  }
  try {
    for (cl_device_id id : ids) devices_.push_back(open_device(chosen, id));
  } catch (const std::exception& e) {
    release();
    absence_reason_ = e.what();
  }
}

Device& Devices::at(int32_t ordinal) {
  if (devices_.empty()) sdk::fail(EMBER_STATUS_UNAVAILABLE, "xpu: no device: " + absence_reason_);
  if (ordinal < 0 || ordinal >= count()) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
              "xpu: device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count()) + " present)");
  }
  return devices_[static_cast<size_t>(ordinal)];
}

bool Devices::all_have_fp64() const {
  return !devices_.empty() && std::all_of(devices_.begin(), devices_.end(), [](const Device& d) { return d.has_fp64; });
}

void Devices::release() {
  for (Device& d : devices_) {
    clFinish(d.default_queue);
    clReleaseCommandQueue(d.default_queue);
    clReleaseContext(d.context);
  }
  devices_.clear();
  absence_reason_ = "the plugin was shut down";
}

}  // namespace ember::xpu
