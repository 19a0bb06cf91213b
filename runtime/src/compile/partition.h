#pragma once

#include <cstdint>
#include <vector>

#include "compile/graph.h"

namespace ember::compile {

// Note [Compiled training]
// With grad mode on and a graph input that requires grad, a trace records
// the joint program. The forward ops are traced as usual; at the end the
// autograd engine runs the derivatives of the traced outputs on tracing
// tangents, and because Trace sits below Autograd (Note [Dispatch keys]),
// the derivative ops of the catalogue are recorded into the same graph.
// The joint graph's inputs are the primals (arguments and captured
// tensors) and the tangents, one per differentiable output; its outputs
// are the forward outputs and the gradients of the primals that get one.
//
// partition() splits it in two: the forward graph, run at the call, and
// the backward graph, run by one autograd node (compile/training.h). What
// crosses between them is chosen by a minimum cut, as PyTorch's
// min_cut_rematerialization_partition does: each forward value has the
// cost of its bytes, and the cut separating the primals from what the
// backward reads is the cheapest set of values to save. Pointwise ops and
// views may be recomputed in the backward (their kernels fuse with the
// backward's, so recomputing costs bandwidth the load of the saved value
// would cost anyway); matmuls, convolutions, reductions and every other
// extern node may not, so they run once, in the forward, and their
// outputs are saved where the backward needs them.

enum class JointInput : uint8_t { Primal, Tangent };

struct JointGraph {
  // Inputs in `roles` order; outputs: the forward outputs, then the
  // gradients (`num_forward_outputs` of the first).
  Graph graph;
  std::vector<JointInput> roles;  // per graph input
  int num_forward_outputs = 0;
  std::vector<int> tangent_of_output;   // per forward output: position among the tangents, or -1
  std::vector<int> gradient_of_primal;  // per primal: position among the gradients, or -1
};

struct Partition {
  // Inputs: the primals in joint order. Outputs: the forward outputs (and
  // the joint graph's input updates among them), then the saved node values.
  Graph forward;
  // Inputs: the saved node values, then the saved primals, then the
  // tangents in joint order. Outputs: the joint graph's gradients.
  Graph backward;
  int num_saved_values = 0;
  std::vector<int> saved_primals;  // positions among the primals
  int64_t saved_bytes = 0;         // of the saved node values
  // Bytes the saved node values would take if the backward read every
  // forward value it uses instead of recomputing any.
  int64_t save_everything_bytes = 0;
};

Partition partition(const JointGraph& joint);

}  // namespace ember::compile
