#pragma once

// Note [Memory overlap]
// An in-place write (copy_, add_, x[...] = v, exp_() ...) reads its inputs
// while it writes its output, so memory they share decides the result:
//  - an output with internal overlap (an expanded dim: stride 0, size > 1)
//    has several elements at one address, and which write lands is up to the
//    kernel's order; such writes are refused, as in PyTorch;
//  - an input that shares memory with the output but is laid out otherwise
//    (b.copy_(b.t()), x[1:].add_(x[:-1])) is read after parts of it were
//    overwritten. Where both are non-overlapping and dense, the core can see
//    the overlap from address ranges alone and refuses it, as PyTorch does;
//    where one of them has gaps (x[:, 1:] against x[:, :-1]) the ranges may
//    interleave without sharing an element, so the core reads from a copy of
//    the input when the ranges meet: the result is the one an out-of-place op
//    gives (PyTorch leaves it to the kernel's order there).
// Every check compares storages, offsets, sizes and strides: no element is
// read, so the checks cost nothing next to the write.
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// Throws RuntimeError naming `op` when two elements of `t` share an address.
void check_no_internal_overlap(const Tensor& t, std::string_view op);

// Whether `a` and `b` may address a common element: false where they have
// no element, lie in different storages or their address ranges are apart.
bool may_share_elements(const Tensor& a, const Tensor& b);

// What an in-place `op` writing `out` should read for `input`: the input
// itself, or a copy where they interleave; throws RuntimeError where they
// partially overlap (Note [Memory overlap]).
Tensor input_for_inplace(const Tensor& out, const Tensor& input, std::string_view op);

}  // namespace ember
