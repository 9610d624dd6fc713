/*
 * conv2d_depthwise_f32_avx2.c -- AVX2/FMA depthwise convolution (group == c).
 *
 * ln_rt__conv2d_depthwise_f32_avx2: the direct kernel of conv2d_depthwise_f32_simd.h at 8
 * lanes -- no padded copy; interior blocks of up to 32 outputs with plain
 * loads, edge blocks with vmaskmovps loads/stores (masked lanes are the
 * zero padding), two output rows per pass at stride 1.
 *
 * ln_rt__conv2d_depthwise_f32_avx2_padded: the fallback for what the direct kernel
 * does not take (dilation, stride_w > 2, kw > 8, huge pads). It works on
 * the zero-padded plane the portable kernel also uses (see conv2d_f32.c),
 * so there are no bounds checks: 8 outputs at a time keep all kh x kw taps
 * in one accumulator register; stride 2 deinterleaves two loads; the row
 * tail (ow % 8) is computed into a temporary and copied. Other strides
 * fall back to scalar sums over the padded plane.
 */
#include <string.h>
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#include <immintrin.h>
#include "act_simd.h"

/* ---- direct kernel (conv2d_depthwise_f32_simd.h at 8 lanes) --------------------- */
static __m256i dw_range_mask(int32_t i0, int32_t n)
{
    __m256i idx = _mm256_add_epi32(_mm256_set1_epi32(i0),
                                   _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    return _mm256_and_si256(
        _mm256_cmpgt_epi32(idx, _mm256_set1_epi32(-1)),
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx));
}

#define DW_CAT_(x, y) x##y
#define DW_CAT(x, y) DW_CAT_(x, y)
#define DW_V __m256
#define DW_VL 8
#define DW_M __m256i
#define DW_LOAD(p) _mm256_loadu_ps(p)
#define DW_MLOAD(p, m) _mm256_maskload_ps(p, m)
#define DW_STORE(p, v) _mm256_storeu_ps(p, v)
#define DW_MSTORE(p, m, v) _mm256_maskstore_ps(p, m, v)
#define DW_FMA(x, y, z) _mm256_fmadd_ps(x, y, z)
#define DW_SET1(x) _mm256_set1_ps(x)
#define DW_RANGE_MASK(i0, n) dw_range_mask(i0, n)
/* in-lane: outputs come out as 0 1 4 5 | 2 3 6 7, fixed before the store */
#define DW_EVEN(lo, hi) _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0))
#define DW_ODD(lo, hi) _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1))
#define DW_FIX(v) _mm256_castpd_ps(_mm256_permute4x64_pd( \
    _mm256_castps_pd(v), _MM_SHUFFLE(3, 1, 2, 0)))
#define DW_ACT(v, act, al, be) ln_rt__act_nosilu_v256(v, act, al, be)
#define DW_ACT_FULL(v, act, al, be) ln_rt__act_v256(v, act, al, be)
#define DW_FN ln_rt__conv2d_depthwise_f32_avx2
#include "conv2d_depthwise_f32_simd.h"

/* ---- padded-plane fallback ------------------------------------------- */
static __m256 load_s2(const float *p)
{
    __m256 lo = _mm256_loadu_ps(p), hi = _mm256_loadu_ps(p + 8);
    __m256 ev = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(ev),
                                                  _MM_SHUFFLE(3, 1, 2, 0)));
}

void ln_rt__conv2d_depthwise_f32_avx2_padded(const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, float *dst, float *pp)
{
    int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                                     a->pad_bottom, a->dil_h);
    int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                                     a->pad_right, a->dil_w);
    int32_t wp = a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK;
    int32_t hp = a->h + a->pad_top + a->pad_bottom;
    const int32_t sw = a->stride_w, kk = a->kh * a->kw;
    int32_t mult = a->oc / a->c, b, o, oy, ox, ky, kx, t;
    int vec = (sw == 1 || sw == 2) && kk <= 49;
    __m256 wv[49];
    int32_t toff[49];

    memset(pp, 0, (size_t)wp * hp * sizeof(float));
    for (ky = 0; ky < a->kh && vec; ky++)
        for (kx = 0; kx < a->kw; kx++)
            toff[ky * a->kw + kx] = ky * a->dil_h * wp + kx * a->dil_w;
    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *wk = weight + (size_t)o * kk;
            float *out = dst + ((size_t)b * a->oc + o) * oh * ow;
            float b0 = bias ? bias[o] : 0.0f;
            __m256 bv = _mm256_set1_ps(b0);
            if (o % mult == 0)
                ln_rt__conv2d_depthwise_pad_plane(a, src + ((size_t)b * a->c + o / mult) *
                                               a->h * a->w, pp);
            if (!vec) {
                for (oy = 0; oy < oh; oy++) {
                    for (ox = 0; ox < ow; ox++) {
                        const float *ip = pp + (size_t)oy * a->stride_h * wp
                                          + (size_t)ox * sw;
                        float v = b0;
                        for (ky = 0; ky < a->kh; ky++)
                            for (kx = 0; kx < a->kw; kx++)
                                v += wk[ky * a->kw + kx] *
                                     ip[ky * a->dil_h * wp + kx * a->dil_w];
                        out[(size_t)oy * ow + ox] = v;
                    }
                    ln_rt__act_f32(out + (size_t)oy * ow, (size_t)ow, a->act,
                                   a->alpha, a->beta);
                }
                continue;
            }
            for (t = 0; t < kk; t++)
                wv[t] = _mm256_set1_ps(wk[t]);
            for (oy = 0; oy < oh; oy++) {
                const float *irow = pp + (size_t)oy * a->stride_h * wp;
                float *orow = out + (size_t)oy * ow;
                /* up to 32 outputs per pass: four independent accumulators
                 * hide the FMA latency; chunks past ow are not computed */
                for (ox = 0; ox < ow; ox += 32) {
                    const float *ip = irow + (size_t)ox * sw;
                    const int32_t cs = 8 * sw; /* input step per chunk */
                    int nch = (int)((ow - ox + 7) / 8), k;
                    __m256 c0 = bv, c1 = bv, c2 = bv, c3 = bv, acc[4];
                    if (nch > 4)
                        nch = 4;
                    if (sw == 1) {
                        for (t = 0; t < kk; t++) {
                            const float *q = ip + toff[t];
                            __m256 wt = wv[t];
                            c0 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(q), c0);
                            if (nch > 1)
                                c1 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(q + 8),
                                                     c1);
                            if (nch > 2)
                                c2 = _mm256_fmadd_ps(
                                    wt, _mm256_loadu_ps(q + 16), c2);
                            if (nch > 3)
                                c3 = _mm256_fmadd_ps(
                                    wt, _mm256_loadu_ps(q + 24), c3);
                        }
                    } else {
                        for (t = 0; t < kk; t++) {
                            const float *q = ip + toff[t];
                            __m256 wt = wv[t];
                            c0 = _mm256_fmadd_ps(wt, load_s2(q), c0);
                            if (nch > 1)
                                c1 = _mm256_fmadd_ps(wt, load_s2(q + cs), c1);
                            if (nch > 2)
                                c2 = _mm256_fmadd_ps(wt, load_s2(q + 2 * cs),
                                                     c2);
                            if (nch > 3)
                                c3 = _mm256_fmadd_ps(wt, load_s2(q + 3 * cs),
                                                     c3);
                        }
                    }
                    acc[0] = c0; acc[1] = c1; acc[2] = c2; acc[3] = c3;
                    for (k = 0; k < nch; k++) {
                        int32_t o0 = ox + 8 * k;
                        if (o0 + 8 <= ow) {
                            _mm256_storeu_ps(orow + o0, acc[k]);
                        } else {
                            float tmp[8];
                            _mm256_storeu_ps(tmp, acc[k]);
                            memcpy(orow + o0, tmp,
                                   (size_t)(ow - o0) * sizeof(float));
                        }
                    }
                }
                ln_rt__act_f32(orow, (size_t)ow, a->act, a->alpha, a->beta);
            }
        }
    }
}

/* ---- channels-last (ln_rt_conv2d_depthwise_nhwc_f32) -----------------
 * Per output pixel, 32 (then 16) channels at a time: bias, then every tap
 * in row-major order as one FMA of its 8 weights (wt[t][c], tap-major)
 * with the input's 8 channels, zeros for a tap in the padding: the direct
 * kernel's sums. */
#define DWN_TAP(K)                                                            \
    do {                                                                      \
        const float *w_ = wt + (size_t)t * C + c0 + 8 * (K);                  \
        acc[K] = _mm256_fmadd_ps(_mm256_loadu_ps(w_),                         \
                                 ip ? _mm256_loadu_ps(ip + c0 + 8 * (K))      \
                                    : _mm256_setzero_ps(),                    \
                                 acc[K]);                                     \
    } while (0)
void ln_rt__conv2d_depthwise_nhwc_f32_avx2(const ln_rt_conv2d_args *a,
                                           const float *src, const float *wt,
                                           const float *bias, float *dst)
{
    const int32_t H = a->h, W = a->w, C = a->c, kh = a->kh, kw = a->kw;
    int32_t oh, ow, b, oy, ox, ky, kx, c0, k, nv;
    ln_rt__conv_out_hw(a, &oh, &ow);
    for (b = 0; b < a->n; b++)
        for (oy = 0; oy < oh; oy++)
            for (ox = 0; ox < ow; ox++) {
                float *o = dst + (((size_t)b * oh + oy) * ow + ox) * C;
                for (c0 = 0; c0 < C; c0 += 8 * nv) {
                    __m256 acc[4];
                    int32_t t = 0;
                    nv = C - c0 >= 32 ? 4 : 2;
                    for (k = 0; k < nv; k++)
                        acc[k] = bias ? _mm256_loadu_ps(bias + c0 + 8 * k)
                                      : _mm256_setzero_ps();
                    for (ky = 0; ky < kh; ky++) {
                        const int32_t iy = oy * a->stride_h - a->pad_top + ky;
                        for (kx = 0; kx < kw; kx++, t++) {
                            const int32_t ix =
                                ox * a->stride_w - a->pad_left + kx;
                            const float *ip =
                                iy >= 0 && iy < H && ix >= 0 && ix < W
                                    ? src + (((size_t)b * H + iy) * W + ix) * C
                                    : NULL;
                            DWN_TAP(0);
                            DWN_TAP(1);
                            if (nv == 4) {
                                DWN_TAP(2);
                                DWN_TAP(3);
                            }
                        }
                    }
                    for (k = 0; k < nv; k++)
                        _mm256_storeu_ps(o + c0 + 8 * k, acc[k]);
                }
            }
    ln_rt__act_f32(dst, (size_t)a->n * oh * ow * C, a->act, a->alpha,
                   a->beta);
}
#undef DWN_TAP

#else
typedef int ln_rt__conv2d_depthwise_avx2_unused; /* ISO C wants a non-empty file */
#endif
