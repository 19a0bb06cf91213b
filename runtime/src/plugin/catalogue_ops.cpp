// ember::catalogue_ops(): the op registry as plugin authors and the
// conformance kit see it.
#include "dispatch/op_registry.h"
#include "ember/plugins.h"

namespace ember {

std::vector<CatalogueOp> catalogue_ops() {
  std::vector<CatalogueOp> ops;
  for (const auto& op : dispatch::OpRegistry::get().ops()) {
    const dispatch::OpSchema& schema = op->schema();
    ops.push_back({schema.name, schema.num_inputs, schema.num_outputs, schema.composite});
  }
  return ops;
}

}  // namespace ember
