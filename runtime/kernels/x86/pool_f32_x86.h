/*
 * pool_f32_x86.h -- the AVX2 and AVX-512F 2-D max / average pooling
 * kernels (pool_f32_simd.h at 8 and 16 lanes), which pool_f32.c picks.
 * Each returns 1 when it took the shape and wrote y, 0 (y untouched) for
 * a shape it does not take: stride_w above 2, or output rows too long for
 * its stack row buffer.
 */
#ifndef LN_RT_POOL_F32_X86_H
#define LN_RT_POOL_F32_X86_H
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
int ln_rt__pool2d_f32_avx2(const ln_rt_pool2d_args *a, const float *x,
                           float *y, int is_max);
#endif
#if LN_RT_HAVE_AVX512
int ln_rt__pool2d_f32_avx512(const ln_rt_pool2d_args *a, const float *x,
                             float *y, int is_max);
#endif
#endif
