/*
 * quant.c -- quantize float32 to int8 / uint8 and dequantize int8, uint8,
 * int32 to float32, per tensor or per axis (ONNX QuantizeLinear and
 * DequantizeLinear; ln_rt.h).  Rounding is half to even (rintf in the
 * default rounding mode), as ONNX says.
 */
#include <math.h>
#include "ln_rt_internal.h"

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
                    float v = rintf(x[i] / s) + z;                                 \
                    y[i] = (T)(v < (LO) ? (LO) : v > (HI) ? (HI) : v);             \
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
