#include "dtypes.h"

#include <algorithm>

#include <ember/ember_plugin.hpp>

namespace ember::xpu {

namespace {

constexpr DTypeInfo kDTypes[] = {
    {EMBER_DTYPE_BOOL, "uchar", "uchar", "uchar", Storage::kPlain, false, true, false},
    {EMBER_DTYPE_UINT8, "uchar", "uchar", "uchar", Storage::kPlain, false, false, false},
    {EMBER_DTYPE_INT8, "char", "char", "uchar", Storage::kPlain, false, false, true},
    {EMBER_DTYPE_INT16, "short", "short", "ushort", Storage::kPlain, false, false, true},
    {EMBER_DTYPE_INT32, "int", "int", "uint", Storage::kPlain, false, false, true},
    {EMBER_DTYPE_INT64, "long", "long", "ulong", Storage::kPlain, false, false, true},
    {EMBER_DTYPE_FLOAT16, "half", "float", "uint", Storage::kFloat16, true, false, true},
    {EMBER_DTYPE_BFLOAT16, "ushort", "float", "uint", Storage::kBFloat16, true, false, true},
    {EMBER_DTYPE_FLOAT32, "float", "float", "uint", Storage::kPlain, true, false, true},
    {EMBER_DTYPE_FLOAT64, "double", "double", "ulong", Storage::kPlain, true, false, true},
};

}  // namespace

std::vector<ember_dtype> served_dtypes(bool with_fp64) {
  std::vector<ember_dtype> dtypes;
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype != EMBER_DTYPE_FLOAT64 || with_fp64) dtypes.push_back(info.dtype);
  }
  return dtypes;
}

bool is_served(ember_dtype dtype, bool with_fp64) {
  const std::vector<ember_dtype> served = served_dtypes(with_fp64);
  return std::find(served.begin(), served.end(), dtype) != served.end();
}

const DTypeInfo& dtype_info(ember_dtype dtype) {
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype == dtype) return info;
  }
  sdk::fail(EMBER_STATUS_UNIMPLEMENTED, std::string("xpu: dtype ") + sdk::dtype_name(dtype) + " is not supported");
}

}  // namespace ember::xpu
