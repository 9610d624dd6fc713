/*
 * norm_f32.c -- normalizations (batch, instance, layer, LRN), float32.
 * Statistics are accumulated in float with two passes (mean, then centered
 * variance), which is what the reference frameworks do for float32 and
 * keeps M4 code single precision.
 */
#include <math.h>
#include "ln_rt_internal.h"

/* batch norm, then relu when relu (x > 0 ? x : 0, ln_rt_relu_f32's): the
 * same values to the bit as the two kernels, in one pass */
static void batchnorm(int32_t n, int32_t c, int32_t hw, float eps, const float *x,
                      const float *scale, const float *bias, const float *mean,
                      const float *var, float *y, int relu)
{
    int32_t b, ch, i;
    for (b = 0; b < n; b++)
        for (ch = 0; ch < c; ch++) {
            float k = scale[ch] / sqrtf(var[ch] + eps);
            float o = bias[ch] - mean[ch] * k;
            size_t base = ((size_t)b * c + ch) * hw;
            if (relu)
                for (i = 0; i < hw; i++) {
                    float v = x[base + i] * k + o;
                    y[base + i] = v > 0.0f ? v : 0.0f;
                }
            else
                for (i = 0; i < hw; i++)
                    y[base + i] = x[base + i] * k + o;
        }
}

void ln_rt_batchnorm_f32(int32_t n, int32_t c, int32_t hw, float eps,
                         const float *x, const float *scale,
                         const float *bias, const float *mean,
                         const float *var, float *y)
{
    batchnorm(n, c, hw, eps, x, scale, bias, mean, var, y, 0);
}

void ln_rt_batchnorm_relu_f32(int32_t n, int32_t c, int32_t hw, float eps,
                              const float *x, const float *scale,
                              const float *bias, const float *mean,
                              const float *var, float *y)
{
    batchnorm(n, c, hw, eps, x, scale, bias, mean, var, y, 1);
}

/* mean and 1/sqrt(var + eps) of one row.  The second pass also sums the
 * deviations, c, which would be 0 but for the rounding of the first mean:
 * m + c/len is the corrected mean and (sum d^2 - c^2/len)/len the
 * corrected variance (Chan, Golub and LeVeque's two-pass algorithm).  A
 * row of equal values then has its value as the mean and variance 0, where
 * the plain two-pass form leaves a rounding error that 1/sqrt(eps) blows up
 * (an instance norm of a constant row: a LogSoftmax over equal inputs). */
static void row_stats(const float *x, int32_t len, float eps, float *mean,
                      float *inv)
{
    float s = 0.0f, v = 0.0f, c = 0.0f, m;
    int32_t i;
    for (i = 0; i < len; i++)
        s += x[i];
    m = len > 0 ? s / (float)len : 0.0f;
    for (i = 0; i < len; i++) {
        float d = x[i] - m;
        c += d;
        v += d * d;
    }
    if (len > 0) {
        m += c / (float)len;
        v = (v - c * c / (float)len) / (float)len;
    }
    *mean = m;
    *inv = 1.0f / sqrtf((v > 0.0f ? v : 0.0f) + eps);
}

void ln_rt_instancenorm_f32(int32_t n, int32_t c, int32_t hw, float eps,
                            const float *x, const float *scale,
                            const float *bias, float *y)
{
    int32_t b, ch, i;
    for (b = 0; b < n; b++)
        for (ch = 0; ch < c; ch++) {
            size_t base = ((size_t)b * c + ch) * hw;
            float m, inv, k;
            row_stats(x + base, hw, eps, &m, &inv);
            k = scale[ch] * inv;
            /* centre first: x * k + (bias - m * k) cancels when |m| is large
             * against the spread (a LogSoftmax's output), (x - m) does not */
            for (i = 0; i < hw; i++)
                y[base + i] = (x[base + i] - m) * k + bias[ch];
        }
}

void ln_rt_layernorm_stats_f32(int32_t outer, int32_t inner, float eps,
                               const float *x, const float *scale,
                               const float *bias, float *y, float *mean,
                               float *inv_std_dev)
{
    int32_t r, i;
    for (r = 0; r < outer; r++) {
        const float *xr = x + (size_t)r * inner;
        float *yr = y + (size_t)r * inner;
        float m, inv;
        row_stats(xr, inner, eps, &m, &inv);
        if (mean)
            mean[r] = m;
        if (inv_std_dev)
            inv_std_dev[r] = inv;
        for (i = 0; i < inner; i++) {
            float v = (xr[i] - m) * inv * scale[i];
            yr[i] = bias ? v + bias[i] : v;
        }
    }
}

void ln_rt_layernorm_f32(int32_t outer, int32_t inner, float eps,
                         const float *x, const float *scale,
                         const float *bias, float *y)
{
    ln_rt_layernorm_stats_f32(outer, inner, eps, x, scale, bias, y, NULL, NULL);
}

void ln_rt_lrn_f32(int32_t n, int32_t c, int32_t hw, int32_t size,
                   float alpha, float beta, float bias, const float *x,
                   float *y)
{
    int32_t b, ch, j, i, lo_off = (size - 1) / 2, hi_off = size / 2;
    for (b = 0; b < n; b++)
        for (ch = 0; ch < c; ch++) {
            int32_t lo = ch - lo_off < 0 ? 0 : ch - lo_off;
            int32_t hi = ch + hi_off > c - 1 ? c - 1 : ch + hi_off;
            const float *xb = x + (size_t)b * c * hw;
            float *yr = y + ((size_t)b * c + ch) * hw;
            for (i = 0; i < hw; i++) {
                float s = 0.0f;
                for (j = lo; j <= hi; j++) {
                    float v = xb[(size_t)j * hw + i];
                    s += v * v;
                }
                yr[i] = xb[(size_t)ch * hw + i] /
                        powf(bias + alpha / (float)size * s, beta);
            }
        }
}
