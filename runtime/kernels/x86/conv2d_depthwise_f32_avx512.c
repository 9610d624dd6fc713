/*
 * conv2d_depthwise_f32_avx512.c -- AVX-512F depthwise convolution: the direct kernel
 * of conv2d_depthwise_f32_simd.h at 16 lanes (k-register masks for the edge blocks,
 * vpermt2ps for the stride-2 even/odd split). conv2d_f32.c takes it for
 * rows of at least LN_RT_DW512_MIN_OW outputs; narrower rows would leave
 * most of the 16 lanes idle and go to the 8-lane AVX2 kernel.
 * Compiled to something only when the compiler targets AVX-512F.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"

static __mmask16 dw_range_mask(int32_t i0, int32_t n)
{
    int32_t lo = i0 < 0 ? -i0 : 0, hi = n - i0;
    uint32_t m;
    if (hi > 16)
        hi = 16;
    if (lo >= hi)
        return 0;
    m = (hi >= 32 ? 0xffffffffu : ((1u << hi) - 1u)) & ~((1u << lo) - 1u);
    return (__mmask16)m;
}


#define DW_CAT_(x, y) x##y
#define DW_CAT(x, y) DW_CAT_(x, y)
#define DW_V __m512
#define DW_VL 16
#define DW_M __mmask16
#define DW_LOAD(p) _mm512_loadu_ps(p)
#define DW_MLOAD(p, m) _mm512_maskz_loadu_ps(m, p)
#define DW_STORE(p, v) _mm512_storeu_ps(p, v)
#define DW_MSTORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define DW_FMA(x, y, z) _mm512_fmadd_ps(x, y, z)
#define DW_SET1(x) _mm512_set1_ps(x)
#define DW_RANGE_MASK(i0, n) dw_range_mask(i0, n)
#define DW_EVEN(lo, hi) _mm512_permutex2var_ps(lo, _mm512_setr_epi32(        \
    0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), hi)
#define DW_ODD(lo, hi) _mm512_permutex2var_ps(lo, _mm512_setr_epi32(         \
    1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), hi)
#define DW_FIX(v) (v)
#define DW_ACT(v, act, al, be) ln_rt__act_v512(v, act, al, be)
#define DW_FN ln_rt__conv2d_depthwise_f32_avx512
#include "conv2d_depthwise_f32_simd.h"

/* ---- flat kernel for narrow maps --------------------------------------
 * Stride 1 with "same" padding (output rows as wide as input rows): the
 * plane is one flat run of h*w pixels, cut into 16-lane vectors that cross
 * rows, so a 25x5 (DS-CNN), 6x6 or 3x3 map (MobileNetV1's tail) uses every
 * lane instead of a 5-, 6- or 3-wide row per vector. Lane j of tap
 * (ky, kx) reads flat offset p + j + (ky - pt) * w + kx - pl; the k-mask of
 * each (vector, tap) -- lanes whose row or column falls in the padding or
 * past the plane -- is the same for every channel and computed once per
 * call. Per channel: the taps' weights in registers, one masked load and
 * FMA per (vector, tap). Up to 1024 pixels and 25 taps (stack: 64 x 25
 * masks). Returns 0 without touching dst otherwise. */
#define DWF_MAXV 64
#define DWF_MAXT 25
int ln_rt__conv2d_depthwise_flat_f32_avx512(const ln_rt_conv2d_args *a,
                                  const float *src, const float *weight,
                                  const float *bias, float *dst)
{
    const int32_t H = a->h, W = a->w, kh = a->kh, kw = a->kw;
    const int32_t ntap = kh * kw, npix = H * W, nv = (npix + 15) / 16;
    const int32_t mult = a->oc / a->c;
    __mmask16 mk[DWF_MAXV][DWF_MAXT];
    int32_t off[DWF_MAXT], v, t, b, o;

    if (a->stride_h != 1 || a->stride_w != 1 || a->dil_h != 1 ||
        a->dil_w != 1 || a->pad_left + a->pad_right != kw - 1 ||
        a->pad_top + a->pad_bottom != kh - 1 || ntap > DWF_MAXT ||
        npix > DWF_MAXV * 16 || npix <= 0)
        return 0;
    for (t = 0; t < ntap; t++)
        off[t] = (t / kw - a->pad_top) * W + t % kw - a->pad_left;
    for (v = 0; v < nv; v++) {
        int32_t oy[16], ox[16], j, y = v * 16 / W, x = v * 16 % W;
        __m512i vy, vx;
        for (j = 0; j < 16; j++) {
            oy[j] = v * 16 + j < npix ? y : -(1 << 20);
            ox[j] = x;
            if (++x == W) {
                x = 0;
                y++;
            }
        }
        vy = _mm512_loadu_si512(oy);
        vx = _mm512_loadu_si512(ox);
        for (t = 0; t < ntap; t++) {
            const int32_t ky = t / kw, kx = t % kw;
            mk[v][t] = (__mmask16)(
                _mm512_cmpge_epi32_mask(vy, _mm512_set1_epi32(a->pad_top - ky)) &
                _mm512_cmplt_epi32_mask(vy, _mm512_set1_epi32(H + a->pad_top - ky)) &
                _mm512_cmpge_epi32_mask(vx, _mm512_set1_epi32(a->pad_left - kx)) &
                _mm512_cmplt_epi32_mask(vx, _mm512_set1_epi32(W + a->pad_left - kx)));
        }
    }
    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *in = src + ((size_t)b * a->c + o / mult) * npix;
            float *out = dst + ((size_t)b * a->oc + o) * npix;
            const float *wk = weight + (size_t)o * ntap;
            const __m512 b0 = _mm512_set1_ps(bias ? bias[o] : 0.0f);
            __m512 wv[DWF_MAXT];
            for (t = 0; t < ntap; t++)
                wv[t] = _mm512_set1_ps(wk[t]);
            /* four vectors at a time: four independent FMA chains (one
             * chain of ntap dependent FMAs per vector ran at the FMA
             * latency, about 2 cycles a tap on 14x14 5x5 layers) */
            for (v = 0; v + 4 <= nv; v += 4) {
                const int32_t p = v * 16, left = npix - p - 48;
                __m512 a0 = b0, a1 = b0, a2 = b0, a3 = b0;
                for (t = 0; t < ntap; t++) {
                    const float *q = in + p + off[t];
                    a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk[v][t], q),
                                         wv[t], a0);
                    a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk[v + 1][t], q + 16),
                                         wv[t], a1);
                    a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk[v + 2][t], q + 32),
                                         wv[t], a2);
                    a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mk[v + 3][t], q + 48),
                                         wv[t], a3);
                }
                _mm512_storeu_ps(out + p, ln_rt__act_v512(a0, a->act, a->alpha, a->beta));
                _mm512_storeu_ps(out + p + 16, ln_rt__act_v512(a1, a->act, a->alpha, a->beta));
                _mm512_storeu_ps(out + p + 32, ln_rt__act_v512(a2, a->act, a->alpha, a->beta));
                _mm512_mask_storeu_ps(out + p + 48, (__mmask16)(left >= 16 ? 0xffffu
                                      : (1u << left) - 1u),
                                      ln_rt__act_v512(a3, a->act, a->alpha, a->beta));
            }
            for (; v < nv; v++) {
                const int32_t p = v * 16, left = npix - p;
                __m512 acc = b0;
                for (t = 0; t < ntap; t++)
                    acc = _mm512_fmadd_ps(
                        _mm512_maskz_loadu_ps(mk[v][t], in + p + off[t]),
                        wv[t], acc);
                acc = ln_rt__act_v512(acc, a->act, a->alpha, a->beta);
                _mm512_mask_storeu_ps(out + p, (__mmask16)(left >= 16 ? 0xffffu
                                      : (1u << left) - 1u), acc);
            }
        }
    }
    return 1;
}

#else
typedef int ln_rt__conv2d_depthwise_avx512_unused; /* ISO C wants a non-empty file */
#endif
