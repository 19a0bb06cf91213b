#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "compile/graph.h"
#include "ember/tensor.h"

namespace ember::compile {

class LoadedKernel;

struct PlanOptions {
  // Generate fused kernels through the device's code generator; off, every
  // node runs its eager kernel.
  bool codegen = true;
  // Kernels take their extents and strides as launch parameters, so one
  // generated kernel serves every size (a dimension marked dynamic).
  bool dynamic = false;
  // With dynamic: integer-valued constants are launch parameters too (EKIR
  // 1.2, when the generator reads it; Note [Constants as parameters]).
  bool parameter_constants = false;
  bool deterministic = false;
};

// Note [Plans]
// A plan is what a graph compiles to: steps over real tensors. A step is
// either a generated kernel (a fused group of pointwise ops and reductions,
// views folded into its indexing), or an extern call of one node through
// the dispatcher (matmul, convolution, anything a generator does not
// take), or a view the caller needs as a tensor. Each intermediate lives
// from the step that makes it to its last reader; the caching allocator
// hands its block to the next.
class Plan {
 public:
  Plan(const Graph& graph, const PlanOptions& options);
  ~Plan();

  std::vector<Tensor> run(std::span<const Tensor> inputs) const;

  const Graph& graph() const { return graph_; }
  int num_kernels() const;       // generated kernels
  int num_extern_calls() const;  // nodes run by their eager kernel
  int num_buffers() const;       // intermediates the plan allocates
  // Updates its kernels write straight into the caller's tensors
  // (Note [In-place updates]).
  int num_in_place_updates() const;
  // Why parts of the graph run eagerly ("no code generator for device cpu").
  const std::vector<std::string>& eager_reasons() const { return eager_reasons_; }
  // The kernel IR of every generated kernel, for logs and explain().
  std::vector<std::string> kernel_sources() const;

  struct Step;

 private:
  Graph graph_;
  std::vector<Step> steps_;
  std::vector<std::string> eager_reasons_;
  int num_buffers_ = 0;
  size_t commit_ = 0;  // the first step that may write a caller tensor (Note [In-place updates])
};

}  // namespace ember::compile
