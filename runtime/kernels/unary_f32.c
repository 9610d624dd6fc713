/*
 * unary_f32.c -- elementwise activations and unary math that need libm,
 * float32 (the piecewise-linear ones live in act_f32.c, so a model made of
 * convs and relus links without libm). Every kernel is in-place safe.
 */
/* GCC may compute both arms of the math's selects only without
 * -ftrapping-math (its default; clang's is off): with it, jump threading
 * leaves branches in the loops and GCC vectorizes them only where AVX-512
 * masks every operation. Values are the same either way (no exception
 * flag is read anywhere in the runtime). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
#include <float.h>
#include <math.h>
#include "ln_rt_internal.h"

/* ln_rt__expf for x <= 0 (or NaN), to the bit: no upper clamp, no 2^128
 * case, and the flush to 0 below -87.33654 as a multiply by 0, not a
 * select (a select that drops y let GCC mask every operation of it) */
static inline float ln_rt__expf_neg(float x)
{
    float xc = x < -87.33654f ? -87.33654f : x;
    float p, sc;
    int32_t n;
    uint32_t pow2;

    p = ln_rt__exp_reduced(xc, &n);
    pow2 = (uint32_t)(n + 127) << 23;
    memcpy(&sc, &pow2, sizeof(sc));
    return p * sc * (x < -87.33654f ? 0.0f : 1.0f);
}

/* sigmoid and SiLU: x86/act_f32_avx2.c and act_f32_avx512.c where the CPU has AVX2 or AVX-512
 * (the same algorithm with FMAs and a refined reciprocal instead of the
 * division); these loops elsewhere */
static int sigmoid_x86(const float *x, float *y, size_t n, int silu)
{
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        (silu ? ln_rt__act_avx512_silu : ln_rt__act_avx512_sigmoid)(x, y, n);
        return 1;
    }
#endif
#if LN_RT_HAVE_AVX2
    if (LN_RT_CPU_AVX2) {
        (silu ? ln_rt__act_avx2_silu : ln_rt__act_avx2_sigmoid)(x, y, n);
        return 1;
    }
#endif
    (void)x;
    (void)y;
    (void)n;
    (void)silu;
    return 0;
}

void ln_rt_sigmoid_f32(const float *x, float *y, size_t n)
{
    size_t i;
    if (sigmoid_x86(x, y, n, 0))
        return;
    for (i = 0; i < n; i++) {
        /* e = exp(-|x|) never overflows; sigmoid(-|x|) = e / (1 + e);
         * both computed, then one selected, so that the loop vectorizes */
        float v = x[i], e = ln_rt__expf_neg(-fabsf(v));
        float s = 1.0f / (1.0f + e), se = e * s;
        y[i] = v >= 0.0f ? s : se;
    }
}

/* the sigmoid above, to the bit, times x: one pass instead of a sigmoid
 * and a mul */
static inline float silu1(float v)
{
    float e = ln_rt__expf_neg(-fabsf(v));
    float s = 1.0f / (1.0f + e), se = e * s;
    return v * (v >= 0.0f ? s : se);
}

void ln_rt_silu_f32(const float *x, float *y, size_t n)
{
    size_t i;
    if (sigmoid_x86(x, y, n, 1))
        return;
    for (i = 0; i < n; i++)
        y[i] = silu1(x[i]);
}

#if !LN_RT_TARGET_IS_CORTEX_M4
/* the fused activation's SiLU of one value (ln_rt__act1, the kernels'
 * scalar edges; host builds): through the dispatched code, so that a value
 * gets the same bits whichever path of a conv or GEMM computed it (the
 * emitted C and the interpreter place tensors differently, and a path can
 * depend on placement) */
float ln_rt__silu1(float v)
{
    float y;
    if (sigmoid_x86(&v, &y, 1, 1))
        return y;
    return silu1(v);
}
#endif

/* exp, log, tanh, erf and softplus: unary_math.h's loops, built for the
 * instruction set cpuid finds (x86/unary_avx2.c, unary_avx512.c: the same
 * bits, 8 or 16 lanes at a time) or portable */
#define UM_PREFIX um_c
#define UM_LINK static
#include "unary_math.h"

#if LN_RT_HAVE_AVX512
#define UM_PICK_AVX512(f) if (LN_RT_CPU_AVX512) { ln_rt__unary_avx512_##f(x, y, n); return; }
#else
#define UM_PICK_AVX512(f)
#endif
#if LN_RT_HAVE_AVX2
#define UM_PICK_AVX2(f) if (LN_RT_CPU_AVX2) { ln_rt__unary_avx2_##f(x, y, n); return; }
#else
#define UM_PICK_AVX2(f)
#endif
#define UM_RUN(f)                                                             \
    do {                                                                      \
        UM_PICK_AVX512(f)                                                     \
        UM_PICK_AVX2(f)                                                       \
        um_c_##f(x, y, n);                                                    \
    } while (0)

void ln_rt_exp_f32(const float *x, float *y, size_t n)
{
    UM_RUN(exp);
}

void ln_rt_log_f32(const float *x, float *y, size_t n)
{
    UM_RUN(log);
}

void ln_rt_tanh_f32(const float *x, float *y, size_t n)
{
    UM_RUN(tanh);
}

void ln_rt_erf_f32(const float *x, float *y, size_t n)
{
    UM_RUN(erf);
}

void ln_rt_softplus_f32(const float *x, float *y, size_t n)
{
    UM_RUN(softplus);
}

void ln_rt_gelu_f32(const float *x, float *y, size_t n, int div, float c,
                    float one, float half, int half_first)
{
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        ln_rt__unary_avx512_gelu(x, y, n, div, c, one, half, half_first);
        return;
    }
#endif
#if LN_RT_HAVE_AVX2
    if (LN_RT_CPU_AVX2) {
        ln_rt__unary_avx2_gelu(x, y, n, div, c, one, half, half_first);
        return;
    }
#endif
    um_c_gelu(x, y, n, div, c, one, half, half_first);
}

void ln_rt_hardsigmoid_f32(const float *x, float *y, size_t n, float alpha,
                           float beta)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float v = alpha * x[i] + beta;
        v = v < 0.0f ? 0.0f : v;
        y[i] = v > 1.0f ? 1.0f : v;
    }
}

void ln_rt_hardswish_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] * ln_rt__hardsig1(x[i]);
}

void ln_rt_elu_f32(const float *x, float *y, size_t n, float alpha)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] < 0.0f ? alpha * expm1f(x[i]) : x[i];
}

void ln_rt_selu_f32(const float *x, float *y, size_t n, float alpha,
                    float gamma)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = gamma * (x[i] <= 0.0f ? alpha * expm1f(x[i]) : x[i]);
}

void ln_rt_sqrt_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = sqrtf(x[i]);
}

void ln_rt_abs_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = fabsf(x[i]);
}

void ln_rt_neg_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = -x[i];
}

void ln_rt_reciprocal_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = 1.0f / x[i];
}

