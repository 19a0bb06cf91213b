// The linear-algebra primitives (ops.md "Linear algebra"), float32 and
// float64, through LAPACK: linalg_cholesky_ex (potrf), linalg_lu_factor_ex
// (getrf), linalg_solve_triangular (trsm), linalg_qr (geqrf, orgqr),
// linalg_eigh (syevd) and linalg_svd (gesdd).
//
// Note [Column-major copies]
// LAPACK factors one column-major matrix in place. Each kernel walks the
// batch (every dim but the last two), copies each matrix of any strides into
// a column-major buffer, calls the routine, and copies the results out
// through the outputs' strides. The copies cost O(n^2) against the
// routine's O(n^3), and leave the inputs untouched whatever their layout.
#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "kernels.h"
#include "lapack.h"

namespace ember::cpu {
namespace {

// A tensor seen as a batch of its last `trailing` dims (matrices: 2,
// vectors: 1, one value per matrix: 0).
struct Batched {
  const DLTensor& tensor;
  int trailing;

  int64_t count() const {
    int64_t n = 1;
    for (int i = 0; i < tensor.ndim - trailing; ++i) n *= tensor.shape[i];
    return n;
  }
  template <class T>
  T* at(int64_t batch) const {
    int64_t offset = 0;
    for (int i = tensor.ndim - trailing - 1; i >= 0; --i) {
      offset += (batch % tensor.shape[i]) * tensor.strides[i];
      batch /= tensor.shape[i];
    }
    return reinterpret_cast<T*>(static_cast<char*>(tensor.data) + tensor.byte_offset) + offset;
  }
  int64_t stride(int trailing_dim) const { return tensor.strides[tensor.ndim - trailing + trailing_dim]; }
};

int checked_int(const ember_kernel_call& call, int64_t size) {
  if (size > INT_MAX) {
    sdk::fail(EMBER_STATUS_INVALID_ARGUMENT, std::string(call.op_name) + ": a matrix dimension of " +
                                                 std::to_string(size) + " exceeds LAPACK's 32-bit sizes");
  }
  return static_cast<int>(size);
}

// Matrix `batch` of `from` into the column-major buffer `to` (leading dim ld).
template <class T>
void load(const Batched& from, int64_t batch, int64_t rows, int64_t cols, T* to, int64_t ld) {
  const T* src = from.at<T>(batch);
  const int64_t rs = from.stride(0), cs = from.stride(1);
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) to[i + j * ld] = src[i * rs + j * cs];
  }
}

template <class T>
void store(const T* from, int64_t ld, int64_t rows, int64_t cols, const Batched& to, int64_t batch) {
  T* dst = to.at<T>(batch);
  const int64_t rs = to.stride(0), cs = to.stride(1);
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) dst[i * rs + j * cs] = from[i + j * ld];
  }
}

template <class T>
void store_identity(int64_t rows, int64_t cols, const Batched& to, int64_t batch) {
  T* dst = to.at<T>(batch);
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t i = 0; i < rows; ++i) dst[i * to.stride(0) + j * to.stride(1)] = i == j ? T(1) : T(0);
  }
}

void store_info(const Batched& info, int64_t batch, int value) { *info.at<int32_t>(batch) = value; }

std::string batch_prefix(const ember_kernel_call& call, const Batched& batched, int64_t batch) {
  std::string text = std::string(call.op_name) + ": ";
  if (batched.tensor.ndim > batched.trailing) text += "(Batch element " + std::to_string(batch) + "): ";
  return text;
}

template <class T>
void cholesky_kernel(const ember_kernel_call& call) {
  const Batched a{call.inputs[0], 2}, l{call.outputs[0], 2}, info{call.outputs[1], 0};
  const int n = checked_int(call, call.inputs[0].shape[call.inputs[0].ndim - 1]);
  const int ld = std::max(1, n);
  std::vector<T> buffer(static_cast<size_t>(ld) * n);
  for (int64_t b = 0; b < a.count(); ++b) {
    int status = 0;
    if (n > 0) {
      load(a, b, n, n, buffer.data(), ld);
      Lapack<T>::potrf('L', n, buffer.data(), ld, &status);
      for (int j = 1; j < n; ++j) std::fill_n(buffer.data() + static_cast<size_t>(j) * ld, j, T(0));
      store(buffer.data(), ld, n, n, l, b);
    }
    store_info(info, b, status);
  }
}

template <class T>
void lu_factor_kernel(const ember_kernel_call& call) {
  const DLTensor& input = call.inputs[0];
  const Batched a{input, 2}, lu{call.outputs[0], 2}, pivots{call.outputs[1], 1}, info{call.outputs[2], 0};
  const int m = checked_int(call, input.shape[input.ndim - 2]), n = checked_int(call, input.shape[input.ndim - 1]);
  const int ld = std::max(1, m), k = std::min(m, n);
  std::vector<T> buffer(static_cast<size_t>(ld) * n);
  std::vector<int> ipiv(static_cast<size_t>(k));
  for (int64_t b = 0; b < a.count(); ++b) {
    int status = 0;
    if (k > 0) {
      load(a, b, m, n, buffer.data(), ld);
      Lapack<T>::getrf(m, n, buffer.data(), ld, ipiv.data(), &status);
      store(buffer.data(), ld, m, n, lu, b);
      int32_t* p = pivots.at<int32_t>(b);
      for (int i = 0; i < k; ++i) p[i * pivots.stride(0)] = ipiv[static_cast<size_t>(i)];
    }
    store_info(info, b, status);
  }
}

template <class T>
void solve_triangular_kernel(const ember_kernel_call& call) {
  const Batched a{call.inputs[0], 2}, rhs{call.inputs[1], 2}, x{call.outputs[0], 2};
  const DLTensor& b_tensor = call.inputs[1];
  const int n = checked_int(call, b_tensor.shape[b_tensor.ndim - 2]);
  const int k = checked_int(call, b_tensor.shape[b_tensor.ndim - 1]);
  if (n == 0 || k == 0) return;
  const char uplo = sdk::attr_bool(call, "upper") ? 'U' : 'L';
  const char diag = sdk::attr_bool(call, "unitriangular") ? 'U' : 'N';
  std::vector<T> matrix(static_cast<size_t>(n) * n), solution(static_cast<size_t>(n) * k);
  for (int64_t b = 0; b < x.count(); ++b) {
    load(a, b, n, n, matrix.data(), n);
    load(rhs, b, n, k, solution.data(), n);
    Lapack<T>::trsm_left(uplo, diag, n, k, matrix.data(), n, solution.data(), n);
    store(solution.data(), n, n, k, x, b);
  }
}

// A workspace query (lwork = -1) answers the optimal size in work[0].
int queried_size(double answer) { return std::max(1, static_cast<int>(answer)); }

// mode: 0 reduced (Q [m, k], R [k, n]), 1 complete (Q [m, m], R [m, n]),
// 2 R only (R [k, n]; Q is empty).
template <class T>
void qr_kernel(const ember_kernel_call& call) {
  const DLTensor& input = call.inputs[0];
  const Batched a{input, 2}, q{call.outputs[0], 2}, r{call.outputs[1], 2};
  const int m = checked_int(call, input.shape[input.ndim - 2]), n = checked_int(call, input.shape[input.ndim - 1]);
  const int64_t mode = sdk::attr_int(call, "mode");
  const int k = std::min(m, n), ld = std::max(1, m);
  const int q_cols = mode == 1 ? m : k, r_rows = mode == 1 ? m : k;
  std::vector<T> buffer(static_cast<size_t>(ld) * std::max(n, q_cols)), tau(static_cast<size_t>(std::max(1, k)));
  T answer = 0;
  int status = 0;
  int lwork = 1;
  if (k > 0) {
    Lapack<T>::geqrf(m, n, buffer.data(), ld, tau.data(), &answer, -1, &status);
    lwork = queried_size(answer);
  }
  if (mode != 2 && q_cols > 0) {
    Lapack<T>::orgqr(m, q_cols, k, buffer.data(), ld, tau.data(), &answer, -1, &status);
    lwork = std::max(lwork, queried_size(answer));
  }
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<T> upper(static_cast<size_t>(std::max(1, r_rows)) * n);
  for (int64_t b = 0; b < a.count(); ++b) {
    std::fill(buffer.begin(), buffer.end(), T(0));
    load(a, b, m, n, buffer.data(), ld);
    if (k > 0) Lapack<T>::geqrf(m, n, buffer.data(), ld, tau.data(), work.data(), lwork, &status);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < r_rows; ++i) upper[i + static_cast<size_t>(j) * r_rows] = i <= j ? buffer[i + j * ld] : T(0);
    }
    store(upper.data(), std::max(1, r_rows), r_rows, n, r, b);
    if (mode == 2 || q_cols == 0) continue;
    Lapack<T>::orgqr(m, q_cols, k, buffer.data(), ld, tau.data(), work.data(), lwork, &status);
    store(buffer.data(), ld, m, q_cols, q, b);
  }
}

template <class T>
void eigh_kernel(const ember_kernel_call& call) {
  const DLTensor& input = call.inputs[0];
  const Batched a{input, 2}, values{call.outputs[0], 1}, vectors{call.outputs[1], 2};
  const int n = checked_int(call, input.shape[input.ndim - 1]);
  if (n == 0) return;
  const char uplo = sdk::attr_bool(call, "upper") ? 'U' : 'L';
  std::vector<T> buffer(static_cast<size_t>(n) * n), w(static_cast<size_t>(n));
  T answer = 0;
  int iwork_answer = 0, status = 0;
  Lapack<T>::syevd(uplo, n, buffer.data(), n, w.data(), &answer, -1, &iwork_answer, -1, &status);
  const int lwork = queried_size(answer), liwork = std::max(1, iwork_answer);
  std::vector<T> work(static_cast<size_t>(lwork));
  std::vector<int> iwork(static_cast<size_t>(liwork));
  for (int64_t b = 0; b < a.count(); ++b) {
    load(a, b, n, n, buffer.data(), n);
    Lapack<T>::syevd(uplo, n, buffer.data(), n, w.data(), work.data(), lwork, iwork.data(), liwork, &status);
    if (status != 0) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
                batch_prefix(call, a, b) +
                    "The algorithm failed to converge because the input matrix is "
                    "ill-conditioned or has too many repeated eigenvalues (error code: " +
                    std::to_string(status) + ").");
    }
    T* out = values.at<T>(b);
    for (int i = 0; i < n; ++i) out[i * values.stride(0)] = w[static_cast<size_t>(i)];
    store(buffer.data(), n, n, n, vectors, b);
  }
}

template <class T>
void svd_kernel(const ember_kernel_call& call) {
  const DLTensor& input = call.inputs[0];
  const Batched a{input, 2}, u{call.outputs[0], 2}, s{call.outputs[1], 1}, vh{call.outputs[2], 2};
  const int m = checked_int(call, input.shape[input.ndim - 2]), n = checked_int(call, input.shape[input.ndim - 1]);
  const bool full = sdk::attr_bool(call, "full_matrices");
  const int k = std::min(m, n), u_cols = full ? m : k, vh_rows = full ? n : k;
  if (k == 0) {
    // No singular values: the full bases are the identity, the reduced ones empty.
    for (int64_t b = 0; b < a.count(); ++b) {
      store_identity<T>(m, u_cols, u, b);
      store_identity<T>(vh_rows, n, vh, b);
    }
    return;
  }
  const char jobz = full ? 'A' : 'S';
  std::vector<T> buffer(static_cast<size_t>(m) * n), sv(static_cast<size_t>(k));
  std::vector<T> left(static_cast<size_t>(m) * u_cols), right(static_cast<size_t>(vh_rows) * n);
  std::vector<int> iwork(8 * static_cast<size_t>(k));
  T answer = 0;
  int status = 0;
  Lapack<T>::gesdd(jobz, m, n, buffer.data(), m, sv.data(), left.data(), m, right.data(), vh_rows, &answer, -1,
                   iwork.data(), &status);
  const int lwork = queried_size(answer);
  std::vector<T> work(static_cast<size_t>(lwork));
  for (int64_t b = 0; b < a.count(); ++b) {
    load(a, b, m, n, buffer.data(), m);
    Lapack<T>::gesdd(jobz, m, n, buffer.data(), m, sv.data(), left.data(), m, right.data(), vh_rows, work.data(), lwork,
                     iwork.data(), &status);
    if (status != 0) {
      sdk::fail(EMBER_STATUS_INVALID_ARGUMENT,
                batch_prefix(call, a, b) +
                    "The algorithm failed to converge because the input matrix is "
                    "ill-conditioned or has too many repeated singular values (error code: " +
                    std::to_string(status) + ").");
    }
    store(left.data(), m, m, u_cols, u, b);
    T* out = s.at<T>(b);
    for (int i = 0; i < k; ++i) out[i * s.stride(0)] = sv[static_cast<size_t>(i)];
    store(right.data(), vh_rows, vh_rows, n, vh, b);
  }
}

}  // namespace

void register_linalg_kernels(const sdk::Registrar& r) {
  r.add("linalg_cholesky_ex", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&cholesky_kernel<float>>);
  r.add("linalg_cholesky_ex", EMBER_DTYPE_FLOAT64, &sdk::kernel_entry<&cholesky_kernel<double>>);
  r.add("linalg_lu_factor_ex", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&lu_factor_kernel<float>>);
  r.add("linalg_lu_factor_ex", EMBER_DTYPE_FLOAT64, &sdk::kernel_entry<&lu_factor_kernel<double>>);
  r.add("linalg_solve_triangular", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&solve_triangular_kernel<float>>);
  r.add("linalg_solve_triangular", EMBER_DTYPE_FLOAT64, &sdk::kernel_entry<&solve_triangular_kernel<double>>);
  r.add("linalg_qr", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&qr_kernel<float>>);
  r.add("linalg_qr", EMBER_DTYPE_FLOAT64, &sdk::kernel_entry<&qr_kernel<double>>);
  r.add("linalg_eigh", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&eigh_kernel<float>>);
  r.add("linalg_eigh", EMBER_DTYPE_FLOAT64, &sdk::kernel_entry<&eigh_kernel<double>>);
  r.add("linalg_svd", EMBER_DTYPE_FLOAT32, &sdk::kernel_entry<&svd_kernel<float>>);
  r.add("linalg_svd", EMBER_DTYPE_FLOAT64, &sdk::kernel_entry<&svd_kernel<double>>);
}

}  // namespace ember::cpu
