/*
 * test_rt_misc.c -- the small ops of runtime/kernels/misc.c against plain
 * references written here: Compress along a middle axis, with a condition
 * shorter than the axis, of 1- and 8-byte elements.
 */
#include "rt_test.h"

START_TEST(test_compress)
{
    enum { O = 3, L = 5, I = 2 };
    int64_t x[O * L * I], y[O * L * I];
    uint8_t b[7] = {1, 2, 3, 4, 5, 6, 7}, bc[7];
    const int cond[4] = {1, 0, 0, 1};          /* shorter than L: 3, 4 dropped */
    const int all[7] = {0, 1, 1, 0, 1, 0, 1};
    ln_rt_compress_args a = {O, L, I};
    int k = 0;

    for (int i = 0; i < O * L * I; i++)
        x[i] = (int64_t)i * 1000003LL - (1LL << 40);
    ln_rt_compress(&a, cond, 4, sizeof(int64_t), x, y);
    for (int o = 0; o < O; o++)
        for (int j = 0; j < 4; j++)
            if (cond[j])
                for (int i = 0; i < I; i++, k++)
                    ck_assert(y[k] == x[(o * L + j) * I + i]);
    ck_assert_int_eq(k, O * 2 * I);
    a.outer = a.inner = 1;
    a.len = 7;
    ln_rt_compress(&a, all, 7, 1, b, bc);
    ck_assert(bc[0] == 2 && bc[1] == 3 && bc[2] == 5 && bc[3] == 7);
}
END_TEST

Suite *rt_misc_suite(void)
{
    Suite *s = suite_create("rt_misc");
    TCase *tc = tcase_create("misc");
    tcase_add_test(tc, test_compress);
    suite_add_tcase(s, tc);
    return s;
}
