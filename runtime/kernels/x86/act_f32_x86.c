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
 * -87.33654, silu(-inf) = NaN (-inf * 0), silu(+inf) = +inf.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>

/* sigmoid of 8 lanes (the caller multiplies by v for SiLU). max(lo, x)
 * returns x when x is NaN (the second operand), so a NaN goes through the
 * polynomial to the result. */
static inline __m256 sigmoid8(__m256 v)
{
    const __m256 lo = _mm256_set1_ps(-87.33654f), one = _mm256_set1_ps(1.0f);
    const __m256 sh = _mm256_set1_ps(12582912.0f);
    __m256 x = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); /* |v| */
    __m256 xc, t, n, r, p, sc, e, d, s;
    __m256i pw;

    x = _mm256_sub_ps(_mm256_setzero_ps(), x); /* -|v| */
    xc = _mm256_max_ps(lo, x);
    t = _mm256_fmadd_ps(xc, _mm256_set1_ps(1.44269504088896341f), sh);
    n = _mm256_sub_ps(t, sh);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
    p = _mm256_set1_ps(1.9875691500e-4f);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
    p = _mm256_fmadd_ps(_mm256_mul_ps(p, r), r, _mm256_add_ps(r, one));
    /* 2^n: n = bits(t) - bits(1.5 * 2^23), in [-126, 0] */
    pw = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x4B400000 - 127));
    sc = _mm256_castsi256_ps(_mm256_slli_epi32(pw, 23));
    e = _mm256_mul_ps(p, sc);
    e = _mm256_andnot_ps(_mm256_cmp_ps(x, lo, _CMP_LT_OQ), e); /* flush */
    d = _mm256_add_ps(one, e);
    s = _mm256_rcp_ps(d); /* 12 bits: two Newton steps */
    s = _mm256_fmadd_ps(s, _mm256_fnmadd_ps(d, s, one), s);
    s = _mm256_fmadd_ps(s, _mm256_fnmadd_ps(d, s, one), s);
    return _mm256_blendv_ps(_mm256_mul_ps(e, s), s,
                            _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GE_OQ));
}

static void sig_avx2(const float *x, float *y, size_t n, int silu)
{
    size_t i = 0, j;
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i), s = sigmoid8(v);
        _mm256_storeu_ps(y + i, silu ? _mm256_mul_ps(v, s) : s);
    }
    if (i < n) { /* the last 1..7 through a padded block */
        float b[8] = { 0 };
        __m256 v, s;
        for (j = 0; j < n - i; j++)
            b[j] = x[i + j];
        v = _mm256_loadu_ps(b);
        s = sigmoid8(v);
        _mm256_storeu_ps(b, silu ? _mm256_mul_ps(v, s) : s);
        for (j = 0; j < n - i; j++)
            y[i + j] = b[j];
    }
}

void ln_rt__sigmoid_f32_avx2(const float *x, float *y, size_t n)
{
    sig_avx2(x, y, n, 0);
}

void ln_rt__silu_f32_avx2(const float *x, float *y, size_t n)
{
    sig_avx2(x, y, n, 1);
}

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA

static inline __m512 sigmoid16(__m512 v)
{
    const __m512 lo = _mm512_set1_ps(-87.33654f), one = _mm512_set1_ps(1.0f);
    const __m512 sh = _mm512_set1_ps(12582912.0f);
    __m512 x = _mm512_sub_ps(_mm512_setzero_ps(), _mm512_abs_ps(v)); /* -|v| */
    __m512 xc, t, n, r, p, sc, e, d, s;
    __m512i pw;

    xc = _mm512_max_ps(lo, x); /* NaN x: x (second operand) */
    t = _mm512_fmadd_ps(xc, _mm512_set1_ps(1.44269504088896341f), sh);
    n = _mm512_sub_ps(t, sh);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
    p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, one));
    pw = _mm512_sub_epi32(_mm512_castps_si512(t), _mm512_set1_epi32(0x4B400000 - 127));
    sc = _mm512_castsi512_ps(_mm512_slli_epi32(pw, 23));
    e = _mm512_maskz_mul_ps(_mm512_cmp_ps_mask(x, lo, _CMP_NLT_UQ), p, sc);
    d = _mm512_add_ps(one, e);
    s = _mm512_rcp14_ps(d);
    s = _mm512_fmadd_ps(s, _mm512_fnmadd_ps(d, s, one), s);
    return _mm512_mask_mul_ps(s, _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_NGE_UQ),
                              e, s);
}

static void sig_avx512(const float *x, float *y, size_t n, int silu)
{
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i), s = sigmoid16(v);
        _mm512_storeu_ps(y + i, silu ? _mm512_mul_ps(v, s) : s);
    }
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i), s = sigmoid16(v);
        _mm512_mask_storeu_ps(y + i, m, silu ? _mm512_mul_ps(v, s) : s);
    }
}

void ln_rt__sigmoid_f32_avx512(const float *x, float *y, size_t n)
{
    sig_avx512(x, y, n, 0);
}

void ln_rt__silu_f32_avx512(const float *x, float *y, size_t n)
{
    sig_avx512(x, y, n, 1);
}
#endif

#else
typedef int ln_rt__act_x86_unused; /* ISO C wants a non-empty file */
#endif
