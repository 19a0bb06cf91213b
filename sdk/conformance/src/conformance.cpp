// run(): resolves the plugin through the core, then runs the ABI, op and
// end-to-end suites against it.
#include <algorithm>
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

bool looks_like_path(const std::string& text) {
  return text.find('/') != std::string::npos || text.ends_with(".so");
}

// The plugin as the core loaded it; throws naming the reason it cannot be used.
PluginInfo resolve_plugin(const std::string& plugin) {
  if (looks_like_path(plugin)) return load_plugin(plugin);
  std::string known;
  for (const PluginInfo& info : plugins()) {
    if (info.name != plugin) {
      known += (known.empty() ? "" : ", ") + info.name;
      continue;
    }
    if (!info.loaded) throw std::runtime_error("plugin '" + plugin + "' was quarantined: " + info.error);
    return info;
  }
  throw std::runtime_error("no plugin named '" + plugin + "' was discovered (found: " +
                           (known.empty() ? "none" : known) + "); pass a path to the library instead");
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

bool Report::passed() const {
  auto failed = [](const CheckResult& c) { return c.outcome == Outcome::Fail; };
  return fatal_error.empty() && std::none_of(abi_checks.begin(), abi_checks.end(), failed) &&
         std::none_of(e2e_checks.begin(), e2e_checks.end(), failed) &&
         std::none_of(ops.begin(), ops.end(), [](const OpResult& r) { return r.coverage == Coverage::Fail; });
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
  PluginInfo info;
  try {
    info = resolve_plugin(options.plugin);
  } catch (const std::exception& e) {
    report.plugin_path = options.plugin;
    report.fatal_error = e.what();
    return report;
  }
  report.plugin_name = info.name;
  report.plugin_path = info.path;
  report.plugin_version = info.version;
  report.abi = std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor);
  report.device_type = info.device_type;
  std::optional<Device> device;
  if (!info.device_type.empty() && device_count(info.device_type) > 0) device = Device(info.device_type + ":0");

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
  report.e2e_checks = run_e2e_suite(*device, filter);
  return report;
}

}  // namespace ember::conformance
