#include "plugin/host_api.h"

#include <algorithm>
#include <exception>
#include <string>

#include "core/logging.h"
#include "dispatch/op_registry.h"
#include "plugin/status.h"

namespace ember::plugin {

namespace {

ember_status* status_create(ember_status_code code, const char* message) {
  if (code == EMBER_STATUS_OK) return nullptr;
  try {
    return make_status(code, message != nullptr ? message : "");
  } catch (...) {
    // Out of memory while reporting an error: the code still travels.
    static ember_status out_of_memory{EMBER_STATUS_OUT_OF_MEMORY, {}};
    return &out_of_memory;
  }
}

void status_destroy(ember_status* status) { delete status; }

ember_status_code status_code(const ember_status* status) { return status != nullptr ? status->code : EMBER_STATUS_OK; }

const char* status_message(const ember_status* status) { return status != nullptr ? status->message.c_str() : ""; }

void log_message(ember_log_level level, const char* plugin_name, const char* message) {
  static constexpr spdlog::level::level_enum kLevels[] = {spdlog::level::trace, spdlog::level::debug,
                                                          spdlog::level::info, spdlog::level::warn, spdlog::level::err};
  auto spd_level = level >= EMBER_LOG_TRACE && level <= EMBER_LOG_ERROR ? kLevels[level] : spdlog::level::err;
  try {
    ember::log().log(spd_level, "[{}] {}", plugin_name != nullptr ? plugin_name : "plugin",
                     message != nullptr ? message : "");
  } catch (...) {
    // A log line is never worth unwinding into a plugin.
  }
}

// Note [Versioned catalogue]
// Each op carries the ABI minor that introduced it (OpSchema::abi_minor). A
// kernel for an op this core does not know comes from a plugin built
// against a newer catalogue (or names an op no catalogue has): it is skipped
// with a warning and the plugin's other kernels load, so a newer plugin
// keeps what an older core can run. A plugin built for an older minor than
// the op's may still register it: the op's name and semantics are the
// contract, whatever minor the plugin declares (the catalogue grew before
// its minor did: max_pool2d_backward shipped while the ABI said 1.0), so the
// kernel is accepted with a debug line rather than a warning nobody can act
// on.
void note_skipped_op(ember_registrar& registrar, const std::string& op_name) {
  if (std::find(registrar.skipped_ops.begin(), registrar.skipped_ops.end(), op_name) != registrar.skipped_ops.end()) {
    return;
  }
  registrar.skipped_ops.push_back(op_name);
  const dispatch::Op* known = dispatch::OpRegistry::get().find(op_name);
  if (known != nullptr && known->schema().is_view()) {
    ember::log().warn("plugin '{}' registers a kernel for '{}', a view op the core implements itself: skipped, the "
                      "plugin's other kernels load",
                      registrar.plugin_name, op_name);
    return;
  }
  ember::log().warn(
      "plugin '{}' (ABI {}.{}) registers a kernel for '{}', an op this core's catalogue (ABI {}.{}) does not know: "
      "skipped, the plugin's other kernels load",
      registrar.plugin_name, EMBER_ABI_VERSION_MAJOR, registrar.plugin_abi_minor, op_name, EMBER_ABI_VERSION_MAJOR,
      EMBER_ABI_VERSION_MINOR);
}

void note_newer_op(const ember_registrar& registrar, const dispatch::OpSchema& op) {
  if (static_cast<uint32_t>(op.abi_minor) <= registrar.plugin_abi_minor) return;
  ember::log().debug("plugin '{}' (ABI {}.{}) registers '{}', an op of ABI {}.{}: accepted", registrar.plugin_name,
                     EMBER_ABI_VERSION_MAJOR, registrar.plugin_abi_minor, op.name, EMBER_ABI_VERSION_MAJOR,
                     op.abi_minor);
}

// Checks one registration; returns the reason it is refused, or "". An op
// the catalogue does not know leaves *op NULL and is no error (Note
// [Versioned catalogue]).
std::string validate(const ember_registrar& registrar, const ember_kernel_registration* kernel, dispatch::Op** op) {
  if (!registrar.has_device) return "a plugin without a device cannot register kernels";
  if (kernel == nullptr) return "register_kernel called with a NULL registration";
  if (kernel->struct_size < EMBER_KERNEL_REGISTRATION_SIZE_V1_0) {
    return "ember_kernel_registration struct_size " + std::to_string(kernel->struct_size) + " is smaller than the " +
           std::to_string(EMBER_KERNEL_REGISTRATION_SIZE_V1_0) + " bytes of ABI 1.0";
  }
  if (kernel->op_name == nullptr) return "kernel registered without an op name";
  std::string op_name = kernel->op_name;
  *op = dispatch::OpRegistry::get().find(op_name);
  // A view op is the core's own aliasing: a kernel for it would never run.
  if (*op != nullptr && (*op)->schema().is_view()) *op = nullptr;
  if (*op == nullptr) return {};
  if (kernel->dtype < 0 || kernel->dtype >= EMBER_DTYPE_COUNT_V1_0) {
    return "kernel for '" + op_name + "' has dtype " + std::to_string(kernel->dtype) +
           ", which ABI 1.0 does not define";
  }
  std::string what =
      "kernel for '" + op_name + "' (" + std::string(dtype_name(static_cast<DType>(kernel->dtype))) + ")";
  if (kernel->kernel == nullptr) return what + " has a NULL function";
  for (const auto& staged : registrar.staged) {
    if (staged.op == *op && staged.dtype == static_cast<DType>(kernel->dtype)) {
      return what + " registered twice";
    }
  }
  return {};
}

ember_status* register_kernel(ember_registrar* registrar, const ember_kernel_registration* kernel) {
  if (registrar == nullptr) {
    return status_create(EMBER_STATUS_INVALID_ARGUMENT, "register_kernel called without a registrar");
  }
  try {
    dispatch::Op* op = nullptr;
    std::string error = validate(*registrar, kernel, &op);
    if (error.empty() && op == nullptr) {
      note_skipped_op(*registrar, kernel->op_name);
      return nullptr;
    }
    if (error.empty()) {
      note_newer_op(*registrar, op->schema());
      registrar->staged.push_back(
          {op, static_cast<DType>(kernel->dtype), kernel->kernel, kernel->kernel_data, kernel->flags});
      return nullptr;
    }
    if (registrar->first_error.empty()) registrar->first_error = error;
    return make_status(EMBER_STATUS_INVALID_ARGUMENT, error);
  } catch (const std::exception& e) {
    if (registrar->first_error.empty()) registrar->first_error = e.what();
    return status_create(EMBER_STATUS_INTERNAL, e.what());
  }
}

}  // namespace

const ember_host_api& host_api() {
  static const ember_host_api api = {
      .struct_size = sizeof(ember_host_api),
      .abi_major = EMBER_ABI_VERSION_MAJOR,
      .abi_minor = EMBER_ABI_VERSION_MINOR,
      .extension = nullptr,
      .status_create = status_create,
      .status_destroy = status_destroy,
      .log = log_message,
      .register_kernel = register_kernel,
      .status_code = status_code,
      .status_message = status_message,
  };
  return api;
}

}  // namespace ember::plugin
