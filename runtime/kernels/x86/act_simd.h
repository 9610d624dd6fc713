/*
 * act_simd.h -- the fused activations (ln_rt_act) on one AVX-512 or AVX2
 * vector, for kernels that apply them in registers (the packed, direct,
 * GEMM and depthwise kernels), and the vector sigmoid they and the
 * sigmoid / SiLU array kernels (act_f32_avx2.c, act_f32_avx512.c) share.
 * Include after LN_RT_TARGET_AVX512_PRAGMA / LN_RT_TARGET_AVX2_PRAGMA and
 * <immintrin.h>; LN_RT_ACT_SIMD_512 selects the 512-bit one, otherwise the
 * 256-bit one. It leaves act_f32_simd.h's SG_ vocabulary defined.
 *
 * Sigmoid: 1 / (1 + e), e = exp(-v) on v clamped to [SG_LO, 20] (past 20,
 * 1 + e rounds to 1 anyway): n = round(-v / ln 2) by the 1.5 * 2^23
 * shifter, r = -v - n ln 2 in two steps (Cody-Waite), exp(r) by a degree-6
 * polynomial fitted to the relative error on [-ln2/2, ln2/2] (0.29 half
 * ulp with its float coefficients), e = exp(r) 2^n, then a division (one
 * rounding). SiLU is v times that sigmoid, to the bit (the compiler's
 * Sigmoid + Mul -> SiLU fusion changes no bit). Measured over every float
 * in [-110, 40]: 1.65e-7 relative for sigmoid, 2.0e-7 for SiLU (about 1.7
 * ulp), where the 2e-6 bound of tests/rt/test_rt_elementwise.c and its 3
 * ulp sweep hold every ISA level.
 *
 * The portable loops in unary_f32.c (the Cortex-M4 build's) compute
 * exp(-|v|) with ln_rt__expf_neg's degree-7 polynomial and select e s or
 * s; they meet the same bounds, not the same bits. This form has fewer
 * operations: 15 for a sigmoid, against 23 for the reciprocal-and-select
 * form it replaced (rcp14 + Newton, the sign select), and on an AMD EPYC
 * (Zen 5) the array SiLU went from 4.6 to 6.6 elements a ns in cache (one
 * process, best of 200). The division is cheaper than it looks: it issues
 * as one operation, and the divider runs beside the FMA pipes.
 *
 * Special values: NaN stays NaN; sigmoid(-inf) = 0, sigmoid(+inf) = 1,
 * silu(-inf) = NaN (-inf * 0), silu(+inf) = +inf; below -88 the sigmoid
 * is 0 or a subnormal (AVX-512: e overflows to inf past -88.7; AVX2: 0
 * below SG_LO = -88, as its exponent has no inf).
 */
#ifndef LN_RT_ACT_SIMD_H
#define LN_RT_ACT_SIMD_H

#ifdef LN_RT_ACT_SIMD_512
#define SG_V __m512
#define SG_VL 16
#define SG_LOAD(p) _mm512_loadu_ps(p)
#define SG_STORE(p, v) _mm512_storeu_ps(p, v)
#define SG_SET1(f) _mm512_set1_ps(f)
#define SG_ADD(a, b) _mm512_add_ps(a, b)
#define SG_SUB(a, b) _mm512_sub_ps(a, b)
#define SG_MUL(a, b) _mm512_mul_ps(a, b)
#define SG_MAX(a, b) _mm512_max_ps(a, b)
#define SG_FMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define SG_MIN(a, b) _mm512_min_ps(a, b)
#define SG_DIV(a, b) _mm512_div_ps(a, b)
#define SG_LO (-100.0f)
#define SG_HI 20.0f
/* scalef: 2^n with n up to 145 gives inf, the sigmoid 0 */
#define SG_EXP2N(p, n, t) _mm512_scalef_ps(p, n)
#define SG_FIX(s, v) (s)
#define SG_NAME ln_rt__sigmoid_v512
#include "act_f32_simd.h"

/* every activation but SiLU (v comes back unchanged for it), always
 * inlined: each is an op or two. The depthwise direct kernel stores
 * from many places; there GCC called ln_rt__act_v512 (SiLU's sigmoid
 * inlined in it) out of line, which spills every live vector register
 * around each call. That kernel stores through this one and applies
 * SiLU to each finished plane with ln_rt__act_v512. */
static inline __attribute__((always_inline)) __m512
ln_rt__act_nosilu_v512(__m512 v, ln_rt_act act, float alpha, float beta)
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
    case LN_RT_ACT_HARDSWISH: /* ln_rt__hardsig1: a mul and an add, no FMA */
        return _mm512_mul_ps(v, _mm512_min_ps(_mm512_max_ps(
            _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(1.0f / 6.0f)),
                          _mm512_set1_ps(0.5f)), _mm512_setzero_ps()),
            _mm512_set1_ps(1.0f)));
    default:
        return v;
    }
}

static inline __m512 ln_rt__act_v512(__m512 v, ln_rt_act act, float alpha,
                                     float beta)
{
    if (act == LN_RT_ACT_SILU)
        return _mm512_mul_ps(v, ln_rt__sigmoid_v512_core(v));
    return ln_rt__act_nosilu_v512(v, act, alpha, beta);
}
#else
#define SG_V __m256
#define SG_VL 8
#define SG_LOAD(p) _mm256_loadu_ps(p)
#define SG_STORE(p, v) _mm256_storeu_ps(p, v)
#define SG_SET1(f) _mm256_set1_ps(f)
#define SG_ADD(a, b) _mm256_add_ps(a, b)
#define SG_SUB(a, b) _mm256_sub_ps(a, b)
#define SG_MUL(a, b) _mm256_mul_ps(a, b)
#define SG_MAX(a, b) _mm256_max_ps(a, b)
#define SG_FMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define SG_MIN(a, b) _mm256_min_ps(a, b)
#define SG_DIV(a, b) _mm256_div_ps(a, b)
#define SG_LO (-88.0f)
#define SG_HI 20.0f
/* 2^n from t's low bits into the exponent field: n <= 127 at SG_LO */
#define SG_EXP2N(p, n, t) _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32( \
    _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000 - 127)), 23)))
#define SG_FIX(s, v) _mm256_andnot_ps(_mm256_cmp_ps(v, _mm256_set1_ps(SG_LO), _CMP_LT_OQ), s)
#define SG_NAME ln_rt__sigmoid_v256
#include "act_f32_simd.h"

/* every activation but SiLU (v comes back unchanged for it), always
 * inlined: each is an op or two. The depthwise direct kernel stores
 * from many places; there GCC called ln_rt__act_v256 (SiLU's sigmoid
 * inlined in it) out of line, which spills every live vector register
 * around each call. That kernel stores through this one and applies
 * SiLU to each finished plane with ln_rt__act_v256. */
static inline __attribute__((always_inline)) __m256
ln_rt__act_nosilu_v256(__m256 v, ln_rt_act act, float alpha, float beta)
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
    case LN_RT_ACT_HARDSWISH: /* ln_rt__hardsig1: a mul and an add, no FMA */
        return _mm256_mul_ps(v, _mm256_min_ps(_mm256_max_ps(
            _mm256_add_ps(_mm256_mul_ps(v, _mm256_set1_ps(1.0f / 6.0f)),
                          _mm256_set1_ps(0.5f)), _mm256_setzero_ps()),
            _mm256_set1_ps(1.0f)));
    default:
        return v;
    }
}

static inline __m256 ln_rt__act_v256(__m256 v, ln_rt_act act, float alpha,
                                     float beta)
{
    if (act == LN_RT_ACT_SILU)
        return _mm256_mul_ps(v, ln_rt__sigmoid_v256_core(v));
    return ln_rt__act_nosilu_v256(v, act, alpha, beta);
}
#endif
#endif
