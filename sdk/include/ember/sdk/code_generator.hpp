// code_generator.hpp -- the codegen extension (ABI 1.2) of a generator whose
// loaded kernel is a C++ object: the record's C callbacks check their
// pointers, write what the generator returns through the host's sink, and
// run behind the fence, so a generator writes only its fingerprint, its
// compile and its kernel class.
//
//   std::string fingerprint();                                  // throws UNAVAILABLE where it cannot work
//   sdk::CompiledKernel compile(std::string_view ir, const char* options);
//   class Kernel { Kernel(const void* blob, size_t size); void launch(const ember_codegen_launch_args&); };
//   static constexpr char kName[] = "emu codegen";
//   ... = sdk::codegen_extension<Kernel, kName, fingerprint, compile>("emu", ops, dtypes, next);
#ifndef EMBER_SDK_CODE_GENERATOR_HPP_
#define EMBER_SDK_CODE_GENERATOR_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/device_table.hpp>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <string>
#include <string_view>

namespace ember::sdk {

// What one compile produced: the loadable blob, and the generated source
// and the compiler's messages where there are any.
struct CompiledKernel {
  std::string blob;
  std::string source;
  std::string log;
};

// Every catalogue dtype's name, space-separated: the record's dtypes for a
// generator that compiles them all.
inline std::string all_dtype_names() {
  std::string names;
  for (int d = 0; d < EMBER_DTYPE_COUNT_V1_0; ++d) {
    names += (d > 0 ? " " : "") + std::string(dtype_name(static_cast<ember_dtype>(d)));
  }
  return names;
}

namespace detail {

// Name: the generator's name, a `static constexpr char[]`, for the messages.
template <class Kernel, const char* Name, auto Fingerprint, auto Compile>
struct GeneratorCalls {
  static void write(ember_codegen_output* out, ember_codegen_artifact artifact, const std::string& bytes) {
    check(out->write(out, artifact, bytes.data(), bytes.size()));
  }
  static void require_sink(const ember_codegen_output* out) {
    if (out == nullptr || out->write == nullptr) {
      fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": no output sink");
    }
  }
  static void fingerprint(ember_codegen_output* out) {
    require_sink(out);
    write(out, EMBER_CODEGEN_TEXT, Fingerprint());
  }
  static void compile(const char* ir, size_t ir_size, const char* options, ember_codegen_output* out) {
    require_sink(out);
    if (ir == nullptr) fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": the IR is NULL");
    const CompiledKernel compiled = Compile(std::string_view(ir, ir_size), options);
    if (!compiled.source.empty()) write(out, EMBER_CODEGEN_SOURCE, compiled.source);
    if (!compiled.log.empty()) write(out, EMBER_CODEGEN_LOG, compiled.log);
    write(out, EMBER_CODEGEN_BINARY, compiled.blob);
  }
  static void load(const void* blob, size_t blob_size, ember_codegen_kernel_t* kernel) {
    if (kernel == nullptr) fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": load without a kernel to write");
    *kernel = reinterpret_cast<ember_codegen_kernel_t>(new Kernel(blob, blob_size));
  }
  static void launch(ember_codegen_kernel_t kernel, const ember_codegen_launch_args* args) {
    if (kernel == nullptr || args == nullptr) {
      fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(Name) + ": launch of NULL");
    }
    reinterpret_cast<Kernel*>(kernel)->launch(*args);
  }
  static void unload(ember_codegen_kernel_t kernel) { delete reinterpret_cast<Kernel*>(kernel); }
};

}  // namespace detail

// The extension record of generator `Name` for tensors of `device_type`,
// reading EKIR 1.0:
// Fingerprint() returns the fingerprint text, Compile(ir, options) a
// CompiledKernel, and Kernel(blob, size) loads what a compile wrote (a
// blob it does not recognise is an INVALID_ARGUMENT it throws). ops and
// dtypes are the record's space-separated lists and, like `next`, must
// outlive it. Compile, load, launch and unload must be thread-safe: the
// record says so.
template <class Kernel, const char* Name, auto Fingerprint, auto Compile>
ember_codegen_extension codegen_extension(const char* device_type, const char* ops, const char* dtypes,
                                          const ember_extension* next) {
  using Calls = detail::GeneratorCalls<Kernel, Name, Fingerprint, Compile>;
  ember_codegen_extension e{};
  e.header = {sizeof(ember_codegen_extension), EMBER_EXTENSION_CODEGEN, next};
  e.device_type = device_type;
  e.ir_versions = "1.0 1.1 1.2";
  e.ops = ops;
  e.dtypes = dtypes;
  e.thread_safety = EMBER_CODEGEN_COMPILE_THREAD_SAFE | EMBER_CODEGEN_LAUNCH_THREAD_SAFE;
  e.fingerprint = fenced<&Calls::fingerprint>;
  e.compile = fenced<&Calls::compile>;
  e.load = fenced<&Calls::load>;
  e.launch = fenced<&Calls::launch>;
  e.unload = fenced<&Calls::unload>;
  return e;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_CODE_GENERATOR_HPP_
