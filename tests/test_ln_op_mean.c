/*
 * test_ln_op_mean.c -- mean (variadic, like ONNX Mean) through the
 * interpreter: three inputs, values, and inputs of different shapes
 * rejected naming the op.
 */
#include <stdio.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"

#define INPUT(n, d) \
    "{\"name\": \"in" n "\", \"optype\": \"input\", \"tensors_in\": []," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x" n "\"}]," \
    " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"}," \
    "  {\"arg_name\": \"dims\", \"value\": [" d "]}]},"
#define MODEL(d2) "{\"ops\": [" INPUT("0", "2, 3") INPUT("1", "2, 3") INPUT("2", d2) \
    "{\"name\": \"mn\", \"optype\": \"mean\"," \
    " \"tensors_in\": [{\"arg_name\": \"src_0\", \"name\": \"x0\"}," \
    "  {\"arg_name\": \"src_1\", \"name\": \"x1\"}, {\"arg_name\": \"src_2\", \"name\": \"x2\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}]}," \
    "{\"name\": \"out\", \"optype\": \"output\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]}]}"

START_TEST(test_mean)
{
    ln_context *ctx = ln_context_create();
    float a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 6, 5, 4, 3, 2, 1 };
    float c[6] = { 2, -1, 0.5f, 0, 3, 9 }, y[6];

    ck_assert_msg(ln_context_init_str(ctx, MODEL("2, 3"), "mean.json") == 0, "%s",
                  ln_error_message());
    ck_assert_int_eq(ln_context_tensor(ctx, "y")->ndim, 2);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x0", a, sizeof a), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x1", b, sizeof b), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x2", c, sizeof c), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 6; i++)
        ck_assert_double_eq_tol(y[i], (a[i] + b[i] + c[i]) / 3.0, 1e-6);
    ln_context_free(ctx);
}
END_TEST

START_TEST(test_mean_bad_shape)
{
    ln_context *ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, MODEL("3, 2"), "mean.json"), LN_EOP);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "mn (mean)"));
    ln_context_free(ctx);
}
END_TEST

Suite *test_ln_op_mean_suite(void);
Suite *test_ln_op_mean_suite(void)
{
    Suite *s = suite_create("ln_op_mean");
    TCase *tc = tcase_create("mean");
    tcase_add_test(tc, test_mean);
    tcase_add_test(tc, test_mean_bad_shape);
    suite_add_tcase(s, tc);
    return s;
}
