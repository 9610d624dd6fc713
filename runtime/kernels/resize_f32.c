/*
 * resize_f32.c -- ONNX Resize / Upsample over the last two axes of NCHW,
 * nearest (all coordinate transformation and nearest-rounding modes) and
 * bilinear. Source coordinates are recomputed per output pixel, so there is
 * no scratch; the cost is small next to the memory traffic.
 */
#include <math.h>
#include "ln_rt_internal.h"

/* output coordinate -> input coordinate, per the ONNX spec.  Where the
 * spec says length_resized, align_corners and pytorch_half_pixel take the
 * unrounded in_len * scale when the op was given scales (res_len; ONNX's
 * reference and ONNX Runtime do so: 4 by 0.6 has length 2.4, not 2) and
 * out_len when it was given sizes. */
static float coord(const ln_rt_resize_args *a, int32_t xo, int32_t out_len,
                   float res_len, int32_t in_len, float scale)
{
    float x = (float)xo;
    switch (a->coord) {
    case LN_RT_COORD_ASYMMETRIC:
        return x / scale;
    case LN_RT_COORD_ALIGN_CORNERS:
        return res_len == 1.0f ? 0.0f
               : x * (float)(in_len - 1) / (res_len - 1.0f);
    case LN_RT_COORD_PYTORCH_HALF_PIXEL:
        return res_len > 1.0f ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case LN_RT_COORD_TF_HALF_PIXEL_FOR_NN:
        return (x + 0.5f) / scale;
    case LN_RT_COORD_HALF_PIXEL_SYMMETRIC: {
        float adj = (float)out_len / (scale * (float)in_len);
        float center = (float)in_len / 2.0f;
        float off = center * (1.0f - adj);
        return off + (x + 0.5f) / scale - 0.5f;
    }
    case LN_RT_COORD_HALF_PIXEL:
    default:
        return (x + 0.5f) / scale - 0.5f;
    }
}

static int32_t nearest(const ln_rt_resize_args *a, float x, int32_t in_len)
{
    float f = floorf(x);
    int32_t i;
    switch (a->nearest) {
    case LN_RT_NEAREST_FLOOR: i = (int32_t)f; break;
    case LN_RT_NEAREST_CEIL: i = (int32_t)ceilf(x); break;
    case LN_RT_NEAREST_ROUND_PREFER_CEIL:
        i = (int32_t)(x - f >= 0.5f ? f + 1.0f : f);
        break;
    case LN_RT_NEAREST_ROUND_PREFER_FLOOR:
    default:
        i = (int32_t)(x - f > 0.5f ? f + 1.0f : f);
        break;
    }
    return i < 0 ? 0 : (i >= in_len ? in_len - 1 : i);
}

int ln_rt_resize_f32(const ln_rt_resize_args *a, const float *x, float *y)
{
    float sh, sw, rh, rw;
    int32_t oy, ox;
    size_t q, planes;

    if (a->n < 0 || a->c < 0 || a->ih <= 0 || a->iw <= 0 || a->oh < 0 ||
        a->ow < 0)
        return LN_RT_ARG_ERROR;
    sh = a->scale_h > 0.0f ? a->scale_h : (float)a->oh / (float)a->ih;
    sw = a->scale_w > 0.0f ? a->scale_w : (float)a->ow / (float)a->iw;
    rh = a->scale_h > 0.0f ? a->scale_h * (float)a->ih : (float)a->oh;
    rw = a->scale_w > 0.0f ? a->scale_w * (float)a->iw : (float)a->ow;
    planes = (size_t)a->n * a->c;
    for (q = 0; q < planes; q++) {
        const float *in = x + q * a->ih * a->iw;
        for (oy = 0; oy < a->oh; oy++) {
            float fy = coord(a, oy, a->oh, rh, a->ih, sh);
            if (a->mode == LN_RT_RESIZE_NEAREST) {
                const float *r = in + (size_t)nearest(a, fy, a->ih) * a->iw;
                for (ox = 0; ox < a->ow; ox++)
                    *y++ = r[nearest(a, coord(a, ox, a->ow, rw, a->iw, sw),
                                     a->iw)];
            } else {
                int32_t y0, y1;
                float ly;
                const float *r0, *r1;
                fy = fy < 0.0f ? 0.0f : fy;
                fy = fy > (float)(a->ih - 1) ? (float)(a->ih - 1) : fy;
                y0 = (int32_t)fy;
                y1 = y0 + 1 < a->ih ? y0 + 1 : a->ih - 1;
                ly = fy - (float)y0;
                r0 = in + (size_t)y0 * a->iw;
                r1 = in + (size_t)y1 * a->iw;
                for (ox = 0; ox < a->ow; ox++) {
                    float fx = coord(a, ox, a->ow, rw, a->iw, sw), lx;
                    int32_t x0, x1;
                    fx = fx < 0.0f ? 0.0f : fx;
                    fx = fx > (float)(a->iw - 1) ? (float)(a->iw - 1) : fx;
                    x0 = (int32_t)fx;
                    x1 = x0 + 1 < a->iw ? x0 + 1 : a->iw - 1;
                    lx = fx - (float)x0;
                    *y++ = (r0[x0] * (1.0f - lx) + r0[x1] * lx) * (1.0f - ly)
                           + (r1[x0] * (1.0f - lx) + r1[x1] * lx) * ly;
                }
            }
        }
    }
    return LN_RT_OK;
}
