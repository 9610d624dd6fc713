/*
 * test_ln_op_softsign.c -- softsign through the interpreter: inference,
 * values against libm, and a bad input that names the op.
 */
#include <math.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"

#define MODEL(dtype) "{\"ops\": [" \
    "{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": []," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}]," \
    " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"" dtype "\"}," \
    "  {\"arg_name\": \"dims\", \"value\": [7, 5]}]}," \
    "{\"name\": \"ss\", \"optype\": \"softsign\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"x\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}]}," \
    "{\"name\": \"out\", \"optype\": \"output\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]}]}"

START_TEST(test_softsign)
{
    ln_context *ctx = ln_context_create();
    float x[35], y[35];
    ln_tensor *t;

    for (int i = 0; i < 35; i++)
        x[i] = (float)(i - 17) * 0.75f;
    ck_assert_msg(ln_context_init_str(ctx, MODEL("float32"), "softsign.json") == 0, "%s",
                  ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, 2);
    ck_assert_int_eq(t->dims[0], 7);
    ck_assert_int_eq(t->dims[1], 5);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 35; i++)
        ck_assert_double_eq_tol(y[i], x[i] / (1.0 + fabs(x[i])), 2e-7);
    ln_context_free(ctx);
}
END_TEST

START_TEST(test_softsign_bad_dtype)
{
    ln_context *ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, MODEL("int32"), "softsign.json"), LN_EOP);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "ss (softsign): 'src' (x) should be float32"));
    ln_context_free(ctx);
}
END_TEST

Suite *test_ln_op_softsign_suite(void);
Suite *test_ln_op_softsign_suite(void)
{
    Suite *s = suite_create("ln_op_softsign");
    TCase *tc = tcase_create("softsign");
    tcase_add_test(tc, test_softsign);
    tcase_add_test(tc, test_softsign_bad_dtype);
    suite_add_tcase(s, tc);
    return s;
}
