// OpenCL C 1.2 (Note [C-family dialects] in <ember/kernel_ir/scalar_code.h>):
// OpenCL's scalar types and overloaded math built-ins; the scalar rules are
// the overloadable ek_* functions of codegen_prelude.cl; float16 goes
// through vload_half/vstore_half_rte and bfloat16 through the plugin's
// bfloat16_bits, as the plugin's own kernels do (Note [XPU dtypes]);
// float32 pointwise kernels compute on float8 (Note [Vector pointwise
// kernels] in the SDK's group_kernel.cpp).
#pragma once

#include <ember/kernel_ir/group_kernel.h>

namespace ember::xpu::codegen {

class OpenClDialect final : public kernel_ir::GroupDialect {
 public:
  const char* compute_type(ember_dtype dtype) const override;
  const char* storage_type(ember_dtype dtype) const override;
  std::string cast(const std::string& type, const std::string& value) const override;
  std::string math_call(const char* name, ember_dtype dtype, const std::vector<std::string>& args, bool instruction,
                        kernel_ir::Requirements& req) const override;
  std::string wrap_call(const char* name, const std::vector<std::string>& args,
                        kernel_ir::Requirements& req) const override;
  std::string convert(ember_dtype to, const std::string& value, kernel_ir::Requirements& req) const override;
  std::string nan_literal(ember_dtype dtype) const override;
  std::string infinity_literal(ember_dtype dtype, bool negative) const override;
  std::string load(ember_dtype dtype, const std::string& buffer, const std::string& index,
                   kernel_ir::Requirements& req) const override;
  std::string store(ember_dtype dtype, const std::string& buffer, const std::string& index, const std::string& value,
                    kernel_ir::Requirements& req) const override;
  std::string round_to_dtype(ember_dtype dtype, const std::string& value, kernel_ir::Requirements& req) const override;

  std::string kernel_head(const std::string& parameters) const override;
  std::string buffer_parameter(const std::string& storage_type, bool input, const std::string& name) const override;
  std::string fault_parameter(const std::string& name) const override;
  std::string global_index() const override;
  std::string group_index() const override;
  std::string local_index() const override;
  std::string shared_array(const std::string& type, const std::string& name, int size) const override;
  std::string barrier() const override;
  std::string atomic_or(const std::string& word, const std::string& value) const override;

  int pointwise_vector_width() const override;
  std::string vector_type() const override;
  std::string vector_load(const std::string& buffer, const std::string& index) const override;
  std::string vector_store(const std::string& buffer, const std::string& index,
                           const std::string& value) const override;
  std::string vector_splat(const std::string& value) const override;
};

}  // namespace ember::xpu::codegen
