/*
 * pool_f32.c -- 2-D max and average pooling, global pooling, NCHW float32.
 * The caller gives the output extent (ceil mode and auto_pad are decided in
 * shape inference); a window is clipped to the input for the data it reads.
 * The average divisor is, per axis, the number of window taps inside the
 * padded input (count_include_pad) or inside the input (otherwise) -- the
 * PyTorch rule, which also covers windows that ceil mode pushes past the
 * end padding.
 */
#include <math.h>
#include "ln_rt_internal.h"

static int pool_args_ok(const ln_rt_pool2d_args *a)
{
    return a->n >= 0 && a->c >= 0 && a->h > 0 && a->w > 0 && a->oh >= 0 &&
           a->ow >= 0 && a->kh > 0 && a->kw > 0 && a->stride_h > 0 &&
           a->stride_w > 0 && a->dil_h > 0 && a->dil_w > 0 &&
           a->pad_top >= 0 && a->pad_left >= 0 && a->pad_bottom >= 0 &&
           a->pad_right >= 0;
}

/* taps [lo, hi) of a window starting at s0 that land inside [0, n) */
static void tap_range(int32_t s0, int32_t k, int32_t d, int32_t n,
                      int32_t *lo, int32_t *hi)
{
    int32_t l = s0 >= 0 ? 0 : (-s0 + d - 1) / d;
    int32_t h = n - s0 <= 0 ? 0 : (n - 1 - s0) / d + 1;
    if (h > k)
        h = k;
    if (l > h)
        l = h;
    *lo = l;
    *hi = h;
}

int ln_rt_maxpool2d_f32(const ln_rt_pool2d_args *a, const float *x, float *y)
{
    int32_t oy, ox, ky, kx, ylo, yhi, xlo, xhi;
    size_t planes, hw = (size_t)a->h * a->w, q;

    if (!pool_args_ok(a))
        return LN_RT_ARG_ERROR;
    planes = (size_t)a->n * a->c;
    for (q = 0; q < planes; q++) {
        const float *in = x + q * hw;
        for (oy = 0; oy < a->oh; oy++) {
            int32_t y0 = oy * a->stride_h - a->pad_top;
            tap_range(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
            for (ox = 0; ox < a->ow; ox++) {
                int32_t x0 = ox * a->stride_w - a->pad_left;
                float m = -INFINITY;
                tap_range(x0, a->kw, a->dil_w, a->w, &xlo, &xhi);
                for (ky = ylo; ky < yhi; ky++) {
                    const float *r = in + (size_t)(y0 + ky * a->dil_h) * a->w;
                    for (kx = xlo; kx < xhi; kx++) {
                        float v = r[x0 + kx * a->dil_w];
                        m = v > m ? v : m;
                    }
                }
                *y++ = m;
            }
        }
    }
    return LN_RT_OK;
}

int ln_rt_avgpool2d_f32(const ln_rt_pool2d_args *a, const float *x, float *y)
{
    int32_t oy, ox, ky, kx, ylo, yhi, xlo, xhi, pylo, pyhi, pxlo, pxhi;
    size_t planes, hw = (size_t)a->h * a->w, q;

    if (!pool_args_ok(a))
        return LN_RT_ARG_ERROR;
    planes = (size_t)a->n * a->c;
    for (q = 0; q < planes; q++) {
        const float *in = x + q * hw;
        for (oy = 0; oy < a->oh; oy++) {
            int32_t y0 = oy * a->stride_h - a->pad_top;
            tap_range(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
            /* padded input is [-pad_top, h + pad_bottom) */
            tap_range(y0 + a->pad_top, a->kh, a->dil_h,
                      a->h + a->pad_top + a->pad_bottom, &pylo, &pyhi);
            for (ox = 0; ox < a->ow; ox++) {
                int32_t x0 = ox * a->stride_w - a->pad_left;
                float s = 0.0f;
                int32_t cnt;
                tap_range(x0, a->kw, a->dil_w, a->w, &xlo, &xhi);
                tap_range(x0 + a->pad_left, a->kw, a->dil_w,
                          a->w + a->pad_left + a->pad_right, &pxlo, &pxhi);
                for (ky = ylo; ky < yhi; ky++) {
                    const float *r = in + (size_t)(y0 + ky * a->dil_h) * a->w;
                    for (kx = xlo; kx < xhi; kx++)
                        s += r[x0 + kx * a->dil_w];
                }
                cnt = a->count_include_pad ? (pyhi - pylo) * (pxhi - pxlo)
                                           : (yhi - ylo) * (xhi - xlo);
                *y++ = cnt > 0 ? s / (float)cnt : 0.0f;
            }
        }
    }
    return LN_RT_OK;
}

void ln_rt_global_avgpool_f32(int32_t nc, int32_t hw, const float *x,
                              float *y)
{
    int32_t q, i;
    for (q = 0; q < nc; q++) {
        const float *in = x + (size_t)q * hw;
        float s = 0.0f;
        for (i = 0; i < hw; i++)
            s += in[i];
        y[q] = hw > 0 ? s / (float)hw : 0.0f;
    }
}

void ln_rt_global_maxpool_f32(int32_t nc, int32_t hw, const float *x,
                              float *y)
{
    int32_t q, i;
    for (q = 0; q < nc; q++) {
        const float *in = x + (size_t)q * hw;
        float m = -INFINITY;
        for (i = 0; i < hw; i++)
            m = in[i] > m ? in[i] : m;
        y[q] = m;
    }
}
