#include "plugin/codegen_provider.h"

#include <deque>

#include "core/logging.h"
#include "ember/error.h"
#include "plugin/device_call.h"
#include "plugin/extension_chain.h"
#include "plugin/status.h"

namespace ember::plugin {
namespace {

struct Sink {
  ember_codegen_output out{};
  std::string parts[4];
};

ember_status* write_part(ember_codegen_output* out, ember_codegen_artifact artifact, const void* data, size_t size) {
  auto* sink = static_cast<Sink*>(out->host_context);
  if (artifact < EMBER_CODEGEN_BINARY || artifact > EMBER_CODEGEN_TEXT) {
    return make_status(EMBER_STATUS_INVALID_ARGUMENT, "unknown codegen artifact " + std::to_string(artifact));
  }
  if (size > 0 && data == nullptr) return make_status(EMBER_STATUS_INVALID_ARGUMENT, "write of NULL data");
  sink->parts[artifact].append(static_cast<const char*>(data), size);
  return nullptr;
}

Sink make_sink() {
  Sink sink;
  sink.out.struct_size = sizeof(ember_codegen_output);
  sink.out.write = &write_part;
  return sink;
}

struct Registry {
  std::mutex lock;
  std::deque<CodegenProvider> providers;  // stable addresses; never removed
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

CodegenProvider::CodegenProvider(std::string plugin_name, std::string plugin_version, uint32_t abi_minor,
                                 const ember_codegen_extension& table)
    : plugin_name_(std::move(plugin_name)),
      plugin_version_(std::move(plugin_version)),
      abi_minor_(abi_minor),
      device_type_(table.device_type),
      table_(table),
      ir_versions_(record_words(table.ir_versions)),
      ops_(record_words(table.ops)),
      dtypes_(record_words(table.dtypes)) {}

void CodegenProvider::quarantine(const std::string& reason) const {
  std::lock_guard lock(state_lock_);
  if (!unavailable_.empty()) return;
  unavailable_ = "code generator '" + plugin_name_ + "' was quarantined: " + reason;
  log().warn("{}", unavailable_);
}

std::string CodegenProvider::unavailable_reason() const {
  (void)fingerprint_or_reason();
  std::lock_guard lock(state_lock_);
  return unavailable_;
}

void CodegenProvider::check(ember_status* status, const std::string& what, bool internal_quarantines) const {
  if (status == nullptr) return;
  if (internal_quarantines && status->code == EMBER_STATUS_INTERNAL) quarantine(what + ": " + status->message);
  throw_if_error(status, "code generator '" + plugin_name_ + "' " + what);
}

const std::string& CodegenProvider::fingerprint_or_reason() const {
  std::lock_guard lock(compile_lock_);
  if (!fingerprint_done_) {
    Sink sink = make_sink();
    sink.out.host_context = &sink;
    ember_status* status = call_plugin([&] { return table_.fingerprint(&sink.out); });
    fingerprint_done_ = true;
    if (status != nullptr) {
      std::lock_guard state(state_lock_);
      unavailable_ = "code generator '" + plugin_name_ + "' is unavailable: " + status->message;
      delete status;
    } else {
      fingerprint_ = sink.parts[EMBER_CODEGEN_TEXT];
    }
  }
  return fingerprint_;
}

const std::string& CodegenProvider::fingerprint() const {
  const std::string& text = fingerprint_or_reason();
  const std::string reason = unavailable_reason();
  if (!reason.empty()) throw_error(ErrorKind::Runtime, reason);
  return text;
}

CodegenProvider::Compiled CodegenProvider::compile(const std::string& ir, const std::string& options) const {
  std::unique_lock<std::recursive_mutex> lock(compile_lock_, std::defer_lock);
  if (!(table_.thread_safety & EMBER_CODEGEN_COMPILE_THREAD_SAFE)) lock.lock();
  Sink sink = make_sink();
  sink.out.host_context = &sink;
  check(call_plugin([&] { return table_.compile(ir.data(), ir.size(), options.c_str(), &sink.out); }), "compile", true);
  if (sink.parts[EMBER_CODEGEN_BINARY].empty()) {
    quarantine("compile succeeded but wrote no binary");
    throw_error(ErrorKind::Runtime, "code generator '" + plugin_name_ + "' compile wrote no binary");
  }
  return Compiled{std::move(sink.parts[EMBER_CODEGEN_BINARY]), std::move(sink.parts[EMBER_CODEGEN_SOURCE]),
                  std::move(sink.parts[EMBER_CODEGEN_LOG])};
}

ember_codegen_kernel_t CodegenProvider::load(const std::string& blob) const {
  std::unique_lock<std::recursive_mutex> lock(launch_lock_, std::defer_lock);
  if (!(table_.thread_safety & EMBER_CODEGEN_LAUNCH_THREAD_SAFE)) lock.lock();
  ember_codegen_kernel_t kernel = nullptr;
  check(call_plugin([&] { return table_.load(blob.data(), blob.size(), &kernel); }), "load", true);
  if (kernel == nullptr) {
    quarantine("load succeeded but returned no kernel");
    throw_error(ErrorKind::Runtime, "code generator '" + plugin_name_ + "' load returned no kernel");
  }
  return kernel;
}

void CodegenProvider::launch(ember_codegen_kernel_t kernel, const ember_codegen_launch_args& args,
                             const std::string& kernel_name) const {
  std::unique_lock<std::recursive_mutex> lock(launch_lock_, std::defer_lock);
  if (!(table_.thread_safety & EMBER_CODEGEN_LAUNCH_THREAD_SAFE)) lock.lock();
  check(call_plugin([&] { return table_.launch(kernel, &args); }), "launch of kernel '" + kernel_name + "'", true);
}

void CodegenProvider::unload(ember_codegen_kernel_t kernel) const noexcept {
  std::unique_lock<std::recursive_mutex> lock(launch_lock_, std::defer_lock);
  if (!(table_.thread_safety & EMBER_CODEGEN_LAUNCH_THREAD_SAFE)) lock.lock();
  if (ember_status* status = call_plugin([&] { return table_.unload(kernel); })) {
    log().warn("code generator '{}' unload failed: {}", plugin_name_, status->message);
    delete status;
  }
}

const CodegenProvider* codegen_for(const std::string& device_type) {
  Registry& r = registry();
  std::lock_guard lock(r.lock);
  for (const CodegenProvider& p : r.providers) {
    if (p.device_type() == device_type) return &p;
  }
  return nullptr;
}

std::vector<const CodegenProvider*> codegen_providers() {
  Registry& r = registry();
  std::lock_guard lock(r.lock);
  std::vector<const CodegenProvider*> out;
  for (const CodegenProvider& p : r.providers) out.push_back(&p);
  return out;
}

const ember_codegen_extension* find_codegen_extension(const ember_plugin& plugin, uint32_t negotiated_minor) {
  const ember_extension* e = find_extension(plugin.extension, EMBER_EXTENSION_CODEGEN, negotiated_minor, 2,
                                            EMBER_STRUCT_SIZE(ember_codegen_extension, unload), "codegen");
  if (e == nullptr) return nullptr;
  const auto* table = reinterpret_cast<const ember_codegen_extension*>(e);
  if (table->device_type == nullptr || *table->device_type == '\0') {
    throw_error(ErrorKind::Runtime, "codegen extension names no device type");
  }
  if (!table->fingerprint || !table->compile || !table->load || !table->launch || !table->unload) {
    throw_error(ErrorKind::Runtime,
                "codegen extension for '" + std::string(table->device_type) + "' leaves a required function NULL");
  }
  if (const CodegenProvider* other = codegen_for(table->device_type)) {
    throw_error(ErrorKind::Runtime, "device type '" + std::string(table->device_type) +
                                        "' already has a code generator, plugin '" + other->plugin_name() + "'");
  }
  return table;
}

void add_codegen_provider(const std::string& plugin_name, const std::string& version, uint32_t abi_minor,
                          const ember_codegen_extension& table) {
  Registry& r = registry();
  std::lock_guard lock(r.lock);
  r.providers.emplace_back(plugin_name, version, abi_minor, table);
}

}  // namespace ember::plugin
