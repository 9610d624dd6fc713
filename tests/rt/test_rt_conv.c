/*
 * test_rt_conv.c -- conv2d (GEMM path, 1x1, depthwise) and conv_transpose2d
 * against naive double-precision references, for the public (build-ISA)
 * kernel, the portable kernel, and ISA vs portable on the same inputs.
 * Tolerance: 2e-5 max rel err (sums of <= 400 products of values in
 * [-1, 1] in float); ISA vs portable 2e-5 (different summation order).
 */
#include "rt_test.h"
#include "x86/conv2d_s2few_avx512.h"

typedef struct {
    int32_t n, c, h, w, oc, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, g;
    ln_rt_act act;
    int bias;
} conv_case;

static const conv_case cases[] = {
    /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
    { 2, 3, 7, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 3, 7, 5, 5, 3, 3, 2, 2, 1, 0, 2, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 2, 6, 9, 7, 6, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3, LN_RT_ACT_LEAKYRELU, 1 },
    { 1, 16, 7, 5, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU6, 1 },
    { 2, 8, 9, 11, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8, LN_RT_ACT_CLIP, 1 },
    { 1, 8, 9, 11, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 8, LN_RT_ACT_NONE, 1 },
    { 1, 4, 5, 40, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4, LN_RT_ACT_RELU, 0 },
    { 1, 3, 6, 37, 3, 5, 5, 1, 1, 4, 4, 4, 4, 2, 2, 3, LN_RT_ACT_NONE, 1 },
    { 1, 40, 13, 17, 130, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 2, 8, 6, 3, 5, 3, 1, 2, 2, 1, 0, 2, 1, 1, 1, LN_RT_ACT_NONE, 0 },
    { 1, 1, 2, 2, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 2, 12, 5, 7, 9, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 3, LN_RT_ACT_RELU, 1 },
    { 1, 64, 14, 14, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 5, 17, 23, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, LN_RT_ACT_RELU6, 1 },
    { 1, 5, 17, 33, 5, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 5, LN_RT_ACT_RELU6, 1 },
    { 1, 2, 5, 70, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_RELU, 1 },
    { 2, 3, 4, 71, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3, LN_RT_ACT_NONE, 1 },
    /* grouped 1x1 stride 1 (image read in place per group), batch 2 */
    { 2, 12, 5, 7, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 3, LN_RT_ACT_RELU, 1 },
    /* 1x1 with K > 256 and N > 192: in-place B across k and n blocks */
    { 1, 300, 15, 15, 13, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 0 },
    /* 1x1 N tails for 16- and 32-wide panels read in place: 49 = 32 + 16
     * + 1, 25 = 16 + 9, 36 = 32 + 4, 9; M tails for MR 4, 6, 8 */
    { 1, 20, 7, 7, 13, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 17, 5, 5, 20, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU6, 1 },
    { 2, 130, 6, 6, 9, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 33, 3, 3, 31, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 0 },
    /* 1x1 with >= 128 channels in and out: B packed, not read in place
     * (conv_b_in_place), N tails, M tail, batch 2 */
    { 2, 136, 13, 11, 130, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    /* 3x3 with <= 32 outputs: direct with K over 1024 (1080) and with an
     * input over 1 MiB (direct_3x3_narrow), oc tails */
    { 1, 120, 12, 11, 29, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 8, 182, 181, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    /* tiny-model first layers: few input channels, stride 2 */
    { 1, 3, 19, 21, 8, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 1, 49, 10, 64, 10, 4, 2, 2, 4, 1, 5, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    /* ResNet-18's 7x7 s2 first conv in small: an input over 256 KiB keeps
     * it on the GEMM, whose packer copies stride-2 rows of >= 16 outputs
     * apart (copy_stride2), with pads at both ends of a row */
    { 1, 3, 150, 150, 8, 7, 7, 2, 2, 3, 3, 2, 3, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    /* Cortex-M4 variant paths: 3x3 s1 / s2 edge and interior tiles, odd
     * widths, oc tails of 1-3, depthwise at DS-CNN's 25x5 */
    { 1, 5, 8, 8, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 6, 9, 13, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 3, 7, 5, 10, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 0 },
    { 1, 8, 25, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8, LN_RT_ACT_RELU, 1 },
    { 1, 6, 11, 18, 6, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 6, LN_RT_ACT_NONE, 1 },
    /* the fused SiLU: direct 3x3, 1x1 (GEMM), depthwise (EfficientNet) */
    { 1, 40, 13, 17, 130, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_SILU, 1 },
    { 1, 64, 14, 14, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_SILU, 1 },
    { 1, 24, 15, 15, 24, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 24, LN_RT_ACT_SILU, 1 },
    { 2, 5, 17, 23, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5, LN_RT_ACT_SILU, 0 },
    /* the fused hardswish (MobileNetV3): 1x1, depthwise 5x5 s2 */
    { 1, 16, 9, 9, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_HARDSWISH, 1 },
    { 1, 24, 15, 15, 24, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 24, LN_RT_ACT_HARDSWISH, 1 },
};

static void conv_ref(const conv_case *k, const float *x, const float *wt,
                     const float *b, double *y, int32_t oh, int32_t ow)
{
    int32_t cg = k->c / k->g, mg = k->oc / k->g, bi, o, oy, ox, ci, ky, kx;
    for (bi = 0; bi < k->n; bi++)
        for (o = 0; o < k->oc; o++) {
            int32_t g = o / mg;
            for (oy = 0; oy < oh; oy++)
                for (ox = 0; ox < ow; ox++) {
                    double s = b ? b[o] : 0.0;
                    for (ci = 0; ci < cg; ci++)
                        for (ky = 0; ky < k->kh; ky++)
                            for (kx = 0; kx < k->kw; kx++) {
                                int32_t iy = oy * k->sh - k->pt + ky * k->dh;
                                int32_t ix = ox * k->sw - k->pl + kx * k->dw;
                                if (iy < 0 || iy >= k->h || ix < 0 ||
                                    ix >= k->w)
                                    continue;
                                s += (double)x[(((size_t)bi * k->c + g * cg +
                                                 ci) * k->h + iy) * k->w +
                                               ix] *
                                     wt[(((size_t)o * cg + ci) * k->kh + ky) *
                                            k->kw + kx];
                            }
                    y[(((size_t)bi * k->oc + o) * oh + oy) * ow + ox] =
                        rt_act(s, k->act, 0.1, 0.8);
                }
        }
}

/* the random sweeps' pads: 0..3 on each side, top, bottom, left, right */
static void rand_pads(conv_case *k, uint32_t *s)
{
    k->pt = (int32_t)(rt_rand(s) % 4);
    k->pb = (int32_t)(rt_rand(s) % 4);
    k->pl = (int32_t)(rt_rand(s) % 4);
    k->pr = (int32_t)(rt_rand(s) % 4);
}

static void to_args(const conv_case *k, ln_rt_conv2d_args *a)
{
    memset(a, 0, sizeof(*a));
    a->n = k->n; a->c = k->c; a->h = k->h; a->w = k->w; a->oc = k->oc;
    a->kh = k->kh; a->kw = k->kw; a->stride_h = k->sh; a->stride_w = k->sw;
    a->pad_top = k->pt; a->pad_left = k->pl; a->pad_bottom = k->pb;
    a->pad_right = k->pr; a->dil_h = k->dh; a->dil_w = k->dw;
    a->group = k->g; a->act = k->act;
    a->alpha = 0.1f; /* leakyrelu slope; clip lo */
    a->beta = 0.8f;
}

START_TEST(test_conv2d_cases)
{
    const conv_case *k = &cases[_i];
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny, ss;
    float *x, *wt, *b, *y, *yc;
    double *ref;
    void *scr;
    /* float sums of K = c/g*kh*kw products against a double reference:
     * 2e-5 up to K = 512, in proportion above (K = 1152 read 2.1e-5) */
    const double kk = (double)(k->c / k->g) * k->kh * k->kw;
    const double tol = kk > 512 ? 2e-5 * kk / 512 : 2e-5;

    to_args(k, &a);
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, k->dh);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, k->dw);
    ck_assert_int_gt(oh, 0);
    ck_assert_int_gt(ow, 0);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * (k->c / k->g) * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k->oc);
    y = rt_alloc(ny); yc = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 1 + _i);
    rt_fill(wt, nw, -1, 1, 100 + _i);
    rt_fill(b, k->oc, -1, 1, 200 + _i);
    conv_ref(k, x, wt, k->bias ? b : NULL, ref, oh, ow);
    ss = ln_rt_conv2d_f32_scratch_size(&a);
    /* the depthwise kernel's own size (ln_rt_conv2d_f32 runs depthwise
     * shapes through the GEMM engine: the compiler sends them to
     * ln_rt_conv2d_depthwise_f32) */
    if (ln_rt_conv2d_depthwise_f32_scratch_size(&a) > ss)
        ss = ln_rt_conv2d_depthwise_f32_scratch_size(&a);
    scr = rt_scratch(ss);

    rt_fill(y, ny, 50, 60, 7); /* garbage must be overwritten */
    ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, wt, k->bias ? b : NULL, y, scr),
                     LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d (build ISA)");
    rt_fill(yc, ny, 50, 60, 8);
    ck_assert_int_eq(ln_rt__conv2d_f32_isa(&ln_rt__gemm_isa_c, &a, x, wt,
                                           k->bias ? b : NULL, yc, scr),
                     LN_RT_OK);
    RT_CHECK(yc, ref, ny, tol, "conv2d (portable)");
    ck_assert_msg(rt_err_ff(y, yc, ny) <= tol, "ISA vs portable");
    /* the depthwise-only kernel: the same shapes, ARG_ERROR for others */
    rt_fill(y, ny, 50, 60, 7);
    if (k->g == k->c && k->oc % k->c == 0) {
        ck_assert_uint_le(ln_rt_conv2d_depthwise_f32_scratch_size(&a), ss);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt,
                                                    k->bias ? b : NULL, y,
                                                    scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, tol, "conv2d_depthwise");
    } else {
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt,
                                                    k->bias ? b : NULL, y,
                                                    scr), LN_RT_ARG_ERROR);
        ck_assert_uint_eq(ln_rt_conv2d_depthwise_f32_scratch_size(&a), 0);
    }

    /* the Cortex-M4 variants (the same C the M4 build runs) with exactly
     * the scratch the M4's size functions ask for: none */
    ck_assert_uint_eq(ln_rt_conv2d_f32_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 0);
    rt_fill(y, ny, 50, 60, 11);
    ck_assert_int_eq(ln_rt_conv2d_f32_for(LN_RT_TARGET_CORTEX_M4, &a, x, wt,
                                          k->bias ? b : NULL, y, NULL), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d (Cortex-M4 variant)");
    ck_assert_uint_eq(ln_rt_conv2d_f32_scratch_size_for(LN_RT_TARGET_HOST, &a),
                      ln_rt_conv2d_f32_scratch_size(&a));
    if (k->g == k->c && k->oc % k->c == 0) {
        ck_assert_uint_eq(ln_rt_conv2d_depthwise_f32_scratch_size_for(
                              LN_RT_TARGET_CORTEX_M4, &a), 0);
        rt_fill(y, ny, 50, 60, 12);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32_for(LN_RT_TARGET_CORTEX_M4, &a, x,
                                                        wt, k->bias ? b : NULL, y,
                                                        NULL), LN_RT_OK);
        RT_CHECK(y, ref, ny, tol, "conv2d_depthwise (Cortex-M4 variant)");
    }

    {
        int i;
        for (i = 1; i < RT_NISA; i++) { /* each ISA kernel of this build */
            rt_fill(y, ny, 50, 60, 10);
            ck_assert_int_eq(ln_rt__conv2d_f32_isa(rt_isas[i], &a, x, wt,
                                                   k->bias ? b : NULL, y,
                                                   scr), LN_RT_OK);
            RT_CHECK(y, ref, ny, tol, "conv2d (ISA list)");
            ck_assert_msg(rt_err_ff(y, yc, ny) <= tol, "ISA %d vs portable",
                          i);
        }
    }
    free(x); free(wt); free(b); free(y); free(yc); free(ref); free(scr);
}
END_TEST

/* The residual epilogue, dst = act(conv + bias + res), on every case: each
 * ISA's host path (direct or GEMM), the host entry point with res apart
 * and with res == dst, the Cortex-M4 variant; NULL res is refused. */
START_TEST(test_conv2d_res_cases)
{
    const conv_case *k = &cases[_i];
    conv_case k0 = *k;
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny, ss, j;
    float *x, *wt, *b, *y, *res;
    double *ref;
    void *scr;
    const double kk = (double)(k->c / k->g) * k->kh * k->kw;
    const double tol = kk > 512 ? 2e-5 * kk / 512 : 2e-5;
    int i;

    to_args(k, &a);
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, k->dh);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, k->dw);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * (k->c / k->g) * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k->oc);
    y = rt_alloc(ny); res = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 1 + _i);
    rt_fill(wt, nw, -1, 1, 100 + _i);
    rt_fill(b, k->oc, -1, 1, 200 + _i);
    rt_fill(res, ny, -2, 2, 300 + _i);
    k0.act = LN_RT_ACT_NONE;
    conv_ref(&k0, x, wt, k->bias ? b : NULL, ref, oh, ow);
    for (j = 0; j < ny; j++)
        ref[j] = rt_act(ref[j] + res[j], k->act, 0.1, 0.8);
    ss = ln_rt_conv2d_f32_scratch_size(&a);
    scr = rt_scratch(ss);
    for (i = 0; i < RT_NISA; i++) {
        rt_fill(y, ny, 50, 60, 7);
        ck_assert_int_eq(ln_rt__conv2d_res_f32_isa(rt_isas[i], &a, x, wt,
                                                   k->bias ? b : NULL, res,
                                                   y, scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, tol, "conv2d + residual (ISA list)");
    }
    rt_fill(y, ny, 50, 60, 7);
    ck_assert_int_eq(ln_rt_conv2d_res_f32_for(LN_RT_TARGET_HOST, &a, x, wt,
                                              k->bias ? b : NULL, res, y,
                                              scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d + residual (host)");
    memcpy(y, res, ny * sizeof(float)); /* in place: res is dst */
    ck_assert_int_eq(ln_rt_conv2d_res_f32_for(LN_RT_TARGET_HOST, &a, x, wt,
                                              k->bias ? b : NULL, y, y,
                                              scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d + residual (host, res == dst)");
    rt_fill(y, ny, 50, 60, 8);
    ck_assert_int_eq(ln_rt_conv2d_res_f32_for(LN_RT_TARGET_CORTEX_M4, &a, x,
                                              wt, k->bias ? b : NULL, res, y,
                                              NULL), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d + residual (Cortex-M4 variant)");
    ck_assert_int_eq(ln_rt_conv2d_res_f32_for(LN_RT_TARGET_HOST, &a, x, wt,
                                              k->bias ? b : NULL, NULL, y,
                                              scr), LN_RT_ARG_ERROR);
    free(x); free(wt); free(b); free(y); free(res); free(ref); free(scr);
}
END_TEST

START_TEST(test_conv2d_bad_args)
{
    ln_rt_conv2d_args a;
    float x[4] = {0}, w[4] = {0}, y[4];
    to_args(&cases[0], &a);
    a.group = 2; /* c = 3 is not a multiple */
    ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, w, NULL, y, NULL),
                     LN_RT_ARG_ERROR);
    to_args(&cases[0], &a);
    a.stride_h = 0;
    ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, w, NULL, y, NULL),
                     LN_RT_ARG_ERROR);
    ck_assert_int_eq(ln_rt_conv_out_size(7, 3, 2, 1, 1, 1), 4);
    ck_assert_int_eq(ln_rt_conv_out_size(5, 3, 1, 0, 0, 2), 1);
    ck_assert_int_eq(ln_rt_conv_out_size(2, 3, 1, 0, 0, 1), 0);
}
END_TEST

/* Scratch is ISA-independent: depthwise kernel, one zero-padded plane (row
 * slack 16); GEMM path, one partial A panel (24 rows) + one KC x NC B block
 * (K <= 256 rows, N rounded to 16, NC = 192, + 16 columns when that is an
 * even number of cache lines: LN_RT_GEMM_LDB) + 16 floats of alignment;
 * 1x1 stride 1 reads the image in place and needs only a 16-column B panel */
START_TEST(test_conv2d_scratch_size)
{
    ln_rt_conv2d_args a;
    to_args(&cases[4], &a);
    ck_assert_uint_eq(ln_rt_conv2d_depthwise_f32_scratch_size(&a),
                      (size_t)(11 + 2 + 16) * (9 + 2) * sizeof(float));
    to_args(&cases[8], &a); /* K = 360, N = 13 x 14 (not "same": GEMM) */
    a.w = 15;
    a.pad_right = 0;
    ck_assert(!ln_rt__conv2d_direct_ok(&a));
    ck_assert_uint_eq(ln_rt_conv2d_f32_scratch_size(&a),
                      (size_t)((24 + 192 + 16) * 256 + 16) * sizeof(float));
    to_args(&cases[23], &a); /* 1x1 136 -> 130: B packed, not in place */
    ck_assert(!ln_rt__conv2d_direct_ok(&a));
    ck_assert_uint_eq(ln_rt_conv2d_f32_scratch_size(&a),
                      (size_t)((24 + 160) * 136 + 16) * sizeof(float));
    to_args(&cases[24], &a); /* 3x3, 29 outputs, K = 1080: direct */
    ck_assert(ln_rt__conv2d_direct_ok(&a));
    to_args(&cases[25], &a); /* 3x3, 3 outputs, image over 1 MiB: direct */
    ck_assert(ln_rt__conv2d_direct_ok(&a));
    a.oc = 33; /* but not with 33 outputs */
    ck_assert(!ln_rt__conv2d_direct_ok(&a));
    /* 3x3 stride 1 up to K = 2304 with <= 192 outputs, image <= 1 MiB */
    memset(&a, 0, sizeof(a));
    a.n = 1; a.c = 128; a.h = a.w = 28; a.oc = 128; a.kh = a.kw = 3;
    a.stride_h = a.stride_w = 1; a.dil_h = a.dil_w = 1; a.group = 1;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
    ck_assert(ln_rt__conv2d_direct_ok(&a)); /* K = 1152 */
    a.c = 256; a.oc = 192;
    ck_assert(ln_rt__conv2d_direct_ok(&a)); /* K = 2304, 784 KiB */
    a.oc = 193;
    ck_assert(!ln_rt__conv2d_direct_ok(&a));
    a.oc = 64; a.c = 257;
    ck_assert(!ln_rt__conv2d_direct_ok(&a)); /* K = 2313 */
    a.c = 128; a.stride_h = a.stride_w = 2;
    ck_assert(!ln_rt__conv2d_direct_ok(&a)); /* stride 2: K <= 1024 */
    a.c = 256; a.oc = 512; a.h = a.w = 14; a.kh = a.kw = 1;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 0;
    ck_assert(!ln_rt__conv2d_direct_ok(&a)); /* 1x1 stride 2: the GEMM */
    a.stride_h = a.stride_w = 1; a.h = a.w = 7; a.c = 160; a.oc = 512;
    ck_assert(ln_rt__conv2d_direct_ok(&a)); /* 1x1, 49 pixels: direct */
    a.oc = 513;
    ck_assert(!ln_rt__conv2d_direct_ok(&a)); /* but not past 512 outputs */
    to_args(&cases[12], &a); /* 1x1, K = 64, image over 256 KiB: GEMM */
    a.h = a.w = 33;
    ck_assert(!ln_rt__conv2d_direct_ok(&a));
    ck_assert_uint_eq(ln_rt_conv2d_f32_scratch_size(&a),
                      (size_t)((24 + 16) * 64 + 16) * sizeof(float));
}
END_TEST

/* ---- depthwise sweep: every direct variant vs the reference --------------
 * Random shapes (seeded): widths 1..150 (vector tails, 1..3 blocks of 32 or
 * 64 outputs), kh/kw 1..9 (kw 9 is beyond the direct kernels; 3x3 and
 * 5x5 more often, their unrolled instances), stride
 * 1..3 per axis, dilation 1 or 2, asymmetric pads 0..4 (some larger than
 * the kernel), channel multiplier 1..2, batch 1..2, every activation.
 * The direct kernels must either decline (return 0, dst untouched) or
 * match the double reference to 2e-5; the public kernel and the portable
 * one must always match. */
START_TEST(test_conv2d_depthwise_sweep)
{
    uint32_t s = 12345u + (uint32_t)_i * 7919u;
    int it, taken2 = 0, taken512 = 0, takenflat = 0;
    for (it = 0; it < 60; it++) {
        conv_case k;
        ln_rt_conv2d_args a;
        int32_t oh, ow, mult;
        size_t nx, nw, ny;
        float *x, *wt, *b, *y;
        double *ref;
        void *scr;
        memset(&k, 0, sizeof(k));
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = 1 + (int32_t)(rt_rand(&s) % 5);
        mult = 1 + (int32_t)(rt_rand(&s) % 2);
        k.oc = k.c * mult;
        k.g = k.c;
        if (k.c == 1 && k.g == 1) { /* group 1 is not depthwise */
            k.c = k.g = 2;
            k.oc = 2 * mult;
        }
        k.kh = 1 + (int32_t)(rt_rand(&s) % 5);
        k.kw = 1 + (int32_t)(rt_rand(&s) % 5);
        if (rt_rand(&s) % 4 == 0) {
            k.kh = k.kw = 3;
        } else if (rt_rand(&s) % 5 == 0) { /* the unrolled 5x5 instances */
            k.kh = k.kw = 5;
        } else if (rt_rand(&s) % 8 == 0) {
            k.kw = 7 + (int32_t)(rt_rand(&s) % 3); /* 7, 8, 9 */
        }
        k.sh = 1 + (int32_t)(rt_rand(&s) % 2);
        k.sw = 1 + (int32_t)(rt_rand(&s) % 2);
        if (rt_rand(&s) % 10 == 0)
            k.sw = 3;
        k.dh = k.dw = rt_rand(&s) % 8 == 0 ? 2 : 1;
        k.pt = (int32_t)(rt_rand(&s) % 3);
        k.pb = (int32_t)(rt_rand(&s) % 3);
        k.pl = (int32_t)(rt_rand(&s) % 3);
        k.pr = (int32_t)(rt_rand(&s) % 3);
        if (rt_rand(&s) % 4 == 0) { /* "same" stride 1: the flat kernel */
            k.sh = k.sw = 1;
            k.dh = k.dw = 1;
            k.pt = k.kh / 2; k.pb = k.kh - 1 - k.pt;
            k.pl = k.kw / 2; k.pr = k.kw - 1 - k.pl;
        } else if (rt_rand(&s) % 6 == 0) {
            k.pl += 2;
            k.pr += 2;
        }
        k.h = 1 + (int32_t)(rt_rand(&s) % 12);
        switch (rt_rand(&s) % 4) {
        case 0: k.w = 1 + (int32_t)(rt_rand(&s) % 9); break;
        case 1: k.w = 9 + (int32_t)(rt_rand(&s) % 30); break;
        case 2: k.w = 30 + (int32_t)(rt_rand(&s) % 50); break;
        default: k.w = 64 + (int32_t)(rt_rand(&s) % 90); break;
        }
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 4 != 0);
        to_args(&k, &a);
        oh = ln_rt_conv_out_size(k.h, k.kh, k.sh, k.pt, k.pb, k.dh);
        ow = ln_rt_conv_out_size(k.w, k.kw, k.sw, k.pl, k.pr, k.dw);
        if (oh <= 0 || ow <= 0)
            continue;
        nx = (size_t)k.n * k.c * k.h * k.w;
        nw = (size_t)k.oc * k.kh * k.kw;
        ny = (size_t)k.n * k.oc * oh * ow;
        /* exact-size buffers so ASan sees any read past the input */
        x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k.oc);
        y = rt_alloc(ny); ref = rt_allocd(ny);
        rt_fill(x, nx, -1, 1, 300u + (uint32_t)it);
        rt_fill(wt, nw, -1, 1, 400u + (uint32_t)it);
        rt_fill(b, k.oc, -1, 1, 500u + (uint32_t)it);
        conv_ref(&k, x, wt, k.bias ? b : NULL, ref, oh, ow);
        {
            size_t s1 = ln_rt_conv2d_f32_scratch_size(&a),
                   s2 = ln_rt_conv2d_depthwise_f32_scratch_size(&a);
            scr = rt_scratch(s1 > s2 ? s1 : s2);
        }

        rt_fill(y, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, wt, k.bias ? b : NULL, y,
                                          scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (build ISA)");
        rt_fill(y, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt,
                                                    k.bias ? b : NULL, y,
                                                    scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (public depthwise kernel)");
        rt_fill(y, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt__conv2d_f32_isa(&ln_rt__gemm_isa_c, &a, x, wt,
                                               k.bias ? b : NULL, y, scr),
                         LN_RT_OK);
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (portable)");
#if LN_RT_HAVE_AVX2
        if (LN_RT_CPU_AVX2) {
        rt_fill(y, ny, 50, 60, 9);
        if (ln_rt__conv2d_depthwise_f32_avx2(&a, x, wt, k.bias ? b : NULL, y)) {
            RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX2 direct)");
            taken2++;
        } else {
            ck_assert_msg(y[0] >= 50.0f && y[ny - 1] >= 50.0f,
                          "declined but wrote");
        }
        rt_fill(y, ny, 50, 60, 9);
        ln_rt__conv2d_depthwise_f32_avx2_padded(&a, x, wt, k.bias ? b : NULL, y, scr);
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX2 padded)");
        }
#endif
#if LN_RT_HAVE_AVX512
        if (LN_RT_CPU_AVX512) {
        rt_fill(y, ny, 50, 60, 9);
        if (ln_rt__conv2d_depthwise_f32_avx512(&a, x, wt, k.bias ? b : NULL, y)) {
            RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 direct)");
            taken512++;
        }
        rt_fill(y, ny, 50, 60, 9);
        if (ln_rt__conv2d_depthwise_flat_f32_avx512(&a, x, wt, k.bias ? b : NULL, y)) {
            RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 flat)");
            takenflat++;
        } else {
            ck_assert_msg(y[0] >= 50.0f && y[ny - 1] >= 50.0f,
                          "flat declined but wrote");
        }
        rt_fill(y, ny, 50, 60, 9);
        if (ln_rt__conv2d_depthwise_flat3_f32_avx512(&a, x, wt, k.bias ? b : NULL, y))
            RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 flat 3x3)");
        else
            ck_assert_msg(y[0] >= 50.0f && y[ny - 1] >= 50.0f,
                          "flat 3x3 declined but wrote");
        }
#endif
        free(x); free(wt); free(b); free(y); free(ref); free(scr);
    }
#if LN_RT_HAVE_AVX2
    if (LN_RT_CPU_AVX2)
        ck_assert_int_gt(taken2, 20); /* the sweep mostly exercises the kernel */
#endif
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        ck_assert_int_gt(taken512, 20);
        ck_assert_int_gt(takenflat, 5);
    }
#endif
    (void)taken2; (void)taken512; (void)takenflat;
}
END_TEST

/* The 3x3 stride-1 lane-shift kernel (ln_rt__conv2d_depthwise_flat3_f32_avx512)
 * on every row width it takes (2..15 with a window of three vectors,
 * 17..31 with five), heights 1..19 (so planes of one partial vector up
 * to 37 vectors, and every column-mask period), batch
 * 2, channel multiplier 2, with and without bias, every activation:
 * against the double reference, and for the flat kernel's bits where that
 * takes the shape (the same sums: bias, then the taps in row-major order,
 * a tap off the plane adding 0 * w). Then the shapes it must refuse. */
START_TEST(test_conv2d_depthwise_flat3)
{
#if LN_RT_HAVE_AVX512
    uint32_t s = 4242u + (uint32_t)_i;
    /* the loop runs _i 0..28: widths 2..15, 17..31 */
    const int32_t W = _i < 14 ? 2 + _i : 3 + _i;
    int32_t h, taken = 0, same = 0;
    if (!LN_RT_CPU_AVX512)
        return;
    for (h = 1; h <= 19; h += 1 + (int32_t)(rt_rand(&s) % 3)) {
        conv_case k = { 1, 3, 0, 0, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3,
                        LN_RT_ACT_NONE, 1 };
        ln_rt_conv2d_args a;
        size_t nx, ny;
        float *x, *wt, *b, *y, *y2;
        double *ref;
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = k.g = 1 + (int32_t)(rt_rand(&s) % 20);
        k.oc = k.c * (1 + (int32_t)(rt_rand(&s) % 2));
        k.h = h;
        k.w = W;
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 3 != 0);
        to_args(&k, &a);
        nx = (size_t)k.n * k.c * k.h * k.w;
        ny = (size_t)k.n * k.oc * k.h * k.w;
        x = rt_alloc(nx); wt = rt_alloc((size_t)k.oc * 9); b = rt_alloc(k.oc);
        y = rt_alloc(ny); y2 = rt_alloc(ny); ref = rt_allocd(ny);
        rt_fill(x, nx, -1, 1, 10u + (uint32_t)h);
        rt_fill(wt, (size_t)k.oc * 9, -1, 1, 20u + (uint32_t)h);
        rt_fill(b, k.oc, -1, 1, 30u + (uint32_t)h);
        conv_ref(&k, x, wt, k.bias ? b : NULL, ref, k.h, k.w);
        ck_assert(ln_rt__conv2d_depthwise_flat3_f32_avx512(
            &a, x, wt, k.bias ? b : NULL, y));
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 flat 3x3)");
        taken++;
        if (ln_rt__conv2d_depthwise_flat_f32_avx512(&a, x, wt,
                                                    k.bias ? b : NULL, y2)) {
            ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                          "flat 3x3 kernel != flat kernel bits (%dx%d)", h, W);
            same++;
        }
        free(x); free(wt); free(b); free(y); free(y2); free(ref);
    }
    ck_assert_int_gt(taken, 5);
    ck_assert_int_eq(same, taken);
    {
        /* refused: 16- and 32-wide rows, 5x5, stride 2, pads 0, dilation
         * 2, 1-wide rows; dst untouched */
        static const conv_case no[] = {
            { 1, 2, 5, 16, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 32, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 1, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
        };
        float y[2 * 5 * 32];
        size_t i;
        int j;
        for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
            ln_rt_conv2d_args a;
            to_args(&no[i], &a);
            for (j = 0; j < 2 * 5 * 32; j++)
                y[j] = 7.0f;
            ck_assert(!ln_rt__conv2d_depthwise_flat3_f32_avx512(&a, y, y, y, y));
            for (j = 0; j < 2 * 5 * 32; j++)
                ck_assert(y[j] == 7.0f);
        }
    }
#endif
}
END_TEST

/* The 3x3 stride-2 lane-shift kernel (ln_rt__conv2d_depthwise_s2_f32_avx512)
 * on input rows of 1..70 (output rows of one partial vector up to five
 * vectors, every lane tail, inputs ending inside or past the last
 * vector pair), heights 1..9, top and left pads 0 or 1 (PyTorch's 1 and
 * TensorFlow's "same" 0 / 1), bottom and right pads 0..2, batch 2,
 * channel multiplier 2, with and without bias, every activation: against
 * the double reference, for the direct kernel's bits (the same sums: bias,
 * rows outside skipped, then the taps in row-major order, a column
 * outside adding 0 * w), and the public entry's. Then the shapes it must
 * refuse. */
START_TEST(test_conv2d_depthwise_s2)
{
#if LN_RT_HAVE_AVX512
    uint32_t s = 777u + (uint32_t)_i;
    int it, taken = 0;
    if (!LN_RT_CPU_AVX512)
        return;
    for (it = 0; it < 24; it++) {
        conv_case k = { 1, 3, 0, 0, 3, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 3,
                        LN_RT_ACT_NONE, 1 };
        ln_rt_conv2d_args a;
        int32_t oh, ow;
        size_t nx, ny;
        float *x, *wt, *b, *y, *y2;
        double *ref;
        void *scr;
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = k.g = 1 + (int32_t)(rt_rand(&s) % 6);
        k.oc = k.c * (1 + (int32_t)(rt_rand(&s) % 2));
        k.h = 1 + (int32_t)(rt_rand(&s) % 9);
        k.w = 1 + (int32_t)((_i * 24 + it) % 70);
        k.pt = (int32_t)(rt_rand(&s) % 2);
        k.pl = (int32_t)(rt_rand(&s) % 2);
        k.pb = (int32_t)(rt_rand(&s) % 3);
        k.pr = (int32_t)(rt_rand(&s) % 3);
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 3 != 0);
        to_args(&k, &a);
        oh = ln_rt_conv_out_size(k.h, 3, 2, k.pt, k.pb, 1);
        ow = ln_rt_conv_out_size(k.w, 3, 2, k.pl, k.pr, 1);
        if (oh <= 0 || ow <= 0)
            continue;
        nx = (size_t)k.n * k.c * k.h * k.w;
        ny = (size_t)k.n * k.oc * oh * ow;
        x = rt_alloc(nx); wt = rt_alloc((size_t)k.oc * 9); b = rt_alloc(k.oc);
        y = rt_alloc(ny); y2 = rt_alloc(ny); ref = rt_allocd(ny);
        rt_fill(x, nx, -1, 1, 40u + (uint32_t)it);
        rt_fill(wt, (size_t)k.oc * 9, -1, 1, 50u + (uint32_t)it);
        rt_fill(b, k.oc, -1, 1, 60u + (uint32_t)it);
        conv_ref(&k, x, wt, k.bias ? b : NULL, ref, oh, ow);
        ck_assert(ln_rt__conv2d_depthwise_s2_ok(&a));
        ck_assert(ln_rt__conv2d_depthwise_s2_f32_avx512(
            &a, x, wt, k.bias ? b : NULL, y));
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 stride-2 lane shifts)");
        taken++;
        rt_fill(y2, ny, 50, 60, 9);
        if (ln_rt__conv2d_depthwise_f32_avx512(&a, x, wt, k.bias ? b : NULL,
                                               y2))
            ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                          "stride-2 lane shifts != direct kernel bits "
                          "(%dx%d)", k.h, k.w);
        scr = rt_scratch(ln_rt_conv2d_depthwise_f32_scratch_size(&a));
        rt_fill(y2, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt,
                                                    k.bias ? b : NULL, y2,
                                                    scr), LN_RT_OK);
        ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                      "public depthwise != stride-2 lane shifts (%dx%d)",
                      k.h, k.w);
        free(x); free(wt); free(b); free(y); free(y2); free(ref); free(scr);
    }
    ck_assert_int_gt(taken, 12);
    {
        /* refused: pads 2 on the top or left, stride 1, 5x5, dilation 2,
         * output rows of 1025; dst untouched */
        static const conv_case no[] = {
            { 1, 2, 5, 7, 2, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 2, 2, 1, 2, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 5, 5, 2, 2, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 5, 7, 2, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 2, LN_RT_ACT_NONE, 1 },
            { 1, 2, 1, 2049, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2, LN_RT_ACT_NONE, 1 },
        };
        float y[64];
        size_t i;
        int j;
        for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
            ln_rt_conv2d_args a;
            to_args(&no[i], &a);
            ck_assert(!ln_rt__conv2d_depthwise_s2_ok(&a));
            for (j = 0; j < 64; j++)
                y[j] = 7.0f;
            ck_assert(!ln_rt__conv2d_depthwise_s2_f32_avx512(&a, y, y, y, y));
            for (j = 0; j < 64; j++)
                ck_assert(y[j] == 7.0f);
        }
    }
#endif
}
END_TEST

/* k (a shape with a non-empty output) through the public conv, the
 * AVX-512 direct kernel when the CPU has it and the kernel takes the
 * shape, and the portable direct kernel, against the double reference;
 * inputs from seed, seed + 100, seed + 200. Returns whether the AVX-512
 * kernel took it. */
static int direct_check(const conv_case *k, uint32_t seed)
{
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny;
    float *x, *wt, *b, *y;
    double *ref;
    void *scr;
    int taken = 0;
    /* float sums of K = c*kh*kw products: rounding grows with K (the
     * portable kernel too reads 2.3e-5 at K = 1350) */
    const int32_t kk = k->c * k->kh * k->kw;
    const double tol = kk > 512 ? 4e-8 * kk : 2e-5;

    to_args(k, &a);
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, 1);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, 1);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * k->c * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k->oc);
    y = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, seed);
    rt_fill(wt, nw, -1, 1, seed + 100u);
    rt_fill(b, k->oc, -1, 1, seed + 200u);
    conv_ref(k, x, wt, k->bias ? b : NULL, ref, oh, ow);
    scr = rt_scratch(ln_rt_conv2d_f32_scratch_size(&a));
    rt_fill(y, ny, 50, 60, 9);
    ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, wt, k->bias ? b : NULL, y,
                                      scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d sweep (build ISA)");
#if LN_RT_HAVE_AVX512
    rt_fill(y, ny, 50, 60, 9);
    if (LN_RT_CPU_AVX512 &&
        ln_rt__conv2d_direct_f32_avx512(&a, x, wt, k->bias ? b : NULL, y)) {
        RT_CHECK(y, ref, ny, tol, "conv2d (AVX-512 direct)");
        taken = 1;
    }
#endif
    rt_fill(y, ny, 50, 60, 9); /* the portable direct kernel, any shape */
    ln_rt__conv2d_direct_f32_c(&a, x, wt, k->bias ? b : NULL, y);
    RT_CHECK(y, ref, ny, tol, "conv2d (portable direct)");
    free(x); free(wt); free(b); free(y); free(ref); free(scr);
    return taken;
}

/* k0 with every activation (bias on the odd ones) through check, inputs
 * from seed + act; where the CPU has AVX-512, check's kernel must take
 * each */
static void every_act(const conv_case *k0, uint32_t seed,
                      int (*check)(const conv_case *, uint32_t))
{
    int act;
    for (act = LN_RT_ACT_NONE; act < RT_N_ACT; act++) {
        conv_case k = *k0;
        int taken;
        k.act = (ln_rt_act)act;
        k.bias = act % 2 == 1;
        taken = check(&k, seed + (uint32_t)act);
#if LN_RT_HAVE_AVX512
        if (LN_RT_CPU_AVX512)
            ck_assert(taken);
#endif
        (void)taken;
    }
}

/* the AVX-512 direct kernel's 3-channel blocks (a constant channel loop:
 * RGB first convs), every block shape they come in: flat stride-1 blocks
 * of 48 lanes with a 16-lane tail (ResNet-8's 3->16 @32), of 64 lanes (a
 * 7x8 map, 6-row tiles, oc 13) and of 30 lanes; stride-2 row segments of
 * 32 + 16 lanes (MobileNetV1-0.25's 3->8 @96), two 15-wide rows a block,
 * rows of <= 8 outputs four a block; stride-1 row segments of 32 + 6 lanes
 * (valid pads, 5x3); every activation, with and without bias, against the
 * double reference, and through the public entry (which may route it
 * elsewhere); and its input channels 64 at a time (all taps of a chunk,
 * then the next chunk): channel counts just past, at and well past a
 * chunk, a 1-channel last chunk, on flat stride-1 blocks, stride-1 and
 * stride-2 row segments and 1x1 (sums of 65-1800 products) */
static const conv_case direct_cases[] = {
    /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
    /* 3 channels */
    { 1, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 2, 3, 7, 8, 13, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 3, 5, 6, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 3, 96, 96, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 3, 20, 30, 10, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 2, 3, 11, 13, 17, 2, 3, 2, 2, 1, 0, 0, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 3, 9, 40, 8, 5, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    /* channel chunks */
    { 1, 65, 9, 10, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 128, 14, 14, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 2, 150, 15, 20, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 200, 7, 7, 12, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 129, 6, 40, 8, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_NONE, 1 },
};

/* the kernel takes every one of them */
START_TEST(test_conv_direct_cases)
{
    every_act(&direct_cases[_i], 900u + 7u * (uint32_t)_i, direct_check);
}
END_TEST

/* ---- stride 2, 1-4 input channels (x86/conv2d_s2few_avx512.c) ---------
 * k through the kernel itself with exact-size buffers (ASan sees a read
 * past the input): it must take exactly what ln_rt__conv2d_s2few_ok names
 * and leave dst alone otherwise; where it takes k, against the double
 * reference (2e-5), with res apart and res as dst (act(conv + bias + res)),
 * the GEMM path must give the same bits, and so must the public entry
 * where it picks this kernel (where the direct kernel does not run).
 * Returns whether the kernel took k. */
static int s2few_check(const conv_case *k, uint32_t seed)
{
    ln_rt_conv2d_args a;
    conv_case kn = *k;
    int32_t oh, ow;
    size_t nx, nw, ny, i;
    float *x, *wt, *b, *y, *y2, *rs;
    double *ref, *pre;
    void *scr;
    int taken;

    to_args(k, &a);
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, 1);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, 1);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * k->c * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k->oc);
    y = rt_alloc(ny); y2 = rt_alloc(ny); rs = rt_alloc(ny);
    ref = rt_allocd(ny); pre = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, seed);
    rt_fill(wt, nw, -1, 1, seed + 100u);
    rt_fill(b, k->oc, -1, 1, seed + 200u);
    rt_fill(rs, ny, -2, 2, seed + 300u);
    conv_ref(k, x, wt, k->bias ? b : NULL, ref, oh, ow);
    rt_fill(y, ny, 50, 60, 9);
    /* only where the CPU (and LN_RT_ISA_LIMIT) has AVX-512: the public
     * entry takes it there and only there */
    taken = LN_RT_CPU_AVX512 &&
            ln_rt__conv2d_s2few_f32_avx512(&a, x, wt, k->bias ? b : NULL,
                                           NULL, y);
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512)
        ck_assert_int_eq(taken, ln_rt__conv2d_s2few_ok(&a));
#else
    ck_assert_int_eq(taken, 0);
#endif
    if (!taken) {
        for (i = 0; i < ny; i++) /* untouched */
            ck_assert(y[i] >= 50.0f && y[i] <= 60.0f);
        /* the public entry (the GEMM path or the other direct kernel) */
        scr = rt_scratch(ln_rt_conv2d_f32_scratch_size(&a));
        ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, wt, k->bias ? b : NULL, y,
                                          scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, 2e-5, "conv2d (public, stride-2 sweep)");
        free(scr);
    } else {
        RT_CHECK(y, ref, ny, 2e-5, "conv2d (AVX-512 stride 2, c <= 4)");
        scr = rt_scratch(ln_rt_conv2d_f32_scratch_size(&a));
#if LN_RT_HAVE_AVX512
        /* the kernel it stands in for gives the same bits: the direct
         * kernel where that one takes k, the GEMM path (AVX-512
         * micro-kernel) elsewhere; it sums in their order */
        rt_fill(y2, ny, 50, 60, 9);
        if (ln_rt__conv2d_direct_ok(&a))
            ck_assert(ln_rt__conv2d_direct_f32_avx512(&a, x, wt,
                                                      k->bias ? b : NULL,
                                                      y2));
        else
            ck_assert_int_eq(
                ln_rt__conv2d_gemm_f32_isa(&ln_rt__gemm_isa_avx512, &a, x,
                                           wt, k->bias ? b : NULL, y2, scr),
                LN_RT_OK);
        ck_assert_msg(memcmp(y, y2, ny * sizeof(float)) == 0,
                      "stride-2 few-channel kernel: not the %s's bits",
                      ln_rt__conv2d_direct_ok(&a) ? "direct kernel"
                                                  : "GEMM");
#endif
        /* the public entry runs this kernel */
        rt_fill(y2, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, wt, k->bias ? b : NULL, y2,
                                          scr), LN_RT_OK);
        ck_assert(memcmp(y, y2, ny * sizeof(float)) == 0);
        free(scr);
        /* res: the sums before the activation plus res, then act */
        kn.act = LN_RT_ACT_NONE;
        conv_ref(&kn, x, wt, k->bias ? b : NULL, pre, oh, ow);
        for (i = 0; i < ny; i++)
            ref[i] = rt_act(pre[i] + rs[i], k->act, 0.1, 0.8);
        rt_fill(y, ny, 50, 60, 9);
        ck_assert(ln_rt__conv2d_s2few_f32_avx512(&a, x, wt,
                                                 k->bias ? b : NULL, rs, y));
        RT_CHECK(y, ref, ny, 4e-5, "conv2d (stride 2, c <= 4, + res)");
        memcpy(y2, rs, ny * sizeof(float)); /* res is dst */
        ck_assert(ln_rt__conv2d_s2few_f32_avx512(&a, x, wt,
                                                 k->bias ? b : NULL, y2, y2));
        ck_assert(memcmp(y, y2, ny * sizeof(float)) == 0);
    }
    free(x); free(wt); free(b); free(y); free(y2); free(rs); free(ref);
    free(pre);
    return taken;
}

/* the shape classes: c 1..4, 3x3 / 5x5 / 7x7 (and 11x11, 2x4), pads 0..3
 * (asymmetric, wider than half the kernel), odd and even widths, output
 * rows of 16..67 pixels (1-3 vector blocks, the 2 + 2 split of the last
 * 4 vectors, lane tails) and 111 / 112 (ImageNet first convs), oc 1..70 (8-row tails),
 * batch 2, stride 2 and stride 1 (CIFAR and LeNet first convs: the
 * direct kernel's shapes, whose bits the kernel then gives); each with
 * every activation */
static const conv_case s2few_shapes[] = {
        /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
        { 1, 3, 9, 224, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ResNet-18 conv1 rows */
        { 1, 3, 7, 224, 64, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* SqueezeNet, ow 111 */
        { 2, 3, 6, 224, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* MobileNetV2 */
        { 1, 3, 96, 96, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* MobileNetV1-0.25: the
                                                * direct kernel's too */
        { 1, 1, 5, 33, 9, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 16 */
        { 2, 2, 8, 64, 13, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 32 */
        { 1, 4, 6, 67, 7, 5, 5, 2, 2, 1, 3, 2, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 33 */
        { 1, 3, 7, 95, 17, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 48 */
        { 2, 1, 9, 96, 1, 3, 3, 2, 2, 0, 1, 1, 2, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 49 */
        { 1, 2, 4, 127, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 64: 2 + 2 vectors */
        { 1, 4, 12, 130, 70, 7, 7, 2, 2, 0, 2, 3, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 64, oc 70 */
        { 1, 3, 5, 131, 8, 3, 3, 2, 2, 3, 3, 0, 2, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 67, pads 3 > k / 2 */
        { 1, 2, 13, 100, 5, 11, 11, 2, 2, 3, 0, 3, 5, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* 11x11 (c 2: 242 products
                                                  of the GEMM's 256), ow 48 */
        { 2, 2, 6, 81, 11, 2, 4, 2, 2, 0, 1, 1, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* 2x4, ow 40 */
        { 2, 1, 3, 62, 3, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 31 */
        { 1, 3, 4, 129, 10, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ow 65: 3 + 2 vectors */
        /* stride 1 */
        { 1, 3, 6, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* ResNet-8 conv1 rows */
        { 1, 1, 9, 28, 6, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 0 },                 /* LeNet-5 conv1, ow 24 */
        { 2, 3, 5, 224, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* VGG conv1_1 rows, ow 224 */
        { 1, 4, 9, 53, 9, 7, 7, 1, 1, 3, 2, 1, 3, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* 7x7, asymmetric pads */
        { 1, 2, 4, 40, 17, 2, 4, 1, 1, 0, 1, 1, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 0 },                 /* 2x4, ow 38 */
        { 2, 3, 3, 17, 5, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* 1x3, ow 17 */
        { 1, 1, 12, 60, 33, 11, 11, 1, 1, 5, 5, 5, 5, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },                 /* 11x11 pads 5, ow 60 */
};

START_TEST(test_conv_s2few_shapes)
{
    const conv_case *ks = s2few_shapes;
    ln_rt_conv2d_args a;
    /* every one is the kernel's to take */
    to_args(&ks[_i], &a);
    ck_assert_msg(ln_rt__conv2d_s2few_ok(&a), "shape %d refused", _i);
    if (_i == 0) {
        /* but not a 1x1 at stride 1 (the GEMM's, in place), stride 3, or
         * 5 channels */
        ln_rt_conv2d_args b = a;
        b.kh = b.kw = 1; b.stride_h = b.stride_w = 1;
        b.pad_top = b.pad_left = b.pad_bottom = b.pad_right = 0;
        ck_assert(!ln_rt__conv2d_s2few_ok(&b));
        b.stride_h = b.stride_w = 2;
        ck_assert(ln_rt__conv2d_s2few_ok(&b));
        b = a; b.stride_h = b.stride_w = 3;
        ck_assert(!ln_rt__conv2d_s2few_ok(&b));
        b = a; b.c = 5;
        ck_assert(!ln_rt__conv2d_s2few_ok(&b));
    }
    every_act(&ks[_i], 1300u + 11u * (uint32_t)_i, s2few_check);
}
END_TEST

/* random shapes (seeded) around and outside what the kernel takes: c 1..6,
 * kh/kw 1..13, stride 2 (1 sometimes), pads 0..3, widths 20..300, heights
 * 1..10, oc 1..40, batch 1..2, every activation, bias or not */
START_TEST(test_conv_s2few_sweep)
{
    uint32_t s = 4242u + (uint32_t)_i * 7919u;
    int it, taken = 0;
    for (it = 0; it < 40; it++) {
        conv_case k;
        memset(&k, 0, sizeof(k));
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = 1 + (int32_t)(rt_rand(&s) % 6);
        k.oc = 1 + (int32_t)(rt_rand(&s) % 40);
        k.g = 1;
        k.kh = 1 + (int32_t)(rt_rand(&s) % 13);
        k.kw = 1 + (int32_t)(rt_rand(&s) % 13);
        if (rt_rand(&s) % 2 == 0)
            k.kh = k.kw = 3 + 2 * (int32_t)(rt_rand(&s) % 3);
        k.sh = k.sw = rt_rand(&s) % 8 == 0 ? 1 : 2;
        k.dh = k.dw = 1;
        rand_pads(&k, &s);
        k.h = 1 + (int32_t)(rt_rand(&s) % 10);
        k.w = 20 + (int32_t)(rt_rand(&s) % 281);
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 4 != 0);
        if (ln_rt_conv_out_size(k.h, k.kh, k.sh, k.pt, k.pb, 1) <= 0 ||
            ln_rt_conv_out_size(k.w, k.kw, k.sw, k.pl, k.pr, 1) <= 0)
            continue;
        taken += s2few_check(&k, 5000u + (uint32_t)it);
    }
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512)
        ck_assert_int_gt(taken, 10);
#endif
    (void)taken;
}
END_TEST

/* ---- depthwise, 16 channels across the lanes (narrow maps) -----------
 * x86/conv2d_depthwise_f32_avx512.c's ln_rt__conv2d_depthwise_cl_f32_avx512
 * on random shapes (seeded): maps 1..30 x 1..28, kernels 1x1..8x8 (3x3
 * and 5x5 often, non-square), strides 1..3 per axis, pads 0..3 per side
 * (wider than the kernel too), channels 1..50 with multiplier 1..3
 * (groups of 16 with tails, lanes picking their input plane), batch 1..2,
 * every activation, bias or not, dilation sometimes (refused). It must
 * take exactly the shapes ln_rt__conv2d_depthwise_cl_floats names, match
 * the double reference to 2e-5 there, fit in the public scratch size
 * (exact-size buffers, so ASan sees any overrun of input, output or
 * scratch), and leave dst alone when it refuses; the public kernel must
 * match everywhere. Every class the kernel takes must have been seen. */
START_TEST(test_conv_depthwise_cl_sweep)
{
    uint32_t s = 4242u + (uint32_t)_i * 7919u;
    int it, taken = 0, t_s2 = 0, t_mult = 0, t_tail = 0, t_nob = 0,
        t_55 = 0, t_odd = 0, t_batch = 0, t_act[RT_N_ACT] = {0};
    for (it = 0; it < 40; it++) {
        conv_case k;
        ln_rt_conv2d_args a;
        int32_t oh, ow, mult, ai;
        size_t nx, nw, ny, ns, i;
        float *x, *wt, *b, *y;
        double *ref;
        void *scr;
        memset(&k, 0, sizeof(k));
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        mult = rt_rand(&s) % 3 == 0 ? 2 + (int32_t)(rt_rand(&s) % 2) : 1;
        k.c = 1 + (int32_t)(rt_rand(&s) % (rt_rand(&s) % 4 == 0 ? 16 : 50));
        if (k.c == 1 && mult == 1)
            k.c = 2; /* group 1 is not depthwise */
        k.oc = k.c * mult;
        k.g = k.c;
        switch (rt_rand(&s) % 4) {
        case 0: k.kh = k.kw = 3; break;
        case 1: k.kh = k.kw = 5; break;
        case 2:
            k.kh = 1 + (int32_t)(rt_rand(&s) % 5);
            k.kw = 1 + (int32_t)(rt_rand(&s) % 5);
            break;
        default:
            k.kh = 1 + (int32_t)(rt_rand(&s) % 8);
            k.kw = 1 + (int32_t)(rt_rand(&s) % 8);
            break;
        }
        k.sh = 1 + (int32_t)(rt_rand(&s) % 3 == 0 ? 1 + rt_rand(&s) % 2 : 0);
        k.sw = 1 + (int32_t)(rt_rand(&s) % 3 == 0 ? 1 + rt_rand(&s) % 2 : 0);
        k.dh = k.dw = rt_rand(&s) % 10 == 0 ? 2 : 1;
        if (rt_rand(&s) % 3 == 0) { /* "same" */
            k.pt = k.kh / 2; k.pb = k.kh - 1 - k.pt;
            k.pl = k.kw / 2; k.pr = k.kw - 1 - k.pl;
        } else {
            rand_pads(&k, &s);
        }
        k.h = 1 + (int32_t)(rt_rand(&s) % 30);
        k.w = 1 + (int32_t)(rt_rand(&s) % (rt_rand(&s) % 2 ? 15 : 28));
        ai = (int32_t)(rt_rand(&s) % RT_N_ACT);
        k.act = (ln_rt_act)ai;
        k.bias = (int)(rt_rand(&s) % 4 != 0);
        to_args(&k, &a);
        oh = ln_rt_conv_out_size(k.h, k.kh, k.sh, k.pt, k.pb, k.dh);
        ow = ln_rt_conv_out_size(k.w, k.kw, k.sw, k.pl, k.pr, k.dw);
        if (oh <= 0 || ow <= 0)
            continue;
        nx = (size_t)k.n * k.c * k.h * k.w;
        nw = (size_t)k.oc * k.kh * k.kw;
        ny = (size_t)k.n * k.oc * oh * ow;
        ns = ln_rt_conv2d_depthwise_f32_scratch_size(&a);
        x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k.oc);
        y = rt_alloc(ny); ref = rt_allocd(ny);
        scr = rt_scratch(ns);
        rt_fill(x, nx, -1, 1, 600u + (uint32_t)it);
        rt_fill(wt, nw, -1, 1, 700u + (uint32_t)it);
        rt_fill(b, k.oc, -1, 1, 800u + (uint32_t)it);
        conv_ref(&k, x, wt, k.bias ? b : NULL, ref, oh, ow);
        ck_assert_uint_le(ln_rt__conv2d_depthwise_cl_floats(&a) * sizeof(float),
                          ns);
        if (ln_rt__conv2d_depthwise_cl_floats(&a))
            ck_assert_int_ge(k.oc, 16);

        rt_fill(y, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt,
                                                    k.bias ? b : NULL, y,
                                                    scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (public, cl sweep)");
#if LN_RT_HAVE_AVX512
        if (LN_RT_CPU_AVX512) {
            int got;
            rt_fill(y, ny, 50, 60, 9);
            got = ln_rt__conv2d_depthwise_cl_f32_avx512(&a, x, wt,
                                                        k.bias ? b : NULL, y,
                                                        scr);
            ck_assert_int_eq(got, ln_rt__conv2d_depthwise_cl_floats(&a) != 0);
            if (got) {
                float *y2 = rt_alloc(ny);
                RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 channels)");
                /* the same bits as the other AVX-512 depthwise kernels
                 * where they take the shape (bias, then the taps in
                 * row-major order, the same activation code) */
                if (ln_rt__conv2d_depthwise_f32_avx512(&a, x, wt,
                                                       k.bias ? b : NULL, y2))
                    ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                                  "channels kernel != direct kernel bits");
                if (ln_rt__conv2d_depthwise_flat_f32_avx512(
                        &a, x, wt, k.bias ? b : NULL, y2))
                    ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                                  "channels kernel != flat kernel bits");
                free(y2);
                taken++;
                t_s2 += k.sh > 1 || k.sw > 1;
                t_mult += mult > 1;
                t_tail += k.oc % 16 != 0;
                t_nob += !k.bias;
                t_55 += k.kh * k.kw > 9;
                t_odd += k.kh != k.kw;
                t_batch += k.n > 1;
                t_act[ai]++;
            } else {
                for (i = 0; i < ny; i++)
                    ck_assert_msg(y[i] >= 50.0f, "cl declined but wrote");
            }
        }
#endif
        free(x); free(wt); free(b); free(y); free(ref); free(scr);
    }
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        ck_assert_int_gt(taken, 10);
        ck_assert_int_gt(t_s2, 0);
        ck_assert_int_gt(t_mult, 0);
        ck_assert_int_gt(t_tail, 0);
        ck_assert_int_gt(t_nob, 0);
        ck_assert_int_gt(t_55, 0);
        ck_assert_int_gt(t_odd, 0);
        ck_assert_int_gt(t_batch, 0);
    }
#endif
    (void)taken; (void)t_s2; (void)t_mult; (void)t_tail; (void)t_nob;
    (void)t_55; (void)t_odd; (void)t_batch; (void)t_act;
}
END_TEST

/* every activation through the channels kernel (a stride-2 shape to
 * DS-CNN's 25 x 5) and the 3x3 lane-shift kernel (DS-CNN's 25 x 5, which
 * the channels kernel leaves to it), with a channel tail and no bias for
 * half */
START_TEST(test_conv_depthwise_cl_acts)
{
    static const conv_case ks[2] = {
        { 1, 40, 49, 9, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 40,
          LN_RT_ACT_NONE, 1 },
        { 1, 40, 25, 5, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 40,
          LN_RT_ACT_NONE, 1 },
    };
    int ki;
    for (ki = 0; ki < 2; ki++) {
        conv_case k = ks[ki];
        ln_rt_conv2d_args a;
        const int32_t oh = 25, ow = 5;
        size_t nx, nw, ny;
        float *x, *wt, *b, *y;
        double *ref;
        void *scr;
        k.act = (ln_rt_act)_i;
        k.bias = _i % 2;
        to_args(&k, &a);
        nx = (size_t)k.c * k.h * k.w;
        nw = (size_t)k.oc * 9;
        ny = (size_t)k.oc * oh * ow;
        x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k.oc);
        y = rt_alloc(ny); ref = rt_allocd(ny);
        scr = rt_scratch(ln_rt_conv2d_depthwise_f32_scratch_size(&a));
        rt_fill(x, nx, -3, 3, 11u + (uint32_t)_i);
        rt_fill(wt, nw, -1, 1, 12u);
        rt_fill(b, k.oc, -1, 1, 13u);
        conv_ref(&k, x, wt, k.bias ? b : NULL, ref, oh, ow);
        ck_assert_int_eq(ln_rt__conv2d_depthwise_cl_floats(&a) > 0, ki == 0);
        ck_assert_int_eq(ln_rt__conv2d_depthwise_flat3_ok(&a), ki == 1);
        rt_fill(y, ny, 50, 60, 9);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt,
                                                    k.bias ? b : NULL, y,
                                                    scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, 2e-5, "depthwise (public, cl / flat3 acts)");
#if LN_RT_HAVE_AVX512
        if (LN_RT_CPU_AVX512) {
            rt_fill(y, ny, 50, 60, 9);
            if (ki == 0)
                ck_assert_int_eq(ln_rt__conv2d_depthwise_cl_f32_avx512(
                                     &a, x, wt, k.bias ? b : NULL, y, scr), 1);
            else
                ck_assert_int_eq(ln_rt__conv2d_depthwise_flat3_f32_avx512(
                                     &a, x, wt, k.bias ? b : NULL, y), 1);
            RT_CHECK(y, ref, ny, 2e-5, "depthwise (AVX-512 cl / flat3, acts)");
        }
#endif
        free(x); free(wt); free(b); free(y); free(ref); free(scr);
    }
}
END_TEST

/* 5x5 and larger on output rows of 29..47 go to the channels kernel but
 * for 32, and 5x5 / 7x7 stride 1 over 40 (and 48 and wider, and 3x3,
 * which stay on the direct kernel):
 * which shapes it takes, the double reference, and on AVX-512 the direct
 * kernel's bits (the one it replaces there); a partial channel group
 * (40 = 16 + 16 + 8), stride 2, 7x7, batch 2 */
START_TEST(test_conv_depthwise_cl_wide)
{
    static const struct {
        conv_case k;
        int taken;
    } ks[] = {
        /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
        { { 1, 16, 29, 29, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16,
            LN_RT_ACT_RELU, 1 }, 1 },
        { { 2, 40, 9, 30, 40, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 40,
            LN_RT_ACT_NONE, 1 }, 1 },
        { { 1, 16, 6, 47, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16,
            LN_RT_ACT_RELU6, 0 }, 0 },  /* 5x5, 7x7 s1 over 40: direct */
        { { 1, 16, 6, 40, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16,
            LN_RT_ACT_RELU6, 1 }, 1 },
        { { 2, 24, 9, 44, 24, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 24,
            LN_RT_ACT_CLIP, 1 }, 0 },
        { { 1, 16, 10, 150, 16, 7, 7, 1, 1, 3, 2, 3, 4, 1, 1, 16,
            LN_RT_ACT_RELU, 1 }, 0 },  /* 7x7: edge and middle blocks */
        { { 1, 16, 9, 60, 16, 5, 5, 2, 2, 2, 2, 2, 1, 1, 1, 16,
            LN_RT_ACT_SILU, 1 }, 1 },
        { { 1, 24, 7, 33, 24, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 24,
            LN_RT_ACT_NONE, 1 }, 1 },
        { { 1, 16, 5, 32, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16,
            LN_RT_ACT_NONE, 1 }, 0 },
        { { 1, 16, 5, 48, 16, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 16,
            LN_RT_ACT_NONE, 1 }, 0 },
        { { 1, 16, 5, 30, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16,
            LN_RT_ACT_NONE, 1 }, 0 },
    };
    const conv_case k = ks[_i].k;
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny;
    float *x, *wt, *b, *y, *y2;
    double *ref;
    void *scr;
    to_args(&k, &a);
    oh = ln_rt_conv_out_size(k.h, k.kh, k.sh, k.pt, k.pb, 1);
    ow = ln_rt_conv_out_size(k.w, k.kw, k.sw, k.pl, k.pr, 1);
    nx = (size_t)k.n * k.c * k.h * k.w;
    nw = (size_t)k.oc * k.kh * k.kw;
    ny = (size_t)k.n * k.oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k.oc);
    y = rt_alloc(ny); y2 = rt_alloc(ny); ref = rt_allocd(ny);
    scr = rt_scratch(ln_rt_conv2d_depthwise_f32_scratch_size(&a));
    rt_fill(x, nx, -2, 2, 21u + (uint32_t)_i);
    rt_fill(wt, nw, -1, 1, 22u);
    rt_fill(b, k.oc, -1, 1, 23u);
    conv_ref(&k, x, wt, k.bias ? b : NULL, ref, oh, ow);
    ck_assert_int_eq(ln_rt__conv2d_depthwise_cl_floats(&a) > 0, ks[_i].taken);
    ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt, k.bias ? b : NULL,
                                                y, scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, 2e-5, "depthwise (public, wide rows)");
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512 && ks[_i].taken) {
        ck_assert_int_eq(ln_rt__conv2d_depthwise_f32_avx512(
                             &a, x, wt, k.bias ? b : NULL, y2), 1);
        ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                      "channels kernel bits differ from the direct kernel's");
    }
#endif
    free(x); free(wt); free(b); free(y); free(y2); free(ref); free(scr);
}
END_TEST

/* ---- direct group-1 conv sweep (x86/conv2d_direct_avx512.c) -----------
 * Random shapes (seeded): flat pixel blocks across rows ("same" stride-1
 * rows) and row segments (valid / asymmetric pads, stride 2), widths
 * 1..70 (1- and 2-vector blocks, lane tails), kh/kw 1..5, pads 0..3
 * (some wider than the kernel), c 1..20, oc 1..20 (8-row tails), batch
 * 1..2, every activation, bias or not; exact-size buffers so ASan sees a
 * read past the input. The kernel is called whatever the dispatcher's
 * heuristic says (it must match the double reference to 2e-5 when it
 * takes a shape), and the public kernel must always match. */
START_TEST(test_conv_direct_sweep)
{
    uint32_t s = 777u + (uint32_t)_i * 104729u;
    int it, taken = 0;
    for (it = 0; it < 50; it++) {
        conv_case k;
        int32_t oh, ow;
        memset(&k, 0, sizeof(k));
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = 1 + (int32_t)(rt_rand(&s) % 20);
        k.oc = 1 + (int32_t)(rt_rand(&s) % 20);
        k.g = 1;
        k.kh = 1 + (int32_t)(rt_rand(&s) % 5);
        k.kw = 1 + (int32_t)(rt_rand(&s) % 5);
        if (rt_rand(&s) % 3 == 0)
            k.kh = k.kw = 3;
        k.sh = k.sw = 1 + (int32_t)(rt_rand(&s) % 2);
        k.dh = k.dw = 1;
        if (rt_rand(&s) % 3 == 0) { /* "same": flat blocks at stride 1 */
            k.pt = k.kh / 2; k.pb = k.kh - 1 - k.pt;
            k.pl = k.kw / 2; k.pr = k.kw - 1 - k.pl;
        } else {
            rand_pads(&k, &s);
        }
        k.h = 1 + (int32_t)(rt_rand(&s) % 12);
        switch (rt_rand(&s) % 3) {
        case 0: k.w = 1 + (int32_t)(rt_rand(&s) % 10); break;
        case 1: k.w = 10 + (int32_t)(rt_rand(&s) % 30); break;
        default: k.w = 40 + (int32_t)(rt_rand(&s) % 31); break;
        }
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 4 != 0);
        oh = ln_rt_conv_out_size(k.h, k.kh, k.sh, k.pt, k.pb, 1);
        ow = ln_rt_conv_out_size(k.w, k.kw, k.sw, k.pl, k.pr, 1);
        if (oh <= 0 || ow <= 0)
            continue;
        taken += direct_check(&k, 600u + (uint32_t)it);
    }
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512)
        ck_assert_int_gt(taken, 30);
#endif
    (void)taken;
}
END_TEST

/* ---- direct conv, flat stride-1 tiles ----------------------------------
 * "Same" stride-1 maps are cut into 48-lane blocks (3 vectors x 8 output
 * channels) or, for maps of 49-64 pixels, one 64-lane block (4 vectors x
 * 6 output channels): lane tails of 1-3 vectors, 6- and 8-row output
 * channel tails, 1x1 / 3x3 / 5x5, the ResNet-8 shapes. */
START_TEST(test_conv_direct_flat_tiles)
{
    static const int32_t sh[][4] = { /* c, h, w, oc, with k below */
        { 16, 32, 32, 16 }, { 32, 16, 16, 32 }, { 64, 8, 8, 64 },
        { 5, 8, 8, 13 },    { 3, 7, 9, 7 },     { 4, 7, 7, 11 },
        { 6, 5, 10, 17 },   { 2, 11, 9, 9 },    { 3, 6, 8, 20 },
        { 7, 4, 12, 5 },    { 3, 2, 17, 6 },    { 1, 1, 1, 3 },
    };
    static const int32_t ks[] = { 3, 3, 3, 3, 3, 5, 1, 3, 1, 5, 3, 3 };
    const int i = _i;
    conv_case k;
    ln_rt_conv2d_args a;
    size_t nx, nw, ny;
    float *x, *wt, *b, *y;
    double *ref;
    memset(&k, 0, sizeof(k));
    k.n = 1 + i % 2;
    k.c = sh[i][0]; k.h = sh[i][1]; k.w = sh[i][2]; k.oc = sh[i][3];
    k.kh = k.kw = ks[i];
    k.sh = k.sw = k.dh = k.dw = k.g = 1;
    k.pt = k.pl = k.kh / 2;
    k.pb = k.pr = k.kh - 1 - k.kh / 2;
    k.act = (ln_rt_act)(i % RT_N_ACT);
    k.bias = i % 3 != 2;
    to_args(&k, &a);
    nx = (size_t)k.n * k.c * k.h * k.w;
    nw = (size_t)k.oc * k.c * k.kh * k.kw;
    ny = (size_t)k.n * k.oc * k.h * k.w;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k.oc);
    y = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 900u + (uint32_t)i);
    rt_fill(wt, nw, -1, 1, 910u + (uint32_t)i);
    rt_fill(b, k.oc, -1, 1, 920u + (uint32_t)i);
    conv_ref(&k, x, wt, k.bias ? b : NULL, ref, k.h, k.w);
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        rt_fill(y, ny, 50, 60, 9);
        ck_assert(ln_rt__conv2d_direct_f32_avx512(&a, x, wt, k.bias ? b : NULL,
                                                  y));
        RT_CHECK(y, ref, ny, 2e-5, "conv2d (AVX-512 direct, flat tiles)");
    }
#endif
    rt_fill(y, ny, 50, 60, 9);
    ln_rt__conv2d_direct_f32_c(&a, x, wt, k.bias ? b : NULL, y);
    RT_CHECK(y, ref, ny, 2e-5, "conv2d (portable direct, flat tiles)");
    free(x); free(wt); free(b); free(y); free(ref);
}
END_TEST

/* ---- conv_transpose2d ------------------------------------------------- */
typedef struct {
    int32_t n, c, h, w, oc, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, g, oph,
        opw;
    int bias;
} convt_case;

static const convt_case tcases[] = {
    /* n c h w oc kh kw sh sw pt pl pb pr dh dw g oph opw bias */
    { 2, 3, 7, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1 },
    { 1, 3, 4, 5, 2, 3, 3, 2, 2, 1, 0, 1, 2, 1, 1, 1, 1, 0, 1 },
    { 1, 6, 5, 3, 9, 2, 3, 2, 1, 0, 1, 0, 0, 2, 1, 3, 1, 0, 0 },
    { 2, 4, 3, 3, 4, 4, 4, 2, 2, 1, 1, 1, 1, 1, 1, 4, 0, 0, 1 },
    { 1, 8, 15, 17, 6, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1, 1, 0, 0, 1 },
    { 1, 5, 20, 11, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1 },
};

START_TEST(test_conv_transpose2d)
{
    const convt_case *k = &tcases[_i];
    ln_rt_conv_transpose2d_args a;
    int32_t oh, ow, cg, mg, bi, o, oy, ox, ci, ky, kx;
    size_t nx, nw, ny;
    float *x, *wt, *b, *y;
    double *ref;
    void *scr;

    oh = k->sh * (k->h - 1) + k->oph + k->dh * (k->kh - 1) + 1 - k->pt - k->pb;
    ow = k->sw * (k->w - 1) + k->opw + k->dw * (k->kw - 1) + 1 - k->pl - k->pr;
    cg = k->c / k->g;
    mg = k->oc / k->g;
    memset(&a, 0, sizeof(a));
    a.n = k->n; a.c = k->c; a.h = k->h; a.w = k->w; a.oc = k->oc;
    a.oh = oh; a.ow = ow; a.kh = k->kh; a.kw = k->kw; a.stride_h = k->sh;
    a.stride_w = k->sw; a.pad_top = k->pt; a.pad_left = k->pl;
    a.pad_bottom = k->pb; a.pad_right = k->pr; a.dil_h = k->dh;
    a.dil_w = k->dw; a.group = k->g; a.act = LN_RT_ACT_NONE;
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->c * mg * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k->oc);
    y = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 11 + _i);
    rt_fill(wt, nw, -1, 1, 12 + _i);
    rt_fill(b, k->oc, -1, 1, 13 + _i);
    /* gather form: output pixel collects every (input, tap) landing on it */
    for (bi = 0; bi < k->n; bi++)
        for (o = 0; o < k->oc; o++)
            for (oy = 0; oy < oh; oy++)
                for (ox = 0; ox < ow; ox++) {
                    int32_t g = o / mg;
                    double s = k->bias ? b[o] : 0.0;
                    for (ci = 0; ci < cg; ci++)
                        for (ky = 0; ky < k->kh; ky++)
                            for (kx = 0; kx < k->kw; kx++) {
                                int32_t ny_ = oy + k->pt - ky * k->dh;
                                int32_t nx_ = ox + k->pl - kx * k->dw;
                                int32_t iy, ix;
                                if (ny_ < 0 || nx_ < 0 || ny_ % k->sh ||
                                    nx_ % k->sw)
                                    continue;
                                iy = ny_ / k->sh;
                                ix = nx_ / k->sw;
                                if (iy >= k->h || ix >= k->w)
                                    continue;
                                s += (double)x[(((size_t)bi * k->c + g * cg +
                                                 ci) * k->h + iy) * k->w + ix]
                                     * wt[((((size_t)g * cg + ci) * mg +
                                            (o - g * mg)) * k->kh + ky) *
                                          k->kw + kx];
                            }
                    ref[(((size_t)bi * k->oc + o) * oh + oy) * ow + ox] = s;
                }
    scr = rt_scratch(ln_rt_conv_transpose2d_f32_scratch_size(&a));
    ck_assert_int_eq(ln_rt_conv_transpose2d_f32(&a, x, wt,
                                                k->bias ? b : NULL, y, scr),
                     LN_RT_OK);
    RT_CHECK(y, ref, ny, 2e-5, "conv_transpose2d");
    free(x); free(wt); free(b); free(y); free(ref); free(scr);
}
END_TEST

/* The plain names run this build's own variants: on the host, conv2d is
 * the default ISA's conv (bit for bit), and depthwise the ISA's direct
 * kernel, not the Cortex-M4 ones (a preprocessor test of the target once
 * sent every host conv to the M4 kernels, 25-100x slower on 5x5
 * depthwise, with results no test told apart) */
START_TEST(test_conv_host_variants)
{
#if !LN_RT_TARGET_IS_CORTEX_M4
    ln_rt_conv2d_args a;
    float *x, *wt, *b, *y, *want;
    void *scr;
    size_t nx, ny;
    int dw;

    for (dw = 0; dw < 2; dw++) {
        memset(&a, 0, sizeof a);
        a.n = 1; a.c = 16; a.h = 20; a.w = 20; a.oc = 16; a.kh = 5; a.kw = 5;
        a.stride_h = a.stride_w = 1; a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 2;
        a.dil_h = a.dil_w = 1; a.group = dw ? 16 : 1;
        nx = (size_t)16 * 20 * 20;
        ny = nx;
        x = rt_alloc(nx); wt = rt_alloc((size_t)16 * (dw ? 1 : 16) * 25); b = rt_alloc(16);
        y = rt_alloc(ny); want = rt_alloc(ny);
        rt_fill(x, nx, -1, 1, 71); rt_fill(wt, (size_t)16 * (dw ? 1 : 16) * 25, -1, 1, 72);
        rt_fill(b, 16, -1, 1, 73);
        scr = rt_scratch(ln_rt_conv2d_f32_scratch_size(&a) + ln_rt_conv2d_depthwise_f32_scratch_size(&a));
        if (dw) {
            ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt, b, y, scr), LN_RT_OK);
            if (LN_RT_CPU_AVX512)
                ck_assert(ln_rt__conv2d_depthwise_f32_avx512(&a, x, wt, b, want));
            else if (LN_RT_CPU_AVX2)
                ck_assert(ln_rt__conv2d_depthwise_f32_avx2(&a, x, wt, b, want));
            else
                ln_rt__conv2d_depthwise_f32_c(&a, x, wt, b, want, scr);
        } else {
            ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, wt, b, y, scr), LN_RT_OK);
            ck_assert_int_eq(ln_rt__conv2d_f32_isa(ln_rt__gemm_isa_default(), &a, x, wt, b, want,
                                                   scr), LN_RT_OK);
        }
        ck_assert_msg(memcmp(y, want, ny * sizeof(float)) == 0,
                      "%s: the public kernel is not this build's variant", dw ? "depthwise" : "conv2d");
        free(x); free(wt); free(b); free(y); free(want); free(scr);
    }
#endif
}
END_TEST


/* ln_rt_conv2d_scaled_f32 (squeeze-excitation's x * gate folded into the
 * conv): every group-1 case of the table against the double reference of
 * the conv of x scaled per image and channel; group > 1 refused */
START_TEST(test_conv2d_scaled)
{
    const conv_case *k = &cases[_i];
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny, i;
    float *x, *xs, *wt, *b, *sc, *y;
    double *ref;
    void *scr;
    const double kk = (double)k->c * k->kh * k->kw;
    const double tol = kk > 512 ? 2e-5 * kk / 512 : 2e-5;

    to_args(k, &a);
    if (k->g != 1) {
        ck_assert_int_eq(ln_rt_conv2d_scaled_f32(&a, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                         LN_RT_ARG_ERROR);
        return;
    }
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, k->dh);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, k->dw);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * k->c * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); xs = rt_alloc(nx); wt = rt_alloc(nw); b = rt_alloc(k->oc);
    sc = rt_alloc((size_t)k->n * k->c); y = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 400 + _i);
    rt_fill(wt, nw, -1, 1, 410 + _i);
    rt_fill(b, k->oc, -1, 1, 420 + _i);
    rt_fill(sc, (size_t)k->n * k->c, 0, 1, 430 + _i);
    for (i = 0; i < nx; i++) /* the reference's input: x * scale[image][channel] */
        xs[i] = x[i] * sc[i / ((size_t)k->h * k->w)];
    conv_ref(k, xs, wt, k->bias ? b : NULL, ref, oh, ow);
    scr = rt_scratch(ln_rt_conv2d_scaled_f32_scratch_size(&a));
    rt_fill(y, ny, 50, 60, 9);
    ck_assert_int_eq(ln_rt_conv2d_scaled_f32(&a, x, sc, wt, k->bias ? b : NULL, NULL, y, scr),
                     LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, "conv2d of x scaled per channel");
    /* with a residual (conv2d_res_cpu's): act(conv + bias + res) */
    {
        float *res = rt_alloc(ny);
        conv_case k0 = *k;
        k0.act = LN_RT_ACT_NONE;
        rt_fill(res, ny, -1, 1, 440 + _i);
        conv_ref(&k0, xs, wt, k->bias ? b : NULL, ref, oh, ow);
        for (i = 0; i < ny; i++)
            ref[i] = rt_act(ref[i] + res[i], k->act, 0.1, 0.8);
        rt_fill(y, ny, 50, 60, 10);
        ck_assert_int_eq(ln_rt_conv2d_scaled_f32(&a, x, sc, wt, k->bias ? b : NULL, res, y, scr),
                         LN_RT_OK);
        RT_CHECK(y, ref, ny, tol, "conv2d of x scaled per channel, + residual");
        free(res);
    }
    free(x); free(xs); free(wt); free(b); free(sc); free(y); free(ref); free(scr);
}
END_TEST

/* A fused SiLU (hardswish) gives the bits of the conv without it followed
 * by ln_rt_silu_f32 (ln_rt_hardswish_f32), on every conv path of this build
 * and CPU level (the compiler fuses a conv + SiLU in one compile and not in
 * another: the interpreter and the emitted C must still agree to the bit):
 * the public conv, the depthwise kernel for depthwise cases, the packed
 * kernel where it takes the shape. */
START_TEST(test_conv2d_act_unfused)
{
    const conv_case *k = &cases[_i / 2];
    const ln_rt_act act = _i % 2 ? LN_RT_ACT_HARDSWISH : LN_RT_ACT_SILU;
    ln_rt_conv2d_args a, an;
    int32_t oh, ow, path;
    size_t nx, nw, ny, ss;
    float *x, *wt, *wp, *b, *y, *yn;
    void *scr;

    to_args(k, &a);
    a.act = act;
    an = a;
    an.act = LN_RT_ACT_NONE;
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, k->dh);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, k->dw);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * (k->c / k->g) * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); wp = rt_alloc(nw); b = rt_alloc(k->oc);
    y = rt_alloc(ny); yn = rt_alloc(ny);
    rt_fill(x, nx, -3, 3, 300 + _i / 2);
    rt_fill(wt, nw, -1, 1, 310 + _i / 2);
    rt_fill(b, k->oc, -1, 1, 320 + _i / 2);
    ss = ln_rt_conv2d_f32_scratch_size(&a);
    if (ln_rt_conv2d_depthwise_f32_scratch_size(&a) > ss)
        ss = ln_rt_conv2d_depthwise_f32_scratch_size(&a);
    if (ln_rt_conv2d_packed_ok(&a) && ln_rt_conv2d_packed_f32_scratch_size(&a) > ss)
        ss = ln_rt_conv2d_packed_f32_scratch_size(&a);
    scr = rt_scratch(ss);
    if (ln_rt_conv2d_packed_ok(&a))
        ln_rt_conv2d_f32_pack(&a, wt, wp);
    for (path = 0; path < 3; path++) {
        int ok = 1;
        const float *bb = k->bias ? b : NULL;
        for (int f = 0; f < 2 && ok; f++) {
            const ln_rt_conv2d_args *aa = f ? &an : &a;
            float *out = f ? yn : y;
            if (path == 0)
                ck_assert_int_eq(ln_rt_conv2d_f32(aa, x, wt, bb, out, scr), LN_RT_OK);
            else if (path == 1 && k->g == k->c && k->g > 1)
                ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(aa, x, wt, bb, out, scr), LN_RT_OK);
            else if (path == 2 && ln_rt_conv2d_packed_ok(&a))
                ck_assert_int_eq(ln_rt_conv2d_packed_f32(aa, x, wp, bb, out, scr), LN_RT_OK);
            else
                ok = 0;
        }
        if (!ok)
            continue;
        (act == LN_RT_ACT_SILU ? ln_rt_silu_f32 : ln_rt_hardswish_f32)(yn, yn, ny);
        ck_assert_msg(memcmp(y, yn, ny * sizeof(float)) == 0,
                      "path %d: fused activation %d differs from conv then the activation's kernel",
                      path, (int)act);
    }
    free(x); free(wt); free(wp); free(b); free(y); free(yn); free(scr);
}
END_TEST

/* k through ln_rt_conv2d_f32_pack + ln_rt_conv2d_packed_f32 (exact-size
 * buffers, inputs seeded by seed) against the double reference */
/* [n][c][hw] -> [n][hw][c] */
static void to_nhwc(const float *x, float *y, int32_t n, int32_t c, size_t hw)
{
    int32_t b, ch;
    size_t p;
    for (b = 0; b < n; b++)
        for (ch = 0; ch < c; ch++)
            for (p = 0; p < hw; p++)
                y[((size_t)b * hw + p) * c + ch] = x[((size_t)b * c + ch) * hw + p];
}

/* the packed conv with src and / or dst channels-last (layouts 1..3)
 * gives the NCHW output y's bits, in that layout; dst is written only
 * where the output is (a guard band after it stays) */
static void packed_nhwc_check(const ln_rt_conv2d_args *a, const float *x,
                              const float *wp, const float *b, const float *y,
                              int32_t oh, int32_t ow, void *scr, const char *what)
{
    const size_t hw = (size_t)a->h * a->w, ohw = (size_t)oh * ow;
    const size_t nx = (size_t)a->n * a->c * hw, ny = (size_t)a->n * a->oc * ohw;
    float *xc = rt_alloc(nx), *yc = rt_alloc(ny), *got = rt_alloc(ny + 16);
    int layout;
    size_t j;
    to_nhwc(x, xc, a->n, a->c, hw);
    to_nhwc(y, yc, a->n, a->oc, ohw);
    for (layout = 1; layout <= 3; layout++) {
        const float *want = layout & LN_RT_NHWC_DST ? yc : y;
        rt_fill(got, ny + 16, 50, 60, 11);
        ck_assert_int_eq(ln_rt_conv2d_packed_nhwc_f32(a, layout,
                                                      layout & LN_RT_NHWC_SRC ? xc : x,
                                                      wp, b, got, scr), LN_RT_OK);
        ck_assert_msg(!memcmp(got, want, ny * sizeof(float)),
                      "%s: layout %d: not the NCHW kernel's bits", what, layout);
        for (j = ny; j < ny + 16; j++)
            ck_assert_msg(got[j] >= 50 && got[j] <= 60,
                          "%s: layout %d: wrote past dst", what, layout);
    }
    ck_assert_int_eq(ln_rt_conv2d_packed_nhwc_f32(a, 4, x, wp, b, got, scr),
                     LN_RT_ARG_ERROR);
    free(xc); free(yc); free(got);
}

static void packed_check(const conv_case *k, uint32_t seed, const char *what)
{
    /* float sums of K products: 2e-5 up to K = 512, in proportion above
     * (test_conv2d_cases' rule; K = 645 read 2.3e-5) */
    const double kk = (double)k->c * k->kh * k->kw;
    const double tol = kk > 512 ? 2e-5 * kk / 512 : 2e-5;
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny;
    float *x, *wt, *wp, *b, *y;
    double *ref;
    void *scr;

    to_args(k, &a);
    ck_assert(ln_rt_conv2d_packed_ok(&a));
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, 1);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, 1);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * k->c * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); wp = rt_alloc(nw);
    b = rt_alloc(k->oc); y = rt_alloc(ny); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, seed);
    rt_fill(wt, nw, -1, 1, seed + 1);
    rt_fill(b, k->oc, -1, 1, seed + 2);
    conv_ref(k, x, wt, k->bias ? b : NULL, ref, oh, ow);
    ln_rt_conv2d_f32_pack(&a, wt, wp);
    scr = rt_scratch(ln_rt_conv2d_packed_f32_scratch_size(&a));
    rt_fill(y, ny, 50, 60, 9);
    ck_assert_int_eq(ln_rt_conv2d_packed_f32(&a, x, wp, k->bias ? b : NULL,
                                             y, scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, what);
    packed_nhwc_check(&a, x, wp, k->bias ? b : NULL, y, oh, ow, scr, what);
    /* with a residual (conv2d_packed_res_cpu): act(conv + bias + res) */
    {
        conv_case k0 = *k;
        float *res = rt_alloc(ny);
        size_t j;

        k0.act = LN_RT_ACT_NONE;
        conv_ref(&k0, x, wt, k->bias ? b : NULL, ref, oh, ow);
        rt_fill(res, ny, -2, 2, seed + 3);
        for (j = 0; j < ny; j++)
            ref[j] = rt_act(ref[j] + res[j], k->act, 0.1, 0.8);
        rt_fill(y, ny, 50, 60, 10);
        ck_assert_int_eq(ln_rt_conv2d_packed_res_f32(&a, x, wp, k->bias ? b : NULL,
                                                     res, y, scr), LN_RT_OK);
        RT_CHECK(y, ref, ny, tol, what);
        {   /* src channels-last: the same bits; dst stays NCHW */
            float *xc = rt_alloc(nx), *y2 = rt_alloc(ny);
            to_nhwc(x, xc, k->n, k->c, (size_t)k->h * k->w);
            ck_assert_int_eq(ln_rt_conv2d_packed_res_nhwc_f32(&a, LN_RT_NHWC_SRC, xc, wp,
                                                              k->bias ? b : NULL, res, y2,
                                                              scr), LN_RT_OK);
            ck_assert_msg(!memcmp(y, y2, ny * sizeof(float)),
                          "%s: residual, src channels-last: not the NCHW bits", what);
            ck_assert_int_eq(ln_rt_conv2d_packed_res_nhwc_f32(&a, LN_RT_NHWC_DST, xc, wp,
                                                              k->bias ? b : NULL, res, y2,
                                                              scr), LN_RT_ARG_ERROR);
            free(xc); free(y2);
        }
        ck_assert_int_eq(ln_rt_conv2d_packed_res_f32(&a, x, wp, k->bias ? b : NULL,
                                                     y, y, scr), LN_RT_ARG_ERROR);
        ck_assert_int_eq(ln_rt_conv2d_packed_res_f32(&a, x, wp, k->bias ? b : NULL,
                                                     NULL, y, scr), LN_RT_ARG_ERROR);
        free(res);
    }
    free(x); free(wt); free(wp); free(b); free(y); free(ref); free(scr);
}

/* ---- Winograd F(2x2, 3x3) (conv2d_wino_f32.c, x86/conv2d_wino_avx512.c)
 * Weights transformed by ln_rt_conv2d_wino_f32_pack into an exact-size
 * buffer, against the double reference, plain and with a residual, through
 * the public entry (test-dispatch runs it at every ISA level: the AVX-512
 * kernel and the portable one). The tolerance is the direct kernel's: the
 * transforms only scale by 1/2 and add, and K = 9c products' rounding
 * (read: 1.3e-6 at c = 16 .. 9.1e-6 at c = 130, against 2e-5 and 4.7e-5). */
static void wino_check(const conv_case *k, uint32_t seed, const char *what)
{
    const double kk = (double)k->c * k->kh * k->kw;
    const double tol = kk > 512 ? 4e-8 * kk : 2e-5;
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny, j;
    float *x, *wt, *u, *b, *y, *res;
    double *ref;
    void *scr;
    conv_case k0 = *k;

    to_args(k, &a);
    ck_assert_msg(ln_rt_conv2d_wino_ok(&a), "%s: not taken", what);
    oh = ln_rt_conv_out_size(k->h, 3, 1, k->pt, k->pb, 1);
    ow = ln_rt_conv_out_size(k->w, 3, 1, k->pl, k->pr, 1);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * k->c * 9;
    ny = (size_t)k->n * k->oc * oh * ow;
    x = rt_alloc(nx); wt = rt_alloc(nw); u = rt_alloc(nw / 9 * 16);
    b = rt_alloc(k->oc); y = rt_alloc(ny); res = rt_alloc(ny);
    ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, seed);
    rt_fill(wt, nw, -1, 1, seed + 1);
    rt_fill(b, k->oc, -1, 1, seed + 2);
    conv_ref(k, x, wt, k->bias ? b : NULL, ref, oh, ow);
    ln_rt_conv2d_wino_f32_pack(&a, wt, u);
    scr = rt_scratch(ln_rt_conv2d_wino_f32_scratch_size(&a));
    rt_fill(y, ny, 50, 60, 9);
    ck_assert_int_eq(ln_rt_conv2d_wino_f32(&a, x, u, k->bias ? b : NULL, y,
                                           scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, what);
    /* act(conv + bias + res) */
    k0.act = LN_RT_ACT_NONE;
    conv_ref(&k0, x, wt, k->bias ? b : NULL, ref, oh, ow);
    rt_fill(res, ny, -2, 2, seed + 3);
    for (j = 0; j < ny; j++)
        ref[j] = rt_act(ref[j] + res[j], k->act, 0.1, 0.8);
    rt_fill(y, ny, 50, 60, 10);
    ck_assert_int_eq(ln_rt_conv2d_wino_res_f32(&a, x, u, k->bias ? b : NULL,
                                               res, y, scr), LN_RT_OK);
    RT_CHECK(y, ref, ny, tol, what);
    ck_assert_int_eq(ln_rt_conv2d_wino_res_f32(&a, x, u, NULL, y, y, scr),
                     LN_RT_ARG_ERROR);
    free(x); free(wt); free(u); free(b); free(y); free(res); free(ref);
    free(scr);
}

/* every way the output is cut into tiles: rows of 6-8 tiles (two tile
 * rows a vector, six a block: an odd count of tile rows leaves a vector's
 * second half empty, an odd height its last output row), 9-16 (a tile row
 * per vector, three rows a block, the last block short), 17-48 (one row's
 * segments) and over 48 (a second block per row), odd output heights and
 * widths (a half tile), the smallest height (2), pads 0-2 and asymmetric,
 * c just over 16 and past 128 (K = 1170), output-channel tails of 1-7,
 * batch 2 */
static const conv_case wino_cases[] = {
    /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
    { 1, 16, 24, 24, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 2, 17, 25, 26, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 24, 30, 40, 24, 3, 3, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU6, 0 },
    { 1, 16, 9, 100, 17, 3, 3, 1, 1, 2, 2, 2, 2, 1, 1, 1, LN_RT_ACT_SILU, 1 },
    { 1, 16, 5, 33, 16, 3, 3, 1, 1, 2, 0, 1, 2, 1, 1, 1, LN_RT_ACT_LEAKYRELU, 1 },
    { 1, 16, 2, 30, 23, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_CLIP, 1 },
    { 1, 32, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 1, 130, 26, 26, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_HARDSWISH, 1 },
    { 1, 19, 31, 49, 31, 3, 3, 1, 1, 0, 1, 2, 0, 1, 1, 1, LN_RT_ACT_NONE, 0 },
    { 1, 64, 13, 13, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
    { 2, 16, 14, 14, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 16, 27, 12, 17, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_SILU, 0 },
    { 1, 20, 3, 16, 16, 3, 3, 1, 1, 1, 1, 0, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 },
    { 1, 16, 9, 20, 16, 3, 3, 1, 1, 1, 0, 2, 2, 1, 1, 1, LN_RT_ACT_RELU, 1 },
};

START_TEST(test_conv_wino_cases)
{
    wino_check(&wino_cases[_i], 700u + (uint32_t)_i, "conv2d wino cases");
}
END_TEST

/* random shapes it takes (c, oc 16..40, h 2..33, w 10..70, pads 0..2,
 * batch 1..2, any activation, bias or not) */
START_TEST(test_conv_wino_sweep)
{
    uint32_t s = 9001u + (uint32_t)_i * 7919u;
    int it, taken = 0;
    for (it = 0; it < 12; it++) {
        conv_case k;
        ln_rt_conv2d_args a;
        memset(&k, 0, sizeof(k));
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = 16 + (int32_t)(rt_rand(&s) % 25);
        k.oc = 16 + (int32_t)(rt_rand(&s) % 25);
        k.h = 2 + (int32_t)(rt_rand(&s) % 32);
        k.w = 10 + (int32_t)(rt_rand(&s) % 61);
        k.kh = k.kw = 3;
        k.sh = k.sw = k.dh = k.dw = k.g = 1;
        k.pt = (int32_t)(rt_rand(&s) % 3);
        k.pb = (int32_t)(rt_rand(&s) % 3);
        k.pl = (int32_t)(rt_rand(&s) % 3);
        k.pr = (int32_t)(rt_rand(&s) % 3);
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 2);
        to_args(&k, &a);
        if (!ln_rt_conv2d_wino_ok(&a))
            continue;
        wino_check(&k, s, "conv2d wino sweep");
        taken++;
    }
    ck_assert_int_ge(taken, 6);
}
END_TEST

/* what ln_rt_conv2d_wino_ok must refuse, one change each from a shape it
 * takes, and the kernel returns LN_RT_ARG_ERROR for */
START_TEST(test_conv_wino_refuses)
{
    static const conv_case ok =
        { 1, 16, 24, 24, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE, 1 };
    conv_case bad[9];
    float dummy[16];
    ln_rt_conv2d_args a;
    int i;
    for (i = 0; i < 9; i++)
        bad[i] = ok;
    bad[0].sh = bad[0].sw = 2;       /* stride 2 */
    bad[1].kh = bad[1].kw = 5;       /* 5x5 */
    bad[2].g = 2;                    /* grouped */
    bad[3].c = 15;                   /* too few input channels */
    bad[4].oc = 15;                  /* too few output channels */
    bad[5].w = 11;                   /* output rows of 11 */
    bad[6].dh = bad[6].dw = 2;       /* dilated */
    bad[7].pl = 3;                   /* pad 3 */
    bad[8].h = 1; bad[8].pt = 0; bad[8].pb = 1; /* one output row */
    to_args(&ok, &a);
    ck_assert(ln_rt_conv2d_wino_ok(&a));
    for (i = 0; i < 9; i++) {
        to_args(&bad[i], &a);
        ck_assert_msg(!ln_rt_conv2d_wino_ok(&a), "refusal %d taken", i);
        ck_assert_int_eq(ln_rt_conv2d_wino_f32(&a, dummy, dummy, NULL, dummy,
                                               dummy), LN_RT_ARG_ERROR);
    }
}
END_TEST

/* ---- 1x1 expand + depthwise, fused (conv2d_pwdw_f32.c) ----------------
 * Each case: the 1x1 conv c -> m (activation pact) and the depthwise conv
 * over its output (the case's kernel, stride, pads, dilation, act), against
 * the double reference of the pair (the 1x1 output rounded to float, as
 * the kernel keeps it). The maps are big enough for several channel blocks
 * (64x64: blocks of 16; 48x48: 24; 40x40: 40) with a short last block, or
 * small (one block); batch 2; no bias on either half; every activation.
 * Then stride-2 pairs whose input is large enough for bands of output
 * rows (16 x 96 x 96 and up), each run in at least the case's number of
 * bands: a short first and last band, pads 0 and 1 on the top and the
 * bottom, 5x5 and 7x7, dilation 2, channel counts off the GEMM's 8. */
typedef struct {
    conv_case dw;       /* c = oc = g = m: the depthwise conv */
    int32_t c;          /* the 1x1 conv's input channels */
    ln_rt_act pact;
    int pbias;
    int32_t bands;      /* run in bands, at least this many (0: blocks) */
} pwdw_case;

static const pwdw_case pwdw_cases[] = {
    /*   n  m   h   w   m  kh kw sh sw pt pl pb pr dh dw  g */
    { { 1, 40, 64, 64, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 40, LN_RT_ACT_RELU6, 1 },
      16, LN_RT_ACT_RELU6, 1, 0 },
    { { 2, 56, 48, 48, 56, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 56, LN_RT_ACT_SILU, 1 },
      24, LN_RT_ACT_SILU, 1, 0 },
    { { 1, 90, 40, 40, 90, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 90, LN_RT_ACT_CLIP, 0 },
      20, LN_RT_ACT_LEAKYRELU, 1, 0 },
    { { 1, 33, 37, 29, 33, 3, 3, 1, 1, 0, 2, 1, 0, 1, 1, 33, LN_RT_ACT_NONE, 1 },
      7, LN_RT_ACT_HARDSWISH, 0, 0 },
    { { 2, 24, 9, 11, 24, 3, 3, 2, 2, 1, 1, 1, 1, 2, 2, 24, LN_RT_ACT_RELU, 1 },
      8, LN_RT_ACT_NONE, 1, 0 },
    { { 1, 8, 3, 3, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8, LN_RT_ACT_HARDSWISH, 1 },
      3, LN_RT_ACT_CLIP, 1, 0 },
    /*   n  m   h    w   m  kh kw sh sw pt pl pb pr dh dw  g */
    { { 1, 40, 96, 96, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 40, LN_RT_ACT_RELU6, 1 },
      16, LN_RT_ACT_RELU6, 1, 3 },
    { { 2, 72, 100, 90, 72, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 72, LN_RT_ACT_SILU, 1 },
      16, LN_RT_ACT_SILU, 1, 4 },
    { { 1, 48, 97, 101, 48, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 48, LN_RT_ACT_HARDSWISH, 0 },
      14, LN_RT_ACT_NONE, 0, 3 },
    { { 1, 36, 90, 94, 36, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 36, LN_RT_ACT_NONE, 1 },
      16, LN_RT_ACT_LEAKYRELU, 1, 3 },
    { { 1, 130, 81, 128, 130, 3, 3, 2, 2, 0, 1, 1, 0, 1, 1, 130, LN_RT_ACT_RELU, 1 },
      13, LN_RT_ACT_CLIP, 1, 6 },
    { { 1, 24, 120, 111, 24, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 24, LN_RT_ACT_CLIP, 1 },
      12, LN_RT_ACT_HARDSWISH, 1, 3 },
};

START_TEST(test_conv_pwdw_cases)
{
    const pwdw_case *k = &pwdw_cases[_i];
    conv_case pk = { k->dw.n, k->c, k->dw.h, k->dw.w, k->dw.c, 1, 1, 1, 1, 0, 0, 0, 0,
                     1, 1, 1, k->pact, k->pbias };
    ln_rt_conv2d_args pa, da;
    int32_t oh, ow;
    size_t nx, nt, ny, j;
    float *x, *w1, *b1, *w2, *b2, *t, *y;
    double *tref, *ref;
    void *scr;

    to_args(&pk, &pa);
    to_args(&k->dw, &da);
    ck_assert(ln_rt_conv2d_pwdw_ok(&pa, &da));
    oh = ln_rt_conv_out_size(k->dw.h, k->dw.kh, k->dw.sh, k->dw.pt, k->dw.pb, k->dw.dh);
    {
        int32_t rows;
        const int banded = ln_rt__conv2d_pwdw_plan(&pa, &da, &rows);
        ck_assert_int_eq(banded, k->bands > 0);
        if (banded)
            ck_assert_msg((oh + rows - 1) / rows >= k->bands,
                          "case %d: %d bands", _i, (oh + rows - 1) / rows);
    }
    ow = ln_rt_conv_out_size(k->dw.w, k->dw.kw, k->dw.sw, k->dw.pl, k->dw.pr, k->dw.dw);
    nx = (size_t)pk.n * pk.c * pk.h * pk.w;
    nt = (size_t)pk.n * pk.oc * pk.h * pk.w;
    ny = (size_t)pk.n * pk.oc * oh * ow;
    x = rt_alloc(nx); w1 = rt_alloc((size_t)pk.oc * pk.c); b1 = rt_alloc(pk.oc);
    w2 = rt_alloc((size_t)pk.oc * k->dw.kh * k->dw.kw); b2 = rt_alloc(pk.oc);
    t = rt_alloc(nt); y = rt_alloc(ny); tref = rt_allocd(nt); ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, 500 + _i);
    rt_fill(w1, (size_t)pk.oc * pk.c, -1, 1, 510 + _i);
    rt_fill(b1, pk.oc, -1, 1, 520 + _i);
    rt_fill(w2, (size_t)pk.oc * k->dw.kh * k->dw.kw, -1, 1, 530 + _i);
    rt_fill(b2, pk.oc, -1, 1, 540 + _i);
    conv_ref(&pk, x, w1, k->pbias ? b1 : NULL, tref, pk.h, pk.w);
    for (j = 0; j < nt; j++)
        t[j] = (float)tref[j];
    conv_ref(&k->dw, t, w2, k->dw.bias ? b2 : NULL, ref, oh, ow);
    scr = rt_scratch(ln_rt_conv2d_pwdw_f32_scratch_size(&pa, &da));
    rt_fill(y, ny, 50, 60, 11);
    ck_assert_int_eq(ln_rt_conv2d_pwdw_f32(&pa, &da, x, w1, k->pbias ? b1 : NULL, w2,
                                           k->dw.bias ? b2 : NULL, y, scr),
                     LN_RT_OK);
    RT_CHECK(y, ref, ny, 4e-5, "1x1 + depthwise fused");
    /* the unfused pair on the same inputs: the same sums (bits where the
     * 1x1 conv takes one path for a block as for all of its channels: the
     * GEMM, on every map over 128 pixels) */
    {
        float *y2 = rt_alloc(ny);
        void *s1 = rt_scratch(ln_rt_conv2d_f32_scratch_size(&pa));
        void *s2 = rt_scratch(ln_rt_conv2d_depthwise_f32_scratch_size(&da));
        ck_assert_int_eq(ln_rt_conv2d_f32(&pa, x, w1, k->pbias ? b1 : NULL, t, s1), LN_RT_OK);
        ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&da, t, w2, k->dw.bias ? b2 : NULL, y2, s2),
                         LN_RT_OK);
        if ((int64_t)pk.h * pk.w > 128)
            ck_assert_msg(memcmp(y, y2, ny * sizeof(float)) == 0,
                          "case %d: not the unfused pair's bits", _i);
        else
            RT_CHECK(y2, ref, ny, 4e-5, "the unfused pair");
        free(y2); free(s1); free(s2);
    }
    free(x); free(w1); free(b1); free(w2); free(b2); free(t); free(y); free(tref);
    free(ref); free(scr);
}
END_TEST

/* conv + ReLU + max pool fused (ln_rt_conv2d_maxpool_f32) against the
 * pair unfused on the same inputs, bit for bit, and against the double
 * reference: the first-conv kernel's stems (ResNet's 7x7 s2 + 3x3 s2 pad
 * 1, SqueezeNet's 3x3 s2 + 3x3 s2 ceil mode), GEMM convs (5x5, 1x1 read in
 * place, grouped, batch 2), pools of stride 1 and 2, windows clipped at
 * both ends, maps of fewer rows than one band */
typedef struct {
    conv_case k;
    int32_t pkh, pkw, psh, psw, ppt, ppl, ppb, ppr, ceil;
} convpool_case;

static const convpool_case convpool_cases[] = {
    { { 1, 3, 64, 64, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 1, 1, 1, 1, 0 },
    { { 2, 3, 57, 61, 16, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 0, 0, 0, 0, 1 },
    { { 1, 3, 150, 150, 8, 7, 7, 2, 2, 3, 3, 2, 3, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 1, 1, 1, 1, 0 },
    { { 1, 32, 48, 48, 20, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 1, LN_RT_ACT_RELU, 0 },
      2, 2, 2, 2, 0, 0, 0, 0, 0 },
    { { 2, 16, 20, 21, 32, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 1, 1, 1, 1, 1, 1, 0 },
    { { 1, 8, 30, 30, 12, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4, LN_RT_ACT_RELU, 1 },
      3, 2, 3, 2, 0, 1, 2, 0, 1 },
    { { 1, 4, 9, 70, 24, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      5, 3, 2, 2, 2, 1, 2, 1, 0 },
    /* stride-1 first convs (the first-conv kernel's, not the direct
     * kernel's, rows): LeNet-5's 5x5 + 2x2 s2, a CIFAR 3x3 pad 1 + 3x3 s2
     * pad 1 in ceil mode, a 7x7 pad 3 + 3x3 s1 */
    { { 1, 1, 28, 28, 6, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      2, 2, 2, 2, 0, 0, 0, 0, 0 },
    { { 2, 3, 33, 32, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 1, 1, 1, 1, 1 },
    { { 1, 4, 21, 40, 10, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 1, LN_RT_ACT_RELU, 0 },
      3, 3, 1, 1, 0, 0, 0, 0, 0 },
    /* the cases above are one band each (their conv rows are narrow);
     * these are several (CP_BAND pool rows a band): SqueezeNet 1.1's
     * stem in ceil mode on 120 of its rows (8 bands), a wide padded
     * stride-2 and a stride-1 first conv, a 1x1 through the GEMM */
    { { 1, 3, 120, 224, 64, 3, 3, 2, 2, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 0, 0, 0, 0, 1 },
    { { 1, 3, 40, 300, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 1, 1, 1, 1, 0 },
    { { 1, 3, 30, 260, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_RELU, 0 },
      2, 2, 2, 2, 0, 0, 0, 0, 0 },
    { { 1, 16, 24, 256, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, LN_RT_ACT_RELU, 1 },
      3, 3, 2, 2, 1, 1, 1, 1, 0 },
};

/* pool output size, ONNX ceil_mode included: a last window that would
 * start in the end padding is dropped */
static int32_t pool_out(int32_t in, int32_t k, int32_t s, int32_t p0, int32_t p1,
                        int ceil)
{
    int32_t span = in + p0 + p1 - k, o = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (o - 1) * s >= in + p0)
        o--;
    return o;
}

START_TEST(test_conv_maxpool_cases)
{
    const convpool_case *q = &convpool_cases[_i];
    const conv_case *k = &q->k;
    ln_rt_conv2d_args a;
    ln_rt_pool2d_args p;
    int32_t oh, ow;
    size_t nx, nw, nt, ny, j;
    float *x, *w, *b, *t, *y, *y2;
    double *tref;
    void *scr, *cs;

    to_args(k, &a);
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, k->dh);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, k->dw);
    memset(&p, 0, sizeof p);
    p.n = k->n; p.c = k->oc; p.h = oh; p.w = ow;
    p.kh = q->pkh; p.kw = q->pkw; p.stride_h = q->psh; p.stride_w = q->psw;
    p.pad_top = q->ppt; p.pad_left = q->ppl; p.pad_bottom = q->ppb; p.pad_right = q->ppr;
    p.dil_h = p.dil_w = 1;
    p.oh = pool_out(oh, q->pkh, q->psh, q->ppt, q->ppb, q->ceil);
    p.ow = pool_out(ow, q->pkw, q->psw, q->ppl, q->ppr, q->ceil);
    ck_assert_msg(ln_rt_conv2d_maxpool_ok(&a, &p), "case %d refused", _i);
    nx = (size_t)k->n * k->c * k->h * k->w;
    nw = (size_t)k->oc * (k->c / k->g) * k->kh * k->kw;
    nt = (size_t)k->n * k->oc * oh * ow;
    ny = (size_t)k->n * k->oc * p.oh * p.ow;
    x = rt_alloc(nx); w = rt_alloc(nw); b = rt_alloc(k->oc);
    t = rt_alloc(nt); y = rt_alloc(ny); y2 = rt_alloc(ny); tref = rt_allocd(nt);
    rt_fill(x, nx, -1, 1, 700 + _i);
    rt_fill(w, nw, -1, 1, 710 + _i);
    rt_fill(b, k->oc, -1, 1, 720 + _i);
    /* the unfused pair */
    cs = rt_scratch(ln_rt_conv2d_f32_scratch_size(&a));
    ck_assert_int_eq(ln_rt_conv2d_f32(&a, x, w, k->bias ? b : NULL, t, cs), LN_RT_OK);
    ck_assert_int_eq(ln_rt_maxpool2d_f32(&p, t, y2), LN_RT_OK);
    /* its conv against the reference, so the pair is worth matching */
    conv_ref(k, x, w, k->bias ? b : NULL, tref, oh, ow);
    RT_CHECK(t, tref, nt, 2e-5, "conv + ReLU before the pool");
    scr = rt_scratch(ln_rt_conv2d_maxpool_f32_scratch_size(&a, &p));
    rt_fill(y, ny, 50, 60, 11);
    ck_assert_int_eq(ln_rt_conv2d_maxpool_f32(&a, &p, x, w, k->bias ? b : NULL, y, scr),
                     LN_RT_OK);
    for (j = 0; j < ny; j++)
        ck_assert_msg(memcmp(&y[j], &y2[j], sizeof(float)) == 0,
                      "case %d: output %zu is %g, the unfused pair's %g", _i, j, y[j], y2[j]);
    free(x); free(w); free(b); free(t); free(y); free(y2); free(tref); free(scr); free(cs);
}
END_TEST

/* refused: another activation, a conv the direct kernel takes, a pool
 * not over the conv's output, a dilated pool */
START_TEST(test_conv_maxpool_refuses)
{
    const conv_case k = { 1, 3, 64, 64, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, LN_RT_ACT_RELU, 1 };
    ln_rt_conv2d_args a0, a;
    ln_rt_pool2d_args p0, p;
    to_args(&k, &a0);
    memset(&p0, 0, sizeof p0);
    p0.n = 1; p0.c = 64; p0.h = 32; p0.w = 32; p0.kh = p0.kw = 3;
    p0.stride_h = p0.stride_w = 2; p0.pad_top = p0.pad_left = p0.pad_bottom = p0.pad_right = 1;
    p0.dil_h = p0.dil_w = 1; p0.oh = p0.ow = 16;
    ck_assert(ln_rt_conv2d_maxpool_ok(&a0, &p0));
    a = a0; a.act = LN_RT_ACT_NONE; ck_assert(!ln_rt_conv2d_maxpool_ok(&a, &p0));
    a = a0; a.act = LN_RT_ACT_RELU6; ck_assert(!ln_rt_conv2d_maxpool_ok(&a, &p0));
    /* 3x3 stride 1 on a small image: the direct kernel's */
    a = a0; a.c = 8; a.h = a.w = 16; a.kh = a.kw = 3; a.stride_h = a.stride_w = 1;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
    ck_assert(ln_rt__conv2d_direct_ok(&a));
    p = p0; p.h = p.w = 16; p.oh = p.ow = 8;
    ck_assert(!ln_rt_conv2d_maxpool_ok(&a, &p));
    p = p0; p.c = 63; ck_assert(!ln_rt_conv2d_maxpool_ok(&a0, &p));
    p = p0; p.h = 31; ck_assert(!ln_rt_conv2d_maxpool_ok(&a0, &p));
    p = p0; p.n = 2; ck_assert(!ln_rt_conv2d_maxpool_ok(&a0, &p));
    p = p0; p.dil_h = 2; ck_assert(!ln_rt_conv2d_maxpool_ok(&a0, &p));
    ck_assert_int_eq(ln_rt_conv2d_maxpool_f32(&a, &p0, NULL, NULL, NULL, NULL, NULL),
                     LN_RT_ARG_ERROR);
}
END_TEST

/* what the fused kernel refuses: a 1x1 conv that is not one (3x3, stride
 * 2, padded, grouped), a depthwise conv that is not over the 1x1 conv's
 * output (other channels, multiplier 2, other map, other batch), no
 * scratch */
START_TEST(test_conv_pwdw_refuses)
{
    ln_rt_conv2d_args pa0, da0, pa, da;
    float dummy[64];
    int i;
    const conv_case p = { 1, 8, 16, 16, 16, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
                          LN_RT_ACT_RELU, 1 };
    const conv_case d = { 1, 16, 16, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16,
                          LN_RT_ACT_RELU, 1 };
    to_args(&p, &pa0);
    to_args(&d, &da0);
    ck_assert(ln_rt_conv2d_pwdw_ok(&pa0, &da0));
    ck_assert_int_eq(ln_rt_conv2d_pwdw_f32(&pa0, &da0, dummy, dummy, NULL, dummy, NULL,
                                           dummy, NULL), LN_RT_ARG_ERROR);
    for (i = 0; i < 9; i++) {
        pa = pa0;
        da = da0;
        switch (i) {
        case 0: pa.kh = pa.kw = 3; break;
        case 1: pa.stride_h = pa.stride_w = 2; break;
        case 2: pa.pad_top = 1; break;
        case 3: pa.group = 2; break;
        case 4: da.c = da.oc = da.group = 8; break;
        case 5: da.oc = 32; break;
        case 6: da.h = 15; break;
        case 7: da.n = 2; break;
        default: da.group = 1; break;
        }
        ck_assert_msg(!ln_rt_conv2d_pwdw_ok(&pa, &da), "refusal %d taken", i);
        ck_assert_int_eq(ln_rt_conv2d_pwdw_f32_scratch_size(&pa, &da), 0);
        ck_assert_int_eq(ln_rt_conv2d_pwdw_f32(&pa, &da, dummy, dummy, NULL, dummy, NULL,
                                               dummy, dummy), LN_RT_ARG_ERROR);
    }
}
END_TEST

/* ---- packed small-map conv (conv2d_packed_f32.c) -----------------------
 * Random shapes (seeded) the packed kernel takes: oc 16..70 (partial last
 * blocks, 1-4 full blocks per group), c 1..24, 1x1 / 3x3 / any kh, kw up
 * to 5, stride 1 or 2, pads 0..2, output maps of at most 64 pixels (tile
 * tails), batch 1..2, every activation, bias or not; weights packed by
 * ln_rt_conv2d_f32_pack into an exact-size buffer, against the double
 * reference. Whatever ISA the dispatch picks (test-dispatch runs every
 * level). Also: what it must refuse. */
START_TEST(test_conv_packed_sweep)
{
    uint32_t s = 4242u + (uint32_t)_i * 7919u;
    int it, taken = 0;
    for (it = 0; it < 40; it++) {
        conv_case k;
        ln_rt_conv2d_args a;
        memset(&k, 0, sizeof(k));
        k.n = 1 + (int32_t)(rt_rand(&s) % 2);
        k.c = 1 + (int32_t)(rt_rand(&s) % 24);
        k.oc = 16 + (int32_t)(rt_rand(&s) % 55);
        k.g = 1;
        switch (rt_rand(&s) % 3) {
        case 0: k.kh = k.kw = 1; break;
        case 1: k.kh = k.kw = 3; break;
        default:
            k.kh = 1 + (int32_t)(rt_rand(&s) % 5);
            k.kw = 1 + (int32_t)(rt_rand(&s) % 5);
        }
        k.sh = k.sw = 1 + (int32_t)(rt_rand(&s) % 2);
        k.dh = k.dw = 1;
        if (rt_rand(&s) % 2) {
            k.pt = (int32_t)(rt_rand(&s) % 3);
            k.pb = (int32_t)(rt_rand(&s) % 3);
            k.pl = (int32_t)(rt_rand(&s) % 3);
            k.pr = (int32_t)(rt_rand(&s) % 3);
        }
        k.h = 1 + (int32_t)(rt_rand(&s) % 12);
        k.w = 1 + (int32_t)(rt_rand(&s) % 12);
        k.act = (ln_rt_act)(rt_rand(&s) % RT_N_ACT);
        k.bias = (int)(rt_rand(&s) % 4 != 0);
        to_args(&k, &a);
        if (!ln_rt_conv2d_packed_ok(&a))
            continue; /* includes maps that come out empty */
        packed_check(&k, 610u + (uint32_t)it * 3u, "conv2d packed");
        taken++;
    }
    ck_assert_int_gt(taken, 10);
}
END_TEST

/* the reduction in steps of 128 input channels (c 130 and 300: two and
 * three steps per tap) and maps over 64 pixels (c >= 128): 10x10 3x3
 * pads 1, 7x7 1x1 with a partial last block, 9x9 s2 */
START_TEST(test_conv_packed_steps)
{
    static const conv_case ks[] = {
        { 1, 130, 10, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_RELU, 1 },
        { 2, 300, 7, 7, 37, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 129, 9, 9, 64, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_CLIP, 0 },
    };
    packed_check(&ks[_i], 31u + 3u * (uint32_t)_i,
                 "conv2d packed (reduction steps)");
}
END_TEST

/* the shapes the packed kernel took on when its maps grew to 128 pixels
 * (256 at stride 2), and reduction steps of several taps (c < 128: 128 / c
 * taps a step, the last one shorter): DS-CNN's 1->64 10x4 s2 first conv
 * with its pads (25x5 out, 40 taps in one step), its 64->64 1x1 @25x5,
 * ResNet-8's 16->32 3x3 s2 and 1x1 s2 @32 (16x16 out), LeNet-5's 6->16
 * 5x5 @14 (10x10 out, 21 taps a step: two steps), c = 50 3x3 (two taps
 * a step, then one) on an odd 11x9 map with uneven pads, c = 43 (two taps
 * a step) 5x3 s2 with a 17x17 -> 8x9 map and oc 37, c = 7 1x7 s1 on a
 * 3x41 row (123 pixels); every activation, with and without bias */
START_TEST(test_conv_packed_taps)
{
    static const conv_case ks[] = {
        /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
        { 1, 1, 49, 10, 64, 10, 4, 2, 2, 4, 1, 5, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 64, 25, 5, 64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 16, 32, 32, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 16, 32, 32, 32, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 6, 14, 14, 16, 5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 2, 50, 11, 9, 40, 3, 3, 1, 1, 1, 0, 1, 2, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 43, 17, 17, 37, 5, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 7, 3, 41, 20, 1, 7, 1, 1, 0, 3, 0, 3, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
    };
    int act;
    for (act = LN_RT_ACT_NONE; act < RT_N_ACT; act++) {
        conv_case k = ks[_i];
        k.act = (ln_rt_act)act;
        k.bias = act % 2 == 0;
        packed_check(&k, 77u + 5u * (uint32_t)_i + (uint32_t)act,
                     "conv2d packed (tap steps, larger maps)");
    }
}
END_TEST

/* maps of a multiple of 7 pixels but not of 6 (7x7, 14x14, 7x1) run the
 * AVX-512 kernel's 7-pixel tiles in groups of 3 blocks of 16 channels:
 * oc 48 / 64 / 80 (3, 3 + 1, 3 + 2 blocks), 37 and 45 (partial last
 * block after 2 full ones), a reduction in two steps (c 160: 128 + 32)
 * and 9 taps (3x3 pads 1), batch 2 */
START_TEST(test_conv_packed_tile7)
{
    static const conv_case ks[] = {
        /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
        { 1, 24, 7, 7, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_RELU, 1 },
        { 2, 16, 7, 7, 64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 160, 7, 7, 80, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_CLIP, 1 },
        { 1, 130, 14, 14, 37, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 0 },
        { 1, 20, 7, 7, 45, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_LEAKYRELU, 1 },
        { 2, 9, 7, 1, 33, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
    };
    packed_check(&ks[_i], 57u + 7u * (uint32_t)_i,
                 "conv2d packed (7-pixel tiles)");
}
END_TEST

/* maps of 9, 27 or 45 pixels (3x3, 3x9, 5x9) run the AVX-512 kernel's
 * 9-pixel tiles in groups of 3 blocks: oc 48 / 64 / 256 (3, 3 + 1, 3 x 5
 * + 1 blocks), 37 (a partial last block), a reduction in two steps (c 160)
 * and 9 taps (3x3 pads 1), batch 2; an 81-pixel map keeps 6-pixel tiles */
START_TEST(test_conv_packed_tile9)
{
    static const conv_case ks[] = {
        /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
        { 1, 24, 3, 3, 48, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_RELU, 1 },
        { 2, 16, 3, 3, 64, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 160, 3, 3, 256, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_CLIP, 1 },
        { 1, 130, 3, 9, 37, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_NONE, 0 },
        { 1, 20, 5, 9, 45, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_LEAKYRELU, 1 },
        { 2, 9, 6, 6, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1,
          LN_RT_ACT_NONE, 1 },
        { 1, 40, 9, 9, 80, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1,
          LN_RT_ACT_RELU, 1 },
    };
    packed_check(&ks[_i], 91u + 5u * (uint32_t)_i,
                 "conv2d packed (9-pixel tiles)");
}
END_TEST

/* ---- channels-last depthwise (ln_rt_conv2d_depthwise_nhwc_f32) -------
 * Against the double reference and, bit for bit, against the NCHW
 * depthwise conv of the same ISA level (test-dispatch runs every level):
 * 3x3 stride 1 / 2 (pads 1, TensorFlow's 0 / 1), 5x5 and 7x7, rows of 1..
 * 40, 16..96 channels (groups of 16), batch 2, no bias, each activation it
 * takes; dst is written only where the output is. */
static const conv_case dwn_cases[] = {
    /* n c  h  w  oc kh kw sh sw pt pl pb pr dh dw g */
    { 1, 64, 25, 5, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 64, LN_RT_ACT_RELU, 1 },
    { 2, 32, 12, 12, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32, LN_RT_ACT_RELU6, 1 },
    { 1, 16, 9, 7, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 16, LN_RT_ACT_NONE, 1 },
    { 1, 48, 12, 12, 48, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1, 48, LN_RT_ACT_CLIP, 0 },
    { 1, 96, 7, 7, 96, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 96, LN_RT_ACT_LEAKYRELU, 1 },
    { 1, 32, 14, 14, 32, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 32, LN_RT_ACT_NONE, 1 },
    { 1, 16, 3, 3, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, LN_RT_ACT_HARDSWISH, 1 },
    { 2, 16, 1, 1, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, LN_RT_ACT_RELU, 1 },
    { 1, 32, 10, 9, 32, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 32, LN_RT_ACT_NONE, 1 },
    { 1, 16, 6, 40, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, LN_RT_ACT_RELU, 1 },
    { 1, 16, 11, 8, 16, 3, 2, 1, 2, 0, 1, 2, 0, 1, 1, 16, LN_RT_ACT_NONE, 1 },
    /* 3x3 stride 1 pads 1 in place (AVX-512): runs of 7 + 6 and 5 + 4
     * (edges in the first and last), two rows only, each activation path
     * (none, ReLU, the clamps ReLU6 and Clip, the others at run time) */
    { 1, 32, 5, 13, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32, LN_RT_ACT_NONE, 1 },
    { 2, 16, 2, 9, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, LN_RT_ACT_RELU6, 1 },
    { 1, 48, 7, 17, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 48, LN_RT_ACT_RELU, 0 },
    { 1, 32, 6, 11, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32, LN_RT_ACT_CLIP, 1 },
};

START_TEST(test_conv_depthwise_nhwc)
{
    const conv_case *k = &dwn_cases[_i];
    const uint32_t seed = 301u + 13u * (uint32_t)_i;
    ln_rt_conv2d_args a;
    int32_t oh, ow;
    size_t nx, nw, ny, hw, ohw;
    float *x, *xc, *wt, *b, *y, *yc, *got;
    double *ref, *refc;
    void *scr, *scr2;

    to_args(k, &a);
    ck_assert(ln_rt_conv2d_depthwise_nhwc_ok(&a));
    oh = ln_rt_conv_out_size(k->h, k->kh, k->sh, k->pt, k->pb, 1);
    ow = ln_rt_conv_out_size(k->w, k->kw, k->sw, k->pl, k->pr, 1);
    hw = (size_t)k->h * k->w;
    ohw = (size_t)oh * ow;
    nx = (size_t)k->n * k->c * hw;
    nw = (size_t)k->oc * k->kh * k->kw;
    ny = (size_t)k->n * k->oc * ohw;
    x = rt_alloc(nx); xc = rt_alloc(nx); wt = rt_alloc(nw);
    b = rt_alloc(k->oc); y = rt_alloc(ny); yc = rt_alloc(ny);
    got = rt_alloc(ny + 16); ref = rt_allocd(ny); refc = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, seed);
    rt_fill(wt, nw, -1, 1, seed + 1);
    rt_fill(b, k->oc, -1, 1, seed + 2);
    conv_ref(k, x, wt, k->bias ? b : NULL, ref, oh, ow);
    {
        int32_t bb, ch;
        size_t p;
        for (bb = 0; bb < k->n; bb++)
            for (ch = 0; ch < k->oc; ch++)
                for (p = 0; p < ohw; p++)
                    refc[((size_t)bb * ohw + p) * k->oc + ch] =
                        ref[((size_t)bb * k->oc + ch) * ohw + p];
    }
    to_nhwc(x, xc, k->n, k->c, hw);
    scr = rt_scratch(ln_rt_conv2d_depthwise_f32_scratch_size(&a));
    scr2 = rt_scratch(ln_rt_conv2d_depthwise_nhwc_f32_scratch_size(&a));
    ck_assert_int_eq(ln_rt_conv2d_depthwise_f32(&a, x, wt, k->bias ? b : NULL,
                                                y, scr), LN_RT_OK);
    to_nhwc(y, yc, k->n, k->oc, ohw);
    rt_fill(got, ny + 16, 50, 60, 12);
    ck_assert_int_eq(ln_rt_conv2d_depthwise_nhwc_f32(&a, xc, wt, k->bias ? b : NULL,
                                                     got, scr2), LN_RT_OK);
    RT_CHECK(got, refc, ny, 1e-5, "depthwise nhwc");
    ck_assert_msg(!memcmp(got, yc, ny * sizeof(float)),
                  "depthwise nhwc case %d: not the NCHW kernel's bits", _i);
    for (nx = ny; nx < ny + 16; nx++)
        ck_assert_msg(got[nx] >= 50 && got[nx] <= 60, "depthwise nhwc: wrote past dst");
    free(x); free(xc); free(wt); free(b); free(y); free(yc); free(got);
    free(ref); free(refc); free(scr); free(scr2);
}
END_TEST

START_TEST(test_conv_depthwise_nhwc_refuses)
{
    const conv_case ok = { 1, 32, 8, 8, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 32,
                           LN_RT_ACT_RELU, 1 };
    conv_case k = ok;
    ln_rt_conv2d_args a;
    to_args(&k, &a);
    ck_assert(ln_rt_conv2d_depthwise_nhwc_ok(&a));
    ck_assert(ln_rt_conv2d_depthwise_nhwc_f32_scratch_size(&a) > 0);
    k.c = k.oc = k.g = 24; to_args(&k, &a); /* not a multiple of 16 */
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
    ck_assert_int_eq(ln_rt_conv2d_depthwise_nhwc_f32_scratch_size(&a), 0);
    ck_assert_int_eq(ln_rt_conv2d_depthwise_nhwc_f32(&a, NULL, NULL, NULL,
                                                     NULL, NULL),
                     LN_RT_ARG_ERROR);
    k = ok; k.oc = 64; to_args(&k, &a); /* multiplier 2 */
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
    k = ok; k.dh = k.dw = 2; to_args(&k, &a); /* dilation */
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
    k = ok; k.act = LN_RT_ACT_SILU; to_args(&k, &a);
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
    k = ok; k.kh = k.kw = 9; k.pt = k.pl = k.pb = k.pr = 4; to_args(&k, &a);
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
    k = ok; k.h = k.w = 100; to_args(&k, &a); /* the padded group > MAXF */
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
    k = ok; k.g = 1; k.oc = 32; to_args(&k, &a); /* not depthwise */
    ck_assert(!ln_rt_conv2d_depthwise_nhwc_ok(&a));
}
END_TEST

START_TEST(test_conv_packed_refuses)
{
    const conv_case ok = { 1, 8, 5, 5, 32, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                           LN_RT_ACT_NONE, 1 };
    conv_case k = ok;
    ln_rt_conv2d_args a;
    to_args(&k, &a);
    ck_assert(ln_rt_conv2d_packed_ok(&a));
    k.g = 2; to_args(&k, &a); /* groups */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    ck_assert_int_eq(ln_rt_conv2d_packed_f32(&a, NULL, NULL, NULL, NULL,
                                             NULL), LN_RT_ARG_ERROR);
    k = ok; k.dh = 2; to_args(&k, &a); /* dilation */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k = ok; k.oc = 15; to_args(&k, &a); /* fewer than 16 channels */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k = ok; k.sh = k.sw = 3; to_args(&k, &a);
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k = ok; k.sh = 2; to_args(&k, &a); /* unequal strides */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k = ok; k.h = k.w = 11; to_args(&k, &a); /* 121 output pixels */
    ck_assert(ln_rt_conv2d_packed_ok(&a));
    k = ok; k.h = 12; k.w = 11; to_args(&k, &a); /* 132 pixels, stride 1 */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k = ok; k.h = k.w = 32; k.sh = k.sw = 2; to_args(&k, &a); /* 16x16 */
    ck_assert(ln_rt_conv2d_packed_ok(&a));
    k = ok; k.h = 34; k.w = 32; k.sh = k.sw = 2; to_args(&k, &a); /* 17x16 */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k = ok; k.h = k.w = 16; k.c = 127; to_args(&k, &a); /* 256, c < 128 */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    k.c = 128; to_args(&k, &a);
    ck_assert(ln_rt_conv2d_packed_ok(&a));
    k = ok; k.h = k.w = 12; to_args(&k, &a); /* 144 output pixels */
    ck_assert(!ln_rt_conv2d_packed_ok(&a));
    ck_assert_int_eq(ln_rt_conv2d_packed_f32_scratch_size(&a), 0);
}
END_TEST

Suite *rt_conv_suite(void)
{
    Suite *s = suite_create("rt_conv");
    TCase *tc = tcase_create("conv");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_conv2d_cases, 0,
                        (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_loop_test(tc, test_conv2d_res_cases, 0,
                        (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_loop_test(tc, test_conv2d_depthwise_sweep, 0, 8);
    tcase_add_loop_test(tc, test_conv2d_depthwise_flat3, 0, 29);
    tcase_add_loop_test(tc, test_conv2d_depthwise_s2, 0, 3);
    tcase_add_loop_test(tc, test_conv2d_scaled, 0,
                        (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_loop_test(tc, test_conv2d_act_unfused, 0,
                        2 * (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_loop_test(tc, test_conv_direct_sweep, 0, 8);
    tcase_add_loop_test(tc, test_conv_direct_cases, 0,
                        (int)(sizeof(direct_cases) / sizeof(direct_cases[0])));
    tcase_add_loop_test(tc, test_conv_s2few_shapes, 0,
                        (int)(sizeof s2few_shapes / sizeof s2few_shapes[0]));
    tcase_add_loop_test(tc, test_conv_s2few_sweep, 0, 6);
    tcase_add_loop_test(tc, test_conv_depthwise_cl_sweep, 0, 8);
    tcase_add_loop_test(tc, test_conv_depthwise_cl_acts, 0, RT_N_ACT);
    tcase_add_loop_test(tc, test_conv_depthwise_cl_wide, 0, 11);
    tcase_add_loop_test(tc, test_conv_packed_sweep, 0, 6);
    tcase_add_loop_test(tc, test_conv_packed_tile7, 0, 6);
    tcase_add_loop_test(tc, test_conv_packed_tile9, 0, 7);
    tcase_add_loop_test(tc, test_conv_packed_steps, 0, 3);
    tcase_add_loop_test(tc, test_conv_packed_taps, 0, 8);
    tcase_add_test(tc, test_conv_packed_refuses);
    tcase_add_loop_test(tc, test_conv_depthwise_nhwc, 0,
                        (int)(sizeof dwn_cases / sizeof dwn_cases[0]));
    tcase_add_test(tc, test_conv_depthwise_nhwc_refuses);
    tcase_add_loop_test(tc, test_conv_wino_cases, 0,
                        (int)(sizeof wino_cases / sizeof wino_cases[0]));
    tcase_add_loop_test(tc, test_conv_wino_sweep, 0, 4);
    tcase_add_test(tc, test_conv_wino_refuses);
    tcase_add_loop_test(tc, test_conv_pwdw_cases, 0,
                        sizeof(pwdw_cases) / sizeof(pwdw_cases[0]));
    tcase_add_test(tc, test_conv_pwdw_refuses);
    tcase_add_loop_test(tc, test_conv_maxpool_cases, 0,
                        (int)(sizeof convpool_cases / sizeof convpool_cases[0]));
    tcase_add_test(tc, test_conv_maxpool_refuses);
    tcase_add_loop_test(tc, test_conv_direct_flat_tiles, 0, 12);
    tcase_add_test(tc, test_conv2d_bad_args);
    tcase_add_test(tc, test_conv2d_scratch_size);
    tcase_add_test(tc, test_conv_host_variants);
    tcase_add_loop_test(tc, test_conv_transpose2d, 0,
                        (int)(sizeof(tcases) / sizeof(tcases[0])));
    suite_add_tcase(s, tc);
    return s;
}
