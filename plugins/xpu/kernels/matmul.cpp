// mm and bmm through CLBlast's GEMM (tuned per device, Intel GPUs included).
#include <clblast.h>

#include <algorithm>
#include <optional>

#include "../profiling.h"
#include "../stream.h"
#include "kernels.h"

namespace ember::xpu {

namespace {

// Note [GEMM in float32 for float16 and bfloat16]: CLBlast's HGEMM needs
// cl_khr_fp16 (PoCL lacks it) and CLBlast has no bfloat16 at all, so
// float16 and bfloat16 operands are widened into float32 scratch, multiplied
// by SGEMM and rounded to nearest even into out. That is ops.md's rule for
// every float16 and bfloat16 kernel (compute in float32, round on store),
// and it is what the CPU plugin computes, on every device alike.

// A matrix as BLAS reads it: row-major with leading dimension `ld`, or the
// transpose of such a matrix.
struct BlasMatrix {
  cl_mem buffer;
  size_t offset;
  size_t ld;
  size_t batch_stride;
  clblast::Transpose transpose;
};

// Contiguous strides of a shape.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// A tensor of another's shape, row-major in `dtype`, in scratch memory the
// core lends the call (ember_kernel_call.allocate_scratch); `tensor()`
// borrows its shape from that other tensor.
class RowMajorScratch {
 public:
  RowMajorScratch(const ember_kernel_call& call, const DLTensor& like, ember_dtype dtype)
      : strides_(row_major_strides(shape_of(like))), tensor_(like) {
    void* memory = nullptr;
    sdk::check(call.allocate_scratch(&call, static_cast<size_t>(sdk::numel(like)) * sdk::element_size(dtype), &memory));
    tensor_.data = memory;
    tensor_.byte_offset = 0;
    tensor_.dtype = sdk::to_dl_dtype(dtype);
    tensor_.strides = strides_.data();
  }
  RowMajorScratch(const RowMajorScratch&) = delete;
  RowMajorScratch& operator=(const RowMajorScratch&) = delete;

  const DLTensor& tensor() const { return tensor_; }
  Operand operand() const { return Operand{strides_, 0}; }

 private:
  std::vector<int64_t> strides_;
  DLTensor tensor_;
};

// t's values row-major in `dtype`, in `copy`.
const DLTensor& copy_row_major(const ember_kernel_call& call, const DLTensor& t, ember_dtype dtype,
                               std::optional<RowMajorScratch>& copy) {
  copy.emplace(call, t, dtype);
  enqueue_copy(call, t, buffer_of(copy->tensor()), dtype, copy->operand());
  return copy->tensor();
}

// Takes the last two dims of t (rows, cols) as they lie when BLAS can read
// them in place; otherwise packs t into `packed` and describes that.
BlasMatrix blas_matrix(const ember_kernel_call& call, const DLTensor& t, std::optional<RowMajorScratch>& packed) {
  const int n = t.ndim;
  const int64_t rows = t.shape[n - 2];
  const int64_t cols = t.shape[n - 1];
  const int64_t row_stride = t.strides[n - 2];
  const int64_t col_stride = t.strides[n - 1];
  const size_t batch_stride = n == 3 ? static_cast<size_t>(t.strides[0]) : 0;
  const size_t offset = static_cast<size_t>(element_offset(t));
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= cols)) {
    const size_t ld = static_cast<size_t>(std::max<int64_t>({rows == 1 ? cols : row_stride, cols, 1}));
    return {buffer_of(t), offset, ld, batch_stride, clblast::Transpose::kNo};
  }
  if ((rows == 1 || row_stride == 1) && (cols == 1 || col_stride >= rows)) {
    const size_t ld = static_cast<size_t>(std::max<int64_t>({cols == 1 ? rows : col_stride, rows, 1}));
    return {buffer_of(t), offset, ld, batch_stride, clblast::Transpose::kYes};
  }
  const DLTensor& copy = copy_row_major(call, t, sdk::dtype_of(t), packed);
  return {buffer_of(copy), 0, static_cast<size_t>(std::max<int64_t>(cols, 1)), static_cast<size_t>(rows * cols),
          clblast::Transpose::kNo};
}

// T is the type CLBlast multiplies in: out's own dtype, or float for
// float16 and bfloat16 (Note [GEMM in float32 for float16 and bfloat16]).
template <class T>
void gemm(const ember_kernel_call& call) {
  const DLTensor& a = call.inputs[0];
  const DLTensor& b = call.inputs[1];
  const DLTensor& out = call.outputs[0];
  if (sdk::numel(out) == 0) return;
  const int n = out.ndim;
  const size_t batch = n == 3 ? static_cast<size_t>(out.shape[0]) : 1;
  const size_t m = static_cast<size_t>(out.shape[n - 2]);
  const size_t cols = static_cast<size_t>(out.shape[n - 1]);
  const size_t k = static_cast<size_t>(a.shape[n - 1]);
  const ember_dtype dtype = sdk::dtype_of(out);
  if (k == 0) {
    // fill takes its value in the compute type of out's program, which is T.
    const Geometry g = make_geometry(shape_of(out), {operand_of(out)});
    Launch(call, dtype, "fill").buffer(buffer_of(out)).value(T{0}).value(g).run(g.numel);
    return;
  }
  constexpr ember_dtype blas_dtype = sdk::dtype_v<T>;
  const bool widen = dtype != blas_dtype;
  std::optional<RowMajorScratch> wide_a, wide_b, packed_a, packed_b, c_aside;
  const BlasMatrix ma = blas_matrix(call, widen ? copy_row_major(call, a, blas_dtype, wide_a) : a, packed_a);
  const BlasMatrix mb = blas_matrix(call, widen ? copy_row_major(call, b, blas_dtype, wide_b) : b, packed_b);
  // The core allocates out contiguous; anything else, and every product
  // to be rounded into out, is computed aside.
  const bool out_direct = !widen && sdk::is_contiguous(out);
  if (!out_direct) c_aside.emplace(call, out, blas_dtype);
  const cl_mem c_buffer = buffer_of(out_direct ? out : c_aside->tensor());
  const size_t c_offset = out_direct ? static_cast<size_t>(element_offset(out)) : 0;
  cl_command_queue queue = queue_of(call.device_index, call.stream);
  CommandTiming timing;
  const clblast::StatusCode status =
      clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, ma.transpose, mb.transpose, m, cols, k, T{1},
                                     ma.buffer, ma.offset, ma.ld, ma.batch_stride, mb.buffer, mb.offset, mb.ld,
                                     mb.batch_stride, T{0}, c_buffer, c_offset, cols, m * cols, batch, &queue, timing.event());
  if (status != clblast::StatusCode::kSuccess) {
    sdk::fail(EMBER_STATUS_INTERNAL, std::string("xpu: CLBlast GEMM failed with status ") +
                                         std::to_string(static_cast<int>(status)) + " (" +
                                         cl_error_name(static_cast<cl_int>(status)) + ")");
  }
  timing.keep("clblast_gemm_strided_batched");
  if (!out_direct) enqueue_copy(call, c_aside->tensor(), buffer_of(out), dtype, operand_of(out));
}

}  // namespace

void register_matmul_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  for (ember_dtype dtype : dtypes) {
    if (dtype == EMBER_DTYPE_FLOAT64) {
      r.add("mm", dtype, sdk::kernel_entry<&gemm<double>>);
      r.add("bmm", dtype, sdk::kernel_entry<&gemm<double>>);
    } else if (dtype_info(dtype).is_floating) {
      r.add("mm", dtype, sdk::kernel_entry<&gemm<float>>);
      r.add("bmm", dtype, sdk::kernel_entry<&gemm<float>>);
    }
  }
}

}  // namespace ember::xpu
