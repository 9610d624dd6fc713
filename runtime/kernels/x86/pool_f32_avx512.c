/*
 * pool_f32_avx512.c -- AVX-512F 2-D max / average pooling: the kernel of
 * pool_f32_simd.h at 16 lanes (k-register masks for the row tails and the
 * interior lanes, vpermt2ps for the stride-2 even lanes). pool_f32.c
 * picks it. Compiled to something only when the compiler targets AVX-512F.
 */
#include <math.h>
#include "ln_rt_internal.h"
#include "pool_f32_x86.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>

/* lanes [lo, hi) of 16, lo and hi clamped */
static __mmask16 pl_lanes512(int32_t lo, int32_t hi)
{
    uint32_t m;
    if (lo < 0)
        lo = 0;
    if (hi > 16)
        hi = 16;
    if (lo >= hi)
        return 0;
    m = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
    return (__mmask16)m;
}

#define PL_CAT_(x, y) x##y
#define PL_CAT(x, y) PL_CAT_(x, y)
#define PL_ALIGN __attribute__((aligned(64)))
#define PL_V __m512
#define PL_VL 16
#define PL_M __mmask16
#define PL_LOAD(p) _mm512_loadu_ps(p)
#define PL_MLOAD(p, m) _mm512_maskz_loadu_ps(m, p)
#define PL_STORE(p, v) _mm512_storeu_ps(p, v)
#define PL_MSTORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define PL_SET1(x) _mm512_set1_ps(x)
/* a > b ? a : b, as vmaxps: b when either is NaN */
#define PL_MAX(a, b) _mm512_max_ps(a, b)
#define PL_ADD(a, b) _mm512_add_ps(a, b)
#define PL_MUL(a, b) _mm512_mul_ps(a, b)
#define PL_DIV(a, b) _mm512_div_ps(a, b)
#define PL_LANES(lo, hi) pl_lanes512(lo, hi)
/* m ? b : a per lane */
#define PL_SEL(m, a, b) _mm512_mask_mov_ps(a, m, b)
#define PL_POS(v) _mm512_cmp_ps_mask(v, _mm512_setzero_ps(), _CMP_GT_OQ)
#define PL_EVEN2(p) _mm512_permutex2var_ps(_mm512_loadu_ps(p),             \
    _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,   \
                      28, 30), _mm512_loadu_ps((p) + 16))
#define PL_FN ln_rt__pool2d_f32_avx512
#include "pool_f32_simd.h"

#else
typedef int ln_rt__pool_f32_avx512_unused;
#endif
