// attributes.hpp -- a kernel call's attributes (`attr_int`, `attr_float`,
// `attr_bool`, `attr_ints`) and the catalogue's readings of them
// (`reduced_dims`, `index_is_int64`).
#ifndef EMBER_SDK_ATTRIBUTES_HPP_
#define EMBER_SDK_ATTRIBUTES_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/dtypes.hpp>
#include <ember/sdk/status.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

namespace ember::sdk {

inline const ember_attr* find_attr(const ember_kernel_call& call, const char* name) {
  for (int64_t i = 0; i < call.num_attrs; ++i) {
    if (std::strcmp(call.attrs[i].name, name) == 0) return &call.attrs[i];
  }
  return nullptr;
}

namespace detail {
[[noreturn]] inline void fail_attr(const ember_kernel_call& call, const char* name, const char* problem) {
  fail(EMBER_STATUS_INVALID_ARGUMENT, std::string("op '") + call.op_name + "': attribute '" + name + "' " + problem);
}

inline const ember_attr& require_attr(const ember_kernel_call& call, const char* name,
                                      std::initializer_list<ember_attr_kind> kinds) {
  const ember_attr* attr = find_attr(call, name);
  if (attr == nullptr) fail_attr(call, name, "is missing");
  if (std::find(kinds.begin(), kinds.end(), attr->kind) == kinds.end()) {
    fail_attr(call, name, "has the wrong kind");
  }
  return *attr;
}
}  // namespace detail

// A borrowed INTS attribute.
struct IntList {
  const int64_t* data = nullptr;
  int64_t size = 0;
  const int64_t* begin() const { return data; }
  const int64_t* end() const { return data + size; }
  int64_t operator[](int64_t i) const { return data[i]; }
};

// Integer attribute (INT or BOOL); throws INVALID_ARGUMENT if missing.
inline int64_t attr_int(const ember_kernel_call& call, const char* name) {
  return detail::require_attr(call, name, {EMBER_ATTR_INT, EMBER_ATTR_BOOL}).int_value;
}
inline int64_t attr_int(const ember_kernel_call& call, const char* name, int64_t fallback) {
  return find_attr(call, name) ? attr_int(call, name) : fallback;
}

// Floating attribute; an INT or BOOL attribute is converted.
inline double attr_float(const ember_kernel_call& call, const char* name) {
  const ember_attr& a = detail::require_attr(call, name, {EMBER_ATTR_FLOAT, EMBER_ATTR_INT, EMBER_ATTR_BOOL});
  return a.kind == EMBER_ATTR_FLOAT ? a.float_value : static_cast<double>(a.int_value);
}
inline double attr_float(const ember_kernel_call& call, const char* name, double fallback) {
  return find_attr(call, name) ? attr_float(call, name) : fallback;
}

inline bool attr_bool(const ember_kernel_call& call, const char* name) {
  return detail::require_attr(call, name, {EMBER_ATTR_BOOL, EMBER_ATTR_INT}).int_value != 0;
}
inline bool attr_bool(const ember_kernel_call& call, const char* name, bool fallback) {
  return find_attr(call, name) ? attr_bool(call, name) : fallback;
}

inline IntList attr_ints(const ember_kernel_call& call, const char* name) {
  const ember_attr& a = detail::require_attr(call, name, {EMBER_ATTR_INTS});
  return {a.ints, a.num_ints};
}
inline IntList attr_ints(const ember_kernel_call& call, const char* name, IntList fallback) {
  return find_attr(call, name) ? attr_ints(call, name) : fallback;
}

// The dims of x a reduction reduces (ops.md "Reductions"): `dims` (empty or
// absent: every dim) for the value reductions, `dim` (-1: every dim) for argmax and
// argmin. Entry d is true when dim d is reduced.
inline std::vector<bool> reduced_dims(const ember_kernel_call& call, int ndim) {
  std::vector<bool> reduced(static_cast<size_t>(ndim), false);
  auto reduce = [&](int64_t d) {
    if (d < 0 || d >= ndim) {
      fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": dim " + std::to_string(d) +
                                              " out of range for " + std::to_string(ndim) + " dimensions");
    }
    reduced[static_cast<size_t>(d)] = true;
  };
  if (find_attr(call, "dim") != nullptr) {
    const int64_t dim = attr_int(call, "dim");
    if (dim >= 0) {
      reduce(dim);
      return reduced;
    }
  } else {
    const IntList dims = attr_ints(call, "dims", {});
    for (int64_t d : dims) reduce(d);
    if (dims.size > 0) return reduced;
  }
  reduced.assign(reduced.size(), true);
  return reduced;
}

// Whether an index tensor (ops.md "Indexing") holds int64 (true) or int32
// (false) values; any other dtype is INVALID_ARGUMENT.
inline bool index_is_int64(const DLTensor& index) {
  const ember_dtype dtype = dtype_of(index);
  if (dtype != EMBER_DTYPE_INT64 && dtype != EMBER_DTYPE_INT32) {
    fail(EMBER_STATUS_INVALID_ARGUMENT, std::string("index must be int64 or int32, not ") + dtype_name(dtype));
  }
  return dtype == EMBER_DTYPE_INT64;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_ATTRIBUTES_HPP_
