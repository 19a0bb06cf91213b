#include "dispatch/op.h"

#include <cstring>
#include <string>

#include "ember/error.h"

namespace ember::dispatch {

Op::Op(OpSchema schema) : schema_(std::move(schema)) {}

const ember_attr* OpCall::find_attr(std::string_view name) const {
  for (int64_t i = 0; i < num_attrs; ++i) {
    if (name == attrs[i].name) return &attrs[i];
  }
  return nullptr;
}

int64_t OpCall::attr_int(std::string_view op, std::string_view name) const {
  const ember_attr* a = find_attr(name);
  if (a == nullptr) {
    throw_error(ErrorKind::Value, std::string(op) + ": missing attribute '" + std::string(name) + "'");
  }
  return a->int_value;
}

IntArrayRef OpCall::attr_ints(std::string_view op, std::string_view name) const {
  const ember_attr* a = find_attr(name);
  if (a == nullptr || a->kind != EMBER_ATTR_INTS) {
    throw_error(ErrorKind::Value, std::string(op) + ": missing int-list attribute '" + std::string(name) + "'");
  }
  return {a->ints, static_cast<size_t>(a->num_ints)};
}

}  // namespace ember::dispatch
