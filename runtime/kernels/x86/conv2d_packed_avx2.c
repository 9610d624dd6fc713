/*
 * conv2d_packed_avx2.c -- the packed small-map conv (conv2d_packed_f32.c)
 * with AVX2+FMA: the same packed blocks of 16 output channels, read as two
 * 8-lane halves; register tile 6 output pixels x 16 channels (12
 * accumulators, 2 weight vectors, 1 broadcast). The partial last block
 * (nb < 16) loads its weights and bias with vmaskmovps. Bias and
 * activation in registers; the tile goes through a [pixel][16] buffer to
 * the NCHW output.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>

#include "act_simd.h"

static inline __m256i pk_mask(int32_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* One tile, one step of the reduction (tap t, input channels [c0, c1)) of
 * one block of nb (1-16) channels at oc0, weights wb ([tap][c][nb]); the
 * sums start at zero (first) or from T[p][16], and go back there (+ bias
 * and act when last). Named accumulators (an array was stored to the
 * stack every iteration). */
#define PK_ROW(P, Q)                                                          \
    xb = _mm256_broadcast_ss(Q + xo);                                         \
    a##P##0 = _mm256_fmadd_ps(xb, w0, a##P##0);                               \
    a##P##1 = _mm256_fmadd_ps(xb, w1, a##P##1);
#define PK_LD(P)                                                              \
    if (first) { a##P##0 = _mm256_setzero_ps(); a##P##1 = a##P##0; }          \
    else { a##P##0 = _mm256_loadu_ps(T + (p0 + P) * 16);                      \
           a##P##1 = _mm256_loadu_ps(T + (p0 + P) * 16 + 8); }
#define PK_ST(P)                                                              \
    if (last) {                                                               \
        a##P##0 = ln_rt__act_v256(_mm256_add_ps(a##P##0, b0), g->act,        \
                                  g->alpha, g->beta);                         \
        a##P##1 = ln_rt__act_v256(_mm256_add_ps(a##P##1, b1), g->act,        \
                                  g->alpha, g->beta);                         \
    }                                                                         \
    _mm256_storeu_ps(T + (p0 + P) * 16, a##P##0);                             \
    _mm256_storeu_ps(T + (p0 + P) * 16 + 8, a##P##1);
static inline __attribute__((always_inline)) void
pk_tile(const ln_rt__pk_geom *g, const float *wb, int32_t nb, int t0,
        int t1, int32_t c0, int32_t c1, int first, int last, int32_t p0,
        __m256 b0, __m256 b1, float *T, const int full)
{
    const size_t plane = g->plane;
    const int32_t ws = full ? 16 : nb;
    const __m256i m0 = pk_mask(nb), m1 = pk_mask(nb - 8);
    const float *x0 = g->x + (size_t)c0 * plane;
    const float *q0 = x0 + g->pix[p0], *q1 = x0 + g->pix[p0 + 1];
    const float *q2 = x0 + g->pix[p0 + 2], *q3 = x0 + g->pix[p0 + 3];
    const float *q4 = x0 + g->pix[p0 + 4], *q5 = x0 + g->pix[p0 + 5];
    __m256 a00, a01, a10, a11, a20, a21, a30, a31, a40, a41, a50, a51;
    int t;
    int32_t ic;

    PK_LD(0) PK_LD(1) PK_LD(2) PK_LD(3) PK_LD(4) PK_LD(5)
    for (t = t0; t < t1; t++) { /* taps t0..t1-1, channels c0..c1-1 */
        const float *wt = wb + ((size_t)t * g->c + c0) * ws;
        size_t xo = (size_t)g->toff[t];
        for (ic = c0; ic < c1; ic++, wt += ws, xo += plane) {
            __m256 w0, w1, xb;
            if (full) {
                w0 = _mm256_loadu_ps(wt);
                w1 = _mm256_loadu_ps(wt + 8);
            } else {
                w0 = _mm256_maskload_ps(wt, m0);
                w1 = nb > 8 ? _mm256_maskload_ps(wt + 8, m1)
                            : _mm256_setzero_ps();
            }
            PK_ROW(0, q0) PK_ROW(1, q1) PK_ROW(2, q2)
            PK_ROW(3, q3) PK_ROW(4, q4) PK_ROW(5, q5)
        }
    }
    PK_ST(0) PK_ST(1) PK_ST(2) PK_ST(3) PK_ST(4) PK_ST(5)
}

/* input channels per reduction step (16 x 128 floats of weights: 8 KiB);
 * with fewer channels a step takes KC / c taps (the AVX-512 kernel's
 * rule: one tap per step stored and reloaded the sums of a 1-channel conv
 * after every FMA) */
#define PK_KC 128

/* one block of nb (1-16) channels at oc0, weights wb ([tap][c][nb]) */
static inline __attribute__((always_inline)) void
pk_block(const ln_rt__pk_geom *g, const float *wb, int32_t nb, int32_t oc0,
         float *dst, const int full)
{
    const int32_t ohw = g->ohw;
    const __m256 b0 = g->bias ? _mm256_maskload_ps(g->bias + oc0, pk_mask(nb))
                              : _mm256_setzero_ps();
    const __m256 b1 = g->bias && nb > 8
                          ? _mm256_maskload_ps(g->bias + oc0 + 8,
                                               pk_mask(nb - 8))
                          : _mm256_setzero_ps();
    float *T = g->tbuf;
    int32_t p0, c0, j, p;
    int t;

    const int tps = g->c >= PK_KC ? 1 : PK_KC / g->c; /* taps per step */
    for (t = 0; t < g->ntap; t += tps) {
        const int t1 = g->ntap - t < tps ? g->ntap : t + tps;
        for (c0 = 0; c0 < g->c; c0 += PK_KC) {
            const int32_t c1 = g->c - c0 < PK_KC ? g->c : c0 + PK_KC;
            const int first = t == 0 && c0 == 0;
            const int last = t1 == g->ntap && c1 == g->c;
            for (p0 = 0; p0 < ohw; p0 += 6)
                pk_tile(g, wb, nb, t, t1, c0, c1, first, last, p0, b0, b1,
                        T, full);
        }
    }
    for (j = 0; j < nb; j++) {
        float *d = dst + (size_t)(oc0 + j) * g->ocs;
        if (g->ops == 1)
            for (p = 0; p < ohw; p++)
                d[p] = T[p * 16 + j];
        else
            for (p = 0; p < ohw; p++)
                d[(size_t)p * g->ops] = T[p * 16 + j];
    }
}

void ln_rt__conv2d_packed_avx2(const ln_rt__pk_geom *g, const float *w,
                               float *dst)
{
    const size_t kk = (size_t)g->c * g->ntap;
    int32_t o0;
    for (o0 = 0; o0 + 16 <= g->oc; o0 += 16)
        pk_block(g, w + (size_t)o0 * kk, 16, o0, dst, 1);
    if (o0 < g->oc)
        pk_block(g, w + (size_t)o0 * kk, g->oc - o0, o0, dst, 0);
}
#endif
