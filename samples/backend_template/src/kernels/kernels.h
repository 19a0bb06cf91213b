// The emulated device's kernels, one file per op family. Every body is
// registered through sdk::add_each with the device's launcher, QueueOnStream.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include <ember/ember_plugin.hpp>

#include "../launch.h"

namespace emu {

namespace sdk = ember::sdk;

void register_elementwise_kernels(const sdk::Registrar& r);
void register_reduce_kernels(const sdk::Registrar& r);
void register_matmul_kernels(const sdk::Registrar& r);
void register_index_kernels(const sdk::Registrar& r);

}  // namespace emu
