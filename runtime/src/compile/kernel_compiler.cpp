#include "compile/kernel_compiler.h"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>

#include "compile/compile_log.h"
#include "compile/disk_cache.h"
#include "ember/profiler.h"
#include "plugin/codegen_provider.h"
#include "plugin/device_registry.h"
#include "plugin/kernel_timing.h"
#include "plugin/stream_state.h"
#include "plugin/threads.h"
#include "profiler/profiler_state.h"
#include "profiler/ranges.h"

namespace ember::compile {
namespace {

std::mutex g_lock;
CodegenStats g_stats;
std::map<std::string, std::weak_ptr<const LoadedKernel>> g_loaded;  // by cache digest

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The kernel's name and the ops it computes, as an error names them:
// "fused_copy_mul (floor_divide, mul)".
std::string described(const FusedKernel& kernel) {
  std::string ops;
  for (const std::string& op : kernel.ops) {
    if (op == "load" || op == "store" || op == "const" || op == "cast") continue;
    ops += (ops.empty() ? "" : ", ") + op;
  }
  return ops.empty() ? kernel.name : kernel.name + " (" + ops + ")";
}

}  // namespace

LoadedKernel::LoadedKernel(const plugin::CodegenProvider& provider, ember_codegen_kernel_t handle, std::string ir,
                           std::string name)
    : provider_(provider), handle_(handle), ir_(std::move(ir)), name_(std::move(name)) {}

LoadedKernel::~LoadedKernel() { provider_.unload(handle_); }

void LoadedKernel::launch(Device device, std::vector<DLTensor>& buffers, const std::vector<int64_t>& params) const {
  ember_codegen_launch_args args{};
  args.struct_size = sizeof(args);
  args.device_index = device.index;
  args.stream = plugin::handle_of(plugin::current_stream_state(device));
  args.buffers = buffers.data();
  args.num_buffers = static_cast<int64_t>(buffers.size());
  args.params = params.data();
  args.num_params = static_cast<int64_t>(params.size());
  args.num_threads = plugin::requested_num_threads();
  // A generated kernel is an op of its own in a profile, named as the
  // kernel, with the device time of its device's plugin.
  const profiler::ScopedRange range(
      profiler::open_range(profiler::EventKind::Op, name_.c_str(), true, nullptr, 0, device));
  const plugin::DeviceBackend& backend = plugin::backend_for(device);
  const plugin::KernelTiming timing(backend, device, args.stream, plugin::kernel_correlation(backend));
  provider_.launch(handle_, args, name_);
}

CodegenStats codegen_stats() {
  std::lock_guard lock(g_lock);
  return g_stats;
}

void reset_codegen_stats() {
  std::lock_guard lock(g_lock);
  g_stats = CodegenStats{};
}

void clear_loaded_kernels() {
  std::lock_guard lock(g_lock);
  g_loaded.clear();
}

const plugin::CodegenProvider* generator_for(Device device, std::string* reason) {
  const plugin::CodegenProvider* provider = plugin::codegen_for(device.type_name());
  if (provider == nullptr) {
    *reason = "no code generator is loaded for device type '" + device.type_name() + "'";
    return nullptr;
  }
  if (std::string why = provider->unavailable_reason(); !why.empty()) {
    *reason = why;
    return nullptr;
  }
  return provider;
}

KernelCacheKey cache_key_for(const plugin::CodegenProvider& provider, const std::string& ir, bool deterministic) {
  KernelCacheKey key;
  key.ir = ir;
  key.plugin_name = provider.plugin_name();
  key.plugin_version = provider.plugin_version();
  key.abi_minor = provider.abi_minor();
  key.fingerprint = provider.fingerprint();
  key.numerics = deterministic ? "deterministic" : "default";
  key.core_version = EMBER_CORE_VERSION;
  return key;
}

std::shared_ptr<const LoadedKernel> compile_kernel(Device device, const FusedKernel& kernel, bool deterministic,
                                                   std::string* reason) {
  const plugin::CodegenProvider* provider = generator_for(device, reason);
  if (provider == nullptr) return nullptr;
  for (const std::string& op : kernel.ops) {
    if (!provider->supports_op(op)) {
      *reason = "code generator '" + provider->plugin_name() + "' does not take the op '" + op + "'";
      return nullptr;
    }
  }
  for (const std::string& dtype : kernel.dtypes) {
    if (!provider->supports_dtype(dtype)) {
      *reason = "code generator '" + provider->plugin_name() + "' does not take dtype " + dtype;
      return nullptr;
    }
  }
  if (!provider->reads_ir(kernel.ir_version)) {
    *reason = "code generator '" + provider->plugin_name() + "' does not read EKIR " + kernel.ir_version;
    return nullptr;
  }
  try {
    const KernelCacheKey key = cache_key_for(*provider, kernel.ekir, deterministic);
    const std::string digest = key.digest();
    {
      std::lock_guard lock(g_lock);
      if (auto it = g_loaded.find(digest); it != g_loaded.end()) {
        if (auto loaded = it->second.lock()) {
          ++g_stats.memory_hits;
          return loaded;
        }
      }
    }
    std::shared_ptr<const LoadedKernel> loaded;
    if (std::optional<std::string> blob = DiskCache::get().read(key)) {
      try {
        loaded = std::make_shared<const LoadedKernel>(*provider, provider->load(*blob), kernel.ekir, described(kernel));
        if (log_enabled(LogTopic::Cache))
          log_event(LogTopic::Cache, "hit " + digest + " " + kernel.name, "{\"hit\":" + quoted(digest) + "}");
        std::lock_guard lock(g_lock);
        ++g_stats.disk_hits;
      } catch (const Error& e) {
        // Another build's or a damaged entry: this process compiles its own.
        if (log_enabled(LogTopic::Cache))
          log_event(LogTopic::Cache, "entry " + digest + " does not load (" + e.what() + "); compiling again",
                    "{\"stale\":" + quoted(digest) + "}");
      }
    }
    if (loaded == nullptr) {
      const auto start = std::chrono::steady_clock::now();
      // While profiling, generating code is a range of the trace (docs/profiler.md).
      std::optional<profiler::RecordFunction> range;
      if (profiler::profiling_on()) [[unlikely]]
        range.emplace("compile_kernel: " + kernel.name);
      plugin::CodegenProvider::Compiled compiled = provider->compile(kernel.ekir, "{}");
      range.reset();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      {
        std::lock_guard lock(g_lock);
        ++g_stats.compiles;
      }
      if (log_enabled(LogTopic::Codegen)) {
        log_event(LogTopic::Codegen,
                  "compiled " + kernel.name + " in " + std::to_string(ms) + " ms\n" + kernel.ekir +
                      (compiled.source.empty() ? "" : "\n" + compiled.source),
                  "{\"kernel\":" + quoted(kernel.name) + ",\"ms\":" + std::to_string(ms) + ",\"ekir\":" + kernel.ekir +
                      ",\"source\":" + quoted(compiled.source) + ",\"log\":" + quoted(compiled.log) + "}");
      }
      try {
        loaded = std::make_shared<const LoadedKernel>(*provider, provider->load(compiled.binary), kernel.ekir,
                                                    described(kernel));
      } catch (const Error& e) {
        // A generator that cannot load what it just wrote cannot be trusted.
        provider->quarantine(std::string("a blob its own compile wrote does not load: ") + e.what());
        throw;
      }
      // Only a blob that loads is kept for later processes.
      DiskCache::get().write(key, compiled.binary);
    }
    std::lock_guard lock(g_lock);
    g_loaded[digest] = loaded;
    return loaded;
  } catch (const std::exception& e) {
    *reason = e.what();
    std::lock_guard lock(g_lock);
    ++g_stats.failures;
    if (log_enabled(LogTopic::Codegen)) {
      log_event(LogTopic::Codegen, "kernel " + kernel.name + " runs eagerly: " + *reason,
                "{\"eager\":" + quoted(kernel.name) + ",\"reason\":" + quoted(*reason) + "}");
    }
    return nullptr;
  }
}

}  // namespace ember::compile
