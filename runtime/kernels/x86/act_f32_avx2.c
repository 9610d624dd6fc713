/*
 * act_f32_avx2.c -- sigmoid and SiLU (x * sigmoid(x)) over arrays for
 * AVX2/FMA: act_f32_simd.h's entry points over act_simd.h's vector sigmoid
 * (algorithm and error bound there); the portable loops in unary_f32.c are
 * the reference.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>
#include "act_simd.h"
#define SG_ENTRIES ln_rt__act_avx2
#include "act_f32_simd.h"
#else
typedef int ln_rt__act_avx2_unused; /* ISO C wants a non-empty file */
#endif
