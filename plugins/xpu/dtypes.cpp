#include "dtypes.h"

#include <algorithm>

#include <ember/ember_plugin.hpp>

namespace ember::xpu {

namespace {

constexpr DTypeInfo kDTypes[] = {
    {EMBER_DTYPE_BOOL, "uchar", "uchar", false, true, false},
    {EMBER_DTYPE_UINT8, "uchar", "uchar", false, false, false},
    {EMBER_DTYPE_INT8, "char", "uchar", false, false, true},
    {EMBER_DTYPE_INT16, "short", "ushort", false, false, true},
    {EMBER_DTYPE_INT32, "int", "uint", false, false, true},
    {EMBER_DTYPE_INT64, "long", "ulong", false, false, true},
    {EMBER_DTYPE_FLOAT32, "float", "uint", true, false, true},
    {EMBER_DTYPE_FLOAT64, "double", "ulong", true, false, true},
};

}  // namespace

std::vector<ember_dtype> served_dtypes(bool with_fp64) {
  std::vector<ember_dtype> dtypes;
  for (const DTypeInfo& info : kDTypes) {
    if (info.dtype != EMBER_DTYPE_FLOAT64 || with_fp64) dtypes.push_back(info.dtype);
  }
  return dtypes;
}

bool is_copy_target(ember_dtype dtype, bool with_fp64) {
  if (dtype == EMBER_DTYPE_FLOAT16 || dtype == EMBER_DTYPE_BFLOAT16) return true;
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
