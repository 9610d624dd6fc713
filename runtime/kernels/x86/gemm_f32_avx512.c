/*
 * gemm_f32_avx512.c -- AVX-512F 8x32 micro-kernel for the blocked GEMM
 * engine, beside the AVX2 6x16 one (an AVX-512 build has both; this one is
 * the default). Compiled to something only when the compiler targets
 * AVX-512F.
 *
 * 16 zmm accumulators (8 rows x 2 vectors of 16) + 2 B vectors + 1 A
 * broadcast: per k step 16 FMAs against 2 loads and 8 broadcasts. MR = 8
 * divides the channel counts of the small models (8, 16, 24, 32, 64, ...)
 * so there is rarely an M tail. B is read in 16-column groups, only as
 * many as the panel's valid columns need (nv <= 16: one group, 8
 * accumulators), so row-major blocks padded to 16 columns suffice. Tails
 * are stored through k-masks (no scalar loop). KC stays at 256 (a 32 KiB
 * B panel, which L1 mostly keeps): KC = 128 measured the same or up to 10%
 * slower on the ResNet-18 / GEMM rows here (-DLN_RT_AVX512_KC=128 to try).
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"

#ifndef LN_RT_AVX512_KC
#define LN_RT_AVX512_KC 256
#endif


/* one row of a tile: + C (not first), + bias and act (last), stored
 * through the column masks */
static inline __attribute__((always_inline)) void
ukr_row(float *cr, __m512 v0, __m512 v1, __mmask16 m0, __mmask16 m1,
        int first, int last, const float *bias, ln_rt_act act, float alpha,
        float beta)
{
    if (!first) {
        v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, cr));
        v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, cr + 16));
    }
    if (last) {
        if (bias) {
            const __m512 bv = _mm512_set1_ps(*bias);
            v0 = _mm512_add_ps(v0, bv);
            v1 = _mm512_add_ps(v1, bv);
        }
        v0 = ln_rt__act_v512(v0, act, alpha, beta);
        v1 = ln_rt__act_v512(v1, act, alpha, beta);
    }
    _mm512_mask_storeu_ps(cr, m0, v0);
    _mm512_mask_storeu_ps(cr + 16, m1, v1);
}

static void ukr_avx512(int32_t kc, const float *ap, int32_t lda,
                       const float *bp, int32_t ldb, float *c, int32_t ldc,
                       int mv, int nv, int first, int last,
                       const float *bias, ln_rt_act act, float alpha,
                       float beta)
{
    __m512 c00 = _mm512_setzero_ps(), c01 = _mm512_setzero_ps();
    __m512 c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();
    __m512 c20 = _mm512_setzero_ps(), c21 = _mm512_setzero_ps();
    __m512 c30 = _mm512_setzero_ps(), c31 = _mm512_setzero_ps();
    __m512 c40 = _mm512_setzero_ps(), c41 = _mm512_setzero_ps();
    __m512 c50 = _mm512_setzero_ps(), c51 = _mm512_setzero_ps();
    __m512 c60 = _mm512_setzero_ps(), c61 = _mm512_setzero_ps();
    __m512 c70 = _mm512_setzero_ps(), c71 = _mm512_setzero_ps();
    __m512 acc[8][2];
    __mmask16 m0, m1;
    int32_t p;
    int i;
    /* packed: element (r, p) at p * 8 + r; in place: at r * lda + p */
    const ptrdiff_t rs = lda ? lda : 1, ks = lda ? 1 : 8;

#define LN_RT_A(r) _mm512_set1_ps(ap[(r) * rs])
#define LN_RT_STEP2()                                                         \
    do {                                                                      \
        __m512 b0 = _mm512_loadu_ps(bp), b1 = _mm512_loadu_ps(bp + 16), a;    \
        a = LN_RT_A(0);                                                       \
        c00 = _mm512_fmadd_ps(a, b0, c00); c01 = _mm512_fmadd_ps(a, b1, c01); \
        a = LN_RT_A(1);                                                       \
        c10 = _mm512_fmadd_ps(a, b0, c10); c11 = _mm512_fmadd_ps(a, b1, c11); \
        a = LN_RT_A(2);                                                       \
        c20 = _mm512_fmadd_ps(a, b0, c20); c21 = _mm512_fmadd_ps(a, b1, c21); \
        a = LN_RT_A(3);                                                       \
        c30 = _mm512_fmadd_ps(a, b0, c30); c31 = _mm512_fmadd_ps(a, b1, c31); \
        a = LN_RT_A(4);                                                       \
        c40 = _mm512_fmadd_ps(a, b0, c40); c41 = _mm512_fmadd_ps(a, b1, c41); \
        a = LN_RT_A(5);                                                       \
        c50 = _mm512_fmadd_ps(a, b0, c50); c51 = _mm512_fmadd_ps(a, b1, c51); \
        a = LN_RT_A(6);                                                       \
        c60 = _mm512_fmadd_ps(a, b0, c60); c61 = _mm512_fmadd_ps(a, b1, c61); \
        a = LN_RT_A(7);                                                       \
        c70 = _mm512_fmadd_ps(a, b0, c70); c71 = _mm512_fmadd_ps(a, b1, c71); \
        ap += ks;                                                             \
        bp += ldb;                                                            \
    } while (0)
#define LN_RT_STEP1()                                                         \
    do {                                                                      \
        __m512 b0 = _mm512_loadu_ps(bp);                                      \
        c00 = _mm512_fmadd_ps(LN_RT_A(0), b0, c00);                           \
        c10 = _mm512_fmadd_ps(LN_RT_A(1), b0, c10);                           \
        c20 = _mm512_fmadd_ps(LN_RT_A(2), b0, c20);                           \
        c30 = _mm512_fmadd_ps(LN_RT_A(3), b0, c30);                           \
        c40 = _mm512_fmadd_ps(LN_RT_A(4), b0, c40);                           \
        c50 = _mm512_fmadd_ps(LN_RT_A(5), b0, c50);                           \
        c60 = _mm512_fmadd_ps(LN_RT_A(6), b0, c60);                           \
        c70 = _mm512_fmadd_ps(LN_RT_A(7), b0, c70);                           \
        ap += ks;                                                             \
        bp += ldb;                                                            \
    } while (0)

    /* C is read and written after the loop: prefetched then. Where it is
     * only written (the first k block) the prefetch cost time: without it,
     * in one process on a Zen 5, 1x1 convs through the GEMM 16->96 @112
     * 0.88-0.91 of the time, 16->32 @24 0.91-0.93, 24->144 @56 0.94,
     * 8->16 @48 and 32->32 @24 0.96-0.97, 64->64 @56 0.99, K >= 128 level */
    for (i = 0; !first && i < mv; i++)
        _mm_prefetch((const char *)(c + (ptrdiff_t)i * ldc), _MM_HINT_T0);
    if (nv > 16) {
        if (lda == 0) {
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 4
#endif
            for (p = 0; p < kc; p++)
                LN_RT_STEP2();
        } else {
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 4
#endif
            for (p = 0; p < kc; p++)
                LN_RT_STEP2();
        }
    } else {
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 4
#endif
        for (p = 0; p < kc; p++)
            LN_RT_STEP1();
    }
#undef LN_RT_A
#undef LN_RT_STEP1
#undef LN_RT_STEP2
    m0 = (__mmask16)(nv >= 16 ? 0xffffu : (1u << nv) - 1u);
    m1 = (__mmask16)(nv >= 32 ? 0xffffu : nv <= 16 ? 0u
                                         : (1u << (nv - 16)) - 1u);
    if (mv == 8) {
        /* a whole tile's rows from the named accumulators: through the
         * indexed array below GCC stored all 16 on the stack first */
#define LN_RT_ROW(r)                                                          \
        ukr_row(c + (ptrdiff_t)(r) * ldc, c##r##0, c##r##1, m0, m1, first,    \
                last, bias ? bias + (r) : NULL, act, alpha, beta);
        LN_RT_ROW(0) LN_RT_ROW(1) LN_RT_ROW(2) LN_RT_ROW(3)
        LN_RT_ROW(4) LN_RT_ROW(5) LN_RT_ROW(6) LN_RT_ROW(7)
#undef LN_RT_ROW
        return;
    }
    acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
    acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
    acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
    acc[6][0] = c60; acc[6][1] = c61; acc[7][0] = c70; acc[7][1] = c71;

    for (i = 0; i < mv; i++)
        ukr_row(c + (ptrdiff_t)i * ldc, acc[i][0], acc[i][1], m0, m1, first,
                last, bias ? bias + i : NULL, act, alpha, beta);
}

const ln_rt__gemm_isa ln_rt__gemm_isa_avx512 = { 8, 32, LN_RT_AVX512_KC, ukr_avx512,
                                                 ln_rt__gemv_avx512 };

#else
typedef int ln_rt__gemm_avx512_unused; /* ISO C wants a non-empty file */
#endif
