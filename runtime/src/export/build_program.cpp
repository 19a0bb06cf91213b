// Exported programs from traces at several sizes (Note [Sizes as expressions]).
#include "export/build_program.h"

#include "ember/error.h"

namespace ember::exported {

using compile::Graph;

namespace {

std::vector<int64_t> slots_of(const Graph& g) {
  std::vector<int64_t> out;
  for_each_slot(g, [&](const int64_t& s) { out.push_back(s); });
  return out;
}

// Where two traces differ other than in their integers, or "" if nowhere.
std::string structural_difference(const Graph& a, const Graph& b) {
  if (a.values.size() != b.values.size() || a.nodes.size() != b.nodes.size()) return "the number of ops differs";
  if (a.inputs != b.inputs || a.outputs != b.outputs) return "the inputs or outputs differ";
  for (size_t i = 0; i < a.values.size(); ++i) {
    const compile::Value& x = a.values[i];
    const compile::Value& y = b.values[i];
    if (x.origin != y.origin || x.dtype != y.dtype || x.device != y.device || x.sizes.size() != y.sizes.size() ||
        x.storage_of != y.storage_of || x.producer != y.producer || x.input_index != y.input_index) {
      return "value " + compile::value_name(static_cast<int>(i)) + " differs";
    }
    if (x.constant != y.constant) {
      return "the constant " + compile::value_name(static_cast<int>(i)) + " is " + std::to_string(x.constant) +
             " in one trace and " + std::to_string(y.constant) + " in another (a size read as a number)";
    }
  }
  for (size_t n = 0; n < a.nodes.size(); ++n) {
    const compile::Node& x = a.nodes[n];
    const compile::Node& y = b.nodes[n];
    bool same = x.op == y.op && x.inputs == y.inputs && x.outputs == y.outputs && x.writes_output == y.writes_output &&
                x.attrs.size() == y.attrs.size();
    for (size_t k = 0; same && k < x.attrs.size(); ++k) {
      const compile::Attribute& p = x.attrs[k];
      const compile::Attribute& q = y.attrs[k];
      same = p.name == q.name && p.kind == q.kind && p.ints.size() == q.ints.size() &&
             (p.kind == EMBER_ATTR_INT || p.kind == EMBER_ATTR_INTS || p.int_value == q.int_value) &&
             (p.kind != EMBER_ATTR_FLOAT || p.float_value == q.float_value);
    }
    if (!same) {
      return "node " + std::to_string(n) + " (" + a.op_of(x).name() + (x.location.empty() ? "" : " at " + x.location) +
             ") differs";
    }
  }
  return "";
}

std::string names_of(uint32_t mask, const std::vector<Symbol>& symbols) {
  std::string out;
  for (size_t i = 0; i < symbols.size(); ++i) {
    if (mask & (1u << i)) out += (out.empty() ? "'" : ", '") + symbols[i].name + "'";
  }
  return out.empty() ? "a dynamic dim" : out;
}

std::string binding_str(const std::vector<Symbol>& symbols, std::span<const int64_t> values) {
  std::string out;
  for (size_t i = 0; i < symbols.size(); ++i) {
    out += (i ? ", " : "") + symbols[i].name + "=" + std::to_string(values[i]);
  }
  return out;
}

[[noreturn]] void specialised(uint32_t mask, const std::vector<Symbol>& symbols, const std::string& why) {
  throw_error(ErrorKind::Runtime, "export: constraint violation: the program specialises dynamic dim " +
                                      names_of(mask, symbols) + ": " + why +
                                      "; mark the dim static, or keep the program from using its size as a number");
}

}  // namespace

std::shared_ptr<Program> build_program(ProgramParts parts, std::span<const Trace> traces) {
  const int k = static_cast<int>(parts.symbols.size());
  if (k > kMaxSymbols) {
    throw_error(ErrorKind::Value,
                "export: at most " + std::to_string(kMaxSymbols) + " dynamic dims, got " + std::to_string(k));
  }
  size_t corners = 1;
  for (int i = 0; i < k; ++i) corners *= kPointsPerSymbol;
  if (traces.size() < corners) throw_error(ErrorKind::Value, "export: too few traces for the dynamic dims");
  const Graph& base = traces[0].graph;
  const std::vector<int64_t> low = traces[0].symbol_values;
  std::vector<std::vector<int64_t>> points(static_cast<size_t>(k));
  size_t stride = 1;
  for (int i = 0; i < k; ++i, stride *= kPointsPerSymbol) {
    for (int j = 0; j < kPointsPerSymbol; ++j) {
      points[static_cast<size_t>(i)].push_back(
          traces[static_cast<size_t>(j) * stride].symbol_values[static_cast<size_t>(i)]);
    }
  }

  std::vector<std::vector<int64_t>> observed;
  for (size_t t = 0; t < traces.size(); ++t) {
    const std::string diff = structural_difference(base, traces[t].graph);
    if (!diff.empty()) {
      uint32_t mask = 0;
      for (int i = 0; i < k; ++i) {
        if (traces[t].symbol_values[static_cast<size_t>(i)] != low[static_cast<size_t>(i)]) mask |= 1u << i;
      }
      specialised(mask, parts.symbols,
                  "the program traced at " + binding_str(parts.symbols, low) + " and at " +
                      binding_str(parts.symbols, traces[t].symbol_values) + " differs: " + diff);
    }
    observed.push_back(slots_of(traces[t].graph));
  }
  auto program = std::make_shared<Program>();
  const size_t num_slots = observed[0].size();
  program->slots.resize(num_slots);
  std::vector<int64_t> values(corners);
  for (size_t s = 0; s < num_slots; ++s) {
    for (size_t t = 0; t < corners; ++t) values[t] = observed[t][s];
    SymExpr expr;
    bool ok = fit_on_grid(values, points, &expr);
    for (size_t t = corners; ok && t < traces.size(); ++t) {
      ok = expr.eval(traces[t].symbol_values, "a fitted size") == observed[t][s];
    }
    if (!ok) {
      uint32_t mask = 0;
      size_t step = 1;
      for (int i = 0; i < k; ++i, step *= kPointsPerSymbol) {
        for (int j = 1; j < kPointsPerSymbol; ++j) {
          if (values[static_cast<size_t>(j) * step] != values[0]) mask |= 1u << i;
        }
      }
      specialised(mask, parts.symbols, "an integer of the graph (a size or an attribute) is not a polynomial of them");
    }
    program->slots[s] = expr;
  }
  program->symbols = std::move(parts.symbols);
  program->graph = base;
  program->weight_values = std::move(parts.weight_values);
  program->output_structure = parts.output_structure;

  // Specs from the graph's input values, whose sizes are the first slots of each value.
  std::vector<size_t> first_slot(base.values.size());
  size_t next = 0;
  for (size_t v = 0; v < base.values.size(); ++v) {
    first_slot[v] = next;
    next += base.values[v].sizes.size() * 2 + 1;
  }
  auto spec_of = [&](int value, std::string name) {
    const compile::Value& v = base.values[static_cast<size_t>(value)];
    TensorSpec spec{std::move(name), v.dtype, v.device, {}};
    for (size_t d = 0; d < v.sizes.size(); ++d)
      spec.shape.push_back(program->slots[first_slot[static_cast<size_t>(value)] + d]);
    return spec;
  };
  const size_t num_inputs = parts.input_names.size();
  if (base.inputs.size() != num_inputs + parts.weight_names.size()) {
    throw_error(ErrorKind::Value, "export: the graph has " + std::to_string(base.inputs.size()) + " inputs, but " +
                                      std::to_string(num_inputs) + " arguments and " +
                                      std::to_string(parts.weight_names.size()) + " weights were named");
  }
  for (size_t i = 0; i < num_inputs; ++i) program->inputs.push_back(spec_of(base.inputs[i], parts.input_names[i]));
  for (size_t i = 0; i < parts.weight_names.size(); ++i) {
    TensorSpec spec = spec_of(base.inputs[num_inputs + i], parts.weight_names[i]);
    for (const SymExpr& e : spec.shape) {
      if (!e.is_constant()) {
        specialised(e.symbols_used(), program->symbols,
                    "the shape of the tensor '" + spec.name + "' it reads depends on them");
      }
    }
    program->weights.push_back(std::move(spec));
  }
  for (size_t i = 0; i < base.outputs.size(); ++i) program->output_names.push_back("output_" + std::to_string(i));
  (void)program->instantiate(low);  // checks the graph (Note [Checking a loaded graph])
  return program;
}

}  // namespace ember::exported
