// The XPU kernels, one file per op family, and what they share.
#pragma once

#include <cstdint>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../buffer.h"
#include "../dtypes.h"
#include "../launch.h"

namespace ember::xpu {

// Each registers its family for the dtypes in `dtypes` where the op is
// defined (the served dtypes, Note [XPU dtypes]).
void register_elementwise_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes);
void register_factory_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes);
void register_reduce_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes);
void register_index_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes);
void register_line_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes);
void register_matmul_kernels(const sdk::Registrar& r, const std::vector<ember_dtype>& dtypes);

inline std::vector<int64_t> shape_of(const DLTensor& t) { return std::vector<int64_t>(t.shape, t.shape + t.ndim); }

// A tensor as ops along a `dim` see it: a 0-d tensor is a [1] (index.cpp).
struct DimView {
  std::vector<int64_t> shape;
  Operand operand;
};
DimView dim_view(const DLTensor& t);

// Copies src into the elements `dst` (in elements of dst_dtype) lays over
// src's shape, converting to dst_dtype (elementwise.cpp).
void enqueue_copy(const ember_kernel_call& call, const DLTensor& src, cl_mem dst_buffer, ember_dtype dst_dtype,
                  const Operand& dst);

}  // namespace ember::xpu
