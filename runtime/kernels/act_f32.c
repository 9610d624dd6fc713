/*
 * act_f32.c -- the activations that need no libm (relu, leaky relu, clip,
 * softsign) and the fused-activation helper conv2d and gemm use (SiLU
 * through unary_f32.c's dispatched loop). Every
 * kernel is in-place safe; plain loops that the compiler vectorizes at -O3.
 */
#include "ln_rt_internal.h"

void ln_rt__act_f32(float *y, size_t n, ln_rt_act act, float alpha,
                    float beta)
{
    size_t i;
    switch (act) {
    case LN_RT_ACT_NONE: break;
    case LN_RT_ACT_RELU: ln_rt_relu_f32(y, y, n); break;
    case LN_RT_ACT_RELU6: ln_rt_clip_f32(y, y, n, 0.0f, 6.0f); break;
    case LN_RT_ACT_LEAKYRELU: ln_rt_leakyrelu_f32(y, y, n, alpha); break;
    case LN_RT_ACT_CLIP: ln_rt_clip_f32(y, y, n, alpha, beta); break;
#if !LN_RT_TARGET_IS_CORTEX_M4
    case LN_RT_ACT_SILU: ln_rt_silu_f32(y, y, n); break;
    case LN_RT_ACT_HARDSWISH: ln_rt_hardswish_f32(y, y, n); break;
#endif
    default:
        for (i = 0; i < n; i++)
            y[i] = ln_rt__act1(y[i], act, alpha, beta);
    }
}

void ln_rt_relu_f32(const float *x, float *y, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void ln_rt_leakyrelu_f32(const float *x, float *y, size_t n, float alpha)
{
    size_t i;
    for (i = 0; i < n; i++)
        y[i] = x[i] < 0.0f ? x[i] * alpha : x[i];
}

void ln_rt_clip_f32(const float *x, float *y, size_t n, float lo, float hi)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float v = x[i] < lo ? lo : x[i];
        y[i] = v > hi ? hi : v;
    }
}

/* y = x / (1 + |x|) (ONNX Softsign) */
void ln_rt_softsign_f32(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v / (1.0f + (v < 0 ? -v : v));
    }
}

/* ln_rt_clip_f32 with bounds that may come at run time: *lo_t and *hi_t
 * when not NULL (ONNX Clip's min and max inputs computed by the graph) */
void ln_rt_clip_t_f32(const float *x, float *y, size_t n, float lo, float hi, const float *lo_t,
                      const float *hi_t)
{
    ln_rt_clip_f32(x, y, n, lo_t ? *lo_t : lo, hi_t ? *hi_t : hi);
}

void ln_rt_clip_t_f64(const double *x, double *y, size_t n, double lo, double hi,
                      const double *lo_t, const double *hi_t)
{
    double l = lo_t ? *lo_t : lo, h = hi_t ? *hi_t : hi;
    for (size_t i = 0; i < n; i++) {
        double v = x[i] < l ? l : x[i];
        y[i] = v > h ? h : v;
    }
}

/* Integer Clip: a double bound rounded inward and saturated to T (so
 * +-3.4e38, the float defaults, are no bound); NaN is no bound either.
 * (double)TMAX is TMAX rounded up to a power of two for the 64-bit types,
 * so every d below it converts. */
#define LN_RT_CLIP_INT(T, S, TMIN, TMAX)                                          \
    static T clip_lo_##S(double d)                                                \
    {                                                                             \
        d = ceil(d);                                                              \
        return !(d > (double)TMIN) ? TMIN : d >= (double)TMAX ? TMAX : (T)d;      \
    }                                                                             \
    static T clip_hi_##S(double d)                                                \
    {                                                                             \
        d = floor(d);                                                             \
        return !(d < (double)TMAX) ? TMAX : d <= (double)TMIN ? TMIN : (T)d;      \
    }                                                                             \
    void ln_rt_clip_t_##S(const T *x, T *y, size_t n, double lo, double hi,       \
                          const T *lo_t, const T *hi_t)                           \
    {                                                                             \
        T l = lo_t ? *lo_t : clip_lo_##S(lo), h = hi_t ? *hi_t : clip_hi_##S(hi); \
        for (size_t i = 0; i < n; i++) {                                          \
            T v = x[i] < l ? l : x[i];                                            \
            y[i] = v > h ? h : v;                                                 \
        }                                                                         \
    }
LN_RT_CLIP_INT(int8_t, s8, INT8_MIN, INT8_MAX)
LN_RT_CLIP_INT(int16_t, s16, INT16_MIN, INT16_MAX)
LN_RT_CLIP_INT(int32_t, s32, INT32_MIN, INT32_MAX)
LN_RT_CLIP_INT(int64_t, s64, INT64_MIN, INT64_MAX)
LN_RT_CLIP_INT(uint8_t, u8, 0, UINT8_MAX)
LN_RT_CLIP_INT(uint16_t, u16, 0, UINT16_MAX)
LN_RT_CLIP_INT(uint32_t, u32, 0, UINT32_MAX)
LN_RT_CLIP_INT(uint64_t, u64, 0, UINT64_MAX)
