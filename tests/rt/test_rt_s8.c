/*
 * test_rt_s8.c -- the int8 kernels against TensorFlow Lite's reference
 * outputs, bit for bit: every case of tests/rt/s8/ref (s8_check.c, which
 * the Cortex-M4 tests run too).
 */
#include <stdio.h>
#include <string.h>
#include "rt_test.h"
#include "s8_cases.h"

static char failures[4096];

static void collect(const char *line)
{
    if (strlen(failures) + strlen(line) < sizeof failures)
        strcat(failures, line);
}

START_TEST(test_s8_tflite_reference)
{
    int n, fails;

    failures[0] = '\0';
    fails = s8_check_all(collect, &n);
    printf("int8: %d of %d TensorFlow Lite reference cases bit-exact\n", n - fails, n);
    ck_assert_msg(n >= 80, "only %d int8 reference cases", n);
    ck_assert_msg(fails == 0, "%d of %d int8 cases differ:\n%s", fails, n, failures);
}
END_TEST

/* the requantization itself, on TFLite's corner cases */
START_TEST(test_s8_requantize)
{
    /* the one overflow of the doubling high multiply saturates */
    ck_assert_int_eq(ln_rt_s8_requantize(INT32_MIN, INT32_MIN, 0), INT32_MAX);
    /* x * 0.5 (mult 2^30 is 0.5 in Q31), then / 2: the high multiply
     * rounds halves up (-1.5 -> -1), the shift away from zero (-0.5 -> -1) */
    ck_assert_int_eq(ln_rt_s8_requantize(3, 1 << 30, -1), 1);
    ck_assert_int_eq(ln_rt_s8_requantize(-3, 1 << 30, -1), -1);
    /* double rounding: 5 * 0.25 = 1.25, but 2.5 rounds to 3 first, and 1.5 to 2 */
    ck_assert_int_eq(ln_rt_s8_requantize(5, 1 << 30, -1), 2);
    ck_assert_int_eq(ln_rt_s8_requantize(6, 1 << 30, -1), 2);
    ck_assert_int_eq(ln_rt_s8_requantize(-6, 1 << 30, -1), -2);
    /* a left shift first */
    ck_assert_int_eq(ln_rt_s8_requantize(100, 1 << 30, 2), 200);
}
END_TEST

Suite *rt_s8_suite(void)
{
    Suite *s = suite_create("rt_s8");
    TCase *tc = tcase_create("s8");

    tcase_add_test(tc, test_s8_tflite_reference);
    tcase_add_test(tc, test_s8_requantize);
    suite_add_tcase(s, tc);
    return s;
}
