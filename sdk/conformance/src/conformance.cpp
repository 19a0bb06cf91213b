// run(): resolves the plugin through the core, then runs the ABI, op and
// end-to-end suites against it.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

#include <ember/ember.h>
#include <ember/ember_plugin.hpp>

#include "abi_suite.h"
#include "e2e_suite.h"
#include "op_suite.h"
#include "plugin_harness.h"

namespace ember::conformance {

namespace {

namespace fs = std::filesystem;

bool looks_like_path(const std::string& text) {
  return text.find('/') != std::string::npos || text.ends_with(".so");
}

// The name and device type a plugin declares, read from a private instance
// (Note [Private plugin copy]); empty when it cannot be initialised, in which
// case the core's load says why.
struct DeclaredIdentity {
  std::string name;
  std::string device_type;
};

DeclaredIdentity read_identity(const std::string& path) {
  try {
    PluginHarness harness(path);
    harness.init_and_register();
    const ember_device_api* device = harness.device();
    return {harness.plugin().name != nullptr ? harness.plugin().name : "",
            device != nullptr && device->device_type != nullptr ? device->device_type : ""};
  } catch (const std::exception&) {
    return {};
  }
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return fs::equivalent(a, b, error);
}

// Note [Certifying beside the reference]
// The op and end-to-end suites compare the device with the CPU plugin, which
// must stay loaded as device type cpu. A plugin declaring a name or a device
// type that a loaded plugin holds (a second build of the CPU plugin, above
// all) is therefore loaded with load_plugin_as() as "<name>_under_test", its
// device type "<type>_under_test": its kernels run beside the reference's
// and are compared with them. The file of a loaded plugin is that plugin:
// certifying the CPU reference itself compares it with itself, as the
// report's reference line shows.
struct ResolvedPlugin {
  PluginInfo info;
  std::string loaded_as;  // the device type it runs under, when not its own
};

ResolvedPlugin load_beside_loaded(const std::string& path) {
  const DeclaredIdentity own = read_identity(path);
  for (const PluginInfo& other : plugins()) {
    if (!other.loaded || own.name.empty() || same_file(other.path, path)) continue;
    if (other.name == own.name || (!own.device_type.empty() && other.device_type == own.device_type)) {
      const std::string type = own.device_type.empty() ? "" : own.device_type + "_under_test";
      PluginInfo info = load_plugin_as(path, own.name + "_under_test", type);
      info.name = own.name;
      info.device_type = own.device_type;
      return {info, type};
    }
  }
  return {load_plugin(path), ""};
}

// The plugin as the core loaded it; throws naming the reason it cannot be used.
ResolvedPlugin resolve_plugin(const std::string& plugin) {
  if (looks_like_path(plugin)) return load_beside_loaded(plugin);
  std::string known;
  for (const PluginInfo& info : plugins()) {
    if (info.name != plugin) {
      known += (known.empty() ? "" : ", ") + info.name;
      continue;
    }
    if (!info.loaded) throw std::runtime_error("plugin '" + plugin + "' was quarantined: " + info.error);
    return {info, ""};
  }
  throw std::runtime_error("no plugin named '" + plugin + "' was discovered (found: " +
                           (known.empty() ? "none" : known) + "); pass a path to the library instead");
}

std::string cpu_reference_path() {
  for (const PluginInfo& info : plugins()) {
    if (info.loaded && info.device_type == "cpu") return info.path;
  }
  return "";
}

// What the plugin registers, learnt from a private instance (Note [Private
// plugin copy]), which also answers supports_op for the rest.
class Registrations {
 public:
  explicit Registrations(const std::string& path) : harness_(path) {
    harness_.init_and_register();
    for (const RegisteredKernel& k : harness_.kernels()) registered_.insert({k.op, k.dtype});
  }

  bool provides(const std::string& op, DType dtype) const {
    const auto abi_dtype = static_cast<ember_dtype>(dtype);
    if (registered_.count({op, abi_dtype}) != 0) return true;
    const ember_device_api* device = harness_.device();
    if (device == nullptr || offsetof(ember_device_api, supports_op) >= device->struct_size ||
        device->supports_op == nullptr) {
      return false;
    }
    ember_op_query query{};
    query.struct_size = sizeof query;
    query.op_name = op.c_str();
    query.dtypes = &abi_dtype;
    query.num_dtypes = 1;
    int32_t supported = 0;
    return take_status(device->supports_op(&query, &supported)).ok && supported != 0;
  }

 private:
  PluginHarness harness_;
  std::set<std::pair<std::string, ember_dtype>> registered_;
};

}  // namespace

Verdict Report::verdict() const {
  auto failed = [](const CheckResult& c) { return c.outcome == Outcome::Fail; };
  const bool any_failure =
      !fatal_error.empty() || std::any_of(abi_checks.begin(), abi_checks.end(), failed) ||
      std::any_of(e2e_checks.begin(), e2e_checks.end(), failed) ||
      std::any_of(ops.begin(), ops.end(), [](const OpResult& r) { return r.coverage == Coverage::Fail; });
  if (any_failure) return Verdict::Fail;
  // End-to-end cases are skipped only in a partial run (run_e2e_suite).
  const bool e2e_skipped = std::any_of(e2e_checks.begin(), e2e_checks.end(),
                                       [](const CheckResult& c) { return c.outcome == Outcome::Skip; });
  return e2e_skipped ? Verdict::Partial : Verdict::Pass;
}

std::string plugins_to_discover(const Options& options) {
  const std::string& plugin = options.plugin;
  return plugin.empty() || plugin == "cpu" || looks_like_path(plugin) ? "cpu" : "cpu," + plugin;
}

std::vector<std::string> list_checks(const Options& options) {
  const Filter filter(options.filters);
  std::vector<std::string> ids = abi_check_ids();
  for (const std::string& id : op_check_ids(catalogue_ops())) ids.push_back(id);
  for (const std::string& id : e2e_check_ids()) ids.push_back(id);
  std::erase_if(ids, [&](const std::string& id) { return !filter.matches(id); });
  return ids;
}

Report run(const Options& options) {
  Report report;
  const Filter filter(options.filters);
  ResolvedPlugin resolved;
  try {
    resolved = resolve_plugin(options.plugin);
  } catch (const std::exception& e) {
    report.plugin_path = options.plugin;
    report.fatal_error = e.what();
    return report;
  }
  const PluginInfo& info = resolved.info;
  report.plugin_name = info.name;
  report.plugin_path = info.path;
  report.plugin_version = info.version;
  report.abi = std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
  report.device_type = info.device_type;
  report.loaded_as = resolved.loaded_as;
  report.reference_path = cpu_reference_path();
  const std::string device_type = resolved.loaded_as.empty() ? info.device_type : resolved.loaded_as;
  std::optional<Device> device;
  if (!device_type.empty() && device_count(device_type) > 0) device = Device(device_type + ":0");

  report.abi_checks = run_abi_suite(info.path, device, filter);
  if (!device) {
    report.fatal_error = "the plugin provides no device, so no op or end-to-end check can run";
    return report;
  }
  std::unique_ptr<Registrations> registrations;
  try {
    registrations = std::make_unique<Registrations>(info.path);
  } catch (const std::exception& e) {
    report.fatal_error = std::string("cannot read the plugin's registrations: ") + e.what();
    return report;
  }
  DeviceUnderTest target{*device, [&](const std::string& op, DType dtype) { return registrations->provides(op, dtype); },
                         DType::Float64};
  if (!target.provides("mul", DType::Float64)) target.gradient_dtype = DType::Float32;
  OpSuiteResult ops = run_op_suite(target, catalogue_ops(), filter, options.perf);
  report.ops = std::move(ops.ops);
  report.ops_without_case = std::move(ops.ops_without_case);
  report.e2e_checks = run_e2e_suite(*device, filter, options.partial);
  return report;
}

}  // namespace ember::conformance
