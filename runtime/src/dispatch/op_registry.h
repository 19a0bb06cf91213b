#pragma once

#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "dispatch/op.h"
#include "dispatch/op_id.h"

namespace ember::dispatch {

// Every op the core knows. Filled once, at first use, from the catalogue
// records (ops/op_records.cpp, through ops/catalogue.cpp); immutable afterwards, so lookups take no lock.
class OpRegistry {
 public:
  static const OpRegistry& get();

  // nullptr when the catalogue has no such op.
  Op* find(std::string_view name) const;
  // Throws NotImplemented naming the op when it is unknown.
  Op& at(std::string_view name) const;
  Op& at(OpIndex index) const { return *ops_[index]; }
  const std::vector<std::unique_ptr<Op>>& ops() const { return ops_; }

 private:
  OpRegistry();
  void add(OpSchema schema);
  friend void register_catalogue(OpRegistry& registry);

  std::vector<std::unique_ptr<Op>> ops_;
  std::unordered_map<std::string_view, Op*> by_name_;
};

// The catalogue's op of that name; throws NotImplemented when unknown. For
// names that come from outside (plugins, Python); the core names ops by id.
inline const Op& op_named(std::string_view name) { return OpRegistry::get().at(name); }

// The registry's op for an id: an array index, no lookup by name.
inline const Op& op(OpId id) { return OpRegistry::get().at(static_cast<OpIndex>(id)); }

// Defined in ops/catalogue.cpp: adds every op record (Note [One record per
// op]) in OpId order.
void register_catalogue(OpRegistry& registry);

}  // namespace ember::dispatch
