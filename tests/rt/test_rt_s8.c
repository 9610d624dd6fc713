/*
 * test_rt_s8.c -- the int8 kernels against TensorFlow Lite's reference
 * outputs, bit for bit: every case of tests/rt/s8/ref (s8_check.c, which
 * the Cortex-M4 tests run too).
 */
#include <math.h>
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

/* ln_rt_conv2d_nchw_s8 against the plain definition (s8_check.c) on 400
 * random geometries: small convs with groups, strides 1-3, dilations and
 * asymmetric pads, rows wider than the kernel's pieces; depthwise 3x3 at
 * stride 1 and 2; pointwise with up to 40 channels; larger kernels.  The
 * same check runs on the Cortex-M4 (tests/m4), where the DSP kernels take
 * these shapes. */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static void report_line(const char *line)
{
    fputs(line, stderr);
}

START_TEST(test_s8_conv_nchw_random)
{
    int n = 0, fails = s8_check_nchw_random(400, 12345u, report_line, &n);

    ck_assert_int_eq(fails, 0);
    ck_assert_int_ge(n, 300);
}
END_TEST

/* int8 add's fast paths (equal input scales: one add instead of two
 * requantizations; the output's scale too: an integer add) against
 * TFLite's ADD on all 65,536 pairs, 30 argument sets (s8_check.c). */
START_TEST(test_s8_add_equal_scales)
{
    int n = 0, fails = s8_check_add_equal_scales(30, 4242u, report_line, &n);

    ck_assert_int_eq(fails, 0);
    ck_assert_int_eq(n, 90);
}
END_TEST

/* The scratch the Cortex-M4's DSP kernels want (the host's: none): none
 * for 3x3 depthwise, none while
 * two int16 columns of K (4 * K bytes, K rounded up to 4) fit in their
 * 1 KB of stack, 5 * K beyond (the columns and one pixel's int8 taps; a
 * pointwise conv 4 * K, it gathers no taps). */
START_TEST(test_s8_conv_nchw_scratch_size)
{
    ln_rt_s8_conv_args a;

    memset(&a, 0, sizeof a);
    a.n = 1;
    a.c = a.oc = 16;
    a.h = a.w = a.oh = a.ow = 8;
    a.kh = a.kw = 1;
    a.stride_h = a.stride_w = a.dil_h = a.dil_w = 1;
    a.group = 1;
    a.act_min = -128;
    a.act_max = 127;
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 0);
    a.kh = a.kw = 3;
    a.pad_top = a.pad_left = 1;
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 0);      /* K 144 */
    a.c = 32;
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 5 * 288);
    a.c = 30;
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 5 * 272);
    a.c = a.oc = a.group = 32;
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 0);
    a.c = a.oc = 300;
    a.group = 1;
    a.kh = a.kw = 1;
    a.pad_top = a.pad_left = 0;
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_CORTEX_M4, &a), 4 * 300);
    /* the host's kernels use none */
    ck_assert_uint_eq(ln_rt_conv2d_nchw_s8_scratch_size_for(LN_RT_TARGET_HOST, &a), 0);
}
END_TEST

/* ln_rt_maxpool2d_s8 / ln_rt_avgpool2d_s8 (NCHW) against the float
 * kernels on the same values: the float maximum exactly, the float mean
 * rounded half away from zero (sums of int8 are exact in float, and a
 * mean is either a tie or at least 1/(2 count) away from one). */
START_TEST(test_s8_pool_nchw_random)
{
    static int8_t x[8192], y[8192];
    static float xf[8192], yf[8192];
    uint32_t seed = 777;

    for (int t = 0; t < 400; t++) {
        ln_rt_pool2d_args a;
        size_t nx, ny;
        int is_max = t & 1;
        memset(&a, 0, sizeof a);
        a.n = 1 + (int32_t)(lcg(&seed) % 2);
        a.c = 1 + (int32_t)(lcg(&seed) % 3);
        a.h = 1 + (int32_t)(lcg(&seed) % 12);
        a.w = 1 + (int32_t)(lcg(&seed) % 12);
        a.kh = 1 + (int32_t)(lcg(&seed) % 4);
        a.kw = 1 + (int32_t)(lcg(&seed) % 4);
        a.stride_h = 1 + (int32_t)(lcg(&seed) % 3);
        a.stride_w = 1 + (int32_t)(lcg(&seed) % 3);
        a.dil_h = 1 + (int32_t)(lcg(&seed) % 2);
        a.dil_w = 1 + (int32_t)(lcg(&seed) % 2);
        a.pad_top = (int32_t)(lcg(&seed) % (uint32_t)a.kh);
        a.pad_left = (int32_t)(lcg(&seed) % (uint32_t)a.kw);
        a.pad_bottom = (int32_t)(lcg(&seed) % (uint32_t)a.kh);
        a.pad_right = (int32_t)(lcg(&seed) % (uint32_t)a.kw);
        a.count_include_pad = (int)(lcg(&seed) & 1);
        a.oh = (a.h + a.pad_top + a.pad_bottom - a.dil_h * (a.kh - 1) - 1) / a.stride_h + 1;
        a.ow = (a.w + a.pad_left + a.pad_right - a.dil_w * (a.kw - 1) - 1) / a.stride_w + 1;
        if (a.oh < 1 || a.ow < 1)
            continue;
        nx = (size_t)a.n * a.c * a.h * a.w;
        ny = (size_t)a.n * a.c * a.oh * a.ow;
        for (size_t i = 0; i < nx; i++) {
            x[i] = (int8_t)(lcg(&seed) & 0xff);
            xf[i] = x[i];
        }
        if (is_max) {
            ck_assert_int_eq(ln_rt_maxpool2d_s8(&a, x, y), LN_RT_OK);
            ck_assert_int_eq(ln_rt_maxpool2d_f32(&a, xf, yf), LN_RT_OK);
        } else {
            ck_assert_int_eq(ln_rt_avgpool2d_s8(&a, x, y), LN_RT_OK);
            ck_assert_int_eq(ln_rt_avgpool2d_f32(&a, xf, yf), LN_RT_OK);
        }
        for (size_t i = 0; i < ny; i++) {
            float m = yf[i];
            int want = is_max ? (int)m : (int)(m > 0 ? floorf(m + 0.5f) : ceilf(m - 0.5f));
            if (is_max && m < -128)
                want = -128;    /* a window all in the padding */
            ck_assert_msg(y[i] == want, "case %d (%s): output %zu is %d, want %d (%g)", t,
                          is_max ? "max" : "avg", i, y[i], want, (double)m);
        }
    }
}
END_TEST

/* ONNX's DynamicQuantizeLinear example, an all-zero input and a NaN */
#ifndef LN_RT_S8_SINGLE_ROUNDING
START_TEST(test_s8_fixed_point_random)
{
    int n = 0;

    ck_assert_int_eq(s8_check_fixed_point(report_line, &n), 0);
    ck_assert_int_gt(n, 200000);
}
END_TEST
#endif

START_TEST(test_s8_fc_random)
{
    int n = 0;

    ck_assert_int_eq(s8_check_fc_random(200, 4242u, report_line, &n), 0);
    ck_assert_int_ge(n, 150);
}
END_TEST

START_TEST(test_quantize_rounding)
{
    int n = 0;

    ck_assert_int_eq(s8_check_quantize(report_line, &n), 0);
    ck_assert_int_gt(n, 30000);
}
END_TEST

START_TEST(test_dynamic_quantize)
{
    const float x[6] = {0.0f, 2.0f, -3.0f, -2.5f, 1.34f, 0.5f};
    const uint8_t want[6] = {153, 255, 0, 26, 221, 179};
    float z6[6] = {0}, xn[3] = {1.0f, 0.0f, 0.0f}, s;
    uint8_t y[6], zp;

    ln_rt_dynamic_quantize_u8(x, 6, y, &s, &zp);
    ck_assert_msg(fabsf(s - 5.0f / 255.0f) < 1e-8f, "scale %g", (double)s);
    ck_assert_int_eq(zp, 153);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(y[i], want[i]);
    ln_rt_dynamic_quantize_u8(z6, 6, y, &s, &zp);
    ck_assert(s == 0.0f && zp == 0 && y[0] == 0 && y[5] == 0);
    xn[2] = nanf("");
    ln_rt_dynamic_quantize_u8(xn, 3, y, &s, &zp);
    ck_assert(s == 1.0f / 255.0f && zp == 0 && y[0] == 255 && y[2] == 0);
}
END_TEST

Suite *rt_s8_suite(void)
{
    Suite *s = suite_create("rt_s8");
    TCase *tc = tcase_create("s8");

    tcase_add_test(tc, test_s8_tflite_reference);
    tcase_add_test(tc, test_s8_requantize);
    tcase_add_test(tc, test_s8_conv_nchw_random);
    tcase_add_test(tc, test_s8_add_equal_scales);
    tcase_add_test(tc, test_s8_conv_nchw_scratch_size);
    tcase_add_test(tc, test_s8_pool_nchw_random);
    tcase_add_test(tc, test_dynamic_quantize);
    tcase_add_test(tc, test_quantize_rounding);
    tcase_add_test(tc, test_s8_fc_random);
#ifndef LN_RT_S8_SINGLE_ROUNDING
    tcase_add_test(tc, test_s8_fixed_point_random);
#endif
    suite_add_tcase(s, tc);
    return s;
}
