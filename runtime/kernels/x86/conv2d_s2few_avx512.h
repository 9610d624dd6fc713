/*
 * conv2d_s2few_avx512.h -- the AVX-512 stride-2 / stride-1 conv for few
 * input channels (RGB first convs): x86/conv2d_s2few_avx512.c.
 */
#ifndef LN_RT_CONV2D_S2FEW_AVX512_H
#define LN_RT_CONV2D_S2FEW_AVX512_H

#include "ln_rt_internal.h"

/* shapes the kernel takes and is meant for (conv2d_f32.c asks before the
 * other direct kernel): group 1, no dilation, stride 2 (or 1, but not
 * for a 1x1) on both axes, at most 4 input channels, kernels up to
 * 11x11, output rows of
 * 16-512 pixels whose row buffer fits its 32 KiB on the stack: c * kh *
 * stride * (ow rounded up to 16, + 16) floats <= 8192 (ResNet-18's
 * 3-channel 7x7 at 224: 5376; a 7x7 at 448 is refused and goes to the
 * GEMM), and at
 * most LN_RT_AVX512_KC (256) products per output, c * kh * kw: up to
 * there the AVX-512 GEMM sums each output in one chain of FMAs in the
 * order (ci, ky, kx) from 0 and adds the bias, as this kernel does, so the
 * two give the same bits; past it the GEMM adds K blocks' partial sums
 * (an 11x11 3-channel conv, 363). No scratch. */
int ln_rt__conv2d_s2few_ok(const ln_rt_conv2d_args *a);

/* res: NULL or dst's shape (may be dst itself), added after the bias,
 * before the activation. Returns 0 without touching dst for what
 * ln_rt__conv2d_s2few_ok refuses or on a build without AVX-512. */
int ln_rt__conv2d_s2few_f32_avx512(const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, const float *res,
                                   float *dst);
/* Output rows [oy0, oy1) of one image img ([c][h][w]): output channel o's
 * row oy to out + o * plane + (oy - oy0) * ow; the same bits as the whole
 * image's (ln_rt_conv2d_maxpool_f32's conv). Returns 0 as above. */
int ln_rt__conv2d_s2few_rows_avx512(const ln_rt_conv2d_args *a,
                                    const float *img, const float *weight,
                                    const float *bias, float *out,
                                    size_t plane, int32_t oy0, int32_t oy1);

#endif
