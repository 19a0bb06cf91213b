// One registration function per op family; plugin.cpp calls them all.
#ifndef EMBER_PLUGINS_CPU_KERNELS_KERNELS_H_
#define EMBER_PLUGINS_CPU_KERNELS_KERNELS_H_

#include <ember/ember_plugin.hpp>

namespace ember::cpu {

void register_unary_kernels(const sdk::Registrar& registrar);
void register_binary_kernels(const sdk::Registrar& registrar);
void register_where_kernels(const sdk::Registrar& registrar);
void register_copy_kernels(const sdk::Registrar& registrar);
void register_fill_kernels(const sdk::Registrar& registrar);
void register_random_kernels(const sdk::Registrar& registrar);
void register_reduce_kernels(const sdk::Registrar& registrar);
void register_matmul_kernels(const sdk::Registrar& registrar);
void register_index_kernels(const sdk::Registrar& registrar);
void register_scan_kernels(const sdk::Registrar& registrar);
void register_sort_kernels(const sdk::Registrar& registrar);
void register_softmax_kernels(const sdk::Registrar& registrar);
void register_gelu_kernels(const sdk::Registrar& registrar);
void register_convolution_kernels(const sdk::Registrar& registrar);
void register_pooling_kernels(const sdk::Registrar& registrar);
void register_layer_norm_kernels(const sdk::Registrar& registrar);
void register_cross_entropy_kernels(const sdk::Registrar& registrar);
void register_attention_kernels(const sdk::Registrar& registrar);
void register_lstm_kernels(const sdk::Registrar& registrar);
void register_optimizer_kernels(const sdk::Registrar& registrar);
void register_linalg_kernels(const sdk::Registrar& registrar);

// Copies src into dst (same shape, any strides, any two dtypes); used by
// copy, cat and scatter_add.
void copy_tensor(const DLTensor& src, const DLTensor& dst);

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_KERNELS_H_
