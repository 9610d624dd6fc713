/*
 * act_simd.h -- the fused activations (ln_rt_act) on one AVX-512 or AVX2
 * vector, for kernels that apply them in registers (the packed, direct,
 * GEMM and AVX-512 depthwise kernels). Include after
 * LN_RT_TARGET_AVX512_PRAGMA / LN_RT_TARGET_AVX2_PRAGMA and <immintrin.h>;
 * LN_RT_ACT_SIMD_512 selects the 512-bit one, otherwise the 256-bit one.
 */
#ifndef LN_RT_ACT_SIMD_H
#define LN_RT_ACT_SIMD_H

#ifdef LN_RT_ACT_SIMD_512
static inline __m512 ln_rt__act_v512(__m512 v, ln_rt_act act, float alpha,
                                     float beta)
{
    switch (act) {
    case LN_RT_ACT_RELU:
        return _mm512_max_ps(v, _mm512_setzero_ps());
    case LN_RT_ACT_RELU6:
        return _mm512_min_ps(_mm512_max_ps(v, _mm512_setzero_ps()),
                             _mm512_set1_ps(6.0f));
    case LN_RT_ACT_LEAKYRELU:
        return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(),
                                                        _CMP_LT_OQ),
                                  v, _mm512_set1_ps(alpha));
    case LN_RT_ACT_CLIP:
        return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(alpha)),
                             _mm512_set1_ps(beta));
    default:
        return v;
    }
}
#else
static inline __m256 ln_rt__act_v256(__m256 v, ln_rt_act act, float alpha,
                                     float beta)
{
    switch (act) {
    case LN_RT_ACT_RELU:
        return _mm256_max_ps(v, _mm256_setzero_ps());
    case LN_RT_ACT_RELU6:
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()),
                             _mm256_set1_ps(6.0f));
    case LN_RT_ACT_LEAKYRELU:
        return _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_set1_ps(alpha)),
                                _mm256_cmp_ps(v, _mm256_setzero_ps(),
                                              _CMP_LT_OQ));
    case LN_RT_ACT_CLIP:
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(alpha)),
                             _mm256_set1_ps(beta));
    default:
        return v;
    }
}
#endif
#endif
