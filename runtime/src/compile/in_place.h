#pragma once

#include <cstddef>
#include <vector>

#include "compile/fusion.h"
#include "compile/graph.h"

namespace ember::compile {

// Note [In-place updates]
// An update of a graph input (Note [Input updates]) is written by the
// kernel that computes it straight into the caller's tensor, through an
// EKIR 1.1 `inout` buffer, instead of into a new buffer copied afterwards,
// when:
// - the kernel runs at or after the plan's commit point: the first step
//   from which every step is a generated kernel that cannot fault (no
//   integer division, remainder or power: Note [Kernel faults] of the CPU
//   generator). Before it a plan writes no caller tensor; at it the run
//   allocates every buffer the remaining steps write, and after it nothing
//   the program's data can cause fails, so an error still leaves every
//   caller tensor as it was;
// - the updated value has the input's dtype, sizes, strides and offset;
// - the kernel reads the input only at the element it writes, before the
//   store (the `inout` rule), and never loads what it stores;
// - nothing after the kernel reads the input's old value (a later kernel,
//   an extern call, a view of it, or the program's results), and no other
//   update targets the input.
// At a call, an update whose target shares its storage with another
// argument (the same tensor passed twice, a view of another) runs on a copy
// of the target made at the commit point and is copied back as before; and
// a read-only target is refused there, as copy_ would refuse it. Every
// target's version is bumped once, as the copy bumped it.
struct InPlaceWrite {
  int buffer = -1;  // the kernel's inout buffer
  int input = -1;   // the graph input it updates (position among Graph::inputs)
  int value = -1;   // the updated value, which the graph returns
};

// A plan's step in run order: a kernel, or an extern call of `node`.
struct StepView {
  const FusedKernel* kernel = nullptr;
  int node = -1;
};

struct InPlacePlan {
  size_t commit = 0;                             // the first step that may write a caller tensor
  std::vector<std::vector<InPlaceWrite>> writes;  // per step; `buffer` is the plain kernel's output
};

// Which updates the steps can write in place. `commit` is steps.size() when
// none can.
InPlacePlan plan_in_place(const Graph& graph, const std::vector<StepView>& steps);

// `kernel` with each write's output buffer replaced by an `inout` buffer of
// the input (the one it loads, or the output's own slot), as EKIR 1.1; the
// writes' `buffer` then names the inout buffers.
FusedKernel with_inout_buffers(const Graph& graph, const FusedKernel& kernel, std::vector<InPlaceWrite>& writes);

}  // namespace ember::compile
