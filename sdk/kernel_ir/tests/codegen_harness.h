// A device plugin's code generator driven through its C ABI by the
// conformance kit's harness (no core), for the generator tests of the
// device plugins: the codegen record, a sink for what compile writes,
// buffers on device 0, and compile -> load -> launch -> unload.
#pragma once

#include <gtest/gtest.h>

#include <ember/ember_plugin.h>
#include <ember/sdk/dtypes.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "plugin_harness.h"

namespace ember::kernel_ir::testing {

using conformance::StatusCopy;
using conformance::take_status;

// Collects every artifact a generator writes, by kind.
struct Sink {
  ember_codegen_output output{};
  std::string artifacts[4];
  Sink() {
    output.struct_size = sizeof output;
    output.write = [](ember_codegen_output* out, ember_codegen_artifact artifact, const void* data,
                      size_t size) -> ember_status* {
      static_cast<Sink*>(out->host_context)->artifacts[artifact].append(static_cast<const char*>(data), size);
      return nullptr;
    };
    output.host_context = this;
  }
};

struct Compiled {
  StatusCopy status;
  std::string blob, source, log;
};

class CodegenPlugin {
 public:
  explicit CodegenPlugin(const char* path) : harness_(path) {
    harness_.init_and_register();
    for (const ember_extension* e = harness_.plugin().extension; e != nullptr; e = e->next) {
      if (e->type == EMBER_EXTENSION_CODEGEN) codegen_ = reinterpret_cast<const ember_codegen_extension*>(e);
    }
    take_status(harness_.device()->device_count(&count_));
  }
  // NULL when the plugin carries no code generator.
  const ember_codegen_extension* codegen() const { return codegen_; }
  const ember_device_api& device() const { return *harness_.device(); }
  int32_t device_count() const { return count_; }

  Compiled compile(const std::string& ir) const {
    Sink sink;
    Compiled c;
    c.status = take_status(codegen_->compile(ir.data(), ir.size(), "{}", &sink.output));
    c.blob = sink.artifacts[EMBER_CODEGEN_BINARY];
    c.source = sink.artifacts[EMBER_CODEGEN_SOURCE];
    c.log = sink.artifacts[EMBER_CODEGEN_LOG];
    return c;
  }

  StatusCopy load(const std::string& blob, ember_codegen_kernel_t* kernel) const {
    return take_status(codegen_->load(blob.data(), blob.size(), kernel));
  }

  // Compiles, loads and launches `ir` once on `buffers`, on `stream`.
  StatusCopy run(const std::string& ir, const std::vector<DLTensor*>& buffers, const std::vector<int64_t>& params = {},
                 ember_stream_t stream = nullptr) const {
    const Compiled c = compile(ir);
    if (!c.status.ok) return c.status;
    ember_codegen_kernel_t kernel = nullptr;
    StatusCopy loaded = load(c.blob, &kernel);
    if (!loaded.ok) return loaded;
    std::vector<DLTensor> tensors;
    for (DLTensor* t : buffers) tensors.push_back(*t);
    ember_codegen_launch_args args{};
    args.struct_size = sizeof args;
    args.stream = stream;
    args.buffers = tensors.data();
    args.num_buffers = static_cast<int64_t>(tensors.size());
    args.params = params.data();
    args.num_params = static_cast<int64_t>(params.size());
    StatusCopy launched = take_status(codegen_->launch(kernel, &args));
    EXPECT_TRUE(take_status(codegen_->unload(kernel)).ok);
    return launched;
  }

 private:
  conformance::PluginHarness harness_;
  const ember_codegen_extension* codegen_ = nullptr;
  int32_t count_ = 0;
};

// A 1-D buffer on device 0 of `plugin`, with its DLTensor.
class DeviceBuffer {
 public:
  DeviceBuffer(const CodegenPlugin& plugin, DLDeviceType device_type, ember_dtype dtype, int64_t numel)
      : plugin_(plugin), numel_(numel) {
    bytes_ = static_cast<size_t>(numel) * sdk::element_size(dtype);
    EXPECT_TRUE(take_status(plugin.device().allocate(0, std::max<size_t>(bytes_, 64), 64, &data_)).ok);
    tensor_.data = data_;
    tensor_.device = {device_type, 0};
    tensor_.ndim = 1;
    tensor_.dtype = sdk::to_dl_dtype(dtype);
    tensor_.shape = &numel_;
  }
  ~DeviceBuffer() { take_status(plugin_.device().deallocate(0, data_)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  template <class T>
  void write(const std::vector<T>& values) {
    ASSERT_EQ(values.size() * sizeof(T), bytes_);
    copy(EMBER_COPY_HOST_TO_DEVICE, values.data(), data_);
  }
  template <class T>
  std::vector<T> read() {
    std::vector<T> values(bytes_ / sizeof(T));
    copy(EMBER_COPY_DEVICE_TO_HOST, data_, values.data());
    return values;
  }
  DLTensor& tensor() { return tensor_; }

 private:
  void copy(ember_copy_kind kind, const void* src, void* dst) {
    ember_copy_args args{};
    args.struct_size = sizeof args;
    args.kind = kind;
    args.src = src;
    args.dst = dst;
    args.num_bytes = bytes_;
    EXPECT_TRUE(take_status(plugin_.device().copy(&args)).ok);
  }
  const CodegenPlugin& plugin_;
  int64_t numel_;
  size_t bytes_ = 0;
  void* data_ = nullptr;
  DLTensor tensor_{};
};

}  // namespace ember::kernel_ir::testing
