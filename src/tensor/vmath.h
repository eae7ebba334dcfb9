/*
 * vmath.h — let gcc vectorise libm calls through glibc's libmvec (internal).
 *
 * glibc declares the SIMD variants of its math functions only under
 * -ffast-math, which we do not use (it would also fold away NaN checks). We
 * declare the variants we need ourselves; with -fno-math-errno gcc then
 * calls e.g. _ZGVeN16v_tanhf from vectorised loops (libmvec: max error 4 ulp).
 * clang does not understand the attribute and calls the scalar functions.
 */
#ifndef PF_TENSOR_VMATH_H
#define PF_TENSOR_VMATH_H

#include <math.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define PF_SIMD_DECL __attribute__((__simd__("notinbranch")))
float tanhf(float) PF_SIMD_DECL;
float sinf(float) PF_SIMD_DECL;
float cosf(float) PF_SIMD_DECL;
float expf(float) PF_SIMD_DECL;
float logf(float) PF_SIMD_DECL;
float log1pf(float) PF_SIMD_DECL;
float expm1f(float) PF_SIMD_DECL;
float erfcf(float) PF_SIMD_DECL;
float powf(float, float) PF_SIMD_DECL;
double tanh(double) PF_SIMD_DECL;
double sin(double) PF_SIMD_DECL;
double cos(double) PF_SIMD_DECL;
double exp(double) PF_SIMD_DECL;
double log(double) PF_SIMD_DECL;
double log1p(double) PF_SIMD_DECL;
double expm1(double) PF_SIMD_DECL;
double erfc(double) PF_SIMD_DECL;
double pow(double, double) PF_SIMD_DECL;
#endif

/* pf_<f>: libm's f in pf_real's precision (f for double, f's float variant
 * otherwise). The natural logarithm is pf_ln, not pf_log: that name is the
 * logger's (core/log.h), and a file including both headers would otherwise
 * have its log calls turned into log(). */
#ifdef PF_DOUBLE
#define pf_tanh tanh
#define pf_sin sin
#define pf_cos cos
#define pf_exp exp
#define pf_ln log
#define pf_log1p log1p
#define pf_expm1 expm1
#define pf_erfc erfc
#define pf_pow pow
#else
#define pf_tanh tanhf
#define pf_sin sinf
#define pf_cos cosf
#define pf_exp expf
#define pf_ln logf
#define pf_log1p log1pf
#define pf_expm1 expm1f
#define pf_erfc erfcf
#define pf_pow powf
#endif

#endif
