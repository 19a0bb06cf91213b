// ember::catalogue_ops() and ember::registered_kernels(): the op registry and
// the dispatcher's kernel tables as plugin authors, the conformance kit and
// coverage reports (python -m ember.info) see them.
#include "dispatch/op_registry.h"
#include "ember/plugins.h"
#include "plugin/loader.h"

namespace ember {

std::vector<CatalogueOp> catalogue_ops() {
  std::vector<CatalogueOp> ops;
  for (const auto& op : dispatch::OpRegistry::get().ops()) {
    const dispatch::OpSchema& schema = op->schema();
    // Views are the core's own aliasing: no backend registers them.
    if (schema.is_view()) continue;
    ops.push_back({schema.name, schema.num_inputs, schema.num_outputs, schema.is_composite(), schema.abi_minor});
  }
  return ops;
}

std::vector<OpKernels> registered_kernels(const std::string& device_type) {
  // cpu is a built-in type id, so naming it would not load its plugin.
  plugin::discover_plugins();
  const DeviceTypeId type = Device(device_type).type;
  std::vector<OpKernels> table;
  for (const auto& op : dispatch::OpRegistry::get().ops()) {
    OpKernels entry{op->name(), {}};
    for (int d = 0; d < kNumDTypes; ++d) {
      if (op->kernel(type, static_cast<DType>(d)) != nullptr) entry.dtypes.push_back(static_cast<DType>(d));
    }
    if (!entry.dtypes.empty()) table.push_back(std::move(entry));
  }
  return table;
}

}  // namespace ember
