// mm, bmm and mm_bias: oneDNN for float32 and bfloat16 (bfloat16 through float32
// where the CPU lacks AVX-512), a row-wise loop for the other numeric dtypes
// (ops.md "Matrix products").
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "elementwise.h"
#include "kernels.h"
#include "onednn.h"

namespace ember::cpu {
namespace {

// ---------------------------------------------------------------------------
// Shared: operands viewed as [B, M, K] @ [B, K, N] -> [B, M, N]
// ---------------------------------------------------------------------------

struct Operand {
  const DLTensor* tensor;
  std::array<int64_t, 3> shape;    // batch of 1 for mm
  std::array<int64_t, 3> strides;  // elements
};

Operand batched(const DLTensor& t) {
  if (t.ndim == 2) return {&t, {1, t.shape[0], t.shape[1]}, {0, t.strides[0], t.strides[1]}};
  return {&t, {t.shape[0], t.shape[1], t.shape[2]}, {t.strides[0], t.strides[1], t.strides[2]}};
}

void fill_zeros(const DLTensor& out) {
  const sdk::StridedLoop loop{&out};
  sdk::visit_dtype(sdk::dtype_of(out), [&](auto tag) {
    using T = typename decltype(tag)::type;
    parallel_for(0, loop.numel(), kElementwiseGrain, [&](int64_t begin, int64_t end) {
      sdk::transform<T>(loop, begin, end, [] { return sdk::convert<T>(0); });
    });
  });
}

// ---------------------------------------------------------------------------
// oneDNN path
// ---------------------------------------------------------------------------

dnnl::memory::desc memory_desc(const DLTensor& t, dnnl::memory::data_type type, bool contiguous) {
  const dnnl::memory::dims dims(t.shape, t.shape + t.ndim);
  if (contiguous) {
    return {dims, type, t.ndim == 2 ? dnnl::memory::format_tag::ab : dnnl::memory::format_tag::abc};
  }
  return {dims, type, dnnl::memory::dims(t.strides, t.strides + t.ndim)};
}

// Matmul plans (Note [Primitive cache]). When oneDNN rejects the given
// strides (expanded batches, both strides > 1, ...), the plan records that
// the operands go through contiguous scratch copies instead.
struct MatmulKey {
  int dtype;
  int ndim;
  std::array<int64_t, 9> shape;    // a, b, out (3 dims each, zero-padded)
  std::array<int64_t, 9> strides;  // elements
  bool operator==(const MatmulKey&) const = default;
};

struct MatmulKeyHash {
  size_t operator()(const MatmulKey& k) const {
    size_t h = static_cast<size_t>(k.dtype) * 31 + static_cast<size_t>(k.ndim);
    for (int i = 0; i < 9; ++i) {
      h = h * 1000003u ^ static_cast<size_t>(k.shape[i]);
      h = h * 1000003u ^ static_cast<size_t>(k.strides[i]);
    }
    return h;
  }
};

struct MatmulPlan {
  dnnl::matmul primitive;
  bool contiguous;  // operands must be copied to contiguous scratch first
  dnnl::memory::desc a, b, out;
};

MatmulKey make_key(ember_dtype dtype, const DLTensor* const (&t)[3]) {
  MatmulKey key{static_cast<int>(dtype), t[0]->ndim, {}, {}};
  for (int i = 0; i < 3; ++i) {
    for (int d = 0; d < t[i]->ndim; ++d) {
      key.shape[i * 3 + d] = t[i]->shape[d];
      key.strides[i * 3 + d] = t[i]->strides[d];
    }
  }
  return key;
}

// oneDNN accepts zero strides (an expanded operand, such as the gradient of
// a sum) but serves them with its slow reference kernel; a contiguous copy
// costs far less than that.
bool has_expanded_dim(const DLTensor* const (&t)[3]) {
  for (const DLTensor* tensor : t) {
    for (int d = 0; d < tensor->ndim; ++d) {
      if (tensor->strides[d] == 0 && tensor->shape[d] > 1) return true;
    }
  }
  return false;
}

MatmulPlan make_plan(const DLTensor* const (&t)[3], dnnl::memory::data_type type) {
  for (bool contiguous : {false, true}) {
    if (!contiguous && has_expanded_dim(t)) continue;
    try {
      const auto a = memory_desc(*t[0], type, contiguous);
      const auto b = memory_desc(*t[1], type, contiguous);
      const auto out = memory_desc(*t[2], type, contiguous);
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, out), cpu_engine());
      return {dnnl::matmul(pd), contiguous, a, b, out};
    } catch (const dnnl::error&) {
      if (contiguous) throw;
    }
  }
  sdk::fail(EMBER_STATUS_INTERNAL, "matmul: no oneDNN primitive");
}

std::shared_ptr<const MatmulPlan> cached_plan(ember_dtype dtype, const DLTensor* const (&t)[3],
                                              dnnl::memory::data_type type) {
  static PrimitiveCache<MatmulKey, MatmulPlan, MatmulKeyHash> cache;
  return cache.get(make_key(dtype, t), [&] { return make_plan(t, type); });
}

// A contiguous copy of `t` in `storage`, described by `view`, of t's dtype
// or `dtype`.
DLTensor contiguous_copy(const DLTensor& t, std::vector<char>& storage, std::array<int64_t, 3>& strides,
                         bool copy_data, std::optional<DLDataType> dtype = std::nullopt) {
  DLTensor view = t;
  if (dtype) view.dtype = *dtype;
  int64_t expected = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    strides[static_cast<size_t>(d)] = expected;
    expected *= t.shape[d];
  }
  storage.resize(static_cast<size_t>(expected) * sdk::element_size(sdk::dtype_of(view)));
  view.data = storage.data();
  view.byte_offset = 0;
  view.strides = strides.data();
  if (copy_data) copy_tensor(t, view);
  return view;
}

void matmul_onednn(ember_dtype dtype, const DLTensor* const (&t)[3]) {
  const auto type =
      dtype == EMBER_DTYPE_FLOAT32 ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::bf16;
  use_onednn_threads(sdk::numel(*t[2]) * t[0]->shape[t[0]->ndim - 1]);
  const std::shared_ptr<const MatmulPlan> cached = cached_plan(dtype, t, type);
  const MatmulPlan& plan = *cached;
  DLTensor views[3] = {*t[0], *t[1], *t[2]};
  std::vector<char> storage[3];
  std::array<int64_t, 3> strides[3];
  if (plan.contiguous) {
    for (int i = 0; i < 3; ++i) views[i] = contiguous_copy(*t[i], storage[i], strides[i], i < 2);
  }
  auto& engine = cpu_engine();
  auto& stream = thread_stream();
  plan.primitive.execute(stream, {{DNNL_ARG_SRC, {plan.a, engine, sdk::data_ptr(views[0])}},
                                  {DNNL_ARG_WEIGHTS, {plan.b, engine, sdk::data_ptr(views[1])}},
                                  {DNNL_ARG_DST, {plan.out, engine, sdk::data_ptr(views[2])}}});
  stream.wait();
  if (plan.contiguous) copy_tensor(views[2], *t[2]);
}

// The side of the output tiles each single-threaded sgemm writes (Note [mm
// bits for any thread count]).
constexpr int64_t kSgemmTile = 256;

// out[r][j] += bias[first_column + j] over a rows x columns tile of a
// row-major float32 output with leading dimension ld.
void add_bias_to_tile(const DLTensor& bias, int64_t first_column, float* out, int64_t ld, int64_t rows,
                      int64_t columns) {
  const float* values = reinterpret_cast<const float*>(sdk::data_ptr(bias));
  const int64_t stride = bias.strides[0];
  float row_of_bias[kSgemmTile];
  for (int64_t j = 0; j < columns; ++j) row_of_bias[j] = values[(first_column + j) * stride];
  for (int64_t r = 0; r < rows; ++r) {
    float* line = out + r * ld;
    for (int64_t j = 0; j < columns; ++j) line[j] += row_of_bias[j];
  }
}

// Note [sgemm for float32 mm]: for a plain float32 product whose operands are
// row- or column-major, oneDNN's sgemm driver is faster than its matmul
// primitive (it picks its own blocking and threading per call and needs no
// descriptor), and leaves nothing to cache. A batched product (bmm) whose
// matrices are each row- or column-major takes the same path, one matrix at
// a time: its tiles run on the plugin's own threads, never on OpenMP's team,
// whose threads would have to be woken beside the pool's (Note [oneDNN
// threads]); a bmm of attention's small matrices ran 3 to 4 times slower on
// the matmul primitive inside a training step than on its own. Returns false
// when the layout needs the primitive.
struct GemmOperand {
  char trans;
  int64_t ld;
};

bool gemm_operand(const Operand& t, GemmOperand* out) {
  const int64_t rows = t.shape[1];
  const int64_t cols = t.shape[2];
  if (t.strides[2] == 1 && (rows == 1 || t.strides[1] >= std::max<int64_t>(cols, 1))) {
    *out = {'N', rows == 1 ? std::max<int64_t>(cols, 1) : t.strides[1]};
    return true;
  }
  if (t.strides[1] == 1 && (cols == 1 || t.strides[2] >= std::max<int64_t>(rows, 1))) {
    *out = {'T', cols == 1 ? std::max<int64_t>(rows, 1) : t.strides[2]};
    return true;
  }
  return false;
}

// `bias` (optional): a vector of the output's columns added to every row of
// each tile right after its product, while the tile is in cache (Note
// [mm_bias]); each sum is the rounded product plus the bias, as the
// decomposition's add gives.
bool try_sgemm(const DLTensor* const (&t)[3], const DLTensor* bias = nullptr) {
  const Operand a_operand = batched(*t[0]);
  const Operand b_operand = batched(*t[1]);
  const Operand c_operand = batched(*t[2]);
  GemmOperand a;
  GemmOperand b;
  GemmOperand c;
  if (!gemm_operand(a_operand, &a) || !gemm_operand(b_operand, &b) || !gemm_operand(c_operand, &c) ||
      c.trans != 'N') {
    return false;
  }
  const int64_t batches = c_operand.shape[0];
  const int64_t m = c_operand.shape[1];
  const int64_t n = c_operand.shape[2];
  const int64_t k = a_operand.shape[2];
  const float* a_data = reinterpret_cast<const float*>(sdk::data_ptr(*t[0]));
  const float* b_data = reinterpret_cast<const float*>(sdk::data_ptr(*t[1]));
  float* c_data = reinterpret_cast<float*>(sdk::data_ptr(*t[2]));
  // Note [mm bits for any thread count]: a threaded sgemm may split K over
  // its threads (oneDNN's AVX2 driver does for some counts), which makes the
  // bits depend on the thread count. So the output goes in fixed tiles, each
  // one single-threaded sgemm over the whole of K, and the plugin's threads
  // share the tiles: a tile's bits depend only on its shape. Packing a tile's
  // operands costs under 1% of its multiply-adds at this size.
  const int64_t row_tiles = (m + kSgemmTile - 1) / kSgemmTile;
  const int64_t column_tiles = (n + kSgemmTile - 1) / kSgemmTile;
  const int64_t tiles_per_matrix = row_tiles * column_tiles;
  const int64_t a_row_step = a.trans == 'N' ? a.ld : 1;
  const int64_t b_column_step = b.trans == 'N' ? 1 : b.ld;
  const int64_t tile_multiply_adds = std::min(m, kSgemmTile) * std::min(n, kSgemmTile) * std::max<int64_t>(k, 1);
  const int64_t grain = std::max<int64_t>(1, kOneDnnMultiplyAddsPerThread / tile_multiply_adds);
  parallel_for(0, batches * tiles_per_matrix, grain, [&](int64_t begin, int64_t end) {
    use_onednn_threads(1);
    for (int64_t tile = begin; tile < end; ++tile) {
      const int64_t batch = tile / tiles_per_matrix;
      const int64_t row = tile % tiles_per_matrix / column_tiles * kSgemmTile;
      const int64_t column = tile % column_tiles * kSgemmTile;
      const int64_t rows = std::min(kSgemmTile, m - row);
      const int64_t columns = std::min(kSgemmTile, n - column);
      const dnnl_status_t status =
          dnnl_sgemm(a.trans, b.trans, rows, columns, k, 1.0f, a_data + batch * a_operand.strides[0] + row * a_row_step,
                     a.ld, b_data + batch * b_operand.strides[0] + column * b_column_step, b.ld, 0.0f,
                     c_data + batch * c_operand.strides[0] + row * c.ld + column, c.ld);
      if (status != dnnl_success) {
        sdk::fail(EMBER_STATUS_INTERNAL, "mm/bmm: dnnl_sgemm failed with status " + std::to_string(status));
      }
      if (bias != nullptr) {
        add_bias_to_tile(*bias, column, c_data + batch * c_operand.strides[0] + row * c.ld + column, c.ld, rows,
                         columns);
      }
    }
  });
  return true;
}

// ---------------------------------------------------------------------------
// Loop path: one output row at a time, accumulating along K into a row of
// accumulators so the inner loop runs over contiguous N.
// ---------------------------------------------------------------------------

template <class T>
void matmul_loop(const DLTensor* const (&t)[3]) {
  using Acc = sdk::Compute<T>;
  const Operand a = batched(*t[0]);
  const Operand b = batched(*t[1]);
  const Operand c = batched(*t[2]);
  const int64_t rows = c.shape[0] * c.shape[1];
  const int64_t m_size = c.shape[1];
  const int64_t n_size = c.shape[2];
  const int64_t k_size = a.shape[2];
  const T* a_data = reinterpret_cast<const T*>(sdk::data_ptr(*a.tensor));
  const T* b_data = reinterpret_cast<const T*>(sdk::data_ptr(*b.tensor));
  T* c_data = reinterpret_cast<T*>(sdk::data_ptr(*c.tensor));
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n_size * k_size, 1));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<Acc> acc(static_cast<size_t>(n_size));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t batch = row / m_size;
      const int64_t m = row % m_size;
      std::fill(acc.begin(), acc.end(), Acc(0));
      const T* a_row = a_data + batch * a.strides[0] + m * a.strides[1];
      for (int64_t k = 0; k < k_size; ++k) {
        const Acc av = sdk::to_compute(a_row[k * a.strides[2]]);
        const T* b_row = b_data + batch * b.strides[0] + k * b.strides[1];
        for (int64_t n = 0; n < n_size; ++n) {
          if constexpr (sdk::is_integer_v<T>) {
            acc[n] = sdk::wrap_add(acc[n], sdk::wrap_mul(av, b_row[n * b.strides[2]]));
          } else {
            acc[n] += av * sdk::to_compute(b_row[n * b.strides[2]]);
          }
        }
      }
      T* c_row = c_data + batch * c.strides[0] + m * c.strides[1];
      for (int64_t n = 0; n < n_size; ++n) c_row[n * c.strides[2]] = sdk::convert<T>(acc[n]);
    }
  });
}

// Note [bfloat16 products without AVX-512]: oneDNN has bfloat16 matmul only
// on CPUs with AVX-512 (avx512_core) and refuses the primitive elsewhere.
// There the operands are widened to float32, multiplied on the float32 path,
// and the result rounded once: the numbers oneDNN gives too, since it
// accumulates bfloat16 products in float32.
bool onednn_has_bfloat16_matmul() {
  static const bool available = [] {
    const dnnl::memory::desc square({2, 2}, dnnl::memory::data_type::bf16, dnnl::memory::format_tag::ab);
    try {
      dnnl::matmul::primitive_desc(dnnl::matmul::desc(square, square, square), cpu_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return available;
}

void matmul_float32(const DLTensor* const (&t)[3]) {
  if (!try_sgemm(t)) matmul_onednn(EMBER_DTYPE_FLOAT32, t);
}

void matmul_bfloat16_through_float32(const DLTensor* const (&t)[3]) {
  std::vector<char> storage[3];
  std::array<int64_t, 3> strides[3];
  DLTensor wide[3];
  for (int i = 0; i < 3; ++i) {
    wide[i] = contiguous_copy(*t[i], storage[i], strides[i], /*copy_data=*/i < 2, DLDataType{kDLFloat, 32, 1});
  }
  const DLTensor* const widened[3] = {&wide[0], &wide[1], &wide[2]};
  matmul_float32(widened);
  copy_tensor(wide[2], *t[2]);
}

template <class T>
void multiply(const DLTensor* const (&t)[3]) {
  if (t[0]->shape[t[0]->ndim - 1] == 0) return fill_zeros(*t[2]);
  if constexpr (std::is_same_v<T, float>) {
    matmul_float32(t);
  } else if constexpr (std::is_same_v<T, sdk::bfloat16>) {
    if (onednn_has_bfloat16_matmul()) {
      matmul_onednn(sdk::dtype_v<T>, t);
    } else {
      matmul_bfloat16_through_float32(t);
    }
  } else {
    matmul_loop<T>(t);
  }
}

template <class T>
void matmul_kernel(const ember_kernel_call& call) {
  const DLTensor* const t[3] = {&call.inputs[0], &call.inputs[1], &call.outputs[0]};
  if (sdk::numel(*t[2]) == 0) return;
  multiply<T>(t);
}

// mm_bias (ops.md): inputs (a, b, bias), output a @ b + bias on every row.
// float32 products that take the sgemm path add the bias tile by tile (Note
// [mm_bias]); every other path adds it to each row after the product, with
// the decomposition's rounding: the product rounded to T, plus the bias.
template <class T>
void mm_bias_kernel(const ember_kernel_call& call) {
  const DLTensor* const t[3] = {&call.inputs[0], &call.inputs[1], &call.outputs[0]};
  const DLTensor& bias = call.inputs[2];
  const DLTensor& out = call.outputs[0];
  if (sdk::numel(out) == 0) return;
  if constexpr (std::is_same_v<T, float>) {
    if (t[0]->shape[1] > 0 && try_sgemm(t, &bias)) return;
  }
  multiply<T>(t);
  const int64_t rows = out.shape[0];
  const int64_t columns = out.shape[1];
  const T* bias_data = reinterpret_cast<const T*>(sdk::data_ptr(bias));
  T* out_data = reinterpret_cast<T*>(sdk::data_ptr(out));
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(columns, 1));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T* line = out_data + r * out.strides[0];
      for (int64_t j = 0; j < columns; ++j) add_into(line[j * out.strides[1]], bias_data[j * bias.strides[0]]);
    }
  });
}

}  // namespace

void register_matmul_kernels(const sdk::Registrar& r) {
  const auto make = [](auto tag) {
    return &sdk::kernel_entry<&matmul_kernel<typename decltype(tag)::type>>;
  };
  r.add_each("mm", sdk::NumericTypes{}, make);
  r.add_each("bmm", sdk::NumericTypes{}, make);
  r.add_each("mm_bias", sdk::NumericTypes{}, [](auto tag) {
    return &sdk::kernel_entry<&mm_bias_kernel<typename decltype(tag)::type>>;
  });
}

}  // namespace ember::cpu
