/*
 * transpose16_avx512.h -- 16 x 16 float transpose in AVX-512F registers,
 * for the x86 kernels that turn 16 rows of 16 into 16 columns (the packed
 * conv's NCHW store, the channels depthwise kernel's planes <-> pixels).
 * 64 shuffles: unpack pairs of rows, then pairs of 64-bit halves, then
 * two rounds of 128-bit lane moves. Include after <immintrin.h> in a file
 * compiled for AVX-512F (LN_RT_TARGET_AVX512_PRAGMA).
 */
#ifndef LN_RT_TRANSPOSE16_AVX512_H
#define LN_RT_TRANSPOSE16_AVX512_H

/* in place: lane j of r[i] <-> lane i of r[j] */
static inline __attribute__((always_inline)) void ln_rt__tr16_ps(__m512 *r)
{
    __m512 t[16];
    int i;
    for (i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    /* r[4 g + k], 128-bit lane L: rows 4g..4g+3 of column 4 L + k */
    for (i = 0; i < 4; i++) {
        const __m512d a0 = _mm512_castps_pd(t[4 * i]);
        const __m512d a1 = _mm512_castps_pd(t[4 * i + 1]);
        const __m512d a2 = _mm512_castps_pd(t[4 * i + 2]);
        const __m512d a3 = _mm512_castps_pd(t[4 * i + 3]);
        r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));
        r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));
        r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));
        r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));
    }
    /* 4 x 4 transpose of 128-bit lanes, for each k: rows i, 4 + i, 8 + i,
     * 12 + i in, the same rows out (no copy back from a second array: GCC
     * made that copy, and the loads of callers' rows, memcpy calls) */
    for (i = 0; i < 4; i++) {
        const __m512 u0 = _mm512_shuffle_f32x4(r[i], r[4 + i], 0x44);
        const __m512 u1 = _mm512_shuffle_f32x4(r[i], r[4 + i], 0xee);
        const __m512 u2 = _mm512_shuffle_f32x4(r[8 + i], r[12 + i], 0x44);
        const __m512 u3 = _mm512_shuffle_f32x4(r[8 + i], r[12 + i], 0xee);
        r[i] = _mm512_shuffle_f32x4(u0, u2, 0x88);
        r[4 + i] = _mm512_shuffle_f32x4(u0, u2, 0xdd);
        r[8 + i] = _mm512_shuffle_f32x4(u1, u3, 0x88);
        r[12 + i] = _mm512_shuffle_f32x4(u1, u3, 0xdd);
    }
}

#endif
