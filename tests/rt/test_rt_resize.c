/*
 * test_rt_resize.c -- ln_rt_resize_f32's cubic and tf_crop_and_resize
 * paths against a double-precision reference written from the ONNX spec:
 * each axis is a matrix of weights (out x in), built from the transformed
 * coordinate, the edge-padded neighbours and Keys' cubic kernel, and the
 * output is Wh * X * Ww^T.  Tolerance 2e-5 (max |diff| / max(|ref|, 1)).
 */
#include "rt_test.h"

/* the source coordinate of output index o along an axis (ONNX spec) */
static double ref_coord(int mode, int o, int in, double scale, double res,
                        double r0, double r1)
{
    switch (mode) {
    case LN_RT_COORD_ASYMMETRIC: return o / scale;
    case LN_RT_COORD_ALIGN_CORNERS: return res == 1.0 ? 0.0 : o * (in - 1) / (res - 1.0);
    case LN_RT_COORD_PYTORCH_HALF_PIXEL: return res > 1.0 ? (o + 0.5) / scale - 0.5 : 0.0;
    case LN_RT_COORD_TF_CROP_AND_RESIZE:
        return res == 1.0 ? (r1 - r0) * (in - 1) / 2.0 + r0 * (in - 1)
                          : o * (r1 - r0) * (in - 1) / (res - 1.0) + r0 * (in - 1);
    default: return (o + 0.5) / scale - 0.5;
    }
}

static double keys(double s, double A)
{
    s = fabs(s);
    if (s <= 1.0)
        return ((A + 2.0) * s - (A + 3.0)) * s * s + 1.0;
    if (s < 2.0)
        return ((A * s - 5.0 * A) * s + 8.0 * A) * s - 4.0 * A;
    return 0.0;
}

/* w[o][i] for one axis; outside[o] set where tf_crop_and_resize extrapolates */
static void ref_weights(const ln_rt_resize_args *a, int in, int out, double scale, double res,
                        double r0, double r1, double *w, int *outside)
{
    for (int o = 0; o < out; o++) {
        double x = ref_coord(a->coord, o, in, scale, res, r0, r1), c[4], sum = 0.0;
        int f = (int)floor(x);
        outside[o] = a->coord == LN_RT_COORD_TF_CROP_AND_RESIZE && (x < 0.0 || x > in - 1);
        memset(w + (size_t)o * in, 0, (size_t)in * sizeof(double));
        if (a->mode == LN_RT_RESIZE_LINEAR) {
            double xc = x < 0 ? 0 : (x > in - 1 ? in - 1 : x);
            int x0 = (int)xc, x1 = x0 + 1 < in ? x0 + 1 : in - 1;
            w[(size_t)o * in + x0] += 1.0 - (xc - x0);
            w[(size_t)o * in + x1] += xc - x0;
            continue;
        }
        for (int k = 0; k < 4; k++) {
            int i = f - 1 + k;
            c[k] = keys(x - i, a->cubic_a);
            if (a->exclude_outside && (i < 0 || i >= in))
                c[k] = 0.0;
            sum += c[k];
        }
        for (int k = 0; k < 4; k++) {
            int i = f - 1 + k;
            i = i < 0 ? 0 : (i >= in ? in - 1 : i);
            w[(size_t)o * in + i] += a->exclude_outside ? c[k] / sum : c[k];
        }
    }
}

static double resize_err(const ln_rt_resize_args *a, uint32_t seed)
{
    size_t nin = (size_t)a->n * a->c * a->ih * a->iw, nout = (size_t)a->n * a->c * a->oh * a->ow;
    float *x = rt_alloc(nin), *y = rt_alloc(nout);
    double *wh = malloc(sizeof(double) * a->oh * a->ih), *ww = malloc(sizeof(double) * a->ow * a->iw);
    int *oh = malloc(sizeof(int) * a->oh), *ow = malloc(sizeof(int) * a->ow);
    double sh = a->scale_h > 0 ? a->scale_h : (double)a->oh / a->ih;
    double sw = a->scale_w > 0 ? a->scale_w : (double)a->ow / a->iw;
    double rh = a->scale_h > 0 ? (double)a->scale_h * a->ih : a->oh;
    double rw = a->scale_w > 0 ? (double)a->scale_w * a->iw : a->ow;
    double err = 0.0;

    rt_fill(x, nin, -2.0f, 2.0f, seed);
    ck_assert_int_eq(ln_rt_resize_f32(a, x, y), LN_RT_OK);
    ref_weights(a, a->ih, a->oh, sh, rh, a->roi[0], a->roi[2], wh, oh);
    ref_weights(a, a->iw, a->ow, sw, rw, a->roi[1], a->roi[3], ww, ow);
    for (int p = 0; p < a->n * a->c; p++)
        for (int i = 0; i < a->oh; i++)
            for (int j = 0; j < a->ow; j++) {
                double r = 0.0, d;
                if (oh[i] || ow[j]) {
                    r = a->extrapolation;
                } else {
                    for (int u = 0; u < a->ih; u++)
                        for (int v = 0; v < a->iw; v++)
                            r += wh[(size_t)i * a->ih + u] * ww[(size_t)j * a->iw + v]
                                 * x[((size_t)p * a->ih + u) * a->iw + v];
                }
                d = fabs(y[((size_t)p * a->oh + i) * a->ow + j] - r) / (fabs(r) > 1 ? fabs(r) : 1);
                err = d > err ? d : err;
            }
    free(x); free(y); free(wh); free(ww); free(oh); free(ow);
    return err;
}

/* cubic: sizes and scales, up and down, each coordinate mode, A = -0.75
 * and -0.5, exclude_outside both ways */
START_TEST(test_resize_cubic)
{
    static const int coords[] = {LN_RT_COORD_HALF_PIXEL, LN_RT_COORD_ASYMMETRIC,
                                 LN_RT_COORD_ALIGN_CORNERS, LN_RT_COORD_PYTORCH_HALF_PIXEL};
    ln_rt_resize_args a;
    memset(&a, 0, sizeof a);
    a.n = 2; a.c = 3; a.mode = LN_RT_RESIZE_CUBIC;
    a.ih = 5 + _i % 3; a.iw = 7 - _i % 2;
    a.coord = (ln_rt_coord_mode)coords[_i % 4];
    a.cubic_a = (_i / 4) % 2 ? -0.5f : -0.75f;
    a.exclude_outside = (_i / 8) % 2;
    if (_i % 3 == 0) {                 /* sizes */
        a.oh = 2 * a.ih + 1; a.ow = a.iw - 2;
    } else {                           /* scales */
        a.scale_h = _i % 2 ? 0.6f : 1.7f; a.scale_w = 2.0f;
        a.oh = (int32_t)(a.ih * a.scale_h); a.ow = (int32_t)(a.iw * a.scale_w);
    }
    a.roi[2] = a.roi[3] = 1.0f;
    ck_assert_double_le(resize_err(&a, 11u + (uint32_t)_i), 2e-5);
}
END_TEST

/* tf_crop_and_resize: a region partly outside the input (extrapolated),
 * linear, cubic and an output of one row */
START_TEST(test_resize_crop)
{
    ln_rt_resize_args a;
    memset(&a, 0, sizeof a);
    a.n = 1; a.c = 2; a.ih = 6; a.iw = 5;
    a.coord = LN_RT_COORD_TF_CROP_AND_RESIZE;
    a.mode = _i % 2 ? LN_RT_RESIZE_CUBIC : LN_RT_RESIZE_LINEAR;
    a.cubic_a = -0.75f;
    a.extrapolation = 10.0f;
    a.oh = _i < 2 ? 4 : 1; a.ow = 7;
    a.roi[0] = 0.2f; a.roi[1] = -0.1f; a.roi[2] = 0.9f; a.roi[3] = 1.3f;
    ck_assert_double_le(resize_err(&a, 5u + (uint32_t)_i), 2e-5);
}
END_TEST

Suite *rt_resize_suite(void)
{
    Suite *s = suite_create("rt_resize");
    TCase *tc = tcase_create("resize");
    tcase_add_loop_test(tc, test_resize_cubic, 0, 16);
    tcase_add_loop_test(tc, test_resize_crop, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
