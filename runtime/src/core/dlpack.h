#pragma once

#include <dlpack/dlpack.h>

#include "ember/dtype.h"

namespace ember {

DLDataType to_dl_dtype(DType dtype);
// Throws TypeError naming the code/bits/lanes when Ember has no such dtype.
DType from_dl_dtype(DLDataType dl);

}  // namespace ember
