/*
 * pool3d_f32.c -- 3-D max and average pooling, NCDHW float32 (ONNX MaxPool
 * and AveragePool on 5-D tensors), and MaxPool's Indices output (also for
 * 2-D pools, as d = 1).
 *
 * Direct loops.  The caller gives the output extent (ceil mode and
 * auto_pad are decided in shape inference).  A window is clipped to the
 * input for the values it reads; the average divides by the product over
 * the axes of the taps inside the padded input (count_include_pad) or
 * inside the input (otherwise), as the 2-D kernels do.  The maximum keeps
 * the first of equal values in (d, h, w) order, and its index is the
 * offset in the whole input tensor: plane offset plus (d, h, w) row-major
 * (storage_order 0) or column-major (storage_order 1, w slowest).
 */
#include <math.h>
#include "ln_rt_internal.h"

static int args_ok(const ln_rt_pool3d_args *a)
{
    if (a->n < 1 || a->c < 1)
        return 0;
    for (int i = 0; i < 3; i++)
        if (a->in[i] < 1 || a->out[i] < 1 || a->k[i] < 1 || a->stride[i] < 1 ||
            a->dil[i] < 1 || a->pad[i] < 0 || a->pad[i + 3] < 0)
            return 0;
    return 1;
}

/* the window of output o along axis i: first tap's coordinate, the taps
 * [lo, hi) inside the input and the count inside the padded input */
static void window(const ln_rt_pool3d_args *a, int i, int32_t o, int32_t *s0, int32_t *lo,
                   int32_t *hi, int32_t *padded)
{
    int32_t plo, phi;

    *s0 = o * a->stride[i] - a->pad[i];
    ln_rt__pool_taps(*s0, a->k[i], a->dil[i], a->in[i], lo, hi);
    ln_rt__pool_taps(*s0 + a->pad[i], a->k[i], a->dil[i], a->in[i] + a->pad[i] + a->pad[i + 3],
                     &plo, &phi);
    if (*hi < *lo)
        *hi = *lo;
    *padded = phi > plo ? phi - plo : 0;
}

static int pool3d(const ln_rt_pool3d_args *a, const float *x, float *y, int64_t *indices,
                  int is_max)
{
    size_t plane;

    if (!args_ok(a) || !x || !y)
        return LN_RT_ARG_ERROR;
    plane = (size_t)a->in[0] * a->in[1] * a->in[2];
    for (size_t q = 0; q < (size_t)a->n * a->c; q++) {
        const float *in = x + q * plane;
        for (int32_t od = 0; od < a->out[0]; od++) {
            int32_t d0, dlo, dhi, pd;
            window(a, 0, od, &d0, &dlo, &dhi, &pd);
            for (int32_t oh = 0; oh < a->out[1]; oh++) {
                int32_t h0, hlo, hhi, ph;
                window(a, 1, oh, &h0, &hlo, &hhi, &ph);
                for (int32_t ow = 0; ow < a->out[2]; ow++) {
                    int32_t w0, wlo, whi, pw;
                    float acc = is_max ? -INFINITY : 0.0f;
                    int64_t best = -1;
                    window(a, 2, ow, &w0, &wlo, &whi, &pw);
                    for (int32_t kd = dlo; kd < dhi; kd++)
                        for (int32_t kh = hlo; kh < hhi; kh++) {
                            int32_t d = d0 + kd * a->dil[0], h = h0 + kh * a->dil[1];
                            const float *r = in + ((size_t)d * a->in[1] + h) * a->in[2];
                            for (int32_t kw = wlo; kw < whi; kw++) {
                                int32_t w = w0 + kw * a->dil[2];
                                float v = r[w];
                                if (!is_max) {
                                    acc += v;
                                } else if (best < 0 || v > acc) {
                                    acc = v;
                                    best = a->storage_order
                                               ? d + (int64_t)a->in[0] *
                                                         (h + (int64_t)a->in[1] * w)
                                               : ((int64_t)d * a->in[1] + h) * a->in[2] + w;
                                }
                            }
                        }
                    if (!is_max) {
                        int64_t cnt = a->count_include_pad
                                          ? (int64_t)pd * ph * pw
                                          : (int64_t)(dhi - dlo) * (hhi - hlo) * (whi - wlo);
                        acc = cnt > 0 ? acc / (float)cnt : 0.0f;
                    }
                    *y++ = acc;
                    if (is_max && indices)
                        *indices++ = best < 0 ? -1 : (int64_t)(q * plane) + best;
                }
            }
        }
    }
    return LN_RT_OK;
}

int ln_rt_maxpool3d_f32(const ln_rt_pool3d_args *a, const float *x, float *y, int64_t *indices)
{
    return pool3d(a, x, y, indices, 1);
}

int ln_rt_avgpool3d_f32(const ln_rt_pool3d_args *a, const float *x, float *y)
{
    return pool3d(a, x, y, NULL, 0);
}
