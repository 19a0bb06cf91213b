#include "codegen_harness.h"

#include <gtest/gtest.h>

#include <ember/sdk/dtypes.hpp>

namespace ember::cpu_codegen::testing {
namespace {

// Collects what the plugin writes, one string per artifact.
struct Sink {
  ember_codegen_output output{};
  std::string artifacts[4];

  Sink() {
    output.struct_size = sizeof output;
    output.write = write;
    output.host_context = this;
  }
  static ember_status* write(ember_codegen_output* out, ember_codegen_artifact artifact, const void* data,
                             size_t size) {
    static_cast<Sink*>(out->host_context)->artifacts[artifact].append(static_cast<const char*>(data), size);
    return nullptr;
  }
};

}  // namespace

HostBuffer::HostBuffer(ember_dtype dtype, int64_t numel) : shape_(numel) {
  data_ = std::malloc(std::max<size_t>(1, static_cast<size_t>(numel) * sdk::element_size(dtype)));
  tensor_.data = data_;
  tensor_.device = {kDLCPU, 0};
  tensor_.ndim = 1;
  tensor_.dtype = sdk::to_dl_dtype(dtype);
  tensor_.shape = &shape_;
  tensor_.strides = nullptr;
}

Kernel::~Kernel() {
  if (handle_ != nullptr) EXPECT_TRUE(conformance::take_status(ext_->unload(handle_)).ok);
}

StatusCopy Kernel::launch(const std::vector<DLTensor*>& buffers, const std::vector<int64_t>& params) const {
  std::vector<DLTensor> tensors;
  for (DLTensor* t : buffers) tensors.push_back(*t);
  ember_codegen_launch_args args{};
  args.struct_size = sizeof args;
  args.buffers = tensors.data();
  args.num_buffers = static_cast<int64_t>(tensors.size());
  args.params = params.data();
  args.num_params = static_cast<int64_t>(params.size());
  return conformance::take_status(ext_->launch(handle_, &args));
}

Codegen::Codegen() : harness_(EMBER_CPU_CODEGEN_PLUGIN_PATH) {
  harness_.init_and_register();
  for (const ember_extension* e = harness_.plugin().extension; e != nullptr; e = e->next) {
    if (e->type == EMBER_EXTENSION_CODEGEN) extension_ = reinterpret_cast<const ember_codegen_extension*>(e);
  }
  if (extension_ == nullptr) throw std::runtime_error("the plugin carries no codegen extension");
}

Codegen& Codegen::get() {
  static Codegen codegen;
  return codegen;
}

Compiled Codegen::compile(const std::string& ir, const char* options) const {
  Sink sink;
  Compiled compiled;
  compiled.status = conformance::take_status(extension_->compile(ir.data(), ir.size(), options, &sink.output));
  compiled.binary = sink.artifacts[EMBER_CODEGEN_BINARY];
  compiled.source = sink.artifacts[EMBER_CODEGEN_SOURCE];
  compiled.log = sink.artifacts[EMBER_CODEGEN_LOG];
  return compiled;
}

StatusCopy Codegen::fingerprint(std::string* text) const {
  Sink sink;
  StatusCopy status = conformance::take_status(extension_->fingerprint(&sink.output));
  *text = sink.artifacts[EMBER_CODEGEN_TEXT];
  return status;
}

std::optional<Kernel> Codegen::load(const std::string& blob, StatusCopy* status) const {
  ember_codegen_kernel_t handle = nullptr;
  *status = conformance::take_status(extension_->load(blob.data(), blob.size(), &handle));
  if (!status->ok) return std::nullopt;
  return std::optional<Kernel>(std::in_place, *extension_, handle);
}

std::optional<Kernel> Codegen::build(const std::string& ir) const {
  const Compiled compiled = compile(ir);
  if (!compiled.status.ok) {
    ADD_FAILURE() << "compile failed: " << compiled.status.message << "\n" << compiled.source;
    return std::nullopt;
  }
  StatusCopy status;
  std::optional<Kernel> kernel = load(compiled.binary, &status);
  if (!status.ok) ADD_FAILURE() << "load failed: " << status.message;
  return kernel;
}

StatusCopy run(const std::string& ir, const std::vector<DLTensor*>& buffers, const std::vector<int64_t>& params) {
  const std::optional<Kernel> kernel = Codegen::get().build(ir);
  if (!kernel) return StatusCopy{false, EMBER_STATUS_INTERNAL, "no kernel"};
  return kernel->launch(buffers, params);
}

ScopedEnvironment::ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
  if (const char* old = std::getenv(name)) {
    had_value_ = true;
    old_value_ = old;
  }
  setenv(name, value.c_str(), 1);
}

ScopedEnvironment::~ScopedEnvironment() {
  if (had_value_) {
    setenv(name_.c_str(), old_value_.c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace ember::cpu_codegen::testing
