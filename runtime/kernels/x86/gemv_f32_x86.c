/*
 * gemv_f32_x86.c -- one-row products (batch-1 fully connected layers,
 * gemm / matmul with M = 1) for AVX2/FMA and AVX-512F; the portable
 * ln_rt__gemv_c in gemm_f32.c is the reference. Memory-bound: the aim is
 * to stream B once at full bandwidth.
 *
 * trans_b (PyTorch Linear weights [N][K]): four outputs per pass, each a
 * dot product of x with one contiguous row of B kept in two vector chains
 * (8 independent FMA chains, x loaded once per four rows); the K tail is a
 * masked load (AVX-512) or scalar (AVX2); the horizontal sums happen once
 * per output. Not transposed: y += x[p] * B[p][:] four rows of B at a
 * time, so y is loaded and stored once per four rows.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>

static float hsum8(__m256 v)
{
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v),
                          _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* y[0..n) (+)= alpha * x B', not transposed: B rows are n long */
static void gemv_n(int32_t n, int32_t k, const float *x, const float *B,
                   float alpha, float *y, int accumulate)
{
    int32_t j, p;
    if (!accumulate)
        memset(y, 0, (size_t)n * sizeof(float));
    for (p = 0; p + 4 <= k; p += 4) {
        const float *b0 = B + (size_t)p * n, *b1 = b0 + n, *b2 = b1 + n,
                    *b3 = b2 + n;
        const float x0 = alpha * x[p], x1 = alpha * x[p + 1],
                    x2 = alpha * x[p + 2], x3 = alpha * x[p + 3];
        const __m256 v0 = _mm256_set1_ps(x0), v1 = _mm256_set1_ps(x1),
                     v2 = _mm256_set1_ps(x2), v3 = _mm256_set1_ps(x3);
        for (j = 0; j + 8 <= n; j += 8) {
            __m256 s = _mm256_loadu_ps(y + j);
            s = _mm256_fmadd_ps(v0, _mm256_loadu_ps(b0 + j), s);
            s = _mm256_fmadd_ps(v1, _mm256_loadu_ps(b1 + j), s);
            s = _mm256_fmadd_ps(v2, _mm256_loadu_ps(b2 + j), s);
            s = _mm256_fmadd_ps(v3, _mm256_loadu_ps(b3 + j), s);
            _mm256_storeu_ps(y + j, s);
        }
        for (; j < n; j++)
            y[j] += x0 * b0[j] + x1 * b1[j] + x2 * b2[j] + x3 * b3[j];
    }
    for (; p < k; p++) {
        const float *b0 = B + (size_t)p * n;
        const float x0 = alpha * x[p];
        for (j = 0; j < n; j++)
            y[j] += x0 * b0[j];
    }
}

void ln_rt__gemv_avx2(int32_t n, int32_t k, const float *x, const float *B,
                      int trans_b, float alpha, float *y, int accumulate)
{
    int32_t j, p;
    if (!trans_b) {
        gemv_n(n, k, x, B, alpha, y, accumulate);
        return;
    }
    for (j = 0; j < n; j += 4) {
        const int rows = n - j < 4 ? (int)(n - j) : 4;
        const float *b[4];
        __m256 a[4][2];
        float t[4];
        int r;
        for (r = 0; r < 4; r++) {
            b[r] = B + (size_t)(j + (r < rows ? r : 0)) * k;
            a[r][0] = a[r][1] = _mm256_setzero_ps();
        }
        for (p = 0; p + 16 <= k; p += 16) {
            const __m256 x0 = _mm256_loadu_ps(x + p);
            const __m256 x1 = _mm256_loadu_ps(x + p + 8);
            for (r = 0; r < 4; r++) {
                a[r][0] = _mm256_fmadd_ps(_mm256_loadu_ps(b[r] + p), x0,
                                          a[r][0]);
                a[r][1] = _mm256_fmadd_ps(_mm256_loadu_ps(b[r] + p + 8), x1,
                                          a[r][1]);
            }
        }
        for (; p + 8 <= k; p += 8) {
            const __m256 x0 = _mm256_loadu_ps(x + p);
            for (r = 0; r < 4; r++)
                a[r][0] = _mm256_fmadd_ps(_mm256_loadu_ps(b[r] + p), x0,
                                          a[r][0]);
        }
        for (r = 0; r < 4; r++) {
            int32_t q;
            t[r] = hsum8(_mm256_add_ps(a[r][0], a[r][1]));
            for (q = p; q < k; q++)
                t[r] += x[q] * b[r][q];
        }
        for (r = 0; r < rows; r++)
            y[j + r] = accumulate ? y[j + r] + alpha * t[r] : alpha * t[r];
    }
}

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
void ln_rt__gemv_avx512(int32_t n, int32_t k, const float *x, const float *B,
                        int trans_b, float alpha, float *y, int accumulate)
{
    int32_t j, p;
    if (!trans_b) {
        gemv_n(n, k, x, B, alpha, y, accumulate);
        return;
    }
    for (j = 0; j < n; j += 4) {
        const int rows = n - j < 4 ? (int)(n - j) : 4;
        const float *b[4];
        __m512 a[4][2];
        int r;
        for (r = 0; r < 4; r++) {
            b[r] = B + (size_t)(j + (r < rows ? r : 0)) * k;
            a[r][0] = a[r][1] = _mm512_setzero_ps();
        }
        for (p = 0; p + 32 <= k; p += 32) {
            const __m512 x0 = _mm512_loadu_ps(x + p);
            const __m512 x1 = _mm512_loadu_ps(x + p + 16);
            for (r = 0; r < 4; r++) {
                a[r][0] = _mm512_fmadd_ps(_mm512_loadu_ps(b[r] + p), x0,
                                          a[r][0]);
                a[r][1] = _mm512_fmadd_ps(_mm512_loadu_ps(b[r] + p + 16), x1,
                                          a[r][1]);
            }
        }
        for (; p < k; p += 16) { /* last 1..31: one or two masked steps */
            const __mmask16 m = (__mmask16)(k - p >= 16
                                                ? 0xffffu
                                                : (1u << (k - p)) - 1u);
            const __m512 x0 = _mm512_maskz_loadu_ps(m, x + p);
            for (r = 0; r < 4; r++)
                a[r][0] = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, b[r] + p),
                                          x0, a[r][0]);
        }
        for (r = 0; r < rows; r++) {
            float t = _mm512_reduce_add_ps(_mm512_add_ps(a[r][0], a[r][1]));
            y[j + r] = accumulate ? y[j + r] + alpha * t : alpha * t;
        }
    }
}
#endif

#else
typedef int ln_rt__gemv_x86_unused; /* ISO C wants a non-empty file */
#endif
