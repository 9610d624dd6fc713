/*
 * act_f32_avx512.c -- sigmoid and SiLU (x * sigmoid(x)) over arrays for
 * AVX-512F: act_f32_simd.h's entry points over act_simd.h's vector sigmoid
 * (algorithm and error bound there); the portable loops in unary_f32.c are
 * the reference.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"
#define SG_ENTRIES ln_rt__act_avx512
#include "act_f32_simd.h"
#else
typedef int ln_rt__act_avx512_unused; /* ISO C wants a non-empty file */
#endif
