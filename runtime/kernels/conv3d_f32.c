/*
 * conv3d_f32.c -- 3-D convolution and transposed convolution, NCDHW
 * float32 (ONNX Conv and ConvTranspose on 5-D tensors).
 *
 * Direct loops, no scratch: 3-D layers in the models LightNet compiles are
 * small (video and volume classifiers' stems), and the packed GEMM of the
 * 2-D conv would need a scratch per geometry.  conv3d gathers: each output
 * is the sum over its group's input channels and the kernel taps inside
 * the input (the taps are clipped per axis once per output row).
 * conv_transpose3d scatters: the output starts as the bias, each input
 * value adds its product with the kernel into the outputs it reaches, and
 * the fused activation runs last.
 */
#include "ln_rt_internal.h"

/* pads may be negative for the transposed conv (an output_shape beyond
 * its full output) */
static int args_ok(const ln_rt_conv3d_args *a, int negative_pads)
{
    if (a->n < 1 || a->c < 1 || a->oc < 1 || a->group < 1 || a->c % a->group ||
        a->oc % a->group)
        return 0;
    for (int i = 0; i < 3; i++)
        if (a->in[i] < 1 || a->out[i] < 1 || a->k[i] < 1 || a->stride[i] < 1 ||
            a->dil[i] < 1 || (!negative_pads && (a->pad[i] < 0 || a->pad[i + 3] < 0)))
            return 0;
    return 1;
}

/* taps t in [lo, hi) of a window starting at s0 (dilation d, k taps)
 * that land inside [0, n) */
static void taps(int32_t s0, int32_t k, int32_t d, int32_t n, int32_t *lo, int32_t *hi)
{
    int32_t l = s0 >= 0 ? 0 : (-s0 + d - 1) / d;
    int32_t h = n - s0 <= 0 ? 0 : (n - 1 - s0) / d + 1;

    *lo = l;
    *hi = h > k ? k : h;
    if (*hi < *lo)
        *hi = *lo;
}

int ln_rt_conv3d_f32(const ln_rt_conv3d_args *a, const float *src, const float *weight,
                     const float *bias, float *dst)
{
    const int32_t cg = a->c / a->group, og = a->oc / a->group;
    size_t in_plane, out_plane, kvol;

    if (!args_ok(a, 0) || !src || !weight || !dst)
        return LN_RT_ARG_ERROR;
    in_plane = (size_t)a->in[0] * a->in[1] * a->in[2];
    out_plane = (size_t)a->out[0] * a->out[1] * a->out[2];
    kvol = (size_t)a->k[0] * a->k[1] * a->k[2];
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++) {
            const int32_t g = o / og;
            const float *xg = src + ((size_t)n * a->c + (size_t)g * cg) * in_plane;
            const float *wo = weight + (size_t)o * cg * kvol;
            float *y = dst + ((size_t)n * a->oc + o) * out_plane;
            const float b = bias ? bias[o] : 0.0f;
            for (int32_t od = 0; od < a->out[0]; od++) {
                int32_t d0 = od * a->stride[0] - a->pad[0], dlo, dhi;
                taps(d0, a->k[0], a->dil[0], a->in[0], &dlo, &dhi);
                for (int32_t oh = 0; oh < a->out[1]; oh++) {
                    int32_t h0 = oh * a->stride[1] - a->pad[1], hlo, hhi;
                    taps(h0, a->k[1], a->dil[1], a->in[1], &hlo, &hhi);
                    for (int32_t ow = 0; ow < a->out[2]; ow++) {
                        int32_t w0 = ow * a->stride[2] - a->pad[2], wlo, whi;
                        float acc = b;
                        taps(w0, a->k[2], a->dil[2], a->in[2], &wlo, &whi);
                        for (int32_t ic = 0; ic < cg; ic++) {
                            const float *x = xg + (size_t)ic * in_plane;
                            const float *w = wo + (size_t)ic * kvol;
                            for (int32_t kd = dlo; kd < dhi; kd++)
                                for (int32_t kh = hlo; kh < hhi; kh++) {
                                    const float *xr = x + ((size_t)(d0 + kd * a->dil[0]) * a->in[1]
                                                           + (h0 + kh * a->dil[1])) * a->in[2] + w0;
                                    const float *wr = w + ((size_t)kd * a->k[1] + kh) * a->k[2];
                                    for (int32_t kw = wlo; kw < whi; kw++)
                                        acc += xr[kw * a->dil[2]] * wr[kw];
                                }
                        }
                        y[((size_t)od * a->out[1] + oh) * a->out[2] + ow] =
                            ln_rt__act1(acc, a->act, a->alpha, a->beta);
                    }
                }
            }
        }
    return LN_RT_OK;
}

int ln_rt_conv_transpose3d_f32(const ln_rt_conv3d_args *a, const float *src,
                               const float *weight, const float *bias, float *dst)
{
    const int32_t cg = a->c / a->group, og = a->oc / a->group;
    size_t in_plane, out_plane, kvol;

    if (!args_ok(a, 1) || !src || !weight || !dst)
        return LN_RT_ARG_ERROR;
    in_plane = (size_t)a->in[0] * a->in[1] * a->in[2];
    out_plane = (size_t)a->out[0] * a->out[1] * a->out[2];
    kvol = (size_t)a->k[0] * a->k[1] * a->k[2];
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++) {
            float *y = dst + ((size_t)n * a->oc + o) * out_plane;
            const float b = bias ? bias[o] : 0.0f;
            for (size_t i = 0; i < out_plane; i++)
                y[i] = b;
        }
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t ci = 0; ci < a->c; ci++) {
            const int32_t g = ci / cg;
            const float *x = src + ((size_t)n * a->c + ci) * in_plane;
            for (int32_t id = 0; id < a->in[0]; id++)
                for (int32_t ih = 0; ih < a->in[1]; ih++)
                    for (int32_t iw = 0; iw < a->in[2]; iw++) {
                        const float v = x[((size_t)id * a->in[1] + ih) * a->in[2] + iw];
                        /* output position of tap t: i * stride - pad + t * dil */
                        int32_t d0 = id * a->stride[0] - a->pad[0];
                        int32_t h0 = ih * a->stride[1] - a->pad[1];
                        int32_t w0 = iw * a->stride[2] - a->pad[2];
                        int32_t dlo, dhi, hlo, hhi, wlo, whi;
                        taps(d0, a->k[0], a->dil[0], a->out[0], &dlo, &dhi);
                        taps(h0, a->k[1], a->dil[1], a->out[1], &hlo, &hhi);
                        taps(w0, a->k[2], a->dil[2], a->out[2], &wlo, &whi);
                        for (int32_t oo = 0; oo < og; oo++) {
                            const int32_t o = g * og + oo;
                            const float *w = weight + ((size_t)ci * og + oo) * kvol;
                            float *y = dst + ((size_t)n * a->oc + o) * out_plane;
                            for (int32_t kd = dlo; kd < dhi; kd++)
                                for (int32_t kh = hlo; kh < hhi; kh++) {
                                    float *yr = y + ((size_t)(d0 + kd * a->dil[0]) * a->out[1]
                                                     + (h0 + kh * a->dil[1])) * a->out[2] + w0;
                                    const float *wr = w + ((size_t)kd * a->k[1] + kh) * a->k[2];
                                    for (int32_t kw = wlo; kw < whi; kw++)
                                        yr[kw * a->dil[2]] += v * wr[kw];
                                }
                        }
                    }
        }
    if (a->act != LN_RT_ACT_NONE)
        ln_rt__act_f32(dst, (size_t)a->n * a->oc * out_plane, a->act, a->alpha, a->beta);
    return LN_RT_OK;
}
