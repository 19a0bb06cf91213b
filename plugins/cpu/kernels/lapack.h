// The LAPACK and BLAS routines the linear-algebra kernels call, declared as
// the Fortran libraries export them (find_package(LAPACK) gives the libraries
// but no C header): every argument by pointer, 32-bit integers (the LP64
// builds Debian ships), and one hidden length argument per character
// argument at the end, as gfortran passes them. `Lapack<T>` picks the single
// or double precision routine for float and double.
#ifndef EMBER_PLUGINS_CPU_KERNELS_LAPACK_H_
#define EMBER_PLUGINS_CPU_KERNELS_LAPACK_H_

#include <cstddef>

extern "C" {
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb, size_t, size_t, size_t,
            size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const double* alpha, const double* a, const int* lda, double* b, const int* ldb, size_t, size_t, size_t,
            size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u, const int* ldu,
             float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info, size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t);
}

namespace ember::cpu {

template <class T>
struct Lapack;

#define EMBER_LAPACK_ROUTINES(T, p)                                                                                   \
  template <>                                                                                                         \
  struct Lapack<T> {                                                                                                  \
    static void potrf(char uplo, int n, T* a, int lda, int* info) { p##potrf_(&uplo, &n, a, &lda, info, 1); }         \
    static void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) { p##getrf_(&m, &n, a, &lda, ipiv, info); }  \
    static void trsm_left(char uplo, char diag, int m, int n, const T* a, int lda, T* b, int ldb) {                   \
      const char side = 'L', trans = 'N';                                                                             \
      const T one = 1;                                                                                                \
      p##trsm_(&side, &uplo, &trans, &diag, &m, &n, &one, a, &lda, b, &ldb, 1, 1, 1, 1);                              \
    }                                                                                                                 \
    static void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {                           \
      p##geqrf_(&m, &n, a, &lda, tau, work, &lwork, info);                                                            \
    }                                                                                                                 \
    static void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {              \
      p##orgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);                                                        \
    }                                                                                                                 \
    static void syevd(char uplo, int n, T* a, int lda, T* w, T* work, int lwork, int* iwork, int liwork, int* info) { \
      const char jobz = 'V';                                                                                          \
      p##syevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);                              \
    }                                                                                                                 \
    static void gesdd(char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt, T* work,          \
                      int lwork, int* iwork, int* info) {                                                             \
      p##gesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);                         \
    }                                                                                                                 \
  };

EMBER_LAPACK_ROUTINES(float, s)
EMBER_LAPACK_ROUTINES(double, d)
#undef EMBER_LAPACK_ROUTINES

}  // namespace ember::cpu

#endif  // EMBER_PLUGINS_CPU_KERNELS_LAPACK_H_
