/*
 * resize_f32.c -- ONNX Resize / Upsample over the last two axes of NCHW,
 * nearest (all coordinate transformation and nearest-rounding modes),
 * bilinear and bicubic (cubic_coeff_a, exclude_outside), and
 * tf_crop_and_resize (a region of interest, extrapolation outside the
 * input). Source coordinates and taps are recomputed per output pixel, so
 * there is no scratch; the cost is small next to the memory traffic.
 */
#include <math.h>
#include "ln_rt_internal.h"

/* output coordinate -> input coordinate, per the ONNX spec.  Where the
 * spec says length_resized, align_corners, pytorch_half_pixel and
 * tf_crop_and_resize take the unrounded in_len * scale when the op was
 * given scales (res_len; ONNX's reference and ONNX Runtime do so: 4 by 0.6
 * has length 2.4, not 2) and out_len when it was given sizes.  r0 and r1
 * are the region of interest along this axis (tf_crop_and_resize). */
static float coord(const ln_rt_resize_args *a, int32_t xo, int32_t out_len,
                   float res_len, int32_t in_len, float scale, float r0, float r1)
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
    case LN_RT_COORD_TF_CROP_AND_RESIZE:
        if (res_len == 1.0f)
            return 0.5f * (r0 + r1) * (float)(in_len - 1);
        return r0 * (float)(in_len - 1)
               + x * (r1 - r0) * (float)(in_len - 1) / (res_len - 1.0f);
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

/* The taps of source coordinate x along an axis of in_len: up to four
 * indices (clamped into the input, as ONNX pads by the edge) and their
 * weights; returns their count.  Linear: the two neighbours of x clamped
 * into [0, in_len - 1].  Cubic: floor(x) - 1 .. floor(x) + 2 with Keys'
 * kernel of parameter a->cubic_a at distances 1 + t, t, 1 - t, 2 - t;
 * exclude_outside zeroes the taps outside the input and renormalizes. */
static int taps(const ln_rt_resize_args *a, float x, int32_t in_len,
                int32_t idx[4], float w[4])
{
    if (a->mode == LN_RT_RESIZE_LINEAR) {
        int32_t x0;
        x = x < 0.0f ? 0.0f : x;
        x = x > (float)(in_len - 1) ? (float)(in_len - 1) : x;
        x0 = (int32_t)x;
        idx[0] = x0;
        idx[1] = x0 + 1 < in_len ? x0 + 1 : in_len - 1;
        w[1] = x - (float)x0;
        w[0] = 1.0f - w[1];
        return 2;
    } else {
        float f = floorf(x), t = x - f, A = a->cubic_a, sum = 0.0f;
        float d[4];
        int32_t base = (int32_t)f - 1;
        d[0] = 1.0f + t;
        d[1] = t;
        d[2] = 1.0f - t;
        d[3] = 2.0f - t;
        for (int k = 0; k < 4; k++) {
            float s = d[k];
            int32_t i = base + k;
            /* Keys: |s| <= 1 and 1 < |s| < 2 */
            w[k] = s <= 1.0f ? ((A + 2.0f) * s - (A + 3.0f)) * s * s + 1.0f
                 : ((A * s - 5.0f * A) * s + 8.0f * A) * s - 4.0f * A;
            if (a->exclude_outside && (i < 0 || i >= in_len))
                w[k] = 0.0f;
            sum += w[k];
            idx[k] = i < 0 ? 0 : (i >= in_len ? in_len - 1 : i);
        }
        if (a->exclude_outside && sum != 0.0f)
            for (int k = 0; k < 4; k++)
                w[k] /= sum;
        return 4;
    }
}

/* Is source coordinate x outside [0, in_len - 1] (tf_crop_and_resize)? */
static int outside(const ln_rt_resize_args *a, float x, int32_t in_len)
{
    return a->coord == LN_RT_COORD_TF_CROP_AND_RESIZE &&
           (x < 0.0f || x > (float)(in_len - 1));
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
            float fy = coord(a, oy, a->oh, rh, a->ih, sh, a->roi[0], a->roi[2]);
            int32_t iy[4], ny;
            float wy[4];
            if (outside(a, fy, a->ih)) {
                for (ox = 0; ox < a->ow; ox++)
                    *y++ = a->extrapolation;
                continue;
            }
            if (a->mode == LN_RT_RESIZE_NEAREST) {
                const float *r = in + (size_t)nearest(a, fy, a->ih) * a->iw;
                for (ox = 0; ox < a->ow; ox++) {
                    float fx = coord(a, ox, a->ow, rw, a->iw, sw, a->roi[1], a->roi[3]);
                    *y++ = outside(a, fx, a->iw) ? a->extrapolation : r[nearest(a, fx, a->iw)];
                }
                continue;
            }
            ny = taps(a, fy, a->ih, iy, wy);
            for (ox = 0; ox < a->ow; ox++) {
                float fx = coord(a, ox, a->ow, rw, a->iw, sw, a->roi[1], a->roi[3]);
                float wx[4], acc = 0.0f;
                int32_t ix[4], nx;
                if (outside(a, fx, a->iw)) {
                    *y++ = a->extrapolation;
                    continue;
                }
                nx = taps(a, fx, a->iw, ix, wx);
                for (int i = 0; i < ny; i++) {
                    const float *r = in + (size_t)iy[i] * a->iw;
                    float row = 0.0f;
                    for (int j = 0; j < nx; j++)
                        row += r[ix[j]] * wx[j];
                    acc += row * wy[i];
                }
                *y++ = acc;
            }
        }
    }
    return LN_RT_OK;
}
