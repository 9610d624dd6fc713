/*
 * pool_f32_avx2.c -- AVX2 2-D max / average pooling: the kernel of
 * pool_f32_simd.h at 8 lanes (vmaskmovps for the row tails, blends by
 * lane-mask vectors, two shuffles for the stride-2 even lanes).
 * pool_f32.c picks it.
 */
#include <math.h>
#include "ln_rt_internal.h"
#include "pool_f32_x86.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>

/* lanes [lo, hi) of 8 as an all-ones mask vector */
static __m256i pl_lanes256(int32_t lo, int32_t hi)
{
    __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    if (lo < -1)
        lo = -1;
    if (hi > 8)
        hi = 8;
    return _mm256_and_si256(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(lo - 1)),
                            _mm256_cmpgt_epi32(_mm256_set1_epi32(hi), idx));
}

/* p[0], p[2], ..., p[14] */
static __m256 pl_even256(const float *p)
{
    __m256 s = _mm256_shuffle_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8),
                                 0x88);
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(s), 0xd8));
}

#define PL_CAT_(x, y) x##y
#define PL_CAT(x, y) PL_CAT_(x, y)
#define PL_ALIGN __attribute__((aligned(32)))
#define PL_V __m256
#define PL_VL 8
#define PL_M __m256i
#define PL_LOAD(p) _mm256_loadu_ps(p)
#define PL_MLOAD(p, m) _mm256_maskload_ps(p, m)
#define PL_STORE(p, v) _mm256_storeu_ps(p, v)
#define PL_MSTORE(p, m, v) _mm256_maskstore_ps(p, m, v)
#define PL_SET1(x) _mm256_set1_ps(x)
/* a > b ? a : b, as vmaxps: b when either is NaN */
#define PL_MAX(a, b) _mm256_max_ps(a, b)
#define PL_ADD(a, b) _mm256_add_ps(a, b)
#define PL_MUL(a, b) _mm256_mul_ps(a, b)
#define PL_DIV(a, b) _mm256_div_ps(a, b)
#define PL_LANES(lo, hi) pl_lanes256(lo, hi)
/* m ? b : a per lane */
#define PL_SEL(m, a, b) _mm256_blendv_ps(a, b, _mm256_castsi256_ps(m))
#define PL_POS(v) _mm256_castps_si256(                                     \
    _mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_GT_OQ))
#define PL_EVEN2(p) pl_even256(p)
#define PL_FN ln_rt__pool2d_f32_avx2
#include "pool_f32_simd.h"

#else
typedef int ln_rt__pool_f32_avx2_unused;
#endif
