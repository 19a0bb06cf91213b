// Runs of float16 widened to float32 and rounded back with the CPU's
// conversion instructions where it has them (Note [Hardware float16]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_HALF_CONVERT_H_
#define EMBER_PLUGINS_CPU_KERNELS_HALF_CONVERT_H_

#include <cstdint>

#include <ember/ember_plugin.hpp>

namespace ember::cpu {

// out[i] = float(in[i]) for n elements.
void widen_float16(const sdk::float16* in, float* out, int64_t n);
// out[i] = float16(in[i]) for n elements, rounded to nearest even.
void narrow_float16(const float* in, sdk::float16* out, int64_t n);

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_HALF_CONVERT_H_
