#include "op_case.h"

namespace ember::conformance {

std::vector<DType> all_dtypes() {
  return {DType::Bool,    DType::UInt8,    DType::Int8,    DType::Int16,   DType::Int32,
          DType::Int64,   DType::Float16,  DType::BFloat16, DType::Float32, DType::Float64};
}

std::vector<DType> numeric_dtypes() {
  std::vector<DType> dtypes = all_dtypes();
  dtypes.erase(dtypes.begin());
  return dtypes;
}

std::vector<DType> integral_dtypes() {
  return {DType::Bool, DType::UInt8, DType::Int8, DType::Int16, DType::Int32, DType::Int64};
}

std::vector<DType> floating_dtypes() { return {DType::Float16, DType::BFloat16, DType::Float32, DType::Float64}; }

std::vector<OpCase> all_op_cases() {
  std::vector<OpCase> cases = elementwise_cases();
  for (auto* family : {&structured_cases, &composite_cases, &linalg_cases}) {
    for (OpCase& c : family()) cases.push_back(std::move(c));
  }
  return cases;
}

Tensor transposed(const Tensor& t) { return t.transpose(-2, -1); }

Tensor every_other(const Tensor& t) { return t.slice(0, 0, std::nullopt, 2); }

}  // namespace ember::conformance
