/*
 * real.h — the scalar type of the engine.
 *
 * pf_real is float by default (the paper trains in FP32) and double when the
 * library is built with PRECISION=double (-DPF_DOUBLE=1), which the gradient
 * tests use. Everything that stores tensors uses pf_real; counters and
 * statistics use double regardless.
 */
#ifndef PF_CORE_REAL_H
#define PF_CORE_REAL_H

#ifdef PF_DOUBLE
typedef double pf_real;
#define PF_REAL_NAME "double"
#define PF_REAL_EPS 2.220446049250313e-16
#else
typedef float pf_real;
#define PF_REAL_NAME "float"
#define PF_REAL_EPS 1.1920929e-07f
#endif

/* Byte alignment of every tensor buffer (one AVX-512 register / cache line). */
#define PF_ALIGN 64

#endif
