/*
 * act_f32_x86.c -- sigmoid and SiLU (x * sigmoid(x)) for AVX2/FMA and
 * AVX-512F; the portable loops in unary_f32.c are the reference. Same
 * algorithm: e = exp(-|x|) by ln_rt__expf_neg's range reduction and
 * polynomial (here with FMAs), s = 1 / (1 + e), sigmoid = x >= 0 ? s : e s.
 * The division, which bounded the portable loop (about 1.5 elements per ns
 * at AVX-512), is a reciprocal estimate (rcp14 / rcpps) refined by one
 * Newton step: 1 + e is in [1, 2], so the refined reciprocal is within
 * 2^-22 relative (AVX2) or 2^-27 (AVX-512) before rounding; results stay
 * within the 2e-6 relative bound tests/rt/test_rt_elementwise.c holds every
 * ISA level to (about 2 ulp, measured 2.3e-7 over [-20, 20]). Special
 * values as the portable loops: NaN stays NaN, e flushes to 0 below
 * -87.33654, silu(-inf) = NaN (-inf * 0), silu(+inf) = +inf. The code is
 * written once, in act_f32_simd.h, over the vocabulary defined here.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>

/* rcpps has 12 bits: two Newton steps */
static inline __m256 rcp2_avx2(__m256 d)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 s = _mm256_rcp_ps(d);
    s = _mm256_fmadd_ps(s, _mm256_fnmadd_ps(d, s, one), s);
    return _mm256_fmadd_ps(s, _mm256_fnmadd_ps(d, s, one), s);
}

#define SG_V __m256
#define SG_VI __m256i
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
#define SG_ZERO_LT(e, x, c) _mm256_andnot_ps(_mm256_cmp_ps(x, c, _CMP_LT_OQ), e)
#define SG_RCP(d) rcp2_avx2(d)
#define SG_SEL_GE0(v, a, b) _mm256_blendv_ps(b, a, _mm256_cmp_ps(v, _mm256_setzero_ps(), \
                                                                _CMP_GE_OQ))
#define SG_NAME ln_rt__act_avx2
#include "act_f32_simd.h"
#undef SG_V
#undef SG_VI
#undef SG_VL
#undef SG_LOAD
#undef SG_STORE
#undef SG_SET1
#undef SG_ADD
#undef SG_SUB
#undef SG_MUL
#undef SG_MAX
#undef SG_FMA
#undef SG_FNMA
#undef SG_NEGABS
#undef SG_EXP2I
#undef SG_ZERO_LT
#undef SG_RCP
#undef SG_SEL_GE0
#undef SG_NAME

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA

/* rcp14 has 14 bits: one Newton step */
static inline __m512 rcp1_avx512(__m512 d)
{
    __m512 s = _mm512_rcp14_ps(d);
    return _mm512_fmadd_ps(s, _mm512_fnmadd_ps(d, s, _mm512_set1_ps(1.0f)), s);
}

#define SG_V __m512
#define SG_VI __m512i
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
#define SG_NEGABS(v) _mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(v))
#define SG_EXP2I(t) _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_sub_epi32(        \
    _mm512_castps_si512(t), _mm512_set1_epi32(0x4B400000 - 127)), 23))
#define SG_ZERO_LT(e, x, c) _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, c, _CMP_NLT_UQ), e)
#define SG_RCP(d) rcp1_avx512(d)
#define SG_SEL_GE0(v, a, b) _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, _mm512_setzero_ps(), \
                                                                   _CMP_GE_OQ), b, a)
#define SG_NAME ln_rt__act_avx512
#include "act_f32_simd.h"
#endif

#else
typedef int ln_rt__act_x86_unused; /* ISO C wants a non-empty file */
#endif
