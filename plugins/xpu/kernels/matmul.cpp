// mm and bmm through CLBlast's GEMM (tuned per device, Intel GPUs included).
#include <clblast.h>

#include <algorithm>
#include <optional>

#include "../devices.h"
#include "../stream.h"
#include "kernels.h"

namespace ember::xpu {

namespace {

// A matrix as BLAS reads it: row-major with leading dimension `ld`, or the
// transpose of such a matrix.
struct BlasMatrix {
  cl_mem buffer;
  size_t offset;
  size_t ld;
  size_t batch_stride;
  clblast::Transpose transpose;
};

// A buffer the plugin makes for itself; OpenCL frees it once the commands
// queued on it have run, so it may be released right after enqueueing.
class TemporaryBuffer {
 public:
  TemporaryBuffer(const ember_kernel_call& call, size_t bytes) {
    cl_int error = CL_SUCCESS;
    buffer_ = clCreateBuffer(Devices::instance().at(call.device_index).context, CL_MEM_READ_WRITE, bytes, nullptr,
                             &error);
    check_cl(error, "clCreateBuffer of a GEMM operand");
  }
  ~TemporaryBuffer() {
    if (buffer_ != nullptr) clReleaseMemObject(buffer_);
  }
  TemporaryBuffer(const TemporaryBuffer&) = delete;
  TemporaryBuffer& operator=(const TemporaryBuffer&) = delete;
  cl_mem get() const { return buffer_; }

 private:
  cl_mem buffer_ = nullptr;
};

// Contiguous strides of a shape.
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// Takes the last two dims of t (rows, cols) as they lie when BLAS can read
// them in place; otherwise packs t into `packed` and describes that.
BlasMatrix blas_matrix(const ember_kernel_call& call, const DLTensor& t, std::optional<TemporaryBuffer>& packed) {
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
  const std::vector<int64_t> shape = shape_of(t);
  const ember_dtype dtype = sdk::dtype_of(t);
  packed.emplace(call, static_cast<size_t>(sdk::numel(t)) * sdk::element_size(dtype));
  enqueue_copy(call, t, packed->get(), dtype, Operand{row_major_strides(shape), 0});
  return {packed->get(), 0, static_cast<size_t>(std::max<int64_t>(cols, 1)),
          static_cast<size_t>(rows * cols), clblast::Transpose::kNo};
}

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
  cl_command_queue queue = queue_of(call.device_index, call.stream);
  if (k == 0) {
    const Geometry g = make_geometry(shape_of(out), {operand_of(out)});
    Launch(call, sdk::dtype_of(out), "fill").buffer(buffer_of(out)).value(T{0}).value(g).run(g.numel);
    return;
  }
  std::optional<TemporaryBuffer> packed_a, packed_b, packed_out;
  const BlasMatrix ma = blas_matrix(call, a, packed_a);
  const BlasMatrix mb = blas_matrix(call, b, packed_b);
  // The core allocates out contiguous; anything else is computed aside.
  const bool out_direct = sdk::is_contiguous(out);
  if (!out_direct) packed_out.emplace(call, static_cast<size_t>(sdk::numel(out)) * sizeof(T));
  const cl_mem c_buffer = out_direct ? buffer_of(out) : packed_out->get();
  const size_t c_offset = out_direct ? static_cast<size_t>(element_offset(out)) : 0;
  const clblast::StatusCode status =
      clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, ma.transpose, mb.transpose, m, cols, k, T{1},
                                     ma.buffer, ma.offset, ma.ld, ma.batch_stride, mb.buffer, mb.offset, mb.ld,
                                     mb.batch_stride, T{0}, c_buffer, c_offset, cols, m * cols, batch, &queue);
  if (status != clblast::StatusCode::kSuccess) {
    sdk::fail(EMBER_STATUS_INTERNAL, std::string("xpu: CLBlast GEMM failed with status ") +
                                         std::to_string(static_cast<int>(status)) + " (" +
                                         cl_error_name(static_cast<cl_int>(status)) + ")");
  }
  if (!out_direct) {
    DLTensor packed = out;
    std::vector<int64_t> strides = row_major_strides(shape_of(out));
    packed.data = packed_out->get();
    packed.byte_offset = 0;
    packed.strides = strides.data();
    enqueue_copy(call, packed, buffer_of(out), sdk::dtype_of(out), operand_of(out));
  }
}

}  // namespace

void register_matmul_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes) {
  for (ember_dtype dtype : dtypes) {
    if (dtype == EMBER_DTYPE_FLOAT32) {
      r.add("mm", dtype, sdk::kernel_entry<&gemm<float>>);
      r.add("bmm", dtype, sdk::kernel_entry<&gemm<float>>);
    } else if (dtype == EMBER_DTYPE_FLOAT64) {
      r.add("mm", dtype, sdk::kernel_entry<&gemm<double>>);
      r.add("bmm", dtype, sdk::kernel_entry<&gemm<double>>);
    }
  }
}

}  // namespace ember::xpu
