// Entry point of the CPU plugin: the default backend, loaded like any other.
#include <ember/ember_plugin.hpp>

#include "device.h"
#include "kernels/kernels.h"

namespace ember::cpu {
namespace {

ember_status* register_kernels(ember_registrar* registrar) {
  return sdk::fence([&] {
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
    register_convolution_kernels(r);
    register_pooling_kernels(r);
    register_layer_norm_kernels(r);
    register_cross_entropy_kernels(r);
  });
}

}  // namespace
}  // namespace ember::cpu

extern "C" EMBER_PLUGIN_EXPORT ember_status* ember_plugin_init(const ember_host_api* host,
                                                                ember_plugin* plugin) {
  ember::sdk::set_host(host);
  return ember::sdk::fence([&] {
    ember_plugin mine{};
    mine.abi_major = EMBER_ABI_VERSION_MAJOR;
    mine.abi_minor = EMBER_ABI_VERSION_MINOR;
    mine.name = "cpu";
    mine.version = EMBER_CPU_PLUGIN_VERSION;
    mine.device = ember::cpu::device_api();
    mine.register_kernels = ember::cpu::register_kernels;
    ember::sdk::write_struct(plugin, mine);
  });
}
