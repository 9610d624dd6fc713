/*
 * test_ln_op_loss.c -- nll_loss and softmax_cross_entropy through the
 * interpreter: the loss's shape by reduction, the optional weight and
 * log_prob, values against the definition, and the checks that refuse a
 * bad model by op and tensor or param name.  The kernels' own tests are
 * tests/rt/test_rt_loss.c; the ONNX node tests run in `make conformance`.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"

/* x [2][3][2], t (dtype tdt, dims tdims), w [weighted] read when weighted > 0 */
static char *model(const char *optype, const char *tdt, const char *tdims, int weighted,
                   int logp, const char *params)
{
    static char buf[4096];

    snprintf(buf, sizeof buf,
             "{\"ops\": ["
             "{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": [],"
             " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}],"
             " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"},"
             "  {\"arg_name\": \"dims\", \"value\": [2, 3, 2]}]},"
             "{\"name\": \"tin\", \"optype\": \"input\", \"tensors_in\": [],"
             " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"t\"}],"
             " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"%s\"},"
             "  {\"arg_name\": \"dims\", \"value\": %s}]},"
             "{\"name\": \"win\", \"optype\": \"input\", \"tensors_in\": [],"
             " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"w\"}],"
             " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"},"
             "  {\"arg_name\": \"dims\", \"value\": [%d]}]},"
             "{\"name\": \"loss\", \"optype\": \"%s\","
             " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"x\"},"
             "  {\"arg_name\": \"target\", \"name\": \"t\"}%s],"
             " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}%s],"
             " \"params\": [%s]},"
             "{\"name\": \"out\", \"optype\": \"output\","
             " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]}%s]}",
             tdt, tdims, weighted > 0 ? weighted : 3, optype,
             weighted ? ", {\"arg_name\": \"weight\", \"name\": \"w\"}" : "",
             logp ? ", {\"arg_name\": \"log_prob\", \"name\": \"lp\"}" : "", params,
             logp ? ", {\"name\": \"out2\", \"optype\": \"output\","
                    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"lp\"}]}" : "");
    return buf;
}

static const float X[12] = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f,
                             1.0f, 3.0f, -2.0f, 0.0f, 0.5f, -0.5f};
static const int64_t T[4] = {2, 1, 0, 1};      /* [n][d] */
static const float W[3] = {0.5f, 2.0f, 1.5f};

static float x_at(int n, int c, int d)
{
    return X[(n * 3 + c) * 2 + d];
}

static double log_prob(int n, int c, int d)
{
    double s = 0;

    for (int k = 0; k < 3; k++)
        s += exp(x_at(n, k, d));
    return x_at(n, c, d) - log(s);
}

/* runs the model, y [ny]; lp [12] when given */
static void run(const char *m, float *y, size_t ny, float *lp)
{
    ln_context *ctx = ln_context_create();

    ck_assert_msg(ln_context_init_str(ctx, m, "loss.json") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", X, sizeof X), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "t", T, sizeof T), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "w", W, sizeof W), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, ny * sizeof *y), 0);
    if (lp)
        ck_assert_int_eq(ln_context_get_data(ctx, "lp", lp, 12 * sizeof *lp), 0);
    ln_context_free(ctx);
}

START_TEST(test_nll_none_weighted)
{
    float y[4];

    run(model("nll_loss", "int64", "[2, 2]", 3, 0,
              "{\"arg_name\": \"reduction\", \"value\": \"none\"}"), y, 4, NULL);
    for (int n = 0; n < 2; n++)
        for (int d = 0; d < 2; d++) {
            int64_t t = T[n * 2 + d];
            ck_assert_float_eq(y[n * 2 + d], -x_at(n, (int)t, d) * W[t]);
        }
}
END_TEST

/* mean over the elements not ignored (class 1), weighted */
START_TEST(test_sce_mean_ignore_log_prob)
{
    float y, lp[12];
    double sum = 0, wsum = 0;

    run(model("softmax_cross_entropy", "int64", "[2, 2]", 3, 1,
              "{\"arg_name\": \"ignore_index\", \"value\": 1}"), &y, 1, lp);
    for (int n = 0; n < 2; n++)
        for (int d = 0; d < 2; d++) {
            int64_t t = T[n * 2 + d];
            for (int c = 0; c < 3; c++)
                ck_assert_double_eq_tol(lp[(n * 3 + c) * 2 + d], log_prob(n, c, d), 1e-6);
            if (t == 1)
                continue;
            sum += -log_prob(n, (int)t, d) * W[t];
            wsum += W[t];
        }
    ck_assert_double_eq_tol(y, sum / wsum, 1e-6);
}
END_TEST

/* the loss is a scalar unless reduction is none */
START_TEST(test_loss_shapes)
{
    ln_context *ctx = ln_context_create();
    ln_tensor *t;

    ck_assert_msg(ln_context_init_str(ctx, model("nll_loss", "int32", "[2, 2]", 0, 0,
                                                 "{\"arg_name\": \"reduction\", \"value\": \"sum\"}"),
                                      "loss.json") == 0, "%s", ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, 0);
    ln_context_free(ctx);
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, model("softmax_cross_entropy", "int64", "[2, 2]", 0, 1,
                                                 "{\"arg_name\": \"reduction\", \"value\": \"none\"}"),
                                      "loss.json") == 0, "%s", ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, 2);
    ck_assert_int_eq(t->dims[0], 2);
    ck_assert_int_eq(t->dims[1], 2);
    t = ln_context_tensor(ctx, "lp");
    ck_assert_int_eq(t->ndim, 3);
    ck_assert_int_eq(t->dims[1], 3);
    ln_context_free(ctx);
}
END_TEST

static void refused(const char *m, const char *msg)
{
    ln_context *ctx = ln_context_create();

    ck_assert_int_eq(ln_context_init_str(ctx, m, "loss.json"), LN_EOP);
    ck_assert_msg(strstr(ln_error_message(), msg), "'%s' not in '%s'", msg, ln_error_message());
    ln_context_free(ctx);
}

START_TEST(test_loss_refused)
{
    refused(model("nll_loss", "int64", "[2, 3]", 0, 0, ""),
            "loss (nll_loss): 'target' is [2, 3], not 'src' ([2, 3, 2]) without dims[1]");
    refused(model("softmax_cross_entropy", "int64", "[2]", 0, 0, ""),
            "loss (softmax_cross_entropy): 'target' is [2], not 'src' ([2, 3, 2]) without dims[1]");
    refused(model("nll_loss", "float32", "[2, 2]", 0, 0, ""), "loss (nll_loss): 'target' (t)");
    refused(model("nll_loss", "int64", "[2, 2]", 4, 0, ""),
            "loss (nll_loss): 'weight' has 4 elements, 'src' 3 classes (dims[1])");
    refused(model("softmax_cross_entropy", "int64", "[2, 2]", 0, 0,
                  "{\"arg_name\": \"reduction\", \"value\": \"avg\"}"),
            "loss (softmax_cross_entropy): param 'reduction' should be one of 'none', 'sum', "
            "'mean', got 'avg'");
    refused(model("nll_loss", "int64", "[2, 2]", 0, 0,
                  "{\"arg_name\": \"ignore_index\", \"value\": 1.5}"),
            "loss (nll_loss): 'ignore_index' (1.5) is not an integer in the int64 range");
    refused(model("nll_loss", "int64", "[2, 2]", 0, 0,
                  "{\"arg_name\": \"ignore_index\", \"value\": 1e20}"),
            "'ignore_index' (1e+20) is not an integer in the int64 range");
}
END_TEST

Suite *test_ln_op_loss_suite(void);
Suite *test_ln_op_loss_suite(void)
{
    Suite *s = suite_create("ln_op_loss");
    TCase *tc = tcase_create("loss");
    tcase_add_test(tc, test_nll_none_weighted);
    tcase_add_test(tc, test_sce_mean_ignore_log_prob);
    tcase_add_test(tc, test_loss_shapes);
    tcase_add_test(tc, test_loss_refused);
    suite_add_tcase(s, tc);
    return s;
}
