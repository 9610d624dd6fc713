/*
 * quant.c -- quantize float32 to int8 / uint8 and dequantize int8, uint8,
 * int32 to float32, per tensor or per axis (ONNX QuantizeLinear and
 * DequantizeLinear; ln_rt.h).  Rounding is half to even, as ONNX says;
 * NaN quantizes to the zero point.  And ONNX DynamicQuantizeLinear.
 */
#include <math.h>
#include "ln_rt_internal.h"

/* v rounded to the nearest integer, ties to even, for the quantizers: the
 * result is clamped to [-128, 255] after a zero point is added, so values
 * beyond +-2^22 only need to stay beyond; within, adding and subtracting
 * 1.5 * 2^23 rounds in the default rounding mode (IEEE single arithmetic,
 * FLT_EVAL_METHOD 0: SSE, the FPv4 unit), where rintf is a library call
 * of some 40 instructions on a Cortex-M4.  NaN stays NaN. */
static inline float round_even(float v)
{
    const float big = 4194304.0f, magic = 12582912.0f;

    v = v > big ? big : v < -big ? -big : v;
    return (v + magic) - magic;
}

#define QUANTIZE(NAME, T, LO, HI)                                                  \
    void NAME(const ln_rt_quant_args *a, const float *x, const float *scale,       \
              const T *zero_point, T *y)                                          \
    {                                                                              \
        size_t i = 0;                                                              \
        for (int32_t o = 0; o < a->outer; o++)                                     \
            for (int32_t l = 0; l < a->len; l++) {                                 \
                int32_t k = a->per_axis ? l : 0;                                   \
                float s = scale[k];                                                \
                float z = zero_point ? (float)zero_point[k] : 0.0f;                \
                for (int32_t j = 0; j < a->inner; j++, i++) {                      \
                    float v = round_even(x[i] / s) + z;                            \
                    y[i] = (T)(v != v ? z : v < (LO) ? (LO) : v > (HI) ? (HI) : v);\
                }                                                                  \
            }                                                                      \
    }

#define DEQUANTIZE(NAME, T)                                                        \
    void NAME(const ln_rt_quant_args *a, const T *x, const float *scale,           \
              const T *zero_point, float *y)                                      \
    {                                                                              \
        size_t i = 0;                                                              \
        for (int32_t o = 0; o < a->outer; o++)                                     \
            for (int32_t l = 0; l < a->len; l++) {                                 \
                int32_t k = a->per_axis ? l : 0;                                   \
                int64_t z = zero_point ? (int64_t)zero_point[k] : 0;               \
                for (int32_t j = 0; j < a->inner; j++, i++)                        \
                    y[i] = (float)((int64_t)x[i] - z) * scale[k];                  \
            }                                                                      \
    }

QUANTIZE(ln_rt_quantize_s8, int8_t, -128.0f, 127.0f)
QUANTIZE(ln_rt_quantize_u8, uint8_t, 0.0f, 255.0f)
DEQUANTIZE(ln_rt_dequantize_s8, int8_t)
DEQUANTIZE(ln_rt_dequantize_u8, uint8_t)
DEQUANTIZE(ln_rt_dequantize_s32, int32_t)

/* ONNX DynamicQuantizeLinear: the uint8 scale and zero point of x's range
 * widened to hold 0, then x quantized with them.  An all-zero x has scale
 * 0: zero point 0 and y all 0.  NaNs are left out of the range. */
void ln_rt_dynamic_quantize_u8(const float *x, size_t n, uint8_t *y, float *scale,
                               uint8_t *zero_point)
{
    float lo = 0.0f, hi = 0.0f, s, zf;
    uint8_t z;

    for (size_t i = 0; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
    }
    s = (hi - lo) / 255.0f;
    if (!(s > 0.0f) || !isfinite(s)) {
        *scale = s == s ? s : 0.0f;
        *zero_point = 0;
        for (size_t i = 0; i < n; i++)
            y[i] = 0;
        return;
    }
    zf = rintf(0.0f - lo / s);
    z = (uint8_t)(zf < 0.0f ? 0.0f : zf > 255.0f ? 255.0f : zf);
    *scale = s;
    *zero_point = z;
    for (size_t i = 0; i < n; i++) {
        float v = round_even(x[i] / s) + (float)z;
        y[i] = (uint8_t)(v != v ? z : v < 0.0f ? 0.0f : v > 255.0f ? 255.0f : v);
    }
}
