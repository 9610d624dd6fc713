/*
 * test_rt_pool.c -- max/avg pooling (pads, strides, ceil-mode overhang,
 * count_include_pad, dilation) and global pooling against naive references
 * that test every window tap against the (padded) input bounds directly;
 * shapes cover the interior runs, clipped edges, rows longer than the
 * kernel's 256-float row buffer, and windows wider than it.
 * Tolerance: max 0 (exact), avg 1e-6.
 */
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
    free(x); free(ym); free(ya); free(rm); free(ra);
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
    tcase_add_test(tc, test_pool_known_values);
    tcase_add_test(tc, test_global_pool);
    suite_add_tcase(s, tc);
    return s;
}
