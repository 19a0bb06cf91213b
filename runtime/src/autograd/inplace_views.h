#pragma once

#include <memory>

#include "autograd/node.h"

namespace ember::autograd {

// Note [In-place writes through views]
// A view shares its base's memory, so writing into the view in place also
// changes the base, and the base's autograd history must say so. PyTorch's
// answer, which Ember follows:
// - Every view remembers its base (TensorImpl::view_base, always a tensor
//   that is not itself a view) and the storage version at which its own
//   history last matched the base's.
// - An in-place op on a view records its node as usual, but does not make it
//   the view's grad_fn. Instead the base's grad_fn becomes a CopySlices node:
//   its gradient is the base's gradient with the view's region replaced by
//   what the in-place op's backward gives for its `self` input (zero when the
//   op overwrote the region, as copy_ and fill_ do); the op's other inputs
//   get their gradients through it too. The base's previous history is
//   CopySlices' first next edge.
// - Every in-place write bumps the storage's version afterwards, so every
//   view of that storage (the written one included) then has a stale
//   history. A stale view's history is made again on first use, as
//   as_strided of its base's current history: refresh_view_history().
// This covers every in-place op on every view kind, because each goes
// through the same Autograd step.

// Brings a view's grad_fn up to date with its base after in-place writes
// (a no-op for tensors that are not views, or whose history is current).
void refresh_view_history(const Tensor& view);

// Makes `inplace_node`, recorded for an in-place write into `view`, part of
// the base's history through a CopySlices node. `self_input` is the index of
// the view among the op's inputs, or -1 when the op overwrites it without
// reading it.
void rebase_view_history(const Tensor& view, const std::shared_ptr<Node>& inplace_node, int64_t self_input);

}  // namespace ember::autograd
