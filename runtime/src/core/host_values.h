#pragma once

#include <cstdint>

#include "ember/dtype.h"

namespace ember {

// Reads or writes one element of `dtype` in host memory. Integers travel as
// int64 so that large values stay exact; floats as double.
double load_as_double(const void* src, DType dtype);
int64_t load_as_int(const void* src, DType dtype);
void store_double(void* dst, DType dtype, double value);
void store_int(void* dst, DType dtype, int64_t value);

}  // namespace ember
