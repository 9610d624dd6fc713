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

static inline __m256 pk_act(__m256 v, ln_rt_act act, float alpha, float beta)
{
    switch (act) {
    case LN_RT_ACT_RELU:
        return _mm256_max_ps(v, _mm256_setzero_ps());
    case LN_RT_ACT_RELU6:
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_setzero_ps()),
                             _mm256_set1_ps(6.0f));
    case LN_RT_ACT_LEAKYRELU:
        return _mm256_blendv_ps(v, _mm256_mul_ps(v, _mm256_set1_ps(alpha)),
                                _mm256_cmp_ps(v, _mm256_setzero_ps(),
                                              _CMP_LT_OQ));
    case LN_RT_ACT_CLIP:
        return _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(alpha)),
                             _mm256_set1_ps(beta));
    default:
        return v;
    }
}

static inline __m256i pk_mask(int32_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* one block of nb (1-16) channels at oc0, weights wb ([tap][c][nb]) */
static inline __attribute__((always_inline)) void
pk_block(const ln_rt__pk_geom *g, const float *wb, int32_t nb, int32_t oc0,
         float *dst, const int full)
{
    const int32_t c = g->c, ohw = g->ohw;
    const size_t plane = g->plane;
    const __m256i m0 = pk_mask(nb), m1 = pk_mask(nb - 8);
    const __m256 b0 = g->bias ? _mm256_maskload_ps(g->bias + oc0, m0)
                              : _mm256_setzero_ps();
    const __m256 b1 = g->bias && nb > 8
                          ? _mm256_maskload_ps(g->bias + oc0 + 8, m1)
                          : _mm256_setzero_ps();
    float *T = g->tbuf;
    int32_t p0, ic, j, p;
    int t;

    for (p0 = 0; p0 < ohw; p0 += 6) {
        __m256 a[6][2];
        for (p = 0; p < 6; p++)
            a[p][0] = a[p][1] = _mm256_setzero_ps();
        for (t = 0; t < g->ntap; t++) {
            const float *wt = wb + (size_t)t * c * (full ? 16 : nb);
            const float *x0 = g->x + g->toff[t];
            const float *q0 = x0 + g->pix[p0], *q1 = x0 + g->pix[p0 + 1];
            const float *q2 = x0 + g->pix[p0 + 2], *q3 = x0 + g->pix[p0 + 3];
            const float *q4 = x0 + g->pix[p0 + 4], *q5 = x0 + g->pix[p0 + 5];
            for (ic = 0; ic < c; ic++) {
                const size_t xo = (size_t)ic * plane;
                __m256 w0, w1, xb;
                if (full) {
                    w0 = _mm256_loadu_ps(wt);
                    w1 = _mm256_loadu_ps(wt + 8);
                    wt += 16;
                } else {
                    w0 = _mm256_maskload_ps(wt, m0);
                    w1 = nb > 8 ? _mm256_maskload_ps(wt + 8, m1)
                                : _mm256_setzero_ps();
                    wt += nb;
                }
#define PK_ROW(P, Q)                                                          \
                xb = _mm256_broadcast_ss(Q + xo);                             \
                a[P][0] = _mm256_fmadd_ps(xb, w0, a[P][0]);                   \
                a[P][1] = _mm256_fmadd_ps(xb, w1, a[P][1]);
                PK_ROW(0, q0) PK_ROW(1, q1) PK_ROW(2, q2)
                PK_ROW(3, q3) PK_ROW(4, q4) PK_ROW(5, q5)
#undef PK_ROW
            }
        }
        for (p = 0; p < 6; p++) {
            _mm256_storeu_ps(T + p * 16, pk_act(_mm256_add_ps(a[p][0], b0),
                                                g->act, g->alpha, g->beta));
            _mm256_storeu_ps(T + p * 16 + 8,
                             pk_act(_mm256_add_ps(a[p][1], b1), g->act,
                                    g->alpha, g->beta));
        }
        for (j = 0; j < nb; j++) {
            float *d = dst + (size_t)(oc0 + j) * ohw + p0;
            for (p = 0; p < 6 && p0 + p < ohw; p++)
                d[p] = T[p * 16 + j];
        }
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
