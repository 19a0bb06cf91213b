#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compile/graph.h"
#include "compile/plan.h"
#include "ember/tensor.h"
#include "export/sym_expr.h"

namespace ember::exported {

// A dynamic dim of the program: ember.export.Dim(name, min=, max=).
struct Symbol {
  std::string name;
  int64_t min = 0;
  int64_t max = 0;
};

// A named graph input: an argument the caller passes, or a weight the
// program holds.
struct TensorSpec {
  std::string name;
  DType dtype = DType::Float32;
  Device device;
  std::vector<SymExpr> shape;
};

// How the outputs are returned to Python: one tensor, or a tuple or list.
enum class OutputStructure : uint8_t { Tensor, Tuple, List };

// Note [Exported programs]
// An exported program is a graph of catalogue ops whose integers are
// expressions over the symbols (Note [Sizes as expressions]), traced at the
// example sizes, whose first inputs are the caller's arguments and whose
// remaining inputs are the weights it holds. A run binds the symbols from
// the arguments' sizes, checks every argument against its spec, evaluates
// the graph's integers at those sizes, checks each node as its op's meta
// function sees it (Note [Checking a loaded graph]) and compiles the result
// into a Plan, kept per binding of the symbols.
struct Program {
  std::vector<Symbol> symbols;
  compile::Graph graph;             // at the example sizes
  std::vector<SymExpr> slots;       // one per integer, in for_each_slot order
  std::vector<TensorSpec> inputs;   // the caller's, graph inputs 0..n-1
  std::vector<TensorSpec> weights;  // graph inputs n.., in order
  std::vector<Tensor> weight_values;
  std::vector<std::string> output_names;
  OutputStructure output_structure = OutputStructure::Tuple;
  bool codegen = true;  // compile fused kernels where a generator is loaded

  // The graph's integers at one binding of the symbols, checked node by node.
  compile::Graph instantiate(std::span<const int64_t> symbol_values) const;
  // Checks the arguments against their specs; the symbols' values they bind.
  std::vector<int64_t> bind(std::span<const Tensor> arguments) const;
  std::vector<Tensor> run(std::span<const Tensor> arguments) const;
  // The shape of graph value `id` over the symbols.
  std::vector<SymExpr> shape_of(int id) const;
  // Name, dtype, device and shape of each output.
  std::vector<TensorSpec> output_specs() const;
  // The program as it reads, with symbolic sizes.
  std::string code() const;
  std::vector<std::string> symbol_names() const;

 private:
  mutable std::mutex plans_mutex_;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<const compile::Plan>> plans_;
};

// Visits every integer of a graph the way Program::slots lists them: per
// value its sizes, strides and storage offset, then per node the integers
// of its integer attributes.
template <class Graph, class F>
void for_each_slot(Graph& graph, F&& visit) {
  for (auto& v : graph.values) {
    for (auto& s : v.sizes) visit(s);
    for (auto& s : v.strides) visit(s);
    visit(v.storage_offset);
  }
  for (auto& node : graph.nodes) {
    for (auto& a : node.attrs) {
      if (a.kind == EMBER_ATTR_INT) visit(a.int_value);
      if (a.kind == EMBER_ATTR_INTS) {
        for (auto& i : a.ints) visit(i);
      }
    }
  }
}

// Checks a graph's structure and each node against its op's record and meta
// function (Note [Checking a loaded graph]); throws naming node and op.
void check_graph(const compile::Graph& graph, size_t num_inputs);

}  // namespace ember::exported
