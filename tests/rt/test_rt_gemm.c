/*
 * test_rt_gemm.c -- ONNX Gemm (transA/B, alpha, beta, C broadcast, fused
 * activation) and batched broadcast MatMul against naive double references.
 * Sizes cover micro-kernel tails (7x5x3) and every cache-block edge
 * (M > MC = 120, N > NC = 192, K > KC = 256), and M = 1 (the gemv path).
 * Tolerance: 3e-5 max rel err (K <= 300 products of values in [-1, 1]).
 */
#include "rt_test.h"

typedef struct {
    int32_t m, n, k;
    int ta, tb;
    float alpha, beta;
    int32_t cr, cc;     /* C shape; 0 = no C */
    ln_rt_act act;
} gemm_case;

static const gemm_case gcases[] = {
    { 7, 5, 3, 0, 0, 1.0f, 1.0f, 7, 5, LN_RT_ACT_NONE },
    { 7, 5, 3, 1, 0, 0.5f, 2.0f, 1, 5, LN_RT_ACT_NONE },
    { 7, 5, 3, 0, 1, 1.0f, 1.0f, 7, 1, LN_RT_ACT_RELU },
    { 7, 5, 3, 1, 1, -1.5f, 0.5f, 1, 1, LN_RT_ACT_NONE },
    { 1, 1, 1, 0, 0, 1.0f, 1.0f, 0, 0, LN_RT_ACT_NONE },
    { 13, 17, 19, 0, 1, 1.0f, 0.0f, 13, 17, LN_RT_ACT_NONE },
    { 130, 200, 300, 0, 0, 1.0f, 1.0f, 1, 200, LN_RT_ACT_RELU6 },
    { 130, 200, 300, 1, 1, 0.7f, 1.0f, 130, 200, LN_RT_ACT_NONE },
    { 2, 1000, 64, 0, 1, 1.0f, 1.0f, 1, 1000, LN_RT_ACT_NONE },
    { 3, 4, 0, 0, 0, 1.0f, 1.0f, 1, 4, LN_RT_ACT_NONE },
    /* N tails of 32-wide panels (8, 17, 48 + 1), M tails of MR 8 */
    { 9, 200, 40, 0, 0, 1.0f, 0.0f, 0, 0, LN_RT_ACT_NONE },
    { 17, 17, 129, 1, 1, 1.0f, 1.0f, 17, 1, LN_RT_ACT_CLIP },
    { 25, 49, 260, 0, 1, 2.0f, 0.5f, 1, 49, LN_RT_ACT_LEAKYRELU },
    { 25, 49, 260, 0, 1, 2.0f, 0.5f, 1, 49, LN_RT_ACT_SILU },
    { 9, 203, 40, 0, 0, 1.0f, 0.0f, 0, 0, LN_RT_ACT_SILU },
    /* M = 1 takes the one-row (gemv) path */
    { 1, 7, 3, 0, 1, 1.0f, 0.0f, 0, 0, LN_RT_ACT_NONE },
    { 1, 13, 47, 0, 1, 1.0f, 0.0f, 0, 0, LN_RT_ACT_NONE },
    { 1, 130, 640, 0, 1, 1.0f, 1.0f, 1, 130, LN_RT_ACT_RELU },
    { 1, 130, 640, 0, 1, 1.0f, 1.0f, 1, 130, LN_RT_ACT_SILU },
    { 1, 37, 33, 0, 0, 0.5f, 1.0f, 1, 37, LN_RT_ACT_NONE },
    { 1, 1000, 515, 0, 1, 0.5f, 1.0f, 1, 1000, LN_RT_ACT_RELU },
    { 1, 37, 19, 1, 0, 1.0f, 2.0f, 1, 1, LN_RT_ACT_NONE },
    { 1, 9, 7, 0, 0, -1.0f, 0.0f, 0, 0, LN_RT_ACT_LEAKYRELU },
};

START_TEST(test_gemm_cases)
{
    const gemm_case *g = &gcases[_i];
    ln_rt_gemm_args a;
    size_t na = (size_t)g->m * g->k, nb = (size_t)g->k * g->n;
    size_t ny = (size_t)g->m * g->n, nc = (size_t)g->cr * g->cc;
    float *A = rt_alloc(na), *B = rt_alloc(nb), *C = rt_alloc(nc);
    float *Y = rt_alloc(ny), *Yc = rt_alloc(ny);
    double *ref = rt_allocd(ny);
    void *scr;
    int32_t i, j, p;

    rt_fill(A, na, -1, 1, 31 + _i);
    rt_fill(B, nb, -1, 1, 32 + _i);
    rt_fill(C, nc, -1, 1, 33 + _i);
    for (i = 0; i < g->m; i++)
        for (j = 0; j < g->n; j++) {
            double s = 0.0;
            for (p = 0; p < g->k; p++) {
                double av = g->ta ? A[(size_t)p * g->m + i]
                                  : A[(size_t)i * g->k + p];
                double bv = g->tb ? B[(size_t)j * g->k + p]
                                  : B[(size_t)p * g->n + j];
                s += av * bv;
            }
            s *= g->alpha;
            if (g->cr)
                s += (double)g->beta *
                     C[(size_t)(g->cr == 1 ? 0 : i) * g->cc +
                       (g->cc == 1 ? 0 : j)];
            ref[(size_t)i * g->n + j] = rt_act(s, g->act, 0.1, 0.8);
        }
    memset(&a, 0, sizeof(a));
    a.m = g->m; a.n = g->n; a.k = g->k; a.trans_a = g->ta;
    a.trans_b = g->tb; a.alpha = g->alpha; a.beta = g->beta;
    a.c_rows = g->cr; a.c_cols = g->cc; a.act = g->act;
    a.act_alpha = 0.1f; a.act_beta = 0.8f;
    scr = rt_scratch(ln_rt_gemm_f32_scratch_size(&a));
    if (g->m == 1) { /* the one-row path takes no scratch */
        ck_assert_uint_eq(ln_rt_gemm_f32_scratch_size(&a), 0);
        free(scr);
        scr = NULL;
    }
    rt_fill(Y, ny, 50, 60, 1);
    ck_assert_int_eq(ln_rt_gemm_f32(&a, A, B, g->cr ? C : NULL, Y, scr),
                     LN_RT_OK);
    RT_CHECK(Y, ref, ny, 3e-5, "gemm (build ISA)");
    rt_fill(Yc, ny, 50, 60, 2);
    ck_assert_int_eq(ln_rt__gemm_f32_isa(&ln_rt__gemm_isa_c, &a, A, B,
                                         g->cr ? C : NULL, Yc, scr),
                     LN_RT_OK);
    RT_CHECK(Yc, ref, ny, 3e-5, "gemm (portable)");
    ck_assert_msg(rt_err_ff(Y, Yc, ny) <= 3e-5, "ISA vs portable");
    {
        int isa;
        for (isa = 1; isa < RT_NISA; isa++) {
            rt_fill(Y, ny, 50, 60, 3);
            ck_assert_int_eq(ln_rt__gemm_f32_isa(rt_isas[isa], &a, A, B,
                                                 g->cr ? C : NULL, Y, scr),
                             LN_RT_OK);
            RT_CHECK(Y, ref, ny, 3e-5, "gemm (ISA list)");
            ck_assert_msg(rt_err_ff(Y, Yc, ny) <= 3e-5, "ISA %d vs portable",
                          isa);
        }
    }
    free(A); free(B); free(C); free(Y); free(Yc); free(ref); free(scr);
}
END_TEST

/* Y may be C itself when C is M x N (in-place bias) */
START_TEST(test_gemm_inplace_c)
{
    ln_rt_gemm_args a;
    float A[6], B[12], Y[8];
    double ref[8];
    void *scr;
    int i, j, p;
    rt_fill(A, 6, -1, 1, 5);
    rt_fill(B, 12, -1, 1, 6);
    rt_fill(Y, 8, -1, 1, 7);
    for (i = 0; i < 2; i++)
        for (j = 0; j < 4; j++) {
            double s = 0;
            for (p = 0; p < 3; p++)
                s += (double)A[i * 3 + p] * B[p * 4 + j];
            ref[i * 4 + j] = s + 2.0 * Y[i * 4 + j];
        }
    memset(&a, 0, sizeof(a));
    a.m = 2; a.n = 4; a.k = 3; a.alpha = 1; a.beta = 2; a.c_rows = 2;
    a.c_cols = 4;
    scr = rt_scratch(ln_rt_gemm_f32_scratch_size(&a));
    ck_assert_int_eq(ln_rt_gemm_f32(&a, A, B, Y, Y, scr), LN_RT_OK);
    RT_CHECK(Y, ref, 8, 1e-6, "gemm Y == C");
    a.c_rows = 3;
    ck_assert_int_eq(ln_rt_gemm_f32(&a, A, B, Y, Y, scr), LN_RT_ARG_ERROR);
    free(scr);
}
END_TEST

typedef struct {
    int nd;
    int32_t ad[4], bd[4];
} mm_case;

static const mm_case mcases[] = {
    { 2, { 7, 3 }, { 3, 5 } },
    { 3, { 2, 7, 3 }, { 1, 3, 5 } },
    { 4, { 2, 3, 5, 4 }, { 1, 1, 4, 6 } },
    { 4, { 1, 3, 5, 4 }, { 2, 1, 4, 6 } },
    { 3, { 3, 1, 9 }, { 3, 9, 1 } },
    { 2, { 33, 129 }, { 129, 70 } },
    { 2, { 1, 130 }, { 130, 7 } },
    { 3, { 2, 1, 9 }, { 2, 9, 5 } },
};

START_TEST(test_matmul_cases)
{
    const mm_case *c = &mcases[_i];
    ln_rt_matmul_args a;
    int nd = c->nd, d;
    int32_t m = c->ad[nd - 2], k = c->ad[nd - 1], n = c->bd[nd - 1];
    size_t na = 1, nb = 1, ny = 1, batches = 1, bi;
    float *A, *B, *Y;
    double *ref;
    void *scr;

    memset(&a, 0, sizeof(a));
    a.ndim = nd;
    for (d = 0; d < nd; d++) {
        a.a_dims[d] = c->ad[d];
        a.b_dims[d] = c->bd[d];
        a.y_dims[d] = d < nd - 2 ? (c->ad[d] > c->bd[d] ? c->ad[d]
                                                        : c->bd[d])
                                 : (d == nd - 2 ? m : n);
        na *= (size_t)c->ad[d];
        nb *= (size_t)c->bd[d];
        ny *= (size_t)a.y_dims[d];
        if (d < nd - 2)
            batches *= (size_t)a.y_dims[d];
    }
    A = rt_alloc(na); B = rt_alloc(nb); Y = rt_alloc(ny);
    ref = rt_allocd(ny);
    rt_fill(A, na, -1, 1, 41 + _i);
    rt_fill(B, nb, -1, 1, 42 + _i);
    for (bi = 0; bi < batches; bi++) {
        /* decompose the batch index over y's leading dims */
        size_t rem = bi, oa = 0, ob = 0, sa = 1, sb = 1;
        int32_t i, j, p;
        for (d = nd - 3; d >= 0; d--) {
            size_t idx = rem % (size_t)a.y_dims[d];
            rem /= (size_t)a.y_dims[d];
            oa += (c->ad[d] == 1 ? 0 : idx) * sa;
            ob += (c->bd[d] == 1 ? 0 : idx) * sb;
            sa *= (size_t)c->ad[d];
            sb *= (size_t)c->bd[d];
        }
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                double s = 0;
                for (p = 0; p < k; p++)
                    s += (double)A[(oa * m + i) * k + p] *
                         B[(ob * k + p) * n + j];
                ref[(bi * m + i) * n + j] = s;
            }
    }
    scr = rt_scratch(ln_rt_matmul_f32_scratch_size(&a));
    ck_assert_int_eq(ln_rt_matmul_f32(&a, A, B, Y, scr), LN_RT_OK);
    RT_CHECK(Y, ref, ny, 3e-5, "matmul");
    free(A); free(B); free(Y); free(ref); free(scr);
}
END_TEST

Suite *rt_gemm_suite(void)
{
    Suite *s = suite_create("rt_gemm");
    TCase *tc = tcase_create("gemm");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_gemm_cases, 0,
                        (int)(sizeof(gcases) / sizeof(gcases[0])));
    tcase_add_test(tc, test_gemm_inplace_c);
    tcase_add_loop_test(tc, test_matmul_cases, 0,
                        (int)(sizeof(mcases) / sizeof(mcases[0])));
    suite_add_tcase(s, tc);
    return s;
}
