/*
 * softmax_f32.c -- softmax and log-softmax along one axis, float32: x is
 * viewed as [outer][len][inner]; the maximum is subtracted before exp.
 */
#include <math.h>
#include "ln_rt_internal.h"

static void softmax(int32_t outer, int32_t len, int32_t inner,
                    const float *x, float *y, int log_mode)
{
    int32_t o, j, i;
    for (o = 0; o < outer; o++) {
        const float *xb = x + (size_t)o * len * inner;
        float *yb = y + (size_t)o * len * inner;
        for (j = 0; j < inner; j++) {
            float m = -INFINITY, s = 0.0f;
            for (i = 0; i < len; i++) {
                float v = xb[(size_t)i * inner + j];
                m = v > m ? v : m;
            }
            for (i = 0; i < len; i++) {
                float e = ln_rt__expf(xb[(size_t)i * inner + j] - m);
                if (!log_mode)
                    yb[(size_t)i * inner + j] = e;
                s += e;
            }
            if (log_mode) {
                /* (x - m) - log(s), not x - (log(s) + m): at |x| ~ 1e4 the
                 * sum m + log(s) rounds away log(s)'s low bits */
                float ls = logf(s);
                for (i = 0; i < len; i++)
                    yb[(size_t)i * inner + j] = (xb[(size_t)i * inner + j] - m) - ls;
            } else {
                float r = 1.0f / s;
                for (i = 0; i < len; i++)
                    yb[(size_t)i * inner + j] *= r;
            }
        }
    }
}

void ln_rt_softmax_f32(int32_t outer, int32_t len, int32_t inner,
                       const float *x, float *y)
{
    softmax(outer, len, inner, x, y, 0);
}

void ln_rt_logsoftmax_f32(int32_t outer, int32_t len, int32_t inner,
                          const float *x, float *y)
{
    softmax(outer, len, inner, x, y, 1);
}

/* 1 at the first maximum along len, 0 elsewhere (ONNX Hardmax) */
void ln_rt_hardmax_f32(int32_t outer, int32_t len, int32_t inner, const float *x, float *y)
{
    for (int32_t o = 0; o < outer; o++)
        for (int32_t j = 0; j < inner; j++) {
            const float *xb = x + (size_t)o * len * inner + j;
            float *yb = y + (size_t)o * len * inner + j;
            int32_t best = 0;
            for (int32_t i = 1; i < len; i++)
                if (xb[(size_t)i * inner] > xb[(size_t)best * inner])
                    best = i;
            for (int32_t i = 0; i < len; i++)
                yb[(size_t)i * inner] = i == best ? 1.0f : 0.0f;
        }
}

void ln_rt_lpnorm_f32(int32_t outer, int32_t len, int32_t inner, int p, const float *x, float *y)
{
    for (int32_t o = 0; o < outer; o++)
        for (int32_t j = 0; j < inner; j++) {
            const float *xb = x + (size_t)o * len * inner + j;
            float *yb = y + (size_t)o * len * inner + j;
            double norm = 0.0;
            for (int32_t i = 0; i < len; i++) {
                double v = xb[(size_t)i * inner];
                norm += p == 1 ? (v < 0 ? -v : v) : v * v;
            }
            if (p != 1)
                norm = sqrt(norm);
            if (norm == 0.0)
                norm = INFINITY;                 /* a zero slice gives 0 */
            for (int32_t i = 0; i < len; i++)
                yb[(size_t)i * inner] = (float)(xb[(size_t)i * inner] / norm);
        }
}
