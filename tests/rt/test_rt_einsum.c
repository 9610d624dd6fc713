/*
 * test_rt_einsum.c -- ln_rt_einsum with stride tables written by hand for
 * equations of each kind (a batched matmul, a transpose with a sum, a
 * diagonal and a trace, an outer product, a broadcast operand), against
 * plain loops in double (int64 for integers).  Tolerance 1e-6 for float32
 * (sums of <= 13 products), 1e-12 for float64, exact for integers.
 */
#include "rt_test.h"

static void args_init(ln_rt_einsum_args *a, int nin, int nout, ln_rt_dtype t)
{
    memset(a, 0, sizeof *a);
    a->nin = nin;
    a->nout = nout;
    a->dtype = t;
}

/* "bij,bjk->bik": indices b i k (output), j (summed) */
START_TEST(test_einsum_batch_matmul)
{
    int B = 2 + _i % 2, I = 3 + _i, J = 5 + 2 * _i, K = 4 + _i % 3;
    float *x = rt_alloc((size_t)B * I * J), *w = rt_alloc((size_t)B * J * K);
    float *y = rt_alloc((size_t)B * I * K);
    ln_rt_einsum_args a;
    double err = 0.0;

    rt_fill(x, (size_t)B * I * J, -1.0f, 1.0f, 1u + _i);
    rt_fill(w, (size_t)B * J * K, -1.0f, 1.0f, 2u + _i);
    args_init(&a, 2, 3, LN_RT_FLOAT32);
    a.nidx = 4;
    a.extent[0] = B; a.extent[1] = I; a.extent[2] = K; a.extent[3] = J;
    a.stride_a[0] = (int64_t)I * J; a.stride_a[1] = J; a.stride_a[2] = 0; a.stride_a[3] = 1;
    a.stride_b[0] = (int64_t)J * K; a.stride_b[1] = 0; a.stride_b[2] = 1; a.stride_b[3] = K;
    ck_assert_int_eq(ln_rt_einsum(&a, x, w, y), LN_RT_OK);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < I; i++)
            for (int k = 0; k < K; k++) {
                double r = 0.0, d;
                for (int j = 0; j < J; j++)
                    r += (double)x[((size_t)b * I + i) * J + j] * w[((size_t)b * J + j) * K + k];
                d = fabs(y[((size_t)b * I + i) * K + k] - r);
                err = d > err ? d : err;
            }
    ck_assert_double_le(err, 1e-6);
    free(x); free(w); free(y);
}
END_TEST

/* float64: "...ii->...i" (a batch of diagonals) and "ii" (a trace);
 * "ij->ji" a transpose */
START_TEST(test_einsum_diagonal)
{
    enum { B = 3, N = 5 };
    double x[B * N * N], y[B * N], t, tr = 0.0;
    ln_rt_einsum_args a;

    for (int i = 0; i < B * N * N; i++)
        x[i] = sin(0.37 * i) * 3.0;
    args_init(&a, 1, 2, LN_RT_FLOAT64);
    a.nidx = 2;
    a.extent[0] = B; a.extent[1] = N;
    a.stride_a[0] = N * N; a.stride_a[1] = N + 1;
    ck_assert_int_eq(ln_rt_einsum(&a, x, NULL, y), LN_RT_OK);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < N; i++)
            ck_assert_double_le(fabs(y[b * N + i] - x[(b * N + i) * N + i]), 1e-12);
    args_init(&a, 1, 0, LN_RT_FLOAT64);
    a.nidx = 1;
    a.extent[0] = N;
    a.stride_a[0] = N + 1;
    ck_assert_int_eq(ln_rt_einsum(&a, x, NULL, &t), LN_RT_OK);
    for (int i = 0; i < N; i++)
        tr += x[i * N + i];
    ck_assert_double_le(fabs(t - tr), 1e-12);
    /* x as [B*N][N], transposed */
    {
        double yt[B * N * N];
        args_init(&a, 1, 2, LN_RT_FLOAT64);
        a.nidx = 2;
        a.extent[0] = N; a.extent[1] = B * N;
        a.stride_a[0] = 1; a.stride_a[1] = N;
        ck_assert_int_eq(ln_rt_einsum(&a, x, NULL, yt), LN_RT_OK);
        for (int i = 0; i < B * N; i++)
            for (int j = 0; j < N; j++)
                ck_assert(yt[j * B * N + i] == x[i * N + j]);
    }
}
END_TEST

/* integers: "ij->j" (int32 column sums, wrapping past 2^31), "i,j->ij"
 * (int64 outer product); a broadcast operand: "ij,j->ij" with b [1] */
START_TEST(test_einsum_int_bcast)
{
    int32_t m[12], cs[4];
    int64_t u[3] = {3, -7, 1LL << 40}, v[2] = {5, -2}, o[6];
    float p[6], q[1] = {2.5f}, r[6];
    ln_rt_einsum_args a;

    for (int i = 0; i < 12; i++)
        m[i] = i == 4 ? INT32_MAX : i * 3 - 7;
    args_init(&a, 1, 1, LN_RT_INT32);
    a.nidx = 2;
    a.extent[0] = 4; a.extent[1] = 3;
    a.stride_a[0] = 1; a.stride_a[1] = 4;
    ck_assert_int_eq(ln_rt_einsum(&a, m, NULL, cs), LN_RT_OK);
    for (int j = 0; j < 4; j++)
        ck_assert_int_eq(cs[j], (int32_t)(uint32_t)((int64_t)m[j] + m[4 + j] + m[8 + j]));
    args_init(&a, 2, 2, LN_RT_INT64);
    a.nidx = 2;
    a.extent[0] = 3; a.extent[1] = 2;
    a.stride_a[0] = 1; a.stride_b[1] = 1;
    ck_assert_int_eq(ln_rt_einsum(&a, u, v, o), LN_RT_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            ck_assert(o[i * 2 + j] == u[i] * v[j]);
    rt_fill(p, 6, -1.0f, 1.0f, 9u);
    args_init(&a, 2, 2, LN_RT_FLOAT32);
    a.nidx = 2;
    a.extent[0] = 2; a.extent[1] = 3;
    a.stride_a[0] = 3; a.stride_a[1] = 1;
    ck_assert_int_eq(ln_rt_einsum(&a, p, q, r), LN_RT_OK);
    for (int i = 0; i < 6; i++)
        ck_assert(r[i] == p[i] * 2.5f);
    /* bad args */
    a.nin = 3;
    ck_assert_int_eq(ln_rt_einsum(&a, p, q, r), LN_RT_ARG_ERROR);
}
END_TEST

Suite *rt_einsum_suite(void)
{
    Suite *s = suite_create("rt_einsum");
    TCase *tc = tcase_create("einsum");
    tcase_add_loop_test(tc, test_einsum_batch_matmul, 0, 4);
    tcase_add_test(tc, test_einsum_diagonal);
    tcase_add_test(tc, test_einsum_int_bcast);
    suite_add_tcase(s, tc);
    return s;
}
