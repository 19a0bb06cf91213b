// Entry point of the CPU plugin: the default backend, loaded like any other.
#include <ember/ember_plugin.hpp>
#include <ember/sdk/host_clock_profiling.hpp>

#include "device.h"
#include "kernels/kernels.h"

namespace ember::cpu {
namespace {

void register_kernels(ember_registrar* registrar) {
  const sdk::Registrar r(registrar);
  register_unary_kernels(r);
  register_binary_kernels(r);
  register_where_kernels(r);
  register_copy_kernels(r);
  register_fill_kernels(r);
  register_random_kernels(r);
  register_reduce_kernels(r);
  register_matmul_kernels(r);
  register_index_kernels(r);
  register_scan_kernels(r);
  register_sort_kernels(r);
  register_softmax_kernels(r);
  register_gelu_kernels(r);
  register_convolution_kernels(r);
  register_pooling_kernels(r);
  register_layer_norm_kernels(r);
  register_attention_kernels(r);
  register_lstm_kernels(r);
  register_optimizer_kernels(r);
  register_cross_entropy_kernels(r);
  register_linalg_kernels(r);
}

ember_plugin describe_plugin() {
  ember_plugin plugin{};
  plugin.name = "cpu";
  plugin.version = EMBER_CPU_PLUGIN_VERSION;
  plugin.device = device_api();
  plugin.register_kernels = sdk::fenced<register_kernels>;
  plugin.extension = &sdk::host_clock_profiling().header;
  return plugin;
}

}  // namespace
}  // namespace ember::cpu

EMBER_PLUGIN_ENTRY(ember::cpu::describe_plugin)
