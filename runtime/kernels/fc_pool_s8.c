/*
 * fc_pool_s8.c -- int8 fully connected, pooling and requantization with
 * TensorFlow Lite's arithmetic (ln_rt.h).
 */
#include "ln_rt_internal.h"

int ln_rt_fully_connected_s8(const ln_rt_s8_fc_args *a, const int8_t *src,
                             const int8_t *weight, const int32_t *bias,
                             const int32_t *mult, const int32_t *shift, int8_t *dst)
{
    if (a->batches < 0 || a->in < 0 || a->out <= 0 || a->act_min > a->act_max)
        return LN_RT_ARG_ERROR;
#if LN_RT_HAVE_DSP
    if (ln_rt__fc_s8_dsp(a, src, weight, bias, mult, shift, dst))
        return LN_RT_OK;
#endif
    for (int32_t b = 0; b < a->batches; b++) {
        const int8_t *x = src + (size_t)b * a->in;
        for (int32_t o = 0; o < a->out; o++) {
            const int8_t *w = weight + (size_t)o * a->in;
            int32_t acc = bias ? bias[o] : 0, k = a->per_channel ? o : 0;
            for (int32_t i = 0; i < a->in; i++)
                acc += ((int32_t)x[i] + a->input_offset) * ((int32_t)w[i] + a->filter_offset);
            acc = ln_rt__requant(acc, mult[k], shift[k]) + a->output_offset;
            dst[(size_t)b * a->out + o] = ln_rt__clamp_s8(acc, a->act_min, a->act_max);
        }
    }
    return LN_RT_OK;
}

/* The window of output (oy, ox) clipped to the input: [y0, y1) x [x0, x1). */
static void window(const ln_rt_s8_pool_args *a, int32_t oy, int32_t ox, int32_t *y0,
                   int32_t *y1, int32_t *x0, int32_t *x1)
{
    int32_t sy = oy * a->stride_h - a->pad_top, sx = ox * a->stride_w - a->pad_left;

    *y0 = sy < 0 ? 0 : sy;
    *y1 = sy + a->kh < a->h ? sy + a->kh : a->h;
    *x0 = sx < 0 ? 0 : sx;
    *x1 = sx + a->kw < a->w ? sx + a->kw : a->w;
}

void ln_rt_avgpool2d_nhwc_s8(const ln_rt_s8_pool_args *a, const int8_t *src, int8_t *dst)
{
    for (int32_t b = 0; b < a->n; b++)
        for (int32_t oy = 0; oy < a->oh; oy++)
            for (int32_t ox = 0; ox < a->ow; ox++) {
                int32_t y0, y1, x0, x1;
                int8_t *out = dst + (((size_t)b * a->oh + oy) * a->ow + ox) * a->c;
                window(a, oy, ox, &y0, &y1, &x0, &x1);
                for (int32_t ch = 0; ch < a->c; ch++) {
                    int32_t sum = 0, count = (y1 - y0) * (x1 - x0), avg;
                    for (int32_t y = y0; y < y1; y++)
                        for (int32_t x = x0; x < x1; x++)
                            sum += src[(((size_t)b * a->h + y) * a->w + x) * a->c + ch];
                    if (count == 0) {
                        avg = 0;
                    } else {
                        /* rounded half away from zero, as TFLite */
                        avg = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
                    }
                    out[ch] = ln_rt__clamp_s8(avg, a->act_min, a->act_max);
                }
            }
}

void ln_rt_maxpool2d_nhwc_s8(const ln_rt_s8_pool_args *a, const int8_t *src, int8_t *dst)
{
    for (int32_t b = 0; b < a->n; b++)
        for (int32_t oy = 0; oy < a->oh; oy++)
            for (int32_t ox = 0; ox < a->ow; ox++) {
                int32_t y0, y1, x0, x1;
                int8_t *out = dst + (((size_t)b * a->oh + oy) * a->ow + ox) * a->c;
                window(a, oy, ox, &y0, &y1, &x0, &x1);
                for (int32_t ch = 0; ch < a->c; ch++) {
                    int32_t m = -128;
                    for (int32_t y = y0; y < y1; y++)
                        for (int32_t x = x0; x < x1; x++) {
                            int32_t v = src[(((size_t)b * a->h + y) * a->w + x) * a->c + ch];
                            m = v > m ? v : m;
                        }
                    out[ch] = ln_rt__clamp_s8(m, a->act_min, a->act_max);
                }
            }
}

/* NCHW pooling of int8 tensors that share one scale and zero point in
 * and out (ln_rt_pool2d_args, the float kernels' windows): the maximum,
 * or the average rounded half away from zero (TFLite's int8 average
 * pool).  With count_include_pad the padded taps count as 0. */
static int pool2d_s8(const ln_rt_pool2d_args *a, const int8_t *x, int8_t *y, int is_max)
{
    size_t planes, hw;

    if (!ln_rt__pool_args_ok(a))
        return LN_RT_ARG_ERROR;
    planes = (size_t)a->n * a->c;
    hw = (size_t)a->h * a->w;
    for (size_t q = 0; q < planes; q++) {
        const int8_t *in = x + q * hw;
        for (int32_t oy = 0; oy < a->oh; oy++) {
            int32_t y0 = oy * a->stride_h - a->pad_top, ylo, yhi, pylo, pyhi;
            ln_rt__pool_taps(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
            ln_rt__pool_taps(y0 + a->pad_top, a->kh, a->dil_h, a->h + a->pad_top + a->pad_bottom,
                             &pylo, &pyhi);
            for (int32_t ox = 0; ox < a->ow; ox++) {
                int32_t x0 = ox * a->stride_w - a->pad_left, xlo, xhi, pxlo, pxhi, cnt;
                int32_t acc = is_max ? -128 : 0;
                ln_rt__pool_taps(x0, a->kw, a->dil_w, a->w, &xlo, &xhi);
                for (int32_t ky = ylo; ky < yhi; ky++) {
                    const int8_t *r = in + (size_t)(y0 + ky * a->dil_h) * a->w;
                    for (int32_t kx = xlo; kx < xhi; kx++) {
                        int32_t v = r[x0 + kx * a->dil_w];
                        acc = is_max ? (v > acc ? v : acc) : acc + v;
                    }
                }
                if (!is_max) {
                    ln_rt__pool_taps(x0 + a->pad_left, a->kw, a->dil_w,
                                     a->w + a->pad_left + a->pad_right, &pxlo, &pxhi);
                    cnt = a->count_include_pad ? (pyhi - pylo) * (pxhi - pxlo)
                                               : (yhi - ylo) * (xhi - xlo);
                    acc = cnt == 0 ? 0 : acc > 0 ? (acc + cnt / 2) / cnt : (acc - cnt / 2) / cnt;
                }
                *y++ = (int8_t)acc;
            }
        }
    }
    return LN_RT_OK;
}

int ln_rt_maxpool2d_s8(const ln_rt_pool2d_args *a, const int8_t *x, int8_t *y)
{
    return pool2d_s8(a, x, y, 1);
}

int ln_rt_avgpool2d_s8(const ln_rt_pool2d_args *a, const int8_t *x, int8_t *y)
{
    return pool2d_s8(a, x, y, 0);
}

/* NCHW max pooling of uint8 (ONNX MaxPool on uint8: plain values, no
 * quantization); a window entirely in the padding gives 0 */
int ln_rt_maxpool2d_u8(const ln_rt_pool2d_args *a, const uint8_t *x, uint8_t *y)
{
    size_t planes, hw;

    if (!ln_rt__pool_args_ok(a))
        return LN_RT_ARG_ERROR;
    planes = (size_t)a->n * a->c;
    hw = (size_t)a->h * a->w;
    for (size_t q = 0; q < planes; q++) {
        const uint8_t *in = x + q * hw;
        for (int32_t oy = 0; oy < a->oh; oy++) {
            int32_t y0 = oy * a->stride_h - a->pad_top, ylo, yhi;
            ln_rt__pool_taps(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
            for (int32_t ox = 0; ox < a->ow; ox++) {
                int32_t x0 = ox * a->stride_w - a->pad_left, xlo, xhi;
                uint8_t m = 0;
                ln_rt__pool_taps(x0, a->kw, a->dil_w, a->w, &xlo, &xhi);
                for (int32_t ky = ylo; ky < yhi; ky++) {
                    const uint8_t *r = in + (size_t)(y0 + ky * a->dil_h) * a->w;
                    for (int32_t kx = xlo; kx < xhi; kx++) {
                        uint8_t v = r[x0 + kx * a->dil_w];
                        m = v > m ? v : m;
                    }
                }
                *y++ = m;
            }
        }
    }
    return LN_RT_OK;
}

void ln_rt_requantize_s8(const ln_rt_s8_requant_args *a, const int8_t *x, int8_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t v = ln_rt__requant((int32_t)x[i] + a->input_offset, a->mult, a->shift);
        y[i] = ln_rt__clamp_s8(v + a->output_offset, a->act_min, a->act_max);
    }
}

void ln_rt_global_avgpool_s8(const ln_rt_s8_requant_args *a, int32_t nc, int32_t hw,
                             const int8_t *x, int8_t *y)
{
    for (int32_t q = 0; q < nc; q++) {
        const int8_t *in = x + (size_t)q * hw;
        int32_t acc = 0;
        for (int32_t i = 0; i < hw; i++)
            acc += (int32_t)in[i] + a->input_offset;
        y[q] = ln_rt__clamp_s8(ln_rt__requant(acc, a->mult, a->shift) + a->output_offset,
                               a->act_min, a->act_max);
    }
}
