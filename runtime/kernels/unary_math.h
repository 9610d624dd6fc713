/*
 * unary_math.h -- the libm-free transcendental functions of unary_f32.c and
 * their array loops, written once for every instruction set. Two parts:
 *   - always: the one-value functions (static inline, below);
 *   - with UM_PREFIX defined (a name prefix) and UM_LINK (static or empty):
 *     the loops UM_PREFIX##_exp, _log, _tanh, _erf, _softplus and _gelu over
 *     arrays. unary_f32.c includes them as its portable loops;
 *     x86/unary_avx2.c and x86/unary_avx512.c compile the same loops under
 *     their #pragma GCC target, where GCC vectorizes them 8 or 16 lanes
 *     wide, and unary_f32.c picks one by cpuid. The bits are the same on
 *     every level: each lane does the scalar code's operations, and -std=c99
 *     keeps every a * b + c two roundings (no FMA contraction).
 */
#ifndef LN_RT_UNARY_MATH_H
#define LN_RT_UNARY_MATH_H
#include "ln_rt_internal.h"

/*
 * Exp (ln_rt__expf, ln_rt_internal.h), tanh, erf, log and softplus without
 * libm, branch-free like ln_rt__expf
 * (ln_rt_internal.h) so that their loops vectorize: every path is computed
 * and one selected per element. The polynomial coefficients were fitted by
 * least squares for this runtime (not taken from a library). Bounds against
 * the exact result, where it is a normal float, checked over float bit
 * patterns by tests/rt/test_rt_elementwise.c: log 1 ulp, tanh 2, erf 2,
 * softplus 2 (measured over every 13th bit pattern: log 0.88, tanh 1.31,
 * erf 1.27, softplus 1.91); results below FLT_MIN may flush to 0 (as
 * exp's do).
 * Special values as C99 libm: NaN stays NaN, log(+-0) = -inf, log(x < 0)
 * = NaN, tanh(+-inf) = +-1, erf(+-inf) = +-1, tanh(-0) = erf(-0) = -0.
 */

/* log(x) for x normal and positive: x = 2^k m, m in [sqrt(1/2), sqrt(2))
 * from the bits, f = m - 1, log(1 + f) = f - f^2/2 + f^3 Q(f) (degree 8),
 * plus k ln 2 in two parts (the first, 0.693359375, has 9 bits, so k times
 * it is exact). ux is x's bits plus bias << 23 (the exponent moved up by
 * bias, for ln_rt__logf's denormals). */
static inline float ln_rt__logf_core(uint32_t ux, int32_t bias)
{
    float m, f, f2, q, y, k;

    ux += 0x3F800000u - 0x3F3504F3u;     /* m >= sqrt(1/2) moves to k + 1 */
    k = (float)((int32_t)(ux >> 23) - 127 - bias);
    ux = (ux & 0x007FFFFFu) + 0x3F3504F3u;
    memcpy(&m, &ux, sizeof(m));
    f = m - 1.0f;
    f2 = f * f;
    q = 7.054960728e-02f;
    q = q * f + -1.141997948e-01f;
    q = q * f + 1.162846684e-01f;
    q = q * f + -1.242988110e-01f;
    q = q * f + 1.425489187e-01f;
    q = q * f + -1.666781306e-01f;
    q = q * f + 2.000055611e-01f;
    q = q * f + -2.499999553e-01f;
    q = q * f + 3.333333135e-01f;
    y = f2 * f * q - 0.5f * f2 + k * -2.12194440e-4f;
    y = f + y;
    return y + k * 0.693359375f;
}

/* log(x), any x. Denormals are scaled by 2^23 and the 23 taken off the
 * exponent field in the same select, on the integer bits, everything moved
 * up 32 in the exponent so that it stays positive (any second select on
 * the same condition, or one on a float comparison, left GCC 12 with a
 * scalar loop). The special values are added to the core's result, finite
 * for every x: a select that dropped it let GCC move the core under a
 * branch (x != 0) and keep the loop scalar. */
static inline float ln_rt__logf(float x)
{
    float xm = x * 8388608.0f, y, sp;
    uint32_t ux, uxm;

    memcpy(&ux, &x, sizeof(ux));
    memcpy(&uxm, &xm, sizeof(uxm));
    ux = ux < 0x00800000u ? uxm + (9u << 23) : ux + (32u << 23);
    y = ln_rt__logf_core(ux, 32);
    sp = x < 0.0f ? (float)NAN : 0.0f;
    sp = x == 0.0f ? -(float)INFINITY : sp;
    sp = x == (float)INFINITY ? x : sp;
    sp = x != x ? x : sp;
    return y + sp;
}

/* tanh: |x| < 0.625, a + a z T(z) with a = |x|, z = x^2 (degree 5); else
 * 1 - 2 / (e^{2a} + 1) (e^{2a} = inf gives 1); then x's sign bit put on
 * (so that tanh(-0) = -0) */
static inline float ln_rt__tanhf(float x)
{
    float a = fabsf(x), z = x * x, t, e, b;
    uint32_t ux, ur;
    t = 2.339231549e-03f;
    t = t * z + -8.386012167e-03f;
    t = t * z + 2.178211696e-02f;
    t = t * z + -5.396093056e-02f;
    t = t * z + 1.333331019e-01f;
    t = t * z + -3.333333433e-01f;
    t = a + a * (z * t);
    e = ln_rt__expf(a + a);
    b = 1.0f - 2.0f / (e + 1.0f);
    b = a < 0.625f ? t : b;
    memcpy(&ux, &x, sizeof(ux));
    memcpy(&ur, &b, sizeof(ur));
    ur |= ux & 0x80000000u;
    memcpy(&b, &ur, sizeof(b));
    return b;
}

/* erf: |x| < 0.875, x + x P(x^2) (degree 6); |x| in [0.875, 4),
 * 1 - e^{R(|x| - c)} with R a degree-8 fit of log(erfc) on [0.875, 2)
 * (c = 1.4375) or [2, 4) (c = 3), the sign of x; beyond, +-1 */
static inline float ln_rt__erff(float x)
{
    float a = fabsf(x), z = x * x, p, r, t, b;
    int lo = a < 2.0f;
    p = 8.800185606e-05f;
    p = p * z + -8.238222799e-04f;
    p = p * z + 5.208946764e-03f;
    p = p * z + -2.686240152e-02f;
    p = p * z + 1.128374636e-01f;
    p = p * z + -3.761263788e-01f;
    p = p * z + 1.283791661e-01f;
    p = x + x * p;
    t = a - (lo ? 1.4375f : 3.0f);
    r = lo ? -6.671242318e-06f : 1.556838583e-06f;
    r = r * t + (lo ? -1.930806138e-05f : -6.627539278e-06f);
    r = r * t + (lo ? 2.266018710e-04f : 4.307118070e-05f);
    r = r * t + (lo ? -1.340200775e-03f : -2.459889802e-04f);
    r = r * t + (lo ? 6.412300281e-03f : 1.353156753e-03f);
    r = r * t + (lo ? -2.737599984e-02f : -7.411892992e-03f);
    r = r * t + (lo ? -8.876544237e-01f : -9.573941827e-01f);
    r = r * t + (lo ? -3.397529364e+00f : -6.303753853e+00f);
    r = r * t + (lo ? -3.168672562e+00f : -1.072036266e+01f);
    b = 1.0f - ln_rt__expf(r);
    b = a < 4.0f ? b : 1.0f;
    b = x < 0.0f ? -b : b;
    b = a < 0.875f ? p : b;
    return x != x ? x : b;
}

#endif /* LN_RT_UNARY_MATH_H */

#ifdef UM_PREFIX
#define UM_CAT_(a, b) a##b
#define UM_CAT(a, b) UM_CAT_(a, b)

/* y[i] = f(x[i]): the loops of the one-value functions above */
#define UM_MAP(name, f)                                                       \
    UM_LINK void UM_CAT(UM_PREFIX, name)(const float *x, float *y, size_t n)  \
    {                                                                         \
        size_t i;                                                             \
        for (i = 0; i < n; i++)                                               \
            y[i] = f(x[i]);                                                   \
    }
UM_MAP(_exp, ln_rt__expf)
UM_MAP(_log, ln_rt__logf)
UM_MAP(_tanh, ln_rt__tanhf)
UM_MAP(_erf, ln_rt__erff)
#undef UM_MAP

/* log(1 + e^v) = max(v, 0) + log1p(e) with e = e^-|v|; log1p(e) = log(u)
 * + (e - (u - 1)) / u, u = 1 + e rounded (the rounding error of u put
 * back); a NaN v gives a NaN e, so a NaN result. In blocks, e first: one
 * loop doing both was left scalar by GCC 12 (it threaded jumps through
 * the exp's clamps) */
UM_LINK void UM_CAT(UM_PREFIX, _softplus)(const float *x, float *y, size_t n)
{
    float e[64];
    size_t i0, i, m;
    for (i0 = 0; i0 < n; i0 += m) {
        m = n - i0 < 64 ? n - i0 : 64;
        for (i = 0; i < m; i++)
            e[i] = -fabsf(x[i0 + i]);
        UM_CAT(UM_PREFIX, _exp)(e, e, m);
        for (i = 0; i < m; i++) {
            float v = x[i0 + i], u = 1.0f + e[i];
            uint32_t uu;
            memcpy(&uu, &u, sizeof(uu));     /* u in [1, 2] */
            y[i0 + i] = (v > 0.0f ? v : 0.0f) +
                        (ln_rt__logf_core(uu, 0) + (e[i] - (u - 1.0f)) / u);
        }
    }
}

/* GELU in its erf form as exporters write it, each operation rounded
 * as the graph's: v = x / c (div) or x * c, e = erf(v) + one, then
 * (x * e) * half or, with half_first, (x * half) * e. One loop per form
 * (the flags are loop-invariant; GCC vectorizes each). */
#define UM_GELU_LOOP(V, Y)                                                    \
    for (i = 0; i < n; i++) {                                                 \
        const float xi = x[i], e = ln_rt__erff(V) + one;                      \
        y[i] = Y;                                                             \
    }
UM_LINK void UM_CAT(UM_PREFIX, _gelu)(const float *x, float *y, size_t n,
                                      int div, float c, float one, float half,
                                      int half_first)
{
    size_t i;
    if (div && half_first)
        UM_GELU_LOOP(xi / c, (xi * half) * e)
    else if (div)
        UM_GELU_LOOP(xi / c, (xi * e) * half)
    else if (half_first)
        UM_GELU_LOOP(xi * c, (xi * half) * e)
    else
        UM_GELU_LOOP(xi * c, (xi * e) * half)
}
#undef UM_GELU_LOOP

#undef UM_CAT
#undef UM_CAT_
#endif /* UM_PREFIX */
