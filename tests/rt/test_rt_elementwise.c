/*
 * test_rt_elementwise.c -- unary activations/math and broadcasting binary
 * ops against double-precision libm references.
 * Tolerances: exact ops (relu, clip, abs, neg, min, max, add, sub, mul)
 * 0 or 1 ulp-level (1e-7); transcendental ops (libm, or the runtime's own
 * polynomial exp behind exp, sigmoid and softmax) 2e-6; pow 1e-5.
 */
#include <float.h>
#include "rt_test.h"

#define N_UN 37 /* odd, not a multiple of any vector width */

typedef double (*dfn)(double);
static double d_relu(double v) { return v > 0 ? v : 0; }
static double d_sigmoid(double v) { return 1.0 / (1.0 + exp(-v)); }
static double d_silu(double v) { return v / (1.0 + exp(-v)); }
static double d_hswish(double v)
{
    double t = v / 6 + 0.5;
    return v * (t < 0 ? 0 : t > 1 ? 1 : t);
}
static double d_softplus(double v) { return log1p(exp(v)); }
static double d_neg(double v) { return -v; }
static double d_recip(double v) { return 1.0 / v; }
static double d_softsign(double v) { return v / (1.0 + fabs(v)); }
static double d_round(double v) { return nearbyint(v); }
static double d_sign(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }

typedef struct {
    const char *name;
    void (*f)(const float *, float *, size_t);
    dfn ref;
    float lo, hi;
    double tol;
} un_case;

static const un_case ucases[] = {
    { "relu", ln_rt_relu_f32, d_relu, -3, 3, 0 },
    { "sigmoid", ln_rt_sigmoid_f32, d_sigmoid, -20, 20, 2e-6 },
    { "silu", ln_rt_silu_f32, d_silu, -20, 20, 2e-6 },
    { "tanh", ln_rt_tanh_f32, tanh, -6, 6, 2e-6 },
    { "hardswish", ln_rt_hardswish_f32, d_hswish, -5, 5, 2e-6 },
    { "softplus", ln_rt_softplus_f32, d_softplus, -30, 30, 2e-6 },
    { "exp", ln_rt_exp_f32, exp, -10, 10, 2e-6 },
    { "log", ln_rt_log_f32, log, 0.01f, 100, 2e-6 },
    { "sqrt", ln_rt_sqrt_f32, sqrt, 0, 100, 2e-6 },
    { "abs", ln_rt_abs_f32, fabs, -3, 3, 0 },
    { "neg", ln_rt_neg_f32, d_neg, -3, 3, 0 },
    { "reciprocal", ln_rt_reciprocal_f32, d_recip, 0.1f, 10, 2e-6 },
    { "erf", ln_rt_erf_f32, erf, -4, 4, 2e-6 },
    { "softsign", ln_rt_softsign_f32, d_softsign, -50, 50, 2e-7 },
    { "sin", ln_rt_sin_f32, sin, -7, 7, 2e-6 },
    { "cos", ln_rt_cos_f32, cos, -7, 7, 2e-6 },
    { "tan", ln_rt_tan_f32, tan, -1.5f, 1.5f, 2e-6 },
    { "asin", ln_rt_asin_f32, asin, -1, 1, 2e-6 },
    { "acos", ln_rt_acos_f32, acos, -1, 1, 2e-6 },
    { "atan", ln_rt_atan_f32, atan, -20, 20, 2e-6 },
    { "sinh", ln_rt_sinh_f32, sinh, -10, 10, 2e-6 },
    { "cosh", ln_rt_cosh_f32, cosh, -10, 10, 2e-6 },
    { "asinh", ln_rt_asinh_f32, asinh, -50, 50, 2e-6 },
    { "acosh", ln_rt_acosh_f32, acosh, 1, 50, 2e-6 },
    { "atanh", ln_rt_atanh_f32, atanh, -0.99f, 0.99f, 2e-6 },
    { "floor", ln_rt_floor_f32, floor, -20, 20, 0 },
    { "ceil", ln_rt_ceil_f32, ceil, -20, 20, 0 },
    { "round", ln_rt_round_f32, d_round, -20, 20, 0 },
    { "sign", ln_rt_sign_f32, d_sign, -3, 3, 0 },
    { "floor", ln_rt_floor_f32, floor, -20, 20, 0 },
    { "ceil", ln_rt_ceil_f32, ceil, -20, 20, 0 },
};

START_TEST(test_unary)
{
    const un_case *u = &ucases[_i];
    float x[N_UN], y[N_UN];
    double ref[N_UN];
    int i;
    rt_fill(x, N_UN, u->lo, u->hi, 3 + _i);
    x[0] = u->lo; /* hit the range ends */
    for (i = 0; i < N_UN; i++)
        ref[i] = u->ref(x[i]);
    u->f(x, y, N_UN);
    RT_CHECK(y, ref, N_UN, u->tol, u->name);
    u->f(x, x, N_UN); /* in place */
    RT_CHECK(x, ref, N_UN, u->tol, u->name);
}
END_TEST

START_TEST(test_unary_params)
{
    float x[N_UN], y[N_UN];
    double ref[N_UN];
    int i;
    rt_fill(x, N_UN, -4, 4, 9);
    ln_rt_leakyrelu_f32(x, y, N_UN, 0.01f);
    for (i = 0; i < N_UN; i++)
        ref[i] = x[i] < 0 ? 0.01 * x[i] : x[i];
    RT_CHECK(y, ref, N_UN, 1e-7, "leakyrelu");
    ln_rt_clip_f32(x, y, N_UN, -1.5f, 2.0f);
    for (i = 0; i < N_UN; i++)
        ref[i] = x[i] < -1.5 ? -1.5 : x[i] > 2 ? 2 : x[i];
    RT_CHECK(y, ref, N_UN, 0, "clip");
    ln_rt_hardsigmoid_f32(x, y, N_UN, 0.2f, 0.5f);
    for (i = 0; i < N_UN; i++) {
        double t = 0.2 * x[i] + 0.5;
        ref[i] = t < 0 ? 0 : t > 1 ? 1 : t;
    }
    RT_CHECK(y, ref, N_UN, 1e-7, "hardsigmoid");
    ln_rt_elu_f32(x, y, N_UN, 0.7f);
    for (i = 0; i < N_UN; i++)
        ref[i] = x[i] < 0 ? 0.7 * (exp(x[i]) - 1) : x[i];
    RT_CHECK(y, ref, N_UN, 2e-6, "elu");
    ln_rt_selu_f32(x, y, N_UN, 1.67326f, 1.0507f);
    for (i = 0; i < N_UN; i++)
        ref[i] = 1.0507 * (x[i] <= 0 ? 1.67326 * (exp(x[i]) - 1) : x[i]);
    RT_CHECK(y, ref, N_UN, 2e-6, "selu");
    ln_rt_thresholdedrelu_f32(x, y, N_UN, 0.5f);
    for (i = 0; i < N_UN; i++)
        ref[i] = x[i] > 0.5 ? x[i] : 0;
    RT_CHECK(y, ref, N_UN, 0, "thresholdedrelu");
    ln_rt_celu_f32(x, y, N_UN, 1.5f);
    for (i = 0; i < N_UN; i++)
        ref[i] = (x[i] > 0 ? x[i] : 0) +
                 fmin(0, 1.5 * (exp(x[i] / 1.5) - 1));
    RT_CHECK(y, ref, N_UN, 2e-6, "celu");
    ln_rt_shrink_f32(x, y, N_UN, 0.25f, 1.5f);
    for (i = 0; i < N_UN; i++)
        ref[i] = x[i] < -1.5 ? x[i] + 0.25 : x[i] > 1.5 ? x[i] - 0.25 : 0;
    RT_CHECK(y, ref, N_UN, 1e-7, "shrink");
    {
        /* round: halves go to even, signs and specials kept */
        float r[8] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 2.4999998f,
                       -0.0f }, yr[8];
        const float want[8] = { 0, 2, 2, -0.0f, -2, -2, 2, -0.0f };
        int k;
        ln_rt_round_f32(r, yr, 8);
        for (k = 0; k < 8; k++)
            ck_assert(yr[k] == want[k]);
        r[0] = INFINITY; r[1] = NAN;
        ln_rt_round_f32(r, yr, 2);
        ck_assert(isinf(yr[0]) && isnan(yr[1]));
        ln_rt_sign_f32(r + 1, yr, 1);
        ck_assert(isnan(yr[0]));
        /* floor and ceil keep the sign of zero and the specials */
        r[2] = -0.5f; r[3] = 0.5f; r[4] = -0.0f; r[5] = -INFINITY;
        ln_rt_floor_f32(r, yr, 6);
        ck_assert(isinf(yr[0]) && isnan(yr[1]) && yr[2] == -1.0f && yr[3] == 0.0f);
        ck_assert(yr[4] == 0.0f && signbit(yr[4]) && isinf(yr[5]) && yr[5] < 0);
        ln_rt_ceil_f32(r, yr, 6);
        ck_assert(isinf(yr[0]) && isnan(yr[1]) && yr[2] == 0.0f && signbit(yr[2]));
        ck_assert(yr[3] == 1.0f && signbit(yr[4]) && isinf(yr[5]) && yr[5] < 0);
    }
    {
        float m0[5] = { 1, 2, 3, 4, 5 }, m1[5] = { 5, 4, 3, 2, -5 };
        float m2[5] = { 0, 0, 3, 0, 3 }, ym[5];
        const void *const in[3] = { m0, m1, m2 };
        int k;
        ln_rt_mean_f32(in, 3, ym, 5);
        for (k = 0; k < 5; k++)
            ck_assert(fabs(ym[k] - (m0[k] + m1[k] + m2[k]) / 3.0) < 1e-6);
        ln_rt_mean_f32(in, 1, m0, 5); /* in place, one input */
        ck_assert(m0[4] == 5.0f);
    }
    /* sigmoid saturates without NaN at the float extremes */
    x[0] = -1000.0f; x[1] = 1000.0f;
    ln_rt_sigmoid_f32(x, y, 2);
    ck_assert(y[0] == 0.0f && y[1] == 1.0f);
    /* SiLU at the extremes: -1000 -> -0, 1000 -> 1000, +inf -> +inf, NaN
     * stays NaN (every ISA level alike) */
    x[2] = INFINITY; x[3] = NAN;
    ln_rt_silu_f32(x, y, 4);
    ck_assert(y[0] == 0.0f && y[1] == 1000.0f && y[2] == INFINITY && isnan(y[3]));
    ln_rt_sigmoid_f32(x + 2, y, 2);
    ck_assert(y[0] == 1.0f && isnan(y[1]));
    /* the ends of the vector kernels' clamp (act_simd.h: the exponent's
     * argument in [-100, 20] with AVX-512, [-88, 20] with AVX2): -inf
     * and the values around them, 16 of them so that no lane is a tail */
    {
        static const float v[16] = { -INFINITY, -1e30f, -150.0f, -100.5f,
                                     -100.0f, -95.0f, -88.5f, -88.0f,
                                     -87.5f, -80.0f, 16.5f, 19.99f, 20.0f,
                                     20.01f, 1e30f, -0.0f };
        float s[16], l[16];
        int k;
        ln_rt_sigmoid_f32(v, s, 16);
        ln_rt_silu_f32(v, l, 16);
        ck_assert(s[0] == 0.0f && isnan(l[0])); /* -inf * 0 */
        for (k = 1; k < 16; k++) {
            const double ds = 1.0 / (1.0 + exp(-(double)v[k]));
            /* subnormal or 0 below -87.3, else the 2e-6 bound */
            const double tol = ds < 1.2e-38 ? 1.2e-38 : 2e-6 * ds;
            ck_assert_msg(fabs(s[k] - ds) <= tol && s[k] >= 0.0f,
                          "sigmoid(%g) = %g, want %g", (double)v[k],
                          (double)s[k], ds);
            ck_assert_msg(fabs(l[k] - v[k] * ds) <= fabs(v[k]) * tol,
                          "silu(%g) = %g, want %g", (double)v[k],
                          (double)l[k], v[k] * ds);
        }
        ck_assert(s[12] == 1.0f && l[12] == 20.0f && s[14] == 1.0f);
        ck_assert(l[15] == 0.0f && signbit(l[15]) && s[15] == 0.5f);
    }
    ln_rt_softplus_f32(x, y, 2);
    ck_assert(y[0] == 0.0f && y[1] == 1000.0f);
    /* exp (libm-free) at the ends of the float range */
    {
        float e[6] = { 100.0f, -100.0f, 88.5f, -87.0f, 88.7f, 0.0f }, ye[6];
        ln_rt_exp_f32(e, ye, 6);
        ck_assert(isinf(ye[0]) && ye[0] > 0);
        ck_assert(ye[1] == 0.0f);
        ck_assert(fabs(ye[2] / exp(88.5) - 1.0) < 2e-6);
        ck_assert(fabs(ye[3] / exp(-87.0) - 1.0) < 2e-6);
        ck_assert(fabs(ye[4] / exp((double)88.7f) - 1.0) < 2e-6);
        ck_assert(ye[5] == 1.0f);
        e[0] = NAN;
        ln_rt_exp_f32(e, ye, 1);
        ck_assert(isnan(ye[0]));
        ln_rt_sigmoid_f32(e, ye, 1);
        ck_assert(isnan(ye[0]));
    }
}
END_TEST

/* exp over its whole finite range, relative error (not the absolute
 * measure): the polynomial must hold ~2 ulp everywhere */
START_TEST(test_exp_sweep)
{
    enum { N = 20001 };
    static float x[N], y[N];
    double m = 0;
    int i;
    for (i = 0; i < N; i++)
        x[i] = -87.0f + (88.7f + 87.0f) * (float)i / (N - 1);
    ln_rt_exp_f32(x, y, N);
    for (i = 0; i < N; i++) {
        double e = fabs(y[i] / exp((double)x[i]) - 1.0);
        m = e > m ? e : m;
    }
    ck_assert_msg(m < 5e-7, "exp max rel err %g", m);
}
END_TEST

/* ulps between got and the exact ref: |got - ref| in units of the float
 * spacing at ref (the documented bounds, runtime/README.md) */
static double ulp_err(float got, double ref)
{
    float r = fabsf((float)ref);
    double u = (double)nextafterf(r, INFINITY) - (double)r;
    return fabs((double)got - ref) / u;
}

/* exp, sigmoid and SiLU against double exp over float bit patterns across
 * the whole range (4,096 patterns 16 apart every 8,388,593), where the
 * result is a normal float: exp within 1 ulp, sigmoid and SiLU within 3
 * (at every ISA level: x86/act_simd.h's refined reciprocal measured
 * 2.6 / 2.8 ulp with AVX2, 2.5 / 2.6 with AVX-512, the portable division
 * 2.5 / 2.6) */
START_TEST(test_exp_sigmoid_ulp)
{
    enum { N = 4096 };
    static float x[N], ye[N], ys[N], yl[N];
    double me = 0, ms = 0, ml = 0;
    float wx = 0, wsx = 0, wlx = 0;
    uint32_t b;
    long checked = 0;

    for (b = 0; b < 0xFFF00000u; b += 8388593u) {
        int i, k = 0;
        for (i = 0; i < N; i++) {
            uint32_t u = b + (uint32_t)i * 16u;
            float f;
            memcpy(&f, &u, sizeof f);
            if (!isnan(f))
                x[k++] = f;
        }
        ln_rt_exp_f32(x, ye, (size_t)k);
        ln_rt_sigmoid_f32(x, ys, (size_t)k);
        ln_rt_silu_f32(x, yl, (size_t)k);
        for (i = 0; i < k; i++) {
            double re = exp((double)x[i]), rs = 1.0 / (1.0 + exp(-(double)x[i]));
            double rl = (double)x[i] * rs;
            if (re >= FLT_MIN && re <= FLT_MAX && ulp_err(ye[i], re) > me) {
                me = ulp_err(ye[i], re);
                wx = x[i];
            }
            if (rs >= FLT_MIN && ulp_err(ys[i], rs) > ms) {
                ms = ulp_err(ys[i], rs);
                wsx = x[i];
            }
            if (fabs(rl) >= FLT_MIN && fabs(rl) <= FLT_MAX && ulp_err(yl[i], rl) > ml) {
                ml = ulp_err(yl[i], rl);
                wlx = x[i];
            }
            checked++;
        }
    }
    ck_assert_int_gt(checked, 1000000);
    ck_assert_msg(me <= 1.0, "exp: %.2f ulp at %g", me, (double)wx);
    ck_assert_msg(ms <= 3.0, "sigmoid: %.2f ulp at %g", ms, (double)wsx);
    ck_assert_msg(ml <= 3.0, "silu: %.2f ulp at %g", ml, (double)wlx);
}
END_TEST

/* tanh, erf, log and softplus (the runtime's own, libm-free) against
 * double libm over the same float bit patterns, where the result is a
 * normal float, within the bounds documented in unary_f32.c; and the
 * special values C99 gives them */
static double d_softplus_wide(double v)
{
    return v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));
}

static const struct {
    const char *name;
    void (*f)(const float *, float *, size_t);
    dfn ref;
    double bound;
} ulp_cases[] = {
    { "tanh", ln_rt_tanh_f32, tanh, 2.0 },
    { "erf", ln_rt_erf_f32, erf, 2.0 },
    { "log", ln_rt_log_f32, log, 1.0 },
    { "softplus", ln_rt_softplus_f32, d_softplus_wide, 2.0 },
};

START_TEST(test_transcendental_ulp)
{
    enum { N = 4096 };
    static float x[N], y[N];
    double m = 0;
    float wx = 0;
    uint32_t b;
    long checked = 0;

    for (b = 0; b < 0xFFF00000u; b += 8388593u) {
        int i, k = 0;
        for (i = 0; i < N; i++) {
            uint32_t u = b + (uint32_t)i * 16u;
            float f;
            memcpy(&f, &u, sizeof f);
            if (!isnan(f))
                x[k++] = f;
        }
        ulp_cases[_i].f(x, y, (size_t)k);
        for (i = 0; i < k; i++) {
            double r = ulp_cases[_i].ref((double)x[i]);
            if (isnan(r)) {
                ck_assert_msg(isnan(y[i]), "%s(%g) = %g, not NaN", ulp_cases[_i].name,
                              (double)x[i], (double)y[i]);
                continue;
            }
            if (fabs(r) >= FLT_MIN && fabs(r) <= FLT_MAX && ulp_err(y[i], r) > m) {
                m = ulp_err(y[i], r);
                wx = x[i];
            }
            checked++;
        }
    }
    ck_assert_int_gt(checked, 1000000);
    ck_assert_msg(m <= ulp_cases[_i].bound, "%s: %.2f ulp at %.9g", ulp_cases[_i].name, m,
                  (double)wx);
}
END_TEST

START_TEST(test_transcendental_special)
{
    float x[8] = { 0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, -1.0f };
    float y[8];
    ln_rt_tanh_f32(x, y, 8);
    ck_assert(y[0] == 0.0f && !signbit(y[0]) && y[1] == 0.0f && signbit(y[1]));
    ck_assert(y[2] == 1.0f && y[3] == -1.0f && isnan(y[4]));
    ck_assert(y[5] == x[5] && y[6] == x[6]);
    ln_rt_erf_f32(x, y, 8);
    ck_assert(y[0] == 0.0f && !signbit(y[0]) && y[1] == 0.0f && signbit(y[1]));
    ck_assert(y[2] == 1.0f && y[3] == -1.0f && isnan(y[4]));
    ck_assert(y[5] > 0.0f && y[6] < 0.0f && fabs(y[5] / (1e-40 * 1.1283791670955126) - 1) < 1e-4);
    ln_rt_log_f32(x, y, 8);
    ck_assert(isinf(y[0]) && y[0] < 0 && isinf(y[1]) && y[1] < 0);
    ck_assert(isinf(y[2]) && y[2] > 0 && isnan(y[3]) && isnan(y[4]));
    ck_assert(fabs(y[5] - log(1e-40)) < 1e-5 * 92.1 && isnan(y[6]) && isnan(y[7]));
    ln_rt_softplus_f32(x, y, 8);
    ck_assert(fabs(y[0] - log(2.0)) < 1e-7 && fabs(y[1] - log(2.0)) < 1e-7);
    ck_assert(isinf(y[2]) && y[2] > 0 && y[3] == 0.0f && isnan(y[4]));
}
END_TEST

/* silu is x times sigmoid to the bit (what it replaces: Sigmoid then Mul),
 * over the same bit patterns, NaN included, and in place */
START_TEST(test_silu_exact)
{
    enum { N = 4096 };
    static float x[N], s[N], y[N];
    uint32_t b;
    long checked = 0;

    for (b = 0; b < 0xFFF00000u; b += 8388593u) {
        int i;
        for (i = 0; i < N; i++) {
            uint32_t u = b + (uint32_t)i * 16u;
            memcpy(&x[i], &u, sizeof x[i]);
        }
        ln_rt_sigmoid_f32(x, s, N);
        ln_rt_silu_f32(x, y, N);
        for (i = 0; i < N; i++) {
            float r = x[i] * s[i];
            ck_assert_msg(memcmp(&r, &y[i], sizeof r) == 0 || (isnan(r) && isnan(y[i])),
                          "silu(%.9g) = %.9g, x * sigmoid(x) = %.9g", (double)x[i],
                          (double)y[i], (double)r);
            checked++;
        }
        ln_rt_silu_f32(x, x, N);
        ck_assert(memcmp(x, y, sizeof x) == 0);
    }
    ck_assert_int_gt(checked, 1000000);
}
END_TEST

/* exp, log, tanh, erf, softplus and GELU give the same bits at every instruction
 * set level this CPU has (unary_math.h: one source, vectorized 4, 8 or 16
 * wide) and at every length (the vector body and its scalar tail), over
 * float bit patterns including NaNs, infinities and denormals */
static void gelu_div(const float *x, float *y, size_t n)
{
    ln_rt_gelu_f32(x, y, n, 1, 1.41421356f, 1.0f, 0.5f, 0);
}

static void gelu_mul_half_first(const float *x, float *y, size_t n)
{
    ln_rt_gelu_f32(x, y, n, 0, 0.70710678f, 1.0f, 0.5f, 1);
}

static void (*const same_bits_fns[])(const float *, float *, size_t) = {
    ln_rt_exp_f32, ln_rt_log_f32, ln_rt_tanh_f32, ln_rt_erf_f32, ln_rt_softplus_f32,
    gelu_div, gelu_mul_half_first,
};

START_TEST(test_transcendental_same_bits)
{
    enum { N = 4096 };
    static float x[N], ref[N], y[N];
    const int top = ln_rt_isa_limit(-1);
    int k;
    long checked = 0;

    for (k = 0; k < 64; k++) { /* 64 blocks spread over the patterns */
        const uint32_t b = (uint32_t)k * 67108859u;
        int i, level;
        for (i = 0; i < N; i++) {
            uint32_t u = b + (uint32_t)i * 97u;
            memcpy(&x[i], &u, sizeof x[i]);
        }
        ln_rt_isa_limit(0);
        same_bits_fns[_i](x, ref, N);
        for (level = 1; level <= top; level++) {
            ln_rt_isa_limit(level);
            same_bits_fns[_i](x, y, N);
            /* one assertion per block: Check records every passing one */
            for (i = 0; i < N && memcmp(&y[i], &ref[i], sizeof y[i]) == 0; i++)
                ;
            ck_assert_msg(i == N, "function %d at level %d: f(%.9g) = %.9g, portable %.9g",
                          _i, level, (double)x[i % N], (double)y[i % N],
                          (double)ref[i % N]);
            checked += N;
        }
        /* odd lengths and offsets: the tails of the vector loops */
        for (i = 1; i < 40; i += 3) {
            memset(y, 0, sizeof(float) * 64);
            same_bits_fns[_i](x + i, y, (size_t)i);
            ck_assert(memcmp(y, ref + i, sizeof(float) * (size_t)i) == 0);
        }
    }
    ln_rt_isa_limit(top);
    ck_assert_int_eq(checked, 64L * N * top);
}
END_TEST

/* ---- binary broadcast ------------------------------------------------- */
typedef struct {
    int nd;
    int32_t ad[5], bd[5];
} bc_case;

static const bc_case bcases[] = {
    { 0, { 0 }, { 0 } },
    { 1, { 37 }, { 37 } },
    { 1, { 37 }, { 1 } },
    { 1, { 1 }, { 37 } },
    { 4, { 2, 3, 7, 5 }, { 1, 3, 1, 1 } },       /* per-channel */
    { 4, { 2, 3, 7, 5 }, { 2, 3, 7, 5 } },
    { 4, { 2, 1, 7, 1 }, { 1, 3, 1, 5 } },       /* both broadcast */
    { 3, { 3, 1, 5 }, { 1, 4, 1 } },
    { 5, { 2, 1, 3, 1, 9 }, { 1, 4, 3, 2, 1 } },
    { 3, { 1, 1, 1 }, { 2, 3, 4 } },
};

typedef struct {
    const char *name;
    void (*f)(const ln_rt_bcast_args *, const float *, const float *,
              float *);
    int op;
    double tol;
} bin_op;

static const bin_op bops[] = {
    { "add", ln_rt_add_f32, 0, 1e-7 }, { "sub", ln_rt_sub_f32, 1, 1e-7 },
    { "mul", ln_rt_mul_f32, 2, 1e-7 }, { "div", ln_rt_div_f32, 3, 2e-7 },
    { "min", ln_rt_min_f32, 4, 0 },    { "max", ln_rt_max_f32, 5, 0 },
    { "pow", ln_rt_pow_f32_f32, 6, 1e-5 }, { "prelu", ln_rt_prelu_f32, 7, 1e-7 },
};

static double bin_ref(int op, double u, double v)
{
    switch (op) {
    case 0: return u + v;
    case 1: return u - v;
    case 2: return u * v;
    case 3: return u / v;
    case 4: return u < v ? u : v;
    case 5: return u > v ? u : v;
    case 6: return pow(u, v);
    default: return u < 0 ? u * v : u;
    }
}

START_TEST(test_binary)
{
    const bc_case *c = &bcases[_i];
    ln_rt_bcast_args a;
    size_t na = 1, nb = 1, ny = 1, i;
    int d, o;
    float *x0, *x1, *y;
    double *ref;

    memset(&a, 0, sizeof(a));
    a.ndim = c->nd;
    for (d = 0; d < c->nd; d++) {
        a.a_dims[d] = c->ad[d];
        a.b_dims[d] = c->bd[d];
        a.y_dims[d] = c->ad[d] > c->bd[d] ? c->ad[d] : c->bd[d];
        na *= (size_t)c->ad[d];
        nb *= (size_t)c->bd[d];
        ny *= (size_t)a.y_dims[d];
    }
    x0 = rt_alloc(na); x1 = rt_alloc(nb); y = rt_alloc(ny);
    ref = rt_allocd(ny);
    for (o = 0; o < (int)(sizeof(bops) / sizeof(bops[0])); o++) {
        const bin_op *b = &bops[o];
        rt_fill(x0, na, b->op == 6 ? 0.1f : -2, 2, 60 + _i);
        rt_fill(x1, nb, 0.5f, 2, 70 + _i);
        if (b->op != 3 && b->op != 6)
            rt_fill(x1, nb, -2, 2, 80 + _i);
        for (i = 0; i < ny; i++) {
            /* unravel i over y, re-ravel over a and b */
            size_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
            for (d = c->nd - 1; d >= 0; d--) {
                size_t idx = rem % (size_t)a.y_dims[d];
                rem /= (size_t)a.y_dims[d];
                ia += (c->ad[d] == 1 ? 0 : idx) * sa;
                ib += (c->bd[d] == 1 ? 0 : idx) * sb;
                sa *= (size_t)c->ad[d];
                sb *= (size_t)c->bd[d];
            }
            ref[i] = bin_ref(b->op, x0[ia], x1[ib]);
        }
        b->f(&a, x0, x1, y);
        RT_CHECK(y, ref, ny, b->tol, b->name);
        if (na == ny) { /* y aliases x0 */
            b->f(&a, x0, x1, x0);
            RT_CHECK(x0, ref, ny, b->tol, b->name);
        }
    }
    free(x0); free(x1); free(y); free(ref);
}
END_TEST

/* Integer division (truncating; x / 0 is 0, MIN / -1 wraps to MIN),
 * negation and absolute value (wrapping), int32 and int64, over every pair
 * of a grid of values that includes 0, +-1 and the extremes, with y
 * broadcast from a column against a row. */
#define INT_KERNEL_TEST(T, U, S, MIN, MAX)                                       \
    static void int_kernels_##S(void)                                            \
    {                                                                            \
        static const T v[] = {0, 1, -1, 2, -2, 3, -7, 7, 100, -100, 12345,     \
                               MAX, MIN, (T)(MAX - 1), (T)(MIN + 1)};            \
        enum { NV = (int)(sizeof v / sizeof v[0]) };                             \
        T y[NV * NV], u[NV];                                                     \
        ln_rt_bcast_args a;                                                      \
        memset(&a, 0, sizeof a);                                                 \
        a.ndim = 2;                                                              \
        a.a_dims[0] = NV; a.a_dims[1] = 1;                                       \
        a.b_dims[0] = 1; a.b_dims[1] = NV;                                       \
        a.y_dims[0] = NV; a.y_dims[1] = NV;                                      \
        ln_rt_div_##S(&a, v, v, y);                                              \
        for (int i = 0; i < NV; i++)                                             \
            for (int j = 0; j < NV; j++) {                                       \
                T want = v[j] == 0 ? 0 : v[j] == -1 ? (T)(0 - (U)v[i])         \
                                                    : (T)(v[i] / v[j]);          \
                ck_assert_msg(y[i * NV + j] == want, #S " div %d %d", i, j);     \
            }                                                                    \
        ck_assert(y[(NV - 3) * NV + 2] == MIN);          /* MIN / -1 */         \
        ck_assert(y[6 * NV + 3] == -3 && y[7 * NV + 4] == -3); /* truncates */  \
        ln_rt_neg_##S(v, u, NV);                                                 \
        for (int i = 0; i < NV; i++)                                             \
            ck_assert(u[i] == (v[i] == MIN ? MIN : (T)-v[i]));                   \
        ln_rt_abs_##S(v, u, NV);                                                 \
        for (int i = 0; i < NV; i++)                                             \
            ck_assert(u[i] == (v[i] == MIN ? MIN : v[i] < 0 ? (T)-v[i] : v[i])); \
        memcpy(u, v, sizeof u);                                                  \
        ln_rt_neg_##S(u, u, NV);                         /* in place */         \
        ck_assert(u[1] == -1 && u[2] == 1 && u[NV - 3] == MIN);                  \
    }
INT_KERNEL_TEST(int32_t, uint32_t, s32, INT32_MIN, INT32_MAX)
INT_KERNEL_TEST(int64_t, uint64_t, s64, INT64_MIN, INT64_MAX)

START_TEST(test_int_kernels)
{
    int_kernels_s32();
    int_kernels_s64();
}
END_TEST

Suite *rt_elementwise_suite(void)
{
    Suite *s = suite_create("rt_elementwise");
    TCase *tc = tcase_create("elementwise");
    /* the 2M-value ulp sweep takes 0.2 s natively, ~10 s under
     * qemu-x86_64 (test-dispatch) */
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_unary, 0,
                        (int)(sizeof(ucases) / sizeof(ucases[0])));
    tcase_add_test(tc, test_unary_params);
    tcase_add_test(tc, test_exp_sweep);
    tcase_add_test(tc, test_exp_sigmoid_ulp);
    tcase_add_loop_test(tc, test_transcendental_ulp, 0,
                        (int)(sizeof(ulp_cases) / sizeof(ulp_cases[0])));
    tcase_add_test(tc, test_transcendental_special);
    tcase_add_test(tc, test_silu_exact);
    tcase_add_loop_test(tc, test_transcendental_same_bits, 0,
                        (int)(sizeof(same_bits_fns) / sizeof(same_bits_fns[0])));
    tcase_add_test(tc, test_int_kernels);
    tcase_add_loop_test(tc, test_binary, 0,
                        (int)(sizeof(bcases) / sizeof(bcases[0])));
    suite_add_tcase(s, tc);
    return s;
}
