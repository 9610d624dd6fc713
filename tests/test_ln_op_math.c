/*
 * test_ln_op_math.c -- the libm unary ops (sin ... atanh, round, sign) and
 * thresholdedrelu, celu, shrink through the interpreter: shape inference,
 * values against double references, and a bad param that names the op.
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
        "  {\"arg_name\": \"dims\", \"value\": [3, 3]}]},"
        "{\"name\": \"m\", \"optype\": \"%s\","
        " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"x\"}],"
        " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}],"
        " \"params\": [%s]},"
        "{\"name\": \"out\", \"optype\": \"output\","
        " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]}]}", optype, params);
}

static double d_sign(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }
static double d_thr(double v) { return v > 0.5 ? v : 0; }          /* alpha 0.5 */
static double d_celu(double v) { return v > 0 ? v : 2 * expm1(v / 2); } /* alpha 2 */
static double d_shrink(double v) { return v < -0.5 ? v + 0.25 : v > 0.5 ? v - 0.25 : 0; }

typedef struct {
    const char *optype, *params;
    double (*ref)(double);
    float lo, hi;
} math_case;

static const math_case cases[] = {
    { "sin", "", sin, -4, 4 },
    { "cos", "", cos, -4, 4 },
    { "tan", "", tan, -1.2f, 1.2f },
    { "asin", "", asin, -0.9f, 0.9f },
    { "acos", "", acos, -0.9f, 0.9f },
    { "atan", "", atan, -9, 9 },
    { "sinh", "", sinh, -3, 3 },
    { "cosh", "", cosh, -3, 3 },
    { "asinh", "", asinh, -9, 9 },
    { "acosh", "", acosh, 1, 9 },
    { "atanh", "", atanh, -0.9f, 0.9f },
    { "round", "", nearbyint, -4, 4 },
    { "sign", "", d_sign, -4, 4 },
    { "thresholdedrelu", "{\"arg_name\": \"alpha\", \"value\": 0.5}", d_thr, -2, 2 },
    { "celu", "{\"arg_name\": \"alpha\", \"value\": 2}", d_celu, -4, 4 },
    { "shrink", "{\"arg_name\": \"bias\", \"value\": 0.25},"
                " {\"arg_name\": \"lambd\", \"value\": 0.5}", d_shrink, -2, 2 },
};

START_TEST(test_math)
{
    const math_case *c = &cases[_i];
    char buf[2048];
    float x[9], y[9];
    ln_context *ctx = ln_context_create();
    ln_tensor *t;

    for (int i = 0; i < 9; i++) /* the range ends and halves for round */
        x[i] = c->lo + (c->hi - c->lo) * (float)i / 8.0f;
    model(buf, sizeof buf, c->optype, c->params);
    ck_assert_msg(ln_context_init_str(ctx, buf, "m.json") == 0, "%s", ln_error_message());
    t = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(t->ndim, 2);
    ck_assert_int_eq(t->dims[1], 3);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 9; i++) {
        double r = c->ref(x[i]);
        ck_assert_msg(fabs(y[i] - r) <= 2e-6 * (fabs(r) > 1 ? fabs(r) : 1),
                      "%s(%g) = %g, want %g", c->optype, x[i], y[i], r);
    }
    ln_context_free(ctx);
}
END_TEST

START_TEST(test_celu_bad_alpha)
{
    char buf[2048];
    ln_context *ctx = ln_context_create();

    model(buf, sizeof buf, "celu", "{\"arg_name\": \"alpha\", \"value\": 0}");
    ck_assert_int_eq(ln_context_init_str(ctx, buf, "m.json"), LN_EOP);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "m (celu)"));
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "alpha"));
    ln_context_free(ctx);
}
END_TEST

Suite *test_ln_op_math_suite(void);
Suite *test_ln_op_math_suite(void)
{
    Suite *s = suite_create("ln_op_math");
    TCase *tc = tcase_create("math");
    tcase_add_loop_test(tc, test_math, 0, (int)(sizeof(cases) / sizeof(cases[0])));
    tcase_add_test(tc, test_celu_bad_alpha);
    suite_add_tcase(s, tc);
    return s;
}
