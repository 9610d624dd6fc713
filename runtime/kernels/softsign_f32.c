/*
 * softsign_f32.c -- y = x / (1 + |x|), elementwise (ONNX Softsign).
 */
#include "ln_rt.h"

void ln_rt_softsign_f32(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v / (1.0f + (v < 0 ? -v : v));
    }
}
