/*
 * test_ln_op_argmin.c -- argmin through the interpreter: inference with
 * and without keepdims, the default axis 0, values, ties with
 * select_last_index, and a bad axis that names the op.
 */
#include <string.h>
#include <check.h>
#include "ln_interp.h"

#define MODEL(params) "{\"ops\": [" \
    "{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": []," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}]," \
    " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"}," \
    "  {\"arg_name\": \"dims\", \"value\": [3, 4]}]}," \
    "{\"name\": \"am\", \"optype\": \"argmin\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"x\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}]," \
    " \"params\": [" params "]}," \
    "{\"name\": \"out\", \"optype\": \"output\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]}]}"

static const float x[12] = { 3, 1, 4, 1,
                             5, 9, 2, 6,
                             5, 3, 5, 8 };

static void run(const char *model, int ndim, int d0, int64_t *y, size_t n)
{
    ln_context *ctx = ln_context_create();
    ln_tensor *t;

    ck_assert_msg(ln_context_init_str(ctx, model, "argmin.json") == 0, "%s",
                  ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, ndim);
    ck_assert_int_eq(t->dims[0], d0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, n * sizeof *y), 0);
    ln_context_free(ctx);
}

START_TEST(test_argmin_default_axis)
{
    int64_t y[4];
    run(MODEL(""), 2, 1, y, 4); /* axis 0, keepdims: [1, 4] */
    ck_assert_int_eq(y[0], 0);
    ck_assert_int_eq(y[1], 0);
    ck_assert_int_eq(y[2], 1);
    ck_assert_int_eq(y[3], 0);
}
END_TEST

START_TEST(test_argmin_last_axis)
{
    int64_t y[3];
    run(MODEL("{\"arg_name\": \"axis\", \"value\": -1},"
              " {\"arg_name\": \"keepdims\", \"value\": 0}"), 1, 3, y, 3);
    ck_assert_int_eq(y[0], 1);
    ck_assert_int_eq(y[1], 2);
    ck_assert_int_eq(y[2], 1);
    run(MODEL("{\"arg_name\": \"axis\", \"value\": 1},"
              " {\"arg_name\": \"select_last_index\", \"value\": 1}"), 2, 3, y, 3);
    ck_assert_int_eq(y[0], 3);
}
END_TEST

START_TEST(test_argmin_bad_axis)
{
    ln_context *ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, MODEL("{\"arg_name\": \"axis\", \"value\": 2}"),
                                         "argmin.json"), LN_EOP);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "am (argmin)"));
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "axis"));
    ln_context_free(ctx);
}
END_TEST

Suite *test_ln_op_argmin_suite(void);
Suite *test_ln_op_argmin_suite(void)
{
    Suite *s = suite_create("ln_op_argmin");
    TCase *tc = tcase_create("argmin");
    tcase_add_test(tc, test_argmin_default_axis);
    tcase_add_test(tc, test_argmin_last_axis);
    tcase_add_test(tc, test_argmin_bad_axis);
    suite_add_tcase(s, tc);
    return s;
}
