#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ember {

// Values equal the ABI's ember_dtype, so conversion is a cast.
enum class DType : uint8_t {
  Bool = 0,
  UInt8 = 1,
  Int8 = 2,
  Int16 = 3,
  Int32 = 4,
  Int64 = 5,
  Float16 = 6,
  BFloat16 = 7,
  Float32 = 8,
  Float64 = 9,
};

inline constexpr int kNumDTypes = 10;

// Bytes per element; the dtype must be valid.
inline size_t itemsize(DType dtype) {
  constexpr uint8_t kSizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  return kSizes[static_cast<uint8_t>(dtype)];
}
// "float32", "int64", ... (PyTorch's names).
std::string_view dtype_name(DType dtype);
// Parses a name from dtype_name() or a PyTorch alias ("float", "long", "half").
DType dtype_from_name(std::string_view name);
bool is_floating(DType dtype);
// bool counts as integral only when include_bool is set, as in PyTorch.
bool is_integral(DType dtype, bool include_bool);

// PyTorch's promote_types: the smallest dtype that holds both categories and
// sizes (int8 + uint8 -> int16, int64 + float16 -> float16, ...).
DType promote_types(DType a, DType b);

// dtype given to Python floats and to integer inputs of float-only ops.
DType default_float_dtype();
void set_default_float_dtype(DType dtype);

}  // namespace ember
