/*
 * test_rt_detect.c -- GridSample, RoiAlign, MaxUnpool, NonMaxSuppression
 * against double references written from ONNX's definitions (and ONNX
 * Runtime's choices the kernels document): random grids reaching outside
 * the image for every mode, padding and align_corners; random rois, partly
 * outside, both coordinate modes, average and maximum; MaxUnpool of a
 * MaxPool's indices into a larger output; NMS by a greedy selection that
 * picks the best remaining box each step.  Tolerances 2e-5 (1e-4 for
 * bicubic), indices exact.
 */
#include "rt_test.h"

/* ---- GridSample --------------------------------------------------------- */

static double reflect_d(double x, double lo, double hi)
{
    double range = hi - lo;
    if (range <= 0)
        return lo;
    while (x < lo || x > hi)
        x = x < lo ? 2 * lo - x : 2 * hi - x;
    return x;
}

static double px_d(const ln_rt_grid_sample_args *a, const float *p, long r, long c,
                   const double *bd)
{
    if (a->padding == 1) {
        c = c < 0 ? 0 : c > a->w - 1 ? a->w - 1 : c;
        r = r < 0 ? 0 : r > a->h - 1 ? a->h - 1 : r;
    } else if (a->padding == 2) {
        c = (long)reflect_d((double)c, bd[0], bd[2]);
        r = (long)reflect_d((double)r, bd[1], bd[3]);
    }
    return c < 0 || c >= a->w || r < 0 || r >= a->h ? 0.0 : p[r * a->w + c];
}

static double cubic_w(double t)
{
    const double A = -0.75;
    t = fabs(t);
    if (t <= 1)
        return ((A + 2) * t - (A + 3)) * t * t + 1;
    if (t < 2)
        return ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
    return 0;
}

static void grid_sample_ref(const ln_rt_grid_sample_args *a, const float *x, const float *g,
                            double *y)
{
    double bd[4];
    bd[0] = bd[1] = a->align_corners ? 0.0 : -0.5;
    bd[2] = a->align_corners ? a->w - 1 : a->w - 0.5;
    bd[3] = a->align_corners ? a->h - 1 : a->h - 0.5;
    for (int n = 0; n < a->n; n++)
        for (int c = 0; c < a->c; c++)
            for (int o = 0; o < a->oh * a->ow; o++) {
                const float *gg = g + ((size_t)n * a->oh * a->ow + o) * 2;
                const float *p = x + ((size_t)n * a->c + c) * a->h * a->w;
                double gx = a->align_corners ? (gg[0] + 1.0) / 2 * (a->w - 1)
                                             : ((gg[0] + 1.0) * a->w - 1) / 2;
                double gy = a->align_corners ? (gg[1] + 1.0) / 2 * (a->h - 1)
                                             : ((gg[1] + 1.0) * a->h - 1) / 2;
                double v = 0;
                if (a->mode == 1) {
                    gx = nearbyint(gx);
                    gy = nearbyint(gy);
                }
                if (a->padding == 1) {
                    if (gx < bd[0] || gx > bd[2] || gy < bd[1] || gy > bd[3]) {
                        gx = gx < 0 ? 0 : gx > a->w - 1 ? a->w - 1 : gx;
                        gy = gy < 0 ? 0 : gy > a->h - 1 ? a->h - 1 : gy;
                    }
                } else if (a->padding == 2) {
                    gx = reflect_d(gx, bd[0], bd[2]);
                    gy = reflect_d(gy, bd[1], bd[3]);
                }
                if (a->mode == 1) {
                    v = px_d(a, p, (long)gy, (long)gx, bd);
                } else {
                    long x0 = (long)floor(gx), y0 = (long)floor(gy);
                    int lo = a->mode == 0 ? 0 : -1, hi = a->mode == 0 ? 1 : 2;
                    for (long i = y0 + lo; i <= y0 + hi; i++)
                        for (long j = x0 + lo; j <= x0 + hi; j++) {
                            double wy = a->mode == 0 ? 1 - fabs(gy - i) : cubic_w(gy - i);
                            double wx = a->mode == 0 ? 1 - fabs(gx - j) : cubic_w(gx - j);
                            v += wy * wx * px_d(a, p, i, j, bd);
                        }
                }
                y[((size_t)n * a->c + c) * a->oh * a->ow + o] = v;
            }
}

START_TEST(test_grid_sample_random)
{
    uint32_t s = 4000u + (uint32_t)_i;
    ln_rt_grid_sample_args a;
    float *x, *g, *y;
    double *ref;
    size_t nx, ng, ny;

    a.n = 1 + (int32_t)(rt_rand(&s) % 2);
    a.c = 1 + (int32_t)(rt_rand(&s) % 3);
    a.h = 1 + (int32_t)(rt_rand(&s) % 7);
    a.w = 1 + (int32_t)(rt_rand(&s) % 7);
    a.oh = 1 + (int32_t)(rt_rand(&s) % 5);
    a.ow = 1 + (int32_t)(rt_rand(&s) % 5);
    a.mode = _i % 3;
    a.padding = (_i / 3) % 3;
    a.align_corners = (_i / 9) % 2;
    nx = (size_t)a.n * a.c * a.h * a.w;
    ng = (size_t)a.n * a.oh * a.ow * 2;
    ny = (size_t)a.n * a.c * a.oh * a.ow;
    x = rt_alloc(nx);
    g = rt_alloc(ng);
    y = rt_alloc(ny);
    ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, s);
    rt_fill(g, ng, -1.6f, 1.6f, s + 1);     /* a third outside the image */
    ln_rt_grid_sample_f32(&a, x, g, y);
    grid_sample_ref(&a, x, g, ref);
    RT_CHECK(y, ref, ny, a.mode == 2 ? 1e-4 : 2e-5, "grid_sample");
    free(x);
    free(g);
    free(y);
    free(ref);
}
END_TEST

/* ---- RoiAlign ----------------------------------------------------------- */

static double roi_sample(const ln_rt_roi_align_args *a, const float *p, double yy, double xx,
                         int max, double *m)
{
    long yl, xl, yh, xh;
    double ly, lx, w[4], v[4];

    if (yy < -1 || yy > a->h || xx < -1 || xx > a->w) {
        *m = 0;
        return 0;
    }
    yy = yy < 0 ? 0 : yy;
    xx = xx < 0 ? 0 : xx;
    yl = (long)yy;
    xl = (long)xx;
    if (yl >= a->h - 1) {
        yl = yh = a->h - 1;
        yy = (double)yl;
    } else {
        yh = yl + 1;
    }
    if (xl >= a->w - 1) {
        xl = xh = a->w - 1;
        xx = (double)xl;
    } else {
        xh = xl + 1;
    }
    ly = yy - yl;
    lx = xx - xl;
    w[0] = (1 - ly) * (1 - lx);
    w[1] = (1 - ly) * lx;
    w[2] = ly * (1 - lx);
    w[3] = ly * lx;
    v[0] = p[yl * a->w + xl];
    v[1] = p[yl * a->w + xh];
    v[2] = p[yh * a->w + xl];
    v[3] = p[yh * a->w + xh];
    (void)max;
    *m = w[0] * v[0];
    for (int i = 1; i < 4; i++)
        *m = w[i] * v[i] > *m ? w[i] * v[i] : *m;
    return w[0] * v[0] + w[1] * v[1] + w[2] * v[2] + w[3] * v[3];
}

static void roi_align_ref(const ln_rt_roi_align_args *a, const float *x, const float *rois,
                          const int64_t *bi, double *y)
{
    double off = a->half_pixel ? 0.5 : 0.0;
    for (int r = 0; r < a->num_rois; r++) {
        const float *ro = rois + r * 4;
        double x0 = ro[0] * (double)a->spatial_scale - off, y0 = ro[1] * (double)a->spatial_scale - off;
        double rw = ro[2] * (double)a->spatial_scale - off - x0;
        double rh = ro[3] * (double)a->spatial_scale - off - y0;
        double bw, bh;
        int gh, gw;
        if (!a->half_pixel) {
            rw = rw < 1 ? 1 : rw;
            rh = rh < 1 ? 1 : rh;
        }
        bh = rh / a->oh;
        bw = rw / a->ow;
        gh = a->sampling_ratio ? a->sampling_ratio : (int)ceil(rh / a->oh);
        gw = a->sampling_ratio ? a->sampling_ratio : (int)ceil(rw / a->ow);
        for (int c = 0; c < a->c; c++)
            for (int ph = 0; ph < a->oh; ph++)
                for (int pw = 0; pw < a->ow; pw++) {
                    const float *p = x + ((size_t)bi[r] * a->c + c) * a->h * a->w;
                    double sum = 0, best = -INFINITY, m;
                    for (int iy = 0; iy < gh; iy++)
                        for (int ix = 0; ix < gw; ix++) {
                            sum += roi_sample(a, p, y0 + ph * bh + (iy + 0.5) * bh / gh,
                                              x0 + pw * bw + (ix + 0.5) * bw / gw, 1, &m);
                            best = m > best ? m : best;
                        }
                    *y++ = a->mode_max ? (gh > 0 && gw > 0 ? best : 0)
                                       : sum / (gh * gw > 1 ? gh * gw : 1);
                }
    }
}

START_TEST(test_roi_align_random)
{
    uint32_t s = 5000u + (uint32_t)_i;
    ln_rt_roi_align_args a;
    float *x, *rois, *y;
    int64_t bi[6];
    double *ref;
    size_t nx, ny;

    memset(&a, 0, sizeof a);
    a.n = 1 + (int32_t)(rt_rand(&s) % 2);
    a.c = 1 + (int32_t)(rt_rand(&s) % 3);
    a.h = 1 + (int32_t)(rt_rand(&s) % 9);
    a.w = 1 + (int32_t)(rt_rand(&s) % 9);
    a.num_rois = 1 + (int32_t)(rt_rand(&s) % 6);
    a.oh = 1 + (int32_t)(rt_rand(&s) % 4);
    a.ow = 1 + (int32_t)(rt_rand(&s) % 4);
    a.sampling_ratio = _i % 3 == 0 ? 0 : (int32_t)(rt_rand(&s) % 3) + 1;
    a.mode_max = _i % 2;
    a.half_pixel = (_i / 2) % 2;
    a.spatial_scale = _i % 5 == 0 ? 0.5f : 1.0f;
    nx = (size_t)a.n * a.c * a.h * a.w;
    ny = (size_t)a.num_rois * a.c * a.oh * a.ow;
    x = rt_alloc(nx);
    rois = rt_alloc((size_t)a.num_rois * 4);
    y = rt_alloc(ny);
    ref = rt_allocd(ny);
    rt_fill(x, nx, -1, 1, s);
    for (int r = 0; r < a.num_rois; r++) {
        float q[4];
        rt_fill(q, 4, -2, (float)(a.h > a.w ? a.h : a.w) + 2, s + 7 + (uint32_t)r);
        rois[r * 4] = q[0] < q[2] ? q[0] : q[2];
        rois[r * 4 + 2] = q[0] < q[2] ? q[2] : q[0];
        rois[r * 4 + 1] = q[1] < q[3] ? q[1] : q[3];
        rois[r * 4 + 3] = q[1] < q[3] ? q[3] : q[1];
        bi[r] = (int64_t)(rt_rand(&s) % (uint32_t)a.n);
    }
    ck_assert_int_eq(ln_rt_roi_align_f32(&a, x, rois, bi, y), LN_RT_OK);
    roi_align_ref(&a, x, rois, bi, ref);
    RT_CHECK(y, ref, ny, 2e-5, "roi_align");
    bi[0] = a.n;
    ck_assert_int_eq(ln_rt_roi_align_f32(&a, x, rois, bi, y), LN_RT_ARG_ERROR);
    free(x);
    free(rois);
    free(y);
    free(ref);
}
END_TEST

/* ---- MaxUnpool ---------------------------------------------------------- */

/* MaxPool 2x2 stride 2 of a 5x7 plane (indices), unpooled into its 4x6
 * unpooled shape held in a 6x8 output: each maximum lands at its own
 * (row, column), everything else is 0 */
START_TEST(test_maxunpool)
{
    ln_rt_pool3d_args p = {2, 3, {1, 5, 7}, {1, 2, 3}, {1, 2, 2}, {1, 2, 2}, {1, 1, 1},
                           {0, 0, 0, 0, 0, 0}, 0, 0};
    ln_rt_maxunpool_args u = {4, {2, 3, 4, 6}, {2, 3, 6, 8}};
    float x[2 * 3 * 35], pooled[2 * 3 * 6], y[2 * 3 * 48];
    int64_t idx[2 * 3 * 6];

    rt_fill(x, 2 * 3 * 35, -1, 1, 77);
    ck_assert_int_eq(ln_rt_maxpool3d_f32(&p, x, pooled, idx), LN_RT_OK);
    /* MaxPool's indices address the 5x7 input; as MaxUnpool's they
     * address the 4x6 unpooled tensor: rewrite them for it */
    for (int i = 0; i < 2 * 3 * 6; i++) {
        int64_t q = idx[i] / 35, r = idx[i] % 35 / 7, c = idx[i] % 7;
        idx[i] = q * 24 + r * 6 + c;
    }
    ck_assert_int_eq(ln_rt_maxunpool_f32(&u, 36, pooled, idx, y), LN_RT_OK);
    for (int q = 0; q < 6; q++)
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < 8; c++) {
                float want = 0.0f;
                for (int i = 0; i < 6; i++)
                    if (idx[q * 6 + i] == q * 24 + r * 6 + c && r < 4 && c < 6)
                        want = pooled[q * 6 + i];
                ck_assert_msg(y[q * 48 + r * 8 + c] == want, "maxunpool [%d][%d][%d]", q, r, c);
            }
    idx[5] = 2 * 3 * 24;
    ck_assert_int_eq(ln_rt_maxunpool_f32(&u, 36, pooled, idx, y), LN_RT_ARG_ERROR);
}
END_TEST

/* ---- NonMaxSuppression -------------------------------------------------- */

static double iou_d(const float *p, const float *q, int center)
{
    double b[4], c[4], ih, iw, inter;
    const float *v[2] = {p, q};
    double *o[2] = {b, c};
    for (int k = 0; k < 2; k++) {
        const float *t = v[k];
        if (center) {
            o[k][0] = t[1] - t[3] / 2.0;
            o[k][2] = t[1] + t[3] / 2.0;
            o[k][1] = t[0] - t[2] / 2.0;
            o[k][3] = t[0] + t[2] / 2.0;
        } else {
            o[k][0] = fmin(t[0], t[2]);
            o[k][2] = fmax(t[0], t[2]);
            o[k][1] = fmin(t[1], t[3]);
            o[k][3] = fmax(t[1], t[3]);
        }
    }
    ih = fmin(b[2], c[2]) - fmax(b[0], c[0]);
    iw = fmin(b[3], c[3]) - fmax(b[1], c[1]);
    if (ih <= 0 || iw <= 0)
        return 0;
    inter = ih * iw;
    return inter / ((b[2] - b[0]) * (b[3] - b[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter);
}

/* greedy: the best remaining candidate each step, kept unless a kept box
 * overlaps it by more than the threshold */
static int64_t nms_ref(const ln_rt_nms_args *a, const float *boxes, const float *scores,
                       int64_t *sel)
{
    int64_t n = 0;
    for (int b = 0; b < a->batches; b++)
        for (int k = 0; k < a->classes; k++) {
            const float *s = scores + ((size_t)b * a->classes + k) * a->boxes;
            char used[64] = {0};
            int64_t kept = 0, first = n;
            for (;;) {
                int best = -1, ok = 1;
                for (int i = 0; i < a->boxes; i++)
                    if (!used[i] && (!a->has_score_threshold || s[i] > a->score_threshold) &&
                        (best < 0 || s[i] > s[best]))
                        best = i;
                if (best < 0 || kept >= a->max_per_class)
                    break;
                used[best] = 1;
                for (int64_t q = first; q < n && ok; q++)
                    ok = iou_d(boxes + ((size_t)b * a->boxes + best) * 4,
                               boxes + ((size_t)b * a->boxes + sel[q * 3 + 2]) * 4,
                               a->center_point_box) <= a->iou_threshold;
                if (!ok)
                    continue;
                sel[n * 3] = b;
                sel[n * 3 + 1] = k;
                sel[n * 3 + 2] = best;
                n++;
                kept++;
            }
        }
    return n;
}

START_TEST(test_nms_random)
{
    uint32_t s = 6000u + (uint32_t)_i;
    ln_rt_nms_args a;
    float boxes[2 * 40 * 4], scores[2 * 3 * 40];
    int32_t order[40];
    int64_t sel[2 * 3 * 40 * 3], ref[2 * 3 * 40 * 3], n, nr;

    memset(&a, 0, sizeof a);
    a.batches = 1 + (int32_t)(rt_rand(&s) % 2);
    a.classes = 1 + (int32_t)(rt_rand(&s) % 3);
    a.boxes = 1 + (int32_t)(rt_rand(&s) % 40);
    a.center_point_box = _i % 2;
    a.max_per_class = (int64_t)(rt_rand(&s) % 12);
    a.iou_threshold = (float)(rt_rand(&s) % 100) / 100.0f;
    a.has_score_threshold = _i % 3 != 0;
    a.score_threshold = 0.3f;
    rt_fill(boxes, (size_t)a.batches * a.boxes * 4, 0, 10, s);
    if (a.center_point_box)
        for (int i = 0; i < a.batches * a.boxes; i++) {
            boxes[i * 4 + 2] = fabsf(boxes[i * 4 + 2]) * 0.4f + 0.1f;
            boxes[i * 4 + 3] = fabsf(boxes[i * 4 + 3]) * 0.4f + 0.1f;
        }
    rt_fill(scores, (size_t)a.batches * a.classes * a.boxes, 0, 1, s + 1);
    if (_i % 4 == 0)        /* ties: the lower index first */
        for (int i = 0; i < a.batches * a.classes * a.boxes; i++)
            scores[i] = floorf(scores[i] * 4.0f) / 4.0f;
    n = ln_rt_nms_f32(&a, boxes, scores, order, sel);
    nr = nms_ref(&a, boxes, scores, ref);
    ck_assert_int_eq(n, nr);
    for (int64_t i = 0; i < 3 * n; i++)
        ck_assert_msg(sel[i] == ref[i], "nms selected[%lld]", (long long)i);
}
END_TEST

/* ONNX's suppress_by_IOU example: boxes 0-2 overlap, 3-4 overlap, 5 alone */
START_TEST(test_nms_known)
{
    const float boxes[24] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                             0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
    const float scores[6] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};
    ln_rt_nms_args a = {1, 1, 6, 0, 3, 0.5f, 0.0f, 0};
    int32_t order[6];
    int64_t sel[18];

    ck_assert_int_eq(ln_rt_nms_f32(&a, boxes, scores, order, sel), 3);
    ck_assert(sel[2] == 3 && sel[5] == 0 && sel[8] == 5);
    a.max_per_class = 2;
    ck_assert_int_eq(ln_rt_nms_f32(&a, boxes, scores, order, sel), 2);
    a.max_per_class = 3;
    a.has_score_threshold = 1;
    a.score_threshold = 0.4f;
    ck_assert_int_eq(ln_rt_nms_f32(&a, boxes, scores, order, sel), 2);
    ck_assert(sel[2] == 3 && sel[5] == 0);
}
END_TEST

Suite *rt_detect_suite(void)
{
    Suite *s = suite_create("rt_detect");
    TCase *tc = tcase_create("detect");
    tcase_add_loop_test(tc, test_grid_sample_random, 0, 90);
    tcase_add_loop_test(tc, test_roi_align_random, 0, 80);
    tcase_add_test(tc, test_maxunpool);
    tcase_add_loop_test(tc, test_nms_random, 0, 120);
    tcase_add_test(tc, test_nms_known);
    suite_add_tcase(s, tc);
    return s;
}
