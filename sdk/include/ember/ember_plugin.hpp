// ember_plugin.hpp -- header-only C++20 helpers over the C ABI (ember_plugin.h).
//
// Nothing here crosses the ABI: these are conveniences compiled into each
// plugin, so a plugin built against an older copy keeps working. They cover
//   - errors: `Error`, `fence()` and `kernel_entry<>` turn C++ exceptions into
//     `ember_status*` (Note [The fence]); `write_struct()` fills an ABI struct
//     the host has sized;
//   - dtypes: DLPack conversion, sizes, names, `bfloat16`/`float16` storage
//     types, `visit_dtype()` and compile-time type lists of the catalogue's
//     dtype groups;
//   - attributes: `attr_int`, `attr_float`, `attr_bool`, `attr_ints`;
//   - strided iteration: `StridedLoop` (coalescing, row-major order, chunkable)
//     and the typed `transform()` built on it;
//   - registration: `Registrar`.
// Kernel bodies and their launchers are in ember_plugin_kernels.hpp, queued
// (asynchronous) kernels in ember_plugin_async.hpp.
// Everything lives in namespace ember::sdk.
#ifndef EMBER_PLUGIN_HPP_
#define EMBER_PLUGIN_HPP_

#include <ember/ember_plugin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace ember::sdk {

// ---------------------------------------------------------------------------
// Host and errors
// ---------------------------------------------------------------------------

namespace detail {
inline const ember_host_api* g_host = nullptr;
}  // namespace detail

// Keeps the host table given to ember_plugin_init; call it first thing there.
inline void set_host(const ember_host_api* host) { detail::g_host = host; }
inline const ember_host_api* host() { return detail::g_host; }

// Creates a status through the host. Requires set_host() to have run.
inline ember_status* make_status(ember_status_code code, const char* message) {
  return detail::g_host->status_create(code, message);
}

// The exception plugin code throws; fence() turns it into a status. It can
// also carry a status received from the host (see check()), which the fence
// then passes on unchanged, since a status is opaque and cannot be re-read.
class Error : public std::exception {
 public:
  Error(ember_status_code code, std::string message)
      : code_(code), message_(std::move(message)) {}
  explicit Error(ember_status* passed_on)
      : code_(EMBER_STATUS_INTERNAL), message_("status from the host"), status_(passed_on) {}

  ember_status_code code() const noexcept { return code_; }
  const char* what() const noexcept override { return message_.c_str(); }
  ember_status* passed_on_status() const noexcept { return status_; }

 private:
  ember_status_code code_;
  std::string message_;
  ember_status* status_ = nullptr;
};

[[noreturn]] inline void fail(ember_status_code code, std::string message) {
  throw Error(code, std::move(message));
}

// Throws if a host call failed, handing its status on to the fence.
inline void check(ember_status* status) {
  if (status != nullptr) throw Error(status);
}

// Note [The fence]: no exception may cross the C ABI. Every function the host
// calls runs its body through fence(), which returns NULL on success or a
// status made from whatever was thrown; `catch (...)` included, so even a
// foreign exception becomes EMBER_STATUS_INTERNAL instead of std::terminate.
// `fn` may return void or an ember_status*.
template <class Fn>
ember_status* fence(Fn&& fn) noexcept {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&>>) {
      fn();
      return nullptr;
    } else {
      return fn();
    }
  } catch (const Error& e) {
    if (e.passed_on_status() != nullptr) return e.passed_on_status();
    return make_status(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return make_status(EMBER_STATUS_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return make_status(EMBER_STATUS_INTERNAL, e.what());
  } catch (...) {
    return make_status(EMBER_STATUS_INTERNAL, "unknown exception in plugin");
  }
}

// Adapts `void Fn(const ember_kernel_call&)` or
// `void Fn(const ember_kernel_call&, void* kernel_data)` to ember_kernel_fn.
template <auto Fn>
ember_status* kernel_entry(const ember_kernel_call* call, void* kernel_data) noexcept {
  return fence([&] {
    if constexpr (std::is_invocable_v<decltype(Fn), const ember_kernel_call&, void*>) {
      Fn(*call, kernel_data);
    } else {
      Fn(*call);
    }
  });
}

// Fills an ABI struct whose struct_size the other side has set: copies every
// field of `value` but struct_size, truncated to dst->struct_size, so a
// reader built with an older, smaller struct receives only the fields it
// knows (Note [ABI versioning] in ember_plugin.h).
template <class S>
void write_struct(S* dst, const S& value) {
  static_assert(std::is_trivially_copyable_v<S>, "ABI structs are plain data");
  const size_t limit = std::min(dst->struct_size, sizeof(S));
  if (limit > sizeof(size_t)) {
    std::memcpy(reinterpret_cast<char*>(dst) + sizeof(size_t),
                reinterpret_cast<const char*>(&value) + sizeof(size_t), limit - sizeof(size_t));
  }
}

// ---------------------------------------------------------------------------
// Reduced-precision storage types
// ---------------------------------------------------------------------------

namespace detail {
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
}  // namespace detail

// bfloat16: the upper half of a float32. Conversion rounds to nearest even
// and keeps NaN a (quiet) NaN.
struct bfloat16 {
  uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float f) {
    uint32_t u = detail::float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      bits = static_cast<uint16_t>((u >> 16) | 0x40u);
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);
      bits = static_cast<uint16_t>(u >> 16);
    }
  }
  explicit operator float() const { return detail::bits_float(uint32_t{bits} << 16); }
  static bfloat16 from_bits(uint16_t b) {
    bfloat16 h;
    h.bits = b;
    return h;
  }
};

// float16 (IEEE binary16). The conversions use float arithmetic to round to
// nearest even, including subnormals (after Maratyszcza's FP16 library), so
// they need the default rounding mode and no flush-to-zero.
struct float16 {
  uint16_t bits = 0;

  float16() = default;
  explicit float16(float f) {
    float base = (std::fabs(f) * 0x1.0p+112f) * 0x1.0p-110f;
    const uint32_t w = detail::float_bits(f);
    const uint32_t shl1_w = w + w;
    const uint32_t sign = w & 0x80000000u;
    uint32_t bias = shl1_w & 0xff000000u;
    if (bias < 0x71000000u) bias = 0x71000000u;
    base = detail::bits_float((bias >> 1) + 0x07800000u) + base;
    const uint32_t b = detail::float_bits(base);
    const uint32_t nonsign = ((b >> 13) & 0x7c00u) + (b & 0x0fffu);
    bits = static_cast<uint16_t>((sign >> 16) | (shl1_w > 0xff000000u ? 0x7e00u : nonsign));
  }
  explicit operator float() const {
    const uint32_t w = uint32_t{bits} << 16;
    const uint32_t sign = w & 0x80000000u;
    const uint32_t two_w = w + w;
    const float normalized = detail::bits_float((two_w >> 4) + (0xe0u << 23)) * 0x1.0p-112f;
    const float denormalized = detail::bits_float((two_w >> 17) | (126u << 23)) - 0.5f;
    const uint32_t magnitude = two_w < (1u << 27) ? detail::float_bits(denormalized)
                                                  : detail::float_bits(normalized);
    return detail::bits_float(sign | magnitude);
  }
  static float16 from_bits(uint16_t b) {
    float16 h;
    h.bits = b;
    return h;
  }
};

static_assert(sizeof(bfloat16) == 2 && sizeof(float16) == 2);

// ---------------------------------------------------------------------------
// dtypes
// ---------------------------------------------------------------------------

template <class T>
struct TypeTag {
  using type = T;
};

template <class... Ts>
struct TypeList {};

// The catalogue's dtype groups (sdk/docs/ops.md).
using IntegralTypes = TypeList<bool, uint8_t, int8_t, int16_t, int32_t, int64_t>;
using FloatingTypes = TypeList<float16, bfloat16, float, double>;
using NumericTypes =
    TypeList<uint8_t, int8_t, int16_t, int32_t, int64_t, float16, bfloat16, float, double>;
using AllTypes =
    TypeList<bool, uint8_t, int8_t, int16_t, int32_t, int64_t, float16, bfloat16, float, double>;

template <class T>
inline constexpr bool is_reduced_float_v =
    std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
template <class T>
inline constexpr bool is_floating_v = is_reduced_float_v<T> || std::is_floating_point_v<T>;

// The ember_dtype of a C++ storage type.
template <class T>
inline constexpr ember_dtype dtype_v = [] {
  if constexpr (std::is_same_v<T, bool>) return EMBER_DTYPE_BOOL;
  else if constexpr (std::is_same_v<T, uint8_t>) return EMBER_DTYPE_UINT8;
  else if constexpr (std::is_same_v<T, int8_t>) return EMBER_DTYPE_INT8;
  else if constexpr (std::is_same_v<T, int16_t>) return EMBER_DTYPE_INT16;
  else if constexpr (std::is_same_v<T, int32_t>) return EMBER_DTYPE_INT32;
  else if constexpr (std::is_same_v<T, int64_t>) return EMBER_DTYPE_INT64;
  else if constexpr (std::is_same_v<T, float16>) return EMBER_DTYPE_FLOAT16;
  else if constexpr (std::is_same_v<T, bfloat16>) return EMBER_DTYPE_BFLOAT16;
  else if constexpr (std::is_same_v<T, float>) return EMBER_DTYPE_FLOAT32;
  else {
    static_assert(std::is_same_v<T, double>, "not an Ember storage type");
    return EMBER_DTYPE_FLOAT64;
  }
}();

inline const char* dtype_name(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL: return "bool";
    case EMBER_DTYPE_UINT8: return "uint8";
    case EMBER_DTYPE_INT8: return "int8";
    case EMBER_DTYPE_INT16: return "int16";
    case EMBER_DTYPE_INT32: return "int32";
    case EMBER_DTYPE_INT64: return "int64";
    case EMBER_DTYPE_FLOAT16: return "float16";
    case EMBER_DTYPE_BFLOAT16: return "bfloat16";
    case EMBER_DTYPE_FLOAT32: return "float32";
    case EMBER_DTYPE_FLOAT64: return "float64";
  }
  return "unknown";
}

// Calls fn(TypeTag<T>{}) with T the storage type of `dtype`; an unknown dtype
// (a later ABI minor) throws UNIMPLEMENTED.
template <class Fn>
decltype(auto) visit_dtype(ember_dtype dtype, Fn&& fn) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL: return fn(TypeTag<bool>{});
    case EMBER_DTYPE_UINT8: return fn(TypeTag<uint8_t>{});
    case EMBER_DTYPE_INT8: return fn(TypeTag<int8_t>{});
    case EMBER_DTYPE_INT16: return fn(TypeTag<int16_t>{});
    case EMBER_DTYPE_INT32: return fn(TypeTag<int32_t>{});
    case EMBER_DTYPE_INT64: return fn(TypeTag<int64_t>{});
    case EMBER_DTYPE_FLOAT16: return fn(TypeTag<float16>{});
    case EMBER_DTYPE_BFLOAT16: return fn(TypeTag<bfloat16>{});
    case EMBER_DTYPE_FLOAT32: return fn(TypeTag<float>{});
    case EMBER_DTYPE_FLOAT64: return fn(TypeTag<double>{});
  }
  fail(EMBER_STATUS_UNIMPLEMENTED, "unsupported dtype " + std::to_string(static_cast<int>(dtype)));
}

inline size_t element_size(ember_dtype dtype) {
  return visit_dtype(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

inline DLDataType to_dl_dtype(ember_dtype dtype) {
  switch (dtype) {
    case EMBER_DTYPE_BOOL: return {EMBER_DL_BOOL, 8, 1};
    case EMBER_DTYPE_UINT8: return {kDLUInt, 8, 1};
    case EMBER_DTYPE_INT8: return {kDLInt, 8, 1};
    case EMBER_DTYPE_INT16: return {kDLInt, 16, 1};
    case EMBER_DTYPE_INT32: return {kDLInt, 32, 1};
    case EMBER_DTYPE_INT64: return {kDLInt, 64, 1};
    case EMBER_DTYPE_FLOAT16: return {kDLFloat, 16, 1};
    case EMBER_DTYPE_BFLOAT16: return {kDLBfloat, 16, 1};
    case EMBER_DTYPE_FLOAT32: return {kDLFloat, 32, 1};
    case EMBER_DTYPE_FLOAT64: return {kDLFloat, 64, 1};
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
      case 8: return *dtype = EMBER_DTYPE_INT8, true;
      case 16: return *dtype = EMBER_DTYPE_INT16, true;
      case 32: return *dtype = EMBER_DTYPE_INT32, true;
      case 64: return *dtype = EMBER_DTYPE_INT64, true;
    }
  }
  if (code == kDLFloat) {
    switch (bits) {
      case 16: return *dtype = EMBER_DTYPE_FLOAT16, true;
      case 32: return *dtype = EMBER_DTYPE_FLOAT32, true;
      case 64: return *dtype = EMBER_DTYPE_FLOAT64, true;
    }
  }
  return false;
}

// The dtype of a tensor; INVALID_ARGUMENT for a type Ember does not know.
inline ember_dtype dtype_of(const DLTensor& t) {
  ember_dtype dtype;
  if (!from_dl_dtype(t.dtype, &dtype)) {
    fail(EMBER_STATUS_INVALID_ARGUMENT,
         "unsupported DLPack dtype (code " + std::to_string(t.dtype.code) + ", bits " +
             std::to_string(t.dtype.bits) + ", lanes " + std::to_string(t.dtype.lanes) + ")");
  }
  return dtype;
}

// ---------------------------------------------------------------------------
// Tensors
// ---------------------------------------------------------------------------

// First element of a tensor, byte_offset applied.
inline char* data_ptr(const DLTensor& t) {
  return static_cast<char*>(t.data) + t.byte_offset;
}

inline int64_t numel(const DLTensor& t) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

// Row-major contiguous, ignoring the strides of size-1 dimensions.
inline bool is_contiguous(const DLTensor& t) {
  int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 1) continue;
    if (t.strides[d] != expected) return false;
    expected *= t.shape[d];
  }
  return true;
}

// ---------------------------------------------------------------------------
// Attributes
// ---------------------------------------------------------------------------

inline const ember_attr* find_attr(const ember_kernel_call& call, const char* name) {
  for (int64_t i = 0; i < call.num_attrs; ++i) {
    if (std::strcmp(call.attrs[i].name, name) == 0) return &call.attrs[i];
  }
  return nullptr;
}

namespace detail {
[[noreturn]] inline void fail_attr(const ember_kernel_call& call, const char* name,
                                   const char* problem) {
  fail(EMBER_STATUS_INVALID_ARGUMENT,
       std::string("op '") + call.op_name + "': attribute '" + name + "' " + problem);
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
  const ember_attr& a =
      detail::require_attr(call, name, {EMBER_ATTR_FLOAT, EMBER_ATTR_INT, EMBER_ATTR_BOOL});
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
      fail(EMBER_STATUS_INVALID_ARGUMENT,
           std::string(call.op_name) + ": dim " + std::to_string(d) + " out of range for " + std::to_string(ndim) +
               " dimensions");
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

// ---------------------------------------------------------------------------
// Strided iteration
// ---------------------------------------------------------------------------

// Note [Strided loops]: a StridedLoop walks several same-shape tensors (the
// outputs and the already-broadcast inputs of an elementwise op) in the
// row-major logical order of that shape, calling
//     fn(char* const ptrs[], const int64_t strides[], int64_t n)
// for runs of `n` elements along the innermost dimension, with one pointer
// and one byte stride per operand. Dimensions of size 1 are dropped and
// neighbouring dimensions merged when every operand allows it, so contiguous
// and expanded-scalar operands give one long run. Dimensions are never
// reordered: the i-th element visited is logical element i, which random and
// arange kernels rely on. run(begin, end, fn) visits elements [begin, end)
// only, so a caller splits numel() into chunks (split_range) for threads.
class StridedLoop {
 public:
  static constexpr int kMaxOperands = 8;
  static constexpr int kMaxDims = 25;

  // Every tensor must have the shape of the first; strides may differ.
  StridedLoop(std::initializer_list<const DLTensor*> tensors) {
    init(tensors.begin(), static_cast<int>(tensors.size()));
  }
  StridedLoop(const DLTensor* const* tensors, int count) { init(tensors, count); }

  int64_t numel() const { return numel_; }
  int num_operands() const { return num_operands_; }
  // Number of dimensions after coalescing (1 for 0-d and 1-element tensors).
  int ndim() const { return ndim_; }
  // Coalesced dimension d (0 is the innermost): its size and each operand's
  // byte stride along it; base(op) is operand op's first element.
  int64_t size(int d) const { return sizes_[d]; }
  const int64_t* strides(int d) const { return strides_[d]; }
  char* base(int op) const { return base_[op]; }

  template <class Fn>
  void run(int64_t begin, int64_t end, Fn&& fn) const {
    if (begin >= end) return;
    int64_t index[kMaxDims];
    char* ptrs[kMaxOperands];
    for (int op = 0; op < num_operands_; ++op) ptrs[op] = base_[op];
    int64_t rest = begin;
    for (int d = 0; d < ndim_; ++d) {
      index[d] = rest % sizes_[d];
      rest /= sizes_[d];
      for (int op = 0; op < num_operands_; ++op) ptrs[op] += index[d] * strides_[d][op];
    }
    for (int64_t pos = begin; pos < end;) {
      const int64_t n = std::min(sizes_[0] - index[0], end - pos);
      fn(static_cast<char* const*>(ptrs), static_cast<const int64_t*>(strides_[0]), n);
      pos += n;
      index[0] += n;
      for (int op = 0; op < num_operands_; ++op) ptrs[op] += n * strides_[0][op];
      for (int d = 0; d + 1 < ndim_ && index[d] == sizes_[d]; ++d) {
        index[d] = 0;
        ++index[d + 1];
        for (int op = 0; op < num_operands_; ++op) {
          ptrs[op] += strides_[d + 1][op] - sizes_[d] * strides_[d][op];
        }
      }
    }
  }

  template <class Fn>
  void run(Fn&& fn) const {
    run(0, numel_, std::forward<Fn>(fn));
  }

 private:
  void init(const DLTensor* const* tensors, int count) {
    if (count < 1 || count > kMaxOperands) {
      fail(EMBER_STATUS_INTERNAL, "StridedLoop takes 1 to 8 operands");
    }
    num_operands_ = count;
    // Unused operand slots stay zero so no code path can read garbage.
    std::fill(strides_[0], strides_[0] + kMaxOperands, int64_t{0});
    const DLTensor& first = *tensors[0];
    for (int op = 0; op < count; ++op) {
      base_[op] = data_ptr(*tensors[op]);
      element_sizes_[op] = (tensors[op]->dtype.bits * tensors[op]->dtype.lanes + 7) / 8;
      strides_[0][op] = element_sizes_[op];
    }
    sizes_[0] = 1;
    ndim_ = 1;
    numel_ = 1;
    // Walk from the innermost dimension out, merging into the current one
    // while every operand's stride continues it.
    bool current_empty = true;
    for (int d = first.ndim - 1; d >= 0; --d) {
      const int64_t size = first.shape[d];
      numel_ *= size;
      if (size == 1) continue;
      bool mergeable = !current_empty;
      for (int op = 0; op < count && mergeable; ++op) {
        mergeable = tensors[op]->strides[d] * element_sizes_[op] ==
                    strides_[ndim_ - 1][op] * sizes_[ndim_ - 1];
      }
      if (mergeable) {
        sizes_[ndim_ - 1] *= size;
        continue;
      }
      if (!current_empty) {
        if (ndim_ == kMaxDims) fail(EMBER_STATUS_UNIMPLEMENTED, "tensor has too many dimensions");
        ++ndim_;
      }
      sizes_[ndim_ - 1] = size;
      for (int op = 0; op < count; ++op) {
        strides_[ndim_ - 1][op] = tensors[op]->strides[d] * element_sizes_[op];
      }
      current_empty = false;
    }
    if (numel_ == 0) {
      ndim_ = 1;
      sizes_[0] = 0;
    }
  }

  int num_operands_ = 0;
  int ndim_ = 0;
  int64_t numel_ = 0;
  char* base_[kMaxOperands];
  int64_t element_sizes_[kMaxOperands];
  int64_t sizes_[kMaxDims];                  // innermost first
  int64_t strides_[kMaxDims][kMaxOperands];  // bytes
};

// A half-open range of elements.
struct Range {
  int64_t begin;
  int64_t end;
};

// The `index`-th of `count` near-equal chunks of [0, total).
inline Range split_range(int64_t total, int64_t count, int64_t index) {
  const int64_t base = total / count;
  const int64_t extra = total % count;
  const int64_t begin = index * base + std::min(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}

namespace detail {
// Input accessors for the fast loops: a contiguous run or a broadcast scalar.
template <class T>
struct ContiguousInput {
  const T* data;
  T operator[](int64_t i) const { return data[i]; }
};
template <class T>
struct ScalarInput {
  T value;
  T operator[](int64_t) const { return value; }
};

// Picks an accessor for input K and recurses; returns false if some input
// is neither contiguous nor a scalar, leaving the run to the strided loop.
template <size_t K, class Out, class Inputs, class Fn, class... Accessors>
bool transform_fast(char* const* p, const int64_t* s, int64_t n, Fn& fn, Accessors... in) {
  if constexpr (K == std::tuple_size_v<Inputs>) {
    Out* out = reinterpret_cast<Out*>(p[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = fn(in[i]...);
    return true;
  } else {
    using T = std::tuple_element_t<K, Inputs>;
    const T* data = reinterpret_cast<const T*>(p[K + 1]);
    if (s[K + 1] == static_cast<int64_t>(sizeof(T))) {
      return transform_fast<K + 1, Out, Inputs>(p, s, n, fn, in..., ContiguousInput<T>{data});
    }
    if (s[K + 1] == 0) {
      return transform_fast<K + 1, Out, Inputs>(p, s, n, fn, in..., ScalarInput<T>{*data});
    }
    return false;
  }
}

template <class Out, class... In, class Fn, size_t... I>
void transform_run(char* const* ptrs, const int64_t* strides, int64_t n, Fn& fn,
                   std::index_sequence<I...>) {
  // Local copies: a store through a char-sized `Out` could otherwise alias
  // the pointer array and force a reload every iteration.
  char* p[sizeof...(In) + 1];
  int64_t s[sizeof...(In) + 1];
  for (size_t op = 0; op < sizeof...(In) + 1; ++op) {
    p[op] = ptrs[op];
    s[op] = strides[op];
  }
  if (s[0] == static_cast<int64_t>(sizeof(Out)) && transform_fast<0, Out, std::tuple<In...>>(p, s, n, fn)) {
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(p[0] + i * s[0]) =
        fn(*reinterpret_cast<const In*>(p[I + 1] + i * s[I + 1])...);
  }
}
}  // namespace detail

// out[i] = fn(in[i]...) over elements [begin, end) of a loop whose operands
// are (out, in...) with storage types (Out, In...). When the output run is
// contiguous and every input run is contiguous or a broadcast scalar, the
// loop is a plain indexed one the compiler can vectorise.
template <class Out, class... In, class Fn>
void transform(const StridedLoop& loop, int64_t begin, int64_t end, Fn&& fn) {
  loop.run(begin, end, [&](char* const* ptrs, const int64_t* strides, int64_t n) {
    detail::transform_run<Out, In...>(ptrs, strides, n, fn, std::index_sequence_for<In...>{});
  });
}

// ---------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------

// Registers kernels during ember_plugin.register_kernels; a failure throws an
// Error carrying the host's status (so run register_kernels in a fence).
class Registrar {
 public:
  explicit Registrar(ember_registrar* registrar) : registrar_(registrar) {}

  void add(const char* op, ember_dtype dtype, ember_kernel_fn kernel, void* data = nullptr,
           uint32_t flags = EMBER_KERNEL_THREAD_SAFE) const {
    ember_kernel_registration reg{};
    reg.struct_size = sizeof reg;
    reg.op_name = op;
    reg.dtype = dtype;
    reg.kernel = kernel;
    reg.kernel_data = data;
    reg.flags = flags;
    check(host()->register_kernel(registrar_, &reg));
  }

  // One kernel for several dtypes (it dispatches on the dtype itself).
  void add(const char* op, std::initializer_list<ember_dtype> dtypes, ember_kernel_fn kernel,
           void* data = nullptr, uint32_t flags = EMBER_KERNEL_THREAD_SAFE) const {
    for (ember_dtype dtype : dtypes) add(op, dtype, kernel, data, flags);
  }

  // One kernel per type of a TypeList: make(TypeTag<T>{}) returns the
  // ember_kernel_fn for T, typically kernel_entry<&my_kernel<T>>.
  template <class... Ts, class Make>
  void add_each(const char* op, TypeList<Ts...>, Make&& make,
                uint32_t flags = EMBER_KERNEL_THREAD_SAFE) const {
    (add(op, dtype_v<Ts>, make(TypeTag<Ts>{}), nullptr, flags), ...);
  }

 private:
  ember_registrar* registrar_;
};

}  // namespace ember::sdk

#endif  // EMBER_PLUGIN_HPP_
