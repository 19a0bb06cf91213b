// Note [Vector math]: glibc's libmvec has SIMD versions of sin, cos, exp and
// log (at most 4 ulp from the exact result, special values handled), but
// glibc's headers announce them to the vectoriser only under -ffast-math.
// Declaring them here lets GCC vectorise the kernels' loops that call these
// functions, which -fno-math-errno (set for the plugin) makes legal; the
// plugin links libmvec. Include this before any other header.
#ifndef EMBER_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_
#define EMBER_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_

#if defined(EMBER_CPU_HAS_LIBMVEC)
#define EMBER_SIMD_VARIANT __attribute__((simd("notinbranch")))
extern "C" {
float sinf(float) noexcept EMBER_SIMD_VARIANT;
float cosf(float) noexcept EMBER_SIMD_VARIANT;
float expf(float) noexcept EMBER_SIMD_VARIANT;
float logf(float) noexcept EMBER_SIMD_VARIANT;
double sin(double) noexcept EMBER_SIMD_VARIANT;
double cos(double) noexcept EMBER_SIMD_VARIANT;
double exp(double) noexcept EMBER_SIMD_VARIANT;
double log(double) noexcept EMBER_SIMD_VARIANT;
}
#undef EMBER_SIMD_VARIANT
#endif

#endif  // EMBER_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_
