/* test_rt_main.c -- runs every libln_rt kernel suite. */
#include <stdio.h>
#include "rt_test.h"

/* LN_RT_ISA_LIMIT=0|1|2 caps the x86-64 kernels' level
 * (ln_rt_isa_limit): runtime/Makefile's test-dispatch runs each. */
int main(void)
{
    SRunner *sr;
    int failed;
    const char *cap = getenv("LN_RT_ISA_LIMIT");

    if (cap && *cap)
        ln_rt_isa_limit(atoi(cap));
    printf("libln_rt kernels: %s\n", LN_RT_ISA_NAME);
    sr = srunner_create(rt_elementwise_suite());
    srunner_add_suite(sr, rt_conv_suite());
    srunner_add_suite(sr, rt_gemm_suite());
    srunner_add_suite(sr, rt_pool_suite());
    srunner_add_suite(sr, rt_norm_suite());
    srunner_add_suite(sr, rt_movement_suite());
    srunner_add_suite(sr, rt_s8_suite());
    srunner_add_suite(sr, rt_rnn_suite());
    srunner_add_suite(sr, rt_integer_suite());
    srunner_add_suite(sr, rt_resize_suite());
    srunner_add_suite(sr, rt_einsum_suite());
    srunner_add_suite(sr, rt_conv3d_suite());
    srunner_add_suite(sr, rt_loss_suite());
    srunner_add_suite(sr, rt_misc_suite());
    srunner_add_suite(sr, rt_spectral_suite());
    srunner_add_suite(sr, rt_detect_suite());
    srunner_add_suite(sr, rt_dtypes_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
