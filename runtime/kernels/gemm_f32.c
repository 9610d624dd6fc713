/*
 * gemm_f32.c -- the blocked GEMM engine behind conv2d, gemm and matmul, its
 * portable 4x4 micro-kernel, and the ONNX Gemm and MatMul kernels.
 *
 * The engine follows the GotoBLAS/BLIS structure with the loop order
 * pc (KC) > jc (NC) > jr (NR) > ir (MR): for each k block all M rows of A
 * are packed once into MR-high row panels (M x KC, in L2), then B is packed
 * one KC x NC block at a time (for conv2d the packer reads the image
 * directly, so there is no im2col buffer), and a register-tiled
 * micro-kernel multiplies one A panel by one B panel (in L1) into an
 * MR x NR tile of C. Packing A once per k block, instead of once per
 * (k block, n block), matters for convolutions, where N = oh*ow is large
 * and M = output channels small. Block sizes are shared by every ISA so
 * that scratch sizes do not depend on the build.
 */
#include <string.h>
#include "ln_rt_internal.h"

static int32_t imin(int32_t a, int32_t b) { return a < b ? a : b; }
static int32_t roundup(int32_t a, int32_t m) { return (a + m - 1) / m * m; }

/* Packed A: all M rows of one k block, or with A read in place only the
 * last partial panel (< 24 rows); packed B: one KC x NC block, or with B
 * read in place only the last partial panel (16 columns); + 16 floats to
 * align B to a cache line. Uses the lcm of all MR (24) and NR (16), so the
 * size is the same for every ISA. */
size_t ln_rt__gemm_scratch_floats(int32_t m, int32_t n, int32_t k,
                                  int a_direct, int b_direct)
{
    size_t kc = (size_t)imin(k, LN_RT_GEMM_KC);
    if (m <= 0 || n <= 0 || k <= 0)
        return 0;
    return (a_direct ? 24 : (size_t)roundup(m, 24)) * kc +
           (b_direct ? 16 : (size_t)roundup(imin(n, LN_RT_GEMM_NC), 16)) * kc +
           16;
}

/* ---- portable 4x4 micro-kernel (the reference and the Cortex-M path) --- */
static void ukr_c(int32_t kc, const float *ap, int32_t lda, const float *bp,
                  int32_t ldb, float *c,
                  int32_t ldc, int mv, int nv, int first, int last,
                  const float *bias, ln_rt_act act, float alpha, float beta)
{
    float c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0,
          c13 = 0, c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0,
          c32 = 0, c33 = 0;
    float t[4][4];
    int32_t p;
    int i, j;

    /* packed: element (r, p) at p * 4 + r; in place: at r * lda + p */
    ptrdiff_t rs = lda ? lda : 1, ks = lda ? 1 : 4;
    for (p = 0; p < kc; p++) {
        float a0 = ap[0], a1 = ap[rs], a2 = ap[2 * rs], a3 = ap[3 * rs];
        float b0 = bp[0], b1 = bp[1], b2 = bp[2], b3 = bp[3];
        c00 += a0 * b0; c01 += a0 * b1; c02 += a0 * b2; c03 += a0 * b3;
        c10 += a1 * b0; c11 += a1 * b1; c12 += a1 * b2; c13 += a1 * b3;
        c20 += a2 * b0; c21 += a2 * b1; c22 += a2 * b2; c23 += a2 * b3;
        c30 += a3 * b0; c31 += a3 * b1; c32 += a3 * b2; c33 += a3 * b3;
        ap += ks;
        bp += ldb;
    }
    t[0][0] = c00; t[0][1] = c01; t[0][2] = c02; t[0][3] = c03;
    t[1][0] = c10; t[1][1] = c11; t[1][2] = c12; t[1][3] = c13;
    t[2][0] = c20; t[2][1] = c21; t[2][2] = c22; t[2][3] = c23;
    t[3][0] = c30; t[3][1] = c31; t[3][2] = c32; t[3][3] = c33;
    for (i = 0; i < mv; i++) {
        float *cr = c + (ptrdiff_t)i * ldc;
        for (j = 0; j < nv; j++) {
            float v = t[i][j];
            if (!first)
                v += cr[j];
            if (last) {
                if (bias)
                    v += bias[i];
                v = ln_rt__act1(v, act, alpha, beta);
            }
            cr[j] = v;
        }
    }
}

#if defined(__ARM_ARCH_7EM__) && defined(__ARM_FP)
/* the Cortex-M4's one-row product (arm/gemv_f32_m4.c) */
const ln_rt__gemm_isa ln_rt__gemm_isa_c = { 4, 4, LN_RT_GEMM_KC, ukr_c,
                                            ln_rt__gemv_m4 };
#else
const ln_rt__gemm_isa ln_rt__gemm_isa_c = { 4, 4, LN_RT_GEMM_KC, ukr_c,
                                            ln_rt__gemv_c };
#endif

const ln_rt__gemm_isa *ln_rt__gemm_isa_default(void)
{
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512)
        return &ln_rt__gemm_isa_avx512;
#endif
#if LN_RT_HAVE_AVX2
    if (LN_RT_CPU_AVX2)
        return &ln_rt__gemm_isa_avx2;
#endif
    return &ln_rt__gemm_isa_c;
}

/* ---- driver ----------------------------------------------------------- */
/* one B panel (kc x nv at bpp, rows ldb apart) times every A panel */
static void run_panel(const ln_rt__gemm_isa *isa, const ln_rt__gemm_src *s,
                      int32_t m, int32_t kc, int32_t pc, const float *pa,
                      const float *bpp, int32_t ldb, float *c, int32_t ldc,
                      int nv, int first, int last, const float *bias,
                      ln_rt_act act, float alpha, float beta)
{
    const int mr = isa->mr;
    int32_t ir;
    for (ir = 0; ir < m; ir += mr) {
        int mv = (int)imin(mr, m - ir);
        int direct = s->a_direct && mv == mr;
        isa->ukr(kc,
                 direct ? s->a_direct + (ptrdiff_t)ir * s->a_ld + pc
                 : s->a_direct ? pa : pa + (size_t)ir * kc,
                 direct ? s->a_ld : 0, bpp, ldb, c + (ptrdiff_t)ir * ldc,
                 ldc, mv, nv, first, last, bias ? bias + ir : NULL, act,
                 alpha, beta);
    }
}

void ln_rt__gemm_run(const ln_rt__gemm_isa *isa, const ln_rt__gemm_src *s,
                     int32_t m, int32_t n, int32_t k, float *c, int32_t ldc,
                     int accumulate, const float *bias, ln_rt_act act,
                     float alpha, float beta, float *scratch)
{
    const int mr = isa->mr, nr = isa->nr;
    const int32_t kcb = isa->kc;
    float *pa = scratch, *pb;
    int32_t jc, pc, ic, jr;

    if (m <= 0 || n <= 0)
        return;
    if (k <= 0) { /* empty sum: C = (accumulate ? C : 0) + bias, act */
        for (ic = 0; ic < m; ic++) {
            float *cr = c + (ptrdiff_t)ic * ldc;
            for (jc = 0; jc < n; jc++) {
                float v = accumulate ? cr[jc] : 0.0f;
                if (bias)
                    v += bias[ic];
                cr[jc] = ln_rt__act1(v, act, alpha, beta);
            }
        }
        return;
    }
    pb = pa + (s->a_direct ? 24 : (size_t)roundup(m, 24)) *
              (size_t)imin(k, LN_RT_GEMM_KC);
    pb = (float *)(((uintptr_t)pb + 63) & ~(uintptr_t)63);
    for (pc = 0; pc < k; pc += kcb) {
        int32_t kc = imin(kcb, k - pc);
        int first = pc == 0 && !accumulate;
        int last = pc + kc >= k;
        /* all of A's rows for this k block, packed once (or, when A is
         * read in place, only the last partial panel) */
        if (s->a_direct) {
            if (m % mr)
                s->pack_a(s->actx, m - m % mr, m % mr, pc, kc, mr,
                          pa);
        } else {
            for (ic = 0; ic < m; ic += LN_RT_GEMM_MC)
                s->pack_a(s->actx, ic, imin(LN_RT_GEMM_MC, m - ic), pc, kc,
                          mr, pa + (size_t)ic * kc);
        }
        for (jc = 0; jc < n; jc += LN_RT_GEMM_NC) {
            int32_t nc = imin(LN_RT_GEMM_NC, n - jc);
            int32_t ldb = s->b_rowmajor ? LN_RT_GEMM_LDB(nc) : nr;
            if (!s->b_direct)
                s->pack_b(s->bctx, pc, kc, jc, nc, nr, pb);
            for (jr = 0; jr < nc; jr += nr) {
                int nv = (int)imin(nr, nc - jr);
                float *cp = c + jc + jr;
                if (s->b_direct) {
                    /* whole 16-column groups in place, the rest (< 16
                     * columns, the only part scratch has room for)
                     * packed */
                    const int nd = nv == nr ? nv : nv / 16 * 16;
                    if (nd > 0)
                        run_panel(isa, s, m, kc, pc, pa,
                                  s->b_direct + (ptrdiff_t)pc * s->b_ld +
                                      jc + jr,
                                  s->b_ld, cp, ldc, nd, first, last, bias,
                                  act, alpha, beta);
                    if (nv > nd) {
                        s->pack_b(s->bctx, pc, kc, jc + jr + nd, nv - nd,
                                  nr, pb);
                        run_panel(isa, s, m, kc, pc, pa, pb, 16, cp + nd,
                                  ldc, nv - nd, first, last, bias, act,
                                  alpha, beta);
                    }
                } else {
                    if (!s->b_rowmajor && nr > 16 && nv <= 16)
                        ldb = 16; /* see ln_rt__pack_b_mat */
                    run_panel(isa, s, m, kc, pc, pa,
                              s->b_rowmajor ? pb + jr : pb + (size_t)jr * kc,
                              ldb, cp, ldc, nv, first, last, bias, act,
                              alpha, beta);
                }
            }
        }
    }
}

/* ---- packers for plain (optionally transposed) matrices --------------- */
void ln_rt__pack_a_mat(const void *ctx, int32_t i0, int32_t mc, int32_t p0,
                       int32_t kc, int mr, float *dst)
{
    const ln_rt__mat *a = ctx;
    const float *rows[8];
    int32_t ir, p;
    int r;
    for (ir = 0; ir < mc; ir += mr) {
        int mv = (int)imin(mr, mc - ir);
        if (a->trans) {
            /* column i of A^T storage is row p: rows are contiguous */
            for (p = 0; p < kc; p++) {
                const float *s = a->p + (ptrdiff_t)(p0 + p) * a->ld + i0 + ir;
                float *d = dst + (size_t)p * mr;
                for (r = 0; r < mv; r++)
                    d[r] = s[r] * a->scale;
                for (; r < mr; r++)
                    d[r] = 0.0f;
            }
        } else {
            /* walk mv rows side by side so the stores are contiguous */
            for (r = 0; r < mv; r++)
                rows[r] = a->p + (ptrdiff_t)(i0 + ir + r) * a->ld + p0;
            if (a->scale == 1.0f && mv == mr) {
                for (p = 0; p < kc; p++)
                    for (r = 0; r < mr; r++)
                        dst[(size_t)p * mr + r] = rows[r][p];
            } else {
                for (p = 0; p < kc; p++) {
                    float *d = dst + (size_t)p * mr;
                    for (r = 0; r < mv; r++)
                        d[r] = rows[r][p] * a->scale;
                    for (; r < mr; r++)
                        d[r] = 0.0f;
                }
            }
        }
        dst += (size_t)mr * kc;
    }
}

void ln_rt__pack_b_mat(const void *ctx, int32_t p0, int32_t kc, int32_t j0,
                       int32_t nc, int nr, float *dst)
{
    const ln_rt__mat *b = ctx;
    int32_t jr, p;
    int j;
    for (jr = 0; jr < nc; jr += nr) {
        int nv = (int)imin(nr, nc - jr);
        /* a last panel of <= 16 columns is 16 wide for kernels with
         * nr > 16 (they read only that group; scratch has room for
         * roundup(nc, 16) columns) */
        const int pw = nr > 16 && nv <= 16 ? 16 : nr;
        if (!b->trans) {
            const float *s = b->p + (ptrdiff_t)p0 * b->ld + j0 + jr;
            for (p = 0; p < kc; p++) {
                float *d = dst + (size_t)p * pw;
                const float *sr = s + (ptrdiff_t)p * b->ld;
                for (j = 0; j < nv; j++)
                    d[j] = sr[j] * b->scale;
                for (; j < pw; j++)
                    d[j] = 0.0f;
            }
        } else {
            for (j = 0; j < pw; j++) {
                float *d = dst + j;
                if (j >= nv) {
                    for (p = 0; p < kc; p++)
                        d[(size_t)p * pw] = 0.0f;
                } else {
                    const float *s = b->p + (ptrdiff_t)(j0 + jr + j) * b->ld
                                     + p0;
                    for (p = 0; p < kc; p++)
                        d[(size_t)p * pw] = s[p] * b->scale;
                }
            }
        }
        dst += (size_t)pw * kc;
    }
}

/* ---- one-row products (batch-1 fully connected layers) --------------- *
 * y[j] (+)= alpha * sum_p x[p] * B'(p, j). With B' = B^T (PyTorch Linear
 * weights [N][K]) every output is a dot product of two contiguous rows,
 * summed in 8 interleaved partial sums that the compiler maps to one
 * vector register; with B' = B every row of B is added to y scaled by
 * x[p] (an axpy per row). Both run at memory speed, where the blocked
 * engine would waste 5 of every 6 micro-kernel rows and pack all of B. */
void ln_rt__gemv_c(int32_t n, int32_t k, const float *x, const float *B,
                   int trans_b, float alpha, float *y, int accumulate)
{
    int32_t j, p;
    if (trans_b) {
        for (j = 0; j < n; j++) {
            const float *b = B + (size_t)j * k;
            float s[8] = { 0, 0, 0, 0, 0, 0, 0, 0 }, t;
            int q;
            for (p = 0; p + 8 <= k; p += 8)
                for (q = 0; q < 8; q++)
                    s[q] += x[p + q] * b[p + q];
            for (; p < k; p++)
                s[p & 7] += x[p] * b[p];
            t = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
            y[j] = accumulate ? y[j] + alpha * t : alpha * t;
        }
    } else {
        if (!accumulate)
            for (j = 0; j < n; j++)
                y[j] = 0.0f;
        for (p = 0; p < k; p++) {
            const float *b = B + (size_t)p * n;
            float xv = alpha * x[p];
            for (j = 0; j < n; j++)
                y[j] += xv * b[j];
        }
    }
}

/* ---- ONNX Gemm -------------------------------------------------------- */
size_t ln_rt_gemm_f32_scratch_size(const ln_rt_gemm_args *a)
{
    if (a->m == 1) /* the one-row path needs none */
        return 0;
    return ln_rt__gemm_scratch_floats(a->m, a->n, a->k, 0, 0) *
           sizeof(float);
}

int ln_rt__gemm_f32_isa(const ln_rt__gemm_isa *isa, const ln_rt_gemm_args *a,
                        const float *A, const float *B, const float *C,
                        float *Y, void *scratch)
{
    ln_rt__mat am, bm;
    ln_rt__gemm_src s;
    int accumulate = 0;
    int32_t i, j;

    if (a->m < 0 || a->n < 0 || a->k < 0)
        return LN_RT_ARG_ERROR;
    if (C && (!(a->c_rows == 1 || a->c_rows == a->m) ||
              !(a->c_cols == 1 || a->c_cols == a->n)))
        return LN_RT_ARG_ERROR;
    if (C && a->beta != 0.0f) {
        /* Y = beta * broadcast(C), then the product accumulates into it */
        int32_t rs = a->c_rows == 1 ? 0 : a->c_cols;
        int32_t cs = a->c_cols == 1 ? 0 : 1;
        for (i = 0; i < a->m; i++)
            for (j = 0; j < a->n; j++)
                Y[(size_t)i * a->n + j] =
                    a->beta * C[(size_t)i * rs + (size_t)j * cs];
        accumulate = 1;
    }
    if (a->m == 1 && a->k > 0) {
        /* A is one contiguous row whether transposed or not */
        isa->gemv(a->n, a->k, A, B, a->trans_b, a->alpha, Y, accumulate);
        ln_rt__act_f32(Y, (size_t)a->n, a->act, a->act_alpha, a->act_beta);
        return LN_RT_OK;
    }
    am.p = A; am.ld = a->trans_a ? a->m : a->k; am.trans = a->trans_a;
    am.scale = a->alpha;
    bm.p = B; bm.ld = a->trans_b ? a->k : a->n; bm.trans = a->trans_b;
    bm.scale = 1.0f;
    s.pack_a = ln_rt__pack_a_mat; s.actx = &am;
    s.pack_b = ln_rt__pack_b_mat; s.bctx = &bm; s.b_rowmajor = 0;
    s.b_direct = NULL; s.b_ld = 0;
    s.a_direct = NULL; s.a_ld = 0;
    ln_rt__gemm_run(isa, &s, a->m, a->n, a->k, Y, a->n, accumulate, NULL,
                    a->act, a->act_alpha, a->act_beta, scratch);
    return LN_RT_OK;
}

int ln_rt_gemm_f32(const ln_rt_gemm_args *a, const float *A, const float *B,
                   const float *C, float *Y, void *scratch)
{
    return ln_rt__gemm_f32_isa(ln_rt__gemm_isa_default(), a, A, B, C, Y,
                               scratch);
}

/* ---- ONNX MatMul (batched, broadcast) --------------------------------- */
size_t ln_rt_matmul_f32_scratch_size(const ln_rt_matmul_args *a)
{
    int nd = a->ndim;
    if (nd < 2 || a->a_dims[nd - 2] == 1) /* M = 1: the one-row path */
        return 0;
    return ln_rt__gemm_scratch_floats(a->y_dims[nd - 2], a->y_dims[nd - 1],
                                      a->a_dims[nd - 1], 0, 0) *
           sizeof(float);
}

int ln_rt_matmul_f32(const ln_rt_matmul_args *a, const float *A,
                     const float *B, float *Y, void *scratch)
{
    const ln_rt__gemm_isa *isa = ln_rt__gemm_isa_default();
    int nd = a->ndim, d;
    int32_t m, n, k, cnt[LN_RT_MAX_DIMS] = {0};
    ptrdiff_t sa[LN_RT_MAX_DIMS], sb[LN_RT_MAX_DIMS], oa = 0, ob = 0;
    ptrdiff_t ta, tb;
    size_t nbatch = 1, bi;
    ln_rt__mat am, bm;
    ln_rt__gemm_src s;

    if (nd < 2 || nd > LN_RT_MAX_DIMS)
        return LN_RT_ARG_ERROR;
    m = a->a_dims[nd - 2];
    k = a->a_dims[nd - 1];
    n = a->b_dims[nd - 1];
    if (a->b_dims[nd - 2] != k || a->y_dims[nd - 2] != m ||
        a->y_dims[nd - 1] != n)
        return LN_RT_ARG_ERROR;
    ta = (ptrdiff_t)m * k;
    tb = (ptrdiff_t)k * n;
    for (d = nd - 3; d >= 0; d--) {
        if ((a->a_dims[d] != 1 && a->a_dims[d] != a->y_dims[d]) ||
            (a->b_dims[d] != 1 && a->b_dims[d] != a->y_dims[d]))
            return LN_RT_ARG_ERROR;
        sa[d] = a->a_dims[d] == 1 ? 0 : ta;
        sb[d] = a->b_dims[d] == 1 ? 0 : tb;
        ta *= a->a_dims[d];
        tb *= a->b_dims[d];
        nbatch *= (size_t)a->y_dims[d];
    }
    am.ld = k; am.trans = 0; am.scale = 1.0f;
    bm.ld = n; bm.trans = 0; bm.scale = 1.0f;
    s.pack_a = ln_rt__pack_a_mat; s.actx = &am;
    s.pack_b = ln_rt__pack_b_mat; s.bctx = &bm; s.b_rowmajor = 0;
    s.b_direct = NULL; s.b_ld = 0;
    s.a_direct = NULL; s.a_ld = 0;
    for (bi = 0; bi < nbatch; bi++) {
        am.p = A + oa;
        bm.p = B + ob;
        if (k == 0)
            memset(Y, 0, (size_t)m * n * sizeof(float));
        else if (m == 1)
            isa->gemv(n, k, A + oa, B + ob, 0, 1.0f, Y, 0);
        else
            ln_rt__gemm_run(isa, &s, m, n, k, Y, n, 0, NULL, LN_RT_ACT_NONE,
                            0.0f, 0.0f, scratch);
        Y += (size_t)m * n;
        for (d = nd - 3; d >= 0; d--) {
            oa += sa[d];
            ob += sb[d];
            if (++cnt[d] < a->y_dims[d])
                break;
            oa -= sa[d] * a->y_dims[d];
            ob -= sb[d] * a->y_dims[d];
            cnt[d] = 0;
        }
    }
    return LN_RT_OK;
}
