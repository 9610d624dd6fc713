/*
 * math_f32.c -- elementwise math with libm (ONNX Sin ... Atanh, Floor,
 * Ceil, Round, Sign) and the small parametric activations ThresholdedRelu, Celu and
 * Shrink, float32. All in-place safe; C99 and libm only.
 */
#include <math.h>
#include "ln_rt.h"

#define LN_RT_UNARY_LIBM(name, fn)                                     \
    void ln_rt_##name##_f32(const float *x, float *y, size_t n)        \
    {                                                                  \
        for (size_t i = 0; i < n; i++)                                 \
            y[i] = fn(x[i]);                                           \
    }

LN_RT_UNARY_LIBM(sin, sinf)
LN_RT_UNARY_LIBM(cos, cosf)
LN_RT_UNARY_LIBM(tan, tanf)
LN_RT_UNARY_LIBM(asin, asinf)
LN_RT_UNARY_LIBM(acos, acosf)
LN_RT_UNARY_LIBM(atan, atanf)
LN_RT_UNARY_LIBM(sinh, sinhf)
LN_RT_UNARY_LIBM(cosh, coshf)
LN_RT_UNARY_LIBM(asinh, asinhf)
LN_RT_UNARY_LIBM(acosh, acoshf)
LN_RT_UNARY_LIBM(atanh, atanhf)
LN_RT_UNARY_LIBM(floor, floorf)
LN_RT_UNARY_LIBM(ceil, ceilf)

/* halves to even (the default rounding mode), as ONNX Round */
void ln_rt_round_f32(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i], r = floorf(v), f = v - r;
        if (f > 0.5f || (f == 0.5f && fmodf(r, 2.0f) != 0.0f))
            r += 1.0f;
        y[i] = !isfinite(v) ? v : r == 0.0f ? copysignf(0.0f, v) : r;
    }
}

void ln_rt_sign_f32(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v > 0 ? 1.0f : v < 0 ? -1.0f : v; /* keeps 0 and NaN */
    }
}

void ln_rt_thresholdedrelu_f32(const float *x, float *y, size_t n,
                               float alpha)
{
    for (size_t i = 0; i < n; i++)
        y[i] = x[i] > alpha ? x[i] : 0.0f;
}

void ln_rt_celu_f32(const float *x, float *y, size_t n, float alpha)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v > 0 ? v : alpha * expm1f(v / alpha);
    }
}

void ln_rt_shrink_f32(const float *x, float *y, size_t n, float bias,
                      float lambd)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v < -lambd ? v + bias : v > lambd ? v - bias : 0.0f;
    }
}

/* bool (uint8) out: x is NaN; x is an infinity of a sign asked for */
void ln_rt_isnan_f32(const float *x, uint8_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (uint8_t)(x[i] != x[i]);
}

void ln_rt_isinf_f32(const float *x, uint8_t *y, size_t n, int32_t detect_negative,
                     int32_t detect_positive)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (uint8_t)((detect_positive && x[i] == INFINITY) ||
                         (detect_negative && x[i] == -INFINITY));
}
