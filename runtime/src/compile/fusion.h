#pragma once

#include <string>
#include <vector>

#include "compile/graph.h"
#include "compile/plan.h"

namespace ember::compile {

// Note [Fusion]
// Values a kernel cannot compute inline are materialized: graph inputs,
// outputs of extern nodes, what extern nodes and the caller read, values
// read through a view, and reductions. Every other pointwise value is
// computed inside each kernel that reads it (inlined; repeated reads in
// one kernel are shared). Each materialized pointwise or reduction value
// is a root; roots join one kernel when they share an iteration space:
// pointwise roots of one shape share one loop (vertical and horizontal
// fusion), and a reduction's kernel takes the later reductions and
// pointwise roots over the same rows that read its result broadcast back
// (softmax, layer_norm, x - x.mean()), as further loops of that kernel, so
// the reduced value never leaves it. A kernel is closed once something
// outside it reads one of its values. Views become strides and offsets of
// loads and stores: a kernel never sees one.
enum class NodeKind : uint8_t { Pointwise, Reduction, View, Extern };

NodeKind node_kind(const Graph& graph, const Node& node);

struct FusedKernel {
  std::string ekir;  // canonical EKIR text
  // Its "ekir" field: 1.1 with inout buffers (Note [In-place updates]), 1.2
  // with constants that are launch parameters (Note [Constants as parameters]).
  std::string ir_version = "1.0";
  std::string name;
  std::vector<int> buffers;  // value ids in launch order
  std::vector<bool> buffer_is_output;
  std::vector<int64_t> params;      // launch parameters
  std::vector<int> nodes;           // the nodes it computes, in order (its eager form)
  std::vector<int> roots;           // values it stores
  int position = 0;                 // runs after this node
  std::vector<std::string> ops;     // EKIR ops it uses
  std::vector<std::string> dtypes;  // dtype names it uses
};

struct Fusion {
  std::vector<FusedKernel> kernels;
  std::vector<bool> materialized;  // per value
};

Fusion fuse(const Graph& graph, const PlanOptions& options);

// The later of two EKIR versions "1.M" (a later minor reads everything an
// earlier one does).
std::string later_ir_version(const std::string& a, const std::string& b);

}  // namespace ember::compile
