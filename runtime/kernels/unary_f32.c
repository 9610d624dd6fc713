/*
 * unary_f32.c -- elementwise activations and unary math that need libm,
 * float32 (the piecewise-linear ones live in act_f32.c, so a model made of
 * convs and relus links without libm). Every kernel is in-place safe.
 */
#include <math.h>
#include "ln_rt_internal.h"

void ln_rt_sigmoid_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        /* e = exp(-|x|) never overflows; sigmoid(-|x|) = e / (1 + e);
         * both computed, then one selected, so that the loop vectorizes */
        float v = x[i], e = ln_rt__expf(-fabsf(v));
        float s = 1.0f / (1.0f + e), se = e * s;
        y[i] = v >= 0.0f ? s : se;
    }
}

void ln_rt_tanh_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = tanhf(x[i]);
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
    for (i = 0; i < n; i++) {
        float v = x[i] * (1.0f / 6.0f) + 0.5f;
        v = v < 0.0f ? 0.0f : v;
        v = v > 1.0f ? 1.0f : v;
        y[i] = x[i] * v;
    }
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

void ln_rt_softplus_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float v = x[i];
        /* log(1 + e^v) = max(v, 0) + log1p(e^-|v|) */
        y[i] = (v > 0.0f ? v : 0.0f) + log1pf(expf(-fabsf(v)));
    }
}

void ln_rt_exp_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = ln_rt__expf(x[i]);
}

void ln_rt_log_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = logf(x[i]);
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

void ln_rt_erf_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = erff(x[i]);
}
