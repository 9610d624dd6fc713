/*
 * test_rt_misc.c -- the small ops of runtime/kernels/misc.c against plain
 * references written here: Compress along a middle axis, with a condition
 * shorter than the axis, of 1- and 8-byte elements; EyeLike of several
 * dtypes and diagonals; ReverseSequence along either axis; MVN against
 * mean and deviation in double over chosen axes (2e-5); Det against a
 * cofactor expansion in double (2e-5 relative), a singular one within 1e-5.
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

START_TEST(test_eyelike)
{
    float f[12];
    double d[12];
    int64_t l[12];
    uint8_t b[12];

    ck_assert_int_eq(ln_rt_eyelike(3, 4, 1, LN_RT_FLOAT32, f), LN_RT_OK);
    ck_assert_int_eq(ln_rt_eyelike(3, 4, -1, LN_RT_FLOAT64, d), LN_RT_OK);
    ck_assert_int_eq(ln_rt_eyelike(3, 4, 0, LN_RT_INT64, l), LN_RT_OK);
    ck_assert_int_eq(ln_rt_eyelike(3, 4, 5, LN_RT_BOOL, b), LN_RT_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            ck_assert(f[i * 4 + j] == (j - i == 1 ? 1.0f : 0.0f));
            ck_assert(d[i * 4 + j] == (j - i == -1 ? 1.0 : 0.0));
            ck_assert(l[i * 4 + j] == (j == i ? 1 : 0));
            ck_assert(b[i * 4 + j] == 0);
        }
    ck_assert_int_eq(ln_rt_eyelike(3, 4, 0, (ln_rt_dtype)99, b), LN_RT_ARG_ERROR);
}
END_TEST

/* [time][batch][inner] and [batch][time][inner], a length beyond time
 * clamped */
START_TEST(test_reverse_sequence)
{
    enum { T = 5, B = 3, I = 2 };
    float x[T * B * I], y[T * B * I];
    const int64_t lens[B] = {2, 5, 9};
    ln_rt_reverse_sequence_args a = {T, B, I, _i};

    for (int i = 0; i < T * B * I; i++)
        x[i] = (float)i;
    ln_rt_reverse_sequence(&a, sizeof(float), lens, x, y);
    for (int t = 0; t < T; t++)
        for (int b = 0; b < B; b++)
            for (int i = 0; i < I; i++) {
                int n = lens[b] > T ? T : (int)lens[b], s = t < n ? n - 1 - t : t;
                int yo = _i ? (b * T + t) * I + i : (t * B + b) * I + i;
                int xo = _i ? (b * T + s) * I + i : (s * B + b) * I + i;
                ck_assert(y[yo] == x[xo]);
            }
}
END_TEST

/* [2][3][4][5] over {0, 2, 3} (ONNX's default), {1} and {3} */
START_TEST(test_mvn)
{
    static const uint32_t masks[] = {0xdu, 0x2u, 0x8u};
    enum { N = 2 * 3 * 4 * 5 };
    ln_rt_reduce_args a = {4, {2, 3, 4, 5, 1, 1, 1, 1}, masks[_i]};
    float x[N], y[N];
    double err = 0.0;
    int c[4];

    rt_fill(x, N, -3.0f, 5.0f, 21u + (uint32_t)_i);
    ln_rt_mvn_f32(&a, x, y);
    for (c[0] = 0; c[0] < 2; c[0]++)
        for (c[1] = 0; c[1] < 3; c[1]++)
            for (c[2] = 0; c[2] < 4; c[2]++)
                for (c[3] = 0; c[3] < 5; c[3]++) {
                    double s = 0.0, s2 = 0.0, m, sd, r;
                    int n = 0, e[4], o = ((c[0] * 3 + c[1]) * 4 + c[2]) * 5 + c[3];
                    /* every element of c's group: the masked axes vary */
                    for (e[0] = 0; e[0] < 2; e[0]++)
                        for (e[1] = 0; e[1] < 3; e[1]++)
                            for (e[2] = 0; e[2] < 4; e[2]++)
                                for (e[3] = 0; e[3] < 5; e[3]++) {
                                    int same = 1;
                                    for (int d = 0; d < 4; d++)
                                        if (!((a.axes_mask >> d) & 1u) && e[d] != c[d])
                                            same = 0;
                                    if (same) {
                                        double v = x[((e[0] * 3 + e[1]) * 4 + e[2]) * 5 + e[3]];
                                        s += v;
                                        s2 += v * v;
                                        n++;
                                    }
                                }
                    m = s / n;
                    sd = sqrt(s2 / n - m * m) + 1e-9;
                    r = (x[o] - m) / sd;
                    err = fmax(err, fabs(y[o] - r) / fmax(fabs(r), 1.0));
                }
    ck_assert_double_le(err, 2e-5);
}
END_TEST

static double cofactor_det(const double *m, int n)
{
    double sub[64], det = 0.0;
    if (n == 1)
        return m[0];
    for (int c = 0; c < n; c++) {
        int k = 0;
        for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++)
                if (j != c)
                    sub[k++] = m[i * n + j];
        det += (c % 2 ? -1.0 : 1.0) * m[c] * cofactor_det(sub, n - 1);
    }
    return det;
}

START_TEST(test_det)
{
    enum { B = 3 };
    int n = 1 + _i;
    float x[B * 25], y[B];
    double m[25];
    void *scratch = malloc(ln_rt_det_scratch_size(n));

    rt_fill(x, (size_t)B * n * n, -2.0f, 2.0f, 31u + (uint32_t)_i);
    if (n > 1)                  /* batch 2: row 1 = 2 * row 0, singular */
        for (int j = 0; j < n; j++)
            x[2 * n * n + n + j] = 2.0f * x[2 * n * n + j];
    ln_rt_det_f32(B, n, x, y, scratch);
    for (int b = 0; b < B; b++) {
        double r;
        for (int i = 0; i < n * n; i++)
            m[i] = x[b * n * n + i];
        r = cofactor_det(m, n);
        if (b == 2 && n > 1)
            ck_assert(fabs(y[b]) <= 1e-5);
        else
            ck_assert_double_le(fabs(y[b] - r) / fmax(fabs(r), 1.0), 2e-5);
    }
    free(scratch);
}
END_TEST

/* NonZero: -0.0 is zero, NaN is not; indices [ndim][n] row-major; ints by value */
START_TEST(test_nonzero)
{
    const float x[6] = {0.0f, -0.0f, 2.0f, NAN, 0.0f, -1.0f};
    const int32_t dims[2] = {2, 3};
    const int64_t want[2][3] = {{0, 1, 1}, {2, 0, 2}};
    const int16_t xi[5] = {0, 256, 0, -1, 1};
    int64_t idx[6], idxi[3];
    ck_assert_uint_eq(ln_rt_nonzero(2, dims, 4, 1, x, NULL), 3);
    ck_assert_uint_eq(ln_rt_nonzero(2, dims, 4, 1, x, idx), 3);
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++)
            ck_assert_int_eq(idx[d * 3 + k], want[d][k]);
    {
        const int32_t d1 = 5;
        ck_assert_uint_eq(ln_rt_nonzero(1, &d1, 2, 0, xi, idxi), 3);
        ck_assert(idxi[0] == 1 && idxi[1] == 3 && idxi[2] == 4);
    }
}
END_TEST

Suite *rt_misc_suite(void)
{
    Suite *s = suite_create("rt_misc");
    TCase *tc = tcase_create("misc");
    tcase_add_test(tc, test_compress);
    tcase_add_test(tc, test_nonzero);
    tcase_add_test(tc, test_eyelike);
    tcase_add_loop_test(tc, test_reverse_sequence, 0, 2);
    tcase_add_loop_test(tc, test_mvn, 0, 3);
    tcase_add_loop_test(tc, test_det, 0, 5);
    suite_add_tcase(s, tc);
    return s;
}
