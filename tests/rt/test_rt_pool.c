/*
 * test_rt_pool.c -- max/avg pooling (pads, strides, ceil-mode overhang,
 * count_include_pad, dilation) and global pooling against naive references
 * that test every window tap against the (padded) input bounds directly;
 * shapes cover the interior runs, clipped edges, rows longer than the
 * kernel's 256-float row buffer, and windows wider than it, and the
 * shape classes of the x86 kernels (x86/pool_f32_simd.h), which must give
 * the portable kernel's bits at every ISA level (NaN, infinities and
 * signed zeros included).
 * Tolerance: max 0 (exact), avg 1e-6.
 */
#include <stdio.h>
#include "rt_test.h"

typedef struct {
    int32_t n, c, h, w, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw;
    int ceil_mode, cip;
} pool_case;

static const pool_case pcases[] = {
    /* n c h w kh kw sh sw pt pl pb pr dh dw ceil cip */
    { 2, 3, 7, 5, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0 },
    { 2, 3, 7, 5, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 3, 7, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 3, 7, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1 },
    { 1, 3, 7, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0 },
    { 1, 2, 9, 8, 3, 2, 1, 2, 0, 1, 2, 0, 2, 2, 0, 0 },
    { 2, 1, 6, 6, 3, 3, 3, 3, 1, 0, 0, 1, 1, 1, 1, 1 },
    { 1, 2, 5, 7, 5, 7, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0 },
    /* stride 2 (its own column pass, vectorized by even/odd loads): rows
     * of 67 and 111 (SqueezeNet's 3x3 s2 ceil mode), dilated, a one-row
     * window (no vertical pass), a two-row one */
    { 1, 2, 5, 67, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0 },
    { 1, 2, 7, 111, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 2, 11, 13, 3, 3, 2, 2, 0, 0, 0, 0, 2, 2, 1, 0 },
    { 1, 2, 6, 9, 1, 3, 2, 2, 0, 1, 0, 1, 1, 1, 0, 1 },
    { 2, 3, 9, 37, 2, 4, 2, 2, 1, 2, 0, 1, 3, 1, 1, 1 },
    /* one window = the whole plane (the reduction fast path): MobileNetV1's
     * 3x3 s3, ResNet-8's 8x8, DS-CNN's 25x5, 1x1, short and odd planes */
    { 2, 5, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 1, 1, 0, 0 },
    { 1, 3, 8, 8, 8, 8, 8, 8, 0, 0, 0, 0, 1, 1, 0, 1 },
    { 1, 4, 25, 5, 25, 5, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0 },
    { 3, 2, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0 },
    { 1, 3, 2, 3, 2, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 2, 17, 1, 17, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0 },
    /* rows longer than the 256-float row buffer: chunked column passes */
    { 1, 2, 3, 300, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0 },
    { 1, 1, 4, 601, 2, 5, 1, 3, 0, 2, 1, 0, 1, 2, 0, 1 },
    /* window wider than the row buffer: the direct path */
    { 1, 1, 2, 300, 1, 3, 1, 1, 0, 0, 0, 0, 1, 130, 0, 0 },
    /* the x86 kernels (x86/pool_f32_simd.h: stride_w 1 or 2, rows up to
     * their row buffer). The model layers, fewer channels: SqueezeNet 1.1's
     * 3x3 s2 ceil mode at 111, 55 and 27 (to 55, 27, 13), ResNet-18's 3x3
     * s2 pad 1 at 112, DenseNet-121's 2x2 s2 transitions (batch 2 at 14) */
    { 1, 3, 111, 111, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 4, 55, 55, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 5, 27, 27, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 3, 112, 112, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 3, 56, 56, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0 },
    { 1, 2, 28, 28, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 1 },
    { 2, 3, 14, 14, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0 },
    /* stride 1, 3x3 pad 1 (ow = w): below, at and above 8, 16 and 32
     * outputs, a 1-wide plane; count_include_pad on and off */
    { 1, 2, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 6, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 2, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 2, 6, 15, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 6, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 2, 6, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 6, 31, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 2, 6, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 6, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 },
    /* stride 2, 3x3 pad 1 (ow = (w + 1) / 2): 1, 15, 16, 17, 31, 32, 33
     * outputs; ceil mode windows past the end */
    { 1, 2, 5, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1 },
    { 1, 2, 7, 29, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 7, 31, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 2, 7, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 7, 61, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 0 },
    { 1, 2, 7, 63, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 0, 1 },
    { 1, 2, 8, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 0 },
    { 1, 2, 8, 66, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, 1 },
    /* pads bigger than the stride, asymmetric, ceil mode on both axes,
     * even kernels at stride 1, 8x8, 1x1 at stride 2 (one row, one tap) */
    { 1, 2, 9, 20, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1 },
    { 1, 2, 9, 20, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 1, 0 },
    { 1, 2, 10, 19, 4, 4, 1, 1, 1, 1, 2, 2, 1, 1, 0, 1 },
    { 1, 2, 10, 19, 4, 4, 1, 1, 2, 1, 1, 2, 1, 1, 1, 0 },
    { 1, 2, 12, 40, 8, 8, 1, 1, 3, 4, 4, 3, 1, 1, 0, 1 },
    { 1, 2, 12, 40, 8, 8, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 1, 2, 7, 21, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0 },
    /* stride_h 3 with stride_w 2, dilation, many planes */
    { 1, 2, 17, 35, 3, 3, 3, 2, 1, 1, 1, 1, 2, 2, 1, 1 },
    { 2, 40, 5, 6, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0 },
    { 3, 37, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1 },
    /* pads wider than the kernel: windows in the padding only */
    { 1, 2, 4, 3, 2, 2, 1, 1, 3, 3, 0, 0, 1, 1, 0, 1 },
    /* rows at the end of the row buffer: 496 outputs at stride 2 (past
     * the 16-lane kernel's, inside the 8-lane one's), 1,050 (past both) */
    { 1, 2, 3, 994, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 0, 0 },
    { 1, 1, 2, 2101, 2, 3, 2, 2, 0, 1, 0, 1, 1, 1, 1, 1 },
};

static int32_t out_len(int32_t in, int32_t k, int32_t s, int32_t p0,
                       int32_t p1, int32_t d, int ceil_mode)
{
    int32_t span = d * (k - 1) + 1, num = in + p0 + p1 - span;
    int32_t o = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
    /* ONNX / PyTorch: the last window must start inside input + pad0 */
    if (ceil_mode && (o - 1) * s >= in + p0)
        o--;
    return o;
}

/* max and average pooling at each ISA level this process runs
 * (ln_rt_isa_limit) give the same bits as at level 0, the portable C */
static void pool_levels_same(const ln_rt_pool2d_args *a, const float *x,
                             size_t nx, size_t ny)
{
    const int top = ln_rt_isa_limit(-1);
    float *y0 = rt_alloc(2 * ny), *y1 = rt_alloc(2 * ny);
    int lev, bad = 0;
    size_t i;
    (void)nx;
    ln_rt_isa_limit(0);
    ck_assert_int_eq(ln_rt_maxpool2d_f32(a, x, y0), LN_RT_OK);
    ck_assert_int_eq(ln_rt_avgpool2d_f32(a, x, y0 + ny), LN_RT_OK);
    for (lev = 1; lev <= top; lev++) {
        ln_rt_isa_limit(lev);
        for (i = 0; i < 2 * ny; i++)
            y1[i] = -1234.5f;
        ck_assert_int_eq(ln_rt_maxpool2d_f32(a, x, y1), LN_RT_OK);
        ck_assert_int_eq(ln_rt_avgpool2d_f32(a, x, y1 + ny), LN_RT_OK);
        for (i = 0; i < 2 * ny; i++)
            if (memcmp(&y0[i], &y1[i], sizeof(float)) != 0 &&
                !(isnan(y0[i]) && isnan(y1[i])) && bad++ < 3)
                fprintf(stderr, "pool level %d: %s[%zu] = %.9g, portable "
                        "%.9g\n", lev, i < ny ? "max" : "avg",
                        i < ny ? i : i - ny, (double)y1[i], (double)y0[i]);
    }
    ln_rt_isa_limit(top);
    free(y0); free(y1);
    ck_assert_msg(bad == 0, "%d pooled values differ from the portable "
                  "kernel's", bad);
}

START_TEST(test_pool_cases)
{
    const pool_case *p = &pcases[_i];
    ln_rt_pool2d_args a;
    int32_t oh, ow, q, oy, ox, ky, kx;
    size_t nx, ny;
    float *x, *ym, *ya;
    double *rm, *ra;

    oh = out_len(p->h, p->kh, p->sh, p->pt, p->pb, p->dh, p->ceil_mode);
    ow = out_len(p->w, p->kw, p->sw, p->pl, p->pr, p->dw, p->ceil_mode);
    memset(&a, 0, sizeof(a));
    a.n = p->n; a.c = p->c; a.h = p->h; a.w = p->w; a.oh = oh; a.ow = ow;
    a.kh = p->kh; a.kw = p->kw; a.stride_h = p->sh; a.stride_w = p->sw;
    a.pad_top = p->pt; a.pad_left = p->pl; a.pad_bottom = p->pb;
    a.pad_right = p->pr; a.dil_h = p->dh; a.dil_w = p->dw;
    a.count_include_pad = p->cip;
    nx = (size_t)p->n * p->c * p->h * p->w;
    ny = (size_t)p->n * p->c * oh * ow;
    x = rt_alloc(nx); ym = rt_alloc(ny); ya = rt_alloc(ny);
    rm = rt_allocd(ny); ra = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 90 + _i);
    for (q = 0; q < p->n * p->c; q++)
        for (oy = 0; oy < oh; oy++)
            for (ox = 0; ox < ow; ox++) {
                double m = -INFINITY, s = 0;
                int cnt = 0, cntp = 0;
                for (ky = 0; ky < p->kh; ky++)
                    for (kx = 0; kx < p->kw; kx++) {
                        int32_t iy = oy * p->sh - p->pt + ky * p->dh;
                        int32_t ix = ox * p->sw - p->pl + kx * p->dw;
                        if (iy < p->h + p->pb && ix < p->w + p->pr)
                            cntp++;
                        if (iy < 0 || iy >= p->h || ix < 0 || ix >= p->w)
                            continue;
                        cnt++;
                        s += x[((size_t)q * p->h + iy) * p->w + ix];
                        if (x[((size_t)q * p->h + iy) * p->w + ix] > m)
                            m = x[((size_t)q * p->h + iy) * p->w + ix];
                    }
                rm[((size_t)q * oh + oy) * ow + ox] = m;
                ra[((size_t)q * oh + oy) * ow + ox] =
                    s / (p->cip ? cntp : cnt);
            }
    ck_assert_int_eq(ln_rt_maxpool2d_f32(&a, x, ym), LN_RT_OK);
    RT_CHECK(ym, rm, ny, 0, "maxpool2d");
    ck_assert_int_eq(ln_rt_avgpool2d_f32(&a, x, ya), LN_RT_OK);
    RT_CHECK(ya, ra, ny, 1e-6, "avgpool2d");
    /* every ISA level gives the portable kernel's bits */
    pool_levels_same(&a, x, nx, ny);
    free(x); free(ym); free(ya); free(rm); free(ra);
}
END_TEST

/* NaN, infinities and zeros of both signs at 1 in 5 inputs: each ISA
 * level gives the bits of the portable kernel (level 0) -- which, as a
 * comparison chain, passes a NaN on only from the first reduced tap of
 * a window lying inside the input -- for max and average */
START_TEST(test_pool_special_values)
{
    static const float sp[] = { NAN, -0.0f, 0.0f, INFINITY, -INFINITY };
    const pool_case *p = &pcases[_i];
    ln_rt_pool2d_args a;
    size_t nx, ny, i;
    uint32_t seed = 7 + (uint32_t)_i;
    float *x;

    memset(&a, 0, sizeof(a));
    a.n = p->n; a.c = p->c; a.h = p->h; a.w = p->w;
    a.oh = out_len(p->h, p->kh, p->sh, p->pt, p->pb, p->dh, p->ceil_mode);
    a.ow = out_len(p->w, p->kw, p->sw, p->pl, p->pr, p->dw, p->ceil_mode);
    a.kh = p->kh; a.kw = p->kw; a.stride_h = p->sh; a.stride_w = p->sw;
    a.pad_top = p->pt; a.pad_left = p->pl; a.pad_bottom = p->pb;
    a.pad_right = p->pr; a.dil_h = p->dh; a.dil_w = p->dw;
    a.count_include_pad = p->cip;
    nx = (size_t)p->n * p->c * p->h * p->w;
    ny = (size_t)p->n * p->c * a.oh * a.ow;
    x = rt_alloc(nx);
    rt_fill(x, nx, -1, 1, 300 + _i);
    for (i = 0; i < nx; i++)
        if (rt_rand(&seed) % 5 == 0)
            x[i] = sp[rt_rand(&seed) % 5];
    pool_levels_same(&a, x, nx, ny);
    free(x);
}
END_TEST

START_TEST(test_pool_known_values)
{
    /* 1x1x3x3 = 1..9, 2x2 avg, stride 2, ceil mode, no pad: windows
     * {1,2,4,5} {3,6} {7,8} {9}; count_include_pad makes no difference
     * without padding */
    float x[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 }, y[4];
    double ref[4] = { 3.0, 4.5, 7.5, 9.0 }, refm[4] = { 5, 6, 8, 9 };
    ln_rt_pool2d_args a;
    memset(&a, 0, sizeof(a));
    a.n = 1; a.c = 1; a.h = 3; a.w = 3; a.oh = 2; a.ow = 2; a.kh = 2;
    a.kw = 2; a.stride_h = 2; a.stride_w = 2; a.dil_h = 1; a.dil_w = 1;
    ck_assert_int_eq(ln_rt_avgpool2d_f32(&a, x, y), LN_RT_OK);
    RT_CHECK(y, ref, 4, 0, "avgpool ceil");
    ck_assert_int_eq(ln_rt_maxpool2d_f32(&a, x, y), LN_RT_OK);
    RT_CHECK(y, refm, 4, 0, "maxpool ceil");
    a.stride_h = 0;
    ck_assert_int_eq(ln_rt_maxpool2d_f32(&a, x, y), LN_RT_ARG_ERROR);
}
END_TEST

/* planes of 1 to 3,136 (56x56) elements: below, at and past the 8
 * running results of plane_reduce, with tails */
/* The average pool over each whole plane of a channels-last input
 * (ln_rt_avgpool2d_nhwc_f32) gives ln_rt_avgpool2d_f32's bits on the NCHW
 * one: planes of 125 (DS-CNN), 9, 6 (under 8 pixels), 1 pixel, channels
 * in one block of 64 and several (100, 256), batch 2; refused with pads or
 * a window smaller than the plane */
START_TEST(test_avgpool_nhwc)
{
    static const int32_t shapes[][4] = {
        {1, 64, 25, 5}, {1, 256, 3, 3}, {2, 100, 2, 3}, {1, 16, 1, 1},
        {2, 70, 7, 7},
    };
    const int32_t *d = shapes[_i];
    const size_t hw = (size_t)d[2] * d[3], nx = (size_t)d[0] * d[1] * hw;
    const size_t ny = (size_t)d[0] * d[1];
    ln_rt_pool2d_args a;
    float *x = rt_alloc(nx), *xc = rt_alloc(nx), *y = rt_alloc(ny);
    float *yc = rt_alloc(ny + 4);
    int32_t b, c, j;
    size_t p;
    memset(&a, 0, sizeof a);
    a.n = d[0]; a.c = d[1]; a.h = d[2]; a.w = d[3];
    a.oh = a.ow = 1; a.kh = d[2]; a.kw = d[3];
    a.stride_h = a.stride_w = 1; a.dil_h = a.dil_w = 1;
    rt_fill(x, nx, -3, 3, 77u + (uint32_t)_i);
    for (b = 0; b < d[0]; b++)
        for (c = 0; c < d[1]; c++)
            for (p = 0; p < hw; p++)
                xc[((size_t)b * hw + p) * d[1] + c] = x[((size_t)b * d[1] + c) * hw + p];
    ck_assert(ln_rt_avgpool2d_nhwc_ok(&a));
    ck_assert_int_eq(ln_rt_avgpool2d_f32(&a, x, y), LN_RT_OK);
    rt_fill(yc, ny + 4, 50, 60, 3);
    ck_assert_int_eq(ln_rt_avgpool2d_nhwc_f32(&a, xc, yc), LN_RT_OK);
    ck_assert_msg(!memcmp(y, yc, ny * sizeof(float)), "shape %d: not the NCHW pool's bits", _i);
    for (j = 0; j < 4; j++)
        ck_assert(yc[ny + (size_t)j] >= 50 && yc[ny + (size_t)j] <= 60);
    if (hw > 1) {
        ln_rt_pool2d_args k = a;
        k.kw = a.w - 1 > 0 ? a.w - 1 : 1;
        k.kh = a.h - 1 > 0 ? a.h - 1 : 1;
        k.oh = a.h - k.kh + 1; k.ow = a.w - k.kw + 1;
        ck_assert(!ln_rt_avgpool2d_nhwc_ok(&k));
        ck_assert_int_eq(ln_rt_avgpool2d_nhwc_f32(&k, xc, yc), LN_RT_ARG_ERROR);
    }
    a.pad_top = a.pad_bottom = 1;
    ck_assert(!ln_rt_avgpool2d_nhwc_ok(&a));
    free(x); free(xc); free(y); free(yc);
}
END_TEST

START_TEST(test_global_pool)
{
    static const int32_t hws[] = { 1, 5, 8, 9, 35, 49, 196, 3136 };
    static float x[6 * 3136];
    float ya[6], ym[6];
    double ra[6], rm[6];
    int q, i, hw;
    size_t t;
    for (t = 0; t < sizeof hws / sizeof hws[0]; t++) {
        hw = hws[t];
        rt_fill(x, (size_t)6 * hw, -1, 1, 123 + (int)t);
        for (q = 0; q < 6; q++) {
            double s = 0, m = -INFINITY;
            for (i = 0; i < hw; i++) {
                s += x[q * hw + i];
                m = x[q * hw + i] > m ? x[q * hw + i] : m;
            }
            ra[q] = s / hw;
            rm[q] = m;
        }
        ln_rt_global_avgpool_f32(6, hw, x, ya);
        ln_rt_global_maxpool_f32(6, hw, x, ym);
        RT_CHECK(ya, ra, 6, 1e-6, "global avgpool");
        RT_CHECK(ym, rm, 6, 0, "global maxpool");
    }
}
END_TEST

Suite *rt_pool_suite(void)
{
    Suite *s = suite_create("rt_pool");
    TCase *tc = tcase_create("pool");
    tcase_add_loop_test(tc, test_pool_cases, 0,
                        (int)(sizeof(pcases) / sizeof(pcases[0])));
    tcase_add_loop_test(tc, test_pool_special_values, 0,
                        (int)(sizeof(pcases) / sizeof(pcases[0])));
    tcase_add_test(tc, test_pool_known_values);
    tcase_add_test(tc, test_global_pool);
    tcase_add_loop_test(tc, test_avgpool_nhwc, 0, 5);
    suite_add_tcase(s, tc);
    return s;
}
