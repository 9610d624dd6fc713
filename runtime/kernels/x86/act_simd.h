/*
 * act_simd.h -- the fused activations (ln_rt_act) on one AVX-512 or AVX2
 * vector, for kernels that apply them in registers (the packed, direct,
 * GEMM and depthwise kernels), and the vector sigmoid they and the
 * sigmoid / SiLU array kernels (act_f32_avx2.c, act_f32_avx512.c) share.
 * Include after LN_RT_TARGET_AVX512_PRAGMA / LN_RT_TARGET_AVX2_PRAGMA and
 * <immintrin.h>; LN_RT_ACT_SIMD_512 selects the 512-bit one, otherwise the
 * 256-bit one. It leaves act_f32_simd.h's SG_ vocabulary defined.
 *
 * Sigmoid (the portable loops in unary_f32.c are the reference; same
 * algorithm): e = exp(-|x|) by ln_rt__expf_neg's range reduction and
 * polynomial (here with FMAs), s = 1 / (1 + e), sigmoid = x >= 0 ? s : e s.
 * The division, which bounded the portable loop (about 1.5 elements per ns
 * at AVX-512), is a reciprocal estimate (rcp14 / rcpps) refined by Newton
 * steps: 1 + e is in [1, 2], so the refined reciprocal is within 2^-22
 * relative (AVX2) or 2^-27 (AVX-512) before rounding; results stay within
 * the 2e-6 relative bound tests/rt/test_rt_elementwise.c holds every ISA
 * level to (about 2 ulp, measured 2.3e-7 over [-20, 20]). Special values as
 * the portable loops: NaN stays NaN, e flushes to 0 below -87.33654,
 * silu(-inf) = NaN (-inf * 0), silu(+inf) = +inf.
 */
#ifndef LN_RT_ACT_SIMD_H
#define LN_RT_ACT_SIMD_H

#ifdef LN_RT_ACT_SIMD_512
/* rcp14 has 14 bits: one Newton step */
static inline __m512 ln_rt__rcp1_v512(__m512 d)
{
    __m512 s = _mm512_rcp14_ps(d);
    return _mm512_fmadd_ps(s, _mm512_fnmadd_ps(d, s, _mm512_set1_ps(1.0f)), s);
}

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
#define SG_FNMA(a, b, c) _mm512_fnmadd_ps(a, b, c)
/* -|v| by setting the sign bit (one integer op); p 2^n by scalef, masked
 * to 0 below c; the select and the product e s as one masked multiply:
 * the same bits as the 256-bit vocabulary's three-op forms (checked over
 * all 2^32 inputs), five operations of 28 fewer */
#define SG_NEGABS(v) _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(v), \
                                                         _mm512_set1_epi32(INT32_MIN)))
#define SG_SCALE_ZERO_LT(p, n, t, x, c) \
    _mm512_maskz_scalef_ps(_mm512_cmp_ps_mask(x, c, _CMP_NLT_UQ), p, n)
#define SG_RCP(d) ln_rt__rcp1_v512(d)
#define SG_SEL_GE0_MUL(v, s, e) \
    _mm512_mask_mul_ps(s, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NGE_UQ), e, s)
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
/* rcpps has 12 bits: two Newton steps */
static inline __m256 ln_rt__rcp2_v256(__m256 d)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 s = _mm256_rcp_ps(d);
    s = _mm256_fmadd_ps(s, _mm256_fnmadd_ps(d, s, one), s);
    return _mm256_fmadd_ps(s, _mm256_fnmadd_ps(d, s, one), s);
}

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
#define SG_FNMA(a, b, c) _mm256_fnmadd_ps(a, b, c)
#define SG_NEGABS(v) _mm256_sub_ps(_mm256_setzero_ps(), _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v))
#define SG_EXP2I(t) _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_sub_epi32(        \
    _mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000 - 127)), 23))
#define SG_SCALE_ZERO_LT(p, n, t, x, c) \
    _mm256_andnot_ps(_mm256_cmp_ps(x, c, _CMP_LT_OQ), _mm256_mul_ps(p, SG_EXP2I(t)))
#define SG_RCP(d) ln_rt__rcp2_v256(d)
#define SG_SEL_GE0_MUL(v, s, e) \
    _mm256_blendv_ps(_mm256_mul_ps(e, s), s, _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GE_OQ))
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
