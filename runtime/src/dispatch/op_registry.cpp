#include "dispatch/op_registry.h"

#include <string>

#include "dispatch/step_table.h"
#include "ember/error.h"

namespace ember::dispatch {

const OpRegistry& OpRegistry::get() {
  // Never destroyed: plugins' kernel tables point into these ops until the
  // process ends.
  static const OpRegistry* registry = new OpRegistry();
  return *registry;
}

OpRegistry::OpRegistry() {
  register_catalogue(*this);
  install_runtime_steps();
}

void OpRegistry::add(OpSchema schema) {
  schema.index = static_cast<OpIndex>(ops_.size());
  auto op = std::make_unique<Op>(std::move(schema));
  by_name_.emplace(op->name(), op.get());
  ops_.push_back(std::move(op));
}

Op* OpRegistry::find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

Op& OpRegistry::at(std::string_view name) const {
  Op* op = find(name);
  if (op == nullptr) {
    throw_error(ErrorKind::NotImplemented, "unknown op '" + std::string(name) + "'");
  }
  return *op;
}

}  // namespace ember::dispatch
