#pragma once

#include <vector>

#include "compile/fusion.h"
#include "compile/graph.h"

namespace ember::compile {

// Note [Combo kernels]
// An optimizer's foreach step updates every parameter with the same chain
// of pointwise ops, each over its own shape, and fusion gives each shape a
// kernel of its own. Independent pointwise kernels are combined instead, as
// PyTorch's multi-tensor apply and Inductor's combo kernels do, into one
// kernel whose outer space is a single point and whose loops are theirs,
// each iterating what was its outer space. Between two barriers (a step
// that reads what a pointwise kernel since the last barrier wrote: an
// extern call or a kernel with a reduction), each pointwise kernel gets a
// level, one more than the highest level it reads from (0 for none), and
// the kernels of a level form one combo, in run order:
// - its loops are independent, as EKIR requires of a kernel's loops, since
//   none reads what another of its level writes;
// - it runs where its last kernel ran, or after the level before it: a
//   step between them reads nothing it writes;
// - it has at most kComboMostLoops loops (a full level is a barrier), which
//   bounds the generated source and its compile time.
// Adam's step is two levels: the step counts' updates with their bias
// corrections, then every parameter's update, which reads them.
// Only on the CPU: its generator runs a loop of at least 2 × 32768
// elements in chunks on its threads and a shorter one on the calling
// thread, so a combo saves a launch per parameter and loses no
// parallelism. The GPU generators run one work-group per outer point,
// which would serialize a combo: they need an outer dimension over
// segments, which EKIR does not have.
constexpr size_t kComboMostLoops = 128;

// `kernels` with runs of independent pointwise kernels combined, sorted by
// position.
std::vector<FusedKernel> combine_kernels(const Graph& graph, std::vector<FusedKernel> kernels);

}  // namespace ember::compile
