#include "generated_kernel.h"

#include <ember/kernel_ir/kernel_blob.h>
#include <ember/kernel_ir/launch_checks.h>
#include <ember/kernel_ir/scalar_code.h>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <cstdlib>

#include "../buffer.h"
#include "../devices.h"
#include "../profiling.h"
#include "../stream.h"
#include "codegen_sources.h"

namespace ember::xpu::codegen {
namespace {

// Each binary's target is the fingerprint of the device it was built for.
const kernel_ir::BlobFormat kBlobFormat{"xpu codegen", "EMBXPUCG", 1};

std::string build_options() {
  const char* extra = std::getenv("EMBER_XPU_CODEGEN_OPTIONS");
  return std::string("-cl-std=CL1.2") + (extra != nullptr && *extra != '\0' ? std::string(" ") + extra : "");
}

std::string device_info(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetDeviceInfo(device, what, size, text.data(), nullptr);
  if (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::string platform_name(cl_device_id device) {
  cl_platform_id platform = nullptr;
  if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr) != CL_SUCCESS) return "";
  size_t size = 0;
  if (clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string text(size, '\0');
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, text.data(), nullptr);
  if (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::string device_fingerprint(const Device& device) {
  return platform_name(device.id) + "|" + device.fingerprint + "|" +
         device_info(device.id, CL_DEVICE_OPENCL_C_VERSION) + "|" + build_options();
}

std::string build_log(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size > 0) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string program_binary(cl_program program) {
  size_t size = 0;
  check_cl(clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
           "clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)");
  std::string binary(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(binary.data());
  check_cl(clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr),
           "clGetProgramInfo(CL_PROGRAM_BINARIES)");
  return binary;
}

// Devices must have cl_khr_fp64 for a kernel computing in double.
void check_fp64(const kernel_ir::GroupKernel& source, const Device& device, const std::string& name) {
  if (source.uses_fp64 && !device.has_fp64) {
    sdk::fail(EMBER_STATUS_UNIMPLEMENTED,
              "xpu codegen: kernel '" + name + "' computes in float64, and " + device.name + " lacks cl_khr_fp64");
  }
}

}  // namespace

std::string devices_fingerprint() {
  Devices& devices = Devices::instance();
  if (devices.count() == 0) {
    sdk::fail(EMBER_STATUS_UNAVAILABLE, "xpu codegen: no OpenCL device (" + devices.absence_reason() + ")");
  }
  std::string text = std::string("xpu codegen ") + EMBER_XPU_PLUGIN_VERSION + " sources " +
                     embedded::kCodegenSourcesDigest + " kernel_ir " + EMBER_KERNEL_IR_SOURCES_DIGEST;
  for (int32_t d = 0; d < devices.count(); ++d)
    text += "\ndevice " + std::to_string(d) + ": " + device_fingerprint(devices.at(d));
  return text;
}

sdk::CompiledKernel compile_kernel(std::string_view ir) {
  const kernel_ir::Kernel kernel = kernel_ir::parse_ekir(ir);
  const kernel_ir::GroupKernel source = generate_opencl_source(kernel);
  sdk::CompiledKernel compiled;
  compiled.source = source.text;
  kernel_ir::KernelBlob contents;
  contents.ir = std::string(ir);
  Devices& devices = Devices::instance();
  if (devices.count() == 0) {
    sdk::fail(EMBER_STATUS_UNAVAILABLE, "xpu codegen: no OpenCL device (" + devices.absence_reason() + ")");
  }
  const std::string options = build_options();
  for (int32_t d = 0; d < devices.count(); ++d) {
    const Device& device = devices.at(d);
    check_fp64(source, device, kernel.name);
    const char* text = source.text.c_str();
    const size_t length = source.text.size();
    cl_int error = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(device.context, 1, &text, &length, &error);
    check_cl(error, "clCreateProgramWithSource");
    error = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
    const std::string log = build_log(program, device.id);
    if (!log.empty()) compiled.log += device.name + ":\n" + log + "\n";
    if (error != CL_SUCCESS) {
      clReleaseProgram(program);
      sdk::fail(EMBER_STATUS_UNIMPLEMENTED, "xpu codegen: building kernel '" + kernel.name + "' for " + device.name +
                                                " failed (" + cl_error_name(error) + ", options '" + options + "'):\n" +
                                                log);
    }
    try {
      contents.binaries.push_back({device_fingerprint(device), program_binary(program)});
    } catch (...) {
      clReleaseProgram(program);
      throw;
    }
    clReleaseProgram(program);
  }
  compiled.blob = kernel_ir::write_kernel_blob(kBlobFormat, contents);
  return compiled;
}

GeneratedKernel::GeneratedKernel(const void* blob, size_t size) {
  const kernel_ir::KernelBlob contents = kernel_ir::read_kernel_blob(kBlobFormat, blob, size);
  kernel_ = kernel_ir::parse_ekir(contents.ir);
  source_ = generate_opencl_source(kernel_);
  Devices& devices = Devices::instance();
  if (static_cast<int32_t>(contents.binaries.size()) != devices.count()) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: the kernel blob holds programs for " +
                                                 std::to_string(contents.binaries.size()) +
                                                 " devices, the plugin has " +
                                                 std::to_string(devices.count()));
  }
  const std::string options = build_options();
  try {
    for (int32_t d = 0; d < devices.count(); ++d) {
      const Device& device = devices.at(d);
      const kernel_ir::BlobBinary& entry = contents.binaries[static_cast<size_t>(d)];
      if (entry.target != device_fingerprint(device)) {
        sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: the kernel blob's program " + std::to_string(d) +
                                                     " was built for another device or driver (" + entry.target +
                                                     ", not " + device_fingerprint(device) + ")");
      }
      const unsigned char* data = reinterpret_cast<const unsigned char*>(entry.binary.data());
      const size_t length = entry.binary.size();
      cl_int binary_status = CL_SUCCESS;
      cl_int error = CL_SUCCESS;
      cl_program program =
          clCreateProgramWithBinary(device.context, 1, &device.id, &length, &data, &binary_status, &error);
      if (error != CL_SUCCESS || binary_status != CL_SUCCESS) {
        if (program != nullptr) clReleaseProgram(program);
        sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: " + device.name +
                                                     " refuses the kernel blob's program (" +
                                                     cl_error_name(error != CL_SUCCESS ? error : binary_status) + ")");
      }
      programs_.push_back(program);
      error = clBuildProgram(program, 1, &device.id, options.c_str(), nullptr, nullptr);
      if (error != CL_SUCCESS) {
        sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "xpu codegen: " + device.name +
                                                     " cannot build the kernel blob's program (" +
                                                     cl_error_name(error) + "): " + build_log(program, device.id));
      }
      cl_kernel kernel = clCreateKernel(program, "ek_kernel", &error);
      if (error != CL_SUCCESS) {
        sdk::fail(
            EMBER_STATUS_INVALID_ARGUMENT,
            std::string("xpu codegen: the kernel blob's program has no ek_kernel (") + cl_error_name(error) + ")");
      }
      kernels_.push_back(kernel);
    }
  } catch (...) {
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    for (cl_program p : programs_) clReleaseProgram(p);
    throw;
  }
}

GeneratedKernel::~GeneratedKernel() {
  for (cl_kernel k : kernels_) clReleaseKernel(k);
  for (cl_program p : programs_) clReleaseProgram(p);
}

void GeneratedKernel::launch(const ember_codegen_launch_args& args) {
  kernel_ir::check_launch(kernel_, args, {"xpu codegen", kDLOpenCL, "an xpu (OpenCL) device", false});
  Devices& devices = Devices::instance();
  const Device& device = devices.at(args.device_index);
  const cl_command_queue queue = queue_of(args.device_index, args.stream);
  int64_t points = 1;
  for (const kernel_ir::Term& t : kernel_.outer) points *= t.is_param ? args.params[t.value] : t.value;
  if (points == 0) return;
  const std::lock_guard lock(mutex_);
  cl_kernel kernel = kernels_[static_cast<size_t>(args.device_index)];
  cl_uint arg = 0;
  auto set = [&](size_t size, const void* value) {
    check_cl(clSetKernelArg(kernel, arg, size, value), "clSetKernelArg(generated kernel, " + std::to_string(arg) + ")");
    ++arg;
  };
  for (int64_t b = 0; b < args.num_buffers; ++b) {
    const cl_mem memory = buffer_of(args.buffers[b]);
    const cl_long offset = element_offset(args.buffers[b]);
    set(sizeof memory, &memory);
    set(sizeof offset, &offset);
  }
  for (int64_t p = 0; p < args.num_params; ++p) {
    const cl_long value = args.params[p];
    set(sizeof value, &value);
  }
  cl_mem fault_word = nullptr;
  if (source_.can_fault) {
    cl_uint zero = 0;
    cl_int error = CL_SUCCESS;
    fault_word = clCreateBuffer(device.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &error);
    check_cl(error, "clCreateBuffer for a generated kernel's fault word");
  }
  cl_uint faults = 0;
  try {
    if (fault_word != nullptr) set(sizeof fault_word, &fault_word);
    const size_t local = kernel_ir::kGroupSize;
    const auto groups = static_cast<size_t>(kernel_ir::groups_to_launch(source_, points));
    const size_t global = groups * local;
    CommandTiming timing;
    check_cl(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &local, 0, nullptr, timing.event()),
             "clEnqueueNDRangeKernel(generated kernel '" + kernel_.name + "')");
    timing.keep(kernel_.name);
    if (fault_word != nullptr) {
      check_cl(clEnqueueReadBuffer(queue, fault_word, CL_TRUE, 0, sizeof faults, &faults, 0, nullptr, nullptr),
               "clEnqueueReadBuffer of a generated kernel's fault word");
    }
  } catch (...) {
    if (fault_word != nullptr) clReleaseMemObject(fault_word);
    throw;
  }
  if (fault_word != nullptr) clReleaseMemObject(fault_word);
  if (faults & kernel_ir::kFaultIntegerDivisionByZero) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "integer division by zero");
  }
  if (faults & kernel_ir::kFaultNegativeIntegerPower) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, "pow: integers to negative integer powers are not allowed");
  }
}

}  // namespace ember::xpu::codegen
