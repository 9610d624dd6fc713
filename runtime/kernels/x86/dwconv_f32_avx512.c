/*
 * dwconv_f32_avx512.c -- AVX-512F depthwise convolution: the direct kernel
 * of dwconv_f32_simd.h at 16 lanes (k-register masks for the edge blocks,
 * vpermt2ps for the stride-2 even/odd split). conv2d_f32.c takes it for
 * rows of at least LN_RT_DW512_MIN_OW outputs; narrower rows would leave
 * most of the 16 lanes idle and go to the 8-lane AVX2 kernel.
 * Compiled to something only when the compiler targets AVX-512F.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
#include <immintrin.h>

static __mmask16 dw_range_mask(int32_t i0, int32_t n)
{
    int32_t lo = i0 < 0 ? -i0 : 0, hi = n - i0;
    uint32_t m;
    if (hi > 16)
        hi = 16;
    if (lo >= hi)
        return 0;
    m = (hi >= 32 ? 0xffffffffu : ((1u << hi) - 1u)) & ~((1u << lo) - 1u);
    return (__mmask16)m;
}

static inline __m512 dw_act(__m512 v, ln_rt_act act, float alpha, float beta)
{
    switch (act) {
    case LN_RT_ACT_NONE:
        return v;
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

#define DW_CAT_(x, y) x##y
#define DW_CAT(x, y) DW_CAT_(x, y)
#define DW_V __m512
#define DW_VL 16
#define DW_M __mmask16
#define DW_LOAD(p) _mm512_loadu_ps(p)
#define DW_MLOAD(p, m) _mm512_maskz_loadu_ps(m, p)
#define DW_STORE(p, v) _mm512_storeu_ps(p, v)
#define DW_MSTORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define DW_FMA(x, y, z) _mm512_fmadd_ps(x, y, z)
#define DW_SET1(x) _mm512_set1_ps(x)
#define DW_RANGE_MASK(i0, n) dw_range_mask(i0, n)
#define DW_EVEN(lo, hi) _mm512_permutex2var_ps(lo, _mm512_setr_epi32(        \
    0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), hi)
#define DW_ODD(lo, hi) _mm512_permutex2var_ps(lo, _mm512_setr_epi32(         \
    1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), hi)
#define DW_FIX(v) (v)
#define DW_ACT(v, act, al, be) dw_act(v, act, al, be)
#define DW_FN ln_rt__dwconv_f32_avx512
#include "dwconv_f32_simd.h"

#else
typedef int ln_rt__dwconv_avx512_unused; /* ISO C wants a non-empty file */
#endif
