/*
 * detect_f32.c -- the ops of detection and spatial-transformer heads,
 * float32: GridSample, RoiAlign, MaxUnpool, and NonMaxSuppression (which
 * LightNet only evaluates at import time: its output count depends on the
 * data).  Plain loops; the semantics are ONNX's, with ONNX Runtime's
 * choices where the specification leaves room (stated at each kernel in
 * ln_rt.h).
 */
#include <math.h>
#include "ln_rt_internal.h"

/* ---- GridSample --------------------------------------------------------- */

/* x rounded half to even (nearbyint in the default rounding mode) */
static float round_even(float x)
{
    float r = floorf(x), d = x - r;

    if (d > 0.5f || (d == 0.5f && fmodf(r, 2.0f) != 0.0f))
        r += 1.0f;
    return r;
}

/* x reflected into [lo, hi] as often as it takes */
static float reflect(float x, float lo, float hi)
{
    float range = hi - lo, d, r;
    int n;

    if (range <= 0.0f)
        return lo;
    if (x < lo) {
        d = lo - x;
        n = (int)(d / range);
        r = d - (float)n * range;
        return n % 2 == 0 ? lo + r : hi - r;
    }
    if (x > hi) {
        d = x - hi;
        n = (int)(d / range);
        r = d - (float)n * range;
        return n % 2 == 0 ? hi - r : lo + r;
    }
    return x;
}

/* the pixel at (r, c) of a plane, or the padding's stand-in */
static float pixel(const ln_rt_grid_sample_args *a, const float *p, int64_t r, int64_t c,
                   const float *bound)
{
    if (a->padding == 1) {
        c = c < 0 ? 0 : c >= a->w ? a->w - 1 : c;
        r = r < 0 ? 0 : r >= a->h ? a->h - 1 : r;
    } else if (a->padding == 2) {
        c = (int64_t)reflect((float)c, bound[0], bound[2]);
        r = (int64_t)reflect((float)r, bound[1], bound[3]);
    }
    if (c < 0 || c >= a->w || r < 0 || r >= a->h)
        return 0.0f;
    return p[r * a->w + c];
}

static void cubic_coeffs(float t, float *k)
{
    const float A = -0.75f;
    float x = fabsf(t);

    k[0] = ((A * (x + 1.0f) - 5.0f * A) * (x + 1.0f) + 8.0f * A) * (x + 1.0f) - 4.0f * A;
    k[1] = ((A + 2.0f) * x - (A + 3.0f)) * x * x + 1.0f;
    k[2] = ((A + 2.0f) * (1.0f - x) - (A + 3.0f)) * (1.0f - x) * (1.0f - x) + 1.0f;
    k[3] = ((A * (2.0f - x) - 5.0f * A) * (2.0f - x) + 8.0f * A) * (2.0f - x) - 4.0f * A;
}

/* a normalized coordinate in [-1, 1] as a pixel coordinate on an axis of n */
static float denorm(float v, int32_t n, int32_t align_corners)
{
    return align_corners ? (v + 1.0f) * 0.5f * (float)(n - 1)
                         : ((v + 1.0f) * (float)n - 1.0f) * 0.5f;
}

void ln_rt_grid_sample_f32(const ln_rt_grid_sample_args *a, const float *x, const float *grid,
                           float *y)
{
    /* [x_min, y_min, x_max, y_max] of the image's coordinates */
    const float bound[4] = {a->align_corners ? 0.0f : -0.5f, a->align_corners ? 0.0f : -0.5f,
                            a->align_corners ? (float)a->w - 1.0f : (float)a->w - 0.5f,
                            a->align_corners ? (float)a->h - 1.0f : (float)a->h - 0.5f};
    const size_t plane = (size_t)a->h * a->w, oplane = (size_t)a->oh * a->ow;

    for (int32_t n = 0; n < a->n; n++)
        for (size_t o = 0; o < oplane; o++) {
            const float *g = grid + ((size_t)n * oplane + o) * 2;
            float gx = denorm(g[0], a->w, a->align_corners);
            float gy = denorm(g[1], a->h, a->align_corners);
            if (a->mode == 1) {
                gx = round_even(gx);
                gy = round_even(gy);
            }
            if (gx < bound[0] || gx > bound[2] || gy < bound[1] || gy > bound[3]) {
                if (a->padding == 1) {
                    gx = gx < 0.0f ? 0.0f : gx > (float)(a->w - 1) ? (float)(a->w - 1) : gx;
                    gy = gy < 0.0f ? 0.0f : gy > (float)(a->h - 1) ? (float)(a->h - 1) : gy;
                } else if (a->padding == 2) {
                    gx = reflect(gx, bound[0], bound[2]);
                    gy = reflect(gy, bound[1], bound[3]);
                }
            }
            for (int32_t c = 0; c < a->c; c++) {
                const float *p = x + ((size_t)n * a->c + c) * plane;
                float v;
                if (a->mode == 1) {
                    v = pixel(a, p, (int64_t)gy, (int64_t)gx, bound);
                } else if (a->mode == 0) {
                    float fx = floorf(gx), fy = floorf(gy), dx = gx - fx, dy = gy - fy;
                    int64_t x1 = (int64_t)fx, y1 = (int64_t)fy;
                    v = (1.0f - dy) * ((1.0f - dx) * pixel(a, p, y1, x1, bound) +
                                       dx * pixel(a, p, y1, x1 + 1, bound)) +
                        dy * ((1.0f - dx) * pixel(a, p, y1 + 1, x1, bound) +
                              dx * pixel(a, p, y1 + 1, x1 + 1, bound));
                } else {
                    float fx = floorf(gx), fy = floorf(gy), kx[4], ky[4];
                    int64_t x0 = (int64_t)fx - 1, y0 = (int64_t)fy - 1;
                    cubic_coeffs(gx - fx, kx);
                    cubic_coeffs(gy - fy, ky);
                    v = 0.0f;
                    for (int i = 0; i < 4; i++) {
                        float row = 0.0f;
                        for (int j = 0; j < 4; j++)
                            row += kx[j] * pixel(a, p, y0 + i, x0 + j, bound);
                        v += ky[i] * row;
                    }
                }
                y[((size_t)n * a->c + c) * oplane + o] = v;
            }
        }
}

/* ---- RoiAlign ----------------------------------------------------------- */

/* the four taps of a bilinear sample at (yy, xx): offsets and weights,
 * zero weights for a sample beyond a pixel outside the image */
static void roi_taps(const ln_rt_roi_align_args *a, float yy, float xx, size_t *pos, float *wt)
{
    int32_t yl, xl, yh, xh;
    float ly, lx;

    if (yy < -1.0f || yy > (float)a->h || xx < -1.0f || xx > (float)a->w) {
        for (int i = 0; i < 4; i++) {
            pos[i] = 0;
            wt[i] = 0.0f;
        }
        return;
    }
    yy = yy <= 0.0f ? 0.0f : yy;
    xx = xx <= 0.0f ? 0.0f : xx;
    yl = (int32_t)yy;
    xl = (int32_t)xx;
    if (yl >= a->h - 1) {
        yl = yh = a->h - 1;
        yy = (float)yl;
    } else {
        yh = yl + 1;
    }
    if (xl >= a->w - 1) {
        xl = xh = a->w - 1;
        xx = (float)xl;
    } else {
        xh = xl + 1;
    }
    ly = yy - (float)yl;
    lx = xx - (float)xl;
    pos[0] = (size_t)yl * a->w + xl;
    pos[1] = (size_t)yl * a->w + xh;
    pos[2] = (size_t)yh * a->w + xl;
    pos[3] = (size_t)yh * a->w + xh;
    wt[0] = (1.0f - ly) * (1.0f - lx);
    wt[1] = (1.0f - ly) * lx;
    wt[2] = ly * (1.0f - lx);
    wt[3] = ly * lx;
}

int ln_rt_roi_align_f32(const ln_rt_roi_align_args *a, const float *x, const float *rois,
                        const int64_t *batch_indices, float *y)
{
    const float off = a->half_pixel ? 0.5f : 0.0f;
    const size_t plane = (size_t)a->h * a->w;

    for (int32_t r = 0; r < a->num_rois; r++)
        if (batch_indices[r] < 0 || batch_indices[r] >= a->n)
            return LN_RT_ARG_ERROR;
    for (int32_t r = 0; r < a->num_rois; r++) {
        const float *roi = rois + (size_t)r * 4;
        float x0 = roi[0] * a->spatial_scale - off, y0 = roi[1] * a->spatial_scale - off;
        float rw = roi[2] * a->spatial_scale - off - x0, rh = roi[3] * a->spatial_scale - off - y0;
        float bw, bh;
        int32_t gh, gw, count;
        if (!a->half_pixel) {
            rw = rw > 1.0f ? rw : 1.0f;
            rh = rh > 1.0f ? rh : 1.0f;
        }
        bh = rh / (float)a->oh;
        bw = rw / (float)a->ow;
        gh = a->sampling_ratio > 0 ? a->sampling_ratio : (int32_t)ceilf(rh / (float)a->oh);
        gw = a->sampling_ratio > 0 ? a->sampling_ratio : (int32_t)ceilf(rw / (float)a->ow);
        count = gh * gw > 1 ? gh * gw : 1;
        for (int32_t c = 0; c < a->c; c++) {
            const float *p = x + ((size_t)batch_indices[r] * a->c + c) * plane;
            float *out = y + ((size_t)r * a->c + c) * a->oh * a->ow;
            for (int32_t ph = 0; ph < a->oh; ph++)
                for (int32_t pw = 0; pw < a->ow; pw++) {
                    float acc = 0.0f;
                    int first = 1;
                    for (int32_t iy = 0; iy < gh; iy++) {
                        float yy = y0 + (float)ph * bh + ((float)iy + 0.5f) * bh / (float)gh;
                        for (int32_t ix = 0; ix < gw; ix++) {
                            float xx = x0 + (float)pw * bw + ((float)ix + 0.5f) * bw / (float)gw;
                            size_t pos[4];
                            float wt[4];
                            roi_taps(a, yy, xx, pos, wt);
                            if (!a->mode_max) {
                                acc += wt[0] * p[pos[0]] + wt[1] * p[pos[1]] +
                                       wt[2] * p[pos[2]] + wt[3] * p[pos[3]];
                            } else {
                                float m = wt[0] * p[pos[0]];
                                for (int i = 1; i < 4; i++)
                                    m = wt[i] * p[pos[i]] > m ? wt[i] * p[pos[i]] : m;
                                acc = first || m > acc ? m : acc;
                                first = 0;
                            }
                        }
                    }
                    out[(size_t)ph * a->ow + pw] = a->mode_max ? acc : acc / (float)count;
                }
        }
    }
    return LN_RT_OK;
}

/* ---- MaxUnpool ---------------------------------------------------------- */

int ln_rt_maxunpool_f32(const ln_rt_maxunpool_args *a, size_t x_len, const float *x,
                        const int64_t *indices, float *y)
{
    size_t len = 1, out_len = 1;

    for (int d = 0; d < a->ndim; d++) {
        len *= (size_t)a->dims[d];
        out_len *= (size_t)a->out_dims[d];
    }
    for (size_t i = 0; i < x_len; i++)
        if (indices[i] < 0 || (uint64_t)indices[i] >= (uint64_t)len)
            return LN_RT_ARG_ERROR;
    for (size_t i = 0; i < out_len; i++)
        y[i] = 0.0f;
    for (size_t i = 0; i < x_len; i++) {
        /* the index's coordinates in dims, at the same ones in out_dims */
        size_t r = (size_t)indices[i], off = 0, stride = 1;
        for (int d = a->ndim - 1; d >= 0; d--) {
            off += (r % (size_t)a->dims[d]) * stride;
            r /= (size_t)a->dims[d];
            stride *= (size_t)a->out_dims[d];
        }
        y[off] = x[i];
    }
    return LN_RT_OK;
}

/* ---- NonMaxSuppression -------------------------------------------------- */

/* box i as (y1, x1, y2, x2), y1 <= y2 and x1 <= x2 */
static void corners(const ln_rt_nms_args *a, const float *b, float *c)
{
    if (a->center_point_box) {
        c[0] = b[1] - b[3] * 0.5f;
        c[1] = b[0] - b[2] * 0.5f;
        c[2] = b[1] + b[3] * 0.5f;
        c[3] = b[0] + b[2] * 0.5f;
    } else {
        c[0] = b[0] < b[2] ? b[0] : b[2];
        c[2] = b[0] < b[2] ? b[2] : b[0];
        c[1] = b[1] < b[3] ? b[1] : b[3];
        c[3] = b[1] < b[3] ? b[3] : b[1];
    }
}

/* IoU of two boxes above the threshold? (no overlap never is) */
static int suppresses(const ln_rt_nms_args *a, const float *p, const float *q)
{
    float b[4], c[4], ih, iw, inter, uni;

    corners(a, p, b);
    corners(a, q, c);
    ih = (b[2] < c[2] ? b[2] : c[2]) - (b[0] > c[0] ? b[0] : c[0]);
    iw = (b[3] < c[3] ? b[3] : c[3]) - (b[1] > c[1] ? b[1] : c[1]);
    if (ih <= 0.0f || iw <= 0.0f)
        return 0;
    inter = ih * iw;
    uni = (b[2] - b[0]) * (b[3] - b[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter;
    if (uni <= 0.0f)
        return 0;
    return inter / uni > a->iou_threshold;
}

int64_t ln_rt_nms_f32(const ln_rt_nms_args *a, const float *boxes, const float *scores,
                      int32_t *order, int64_t *selected)
{
    int64_t count = 0;

    for (int32_t b = 0; b < a->batches; b++)
        for (int32_t k = 0; k < a->classes; k++) {
            const float *s = scores + ((size_t)b * a->classes + k) * a->boxes;
            const float *bx = boxes + (size_t)b * a->boxes * 4;
            int32_t m = 0;
            int64_t kept = 0, first = count;
            /* candidates by descending score, ties by index: insertion */
            for (int32_t i = 0; i < a->boxes; i++) {
                int32_t j = m++;
                if (a->has_score_threshold && !(s[i] > a->score_threshold)) {
                    m--;
                    continue;
                }
                while (j > 0 && s[order[j - 1]] < s[i]) {
                    order[j] = order[j - 1];
                    j--;
                }
                order[j] = i;
            }
            for (int32_t i = 0; i < m && kept < a->max_per_class; i++) {
                int keep = 1;
                for (int64_t q = first; q < count && keep; q++)
                    keep = !suppresses(a, bx + (size_t)order[i] * 4,
                                       bx + (size_t)selected[q * 3 + 2] * 4);
                if (!keep)
                    continue;
                selected[count * 3] = b;
                selected[count * 3 + 1] = k;
                selected[count * 3 + 2] = order[i];
                count++;
                kept++;
            }
        }
    return count;
}
