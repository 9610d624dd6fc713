/*
 * conv2d_depthwise_f32.c -- depthwise 2-D convolution (group == c, oc a
 * multiple of c), NCHW, float32: a direct kernel, on x86 the one in
 * x86/conv2d_depthwise_f32_simd.h (masked edges, no copy), else (and for
 * dilation etc.) sums over a zero-padded copy of each input plane
 * (scratch: one padded plane, reserved whatever the ISA).  No reference to
 * the GEMM engine, so a model without standard convs does not link it.
 */
#include <string.h>
#include "ln_rt_internal.h"

/* the depthwise kernels: x86 direct ones by row width, else the padded
 * plane (portable: always) */
static void dw_run(int portable, const ln_rt_conv2d_args *a, const float *src,
                   const float *weight, const float *bias, float *dst,
                   int32_t ow, void *scratch)
{
#if LN_RT_HAVE_AVX2
    if (!portable) {
#if LN_RT_HAVE_AVX512
        /* rows narrower than 16: flat vectors across rows */
        if (ow < LN_RT_DW512_MIN_OW &&
            ln_rt__conv2d_depthwise_flat_f32_avx512(a, src, weight, bias, dst))
            return;
        if (ow >= LN_RT_DW512_MIN_OW &&
            ln_rt__conv2d_depthwise_f32_avx512(a, src, weight, bias, dst))
            return;
#endif
        if (!ln_rt__conv2d_depthwise_f32_avx2(a, src, weight, bias, dst))
            ln_rt__conv2d_depthwise_f32_avx2_padded(a, src, weight, bias, dst,
                                          scratch);
        return;
    }
#endif
    (void)portable;
    (void)ow;
    ln_rt__conv2d_depthwise_f32_c(a, src, weight, bias, dst, scratch);
}

static size_t dw_scratch_size(const ln_rt_conv2d_args *a)
{
    return (size_t)(a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK) *
           (size_t)(a->h + a->pad_top + a->pad_bottom) * sizeof(float);
}

size_t ln_rt_conv2d_depthwise_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    if (!ln_rt__conv_args_ok(a) || a->group != a->c || a->oc % a->c != 0)
        return 0;
    return dw_scratch_size(a);
}

int ln_rt_conv2d_depthwise_f32(const ln_rt_conv2d_args *a, const float *src,
                               const float *weight, const float *bias,
                               float *dst, void *scratch)
{
    int32_t oh, ow;
    if (!ln_rt__conv_args_ok(a) || a->group != a->c || a->oc % a->c != 0)
        return LN_RT_ARG_ERROR;
    oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                             a->pad_bottom, a->dil_h);
    ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                             a->pad_right, a->dil_w);
    if (oh <= 0 || ow <= 0 || a->n == 0)
        return LN_RT_OK;
    /* no reference to the GEMM engine here (not even its ISA table) */
    dw_run(!LN_RT_HAVE_AVX2, a, src, weight, bias, dst, ow, scratch);
    return LN_RT_OK;
}

/* ---- portable --------------------------------------------------------- */
/* Each input plane is first copied into a zero-bordered plane in scratch
 * (row length w + pads + LN_RT_DW_SLACK, so vector loads may run past the
 * last output without leaving the buffer); then every output is a plain
 * sum over kernel taps with no bounds checks. The borders are zeroed once
 * per call; only the interior is rewritten per channel. */
void ln_rt__conv2d_depthwise_pad_plane(const ln_rt_conv2d_args *a, const float *plane,
                         float *pp)
{
    int32_t wp = a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK, y;
    for (y = 0; y < a->h; y++)
        memcpy(pp + (size_t)(y + a->pad_top) * wp + a->pad_left,
               plane + (size_t)y * a->w, (size_t)a->w * sizeof(float));
}

void ln_rt__conv2d_depthwise_f32_c(const ln_rt_conv2d_args *a, const float *src,
                         const float *weight, const float *bias, float *dst,
                         float *pp)
{
    int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                                     a->pad_bottom, a->dil_h);
    int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                                     a->pad_right, a->dil_w);
    int32_t wp = a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK;
    int32_t hp = a->h + a->pad_top + a->pad_bottom;
    int32_t mult = a->oc / a->c, b, o, oy, ky, kx, ox;
    const int32_t sw = a->stride_w;

    memset(pp, 0, (size_t)wp * hp * sizeof(float));
    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *wk = weight + (size_t)o * a->kh * a->kw;
            float *out = dst + ((size_t)b * a->oc + o) * oh * ow;
            float b0 = bias ? bias[o] : 0.0f;
            if (o % mult == 0)
                ln_rt__conv2d_depthwise_pad_plane(a, src + ((size_t)b * a->c + o / mult) *
                                               a->h * a->w, pp);
            for (oy = 0; oy < oh; oy++) {
                float *orow = out + (size_t)oy * ow;
                for (ox = 0; ox < ow; ox++)
                    orow[ox] = b0;
                for (ky = 0; ky < a->kh; ky++) {
                    const float *irow =
                        pp + (size_t)(oy * a->stride_h + ky * a->dil_h) * wp;
                    for (kx = 0; kx < a->kw; kx++) {
                        const float *ip = irow + kx * a->dil_w;
                        float wv = wk[ky * a->kw + kx];
                        if (sw == 1)
                            for (ox = 0; ox < ow; ox++)
                                orow[ox] += wv * ip[ox];
                        else
                            for (ox = 0; ox < ow; ox++)
                                orow[ox] += wv * ip[ox * sw];
                    }
                }
                ln_rt__act_f32(orow, (size_t)ow, a->act, a->alpha, a->beta);
            }
        }
    }
}
