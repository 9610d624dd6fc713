/*
 * test_rt_conv3d.c -- 3-D convolution, transposed convolution and pooling
 * (NCDHW) and MaxPool's indices, against double references written from
 * the definitions: a conv output sums x[i * s - p + k * d] * w over the
 * taps inside the input; a transposed conv output sums, over every input
 * position and tap that lands on it, x * w (a gather over the same
 * relation, not the kernel's scatter); pools clip windows to the input
 * and divide by the taps inside the padded input or the input.
 * Random geometries: odd extents, groups, strides, dilations, asymmetric
 * pads, fused activations.  Tolerances: convs 2e-5, average 2e-6, max
 * exact (and its indices exact).
 */
#include "rt_test.h"

static int32_t rnd(uint32_t *s, int32_t lo, int32_t hi)
{
    return lo + (int32_t)(rt_rand(s) % (uint32_t)(hi - lo + 1));
}

static size_t vol(const int32_t *v)
{
    return (size_t)v[0] * v[1] * v[2];
}

/* a random conv geometry (out[] left 0) */
static void random_conv(uint32_t *s, ln_rt_conv3d_args *a)
{
    memset(a, 0, sizeof *a);
    a->n = rnd(s, 1, 2);
    a->group = rnd(s, 1, 3);
    a->c = a->group * rnd(s, 1, 3);
    a->oc = a->group * rnd(s, 1, 3);
    for (int i = 0; i < 3; i++) {
        a->in[i] = rnd(s, 1, 7);
        a->k[i] = rnd(s, 1, 3);
        a->stride[i] = rnd(s, 1, 3);
        a->dil[i] = rnd(s, 1, 2);
        a->pad[i] = rnd(s, 0, 2);
        a->pad[i + 3] = rnd(s, 0, 2);
    }
    a->act = (ln_rt_act)rnd(s, 0, 4);
    a->alpha = a->act == LN_RT_ACT_CLIP ? -0.5f : 0.1f;
    a->beta = 0.75f;
}

static void conv3d_ref(const ln_rt_conv3d_args *a, const float *x, const float *w,
                       const float *b, double *y)
{
    int32_t cg = a->c / a->group, og = a->oc / a->group;
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++)
            for (int32_t od = 0; od < a->out[0]; od++)
                for (int32_t oh = 0; oh < a->out[1]; oh++)
                    for (int32_t ow = 0; ow < a->out[2]; ow++) {
                        double acc = b ? b[o] : 0.0;
                        for (int32_t ic = 0; ic < cg; ic++)
                            for (int32_t kd = 0; kd < a->k[0]; kd++)
                                for (int32_t kh = 0; kh < a->k[1]; kh++)
                                    for (int32_t kw = 0; kw < a->k[2]; kw++) {
                                        int32_t d = od * a->stride[0] - a->pad[0] + kd * a->dil[0];
                                        int32_t h = oh * a->stride[1] - a->pad[1] + kh * a->dil[1];
                                        int32_t ww = ow * a->stride[2] - a->pad[2] + kw * a->dil[2];
                                        int32_t c = (o / og) * cg + ic;
                                        if (d < 0 || d >= a->in[0] || h < 0 || h >= a->in[1] ||
                                            ww < 0 || ww >= a->in[2])
                                            continue;
                                        acc += (double)x[(((size_t)n * a->c + c) * a->in[0] + d)
                                                         * a->in[1] * a->in[2] +
                                                         (size_t)h * a->in[2] + ww] *
                                               w[((((size_t)o * cg + ic) * a->k[0] + kd) * a->k[1]
                                                  + kh) * a->k[2] + kw];
                                    }
                        *y++ = rt_act(acc, a->act, a->alpha, a->beta);
                    }
}

START_TEST(test_conv3d_random)
{
    uint32_t s = 1000u + (uint32_t)_i;
    ln_rt_conv3d_args a;
    float *x, *w, *b, *y;
    double *ref;
    size_t ny;
    int ok = 1;

    random_conv(&s, &a);
    for (int i = 0; i < 3; i++) {
        a.out[i] = ln_rt_conv_out_size(a.in[i], a.k[i], a.stride[i], a.pad[i], a.pad[i + 3],
                                       a.dil[i]);
        ok = ok && a.out[i] >= 1;
    }
    if (!ok)
        return;                         /* a window that does not fit */
    ny = (size_t)a.n * a.oc * vol(a.out);
    x = rt_alloc((size_t)a.n * a.c * vol(a.in));
    w = rt_alloc((size_t)a.oc * (a.c / a.group) * vol(a.k));
    b = rt_alloc((size_t)a.oc);
    y = rt_alloc(ny);
    ref = rt_allocd(ny);
    rt_fill(x, (size_t)a.n * a.c * vol(a.in), -1, 1, s);
    rt_fill(w, (size_t)a.oc * (a.c / a.group) * vol(a.k), -1, 1, s + 1);
    rt_fill(b, (size_t)a.oc, -1, 1, s + 2);
    ck_assert_int_eq(ln_rt_conv3d_f32(&a, x, w, _i % 3 ? b : NULL, y), LN_RT_OK);
    conv3d_ref(&a, x, w, _i % 3 ? b : NULL, ref);
    RT_CHECK(y, ref, ny, 2e-5, "conv3d");
    free(x);
    free(w);
    free(b);
    free(y);
    free(ref);
}
END_TEST

static void conv_transpose3d_ref(const ln_rt_conv3d_args *a, const float *x, const float *w,
                                 const float *b, double *y)
{
    int32_t cg = a->c / a->group, og = a->oc / a->group;
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++)
            for (int32_t od = 0; od < a->out[0]; od++)
                for (int32_t oh = 0; oh < a->out[1]; oh++)
                    for (int32_t ow = 0; ow < a->out[2]; ow++) {
                        double acc = b ? b[o] : 0.0;
                        int32_t g = o / og;
                        for (int32_t ic = 0; ic < cg; ic++)
                            for (int32_t id = 0; id < a->in[0]; id++)
                                for (int32_t ih = 0; ih < a->in[1]; ih++)
                                    for (int32_t iw = 0; iw < a->in[2]; iw++) {
                                        int32_t c = g * cg + ic, t[3];
                                        int32_t pos[3] = {id, ih, iw}, oo[3] = {od, oh, ow};
                                        int hit = 1;
                                        for (int i = 0; i < 3 && hit; i++) {
                                            int32_t r = oo[i] + a->pad[i] - pos[i] * a->stride[i];
                                            hit = r >= 0 && r % a->dil[i] == 0 &&
                                                  r / a->dil[i] < a->k[i];
                                            t[i] = hit ? r / a->dil[i] : 0;
                                        }
                                        if (!hit)
                                            continue;
                                        acc += (double)x[(((size_t)n * a->c + c) * a->in[0] + id)
                                                         * a->in[1] * a->in[2] +
                                                         (size_t)ih * a->in[2] + iw] *
                                               w[((((size_t)c * og + o % og) * a->k[0] + t[0])
                                                  * a->k[1] + t[1]) * a->k[2] + t[2]];
                                    }
                        *y++ = rt_act(acc, a->act, a->alpha, a->beta);
                    }
}

START_TEST(test_conv_transpose3d_random)
{
    uint32_t s = 2000u + (uint32_t)_i;
    ln_rt_conv3d_args a;
    float *x, *w, *b, *y;
    double *ref;
    size_t ny;
    int ok = 1;

    random_conv(&s, &a);
    for (int i = 0; i < 3; i++) {
        int32_t opad = rnd(&s, 0, a.stride[i] - 1);
        if (_i % 4 == 1)            /* an output_shape beyond the full output */
            a.pad[i + 3 * (i % 2)] = -rnd(&s, 0, 2);
        a.out[i] = a.stride[i] * (a.in[i] - 1) + opad + a.dil[i] * (a.k[i] - 1) + 1 -
                   a.pad[i] - a.pad[i + 3];
        ok = ok && a.out[i] >= 1;
    }
    if (!ok)
        return;
    ny = (size_t)a.n * a.oc * vol(a.out);
    x = rt_alloc((size_t)a.n * a.c * vol(a.in));
    w = rt_alloc((size_t)a.c * (a.oc / a.group) * vol(a.k));
    b = rt_alloc((size_t)a.oc);
    y = rt_alloc(ny);
    ref = rt_allocd(ny);
    rt_fill(x, (size_t)a.n * a.c * vol(a.in), -1, 1, s);
    rt_fill(w, (size_t)a.c * (a.oc / a.group) * vol(a.k), -1, 1, s + 1);
    rt_fill(b, (size_t)a.oc, -1, 1, s + 2);
    ck_assert_int_eq(ln_rt_conv_transpose3d_f32(&a, x, w, _i % 3 ? b : NULL, y), LN_RT_OK);
    conv_transpose3d_ref(&a, x, w, _i % 3 ? b : NULL, ref);
    RT_CHECK(y, ref, ny, 2e-5, "conv_transpose3d");
    free(x);
    free(w);
    free(b);
    free(y);
    free(ref);
}
END_TEST

/* pools: the reference walks every tap of the window, padded or not */
static void pool3d_ref(const ln_rt_pool3d_args *a, const float *x, int is_max, double *y,
                       int64_t *idx)
{
    size_t plane = vol(a->in);
    for (size_t q = 0; q < (size_t)a->n * a->c; q++)
        for (int32_t od = 0; od < a->out[0]; od++)
            for (int32_t oh = 0; oh < a->out[1]; oh++)
                for (int32_t ow = 0; ow < a->out[2]; ow++) {
                    int32_t oo[3] = {od, oh, ow};
                    double acc = is_max ? -INFINITY : 0.0;
                    int64_t best = -1, inside = 0, padded = 1;
                    for (int i = 0; i < 3; i++) {
                        int64_t cnt = 0;
                        for (int32_t k = 0; k < a->k[i]; k++) {
                            int32_t p = oo[i] * a->stride[i] + k * a->dil[i];
                            cnt += p < a->in[i] + a->pad[i] + a->pad[i + 3];
                        }
                        padded *= cnt;
                    }
                    for (int32_t kd = 0; kd < a->k[0]; kd++)
                        for (int32_t kh = 0; kh < a->k[1]; kh++)
                            for (int32_t kw = 0; kw < a->k[2]; kw++) {
                                int32_t d = od * a->stride[0] - a->pad[0] + kd * a->dil[0];
                                int32_t h = oh * a->stride[1] - a->pad[1] + kh * a->dil[1];
                                int32_t w = ow * a->stride[2] - a->pad[2] + kw * a->dil[2];
                                double v;
                                if (d < 0 || d >= a->in[0] || h < 0 || h >= a->in[1] || w < 0 ||
                                    w >= a->in[2])
                                    continue;
                                v = x[q * plane + ((size_t)d * a->in[1] + h) * a->in[2] + w];
                                inside++;
                                if (!is_max)
                                    acc += v;
                                else if (best < 0 || v > acc) {
                                    acc = v;
                                    best = (int64_t)(q * plane) +
                                           (a->storage_order
                                                ? d + (int64_t)a->in[0] * (h + (int64_t)a->in[1] * w)
                                                : ((int64_t)d * a->in[1] + h) * a->in[2] + w);
                                }
                            }
                    if (!is_max)
                        acc = (a->count_include_pad ? padded : inside) > 0
                                  ? acc / (double)(a->count_include_pad ? padded : inside) : 0.0;
                    *y++ = acc;
                    if (is_max)
                        *idx++ = best;
                }
}

START_TEST(test_pool3d_random)
{
    uint32_t s = 3000u + (uint32_t)_i;
    ln_rt_pool3d_args a;
    float *x, *y;
    double *ref;
    int64_t *idx, *ridx;
    size_t ny;

    memset(&a, 0, sizeof a);
    a.n = rnd(&s, 1, 2);
    a.c = rnd(&s, 1, 3);
    for (int i = 0; i < 3; i++) {
        int32_t span;
        a.in[i] = i == 0 && _i % 4 == 0 ? 1 : rnd(&s, 1, 8);   /* some 2-D */
        a.k[i] = i == 0 && _i % 4 == 0 ? 1 : rnd(&s, 1, 3);
        a.stride[i] = rnd(&s, 1, 3);
        a.dil[i] = rnd(&s, 1, 2);
        a.pad[i] = rnd(&s, 0, a.k[i] - 1);
        a.pad[i + 3] = rnd(&s, 0, a.k[i] - 1);
        span = a.in[i] + a.pad[i] + a.pad[i + 3] - a.dil[i] * (a.k[i] - 1) - 1;
        if (span < 0)
            return;
        /* ceil mode half the time: one more window if it starts inside */
        a.out[i] = span / a.stride[i] + 1;
        if (_i % 2 && span % a.stride[i] && a.out[i] * a.stride[i] < a.in[i] + a.pad[i])
            a.out[i]++;
    }
    a.count_include_pad = _i % 3 == 0;
    a.storage_order = _i % 5 == 0;
    ny = (size_t)a.n * a.c * vol(a.out);
    x = rt_alloc((size_t)a.n * a.c * vol(a.in));
    y = rt_alloc(ny);
    ref = rt_allocd(ny);
    idx = calloc(ny, sizeof *idx);
    ridx = calloc(ny, sizeof *ridx);
    rt_fill(x, (size_t)a.n * a.c * vol(a.in), -2, 2, s);
    /* ties: a coarse grid of values */
    for (size_t i = 0; _i % 7 == 0 && i < (size_t)a.n * a.c * vol(a.in); i++)
        x[i] = floorf(x[i]);
    ck_assert_int_eq(ln_rt_maxpool3d_f32(&a, x, y, idx), LN_RT_OK);
    pool3d_ref(&a, x, 1, ref, ridx);
    RT_CHECK(y, ref, ny, 0.0, "maxpool3d");
    for (size_t i = 0; i < ny; i++)
        ck_assert_msg(idx[i] == ridx[i], "maxpool3d index %zu: %lld, expected %lld", i,
                      (long long)idx[i], (long long)ridx[i]);
    ck_assert_int_eq(ln_rt_maxpool3d_f32(&a, x, y, NULL), LN_RT_OK);
    RT_CHECK(y, ref, ny, 0.0, "maxpool3d without indices");
    ck_assert_int_eq(ln_rt_avgpool3d_f32(&a, x, y), LN_RT_OK);
    pool3d_ref(&a, x, 0, ref, ridx);
    RT_CHECK(y, ref, ny, 2e-6, "avgpool3d");
    free(x);
    free(y);
    free(ref);
    free(idx);
    free(ridx);
}
END_TEST

/* ONNX's maxpool_with_argmax example: a 5x5 plane 1..25, 2x2 windows at
 * stride 2, pads 2 on each side: indices row- and column-major */
START_TEST(test_maxpool_indices_known)
{
    ln_rt_pool3d_args a = {1, 1, {1, 5, 5}, {1, 3, 3}, {1, 2, 2}, {1, 2, 2}, {1, 1, 1},
                           {0, 0, 0, 0, 1, 1}, 0, 0};
    float x[25], y[9];
    int64_t idx[9];
    static const float ey[9] = {7, 9, 10, 17, 19, 20, 22, 24, 25};
    static const int64_t row[9] = {6, 8, 9, 16, 18, 19, 21, 23, 24};
    static const int64_t col[9] = {6, 16, 21, 8, 18, 23, 9, 19, 24};

    for (int i = 0; i < 25; i++)
        x[i] = (float)(i + 1);
    ck_assert_int_eq(ln_rt_maxpool3d_f32(&a, x, y, idx), LN_RT_OK);
    for (int i = 0; i < 9; i++)
        ck_assert(y[i] == ey[i] && idx[i] == row[i]);
    a.storage_order = 1;
    ck_assert_int_eq(ln_rt_maxpool3d_f32(&a, x, y, idx), LN_RT_OK);
    for (int i = 0; i < 9; i++)
        ck_assert(idx[i] == col[i]);
    a.k[1] = 0;
    ck_assert_int_eq(ln_rt_maxpool3d_f32(&a, x, y, idx), LN_RT_ARG_ERROR);
}
END_TEST

Suite *rt_conv3d_suite(void)
{
    Suite *s = suite_create("rt_conv3d");
    TCase *tc = tcase_create("conv3d");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_conv3d_random, 0, 120);
    tcase_add_loop_test(tc, test_conv_transpose3d_random, 0, 120);
    tcase_add_loop_test(tc, test_pool3d_random, 0, 200);
    tcase_add_test(tc, test_maxpool_indices_known);
    suite_add_tcase(s, tc);
    return s;
}
