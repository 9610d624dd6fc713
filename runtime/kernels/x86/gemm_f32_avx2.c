/*
 * gemm_f32_avx2.c -- AVX2/FMA 6x16 micro-kernel for the blocked GEMM engine.
 * Compiled to something only when the compiler targets AVX2 and FMA
 * (-march=native on a Haswell or later); otherwise the portable 4x4 kernel
 * in gemm_f32.c is the only one.
 *
 * 12 ymm accumulators (6 rows x 2 vectors of 8) + 2 B vectors + 1 A
 * broadcast = 15 of 16 ymm registers: two FMAs per broadcast, per k step
 * 12 FMAs against 2 loads and 6 broadcasts.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>
#include "act_simd.h"


/* one full row of a tile: + C (not first), + bias and act (last), stored */
static inline __attribute__((always_inline)) void
ukr_avx2_row(float *cr, __m256 v0, __m256 v1, int first, int last,
             const float *bias, ln_rt_act act, float alpha, float beta)
{
    if (!first) {
        v0 = _mm256_add_ps(v0, _mm256_loadu_ps(cr));
        v1 = _mm256_add_ps(v1, _mm256_loadu_ps(cr + 8));
    }
    if (last) {
        if (bias) {
            const __m256 bv = _mm256_set1_ps(*bias);
            v0 = _mm256_add_ps(v0, bv);
            v1 = _mm256_add_ps(v1, bv);
        }
        v0 = ln_rt__act_v256(v0, act, alpha, beta);
        v1 = ln_rt__act_v256(v1, act, alpha, beta);
    }
    _mm256_storeu_ps(cr, v0);
    _mm256_storeu_ps(cr + 8, v1);
}

static void ukr_avx2(int32_t kc, const float *ap, int32_t lda,
                     const float *bp, int32_t ldb, float *c,
                     int32_t ldc, int mv, int nv, int first, int last,
                     const float *bias, ln_rt_act act, float alpha,
                     float beta)
{
    __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
    __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
    __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
    __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
    __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
    __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
    __m256 acc[6][2];
    int32_t p;
    int i, j;

#define LN_RT_STEP(A0, A1, A2, A3, A4, A5)                                    \
    do {                                                                      \
        __m256 b0 = _mm256_loadu_ps(bp), b1 = _mm256_loadu_ps(bp + 8);       \
        __m256 a;                                                             \
        a = _mm256_broadcast_ss(A0);                                          \
        c00 = _mm256_fmadd_ps(a, b0, c00); c01 = _mm256_fmadd_ps(a, b1, c01); \
        a = _mm256_broadcast_ss(A1);                                          \
        c10 = _mm256_fmadd_ps(a, b0, c10); c11 = _mm256_fmadd_ps(a, b1, c11); \
        a = _mm256_broadcast_ss(A2);                                          \
        c20 = _mm256_fmadd_ps(a, b0, c20); c21 = _mm256_fmadd_ps(a, b1, c21); \
        a = _mm256_broadcast_ss(A3);                                          \
        c30 = _mm256_fmadd_ps(a, b0, c30); c31 = _mm256_fmadd_ps(a, b1, c31); \
        a = _mm256_broadcast_ss(A4);                                          \
        c40 = _mm256_fmadd_ps(a, b0, c40); c41 = _mm256_fmadd_ps(a, b1, c41); \
        a = _mm256_broadcast_ss(A5);                                          \
        c50 = _mm256_fmadd_ps(a, b0, c50); c51 = _mm256_fmadd_ps(a, b1, c51); \
        bp += ldb;                                                            \
    } while (0)

#define LN_RT_HALF(A0, A1, A2, A3, A4, A5)                                    \
    do {                                                                      \
        __m256 b0 = _mm256_loadu_ps(bp);                                      \
        c00 = _mm256_fmadd_ps(_mm256_broadcast_ss(A0), b0, c00);              \
        c10 = _mm256_fmadd_ps(_mm256_broadcast_ss(A1), b0, c10);              \
        c20 = _mm256_fmadd_ps(_mm256_broadcast_ss(A2), b0, c20);              \
        c30 = _mm256_fmadd_ps(_mm256_broadcast_ss(A3), b0, c30);              \
        c40 = _mm256_fmadd_ps(_mm256_broadcast_ss(A4), b0, c40);              \
        c50 = _mm256_fmadd_ps(_mm256_broadcast_ss(A5), b0, c50);              \
        bp += ldb;                                                            \
    } while (0)

    /* C is read and written after the loop; where it is only written
     * (the first k block) a prefetch cost time: see gemm_f32_avx512.c */
    for (i = 0; !first && i < mv; i++) {
        _mm_prefetch((const char *)(c + (ptrdiff_t)i * ldc), _MM_HINT_T0);
        _mm_prefetch((const char *)(c + (ptrdiff_t)i * ldc + 15), _MM_HINT_T0);
    }
    if (nv <= 8) { /* narrow tail panel: the right 8 columns are unused */
        if (lda == 0) {
            for (p = 0; p < kc; p++) {
                LN_RT_HALF(ap, ap + 1, ap + 2, ap + 3, ap + 4, ap + 5);
                ap += 6;
            }
        } else {
            const float *r0 = ap, *r1 = ap + lda;
            const float *r2 = ap + 2 * (ptrdiff_t)lda;
            const float *r3 = ap + 3 * (ptrdiff_t)lda;
            const float *r4 = ap + 4 * (ptrdiff_t)lda;
            const float *r5 = ap + 5 * (ptrdiff_t)lda;
            for (p = 0; p < kc; p++)
                LN_RT_HALF(r0 + p, r1 + p, r2 + p, r3 + p, r4 + p, r5 + p);
        }
    } else if (lda == 0) { /* packed panel: 6 consecutive floats per k step */
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 4
#endif
        for (p = 0; p < kc; p++) {
            LN_RT_STEP(ap, ap + 1, ap + 2, ap + 3, ap + 4, ap + 5);
            ap += 6;
        }
    } else { /* six rows read in place, lda apart */
        const float *r0 = ap, *r1 = ap + lda, *r2 = ap + 2 * (ptrdiff_t)lda;
        const float *r3 = ap + 3 * (ptrdiff_t)lda, *r4 = ap + 4 * (ptrdiff_t)lda;
        const float *r5 = ap + 5 * (ptrdiff_t)lda;
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 4
#endif
        for (p = 0; p < kc; p++)
            LN_RT_STEP(r0 + p, r1 + p, r2 + p, r3 + p, r4 + p, r5 + p);
    }
#undef LN_RT_STEP
#undef LN_RT_HALF
    if (nv == 16 && mv == 6) {
        /* a whole tile's rows from the named accumulators: through the
         * indexed array below GCC stored all 12 on the stack first */
#define LN_RT_ROW(r)                                                          \
        ukr_avx2_row(c + (ptrdiff_t)(r) * ldc, c##r##0, c##r##1, first, last, \
                     bias ? bias + (r) : NULL, act, alpha, beta);
        LN_RT_ROW(0) LN_RT_ROW(1) LN_RT_ROW(2)
        LN_RT_ROW(3) LN_RT_ROW(4) LN_RT_ROW(5)
#undef LN_RT_ROW
        return;
    }
    acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
    acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
    acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;

    if (nv == 16) {
        for (i = 0; i < mv; i++)
            ukr_avx2_row(c + (ptrdiff_t)i * ldc, acc[i][0], acc[i][1], first,
                         last, bias ? bias + i : NULL, act, alpha, beta);
    } else {
        float t[16];
        for (i = 0; i < mv; i++) {
            float *cr = c + (ptrdiff_t)i * ldc;
            _mm256_storeu_ps(t, acc[i][0]);
            _mm256_storeu_ps(t + 8, acc[i][1]);
            for (j = 0; j < nv; j++) {
                float v = t[j];
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
}

const ln_rt__gemm_isa ln_rt__gemm_isa_avx2 = { 6, 16, LN_RT_GEMM_KC, ukr_avx2,
                                               ln_rt__gemv_avx2 };

#else
typedef int ln_rt__gemm_avx2_unused; /* ISO C wants a non-empty file */
#endif
