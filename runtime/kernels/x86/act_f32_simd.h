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
 *   SG_ADD, SG_SUB, SG_MUL, SG_DIV, SG_MAX(a, b), SG_MIN(a, b) (b when b
 *   is NaN), SG_FMA(a, b, c) (a b + c)
 *   SG_LO, SG_HI            the clamp of the exponent's argument
 *   SG_EXP2N(p, n, t)       p 2^n (n integral, in [-29, 145]; t = n + 1.5 *
 *                           2^23), inf past the float range
 *   SG_FIX(s, v)            the sigmoid s, or 0 where v < SG_LO when
 *                           SG_EXP2N cannot reach inf
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
    const SG_V one = SG_SET1(1.0f), sh = SG_SET1(12582912.0f);
    /* NaN passes both (the second operand's when one is NaN) */
    SG_V vc = SG_MIN(SG_SET1(SG_HI), SG_MAX(SG_SET1(SG_LO), v)), t, n, rr, p;

    /* e = exp(-vc) = 2^n exp(r), r = -vc - n ln 2 in [-ln2/2, ln2/2];
     * rr = -r, and p(r) is evaluated at -rr (odd coefficients negated) */
    t = SG_FMA(vc, SG_SET1(-1.44269504088896341f), sh);
    n = SG_SUB(t, sh);
    rr = SG_FMA(n, SG_SET1(0.693359375f), vc);
    rr = SG_FMA(n, SG_SET1(-2.12194440e-4f), rr);
    p = SG_SET1(1.3843653724e-3f);
    p = SG_FMA(p, rr, SG_SET1(-8.3741554990e-3f));
    p = SG_FMA(p, rr, SG_SET1(4.1668001562e-2f));
    p = SG_FMA(p, rr, SG_SET1(-1.6666431725e-1f));
    p = SG_FMA(p, rr, SG_SET1(4.9999994040e-1f));
    p = SG_FMA(p, rr, SG_SET1(-1.0f));
    p = SG_FMA(p, rr, one);
    return SG_FIX(SG_DIV(one, SG_ADD(one, SG_EXP2N(p, n, t))), v);
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
