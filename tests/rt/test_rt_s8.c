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

/* ln_rt_conv2d_nchw_s8 against ln_rt_conv2d_s8 (NHWC, itself checked
 * against TFLite above) on 300 random geometries: strides 1-3, dilations
 * 1-2, asymmetric pads, groups, rows wider than the kernel's 64-pixel
 * pieces, offsets and clamps. */
static uint32_t lcg(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

START_TEST(test_s8_conv_nchw_random)
{
    static int8_t x[32768], xt[32768], w[4096], wt[4096], y[65536], yt[65536];
    static int32_t bias[64], mult[64], shift[64];
    uint32_t seed = 12345;
    int checked = 0;

    for (int t = 0; t < 300; t++) {
        ln_rt_s8_conv_args a;
        int32_t g, cg;
        size_t nx, nw, ny;
        memset(&a, 0, sizeof a);
        g = 1 + (int32_t)(lcg(&seed) % 3);
        cg = 1 + (int32_t)(lcg(&seed) % 3);
        a.n = 1 + (int32_t)(lcg(&seed) % 2);
        a.c = g * cg;
        a.oc = g * (1 + (int32_t)(lcg(&seed) % 3));
        a.h = 1 + (int32_t)(lcg(&seed) % 9);
        a.w = 1 + (int32_t)(lcg(&seed) % (t % 10 == 0 ? 150 : 12));
        a.kh = 1 + (int32_t)(lcg(&seed) % 3);
        a.kw = 1 + (int32_t)(lcg(&seed) % 3);
        a.stride_h = 1 + (int32_t)(lcg(&seed) % 3);
        a.stride_w = 1 + (int32_t)(lcg(&seed) % 3);
        a.dil_h = 1 + (int32_t)(lcg(&seed) % 2);
        a.dil_w = 1 + (int32_t)(lcg(&seed) % 2);
        a.pad_top = (int32_t)(lcg(&seed) % 3);
        a.pad_left = (int32_t)(lcg(&seed) % 3);
        a.group = g;
        a.ch_mult = 1;
        a.oh = (a.h + 2 * a.pad_top - a.dil_h * (a.kh - 1) - 1) / a.stride_h + 1;
        a.ow = (a.w + 2 * a.pad_left - a.dil_w * (a.kw - 1) - 1) / a.stride_w + 1;
        a.input_offset = (int32_t)(lcg(&seed) % 256) - 127;
        a.output_offset = (int32_t)(lcg(&seed) % 256) - 128;
        a.act_min = -128 + (int32_t)(lcg(&seed) % 20);
        a.act_max = 127 - (int32_t)(lcg(&seed) % 20);
        if (a.oh < 1 || a.ow < 1)
            continue;
        nx = (size_t)a.n * a.c * a.h * a.w;
        nw = (size_t)a.oc * cg * a.kh * a.kw;
        ny = (size_t)a.n * a.oc * a.oh * a.ow;
        ck_assert(nx <= sizeof x && nw <= sizeof w && ny <= sizeof y);
        for (size_t i = 0; i < nx; i++)
            x[i] = (int8_t)(lcg(&seed) & 0xff);
        for (size_t i = 0; i < nw; i++)
            w[i] = (int8_t)((int32_t)(lcg(&seed) % 255) - 127);
        for (int32_t o = 0; o < a.oc; o++) {
            bias[o] = (int32_t)(lcg(&seed) % 20001) - 10000;
            mult[o] = (int32_t)(1073741824u + lcg(&seed) % 1073741823u);
            shift[o] = -(int32_t)(lcg(&seed) % 10);
        }
        /* NCHW -> NHWC input, OIHW -> [oc][kh][kw][cg] weights */
        for (int32_t b = 0; b < a.n; b++)
            for (int32_t c = 0; c < a.c; c++)
                for (int32_t i = 0; i < a.h * a.w; i++)
                    xt[((size_t)b * a.h * a.w + i) * a.c + c] = x[((size_t)b * a.c + c) * a.h * a.w + i];
        for (int32_t o = 0; o < a.oc; o++)
            for (int32_t i = 0; i < cg; i++)
                for (int32_t k = 0; k < a.kh * a.kw; k++)
                    wt[((size_t)o * a.kh * a.kw + k) * cg + i] = w[((size_t)o * cg + i) * a.kh * a.kw + k];
        ck_assert_int_eq(ln_rt_conv2d_nchw_s8(&a, x, w, bias, mult, shift, y), LN_RT_OK);
        ck_assert_int_eq(ln_rt_conv2d_s8(&a, xt, wt, bias, mult, shift, yt), LN_RT_OK);
        for (int32_t b = 0; b < a.n; b++)
            for (int32_t o = 0; o < a.oc; o++)
                for (int32_t i = 0; i < a.oh * a.ow; i++)
                    ck_assert_msg(y[((size_t)b * a.oc + o) * a.oh * a.ow + i] ==
                                      yt[((size_t)b * a.oh * a.ow + i) * a.oc + o],
                                  "case %d: output (%d, %d, %d) differs", t, b, o, i);
        checked++;
    }
    ck_assert_int_ge(checked, 200);
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
    tcase_add_test(tc, test_s8_pool_nchw_random);
    tcase_add_test(tc, test_dynamic_quantize);
    suite_add_tcase(s, tc);
    return s;
}
