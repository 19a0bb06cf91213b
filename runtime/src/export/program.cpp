// Running an exported program (Note [Exported programs]).
#include "export/program.h"

#include <sstream>

#include "core/shape.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::exported {

std::vector<std::string> Program::symbol_names() const {
  std::vector<std::string> names;
  for (const Symbol& s : symbols) names.push_back(s.name);
  return names;
}

compile::Graph Program::instantiate(std::span<const int64_t> symbol_values) const {
  compile::Graph g = graph;
  size_t next = 0;
  bool enough = true;
  for_each_slot(g, [&](int64_t& slot) {
    if (next >= slots.size()) {
      enough = false;
      return;
    }
    slot = slots[next].eval(symbol_values, "a size of the exported graph");
    ++next;
  });
  if (!enough || next != slots.size()) {
    throw_error(ErrorKind::Value, "exported graph: " + std::to_string(slots.size()) +
                                      " size expressions for a graph with " + std::to_string(next) + " integers");
  }
  check_graph(g, inputs.size() + weights.size());
  return g;
}

namespace {

std::string dims_str(const std::vector<SymExpr>& shape, std::span<const std::string> names) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + shape[i].str(names);
  return s + "]";
}

}  // namespace

std::vector<int64_t> Program::bind(std::span<const Tensor> arguments) const {
  const std::vector<std::string> names = symbol_names();
  if (arguments.size() != inputs.size()) {
    throw_error(
        ErrorKind::Type, "exported program: expected " + std::to_string(inputs.size()) + " inputs (" + [&] {
          std::string s;
          for (const TensorSpec& in : inputs) s += (s.empty() ? "" : ", ") + in.name;
          return s;
        }() + "), got " + std::to_string(arguments.size()));
  }
  std::vector<int64_t> values(symbols.size(), -1);
  std::vector<std::string> bound_by(symbols.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& spec = inputs[i];
    const Tensor& t = arguments[i];
    const std::string who = "exported program: input '" + spec.name + "'";
    if (!t.defined()) throw_error(ErrorKind::Type, who + " is not a tensor");
    if (t.dtype() != spec.dtype) {
      throw_error(ErrorKind::Runtime, who + " has dtype " + std::string(dtype_name(t.dtype())) +
                                          ", the program was exported for " + std::string(dtype_name(spec.dtype)));
    }
    if (t.device() != spec.device) {
      throw_error(ErrorKind::Runtime,
                  who + " is on device " + t.device().str() + ", the program was exported for " + spec.device.str());
    }
    if (static_cast<size_t>(t.dim()) != spec.shape.size()) {
      throw_error(ErrorKind::Runtime, who + " has " + std::to_string(t.dim()) + " dims " + shape_str(t.sizes()) +
                                          ", the program takes " + dims_str(spec.shape, names));
    }
    for (size_t d = 0; d < spec.shape.size(); ++d) {
      const int s = spec.shape[d].as_symbol();
      const int64_t size = t.sizes()[d];
      if (s < 0) continue;
      const Symbol& sym = symbols[static_cast<size_t>(s)];
      if (size < sym.min || size > sym.max) {
        throw_error(ErrorKind::Runtime, who + " dim " + std::to_string(d) + " (" + sym.name + ") is " +
                                            std::to_string(size) + ", outside the constraint " +
                                            std::to_string(sym.min) + " <= " + sym.name +
                                            " <= " + std::to_string(sym.max));
      }
      if (values[static_cast<size_t>(s)] >= 0 && values[static_cast<size_t>(s)] != size) {
        throw_error(ErrorKind::Runtime, who + " dim " + std::to_string(d) + " (" + sym.name + ") is " +
                                            std::to_string(size) + ", but " + bound_by[static_cast<size_t>(s)] +
                                            " gives " + sym.name + " = " +
                                            std::to_string(values[static_cast<size_t>(s)]));
      }
      values[static_cast<size_t>(s)] = size;
      bound_by[static_cast<size_t>(s)] = "input '" + spec.name + "' dim " + std::to_string(d);
    }
  }
  for (size_t s = 0; s < symbols.size(); ++s) {
    if (values[s] < 0) {
      throw_error(ErrorKind::Value, "exported program: no input dim gives symbol '" + symbols[s].name + "'");
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& spec = inputs[i];
    for (size_t d = 0; d < spec.shape.size(); ++d) {
      const int64_t expected = spec.shape[d].eval(values, "input '" + spec.name + "' dim " + std::to_string(d));
      if (arguments[i].sizes()[d] != expected) {
        throw_error(ErrorKind::Runtime, "exported program: input '" + spec.name + "' has shape " +
                                            shape_str(arguments[i].sizes()) + ", the program takes " +
                                            dims_str(spec.shape, names) + ": dim " + std::to_string(d) + " must be " +
                                            std::to_string(expected));
      }
    }
  }
  return values;
}

std::vector<Tensor> Program::run(std::span<const Tensor> arguments) const {
  const std::vector<int64_t> values = bind(arguments);
  std::shared_ptr<const compile::Plan> plan;
  {
    std::lock_guard<std::mutex> lock(plans_mutex_);
    auto it = plans_.find(values);
    if (it != plans_.end()) plan = it->second;
  }
  if (plan == nullptr) {
    compile::PlanOptions options;
    options.codegen = codegen;
    options.dynamic = !symbols.empty();
    plan = std::make_shared<const compile::Plan>(instantiate(values), options);
    std::lock_guard<std::mutex> lock(plans_mutex_);
    plans_.emplace(values, plan);
  }
  std::vector<Tensor> all;
  for (const Tensor& t : arguments) all.push_back(t.contiguous());
  all.insert(all.end(), weight_values.begin(), weight_values.end());
  return plan->run(all);
}

std::vector<SymExpr> Program::shape_of(int id) const {
  size_t first = 0;
  for (int v = 0; v < id; ++v) first += 2 * graph.values[static_cast<size_t>(v)].sizes.size() + 1;
  const size_t rank = graph.values[static_cast<size_t>(id)].sizes.size();
  return {slots.begin() + static_cast<std::ptrdiff_t>(first),
          slots.begin() + static_cast<std::ptrdiff_t>(first + rank)};
}

std::vector<TensorSpec> Program::output_specs() const {
  std::vector<TensorSpec> out;
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    const compile::Value& v = graph.values[static_cast<size_t>(graph.outputs[i])];
    out.push_back(TensorSpec{output_names[i], v.dtype, v.device, shape_of(graph.outputs[i])});
  }
  return out;
}

std::string Program::code() const {
  const std::vector<std::string> names = symbol_names();
  std::ostringstream s;
  s << "ExportedProgram:\n";
  for (const Symbol& sym : symbols)
    s << "  dim " << sym.name << ": " << sym.min << " <= " << sym.name << " <= " << sym.max << "\n";
  s << "  inputs:\n";
  for (size_t i = 0; i < inputs.size(); ++i) {
    s << "    " << compile::value_name(graph.inputs[i]) << " = " << inputs[i].name << ": "
      << dtype_name(inputs[i].dtype) << dims_str(inputs[i].shape, names) << " on " << inputs[i].device.str() << "\n";
  }
  s << "  outputs:\n";
  for (const TensorSpec& o : output_specs()) {
    s << "    " << o.name << ": " << dtype_name(o.dtype) << dims_str(o.shape, names) << "\n";
  }
  s << "  weights:\n";
  for (size_t i = 0; i < weights.size(); ++i) {
    s << "    " << compile::value_name(graph.inputs[inputs.size() + i]) << " = " << weights[i].name << ": "
      << dtype_name(weights[i].dtype) << dims_str(weights[i].shape, names) << "\n";
  }
  // One line per node, its integers as expressions (Note [Sizes as expressions]).
  std::vector<const SymExpr*> slot_of;
  {
    size_t next = 0;
    for_each_slot(graph, [&](const int64_t&) { slot_of.push_back(&slots[next++]); });
  }
  std::vector<size_t> first_slot(graph.values.size());
  size_t next = 0;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    first_slot[v] = next;
    next += 2 * graph.values[v].sizes.size() + 1;
  }
  auto shape_of = [&](int id) {
    const compile::Value& v = graph.values[static_cast<size_t>(id)];
    std::string out = std::string(dtype_name(v.dtype)) + "[";
    for (size_t d = 0; d < v.sizes.size(); ++d) {
      out += (d ? ", " : "") + slot_of[first_slot[static_cast<size_t>(id)] + d]->str(names);
    }
    return out + "]";
  };
  s << "def forward(";
  for (size_t i = 0; i < inputs.size(); ++i) s << (i ? ", " : "") << compile::value_name(graph.inputs[i]);
  s << "):\n";
  for (const compile::Node& node : graph.nodes) {
    s << "    ";
    for (size_t i = 0; i < node.outputs.size(); ++i) s << (i ? ", " : "") << compile::value_name(node.outputs[i]);
    s << " = " << graph.op_of(node).name() << "(";
    bool first = true;
    for (int in : node.inputs) {
      const compile::Value& v = graph.values[static_cast<size_t>(in)];
      s << (first ? "" : ", ");
      first = false;
      if (v.origin == compile::ValueOrigin::Constant) {
        s << v.constant;
      } else {
        s << compile::value_name(in);
      }
    }
    for (const compile::Attribute& a : node.attrs) {
      s << (first ? "" : ", ") << a.name << "=";
      first = false;
      if (a.kind == EMBER_ATTR_INT) {
        s << slot_of[next++]->str(names);
      } else if (a.kind == EMBER_ATTR_INTS) {
        s << "[";
        for (size_t i = 0; i < a.ints.size(); ++i) s << (i ? ", " : "") << slot_of[next++]->str(names);
        s << "]";
      } else {
        const std::string text = a.str();
        s << text.substr(text.find('=') + 1);
      }
    }
    s << ")  # " << shape_of(node.outputs[0]);
    if (!node.location.empty()) s << "  " << node.location;
    s << "\n";
  }
  s << "    return (";
  for (size_t i = 0; i < graph.outputs.size(); ++i) s << (i ? ", " : "") << compile::value_name(graph.outputs[i]);
  s << (graph.outputs.size() == 1 ? ",)\n" : ")\n");
  return s.str();
}

}  // namespace ember::exported
