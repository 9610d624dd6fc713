/* test_rt_main.c -- runs every libln_rt kernel suite. */
#include <stdio.h>
#include "rt_test.h"

int main(void)
{
    SRunner *sr = srunner_create(rt_elementwise_suite());
    int failed;
    srunner_add_suite(sr, rt_conv_suite());
    srunner_add_suite(sr, rt_gemm_suite());
    srunner_add_suite(sr, rt_pool_suite());
    srunner_add_suite(sr, rt_norm_suite());
    srunner_add_suite(sr, rt_movement_suite());
    srunner_add_suite(sr, rt_s8_suite());
    srunner_add_suite(sr, rt_rnn_suite());
    srunner_add_suite(sr, rt_integer_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
