// EMBER_CPU_ISA_CLONES: AVX2 and AVX-512 clones of the loops whose speed
// depends on the vector width (Note [ISA clones]).
#ifndef EMBER_PLUGINS_CPU_KERNELS_ISA_CLONES_H_
#define EMBER_PLUGINS_CPU_KERNELS_ISA_CLONES_H_

// Note [ISA clones]: the plugin is built for baseline x86-64 so that it loads
// on any x86-64 machine; loops whose speed depends on the vector width get
// AVX2 and AVX-512 clones picked at load time by the CPU's features (GCC and
// Clang resolve them through an ifunc). A reduction streaming from memory
// gains most: wider loads keep more cache lines in flight per instruction.
// Not under ThreadSanitizer: it instruments the ifunc resolver, which runs
// while the plugin is relocated, before its calls into the runtime resolve.
// EMBER_CPU_MAX_ISA=x86-64-v3 (a CMake option) leaves out the AVX-512
// clones, so that the AVX2 path can be measured on an AVX-512 machine.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__SANITIZE_THREAD__)
#if defined(EMBER_CPU_MAX_ISA_X86_64_V3)
#define EMBER_CPU_ISA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EMBER_CPU_ISA_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#else
#define EMBER_CPU_ISA_CLONES
#endif

#endif  // EMBER_PLUGINS_CPU_KERNELS_ISA_CLONES_H_
