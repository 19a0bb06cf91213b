// The built cpu_codegen plugin driven through its C ABI with the
// conformance kit's host table (PluginHarness): compile, load and launch
// EKIR documents on malloc'ed buffers.
#pragma once

#include <ember/ember_plugin.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "plugin_harness.h"

namespace ember::cpu_codegen::testing {

using conformance::StatusCopy;

// A malloc'ed 1-D buffer of `numel` elements, as the DLTensor a launch takes.
class HostBuffer {
 public:
  HostBuffer(ember_dtype dtype, int64_t numel);
  ~HostBuffer() { std::free(data_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;

  template <class T>
  T* as() {
    return static_cast<T*>(data_);
  }
  template <class T>
  std::vector<T> values() const {
    const T* p = static_cast<const T*>(data_);
    return std::vector<T>(p, p + shape_);
  }
  DLTensor& tensor() { return tensor_; }

 private:
  void* data_ = nullptr;
  int64_t shape_ = 0;
  DLTensor tensor_{};
};

// What a compile call wrote.
struct Compiled {
  StatusCopy status;
  std::string binary, source, log;
};

// A kernel the plugin loaded, unloaded when it goes.
class Kernel {
 public:
  Kernel(const ember_codegen_extension& ext, ember_codegen_kernel_t handle) : ext_(&ext), handle_(handle) {}
  ~Kernel();
  Kernel(Kernel&& other) noexcept : ext_(other.ext_), handle_(other.handle_) { other.handle_ = nullptr; }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  StatusCopy launch(const std::vector<DLTensor*>& buffers, const std::vector<int64_t>& params = {}) const;

 private:
  const ember_codegen_extension* ext_;
  ember_codegen_kernel_t handle_;
};

// The plugin, loaded once per test process.
class Codegen {
 public:
  static Codegen& get();

  const ember_plugin& plugin() const { return harness_.plugin(); }
  const ember_codegen_extension& extension() const { return *extension_; }

  Compiled compile(const std::string& ir, const char* options = "{}") const;
  StatusCopy fingerprint(std::string* text) const;
  // Loads a blob; `status` says why when the result is empty.
  std::optional<Kernel> load(const std::string& blob, StatusCopy* status) const;

  // Compiles and loads `ir`, failing the test (and returning no kernel) on
  // the first error.
  std::optional<Kernel> build(const std::string& ir) const;

 private:
  Codegen();
  conformance::PluginHarness harness_;
  const ember_codegen_extension* extension_ = nullptr;
};

// Compiles, loads and launches `ir` once; the launch's status.
StatusCopy run(const std::string& ir, const std::vector<DLTensor*>& buffers, const std::vector<int64_t>& params = {});

// Sets an environment variable for the life of the object, then restores it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::string name_;
  bool had_value_ = false;
  std::string old_value_;
};

}  // namespace ember::cpu_codegen::testing
