/*
 * conv_store_avx512.h -- the store epilogue of the AVX-512 direct convs
 * (x86/conv2d_direct_avx512.c, x86/conv2d_s2few_avx512.c): include after
 * act_simd.h with LN_RT_ACT_SIMD_512, under LN_RT_TARGET_AVX512_PRAGMA.
 */
#ifndef LN_RT_CONV_STORE_AVX512_H
#define LN_RT_CONV_STORE_AVX512_H

/* one output channel's nl (1 .. 16 * nv) consecutive outputs from the nv
 * accumulator vectors acc[0 .. nv-1]: + *bias (bias may be NULL), + res
 * (rp: NULL or the same lanes of res, may be op itself), activation,
 * stored to op through the lane mask */
static inline __attribute__((always_inline)) void
ln_rt__conv_store_v512(float *op, const float *rp, const __m512 *acc, int nv,
                       int32_t nl, const float *bias, ln_rt_act act,
                       float alpha, float beta)
{
    int v;
    for (v = 0; v < nv; v++) {
        const int32_t rem = nl - 16 * v;
        const __mmask16 sm =
            (__mmask16)(rem >= 16 ? 0xffffu : (1u << rem) - 1u);
        __m512 x = acc[v];
        if (bias)
            x = _mm512_add_ps(x, _mm512_set1_ps(*bias));
        if (rp)
            x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(sm, rp + 16 * v));
        x = ln_rt__act_v512(x, act, alpha, beta);
        _mm512_mask_storeu_ps(op + 16 * v, sm, x);
    }
}

#endif
