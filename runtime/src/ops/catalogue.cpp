// The op registry from the op records (Note [One record per op]): every
// record becomes an op of the dispatcher, its derivative the Autograd step's.
#include <string>

#include "autograd/derivatives.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ops/op_record.h"

namespace ember::dispatch {

void register_catalogue(OpRegistry& registry) {
  const auto records = ops::op_records();
  if (records.size() != static_cast<size_t>(kNumOps)) {
    throw_error(ErrorKind::Runtime, "the op records hold " + std::to_string(records.size()) + " ops, OpId names " +
                                        std::to_string(kNumOps));
  }
  for (size_t i = 0; i < records.size(); ++i) {
    const ops::OpRecord& r = records[i];
    if (static_cast<size_t>(r.id) != i) {
      throw_error(ErrorKind::Runtime, std::string("the op record of '") + r.name + "' is out of OpId order");
    }
    if (r.num_outputs > kMaxOutputs) {
      throw_error(ErrorKind::Runtime, std::string("the op record of '") + r.name + "' has " +
                                          std::to_string(r.num_outputs) + " outputs, more than " +
                                          std::to_string(kMaxOutputs));
    }
    OpSchema schema;
    schema.name = r.name;
    schema.num_inputs = r.num_inputs;
    schema.num_outputs = r.num_outputs;
    schema.meta = r.meta;
    schema.dispatch_dtype_from = r.dispatch_dtype_from;
    schema.kind = r.kind;
    schema.abi_minor = r.abi_minor;
    schema.output_follows_inputs = r.dtype_rule != ops::DTypeRule::Custom;
    registry.add(std::move(schema));
    autograd::set_derivative(static_cast<OpIndex>(i), r.derivative, r.derivative_reads_outputs);
  }
}

}  // namespace ember::dispatch
