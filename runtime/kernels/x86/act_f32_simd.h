/*
 * act_f32_simd.h -- sigmoid and SiLU written once over a small vector
 * vocabulary, for AVX2 (8 lanes) and AVX-512F (16 lanes). Two parts:
 *   - without SG_ENTRIES: SG_NAME##_core(v), the sigmoid of one vector,
 *     static inline (act_simd.h includes this part, so that the fused
 *     activations of the conv and GEMM kernels apply SiLU in registers);
 *   - with SG_ENTRIES defined to a prefix: the array entry points
 *     SG_ENTRIES##_sigmoid and SG_ENTRIES##_silu over that core
 *     (act_f32_avx2.c, act_f32_avx512.c).
 * The vocabulary (defined by act_simd.h per ISA):
 *   SG_V, SG_VL             float vector type, lanes
 *   SG_LOAD(p), SG_STORE(p, v), SG_SET1(f)
 *   SG_ADD, SG_SUB, SG_MUL, SG_MAX(a, b) (b when b is NaN), SG_FMA(a, b, c)
 *   (a b + c), SG_FNMA(a, b, c) (c - a b), SG_NEGABS(v) (-|v|)
 *   SG_SCALE_ZERO_LT(p, n, t, x, c)
 *                           p 2^n (n integral, in [-126, 0]; t = n + 1.5 *
 *                           2^23), or 0 where x < c
 *   SG_RCP(d)               1 / d for d in [1, 2], refined to float precision
 *   SG_SEL_GE0_MUL(v, s, e) v >= 0 ? s : e s (e s for NaN)
 *   SG_NAME                 prefix of the core
 * Algorithm and bounds: act_simd.h.
 */
#ifndef SG_NAME
#error "include from act_simd.h (the core) or after it (SG_ENTRIES)"
#endif
#define SG_CAT_(a, b) a##b
#define SG_CAT(a, b) SG_CAT_(a, b)

#ifndef SG_ENTRIES
static inline SG_V SG_CAT(SG_NAME, _core)(SG_V v)
{
    const SG_V lo = SG_SET1(-87.33654f), one = SG_SET1(1.0f);
    const SG_V sh = SG_SET1(12582912.0f);
    SG_V x = SG_NEGABS(v), xc = SG_MAX(lo, x), t, n, r, p, e, s;

    t = SG_FMA(xc, SG_SET1(1.44269504088896341f), sh);
    n = SG_SUB(t, sh);
    r = SG_FNMA(n, SG_SET1(0.693359375f), xc);
    r = SG_FNMA(n, SG_SET1(-2.12194440e-4f), r);
    p = SG_SET1(1.9875691500e-4f);
    p = SG_FMA(p, r, SG_SET1(1.3981999507e-3f));
    p = SG_FMA(p, r, SG_SET1(8.3334519073e-3f));
    p = SG_FMA(p, r, SG_SET1(4.1665795894e-2f));
    p = SG_FMA(p, r, SG_SET1(1.6666665459e-1f));
    p = SG_FMA(p, r, SG_SET1(5.0000001201e-1f));
    p = SG_FMA(SG_MUL(p, r), r, SG_ADD(r, one));
    e = SG_SCALE_ZERO_LT(p, n, t, x, lo);
    s = SG_RCP(SG_ADD(one, e));
    return SG_SEL_GE0_MUL(v, s, e);
}

#else
/* the whole vectors, then the last 1..VL-1 through a padded block */
static void SG_CAT(SG_ENTRIES, _run)(const float *x, float *y, size_t n, int silu)
{
    size_t i = 0, j;
    for (; i + SG_VL <= n; i += SG_VL) {
        SG_V v = SG_LOAD(x + i), s = SG_CAT(SG_NAME, _core)(v);
        SG_STORE(y + i, silu ? SG_MUL(v, s) : s);
    }
    if (i < n) {
        float b[SG_VL] = { 0 };
        SG_V v, s;
        for (j = 0; j < n - i; j++)
            b[j] = x[i + j];
        v = SG_LOAD(b);
        s = SG_CAT(SG_NAME, _core)(v);
        SG_STORE(b, silu ? SG_MUL(v, s) : s);
        for (j = 0; j < n - i; j++)
            y[i + j] = b[j];
    }
}

void SG_CAT(SG_ENTRIES, _sigmoid)(const float *x, float *y, size_t n)
{
    SG_CAT(SG_ENTRIES, _run)(x, y, n, 0);
}

void SG_CAT(SG_ENTRIES, _silu)(const float *x, float *y, size_t n)
{
    SG_CAT(SG_ENTRIES, _run)(x, y, n, 1);
}
#endif

#undef SG_CAT
#undef SG_CAT_
