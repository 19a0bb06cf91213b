#pragma once

#include "compile/graph.h"

namespace ember::compile {

// Note [Graph passes]
// Before fusion a graph is simplified: common subexpressions (nodes with the
// same op, inputs and attributes) are computed once, and nodes whose values
// nobody reads are dropped. Views and in-place forms take part like any
// node: a view is a pure function of its input's layout. The values left are
// renumbered densely, inputs and outputs keep their order.
Graph simplify(const Graph& graph);

}  // namespace ember::compile
