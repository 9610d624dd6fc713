/*
 * test_rt_movement.c -- slice, concat, split, transpose, pad, tile/expand,
 * gather, depth_to_space, space_to_depth, resize and casts. Data movement
 * is exact (tolerance 0) against index-arithmetic references; depth_to_space
 * and resize also against the worked examples of the ONNX operator docs
 * (values typed in here); linear resize tolerance 1e-6. ln_rt_cast: every
 * type pair, float16 rounding, float -> int saturation and NaN, exactly.
 */
#include "rt_test.h"

/* unravel a flat index over dims */
static void unravel(size_t i, int nd, const int32_t *dims, int32_t *idx)
{
    int d;
    for (d = nd - 1; d >= 0; d--) {
        idx[d] = (int32_t)(i % (size_t)dims[d]);
        i /= (size_t)dims[d];
    }
}

static size_t ravel(int nd, const int32_t *dims, const int32_t *idx)
{
    size_t r = 0;
    int d;
    for (d = 0; d < nd; d++)
        r = r * (size_t)dims[d] + (size_t)idx[d];
    return r;
}

static size_t count(int nd, const int32_t *dims)
{
    size_t c = 1;
    int d;
    for (d = 0; d < nd; d++)
        c *= (size_t)dims[d];
    return c;
}

START_TEST(test_slice)
{
    /* 2x5x7x3: per axis start/step, with negative and strided steps */
    static const int32_t starts[][4] = { { 0, 1, 6, 0 }, { 1, 4, 0, 2 },
                                         { 0, 0, 1, 1 } };
    static const int32_t steps[][4] = { { 1, 2, -2, 1 }, { -1, -1, 3, -2 },
                                        { 1, 1, 1, 1 } };
    static const int32_t ext[][4] = { { 2, 2, 4, 3 }, { 2, 5, 3, 2 },
                                      { 2, 5, 6, 2 } };
    ln_rt_slice_args a;
    float x[210], y[210];
    double ref[210];
    int32_t idx[4];
    size_t n, i;
    int d;
    memset(&a, 0, sizeof(a));
    a.ndim = 4;
    a.src_dims[0] = 2; a.src_dims[1] = 5; a.src_dims[2] = 7;
    a.src_dims[3] = 3;
    for (d = 0; d < 4; d++) {
        a.starts[d] = starts[_i][d];
        a.steps[d] = steps[_i][d];
        a.dst_dims[d] = ext[_i][d];
    }
    rt_fill(x, 210, -1, 1, 5);
    n = count(4, a.dst_dims);
    for (i = 0; i < n; i++) {
        int32_t s[4];
        unravel(i, 4, a.dst_dims, idx);
        for (d = 0; d < 4; d++) {
            s[d] = a.starts[d] + idx[d] * a.steps[d];
            ck_assert(s[d] >= 0 && s[d] < a.src_dims[d]);
        }
        ref[i] = x[ravel(4, a.src_dims, s)];
    }
    ln_rt_slice_f32(&a, x, y);
    RT_CHECK(y, ref, n, 0, "slice");
}
END_TEST

START_TEST(test_slice_bytes)
{
    int64_t x[10], y[3];
    ln_rt_slice_args a;
    int i;
    for (i = 0; i < 10; i++)
        x[i] = 100 + i;
    memset(&a, 0, sizeof(a));
    a.ndim = 1; a.src_dims[0] = 10; a.starts[0] = 8; a.steps[0] = -3;
    a.dst_dims[0] = 3;
    ln_rt_slice(&a, sizeof(int64_t), x, y);
    ck_assert(y[0] == 108 && y[1] == 105 && y[2] == 102);
}
END_TEST

START_TEST(test_concat_split)
{
    /* three inputs [2][k][5] along axis 1 with k = 1, 3, 2 */
    const int32_t ax[3] = { 1, 3, 2 };
    float a0[10], a1[30], a2[20], y[60], b0[10], b1[30], b2[20];
    double ref[60];
    const float *srcs[3];
    float *dsts[3];
    int o, k, j, r = 0;
    rt_fill(a0, 10, -1, 1, 1); rt_fill(a1, 30, -1, 1, 2);
    rt_fill(a2, 20, -1, 1, 3);
    srcs[0] = a0; srcs[1] = a1; srcs[2] = a2;
    for (o = 0; o < 2; o++)
        for (k = 0; k < 3; k++)
            for (j = 0; j < ax[k] * 5; j++)
                ref[r++] = srcs[k][o * ax[k] * 5 + j];
    ln_rt_concat_f32(3, srcs, ax, 2, 5, y);
    RT_CHECK(y, ref, 60, 0, "concat");
    dsts[0] = b0; dsts[1] = b1; dsts[2] = b2;
    ln_rt_split_f32(y, 3, dsts, ax, 2, 5);
    ck_assert(memcmp(a0, b0, sizeof(a0)) == 0);
    ck_assert(memcmp(a1, b1, sizeof(a1)) == 0);
    ck_assert(memcmp(a2, b2, sizeof(a2)) == 0);
    {
        const void *vs[3];
        void *vd[3];
        float y2[60];
        vs[0] = a0; vs[1] = a1; vs[2] = a2;
        ln_rt_concat(3, vs, ax, 2, 5, sizeof(float), y2);
        ck_assert(memcmp(y, y2, sizeof(y)) == 0);
        memset(b1, 0, sizeof(b1));
        vd[0] = b0; vd[1] = b1; vd[2] = b2;
        ln_rt_split(y2, 3, vd, ax, 2, 5, sizeof(float));
        ck_assert(memcmp(a1, b1, sizeof(a1)) == 0);
    }
}
END_TEST

START_TEST(test_transpose)
{
    static const int32_t perms[][4] = { { 0, 2, 3, 1 }, { 3, 2, 1, 0 },
                                        { 1, 0, 2, 3 }, { 0, 1, 2, 3 },
                                        { 2, 0, 3, 1 } };
    const int32_t dims[4] = { 2, 3, 5, 7 };
    ln_rt_transpose_args a;
    float x[210], y[210];
    double ref[210];
    int32_t ddims[4], idx[4], sidx[4];
    size_t i;
    int d;
    memset(&a, 0, sizeof(a));
    a.ndim = 4;
    for (d = 0; d < 4; d++) {
        a.src_dims[d] = dims[d];
        a.perm[d] = perms[_i][d];
        ddims[d] = dims[perms[_i][d]];
    }
    rt_fill(x, 210, -1, 1, 9);
    for (i = 0; i < 210; i++) {
        unravel(i, 4, ddims, idx);
        for (d = 0; d < 4; d++)
            sidx[a.perm[d]] = idx[d];
        ref[i] = x[ravel(4, dims, sidx)];
    }
    ln_rt_transpose_f32(&a, x, y);
    RT_CHECK(y, ref, 210, 0, "transpose");
}
END_TEST

START_TEST(test_pad)
{
    /* 2x3x4 padded with begin {0,1,2} end {1,2,-1}; modes via _i */
    const int32_t dims[3] = { 2, 3, 4 }, pb[3] = { 0, 1, 2 },
                  pe[3] = { 1, 2, -1 };
    ln_rt_pad_args a;
    float x[24], y[3 * 6 * 5];
    double ref[3 * 6 * 5];
    int32_t dd[3], idx[3], s[3];
    size_t i, n;
    int d;
    memset(&a, 0, sizeof(a));
    a.ndim = 3;
    a.mode = (ln_rt_pad_mode)_i;
    a.value = 2.5f;
    for (d = 0; d < 3; d++) {
        a.src_dims[d] = dims[d];
        a.pads_begin[d] = pb[d];
        a.pads_end[d] = pe[d];
        dd[d] = dims[d] + pb[d] + pe[d];
    }
    if (a.mode == LN_RT_PAD_REFLECT)
        a.pads_end[0] = 1; /* < dims[0] = 2 */
    rt_fill(x, 24, -1, 1, 4);
    n = count(3, dd);
    for (i = 0; i < n; i++) {
        int outside = 0;
        unravel(i, 3, dd, idx);
        for (d = 0; d < 3; d++) {
            int32_t v = idx[d] - pb[d];
            if (v < 0 || v >= dims[d]) {
                if (a.mode == LN_RT_PAD_CONSTANT)
                    outside = 1;
                else if (a.mode == LN_RT_PAD_EDGE)
                    v = v < 0 ? 0 : dims[d] - 1;
                else
                    v = v < 0 ? -v : 2 * (dims[d] - 1) - v;
            }
            s[d] = v;
        }
        ref[i] = outside ? 2.5 : x[ravel(3, dims, s)];
    }
    ck_assert_int_eq(ln_rt_pad_f32(&a, x, y), LN_RT_OK);
    RT_CHECK(y, ref, n, 0, "pad");
    if (a.mode == LN_RT_PAD_REFLECT) {
        a.pads_begin[2] = 4; /* >= dim 4: not reflectable */
        ck_assert_int_eq(ln_rt_pad_f32(&a, x, y), LN_RT_ARG_ERROR);
    }
}
END_TEST

START_TEST(test_tile_expand)
{
    ln_rt_tile_args a;
    float x[6], y[4 * 3 * 4];
    double ref[48];
    int32_t idx[3], s[3];
    const int32_t sd[3] = { 1, 3, 2 }, dd[3] = { 4, 3, 4 };
    size_t i;
    int d;
    memset(&a, 0, sizeof(a));
    a.ndim = 3;
    for (d = 0; d < 3; d++) {
        a.src_dims[d] = sd[d];
        a.dst_dims[d] = dd[d];
    }
    rt_fill(x, 6, -1, 1, 44);
    for (i = 0; i < 48; i++) {
        unravel(i, 3, dd, idx);
        for (d = 0; d < 3; d++)
            s[d] = idx[d] % sd[d];
        ref[i] = x[ravel(3, sd, s)];
    }
    ln_rt_tile_f32(&a, x, y);
    RT_CHECK(y, ref, 48, 0, "tile");
    /* expand [3][1] -> [2][3][4] */
    a.src_dims[0] = 1; a.src_dims[1] = 3; a.src_dims[2] = 1;
    a.dst_dims[0] = 2; a.dst_dims[1] = 3; a.dst_dims[2] = 4;
    for (i = 0; i < 24; i++)
        ref[i] = x[(i / 4) % 3];
    ln_rt_expand_f32(&a, x, y);
    RT_CHECK(y, ref, 24, 0, "expand");
}
END_TEST

START_TEST(test_gather)
{
    /* src [2][5][3], indices {4, -1, 0, 2} along axis 1 */
    const int64_t ind[4] = { 4, -1, 0, 2 }, bad[2] = { 1, 5 };
    float x[30], y[24];
    double ref[24];
    int o, j, k;
    rt_fill(x, 30, -1, 1, 8);
    for (o = 0; o < 2; o++)
        for (j = 0; j < 4; j++)
            for (k = 0; k < 3; k++) {
                int64_t t = ind[j] < 0 ? ind[j] + 5 : ind[j];
                ref[(o * 4 + j) * 3 + k] = x[(o * 5 + t) * 3 + k];
            }
    ck_assert_int_eq(ln_rt_gather_f32(2, 5, 3, ind, 4, x, y), LN_RT_OK);
    RT_CHECK(y, ref, 24, 0, "gather");
    ck_assert_int_eq(ln_rt_gather_f32(2, 5, 3, bad, 2, x, y),
                     LN_RT_ARG_ERROR);
}
END_TEST

START_TEST(test_depth_space)
{
    /* ONNX DepthToSpace doc example: x [1,8,2,3], blocksize 2 */
    static const float xin[48] = {
        0, 1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 18, 19, 20, 21,
        22, 23, 27, 28, 29, 30, 31, 32, 36, 37, 38, 39, 40, 41, 45, 46,
        47, 48, 49, 50, 54, 55, 56, 57, 58, 59, 63, 64, 65, 66, 67, 68 };
    static const double dcr[48] = {
        0, 18, 1, 19, 2, 20, 36, 54, 37, 55, 38, 56, 3, 21, 4, 22,
        5, 23, 39, 57, 40, 58, 41, 59, 9, 27, 10, 28, 11, 29, 45, 63,
        46, 64, 47, 65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68 };
    static const double crd[48] = {
        0, 9, 1, 10, 2, 11, 18, 27, 19, 28, 20, 29, 3, 12, 4, 13,
        5, 14, 21, 30, 22, 31, 23, 32, 36, 45, 37, 46, 38, 47, 54, 63,
        55, 64, 56, 65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68 };
    float y[48], back[48];
    double refx[48];
    int i;
    ln_rt_depth_to_space_f32(1, 8, 2, 3, 2, 0, xin, y);
    RT_CHECK(y, dcr, 48, 0, "depth_to_space DCR");
    /* SpaceToDepth inverts DCR DepthToSpace */
    ln_rt_space_to_depth_f32(1, 2, 4, 6, 2, y, back);
    for (i = 0; i < 48; i++)
        refx[i] = xin[i];
    RT_CHECK(back, refx, 48, 0, "space_to_depth");
    ln_rt_depth_to_space_f32(1, 8, 2, 3, 2, 1, xin, y);
    RT_CHECK(y, crd, 48, 0, "depth_to_space CRD");
}
END_TEST

START_TEST(test_resize_nearest)
{
    /* 1-D along w: 4 -> 2 downsample distinguishes rounding modes;
     * expected source indices per (coord, nearest) */
    static const struct {
        ln_rt_coord_mode cm;
        ln_rt_nearest_mode nm;
        double e0, e1;
    } t[] = {
        { LN_RT_COORD_HALF_PIXEL, LN_RT_NEAREST_ROUND_PREFER_FLOOR, 0, 2 },
        { LN_RT_COORD_HALF_PIXEL, LN_RT_NEAREST_ROUND_PREFER_CEIL, 1, 3 },
        { LN_RT_COORD_HALF_PIXEL, LN_RT_NEAREST_FLOOR, 0, 2 },
        { LN_RT_COORD_HALF_PIXEL, LN_RT_NEAREST_CEIL, 1, 3 },
        { LN_RT_COORD_ASYMMETRIC, LN_RT_NEAREST_ROUND_PREFER_FLOOR, 0, 2 },
        { LN_RT_COORD_TF_HALF_PIXEL_FOR_NN, LN_RT_NEAREST_ROUND_PREFER_FLOOR,
          1, 3 },
        { LN_RT_COORD_ALIGN_CORNERS, LN_RT_NEAREST_ROUND_PREFER_FLOOR, 0, 3 },
    };
    float x[4] = { 10, 11, 12, 13 }, y[4];
    double ref[4];
    ln_rt_resize_args a;
    size_t k;
    memset(&a, 0, sizeof(a));
    a.n = 1; a.c = 1; a.ih = 1; a.iw = 4; a.oh = 1; a.ow = 2;
    a.mode = LN_RT_RESIZE_NEAREST;
    for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
        a.coord = t[k].cm;
        a.nearest = t[k].nm;
        ref[0] = 10 + t[k].e0;
        ref[1] = 10 + t[k].e1;
        ck_assert_int_eq(ln_rt_resize_f32(&a, x, y), LN_RT_OK);
        RT_CHECK(y, ref, 2, 0, "resize nearest");
    }
    /* upsample 4 -> 8 asymmetric floor: 0 0 1 1 2 2 3 3 */
    {
        float yy[8];
        double r8[8] = { 10, 10, 11, 11, 12, 12, 13, 13 };
        a.ow = 8;
        a.coord = LN_RT_COORD_ASYMMETRIC;
        a.nearest = LN_RT_NEAREST_FLOOR;
        ck_assert_int_eq(ln_rt_resize_f32(&a, x, yy), LN_RT_OK);
        RT_CHECK(yy, r8, 8, 0, "resize nearest up");
    }
    (void)y;
}
END_TEST

START_TEST(test_resize_linear)
{
    /* 2x2 -> 4x4 bilinear; half_pixel = PyTorch align_corners=False */
    static const double hp[16] = { 1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5,
                                   2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4 };
    float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, y[32];
    double ac[32];
    ln_rt_resize_args a;
    int i, j, c;
    memset(&a, 0, sizeof(a));
    a.n = 1; a.c = 2; a.ih = 2; a.iw = 2; a.oh = 4; a.ow = 4;
    a.mode = LN_RT_RESIZE_LINEAR;
    a.coord = LN_RT_COORD_HALF_PIXEL;
    ck_assert_int_eq(ln_rt_resize_f32(&a, x, y), LN_RT_OK);
    RT_CHECK(y, hp, 16, 1e-6, "resize linear half_pixel");
    for (i = 0; i < 16; i++)
        ac[i] = hp[i] + 4;
    RT_CHECK(y + 16, ac, 16, 1e-6, "resize linear channel 2");
    a.coord = LN_RT_COORD_ALIGN_CORNERS;
    for (c = 0; c < 2; c++)
        for (i = 0; i < 4; i++)
            for (j = 0; j < 4; j++)
                ac[c * 16 + i * 4 + j] = 1 + 4 * c + j / 3.0 + 2 * i / 3.0;
    ck_assert_int_eq(ln_rt_resize_f32(&a, x, y), LN_RT_OK);
    RT_CHECK(y, ac, 32, 1e-6, "resize linear align_corners");
}
END_TEST

/* ONNX Resize, written from the operator text in double: every coordinate
 * mode, every nearest mode and linear, on 2x3x7x5 -> 11x4 (scales not
 * integers, up in h and down in w) */
static double rs_coord(int cm, double x, double scale, int lin, int lout)
{
    switch (cm) {
    case LN_RT_COORD_ASYMMETRIC: return x / scale;
    case LN_RT_COORD_ALIGN_CORNERS:
        return lout == 1 ? 0 : x * (lin - 1) / (double)(lout - 1);
    case LN_RT_COORD_PYTORCH_HALF_PIXEL:
        return lout > 1 ? (x + 0.5) / scale - 0.5 : 0;
    case LN_RT_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5) / scale;
    case LN_RT_COORD_HALF_PIXEL_SYMMETRIC: {
        double adj = lout / (scale * lin), c = lin / 2.0;
        return c * (1 - adj) + (x + 0.5) / scale - 0.5;
    }
    default: return (x + 0.5) / scale - 0.5;
    }
}

static int rs_nearest(int nm, double x, int lin)
{
    double f = floor(x);
    int i;
    if (nm == LN_RT_NEAREST_FLOOR)
        i = (int)f;
    else if (nm == LN_RT_NEAREST_CEIL)
        i = (int)ceil(x);
    else if (x - f == 0.5)
        i = nm == LN_RT_NEAREST_ROUND_PREFER_CEIL ? (int)f + 1 : (int)f;
    else
        i = (int)floor(x + 0.5);
    return i < 0 ? 0 : i >= lin ? lin - 1 : i;
}

START_TEST(test_resize_random)
{
    enum { N = 2, C = 3, IH = 7, IW = 5, OH = 11, OW = 4 };
    float x[N * C * IH * IW], y[N * C * OH * OW];
    double ref[N * C * OH * OW], sh = (double)OH / IH, sw = (double)OW / IW;
    ln_rt_resize_args a;
    int cm = _i % 6, mode = _i / 6 % 5, q, oy, ox;
    rt_fill(x, sizeof(x) / sizeof(x[0]), -1, 1, 321);
    memset(&a, 0, sizeof(a));
    a.n = N; a.c = C; a.ih = IH; a.iw = IW; a.oh = OH; a.ow = OW;
    a.coord = (ln_rt_coord_mode)cm;
    a.mode = mode == 4 ? LN_RT_RESIZE_LINEAR : LN_RT_RESIZE_NEAREST;
    a.nearest = (ln_rt_nearest_mode)(mode % 4);
    for (q = 0; q < N * C; q++)
        for (oy = 0; oy < OH; oy++)
            for (ox = 0; ox < OW; ox++) {
                double fy = rs_coord(cm, oy, sh, IH, OH);
                double fx = rs_coord(cm, ox, sw, IW, OW);
                const float *p = x + q * IH * IW;
                double v;
                if (mode < 4) {
                    v = p[rs_nearest(mode, fy, IH) * IW +
                          rs_nearest(mode, fx, IW)];
                } else {
                    int y0, x0, y1, x1;
                    double ly, lx;
                    fy = fy < 0 ? 0 : fy > IH - 1 ? IH - 1 : fy;
                    fx = fx < 0 ? 0 : fx > IW - 1 ? IW - 1 : fx;
                    y0 = (int)floor(fy); x0 = (int)floor(fx);
                    y1 = y0 + 1 < IH ? y0 + 1 : IH - 1;
                    x1 = x0 + 1 < IW ? x0 + 1 : IW - 1;
                    ly = fy - y0; lx = fx - x0;
                    v = (1 - ly) * ((1 - lx) * p[y0 * IW + x0] +
                                    lx * p[y0 * IW + x1]) +
                        ly * ((1 - lx) * p[y1 * IW + x0] +
                              lx * p[y1 * IW + x1]);
                }
                ref[(q * OH + oy) * OW + ox] = v;
            }
    ck_assert_int_eq(ln_rt_resize_f32(&a, x, y), LN_RT_OK);
    RT_CHECK(y, ref, sizeof(y) / sizeof(y[0]), mode == 4 ? 1e-5 : 0,
             "resize");
}
END_TEST

START_TEST(test_cast)
{
    float f[5] = { -2.7f, -0.5f, 0.0f, 1.9f, 1e6f }, fb[5];
    int32_t i32[5], ib[5];
    int64_t i64[5];
    const int32_t e[5] = { -2, 0, 0, 1, 1000000 };
    int k;
    ln_rt_cast_f32_i32(f, i32, 5);
    ln_rt_cast_f32_i64(f, i64, 5);
    for (k = 0; k < 5; k++) {
        ck_assert_int_eq(i32[k], e[k]);
        ck_assert_int_eq(i64[k], e[k]);
    }
    i64[4] = (int64_t)1 << 40;
    ln_rt_cast_i64_i32(i64, ib, 4);
    ln_rt_cast_i32_i64(ib, i64, 4);
    for (k = 0; k < 4; k++)
        ck_assert_int_eq(i64[k], e[k]);
    ln_rt_cast_i32_f32(e, fb, 5);
    ck_assert(fb[0] == -2.0f && fb[4] == 1e6f);
    ln_rt_cast_i64_f32(i64, fb, 4);
    ck_assert(fb[3] == 1.0f);
}
END_TEST

/* ln_rt_cast, every pair of the 12 element types on values each type
 * holds exactly (0, 1, 2, 3, 7, 100 and, where signed, -1 and -5):
 * int -> int wraps like C's unsigned conversion (-1 -> uint8 255), float
 * -> unsigned saturates (-1.0 -> 0), anything -> bool is != 0. */
#define NT 12
static const double cast_vals[8] = { 0, 1, 2, 3, 7, 100, -1, -5 };
static const uint16_t cast_f16[8] = { 0x0000, 0x3c00, 0x4000, 0x4200, 0x4700, 0x5640,
                                      0xbc00, 0xc500 };

static int t_signed(int t)
{
    return t <= LN_RT_INT64;    /* floats and int8..int64 */
}

static void cast_put(int t, void *p, int i, int k)
{
    double v = cast_vals[k];
    switch (t) {
    case LN_RT_FLOAT32: ((float *)p)[i] = (float)v; break;
    case LN_RT_FLOAT64: ((double *)p)[i] = v; break;
    case LN_RT_FLOAT16: ((uint16_t *)p)[i] = cast_f16[k]; break;
    case LN_RT_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case LN_RT_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case LN_RT_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case LN_RT_INT64: ((int64_t *)p)[i] = (int64_t)v; break;
    case LN_RT_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case LN_RT_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case LN_RT_UINT32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case LN_RT_UINT64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    default: ((uint8_t *)p)[i] = v != 0; break;
    }
}

/* the bits element i of type t holds, widened to 64 */
static uint64_t cast_bits(int t, const void *p, int i)
{
    switch (t) {
    case LN_RT_FLOAT32: { uint32_t b; memcpy(&b, (const float *)p + i, 4); return b; }
    case LN_RT_FLOAT64: { uint64_t b; memcpy(&b, (const double *)p + i, 8); return b; }
    case LN_RT_INT8: case LN_RT_UINT8: case LN_RT_BOOL: return ((const uint8_t *)p)[i];
    case LN_RT_FLOAT16: case LN_RT_INT16: case LN_RT_UINT16: return ((const uint16_t *)p)[i];
    case LN_RT_INT32: case LN_RT_UINT32: return ((const uint32_t *)p)[i];
    default: return ((const uint64_t *)p)[i];
    }
}

START_TEST(test_cast_all_pairs)
{
    int from, to, k;
    for (from = 0; from < NT; from++)
        for (to = 0; to < NT; to++) {
            uint64_t x[9], y[9], want[8];
            int n = from == LN_RT_BOOL ? 2 : t_signed(from) ? 8 : 6;
            memset(x, 0, sizeof x);
            for (k = 0; k < n; k++)
                cast_put(from, x, k, k);
            memset(y, 0xa5, sizeof y);
            ck_assert_int_eq(ln_rt_cast((ln_rt_dtype)from, x, (ln_rt_dtype)to, y, (size_t)n), 0);
            for (k = 0; k < n; k++) {
                int kk = k;
                uint64_t w[1] = { 0 };
                if (cast_vals[k] < 0 && !t_signed(to)) {
                    if (to == LN_RT_BOOL) {
                        want[k] = 1;
                        continue;
                    }
                    if (from <= LN_RT_FLOAT16) {
                        kk = 0;                     /* float -> unsigned: saturates at 0 */
                    } else {                        /* int -> unsigned: wraps */
                        uint64_t v = (uint64_t)(int64_t)cast_vals[k];
                        want[k] = to == LN_RT_UINT8 ? (uint8_t)v : to == LN_RT_UINT16
                                  ? (uint16_t)v : to == LN_RT_UINT32 ? (uint32_t)v
                                  : to == LN_RT_UINT64 ? v : 1;     /* bool: != 0 */
                        continue;
                    }
                }
                if (from == LN_RT_BOOL)
                    kk = k;                         /* 0, 1 */
                cast_put(to, w, 0, kk);
                want[k] = cast_bits(to, w, 0);
            }
            for (k = 0; k < n; k++)
                ck_assert_msg(cast_bits(to, y, k) == want[k],
                              "cast %d -> %d, value %g: got %llx, want %llx", from, to,
                              cast_vals[k], (unsigned long long)cast_bits(to, y, k),
                              (unsigned long long)want[k]);
            /* past n: untouched */
            ck_assert(((unsigned char *)y)[sizeof y - 1] == 0xa5);
        }
    {
        float a = 1, b = 0;
        ck_assert_int_eq(ln_rt_cast((ln_rt_dtype)NT, &a, LN_RT_FLOAT32, &b, 1), LN_RT_ARG_ERROR);
        ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, &a, (ln_rt_dtype)-1, &b, 1), LN_RT_ARG_ERROR);
    }
}
END_TEST

/* float16: round to nearest even, subnormals, overflow to inf, NaN; and
 * back to float32 exactly. */
START_TEST(test_cast_float16)
{
    const float f[] = {
        1.0f + 1.0f / 2048,         /* a tie: to even, 1.0 */
        1.0f + 3.0f / 2048,         /* a tie: to even, 1 + 2^-9 */
        1.0f + 1.0f / 2048 + 1.0f / 65536,  /* above the tie: up */
        65504.0f,                   /* the largest finite */
        65519.0f,                   /* rounds down to 65504 */
        65520.0f,                   /* rounds to inf */
        1e10f, -1e10f,
        5.9604644775390625e-8f,     /* 2^-24: the smallest subnormal */
        2.98023223876953125e-8f,    /* 2^-25: a tie, to even 0 */
        8.94069671630859375e-8f,    /* 3 * 2^-25: a tie, to even 2 * 2^-24 */
        6.103515625e-5f,            /* 2^-14: the smallest normal */
        -0.0f, -2.5f,
    };
    const uint16_t want[] = { 0x3c00, 0x3c02, 0x3c01, 0x7bff, 0x7bff, 0x7c00, 0x7c00, 0xfc00,
                              0x0001, 0x0000, 0x0002, 0x0400, 0x8000, 0xc100 };
    const uint16_t h[] = { 0x3c00, 0x0001, 0x03ff, 0x7bff, 0x7c00, 0xfc00, 0x8000, 0x3555 };
    const float hf[] = { 1.0f, 5.9604644775390625e-8f, 6.0975551605224609375e-5f, 65504.0f,
                         INFINITY, -INFINITY, -0.0f, 0.333251953125f };
    const double d = 1.0 + 3.0 / 4096;          /* float64 above a tie: up */
    uint16_t out[14], o1;
    float back[8], nanf_ = NAN;
    size_t i;

    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, f, LN_RT_FLOAT16, out, 14), 0);
    for (i = 0; i < 14; i++)
        ck_assert_msg(out[i] == want[i], "f16(%.10g) = %04x, want %04x", (double)f[i],
                      out[i], want[i]);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT16, h, LN_RT_FLOAT32, back, 8), 0);
    for (i = 0; i < 8; i++) {
        ck_assert_msg(back[i] == hf[i], "f32(%04x) = %.10g, want %.10g", h[i],
                      (double)back[i], (double)hf[i]);
        ck_assert_int_eq(signbit(back[i]) != 0, signbit(hf[i]) != 0);
    }
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, &nanf_, LN_RT_FLOAT16, &o1, 1), 0);
    ck_assert((o1 & 0x7c00) == 0x7c00 && (o1 & 0x3ff) != 0);
    o1 = 0x7e00;
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT16, &o1, LN_RT_FLOAT32, back, 1), 0);
    ck_assert(back[0] != back[0]);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT64, &d, LN_RT_FLOAT16, &o1, 1), 0);
    ck_assert_uint_eq(o1, 0x3c01);
}
END_TEST

/* float -> int: truncation toward zero, saturation at the type's range,
 * NaN -> 0; float -> bool: != 0 (NaN is true). */
START_TEST(test_cast_saturate)
{
    const float f[] = { 1e10f, -1e10f, 300.7f, -3.9f, NAN, INFINITY, -INFINITY, 2.9f };
    const double dv[] = { 1e300, -1e300, 4294967295.9, -0.9, NAN, 9.3e18 };
    int8_t i8[8];
    uint8_t u8[8], b[8];
    int32_t i32[8];
    int64_t i64[8];
    uint32_t u32[6];
    uint64_t u64[6];
    int k;

    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, f, LN_RT_INT8, i8, 8), 0);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, f, LN_RT_UINT8, u8, 8), 0);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, f, LN_RT_INT32, i32, 8), 0);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, f, LN_RT_INT64, i64, 8), 0);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT32, f, LN_RT_BOOL, b, 8), 0);
    {
        const int8_t w8[] = { 127, -128, 127, -3, 0, 127, -128, 2 };
        const uint8_t wu8[] = { 255, 0, 255, 0, 0, 255, 0, 2 };
        const int32_t w32[] = { INT32_MAX, INT32_MIN, 300, -3, 0, INT32_MAX, INT32_MIN, 2 };
        const int64_t w64[] = { 10000000000LL, -10000000000LL, 300, -3, 0, INT64_MAX,
                                INT64_MIN, 2 };
        for (k = 0; k < 8; k++) {
            ck_assert_int_eq(i8[k], w8[k]);
            ck_assert_int_eq(u8[k], wu8[k]);
            ck_assert_int_eq(i32[k], w32[k]);
            ck_assert_int_eq(i64[k], w64[k]);
            ck_assert_int_eq(b[k], 1);
        }
    }
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT64, dv, LN_RT_UINT32, u32, 6), 0);
    ck_assert_int_eq(ln_rt_cast(LN_RT_FLOAT64, dv, LN_RT_UINT64, u64, 6), 0);
    ck_assert_uint_eq(u32[0], UINT32_MAX);
    ck_assert_uint_eq(u32[1], 0);
    ck_assert_uint_eq(u32[2], UINT32_MAX);
    ck_assert_uint_eq(u32[3], 0);
    ck_assert_uint_eq(u32[4], 0);
    ck_assert_uint_eq(u64[0], UINT64_MAX);
    ck_assert_uint_eq(u64[1], 0);
    ck_assert_uint_eq(u64[2], 4294967295u);
    ck_assert_uint_eq(u64[4], 0);
    ck_assert_uint_eq(u64[5], 9300000000000000000ull);
    /* int -> int wraps; int64 -> float32 rounds */
    {
        const int64_t v[] = { 300, -1, INT64_MIN, (int64_t)1 << 40 };
        int16_t i16[4];
        float fo[4];
        ck_assert_int_eq(ln_rt_cast(LN_RT_INT64, v, LN_RT_UINT8, u8, 4), 0);
        ck_assert_int_eq(ln_rt_cast(LN_RT_INT64, v, LN_RT_INT16, i16, 4), 0);
        ck_assert_int_eq(ln_rt_cast(LN_RT_INT64, v, LN_RT_FLOAT32, fo, 4), 0);
        ck_assert_int_eq(u8[0], 44);
        ck_assert_int_eq(u8[1], 255);
        ck_assert_int_eq(u8[2], 0);
        ck_assert_int_eq(i16[0], 300);
        ck_assert_int_eq(i16[1], -1);
        ck_assert_int_eq(i16[3], 0);
        ck_assert(fo[2] == -9223372036854775808.0f && fo[3] == 1099511627776.0f);
    }
}
END_TEST

Suite *rt_movement_suite(void)
{
    Suite *s = suite_create("rt_movement");
    TCase *tc = tcase_create("movement");
    tcase_add_loop_test(tc, test_slice, 0, 3);
    tcase_add_test(tc, test_slice_bytes);
    tcase_add_test(tc, test_concat_split);
    tcase_add_loop_test(tc, test_transpose, 0, 5);
    tcase_add_loop_test(tc, test_pad, 0, 3);
    tcase_add_test(tc, test_tile_expand);
    tcase_add_test(tc, test_gather);
    tcase_add_test(tc, test_depth_space);
    tcase_add_test(tc, test_resize_nearest);
    tcase_add_test(tc, test_resize_linear);
    tcase_add_loop_test(tc, test_resize_random, 0, 30);
    tcase_add_test(tc, test_cast);
    tcase_add_test(tc, test_cast_all_pairs);
    tcase_add_test(tc, test_cast_float16);
    tcase_add_test(tc, test_cast_saturate);
    suite_add_tcase(s, tc);
    return s;
}
