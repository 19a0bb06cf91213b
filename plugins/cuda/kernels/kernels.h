// The plugin's kernels, one file per op family.
#pragma once

#include <ember/ember_plugin.hpp>

namespace ember::gpu {

void register_unary_kernels(const sdk::Registrar& r);
void register_binary_kernels(const sdk::Registrar& r);
void register_copy_kernels(const sdk::Registrar& r);
void register_factory_kernels(const sdk::Registrar& r);
void register_reduce_kernels(const sdk::Registrar& r);
void register_index_kernels(const sdk::Registrar& r);
void register_sort_kernels(const sdk::Registrar& r);
void register_matmul_kernels(const sdk::Registrar& r);

// Releases what the matrix kernels keep per device (library handles).
void release_matmul();

}  // namespace ember::gpu
