// The factorization primitives of the catalogue (sdk/docs/ops.md "Linear
// algebra"): argument checks with torch.linalg's messages, then one call.
// Batch dims are folded by the kernels themselves; solve_triangular
// broadcasts them here so a kernel sees one batch shape.
#include <algorithm>
#include <string>
#include <vector>

#include "core/shape.h"
#include "dispatch/dispatcher.h"
#include "dispatch/op_registry.h"
#include "ember/error.h"
#include "ember/linalg.h"

namespace ember::linalg {
namespace {

using dispatch::OpId;

std::string torch_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::Bool:
      return "Bool";
    case DType::UInt8:
      return "Byte";
    case DType::Int8:
      return "Char";
    case DType::Int16:
      return "Short";
    case DType::Int32:
      return "Int";
    case DType::Int64:
      return "Long";
    default:
      return std::string(dtype_name(dtype));
  }
}

void check_matrices(const char* op, const Tensor& A, bool square) {
  if (A.dim() < 2) {
    throw_error(ErrorKind::Runtime,
                std::string("linalg.") + op + ": The input tensor A must have at least 2 dimensions.");
  }
  if (!is_floating(A.dtype())) {
    throw_error(ErrorKind::Runtime, std::string("linalg.") + op +
                                        ": Expected a floating point or complex tensor as input. Got " +
                                        torch_dtype_name(A.dtype()));
  }
  if (A.dtype() != DType::Float32 && A.dtype() != DType::Float64) {
    throw_error(ErrorKind::NotImplemented, std::string("linalg.") + op + ": not implemented for dtype " +
                                               std::string(dtype_name(A.dtype())) +
                                               " (the factorizations take float32 and float64)");
  }
  if (square && A.size(-1) != A.size(-2)) {
    throw_error(ErrorKind::Runtime, std::string("linalg.") + op +
                                        ": A must be batches of square matrices, but they are " +
                                        std::to_string(A.size(-2)) + " by " + std::to_string(A.size(-1)) + " matrices");
  }
}

std::vector<Tensor> call_outputs(OpId id, const Tensor& input, std::initializer_list<ember_attr> attrs,
                                 int64_t num_outputs, const Tensor* second_input = nullptr) {
  const dispatch::Op& op = dispatch::op(id);
  const Tensor inputs[2] = {input, second_input != nullptr ? *second_input : Tensor()};
  std::vector<Tensor> outputs(static_cast<size_t>(num_outputs));
  std::vector<ember_attr> attr_list(attrs);
  dispatch::OpCall call;
  call.inputs = inputs;
  call.num_inputs = second_input != nullptr ? 2 : 1;
  call.outputs = outputs.data();
  call.num_outputs = num_outputs;
  call.attrs = attr_list.data();
  call.num_attrs = static_cast<int64_t>(attr_list.size());
  dispatch::call(op, call);
  return outputs;
}

DimVector batch_of(const Tensor& t) {
  return DimVector(IntArrayRef(t.sizes().begin(), static_cast<size_t>(t.dim() - 2)));
}

DimVector with_matrix(DimVector batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

}  // namespace

CholeskyResult cholesky_ex(const Tensor& A) {
  check_matrices("cholesky", A, true);
  std::vector<Tensor> out = call_outputs(OpId::LinalgCholeskyEx, A, {}, 2);
  return {out[0], out[1]};
}

LuFactorResult lu_factor_ex(const Tensor& A) {
  check_matrices("lu_factor", A, false);
  std::vector<Tensor> out = call_outputs(OpId::LinalgLuFactorEx, A, {}, 3);
  return {out[0], out[1], out[2]};
}

Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  check_matrices("solve_triangular", A, true);
  if (B.dim() < 2) {
    throw_error(ErrorKind::Runtime, "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  }
  if (A.device() != B.device()) {
    throw_error(ErrorKind::Runtime, "linalg.solve_triangular: Expected A and B on the same device, got " +
                                        A.device().str() + " and " + B.device().str());
  }
  // X A = B is A^T X^T = B^T, with the other triangle.
  if (!left)
    return solve_triangular(A.transpose(-2, -1), B.transpose(-2, -1), !upper, true, unitriangular).transpose(-2, -1);
  if (A.size(-1) != B.size(-2)) {
    throw_error(ErrorKind::Runtime,
                "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (" +
                    std::to_string(A.size(-2)) + "x" + std::to_string(A.size(-1)) + " and " +
                    std::to_string(B.size(-2)) + "x" + std::to_string(B.size(-1)) + ")");
  }
  const DType dtype = promote_types(A.dtype(), B.dtype());
  check_matrices("solve_triangular", B.to(dtype), false);
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(B), "linalg.solve_triangular");
  const Tensor a = A.to(dtype).expand(with_matrix(batch, A.size(-2), A.size(-1)));
  const Tensor b = B.to(dtype).expand(with_matrix(batch, B.size(-2), B.size(-1)));
  return call_outputs(OpId::LinalgSolveTriangular, a,
                      {dispatch::attr_bool("upper", upper), dispatch::attr_bool("unitriangular", unitriangular)}, 1,
                      &b)[0];
}

QrResult qr(const Tensor& A, std::string_view mode) {
  int64_t code = 0;
  if (mode == "complete") {
    code = 1;
  } else if (mode == "r") {
    code = 2;
  } else if (mode != "reduced") {
    throw_error(ErrorKind::Runtime, "qr received unrecognized mode '" + std::string(mode) +
                                        "' but expected one of 'reduced' (default), 'r', or 'complete'");
  }
  check_matrices("qr", A, false);
  std::vector<Tensor> out = call_outputs(OpId::LinalgQr, A, {dispatch::attr_int("mode", code)}, 2);
  return {out[0], out[1]};
}

EighResult eigh(const Tensor& A, std::string_view UPLO) {
  if (UPLO != "L" && UPLO != "U" && UPLO != "l" && UPLO != "u") {
    throw_error(ErrorKind::Runtime, "Expected UPLO argument to be 'L' or 'U', but got " + std::string(UPLO));
  }
  check_matrices("eigh", A, true);
  std::vector<Tensor> out =
      call_outputs(OpId::LinalgEigh, A, {dispatch::attr_bool("upper", UPLO == "U" || UPLO == "u")}, 2);
  return {out[0], out[1]};
}

SvdResult svd(const Tensor& A, bool full_matrices) {
  check_matrices("svd", A, false);
  std::vector<Tensor> out = call_outputs(OpId::LinalgSvd, A, {dispatch::attr_bool("full_matrices", full_matrices)}, 3);
  return {out[0], out[1], out[2]};
}

}  // namespace ember::linalg
