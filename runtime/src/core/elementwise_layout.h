#pragma once

#include "ember/tensor.h"

namespace ember {

// The strides of an elementwise op's output, given its inputs of the
// output's sizes (Note [Elementwise output layout]); empty where the output
// is simply contiguous.
DimVector elementwise_output_strides(const Tensor* inputs, int64_t num_inputs, IntArrayRef sizes);

}  // namespace ember
