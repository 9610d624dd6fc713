/*
 * conv2d_s8.c -- int8 convolutions with TensorFlow Lite's arithmetic, NHWC
 * (ln_rt.h): standard and grouped, depthwise (any channel multiplier),
 * transposed; standard and grouped on NCHW too.  The accumulator is int32:
 * sum over the taps inside the input of (x + input_offset) * w, plus the bias, then requantized per output
 * channel, offset by the output zero point and clamped.  Taps in the
 * padding add nothing (the input's zero point is what padding holds).
 */
#include "ln_rt_internal.h"

int32_t ln_rt_s8_requantize(int32_t acc, int32_t mult, int32_t shift)
{
    return ln_rt__requant(acc, mult, shift);
}

static int conv_s8_ok(const ln_rt_s8_conv_args *a)
{
    return a->n >= 0 && a->h >= 0 && a->w >= 0 && a->c > 0 && a->oh >= 0 && a->ow >= 0 &&
           a->oc > 0 && a->kh > 0 && a->kw > 0 && a->stride_h > 0 && a->stride_w > 0 &&
           a->dil_h > 0 && a->dil_w > 0 && a->act_min <= a->act_max;
}

static int8_t finish(int32_t acc, const ln_rt_s8_conv_args *a, const int32_t *bias,
                     const int32_t *mult, const int32_t *shift, int32_t o)
{
    if (bias)
        acc += bias[o];
    acc = ln_rt__requant(acc, mult[o], shift[o]) + a->output_offset;
    return ln_rt__clamp_s8(acc, a->act_min, a->act_max);
}

int ln_rt_conv2d_s8(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                    const int32_t *bias, const int32_t *mult, const int32_t *shift,
                    int8_t *dst)
{
    int32_t groups = a->group > 0 ? a->group : 1, cg, og;

    if (!conv_s8_ok(a) || a->c % groups != 0 || a->oc % groups != 0)
        return LN_RT_ARG_ERROR;
    cg = a->c / groups;
    og = a->oc / groups;
    for (int32_t b = 0; b < a->n; b++)
        for (int32_t oy = 0; oy < a->oh; oy++)
            for (int32_t ox = 0; ox < a->ow; ox++) {
                int32_t iy0 = oy * a->stride_h - a->pad_top;
                int32_t ix0 = ox * a->stride_w - a->pad_left;
                int8_t *out = dst + (((size_t)b * a->oh + oy) * a->ow + ox) * a->oc;
                for (int32_t o = 0; o < a->oc; o++) {
                    const int8_t *wo = weight + (size_t)o * a->kh * a->kw * cg;
                    int32_t c0 = (o / og) * cg, acc = 0;
                    for (int32_t ky = 0; ky < a->kh; ky++) {
                        int32_t iy = iy0 + ky * a->dil_h;
                        if (iy < 0 || iy >= a->h)
                            continue;
                        for (int32_t kx = 0; kx < a->kw; kx++) {
                            int32_t ix = ix0 + kx * a->dil_w;
                            const int8_t *in, *wk;
                            if (ix < 0 || ix >= a->w)
                                continue;
                            in = src + (((size_t)b * a->h + iy) * a->w + ix) * a->c + c0;
                            wk = wo + ((size_t)ky * a->kw + kx) * cg;
                            for (int32_t i = 0; i < cg; i++)
                                acc += ((int32_t)in[i] + a->input_offset) * wk[i];
                        }
                    }
                    out[o] = finish(acc, a, bias, mult, shift, o);
                }
            }
    return LN_RT_OK;
}

/* The same convolution on NCHW tensors with ONNX's weight layout
 * [oc][c/group][kh][kw]: what a QDQ model's Conv becomes (the graph stays
 * NCHW).  Integer sums do not depend on their order, so it agrees with
 * ln_rt_conv2d_s8 bit for bit on transposed data.  Up to NCHW_OC output
 * channels of a group at a time, each output row in pieces of up to
 * NCHW_ROW pixels, are accumulated on the stack (512 bytes), tap by tap:
 * the inner loop runs along a contiguous input row (stride 1) and feeds
 * the NCHW_OC channels from one load, and the taps that fall into the
 * padding are cut off once per row, not tested per pixel.  A pointwise
 * conv treats each plane as one row.  No scratch. */
#define NCHW_ROW 32
#define NCHW_OC 4

/* The outputs i in [*lo, *hi) of a row piece whose tap reads input column
 * ix0 + i * stride, inside [0, w). */
static void tap_range(int32_t ix0, int32_t stride, int32_t w, int32_t n, int32_t *lo,
                      int32_t *hi)
{
    *lo = ix0 >= 0 ? 0 : (-ix0 + stride - 1) / stride;
    *hi = ix0 > w - 1 ? 0 : (w - 1 - ix0) / stride + 1;
    if (*hi > n)
        *hi = n;
    if (*lo > *hi)
        *lo = *hi;
}

/* One tap of NCHW_OC channels (weights w[0..3]) over inputs p[0, m) at
 * stride s into acc[k][0, m). */
static void tap4(const int8_t *p, int32_t s, int32_t m, int32_t off, const int32_t *w,
                 int32_t (*acc)[NCHW_ROW], int32_t lo)
{
    int32_t *q0 = acc[0] + lo, *q1 = acc[1] + lo, *q2 = acc[2] + lo, *q3 = acc[3] + lo;

    for (int32_t i = 0; i < m; i++) {
        int32_t xv = (int32_t)p[i * s] + off;
        q0[i] += xv * w[0];
        q1[i] += xv * w[1];
        q2[i] += xv * w[2];
        q3[i] += xv * w[3];
    }
}

static void conv_row_nchw(const ln_rt_s8_conv_args *a, const int8_t *x0, const int8_t *wo,
                          int32_t cg, int32_t nb, int32_t oy, int32_t ox0, int32_t n,
                          int32_t (*acc)[NCHW_ROW])
{
    size_t plane = (size_t)a->h * a->w, kk = (size_t)a->kh * a->kw, ws = (size_t)cg * kk;
    int32_t off = a->input_offset, s = a->stride_w;

    for (int32_t ic = 0; ic < cg; ic++) {
        const int8_t *x = x0 + (size_t)ic * plane, *wk = wo + (size_t)ic * kk;
        for (int32_t ky = 0; ky < a->kh; ky++) {
            int32_t iy = oy * a->stride_h - a->pad_top + ky * a->dil_h;
            const int8_t *xr;
            if (iy < 0 || iy >= a->h)
                continue;
            xr = x + (size_t)iy * a->w;
            for (int32_t kx = 0; kx < a->kw; kx++) {
                int32_t ix0 = ox0 * s - a->pad_left + kx * a->dil_w, lo, hi, w4[NCHW_OC];
                const int8_t *p;
                size_t t = (size_t)ky * a->kw + kx;
                tap_range(ix0, s, a->w, n, &lo, &hi);
                if (lo >= hi)
                    continue;
                p = xr + ix0 + lo * s;
                if (nb == NCHW_OC) {
                    for (int k = 0; k < NCHW_OC; k++)
                        w4[k] = wk[k * ws + t];
                    tap4(p, s, hi - lo, off, w4, acc, lo);
                    continue;
                }
                for (int32_t k = 0; k < nb; k++) {
                    int32_t wv = wk[k * ws + t], *q = acc[k] + lo;
                    if (wv == 0)
                        continue;
                    for (int32_t i = 0; i < hi - lo; i++)
                        q[i] += ((int32_t)p[i * s] + off) * wv;
                }
            }
        }
    }
}

size_t ln_rt_conv2d_nchw_s8_scratch_size_for(ln_rt_target t, const ln_rt_s8_conv_args *a)
{
    int32_t groups = a->group > 0 ? a->group : 1;
    size_t cols;

    if (t != LN_RT_TARGET_CORTEX_M4 || !conv_s8_ok(a) || a->c % groups != 0 ||
        ln_rt__s8_is_dw3x3(a))
        return 0;
    cols = ln_rt__s8_cols_bytes(a);
    if (cols <= LN_RT_S8_DSP_STACK)
        return 0;
    return ln_rt__s8_is_1x1(a) ? cols : cols + cols / 4;   /* + one pixel's int8 taps */
}

size_t ln_rt_conv2d_nchw_s8_scratch_size(const ln_rt_s8_conv_args *a)
{
    return ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_THIS, a);
}

int ln_rt_conv2d_nchw_s8(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                         const int32_t *bias, const int32_t *mult, const int32_t *shift,
                         int8_t *dst, void *scratch)
{
    int32_t groups = a->group > 0 ? a->group : 1, cg, og, acc[NCHW_OC][NCHW_ROW];
    size_t ohw;
    ln_rt_s8_conv_args flat;

    if (!conv_s8_ok(a) || a->c % groups != 0 || a->oc % groups != 0)
        return LN_RT_ARG_ERROR;
#if LN_RT_HAVE_DSP
    if (ln_rt__conv2d_nchw_s8_dsp(a, src, weight, bias, mult, shift, dst, scratch))
        return LN_RT_OK;
#else
    (void)scratch;
#endif
    if (a->kh == 1 && a->kw == 1 && a->stride_h == 1 && a->stride_w == 1 && a->pad_top == 0 &&
        a->pad_left == 0 && a->oh == a->h && a->ow == a->w) {
        flat = *a;      /* pointwise: each plane is one long row */
        flat.w = flat.ow = a->h * a->w;
        flat.h = flat.oh = 1;
        a = &flat;
    }
    cg = a->c / groups;
    og = a->oc / groups;
    ohw = (size_t)a->oh * a->ow;
    for (int32_t b = 0; b < a->n; b++)
        for (int32_t g = 0; g < groups; g++) {
            const int8_t *x0 = src + ((size_t)b * a->c + (size_t)g * cg) * a->h * a->w;
            for (int32_t o0 = g * og, nb; o0 < (g + 1) * og; o0 += nb) {
                const int8_t *wo = weight + (size_t)o0 * cg * a->kh * a->kw;
                int8_t *out = dst + ((size_t)b * a->oc + o0) * ohw;
                nb = (g + 1) * og - o0 < NCHW_OC ? (g + 1) * og - o0 : NCHW_OC;
                for (int32_t oy = 0; oy < a->oh; oy++)
                    for (int32_t ox0 = 0; ox0 < a->ow; ox0 += NCHW_ROW) {
                        int32_t n = a->ow - ox0 < NCHW_ROW ? a->ow - ox0 : NCHW_ROW;
                        for (int32_t k = 0; k < nb; k++)
                            for (int32_t i = 0; i < n; i++)
                                acc[k][i] = bias ? bias[o0 + k] : 0;
                        conv_row_nchw(a, x0, wo, cg, nb, oy, ox0, n, acc);
                        for (int32_t k = 0; k < nb; k++) {
                            int8_t *orow = out + (size_t)k * ohw + (size_t)oy * a->ow + ox0;
                            for (int32_t i = 0; i < n; i++)
                                orow[i] = finish(acc[k][i], a, NULL, mult, shift, o0 + k);
                        }
                    }
            }
        }
    return LN_RT_OK;
}

int ln_rt_conv2d_depthwise_s8(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias,
                              const int32_t *mult, const int32_t *shift, int8_t *dst)
{
    int32_t m = a->ch_mult > 0 ? a->ch_mult : 1;

    if (!conv_s8_ok(a) || a->oc != a->c * m)
        return LN_RT_ARG_ERROR;
    for (int32_t b = 0; b < a->n; b++)
        for (int32_t oy = 0; oy < a->oh; oy++)
            for (int32_t ox = 0; ox < a->ow; ox++) {
                int32_t iy0 = oy * a->stride_h - a->pad_top;
                int32_t ix0 = ox * a->stride_w - a->pad_left;
                int8_t *out = dst + (((size_t)b * a->oh + oy) * a->ow + ox) * a->oc;
                for (int32_t o = 0; o < a->oc; o++) {
                    int32_t ic = o / m, acc = 0;
                    for (int32_t ky = 0; ky < a->kh; ky++) {
                        int32_t iy = iy0 + ky * a->dil_h;
                        if (iy < 0 || iy >= a->h)
                            continue;
                        for (int32_t kx = 0; kx < a->kw; kx++) {
                            int32_t ix = ix0 + kx * a->dil_w;
                            if (ix < 0 || ix >= a->w)
                                continue;
                            acc += ((int32_t)src[(((size_t)b * a->h + iy) * a->w + ix) * a->c + ic] +
                                    a->input_offset) *
                                   weight[((size_t)ky * a->kw + kx) * a->oc + o];
                        }
                    }
                    out[o] = finish(acc, a, bias, mult, shift, o);
                }
            }
    return LN_RT_OK;
}

size_t ln_rt_conv_transpose2d_s8_scratch_size(const ln_rt_s8_conv_args *a)
{
    return (size_t)a->oh * (size_t)a->ow * (size_t)a->oc * sizeof(int32_t);
}

/* Each input pixel scatters into the outputs its taps reach: output
 * (iy * stride + ky * dil - pad_top, ...) gets (x + input_offset) * w. */
int ln_rt_conv_transpose2d_s8(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias,
                              const int32_t *mult, const int32_t *shift, int8_t *dst,
                              void *scratch)
{
    int32_t *acc = scratch;
    size_t per = (size_t)a->oh * a->ow * a->oc;

    if (!conv_s8_ok(a) || !scratch)
        return LN_RT_ARG_ERROR;
    for (int32_t b = 0; b < a->n; b++) {
        const int8_t *xb = src + (size_t)b * a->h * a->w * a->c;
        int8_t *yb = dst + (size_t)b * per;
        for (size_t i = 0; i < per; i++)
            acc[i] = 0;
        for (int32_t iy = 0; iy < a->h; iy++)
            for (int32_t ix = 0; ix < a->w; ix++) {
                const int8_t *in = xb + ((size_t)iy * a->w + ix) * a->c;
                for (int32_t ky = 0; ky < a->kh; ky++) {
                    int32_t oy = iy * a->stride_h + ky * a->dil_h - a->pad_top;
                    if (oy < 0 || oy >= a->oh)
                        continue;
                    for (int32_t kx = 0; kx < a->kw; kx++) {
                        int32_t ox = ix * a->stride_w + kx * a->dil_w - a->pad_left;
                        int32_t *out;
                        if (ox < 0 || ox >= a->ow)
                            continue;
                        out = acc + ((size_t)oy * a->ow + ox) * a->oc;
                        for (int32_t o = 0; o < a->oc; o++) {
                            const int8_t *wk = weight + (((size_t)o * a->kh + ky) * a->kw + kx) * a->c;
                            int32_t s = 0;
                            for (int32_t i = 0; i < a->c; i++)
                                s += ((int32_t)in[i] + a->input_offset) * wk[i];
                            out[o] += s;
                        }
                    }
                }
            }
        for (size_t i = 0; i < per; i++)
            yb[i] = finish(acc[i], a, bias, mult, shift, (int32_t)(i % (size_t)a->oc));
    }
    return LN_RT_OK;
}
