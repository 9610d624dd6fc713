/*
 * test_ln_op_reduce_ext.c -- reduce_l1/l2/logsum/logsumexp/prod/sumsquare
 * through the interpreter: inference (axes, keepdims), values against
 * double references, and a bad 'axes' that names the op.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"

static void model(char *buf, size_t size, const char *optype, const char *params)
{
    snprintf(buf, size, "{\"ops\": ["
        "{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": [],"
        " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}],"
        " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"},"
        "  {\"arg_name\": \"dims\", \"value\": [2, 3]}]},"
        "{\"name\": \"r\", \"optype\": \"%s\","
        " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"x\"}],"
        " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}],"
        " \"params\": [%s]},"
        "{\"name\": \"out\", \"optype\": \"output\","
        " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]}]}", optype, params);
}

static const float x[6] = { 1, -2, 3, 0.5f, 2, -1.5f };

static double ref(int op, const double *v, int n)
{
    double s = op == 4 ? 1 : 0, m = -INFINITY;
    for (int i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    for (int i = 0; i < n; i++)
        switch (op) {
        case 0: s += fabs(v[i]); break;
        case 1: case 5: s += v[i] * v[i]; break;
        case 2: s += fabs(v[i]); break; /* logsum of |x| (see below) */
        case 3: s += exp(v[i] - m); break;
        default: s *= v[i]; break;
        }
    return op == 1 ? sqrt(s) : op == 2 ? log(s) : op == 3 ? m + log(s) : s;
}

static const char *const optypes[] = {
    "reduce_l1", "reduce_l2", "reduce_logsum", "reduce_logsumexp",
    "reduce_prod", "reduce_sumsquare"
};

START_TEST(test_reduce_ext)
{
    char buf[2048];
    float in[6], y[3];
    ln_context *ctx;
    ln_tensor *t;

    for (int i = 0; i < 6; i++) /* logsum needs positive sums */
        in[i] = _i == 2 ? fabsf(x[i]) : x[i];
    /* over axis 0, keepdims 0: [3] */
    model(buf, sizeof buf, optypes[_i],
          "{\"arg_name\": \"axes\", \"value\": [0]}, {\"arg_name\": \"keepdims\", \"value\": 0}");
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, buf, "r.json") == 0, "%s", ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, 1);
    ck_assert_int_eq(t->dims[0], 3);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", in, sizeof in), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int j = 0; j < 3; j++) {
        double v[2] = { in[j], in[3 + j] }, r = ref(_i, v, 2);
        ck_assert_double_eq_tol(y[j], r, 2e-6 * (fabs(r) > 1 ? fabs(r) : 1));
    }
    ln_context_free(ctx);

    /* every axis (the default), keepdims: [1, 1] */
    model(buf, sizeof buf, optypes[_i], "");
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, buf, "r.json") == 0, "%s", ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, 2);
    ck_assert_int_eq(t->dims[0], 1);
    ck_assert_int_eq(t->dims[1], 1);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", in, sizeof in), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof(float)), 0);
    {
        double v[6], r;
        for (int i = 0; i < 6; i++)
            v[i] = in[i];
        r = ref(_i, v, 6);
        ck_assert_double_eq_tol(y[0], r, 2e-6 * (fabs(r) > 1 ? fabs(r) : 1));
    }
    ln_context_free(ctx);
}
END_TEST

START_TEST(test_reduce_ext_bad_axes)
{
    char buf[2048];
    ln_context *ctx = ln_context_create();

    model(buf, sizeof buf, "reduce_l2", "{\"arg_name\": \"axes\", \"value\": [2]}");
    ck_assert_int_eq(ln_context_init_str(ctx, buf, "r.json"), LN_EOP);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "r (reduce_l2)"));
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "'axes'"));
    ln_context_free(ctx);
}
END_TEST

Suite *test_ln_op_reduce_ext_suite(void);
Suite *test_ln_op_reduce_ext_suite(void)
{
    Suite *s = suite_create("ln_op_reduce_ext");
    TCase *tc = tcase_create("reduce_ext");
    tcase_add_loop_test(tc, test_reduce_ext, 0, 6);
    tcase_add_test(tc, test_reduce_ext_bad_axes);
    suite_add_tcase(s, tc);
    return s;
}
