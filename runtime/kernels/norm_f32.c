/*
 * norm_f32.c -- normalizations (batch, instance, layer, LRN), reductions,
 * softmax / log-softmax and argmax, float32. Statistics are accumulated in
 * float with two passes (mean, then centered variance), which is what the
 * reference frameworks do for float32 and keeps M4 code single precision.
 */
#include <math.h>
#include "ln_rt_internal.h"

void ln_rt_batchnorm_f32(int32_t n, int32_t c, int32_t hw, float eps,
                         const float *x, const float *scale,
                         const float *bias, const float *mean,
                         const float *var, float *y)
{
    int32_t b, ch, i;
    for (b = 0; b < n; b++)
        for (ch = 0; ch < c; ch++) {
            float k = scale[ch] / sqrtf(var[ch] + eps);
            float o = bias[ch] - mean[ch] * k;
            size_t base = ((size_t)b * c + ch) * hw;
            for (i = 0; i < hw; i++)
                y[base + i] = x[base + i] * k + o;
        }
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

/* ---- reductions -------------------------------------------------------- */
enum { RED_SUM, RED_MEAN, RED_MAX, RED_MIN };

static void reduce(const ln_rt_reduce_args *a, const float *x, float *y,
                   int op)
{
    ptrdiff_t yst[LN_RT_MAX_DIMS], s = 1, yi = 0;
    int32_t cnt[LN_RT_MAX_DIMS] = {0}, len, i;
    size_t ny = 1, nred = 1, q;
    int nd = a->ndim, d;
    float init = op == RED_MAX ? -INFINITY : op == RED_MIN ? INFINITY : 0.0f;

    for (d = nd - 1; d >= 0; d--) {
        if (a->dims[d] == 0)
            return;
        if (a->axes_mask & (1u << d)) {
            yst[d] = 0;
            nred *= (size_t)a->dims[d];
        } else {
            yst[d] = s;
            s *= a->dims[d];
            ny *= (size_t)a->dims[d];
        }
    }
    for (q = 0; q < ny; q++)
        y[q] = init;
    if (nd == 0) {
        y[0] = x[0];
        return;
    }
    len = a->dims[nd - 1];
    for (;;) {
        float *yp = y + yi;
        if (yst[nd - 1] == 0) {
            float acc = *yp;
            for (i = 0; i < len; i++) {
                float v = x[i];
                if (op == RED_MAX)
                    acc = v > acc ? v : acc;
                else if (op == RED_MIN)
                    acc = v < acc ? v : acc;
                else
                    acc += v;
            }
            *yp = acc;
        } else {
            for (i = 0; i < len; i++) {
                float v = x[i];
                if (op == RED_MAX)
                    yp[i] = v > yp[i] ? v : yp[i];
                else if (op == RED_MIN)
                    yp[i] = v < yp[i] ? v : yp[i];
                else
                    yp[i] += v;
            }
        }
        x += len;
        for (d = nd - 2; d >= 0; d--) {
            yi += yst[d];
            if (++cnt[d] < a->dims[d])
                break;
            yi -= yst[d] * a->dims[d];
            cnt[d] = 0;
        }
        if (d < 0)
            break;
    }
    if (op == RED_MEAN)
        for (q = 0; q < ny; q++)
            y[q] /= (float)nred;
}

void ln_rt_reduce_sum_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y)
{
    reduce(a, x, y, RED_SUM);
}

void ln_rt_reduce_mean_f32(const ln_rt_reduce_args *a, const float *x,
                           float *y)
{
    reduce(a, x, y, RED_MEAN);
}

void ln_rt_reduce_max_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y)
{
    reduce(a, x, y, RED_MAX);
}

void ln_rt_reduce_min_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y)
{
    reduce(a, x, y, RED_MIN);
}

/* ---- softmax ----------------------------------------------------------- */
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

void ln_rt_argmax_f32(int32_t outer, int32_t len, int32_t inner,
                      int select_last_index, const float *x, int64_t *y)
{
    int32_t o, j, i;
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            const float *xb = x + (size_t)o * len * inner + j;
            int32_t best = 0;
            for (i = 1; i < len; i++) {
                float v = xb[(size_t)i * inner], b = xb[(size_t)best * inner];
                if (v > b || (select_last_index && v == b))
                    best = i;
            }
            y[(size_t)o * inner + j] = best;
        }
}
