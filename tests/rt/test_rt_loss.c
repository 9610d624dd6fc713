/*
 * test_rt_loss.c -- ln_rt_nll_loss_{f32,f64} and
 * ln_rt_softmax_cross_entropy_{f32,f64} (ONNX NegativeLogLikelihoodLoss,
 * SoftmaxCrossEntropyLoss) against a reference in double written from
 * ONNX's definition: the log-softmax as log(exp(x) / sum exp), element by
 * element, the weights gathered by target, ignored elements weighing 0.
 * Random [n][c][d1..dk] shapes (k from 0 to 3), int64 and int32 targets,
 * with and without weights, ignore_index inside and outside [0, c), every
 * reduction, log_prob or not; then targets out of range (the kernel's
 * error, every output still written, nothing read out of bounds: the
 * buffers are exactly sized, for ASan), a mean where nothing counts (NaN),
 * log_prob against ln_rt_logsoftmax_f32, and scores near 1e4.
 */
#include "rt_test.h"

/* reference: loss [n][d] (NONE) or [1]; logp [n][c][d].  Returns the
 * bound on a float32 kernel's error in loss[0] that plain summation allows
 * (count * 2^-24 * sum |term|, over the weight sum for MEAN). */
static double ref_loss(const ln_rt_loss_args *a, const int64_t *target, const double *x,
                       const double *w, int softmax, double *loss, double *logp)
{
    size_t cd = (size_t)a->c * a->d, nt = (size_t)a->n * a->d;
    double sum = 0, wsum = 0, sumabs = 0;

    for (int32_t i = 0; i < a->n; i++)
        for (int32_t j = 0; j < a->d; j++) {
            size_t k = (size_t)i * a->d + j;
            int64_t t = target[k];
            double v = 0, wt = 0;

            if (softmax) {
                double s = 0, mx = -INFINITY;

                for (int32_t c = 0; c < a->c; c++)
                    mx = fmax(mx, x[i * cd + (size_t)c * a->d + j]);
                for (int32_t c = 0; c < a->c; c++)
                    s += exp(x[i * cd + (size_t)c * a->d + j] - mx);
                for (int32_t c = 0; c < a->c; c++)
                    logp[i * cd + (size_t)c * a->d + j] =
                        log(exp(x[i * cd + (size_t)c * a->d + j] - mx) / s);
            }
            if (!(a->has_ignore && t == a->ignore_index) && t >= 0 && t < a->c) {
                wt = w ? w[t] : 1.0;
                v = -wt * (softmax ? logp : x)[i * cd + (size_t)t * a->d + j];
            }
            if (a->reduction == LN_RT_LOSS_NONE)
                loss[k] = v;
            sum += v;
            wsum += wt;
            sumabs += fabs(v);
        }
    if (a->reduction == LN_RT_LOSS_SUM)
        loss[0] = sum;
    else if (a->reduction == LN_RT_LOSS_MEAN)
        loss[0] = sum / wsum;
    return (double)nt * 0x1p-24 * sumabs / (a->reduction == LN_RT_LOSS_MEAN ? fabs(wsum) : 1.0);
}

/* One case: random x (and weight), the targets given; runs the f32 and
 * f64 kernels of NLL (softmax 0) or SCE (1) and checks them against the
 * reference.  Returns the f32 kernel's status (the f64 one must agree). */
struct loss_case {
    ln_rt_loss_args a;
    int weighted, int32_targets, with_logp, softmax;
    float lo, hi;                       /* range of x */
};

static int run_case(const struct loss_case *lc, const int64_t *target, uint32_t seed)
{
    const ln_rt_loss_args *a = &lc->a;
    size_t nx = (size_t)a->n * a->c * a->d, nt = (size_t)a->n * a->d;
    size_t nl = a->reduction == LN_RT_LOSS_NONE ? nt : 1;
    float *x = rt_alloc(nx), *w = lc->weighted ? rt_alloc((size_t)a->c) : NULL;
    float *loss = rt_alloc(nl), *logp = lc->with_logp ? rt_alloc(nx) : NULL;
    double *xd = rt_allocd(nx), *wd = lc->weighted ? rt_allocd((size_t)a->c) : NULL;
    double *lossd = rt_allocd(nl), *logpd = lc->with_logp ? rt_allocd(nx) : NULL;
    double *rloss = rt_allocd(nl), *rlogp = rt_allocd(lc->softmax ? nx : 1);
    double *tmp = rt_allocd(nx);
    void *t = rt_scratch(nt * (lc->int32_targets ? 4 : 8));
    size_t tsize = lc->int32_targets ? 4 : 8;
    double sum_err;
    int st, std;

    rt_fill(x, nx, lc->lo, lc->hi, seed);
    if (w)
        rt_fill(w, (size_t)a->c, 0.1f, 2.0f, seed + 7);
    for (size_t i = 0; i < nx; i++)
        xd[i] = x[i];
    for (int32_t i = 0; w && i < a->c; i++)
        wd[i] = w[i];
    for (size_t i = 0; i < nt; i++) {
        if (lc->int32_targets)
            ((int32_t *)t)[i] = (int32_t)target[i];
        else
            ((int64_t *)t)[i] = target[i];
    }
    sum_err = ref_loss(a, target, xd, wd, lc->softmax, rloss, rlogp);

    if (lc->softmax) {
        st = ln_rt_softmax_cross_entropy_f32(a, tsize, x, t, w, loss, logp);
        std = ln_rt_softmax_cross_entropy_f64(a, tsize, xd, t, wd, lossd, logpd);
    } else {
        st = ln_rt_nll_loss_f32(a, tsize, x, t, w, loss);
        std = ln_rt_nll_loss_f64(a, tsize, xd, t, wd, lossd);
    }
    ck_assert_int_eq(st, std);
    /* float32: each term within ~1e-6 (its softmax); a sum within that
     * plus what float summation may lose.  The f64 kernel, the same code,
     * is held to 1e-12 below. */
    if (a->reduction == LN_RT_LOSS_NONE)
        RT_CHECK(loss, rloss, nl, 1e-5, "loss f32");
    else
        ck_assert_msg(fabs(loss[0] - rloss[0]) <= 1e-5 * fmax(fabs(rloss[0]), 1.0) + sum_err,
                      "loss f32: %.9g vs %.9g", (double)loss[0], rloss[0]);
    for (size_t i = 0; i < nl; i++)
        tmp[i] = fabs(lossd[i] - rloss[i]) / fmax(fabs(rloss[i]), 1.0);
    for (size_t i = 0; i < nl; i++)
        ck_assert_msg(tmp[i] <= 1e-12 || (isnan(lossd[i]) && isnan(rloss[i])),
                      "loss f64 [%zu]: %.17g vs %.17g", i, lossd[i], rloss[i]);
    if (lc->with_logp) {
        RT_CHECK(logp, rlogp, nx, 2e-6, "log_prob f32");
        for (size_t i = 0; i < nx; i++)
            ck_assert_msg(fabs(logpd[i] - rlogp[i]) <= 1e-12 * fmax(fabs(rlogp[i]), 1.0),
                          "log_prob f64 [%zu]: %.17g vs %.17g", i, logpd[i], rlogp[i]);
    }
    free(x), free(w), free(loss), free(logp), free(xd), free(wd), free(lossd), free(logpd);
    free(rloss), free(rlogp), free(tmp), free(t);
    return st;
}

START_TEST(test_loss_random)
{
    uint32_t s = 12345;
    int ncases = 0;

    for (int iter = 0; iter < 400; iter++) {
        struct loss_case lc;
        int k = (int)(rt_rand(&s) % 4);
        size_t nt;
        int64_t *target;

        memset(&lc, 0, sizeof lc);
        lc.a.n = 1 + (int32_t)(rt_rand(&s) % 4);
        lc.a.c = 1 + (int32_t)(rt_rand(&s) % 7);
        lc.a.d = 1;
        for (int i = 0; i < k; i++)
            lc.a.d *= 1 + (int32_t)(rt_rand(&s) % 5);
        lc.a.reduction = (ln_rt_loss_reduction)(rt_rand(&s) % 3);
        lc.a.has_ignore = (int32_t)(rt_rand(&s) % 2);
        /* ignore_index a class, or outside [0, c) (-1, c + 3, -5) */
        switch (rt_rand(&s) % 4) {
        case 0: lc.a.ignore_index = -1; break;
        case 1: lc.a.ignore_index = lc.a.c + 3; break;
        case 2: lc.a.ignore_index = -5; break;
        default: lc.a.ignore_index = (int64_t)(rt_rand(&s) % (uint32_t)lc.a.c); break;
        }
        lc.weighted = (int)(rt_rand(&s) % 2);
        lc.int32_targets = (int)(rt_rand(&s) % 2);
        lc.softmax = (int)(rt_rand(&s) % 2);
        lc.with_logp = lc.softmax && rt_rand(&s) % 2;
        lc.lo = -3.0f;
        lc.hi = 3.0f;
        nt = (size_t)lc.a.n * lc.a.d;
        target = calloc(nt, sizeof *target);
        ck_assert_ptr_nonnull(target);
        for (size_t i = 0; i < nt; i++)     /* about one in 5 ignore_index */
            target[i] = lc.a.has_ignore && rt_rand(&s) % 5 == 0
                            ? lc.a.ignore_index
                            : (int64_t)(rt_rand(&s) % (uint32_t)lc.a.c);
        /* a mean where nothing counts is NaN, checked apart */
        if (lc.a.reduction == LN_RT_LOSS_MEAN && lc.a.has_ignore) {
            int any = 0;
            for (size_t i = 0; i < nt; i++)
                any |= target[i] != lc.a.ignore_index;
            if (!any)
                target[0] = lc.a.ignore_index == 0 ? lc.a.c - 1 : 0;
            if (!any && target[0] == lc.a.ignore_index) {
                free(target);
                continue;
            }
        }
        ck_assert_int_eq(run_case(&lc, target, (uint32_t)iter), LN_RT_OK);
        ncases++;
        free(target);
    }
    ck_assert_int_ge(ncases, 380);
}
END_TEST

/* Targets outside [0, c) that are not ignore_index: LN_RT_ARG_ERROR, the
 * element counted as ignored, the others right (the reference skips them
 * the same way); nothing read outside x (exact buffers under ASan). */
START_TEST(test_loss_target_out_of_range)
{
    static const int64_t bad[] = {-1, 5, 6, (int64_t)1 << 40, INT64_MIN, INT64_MAX, -7};

    for (int r = 0; r < 3; r++)
        for (int sm = 0; sm < 2; sm++)
            for (int i32 = 0; i32 < 2; i32++) {
                struct loss_case lc;
                int64_t target[3 * 4];

                memset(&lc, 0, sizeof lc);
                lc.a.n = 3;
                lc.a.c = 5;
                lc.a.d = 4;
                lc.a.reduction = (ln_rt_loss_reduction)r;
                lc.a.has_ignore = 1;
                lc.a.ignore_index = -7;         /* -7 is ignored, -1 is bad */
                lc.weighted = 1;
                lc.int32_targets = i32;
                lc.softmax = sm;
                lc.with_logp = sm;
                lc.lo = -2.0f;
                lc.hi = 2.0f;
                for (int i = 0; i < 12; i++)
                    target[i] = i % 5;
                for (int i = 0; i < 7; i++) {
                    int64_t b = bad[i];
                    if (i32 && (b > INT32_MAX || b < INT32_MIN))
                        b = i % 2 ? INT32_MAX : INT32_MIN;
                    target[(i * 5) % 12] = b;
                }
                ck_assert_int_eq(run_case(&lc, target, 99u + (uint32_t)r), LN_RT_ARG_ERROR);
                /* a case with only ignored and good targets is fine */
                for (int i = 0; i < 12; i++)
                    target[i] = i % 3 ? i % 5 : -7;
                ck_assert_int_eq(run_case(&lc, target, 7u), LN_RT_OK);
            }
}
END_TEST

/* mean over no counted element: 0 / 0 (ONNX's reference gives NaN);
 * none and sum give zeros */
START_TEST(test_loss_all_ignored)
{
    ln_rt_loss_args a = {2, 3, 2, LN_RT_LOSS_MEAN, 1, 1};
    const int64_t t[4] = {1, 1, 1, 1};
    float x[12] = {0}, loss[4] = {1, 1, 1, 1};

    ck_assert_int_eq(ln_rt_nll_loss_f32(&a, 8, x, t, NULL, loss), LN_RT_OK);
    ck_assert(isnan(loss[0]));
    ck_assert_int_eq(ln_rt_softmax_cross_entropy_f32(&a, 8, x, t, NULL, loss, NULL), LN_RT_OK);
    ck_assert(isnan(loss[0]));
    a.reduction = LN_RT_LOSS_SUM;
    ck_assert_int_eq(ln_rt_nll_loss_f32(&a, 8, x, t, NULL, loss), LN_RT_OK);
    ck_assert(loss[0] == 0.0f);
    a.reduction = LN_RT_LOSS_NONE;
    ck_assert_int_eq(ln_rt_softmax_cross_entropy_f32(&a, 8, x, t, NULL, loss, NULL), LN_RT_OK);
    for (int i = 0; i < 4; i++)
        ck_assert(loss[i] == 0.0f);
}
END_TEST

/* log_prob is LogSoftmax over axis 1, bit for bit */
START_TEST(test_loss_log_prob_is_logsoftmax)
{
    ln_rt_loss_args a = {3, 7, 10, LN_RT_LOSS_SUM, 0, 0};
    size_t nx = 3 * 7 * 10;
    float *x = rt_alloc(nx), *lp = rt_alloc(nx), *ls = rt_alloc(nx), loss;
    int64_t t[30];

    rt_fill(x, nx, -20.0f, 20.0f, 3);
    for (int i = 0; i < 30; i++)
        t[i] = i % 7;
    ck_assert_int_eq(ln_rt_softmax_cross_entropy_f32(&a, 8, x, t, NULL, &loss, lp), LN_RT_OK);
    ln_rt_logsoftmax_f32(3, 7, 10, x, ls);
    ck_assert_int_eq(memcmp(lp, ls, nx * sizeof *lp), 0);
    free(x), free(lp), free(ls);
}
END_TEST

/* scores near 1e4 (exp would overflow without the max) */
START_TEST(test_loss_large_scores)
{
    for (int r = 0; r < 3; r++) {
        struct loss_case lc;
        int64_t target[2 * 6];

        memset(&lc, 0, sizeof lc);
        lc.a.n = 2;
        lc.a.c = 9;
        lc.a.d = 6;
        lc.a.reduction = (ln_rt_loss_reduction)r;
        lc.weighted = r == 1;
        lc.softmax = 1;
        lc.with_logp = 1;
        lc.lo = 9990.0f;
        lc.hi = 10000.0f;
        for (int i = 0; i < 12; i++)
            target[i] = (i * 4) % 9;
        ck_assert_int_eq(run_case(&lc, target, 5u), LN_RT_OK);
    }
}
END_TEST

Suite *rt_loss_suite(void)
{
    Suite *s = suite_create("rt_loss");
    TCase *tc = tcase_create("loss");

    tcase_add_test(tc, test_loss_random);
    tcase_add_test(tc, test_loss_target_out_of_range);
    tcase_add_test(tc, test_loss_all_ignored);
    tcase_add_test(tc, test_loss_log_prob_is_logsoftmax);
    tcase_add_test(tc, test_loss_large_scores);
    suite_add_tcase(s, tc);
    return s;
}
