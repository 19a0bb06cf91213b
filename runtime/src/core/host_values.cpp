#include "core/host_values.h"

#include <cstring>

#include "core/half.h"

namespace ember {
namespace {

template <typename T>
T read(const void* src) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  return v;
}

template <typename T>
void write(void* dst, T v) {
  std::memcpy(dst, &v, sizeof(T));
}

}  // namespace

double load_as_double(const void* src, DType dtype) {
  switch (dtype) {
    case DType::Float16: return float16_to_float(read<uint16_t>(src));
    case DType::BFloat16: return bfloat16_to_float(read<uint16_t>(src));
    case DType::Float32: return read<float>(src);
    case DType::Float64: return read<double>(src);
    default: return static_cast<double>(load_as_int(src, dtype));
  }
}

int64_t load_as_int(const void* src, DType dtype) {
  switch (dtype) {
    case DType::Bool: return read<uint8_t>(src) != 0;
    case DType::UInt8: return read<uint8_t>(src);
    case DType::Int8: return read<int8_t>(src);
    case DType::Int16: return read<int16_t>(src);
    case DType::Int32: return read<int32_t>(src);
    case DType::Int64: return read<int64_t>(src);
    default: return static_cast<int64_t>(load_as_double(src, dtype));
  }
}

void store_double(void* dst, DType dtype, double value) {
  switch (dtype) {
    case DType::Float16: return write(dst, float_to_float16(static_cast<float>(value)));
    case DType::BFloat16: return write(dst, float_to_bfloat16(static_cast<float>(value)));
    case DType::Float32: return write(dst, static_cast<float>(value));
    case DType::Float64: return write(dst, value);
    case DType::Bool: return write(dst, static_cast<uint8_t>(value != 0.0));
    default: return store_int(dst, dtype, static_cast<int64_t>(value));
  }
}

void store_int(void* dst, DType dtype, int64_t value) {
  switch (dtype) {
    case DType::Bool: return write(dst, static_cast<uint8_t>(value != 0));
    case DType::UInt8: return write(dst, static_cast<uint8_t>(value));
    case DType::Int8: return write(dst, static_cast<int8_t>(value));
    case DType::Int16: return write(dst, static_cast<int16_t>(value));
    case DType::Int32: return write(dst, static_cast<int32_t>(value));
    case DType::Int64: return write(dst, value);
    default: return store_double(dst, dtype, static_cast<double>(value));
  }
}

}  // namespace ember
