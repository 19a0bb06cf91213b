// dtypes.hpp -- Ember dtypes in C++: `dtype_v<T>`, names, sizes, DLPack
// conversion, `visit_dtype()` and type lists of the catalogue's dtype groups.
#ifndef EMBER_SDK_DTYPES_HPP_
#define EMBER_SDK_DTYPES_HPP_

#include <ember/ember_plugin.h>
#include <ember/sdk/status.hpp>
#include <ember/sdk/storage_types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace ember::sdk {

template <class T>
struct TypeTag {
  using type = T;
};

template <class... Ts>
struct TypeList {};

// The catalogue's dtype groups (sdk/docs/ops.md).
using IntegralTypes = TypeList<bool, uint8_t, int8_t, int16_t, int32_t, int64_t>;
using FloatingTypes = TypeList<float16, bfloat16, float, double>;
using NumericTypes = TypeList<uint8_t, int8_t, int16_t, int32_t, int64_t, float16, bfloat16, float, double>;
using AllTypes = TypeList<bool, uint8_t, int8_t, int16_t, int32_t, int64_t, float16, bfloat16, float, double>;

// The ember_dtype of a C++ storage type.
template <class T>
inline constexpr ember_dtype dtype_v = [] {
  if constexpr (std::is_same_v<T, bool>)
    return EMBER_DTYPE_BOOL;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return EMBER_DTYPE_UINT8;
  else if constexpr (std::is_same_v<T, int8_t>)
    return EMBER_DTYPE_INT8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return EMBER_DTYPE_INT16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return EMBER_DTYPE_INT32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return EMBER_DTYPE_INT64;
  else if constexpr (std::is_same_v<T, float16>)
    return EMBER_DTYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, bfloat16>)
    return EMBER_DTYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>)
    return EMBER_DTYPE_FLOAT32;
  else {
    static_assert(std::is_same_v<T, double>, "not an Ember storage type");
    return EMBER_DTYPE_FLOAT64;
  }
}();

inline const char* dtype_name(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL:
      return "bool";
    case EMBER_DTYPE_UINT8:
      return "uint8";
    case EMBER_DTYPE_INT8:
      return "int8";
    case EMBER_DTYPE_INT16:
      return "int16";
    case EMBER_DTYPE_INT32:
      return "int32";
    case EMBER_DTYPE_INT64:
      return "int64";
    case EMBER_DTYPE_FLOAT16:
      return "float16";
    case EMBER_DTYPE_BFLOAT16:
      return "bfloat16";
    case EMBER_DTYPE_FLOAT32:
      return "float32";
    case EMBER_DTYPE_FLOAT64:
      return "float64";
  }
  return "unknown";
}

// Calls fn(TypeTag<T>{}) with T the storage type of `dtype`; an unknown dtype
// (a later ABI minor) throws UNIMPLEMENTED.
template <class Fn>
decltype(auto) visit_dtype(ember_dtype dtype, Fn&& fn) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL:
      return fn(TypeTag<bool>{});
    case EMBER_DTYPE_UINT8:
      return fn(TypeTag<uint8_t>{});
    case EMBER_DTYPE_INT8:
      return fn(TypeTag<int8_t>{});
    case EMBER_DTYPE_INT16:
      return fn(TypeTag<int16_t>{});
    case EMBER_DTYPE_INT32:
      return fn(TypeTag<int32_t>{});
    case EMBER_DTYPE_INT64:
      return fn(TypeTag<int64_t>{});
    case EMBER_DTYPE_FLOAT16:
      return fn(TypeTag<float16>{});
    case EMBER_DTYPE_BFLOAT16:
      return fn(TypeTag<bfloat16>{});
    case EMBER_DTYPE_FLOAT32:
      return fn(TypeTag<float>{});
    case EMBER_DTYPE_FLOAT64:
      return fn(TypeTag<double>{});
  }
  fail(EMBER_STATUS_UNIMPLEMENTED, "unsupported dtype " + std::to_string(static_cast<int>(dtype)));
}

inline size_t element_size(ember_dtype dtype) {
  return visit_dtype(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

inline DLDataType to_dl_dtype(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL:
      return {EMBER_DL_BOOL, 8, 1};
    case EMBER_DTYPE_UINT8:
      return {kDLUInt, 8, 1};
    case EMBER_DTYPE_INT8:
      return {kDLInt, 8, 1};
    case EMBER_DTYPE_INT16:
      return {kDLInt, 16, 1};
    case EMBER_DTYPE_INT32:
      return {kDLInt, 32, 1};
    case EMBER_DTYPE_INT64:
      return {kDLInt, 64, 1};
    case EMBER_DTYPE_FLOAT16:
      return {kDLFloat, 16, 1};
    case EMBER_DTYPE_BFLOAT16:
      return {kDLBfloat, 16, 1};
    case EMBER_DTYPE_FLOAT32:
      return {kDLFloat, 32, 1};
    case EMBER_DTYPE_FLOAT64:
      return {kDLFloat, 64, 1};
  }
  fail(EMBER_STATUS_UNIMPLEMENTED, "unsupported dtype " + std::to_string(static_cast<int>(dtype)));
}

// Returns false for a DLPack type Ember has no dtype for.
inline bool from_dl_dtype(DLDataType dl, ember_dtype* dtype /* out */) {
  if (dl.lanes != 1) return false;
  const int code = dl.code;
  const int bits = dl.bits;
  if (code == EMBER_DL_BOOL && bits == 8) return *dtype = EMBER_DTYPE_BOOL, true;
  if (code == kDLUInt && bits == 8) return *dtype = EMBER_DTYPE_UINT8, true;
  if (code == kDLBfloat && bits == 16) return *dtype = EMBER_DTYPE_BFLOAT16, true;
  if (code == kDLInt) {
    switch (bits) {
      case 8:
        return *dtype = EMBER_DTYPE_INT8, true;
      case 16:
        return *dtype = EMBER_DTYPE_INT16, true;
      case 32:
        return *dtype = EMBER_DTYPE_INT32, true;
      case 64:
        return *dtype = EMBER_DTYPE_INT64, true;
    }
  }
  if (code == kDLFloat) {
    switch (bits) {
      case 16:
        return *dtype = EMBER_DTYPE_FLOAT16, true;
      case 32:
        return *dtype = EMBER_DTYPE_FLOAT32, true;
      case 64:
        return *dtype = EMBER_DTYPE_FLOAT64, true;
    }
  }
  return false;
}

// The dtype of a tensor; INVALID_ARGUMENT for a type Ember does not know.
inline ember_dtype dtype_of(const DLTensor& t) {
  ember_dtype dtype;
  if (!from_dl_dtype(t.dtype, &dtype)) {
    fail(EMBER_STATUS_INVALID_ARGUMENT, "unsupported DLPack dtype (code " + std::to_string(t.dtype.code) + ", bits " +
                                            std::to_string(t.dtype.bits) + ", lanes " + std::to_string(t.dtype.lanes) +
                                            ")");
  }
  return dtype;
}

}  // namespace ember::sdk

#endif  // EMBER_SDK_DTYPES_HPP_
