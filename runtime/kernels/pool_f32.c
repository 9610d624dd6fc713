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
#include "x86/pool_f32_x86.h"

/* Separable pooling of one plane: for each output row the kh input rows of
 * its window are first reduced into a row buffer (a vectorizable elementwise
 * max or sum over whole rows), then each output reduces kw entries of that
 * buffer. The buffer lives on the stack (LN_RT_POOL_ROW floats, 1 KB) and
 * covers a chunk of output columns at a time. The window is clipped to the
 * input in both passes; the average divides by the product of the vertical
 * and horizontal tap counts (inside the padded input for count_include_pad,
 * inside the input otherwise). */
#define LN_RT_POOL_ROW 256

static void pool_edge(const ln_rt_pool2d_args *a, const float *row,
                      int32_t c0, float *yr, int32_t ox, int is_max,
                      int32_t ylo, int32_t yhi, int32_t pylo, int32_t pyhi);

/* The column pass over a run of interior outputs: yi[ox] = max or sum of
 * rr[ox * sw + kx * dw], kx < kw. One function per stride kind so that
 * the compiler sees stride 2 as a constant (it vectorizes a constant
 * stride of 2 with even/odd permutes, a variable one not at all). */
#define LN_RT_POOL_COLS(NAME, SW_PARAM, SW)                                    \
    static void NAME(const float *rr, float *yi, int32_t nrun SW_PARAM,        \
                     int32_t kw, int32_t dw, int is_max)                       \
    {                                                                          \
        int32_t ox, kx;                                                        \
        for (ox = 0; ox < nrun; ox++)                                          \
            yi[ox] = rr[ox * (SW)];                                            \
        for (kx = 1; kx < kw; kx++) {                                          \
            const float *r = rr + kx * dw;                                     \
            if (is_max)                                                        \
                for (ox = 0; ox < nrun; ox++)                                  \
                    yi[ox] = r[ox * (SW)] > yi[ox] ? r[ox * (SW)] : yi[ox];    \
            else                                                               \
                for (ox = 0; ox < nrun; ox++)                                  \
                    yi[ox] += r[ox * (SW)];                                    \
        }                                                                      \
    }
LN_RT_POOL_COLS(pool_cols, LN_RT_COMMA int32_t sw, sw)
LN_RT_POOL_COLS(pool_cols_s2, , 2)

static void pool_plane(const ln_rt_pool2d_args *a, const float *in, float *y,
                       int is_max)
{
    float row[LN_RT_POOL_ROW];
    const int32_t span = (a->kw - 1) * a->dil_w + 1;
    const int32_t chunk = (LN_RT_POOL_ROW - span) / a->stride_w + 1;
    /* interior outputs: ox * sw - pad_left >= 0 and + span <= w */
    const int32_t ia0 = (a->pad_left + a->stride_w - 1) / a->stride_w;
    const int32_t ib0 = a->w - span + a->pad_left < 0 ? 0
                        : (a->w - span + a->pad_left) / a->stride_w + 1;
    int32_t oy, oxa, ox, ky, i;

    for (oy = 0; oy < a->oh; oy++) {
        int32_t y0 = oy * a->stride_h - a->pad_top, ylo, yhi, pylo, pyhi;
        ln_rt__pool_taps(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
        ln_rt__pool_taps(y0 + a->pad_top, a->kh, a->dil_h,
                  a->h + a->pad_top + a->pad_bottom, &pylo, &pyhi);
        for (oxa = 0; oxa < a->ow; oxa += chunk) {
            int32_t oxb = oxa + chunk < a->ow ? oxa + chunk : a->ow;
            /* input columns [c0, c1) feed outputs [oxa, oxb) */
            int32_t c0 = oxa * a->stride_w - a->pad_left;
            int32_t c1 = (oxb - 1) * a->stride_w - a->pad_left + span;
            int32_t v0 = c0 < 0 ? 0 : c0, v1 = c1 > a->w ? a->w : c1;
            /* row[x - c0] holds input column x, x in [v0, v1) */
            if (v1 > v0) {
                if (yhi <= ylo) {
                    for (i = v0; i < v1; i++)
                        row[i - c0] = is_max ? -INFINITY : 0.0f;
                } else {
                    const float *src = in + (size_t)(y0 + ylo * a->dil_h) *
                                            a->w;
                    ky = ylo + 1;
                    if (ky < yhi) { /* the first two rows in one pass */
                        const float *s1 = src + (size_t)a->dil_h * a->w;
                        if (is_max)
                            for (i = v0; i < v1; i++)
                                row[i - c0] = s1[i] > src[i] ? s1[i] : src[i];
                        else
                            for (i = v0; i < v1; i++)
                                row[i - c0] = src[i] + s1[i];
                        ky++;
                    } else {
                        for (i = v0; i < v1; i++)
                            row[i - c0] = src[i];
                    }
                    for (; ky < yhi; ky++) {
                        src = in + (size_t)(y0 + ky * a->dil_h) * a->w;
                        if (is_max)
                            for (i = v0; i < v1; i++)
                                row[i - c0] = src[i] > row[i - c0]
                                                  ? src[i] : row[i - c0];
                        else
                            for (i = v0; i < v1; i++)
                                row[i - c0] += src[i];
                    }
                }
            }
            /* outputs whose window lies inside the row: column passes
             * over the whole run, which the compiler vectorizes */
            {
                int32_t ia = oxa > ia0 ? oxa : ia0, ib = oxb < ib0 ? oxb : ib0;
                float *yr = y + (size_t)oy * a->ow;
                const int32_t sw = a->stride_w;
                if (ia < ib) {
                    /* tap kx of output ox is row[ox * sw + kx * dw - pad - c0];
                     * ia * sw - pad - c0 >= 0 since ia >= oxa */
                    const float *rr = row + (ia * sw - a->pad_left - c0);
                    float *yi = yr + ia;
                    int32_t nrun = ib - ia;
                    if (sw == 2) /* the stride written out: even/odd loads */
                        pool_cols_s2(rr, yi, nrun, a->kw, a->dil_w, is_max);
                    else
                        pool_cols(rr, yi, nrun, sw, a->kw, a->dil_w, is_max);
                    if (!is_max) {
                        int32_t cnt = (a->count_include_pad ? pyhi - pylo
                                                            : yhi - ylo) *
                                      a->kw;
                        float inv = cnt > 0 ? 1.0f / (float)cnt : 0.0f;
                        for (ox = 0; ox < nrun; ox++)
                            yi[ox] = cnt > 0 ? yi[ox] * inv : 0.0f;
                    }
                } else {
                    ia = ib = oxb;
                }
                /* clipped windows left and right of the interior run */
                for (ox = oxa; ox < ia; ox++)
                    pool_edge(a, row, c0, yr, ox, is_max, ylo, yhi, pylo,
                              pyhi);
                for (ox = ib; ox < oxb; ox++)
                    pool_edge(a, row, c0, yr, ox, is_max, ylo, yhi, pylo,
                              pyhi);
            }
        }
    }
}

/* one output whose window is clipped at the left or right edge */
static void pool_edge(const ln_rt_pool2d_args *a, const float *row,
                      int32_t c0, float *yr, int32_t ox, int is_max,
                      int32_t ylo, int32_t yhi, int32_t pylo, int32_t pyhi)
{
    int32_t x0 = ox * a->stride_w - a->pad_left, xlo, xhi, kx;
    float acc = is_max ? -INFINITY : 0.0f;
    ln_rt__pool_taps(x0, a->kw, a->dil_w, a->w, &xlo, &xhi);
    if (is_max) {
        for (kx = xlo; kx < xhi; kx++) {
            float v = row[x0 + kx * a->dil_w - c0];
            acc = v > acc ? v : acc;
        }
    } else {
        int32_t pxlo, pxhi, cnt;
        for (kx = xlo; kx < xhi; kx++)
            acc += row[x0 + kx * a->dil_w - c0];
        ln_rt__pool_taps(x0 + a->pad_left, a->kw, a->dil_w,
                  a->w + a->pad_left + a->pad_right, &pxlo, &pxhi);
        cnt = a->count_include_pad ? (pyhi - pylo) * (pxhi - pxlo)
                                   : (yhi - ylo) * (xhi - xlo);
        acc = cnt > 0 ? acc / (float)cnt : 0.0f;
    }
    yr[ox] = acc;
}

/* the direct form, for windows wider than the row buffer */
static void pool_plane_direct(const ln_rt_pool2d_args *a, const float *in,
                              float *y, int is_max)
{
    int32_t oy, ox, ky, kx, ylo, yhi, xlo, xhi, pylo, pyhi, pxlo, pxhi;
    for (oy = 0; oy < a->oh; oy++) {
        int32_t y0 = oy * a->stride_h - a->pad_top;
        ln_rt__pool_taps(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
        ln_rt__pool_taps(y0 + a->pad_top, a->kh, a->dil_h,
                  a->h + a->pad_top + a->pad_bottom, &pylo, &pyhi);
        for (ox = 0; ox < a->ow; ox++) {
            int32_t x0 = ox * a->stride_w - a->pad_left, cnt;
            float acc = is_max ? -INFINITY : 0.0f;
            ln_rt__pool_taps(x0, a->kw, a->dil_w, a->w, &xlo, &xhi);
            for (ky = ylo; ky < yhi; ky++) {
                const float *r = in + (size_t)(y0 + ky * a->dil_h) * a->w;
                for (kx = xlo; kx < xhi; kx++) {
                    float v = r[x0 + kx * a->dil_w];
                    acc = is_max ? (v > acc ? v : acc) : acc + v;
                }
            }
            if (!is_max) {
                ln_rt__pool_taps(x0 + a->pad_left, a->kw, a->dil_w,
                          a->w + a->pad_left + a->pad_right, &pxlo, &pxhi);
                cnt = a->count_include_pad ? (pyhi - pylo) * (pxhi - pxlo)
                                           : (yhi - ylo) * (xhi - xlo);
                acc = cnt > 0 ? acc / (float)cnt : 0.0f;
            }
            *y++ = acc;
        }
    }
}

/* One window covering each plane exactly (oh = ow = 1, window = input,
 * no padding: the AveragePool 3x3 / 8x8 / 25x5 at the end of MobileNetV1,
 * ResNet-8 and DS-CNN): a reduction over the whole plane. The general path
 * costs ~150 ns per 3x3 plane in set-up for its row buffer and edge
 * handling; this is a straight loop, with 8 partial results so that the
 * compiler vectorizes it over bigger planes. */
static int pool_is_whole_plane(const ln_rt_pool2d_args *a)
{
    return a->oh == 1 && a->ow == 1 && a->kh == a->h && a->kw == a->w &&
           a->dil_h == 1 && a->dil_w == 1 && a->pad_top == 0 &&
           a->pad_left == 0 && a->pad_bottom == 0 && a->pad_right == 0;
}

static float plane_reduce(const float *in, size_t hw, int is_max)
{
    float p[8];
    size_t i = 0;
    int j;
    if (hw < 8) {
        float r = in[0];
        for (i = 1; i < hw; i++)
            r = is_max ? (in[i] > r ? in[i] : r) : r + in[i];
        return r;
    }
    for (j = 0; j < 8; j++)
        p[j] = in[j];
    for (i = 8; i + 8 <= hw; i += 8)
        for (j = 0; j < 8; j++)
            p[j] = is_max ? (in[i + j] > p[j] ? in[i + j] : p[j])
                          : p[j] + in[i + j];
    for (j = 0; i + j < hw; j++)
        p[j] = is_max ? (in[i + j] > p[j] ? in[i + j] : p[j])
                      : p[j] + in[i + j];
    for (j = 1; j < 8; j++)
        p[0] = is_max ? (p[j] > p[0] ? p[j] : p[0]) : p[0] + p[j];
    return p[0];
}

int ln_rt_avgpool2d_nhwc_ok(const ln_rt_pool2d_args *a)
{
    return ln_rt__pool_args_ok(a) && pool_is_whole_plane(a);
}

/* plane_reduce's sums (8 partial sums over pixels i = j mod 8, then added
 * in order; one sum under 8 pixels) for up to LN_RT_POOL_NHWC_CB channels
 * at once, pixels c floats apart: the same order per channel, so the same
 * bits as the NCHW planes */
#define LN_RT_POOL_NHWC_CB 64
static void nhwc_reduce(const float *x, size_t hw, size_t c, int32_t nc,
                        float inv, float *y)
{
    float p[8][LN_RT_POOL_NHWC_CB];
    size_t i = 0;
    int32_t k;
    int j;
    if (hw < 8) {
        for (k = 0; k < nc; k++)
            p[0][k] = x[k];
        for (i = 1; i < hw; i++)
            for (k = 0; k < nc; k++)
                p[0][k] += x[i * c + k];
    } else {
        for (j = 0; j < 8; j++)
            for (k = 0; k < nc; k++)
                p[j][k] = x[(size_t)j * c + k];
        for (i = 8; i + 8 <= hw; i += 8)
            for (j = 0; j < 8; j++)
                for (k = 0; k < nc; k++)
                    p[j][k] += x[(i + (size_t)j) * c + k];
        for (j = 0; i + (size_t)j < hw; j++)
            for (k = 0; k < nc; k++)
                p[j][k] += x[(i + (size_t)j) * c + k];
        for (j = 1; j < 8; j++)
            for (k = 0; k < nc; k++)
                p[0][k] += p[j][k];
    }
    for (k = 0; k < nc; k++)
        y[k] = p[0][k] * inv;
}

int ln_rt_avgpool2d_nhwc_f32(const ln_rt_pool2d_args *a, const float *x,
                             float *y)
{
    size_t hw;
    float inv;
    int32_t b, c0;
    if (!ln_rt_avgpool2d_nhwc_ok(a))
        return LN_RT_ARG_ERROR;
    hw = (size_t)a->h * a->w;
    inv = 1.0f / (float)hw;
    for (b = 0; b < a->n; b++)
        for (c0 = 0; c0 < a->c; c0 += LN_RT_POOL_NHWC_CB)
            nhwc_reduce(x + (size_t)b * hw * a->c + c0, hw, (size_t)a->c,
                        a->c - c0 < LN_RT_POOL_NHWC_CB ? a->c - c0
                                                       : LN_RT_POOL_NHWC_CB,
                        inv, y + (size_t)b * a->c + c0);
    return LN_RT_OK;
}

static int pool2d(const ln_rt_pool2d_args *a, const float *x, float *y,
                  int is_max)
{
    size_t planes, q, hw, ohw;
    if (!ln_rt__pool_args_ok(a))
        return LN_RT_ARG_ERROR;
    planes = (size_t)a->n * a->c;
    hw = (size_t)a->h * a->w;
    ohw = (size_t)a->oh * a->ow;
    if (pool_is_whole_plane(a)) {
        const float inv = 1.0f / (float)hw;
        for (q = 0; q < planes; q++) {
            const float r = plane_reduce(x + q * hw, hw, is_max);
            y[q] = is_max ? r : r * inv;
        }
        return LN_RT_OK;
    }
#if LN_RT_HAVE_AVX2
    /* pool_plane's results, 16 or 8 outputs at a time (x86/pool_f32_simd.h);
     * not pool_plane_direct's, which sums in another order */
    if ((a->kw - 1) * a->dil_w + 1 <= LN_RT_POOL_ROW) {
#if LN_RT_HAVE_AVX512
        if (LN_RT_CPU_AVX512 && ln_rt__pool2d_f32_avx512(a, x, y, is_max))
            return LN_RT_OK;
#endif
        if (LN_RT_CPU_AVX2 && ln_rt__pool2d_f32_avx2(a, x, y, is_max))
            return LN_RT_OK;
    }
#endif
    for (q = 0; q < planes; q++) {
        if ((a->kw - 1) * a->dil_w + 1 <= LN_RT_POOL_ROW)
            pool_plane(a, x + q * hw, y + q * ohw, is_max);
        else
            pool_plane_direct(a, x + q * hw, y + q * ohw, is_max);
    }
    return LN_RT_OK;
}

int ln_rt_maxpool2d_f32(const ln_rt_pool2d_args *a, const float *x, float *y)
{
    return pool2d(a, x, y, 1);
}

int ln_rt_avgpool2d_f32(const ln_rt_pool2d_args *a, const float *x, float *y)
{
    return pool2d(a, x, y, 0);
}

/* Global pooling: plane_reduce per channel (8 running results, which
 * vectorize; one chain of adds in C's order ran at one element per add
 * latency, about 1 element per ns, 0.3 ms for a 96x56x56 plane set) */
void ln_rt_global_avgpool_f32(int32_t nc, int32_t hw, const float *x,
                              float *y)
{
    int32_t q;
    for (q = 0; q < nc; q++)
        y[q] = hw > 0 ? plane_reduce(x + (size_t)q * hw, (size_t)hw, 0) / (float)hw
                      : 0.0f;
}

void ln_rt_global_maxpool_f32(int32_t nc, int32_t hw, const float *x,
                              float *y)
{
    int32_t q;
    for (q = 0; q < nc; q++)
        y[q] = hw > 0 ? plane_reduce(x + (size_t)q * hw, (size_t)hw, 1) : -INFINITY;
}
