// Note [Vector math]: glibc's libmvec (2.35 and later, Debian 12's 2.36)
// has SIMD versions of the C math functions below, for SSE, AVX, AVX2 and
// AVX-512, at most 4 ulp from the exact result with special values handled
// as C does; glibc's headers announce them to the vectoriser only under
// -ffast-math. Declaring them here lets GCC vectorise the kernels' loops
// that call these functions, which -fno-math-errno (set for the plugin)
// makes legal; the plugin links libmvec. The list is the catalogue's
// functions with a libmvec variant (`nm -D libmvec.so.1 | grep _ZGV`).
// Include this before any other header.
#ifndef EMBER_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_
#define EMBER_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_

#if defined(EMBER_CPU_HAS_LIBMVEC)
#define EMBER_SIMD_VARIANT __attribute__((simd("notinbranch")))
extern "C" {
float sinf(float) noexcept EMBER_SIMD_VARIANT;
float cosf(float) noexcept EMBER_SIMD_VARIANT;
float tanf(float) noexcept EMBER_SIMD_VARIANT;
float tanhf(float) noexcept EMBER_SIMD_VARIANT;
float expf(float) noexcept EMBER_SIMD_VARIANT;
float expm1f(float) noexcept EMBER_SIMD_VARIANT;
float logf(float) noexcept EMBER_SIMD_VARIANT;
float log1pf(float) noexcept EMBER_SIMD_VARIANT;
float erff(float) noexcept EMBER_SIMD_VARIANT;
float erfcf(float) noexcept EMBER_SIMD_VARIANT;
float asinf(float) noexcept EMBER_SIMD_VARIANT;
float acosf(float) noexcept EMBER_SIMD_VARIANT;
float atanf(float) noexcept EMBER_SIMD_VARIANT;
float atan2f(float, float) noexcept EMBER_SIMD_VARIANT;
float powf(float, float) noexcept EMBER_SIMD_VARIANT;
double sin(double) noexcept EMBER_SIMD_VARIANT;
double cos(double) noexcept EMBER_SIMD_VARIANT;
double tan(double) noexcept EMBER_SIMD_VARIANT;
double tanh(double) noexcept EMBER_SIMD_VARIANT;
double exp(double) noexcept EMBER_SIMD_VARIANT;
double expm1(double) noexcept EMBER_SIMD_VARIANT;
double log(double) noexcept EMBER_SIMD_VARIANT;
double log1p(double) noexcept EMBER_SIMD_VARIANT;
double erf(double) noexcept EMBER_SIMD_VARIANT;
double erfc(double) noexcept EMBER_SIMD_VARIANT;
double asin(double) noexcept EMBER_SIMD_VARIANT;
double acos(double) noexcept EMBER_SIMD_VARIANT;
double atan(double) noexcept EMBER_SIMD_VARIANT;
double atan2(double, double) noexcept EMBER_SIMD_VARIANT;
double pow(double, double) noexcept EMBER_SIMD_VARIANT;
}
#undef EMBER_SIMD_VARIANT
#endif

#endif  // EMBER_PLUGINS_CPU_KERNELS_VECTOR_MATH_H_
