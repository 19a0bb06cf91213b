#pragma once

// Note [Narrowing conversions]
// A value or a result that does not fit where it is stored is refused, as
// PyTorch refuses it, instead of wrapping silently:
//  - a Scalar written into a tensor (tensor(), full, fill_, clamp's bounds,
//    where's and masked_fill's fill value) must lie in the dtype's range.
//    PyTorch's rule for integer types (c10::overflows) is followed: a
//    negative integer may wrap into an unsigned type whose range holds its
//    magnitude (-1 as uint8 is 255), and a float must lie within the range
//    (NaN never does; its fraction is dropped). A floating type takes any
//    number, rounding past its largest finite value to infinity as IEEE
//    arithmetic does (PyTorch refuses that in some ops and not in others),
//    and bool takes any value.
//  - an in-place op whose result type is "higher" than its output's
//    (a float result into an integer tensor, anything but bool into bool)
//    is refused rather than truncated (PyTorch's can_cast).
// Arithmetic between tensors and Python numbers keeps wrapping (uint8 + 300),
// as in PyTorch.
#include <string_view>

#include "ember/dtype.h"
#include "ember/scalar.h"

namespace ember {

bool fits_in(const Scalar& value, DType dtype);
// Throws RuntimeError naming `op`, the value and the dtype unless fits_in.
void check_fits(const Scalar& value, DType dtype, std::string_view op);

// Throws RuntimeError naming `op` when a result of `result` dtype cannot be
// stored into `output`'s dtype in place.
void check_inplace_result_type(DType result, DType output, std::string_view op);

}  // namespace ember
