/*
 * test_rt_norm.c -- batch/instance/layer norm, LRN, reductions, softmax,
 * log-softmax and argmax against double references.
 * Tolerances: norms 2e-5, LRN 2e-5, reductions 2e-6 (sum of <= 70 values),
 * softmax 2e-6, max/min/argmax exact.
 */
#include <math.h>
#include "rt_test.h"

START_TEST(test_batchnorm)
{
    enum { N = 2, C = 3, HW = 35 };
    float x[N * C * HW], y[N * C * HW], sc[C], bi[C], mu[C], var[C];
    double ref[N * C * HW];
    int b, c, i;
    rt_fill(x, N * C * HW, -2, 2, 1);
    rt_fill(sc, C, 0.5f, 2, 2); rt_fill(bi, C, -1, 1, 3);
    rt_fill(mu, C, -1, 1, 4); rt_fill(var, C, 0.1f, 2, 5);
    for (b = 0; b < N; b++)
        for (c = 0; c < C; c++)
            for (i = 0; i < HW; i++) {
                size_t k = ((size_t)b * C + c) * HW + i;
                ref[k] = sc[c] * (x[k] - mu[c]) / sqrt(var[c] + 1e-5) + bi[c];
            }
    ln_rt_batchnorm_f32(N, C, HW, 1e-5f, x, sc, bi, mu, var, y);
    RT_CHECK(y, ref, N * C * HW, 2e-6, "batchnorm");
    ln_rt_batchnorm_f32(N, C, HW, 1e-5f, x, sc, bi, mu, var, x);
    RT_CHECK(x, ref, N * C * HW, 2e-6, "batchnorm in place");
}
END_TEST

/* batch norm + relu in one pass: to the bit batchnorm then relu (out of
 * place and in place), on odd shapes; NaN and -0 as relu maps them (to 0) */
START_TEST(test_batchnorm_relu)
{
    enum { N = 2, C = 5, HW = 37 };
    float x[N * C * HW], y[N * C * HW], r[N * C * HW], sc[C], bi[C], mu[C], var[C];
    int k, pos = 0, neg = 0;
    rt_fill(x, N * C * HW, -2, 2, 11);
    rt_fill(sc, C, -2, 4, 12); rt_fill(bi, C, -1, 2, 13);
    rt_fill(mu, C, -1, 2, 14); rt_fill(var, C, 0.1f, 2, 15);
    x[3] = NAN;
    ln_rt_batchnorm_f32(N, C, HW, 1e-3f, x, sc, bi, mu, var, r);
    ln_rt_relu_f32(r, r, N * C * HW);
    ln_rt_batchnorm_relu_f32(N, C, HW, 1e-3f, x, sc, bi, mu, var, y);
    for (k = 0; k < N * C * HW; k++) {
        ck_assert_msg(memcmp(&y[k], &r[k], sizeof(float)) == 0, "batchnorm_relu[%d] %a vs %a", k,
                      (double)y[k], (double)r[k]);
        pos += y[k] > 0;
        neg += y[k] == 0;
    }
    ck_assert_int_gt(pos, 50); /* both sides of the relu were exercised */
    ck_assert_int_gt(neg, 50);
    ln_rt_batchnorm_relu_f32(N, C, HW, 1e-3f, x, sc, bi, mu, var, x);
    ck_assert(memcmp(x, r, sizeof x) == 0);
}
END_TEST

START_TEST(test_instance_layer_norm)
{
    enum { N = 2, C = 3, HW = 35 };
    float x[N * C * HW], y[N * C * HW], sc[HW], bi[HW];
    double ref[N * C * HW];
    int r, i;
    rt_fill(x, N * C * HW, -2, 3, 6);
    rt_fill(sc, HW, 0.5f, 2, 7); rt_fill(bi, HW, -1, 1, 8);
    /* rows of HW; instance norm uses per-channel scale (first C values) */
    for (r = 0; r < N * C; r++) {
        double m = 0, v = 0;
        for (i = 0; i < HW; i++)
            m += x[r * HW + i];
        m /= HW;
        for (i = 0; i < HW; i++)
            v += (x[r * HW + i] - m) * (x[r * HW + i] - m);
        v /= HW;
        for (i = 0; i < HW; i++)
            ref[r * HW + i] = (x[r * HW + i] - m) / sqrt(v + 1e-5) *
                              sc[r % C] + bi[r % C];
    }
    ln_rt_instancenorm_f32(N, C, HW, 1e-5f, x, sc, bi, y);
    RT_CHECK(y, ref, N * C * HW, 2e-5, "instancenorm");
    for (r = 0; r < N * C; r++) {
        double m = 0, v = 0;
        for (i = 0; i < HW; i++)
            m += x[r * HW + i];
        m /= HW;
        for (i = 0; i < HW; i++)
            v += (x[r * HW + i] - m) * (x[r * HW + i] - m);
        v /= HW;
        for (i = 0; i < HW; i++)
            ref[r * HW + i] = (x[r * HW + i] - m) / sqrt(v + 1e-5) * sc[i] +
                              bi[i];
    }
    ln_rt_layernorm_f32(N * C, HW, 1e-5f, x, sc, bi, y);
    RT_CHECK(y, ref, N * C * HW, 2e-5, "layernorm");
    for (i = 0; i < N * C * HW; i++)
        ref[i] -= bi[i % HW];
    ln_rt_layernorm_f32(N * C, HW, 1e-5f, x, sc, NULL, x);
    RT_CHECK(x, ref, N * C * HW, 2e-5, "layernorm no bias, in place");
}
END_TEST

/* A row of equal values (a LogSoftmax over equal inputs): mean exactly
 * that value, variance 0, so the normalized row is the bias, not rounding
 * noise times 1/sqrt(eps) (which the plain two-pass mean gave: 5e-4 off
 * on a 56-element row of -2.0794415, against 1.5e-4 for ONNX Runtime). */
START_TEST(test_norm_constant_row)
{
    enum { C = 3, HW = 56 };
    float x[C * HW], y[C * HW], sc[HW], bi[HW];
    int i;
    for (i = 0; i < C * HW; i++)
        x[i] = -2.0794415f - (float)(i / HW);
    for (i = 0; i < HW; i++) {
        sc[i] = 1.5f;
        bi[i] = 0.25f * (float)(i % 4);
    }
    ln_rt_instancenorm_f32(1, C, HW, 1e-5f, x, sc, bi, y);
    for (i = 0; i < C * HW; i++)
        ck_assert_msg(y[i] == bi[i / HW], "instancenorm [%d]: %.9g, want %.9g", i, (double)y[i],
                      (double)bi[i / HW]);
    ln_rt_layernorm_f32(C, HW, 1e-5f, x, sc, bi, y);
    for (i = 0; i < C * HW; i++)
        ck_assert_msg(y[i] == bi[i % HW], "layernorm [%d]: %.9g, want %.9g", i, (double)y[i],
                      (double)bi[i % HW]);
}
END_TEST

START_TEST(test_lrn)
{
    enum { N = 2, C = 7, HW = 5 };
    float x[N * C * HW], y[N * C * HW];
    double ref[N * C * HW];
    int b, c, i, j, size = _i == 0 ? 5 : 4;
    rt_fill(x, N * C * HW, -2, 2, 9);
    for (b = 0; b < N; b++)
        for (c = 0; c < C; c++)
            for (i = 0; i < HW; i++) {
                double s = 0;
                /* ONNX: [c - floor((size-1)/2), c + ceil((size-1)/2)] */
                for (j = c - (size - 1) / 2; j <= c + size / 2; j++)
                    if (j >= 0 && j < C)
                        s += (double)x[(b * C + j) * HW + i] *
                             x[(b * C + j) * HW + i];
                ref[(b * C + c) * HW + i] = x[(b * C + c) * HW + i] /
                    pow(1.5 + 1e-2 / size * s, 0.75);
            }
    ln_rt_lrn_f32(N, C, HW, size, 1e-2f, 0.75f, 1.5f, x, y);
    RT_CHECK(y, ref, N * C * HW, 2e-6, "lrn");
}
END_TEST

START_TEST(test_reduce)
{
    /* shapes 2x3x4x3 and 2x5x7x7 (rows of 49 and 245 once the reduced
     * axes merge: the eight-chain sums, their tails), every axes subset */
    static const int32_t shapes[2][4] = { { 2, 3, 4, 3 }, { 2, 5, 7, 7 } };
    const int32_t *dims = shapes[_i / 16];
    float x[490], y[490];
    double rs[490], rmx[490], rmn[490], rme[490];
    int cnt[490];
    ln_rt_reduce_args a;
    uint32_t mask = (uint32_t)_i % 16;
    const int nx = dims[0] * dims[1] * dims[2] * dims[3];
    int i, d, ny = 1;
    rt_fill(x, (size_t)nx, -1, 1, 77);
    memset(&a, 0, sizeof(a));
    a.ndim = 4;
    for (d = 0; d < 4; d++) {
        a.dims[d] = dims[d];
        if (!(mask & (1u << d)))
            ny *= dims[d];
    }
    a.axes_mask = mask;
    for (i = 0; i < ny; i++) {
        rs[i] = 0; rmx[i] = -INFINITY; rmn[i] = INFINITY; cnt[i] = 0;
    }
    for (i = 0; i < nx; i++) {
        int rem = i, yi = 0, ys = 1;
        for (d = 3; d >= 0; d--) {
            int idx = rem % dims[d];
            rem /= dims[d];
            if (!(mask & (1u << d))) {
                yi += idx * ys;
                ys *= dims[d];
            }
        }
        rs[yi] += x[i];
        rmx[yi] = x[i] > rmx[yi] ? x[i] : rmx[yi];
        rmn[yi] = x[i] < rmn[yi] ? x[i] : rmn[yi];
        cnt[yi]++;
    }
    for (i = 0; i < ny; i++)
        rme[i] = rs[i] / cnt[i];
    ln_rt_reduce_sum_f32(&a, x, y);
    RT_CHECK(y, rs, (size_t)ny, 2e-6, "reduce_sum");
    ln_rt_reduce_mean_f32(&a, x, y);
    RT_CHECK(y, rme, (size_t)ny, 2e-6, "reduce_mean");
    ln_rt_reduce_max_f32(&a, x, y);
    RT_CHECK(y, rmx, (size_t)ny, 0, "reduce_max");
    ln_rt_reduce_min_f32(&a, x, y);
    RT_CHECK(y, rmn, (size_t)ny, 0, "reduce_min");
}
END_TEST

/* L1, L2, LogSum, LogSumExp, Prod, SumSquare against double references,
 * every axes subset of 2x3x1x5 (a size-1 axis, odd sizes) */
START_TEST(test_reduce_ext)
{
    const int32_t dims[4] = { 2, 3, 1, 5 };
    float x[30], y[30];
    double l1[30], ss[30], su[30], pr[30], mx[30], se[30], r[30];
    ln_rt_reduce_args a;
    uint32_t mask = (uint32_t)_i;
    int i, d, ny = 1;
    rt_fill(x, 30, 0.5f, 1.5f, 91);
    for (i = 0; i < 30; i += 4)
        x[i] = -x[i]; /* some negatives (LogSum's sums stay positive) */
    x[7] = 60.0f;     /* exp(60) overflows float: LogSumExp must not */
    memset(&a, 0, sizeof(a));
    a.ndim = 4;
    for (d = 0; d < 4; d++) {
        a.dims[d] = dims[d];
        if (!(mask & (1u << d)))
            ny *= dims[d];
    }
    a.axes_mask = mask;
    for (i = 0; i < ny; i++) {
        l1[i] = ss[i] = su[i] = se[i] = 0;
        pr[i] = 1;
        mx[i] = -INFINITY;
    }
    for (int pass = 0; pass < 2; pass++)
        for (i = 0; i < 30; i++) {
            int rem = i, yi = 0, ys = 1;
            for (d = 3; d >= 0; d--) {
                int idx = rem % dims[d];
                rem /= dims[d];
                if (!(mask & (1u << d))) {
                    yi += idx * ys;
                    ys *= dims[d];
                }
            }
            if (pass == 0) {
                l1[yi] += fabs(x[i]);
                ss[yi] += (double)x[i] * x[i];
                su[yi] += x[i];
                pr[yi] *= x[i];
                mx[yi] = x[i] > mx[yi] ? x[i] : mx[yi];
            } else {
                se[yi] += exp(x[i] - mx[yi]);
            }
        }
    ln_rt_reduce_l1_f32(&a, x, y);
    RT_CHECK(y, l1, (size_t)ny, 2e-6, "reduce_l1");
    ln_rt_reduce_sumsquare_f32(&a, x, y);
    RT_CHECK(y, ss, (size_t)ny, 2e-6, "reduce_sumsquare");
    for (i = 0; i < ny; i++)
        r[i] = sqrt(ss[i]);
    ln_rt_reduce_l2_f32(&a, x, y);
    RT_CHECK(y, r, (size_t)ny, 2e-6, "reduce_l2");
    ln_rt_reduce_prod_f32(&a, x, y);
    RT_CHECK(y, pr, (size_t)ny, 2e-6, "reduce_prod");
    for (i = 0; i < ny; i++)
        r[i] = mx[i] + log(se[i]);
    ln_rt_reduce_logsumexp_f32(&a, x, y);
    RT_CHECK(y, r, (size_t)ny, 2e-6, "reduce_logsumexp");
    for (i = 0; i < 30; i++)
        x[i] = fabsf(x[i]) + 0.25f;
    for (i = 0; i < ny; i++)
        su[i] = 0;
    for (i = 0; i < 30; i++) {
        int rem = i, yi = 0, ys = 1;
        for (d = 3; d >= 0; d--) {
            int idx = rem % dims[d];
            rem /= dims[d];
            if (!(mask & (1u << d))) {
                yi += idx * ys;
                ys *= dims[d];
            }
        }
        su[yi] += x[i];
    }
    for (i = 0; i < ny; i++)
        r[i] = log(su[i]);
    ln_rt_reduce_logsum_f32(&a, x, y);
    RT_CHECK(y, r, (size_t)ny, 2e-6, "reduce_logsum");
}
END_TEST

/* int64 ReduceSum and ReduceProd, every axes subset of 2x3x1x5 and a scalar:
 * small values (a shape's dims, token counts) exact, and one product past
 * 2^64 that must wrap as two's complement (computed here in unsigned) */
START_TEST(test_reduce_s64)
{
    const int32_t dims[4] = { 2, 3, 1, 5 };
    int64_t x[30], y[30], s0 = 7;
    uint64_t su[30], pr[30];
    ln_rt_reduce_args a;
    uint32_t mask = (uint32_t)_i;
    int i, d, ny = 1;
    for (i = 0; i < 30; i++)
        x[i] = (i * 7 % 11) - 4;         /* -4 .. 6, zeros included */
    x[3] = INT64_C(1) << 40;            /* products past 2^64 wrap */
    x[8] = (INT64_C(1) << 40) + 3;
    x[13] = -(INT64_C(1) << 40) - 1;
    memset(&a, 0, sizeof(a));
    a.ndim = 4;
    for (d = 0; d < 4; d++) {
        a.dims[d] = dims[d];
        if (!(mask & (1u << d)))
            ny *= dims[d];
    }
    a.axes_mask = mask;
    for (i = 0; i < ny; i++) {
        su[i] = 0;
        pr[i] = 1;
    }
    for (i = 0; i < 30; i++) {
        int rem = i, yi = 0, ys = 1;
        for (d = 3; d >= 0; d--) {
            int idx = rem % dims[d];
            rem /= dims[d];
            if (!(mask & (1u << d))) {
                yi += idx * ys;
                ys *= dims[d];
            }
        }
        su[yi] += (uint64_t)x[i];
        pr[yi] *= (uint64_t)x[i];
    }
    ln_rt_reduce_sum_s64(&a, x, y);
    for (i = 0; i < ny; i++)
        ck_assert_msg((uint64_t)y[i] == su[i], "reduce_sum_s64 mask %u [%d]", mask, i);
    ln_rt_reduce_prod_s64(&a, x, y);
    for (i = 0; i < ny; i++)
        ck_assert_msg((uint64_t)y[i] == pr[i], "reduce_prod_s64 mask %u [%d]", mask, i);
    if (mask == 15) {   /* the sum of all, in signed arithmetic */
        int64_t want = 0;
        for (i = 0; i < 30; i++)
            want += x[i];
        ln_rt_reduce_sum_s64(&a, x, y);
        ck_assert(y[0] == want);
    }
    /* a known wrap: 2^40 (2^40 + 3) (-2^40 - 1) = -3 2^40 modulo 2^64 */
    a.ndim = 1;
    a.dims[0] = 3;
    a.axes_mask = 1;
    {
        int64_t w[3] = { INT64_C(1) << 40, (INT64_C(1) << 40) + 3, -(INT64_C(1) << 40) - 1 };
        ln_rt_reduce_prod_s64(&a, w, y);
        ck_assert(y[0] == -3 * (INT64_C(1) << 40));
    }
    /* a scalar (ndim 0) is copied */
    a.ndim = 0;
    a.axes_mask = 0;
    ln_rt_reduce_prod_s64(&a, &s0, y);
    ck_assert(y[0] == 7);
}
END_TEST

START_TEST(test_argmin)
{
    /* [2][5][3]: argmin along the middle axis, then ties */
    float x[30], t[6] = { 1, -3, -3, 0, -3, 2 };
    int64_t y[6];
    int o, j, l;
    rt_fill(x, 30, -10, 10, 17);
    ln_rt_argmin_f32(2, 5, 3, 0, x, y);
    for (o = 0; o < 2; o++)
        for (j = 0; j < 3; j++) {
            int best = 0;
            for (l = 1; l < 5; l++)
                if (x[(o * 5 + l) * 3 + j] < x[(o * 5 + best) * 3 + j])
                    best = l;
            ck_assert_int_eq(y[o * 3 + j], best);
        }
    ln_rt_argmin_f32(1, 6, 1, 0, t, y);
    ck_assert_int_eq(y[0], 1);
    ln_rt_argmin_f32(1, 6, 1, 1, t, y);
    ck_assert_int_eq(y[0], 4);
}
END_TEST

START_TEST(test_softmax_argmax)
{
    /* [outer 2][len 7][inner 3] and inner 1 */
    enum { O = 2, L = 7, I = 3 };
    float x[O * L * I], y[O * L * I];
    double rs[O * L * I], rl[O * L * I];
    int64_t am[O * I];
    int o, l, j, inner = _i == 0 ? I : 1, outer = _i == 0 ? O : O * I;
    rt_fill(x, O * L * I, -10, 10, 55);
    x[3 * inner] = 80.0f; /* large values must not overflow */
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            double m = -INFINITY, s = 0;
            int best = 0;
            for (l = 0; l < L; l++) {
                double v = x[(o * L + l) * inner + j];
                if (v > m) {
                    m = v;
                    best = l;
                }
            }
            for (l = 0; l < L; l++)
                s += exp(x[(o * L + l) * inner + j] - m);
            for (l = 0; l < L; l++) {
                rs[(o * L + l) * inner + j] =
                    exp(x[(o * L + l) * inner + j] - m) / s;
                rl[(o * L + l) * inner + j] =
                    x[(o * L + l) * inner + j] - m - log(s);
            }
            am[o * inner + j] = best;
        }
    ln_rt_softmax_f32(outer, L, inner, x, y);
    RT_CHECK(y, rs, O * L * I, 2e-6, "softmax");
    ln_rt_logsoftmax_f32(outer, L, inner, x, y);
    RT_CHECK(y, rl, O * L * I, 2e-6, "logsoftmax");
    {
        int64_t got[O * I];
        ln_rt_argmax_f32(outer, L, inner, 0, x, got);
        for (j = 0; j < O * I; j++)
            ck_assert_int_eq(got[j], am[j]);
    }
    ln_rt_softmax_f32(outer, L, inner, x, x);
    RT_CHECK(x, rs, O * L * I, 2e-6, "softmax in place");
}
END_TEST

START_TEST(test_argmax_ties)
{
    float x[6] = { 1, 3, 3, 0, 3, 2 };
    int64_t y;
    ln_rt_argmax_f32(1, 6, 1, 0, x, &y);
    ck_assert_int_eq(y, 1);
    ln_rt_argmax_f32(1, 6, 1, 1, x, &y);
    ck_assert_int_eq(y, 4);
}
END_TEST

/* TopK: sorted, ties by the lower index, NaN the largest, the smallest,
 * a run along a middle axis (inner 2) */
START_TEST(test_topk)
{
    const float x[6] = {1.0f, 3.0f, 3.0f, -1.0f, 7.0f, 3.0f};
    float v[4], nanv;
    int64_t idx[4];
    float xn[4] = {2.0f, 0.0f, 5.0f, 1.0f};
    /* [1][3][2]: columns {4, 9, 1} and {8, 0, 8} */
    const float xm[6] = {4.0f, 8.0f, 9.0f, 0.0f, 1.0f, 8.0f};
    float vm[4];
    int64_t im[4];

    ln_rt_topk_f32(1, 6, 1, 3, 1, x, v, idx);
    ck_assert(v[0] == 7.0f && v[1] == 3.0f && v[2] == 3.0f);
    ck_assert(idx[0] == 4 && idx[1] == 1 && idx[2] == 2);
    ln_rt_topk_f32(1, 6, 1, 2, 0, x, v, idx);
    ck_assert(v[0] == -1.0f && v[1] == 1.0f && idx[0] == 3 && idx[1] == 0);
    xn[1] = nanf("");
    ln_rt_topk_f32(1, 4, 1, 2, 1, xn, v, idx);
    nanv = v[0];
    ck_assert(nanv != nanv && idx[0] == 1 && v[1] == 5.0f && idx[1] == 2);
    ln_rt_topk_f32(1, 3, 2, 2, 1, xm, vm, im);
    ck_assert(vm[0] == 9.0f && im[0] == 1 && vm[1] == 8.0f && im[1] == 0);
    ck_assert(vm[2] == 4.0f && im[2] == 0 && vm[3] == 8.0f && im[3] == 2);
}
END_TEST

/* LpNormalization: against double sums over a middle axis, p 1 and 2, one
 * zero slice (gives 0), in place */
START_TEST(test_lpnorm)
{
    enum { O = 3, L = 5, I = 4, N = O * L * I };
    float x[N], y[N];
    for (int p = 1; p <= 2; p++) {
        rt_fill(x, N, -2, 2, 40u + (uint32_t)p);
        for (int i = 0; i < L; i++)
            x[(1 * L + i) * I + 2] = 0.0f;       /* slice (1, :, 2) */
        ln_rt_lpnorm_f32(O, L, I, p, x, y);
        for (int o = 0; o < O; o++)
            for (int j = 0; j < I; j++) {
                double n = 0;
                for (int i = 0; i < L; i++) {
                    double v = x[(o * L + i) * I + j];
                    n += p == 1 ? fabs(v) : v * v;
                }
                n = p == 1 ? n : sqrt(n);
                for (int i = 0; i < L; i++) {
                    double want = n > 0 ? x[(o * L + i) * I + j] / n : 0.0;
                    ck_assert_msg(fabs(y[(o * L + i) * I + j] - want) <= 1e-6,
                                  "p %d (%d, %d, %d): %g, want %g", p, o, i, j,
                                  (double)y[(o * L + i) * I + j], want);
                }
            }
        ln_rt_lpnorm_f32(O, L, I, p, x, x);
        ck_assert(memcmp(x, y, sizeof x) == 0);
    }
}
END_TEST

Suite *rt_norm_suite(void)
{
    Suite *s = suite_create("rt_norm");
    TCase *tc = tcase_create("norm");
    tcase_add_test(tc, test_batchnorm);
    tcase_add_test(tc, test_batchnorm_relu);
    tcase_add_test(tc, test_lpnorm);
    tcase_add_test(tc, test_instance_layer_norm);
    tcase_add_test(tc, test_norm_constant_row);
    tcase_add_loop_test(tc, test_lrn, 0, 2);
    tcase_add_loop_test(tc, test_reduce, 0, 32);
    tcase_add_loop_test(tc, test_softmax_argmax, 0, 2);
    tcase_add_test(tc, test_argmax_ties);
    tcase_add_loop_test(tc, test_reduce_ext, 0, 16);
    tcase_add_loop_test(tc, test_reduce_s64, 0, 16);
    tcase_add_test(tc, test_argmin);
    tcase_add_test(tc, test_topk);
    suite_add_tcase(s, tc);
    return s;
}
