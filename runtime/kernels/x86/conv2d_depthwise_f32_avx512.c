/*
 * conv2d_depthwise_f32_avx512.c -- AVX-512F depthwise convolution: the direct kernel
 * of conv2d_depthwise_f32_simd.h at 16 lanes (k-register masks for the edge blocks,
 * vpermt2ps for the stride-2 even/odd split), taken for rows of at least
 * LN_RT_DW512_MIN_OW outputs; for narrower ones the flat kernel (16 lanes
 * across the rows of the plane) and, before both for the shapes
 * ln_rt__conv2d_depthwise_cl_floats names, the channels kernel (16
 * channels across the lanes). conv2d_depthwise_f32.c picks.
 * Compiled to something only when the compiler targets AVX-512F.
 */
#include <string.h>
#include <stddef.h>
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"
#include "transpose16_avx512.h"

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
#define DW_ACT(v, act, al, be) ln_rt__act_nosilu_v512(v, act, al, be)
#define DW_ACT_FULL(v, act, al, be) ln_rt__act_v512(v, act, al, be)
/* lanes n.. of lo, then hi's (valignd): lane l = (lo:hi)[l + n], 0 < n < 16 */
#define DW_ALIGNR(hi, lo, n)                                                  \
    _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi),         \
                                            _mm512_castps_si512(lo), n))
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

/* ---- 3x3 stride 1 on rows of 2..31: one load per vector, lane shifts -
 * The flat kernel above pays a masked load per (vector, tap) that splits
 * two cache lines; the channels kernel below, two 16 x 16 transposes per
 * 16 pixels; the direct kernel, on rows of 16 or more, masked edge
 * vectors (a 24-wide row is two vectors, one of them half idle). Here
 * each input vector of the flat plane is loaded once, in order, into a
 * window of 2D + 1 (v - D .. v + D: D = 1 for rows of up to 15, 2 for
 * 17..31). A tap's input for output vector v is then one two-register
 * lane shift (vpermt2ps) of a pair of the window:
 * the row above reads the pair starting at v - D, the row below the pair
 * starting at v + D - 1, the own row (v - 1, v) on the left and (v, v + 1)
 * on the right; a tap's flat offset (ky - 1) * W + kx - 1 is within that
 * pair for every such row width (not 16, whose row above is exactly
 * v - 1: there the direct kernel's vectors are full anyway). A left tap
 * (kx 0) of an output in the first column, or a right tap (kx 2) of one
 * in the last, is zeroed by the shift's own k-mask (stop 33 kept two
 * copies of each window vector with a column zeroed instead: two more
 * ops a vector; 0.91-0.98 of its time on a Zen 5 without them), a tap
 * above or below the plane reads a zero vector. No mask is computed in
 * the loop (the column masks repeat every per vectors), and a zero tap is
 * 0 * w as in the flat and channels kernels: the same bits (bias, then
 * the taps in row-major order). */
#define DWL_TAP(t, lo, hi) _mm512_permutex2var_ps(lo, idx[t], hi)
/* the same, with the lanes off k zeroed (a column in the padding) */
#define DWL_MTAP(t, k, lo, hi) _mm512_maskz_permutex2var_ps(k, lo, idx[t], hi)
static inline __attribute__((always_inline)) void
dwl_plane(const int D, const float *in, float *out, int32_t npix,
          int32_t nv, int32_t per, const __mmask16 *not_first,
          const __mmask16 *not_last, const __m512i *idx, const float *wk,
          __m512 b0, ln_rt_act act, float alpha, float beta)
{
    const __m512 w0 = _mm512_set1_ps(wk[0]), w1 = _mm512_set1_ps(wk[1]),
                 w2 = _mm512_set1_ps(wk[2]), w3 = _mm512_set1_ps(wk[3]),
                 w4 = _mm512_set1_ps(wk[4]), w5 = _mm512_set1_ps(wk[5]),
                 w6 = _mm512_set1_ps(wk[6]), w7 = _mm512_set1_ps(wk[7]),
                 w8 = _mm512_set1_ps(wk[8]);
    const __m512 z = _mm512_setzero_ps();
    /* the window v - 2 .. v + 2 (D = 1 uses v - 1 .. v + 1) */
    __m512 a2 = z, a1 = z, c0 = z, n1 = z, n2, acc;
    int32_t v, m = 0, j; /* m: v % per, the output vector's column masks */

    /* vectors 0 .. D - 1 into the window's upper end */
    for (j = 0; j < D; j++) {
        const int32_t left = npix - 16 * j;
        const __m512 x = left >= 16 ? _mm512_loadu_ps(in + 16 * j)
                         : left > 0 ? _mm512_maskz_loadu_ps(
                                          (__mmask16)((1u << left) - 1u),
                                          in + 16 * j)
                                    : z;
        a2 = a1;
        a1 = c0;
        c0 = n1;
        n1 = x;
    }
    if (D == 1) { /* window (a1, c0, n1) = (v - 1, v, v + 1) at v = 0 */
        a1 = c0;
        c0 = n1;
    }
    for (v = 0; v < nv; v++) {
        const int32_t q = (v + D) * 16, left = npix - q;
        const int32_t out_left = npix - v * 16;
        /* the lanes the left taps (output column not the first) and the
         * right taps (not the last) keep */
        const __mmask16 kl = not_first[m], kr = not_last[m];
        n2 = left >= 16 ? _mm512_loadu_ps(in + q)
             : left > 0 ? _mm512_maskz_loadu_ps(
                              (__mmask16)((1u << left) - 1u), in + q)
                        : z;
        {
            /* the pairs the rows above and below read, and the vector
             * after v: (v - 1, v), (v, v + 1), v + 1 with D = 1 (window
             * a1, c0, n2); (v - 2, v - 1), (v + 1, v + 2), v + 1 with D = 2
             * (a2, a1, c0, n1, n2) */
            const __m512 u0 = D == 1 ? a1 : a2, u1 = D == 1 ? c0 : a1;
            const __m512 d0 = D == 1 ? c0 : n1, nx = D == 1 ? n2 : n1;
            acc = _mm512_fmadd_ps(DWL_MTAP(0, kl, u0, u1), w0, b0);
            acc = _mm512_fmadd_ps(DWL_TAP(1, u0, u1), w1, acc);
            acc = _mm512_fmadd_ps(DWL_MTAP(2, kr, u0, u1), w2, acc);
            acc = _mm512_fmadd_ps(DWL_MTAP(3, kl, a1, c0), w3, acc);
            acc = _mm512_fmadd_ps(c0, w4, acc);
            acc = _mm512_fmadd_ps(DWL_MTAP(5, kr, c0, nx), w5, acc);
            acc = _mm512_fmadd_ps(DWL_MTAP(6, kl, d0, n2), w6, acc);
            acc = _mm512_fmadd_ps(DWL_TAP(7, d0, n2), w7, acc);
            acc = _mm512_fmadd_ps(DWL_MTAP(8, kr, d0, n2), w8, acc);
        }
        acc = ln_rt__act_v512(acc, act, alpha, beta);
        if (out_left >= 16)
            _mm512_storeu_ps(out + v * 16, acc);
        else
            _mm512_mask_storeu_ps(out + v * 16,
                                  (__mmask16)((1u << out_left) - 1u), acc);
        if (D == 1) {
            a1 = c0;
            c0 = n2;
        } else {
            a2 = a1;
            a1 = c0;
            c0 = n1;
            n1 = n2;
        }
        m = m + 1 == per ? 0 : m + 1;
    }
}
#undef DWL_MTAP
#undef DWL_TAP

int ln_rt__conv2d_depthwise_flat3_f32_avx512(const ln_rt_conv2d_args *a,
                                             const float *src,
                                             const float *weight,
                                             const float *bias, float *dst)
{
    const int32_t H = a->h, W = a->w, npix = H * W, nv = (npix + 15) / 16;
    const int32_t mult = a->oc / a->c, D = W <= 15 ? 1 : 2;
    /* column masks repeat every W / gcd(16, W) <= 31 vectors */
    __mmask16 not_first[31], not_last[31];
    __m512i idx[9];
    int32_t per, v, t, b, o;

    if (!ln_rt__conv2d_depthwise_flat3_ok(a))
        return 0;
    for (per = 1; (per * 16) % W; per++)
        ;
    for (v = 0; v < per; v++) {
        /* column x = p - W floor(p / W) of the lanes' flat positions p
         * (< 512: the float quotient's floor is exact) */
        const __m512i p = _mm512_add_epi32(
            _mm512_set1_epi32(v * 16),
            _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                              14, 15));
        const __m512 fq = _mm512_floor_ps(_mm512_div_ps(
            _mm512_cvtepi32_ps(p), _mm512_set1_ps((float)W)));
        const __m512i x = _mm512_sub_epi32(
            p, _mm512_mullo_epi32(_mm512_cvtps_epi32(fq),
                                  _mm512_set1_epi32(W)));
        not_last[v] = _mm512_cmpneq_epi32_mask(x, _mm512_set1_epi32(W - 1));
        not_first[v] = _mm512_cmpneq_epi32_mask(x, _mm512_setzero_si512());
    }
    /* tap t = 3 ky + kx at flat offset off reads lanes off - 16 q + j of
     * the pair (v + q, v + q + 1): q = -D for the row above, D - 1 below,
     * -1 / 0 left / right in the own row (the centre tap reads v) */
    for (t = 0; t < 9; t++) {
        const int32_t ky = t / 3, kx = t % 3;
        const int32_t off = (ky - 1) * W + kx - 1;
        const int32_t q = ky == 0 ? -D : ky == 2 ? D - 1 : kx == 0 ? -1 : 0;
        idx[t] = _mm512_add_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8,
                                                    9, 10, 11, 12, 13, 14,
                                                    15),
                                  _mm512_set1_epi32(off - 16 * q));
    }
    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *in = src + ((size_t)b * a->c + o / mult) * npix;
            float *out = dst + ((size_t)b * a->oc + o) * npix;
            const __m512 b0 = _mm512_set1_ps(bias ? bias[o] : 0.0f);
            if (D == 1)
                dwl_plane(1, in, out, npix, nv, per, not_first, not_last, idx,
                          weight + (size_t)o * 9, b0, a->act, a->alpha,
                          a->beta);
            else
                dwl_plane(2, in, out, npix, nv, per, not_first, not_last, idx,
                          weight + (size_t)o * 9, b0, a->act, a->alpha,
                          a->beta);
        }
    }
    return 1;
}

/* ---- channels across lanes, for narrow maps ----------------------------
 * With 16 lanes along a row of 3..15 outputs, or along the flat plane
 * (the kernel above), every (vector, tap) costs a load that straddles two
 * cache lines or a lane shuffle: measured, either runs at about half the
 * FMA rate of an aligned load (2.4 against 4.4 FMA/ns, one core). Here
 * the 16 lanes are 16 channels: per group of 16 output channels the
 * input planes are transposed (16 x 16 blocks, 64 shuffles per 256
 * floats) into a zero-bordered pixel-major buffer -- pixel (y, x) of the
 * padded image is one aligned vector of 16 channels -- so every tap of
 * every output pixel is one aligned load and one FMA with that tap's
 * 16 weights, for any stride and any pads; the outputs (pixel-major) are
 * transposed back into the channel planes. Channel tails (oc % 16) run
 * with the missing lanes zero and not stored; the channel multiplier
 * picks each lane's input plane. Scratch: the padded buffer and the
 * output buffer, ln_rt__conv2d_depthwise_cl_floats (which also says which
 * shapes this takes; 0: none, the function returns 0 without touching
 * dst). Sum order per output: bias, then taps in row-major order (the
 * same as the flat and direct kernels). */

/* one group of (up to) 16 channels */
typedef struct {
    const float *in[16]; /* lane r's input plane, NULL: zero lanes */
    float *out0;         /* lane 0's output plane (planes nq apart) */
    float *pad, *ob;
    int32_t nc, W, npix, nq, pt, pl, wp;
    int32_t p_done, y, x; /* input pixels transposed; the next one's (y, x) */
    int32_t q_done;       /* outputs transposed back */
    int32_t C;            /* channels-last: out0's pixel stride (floats) */
} dwc_grp;

/* transpose input pixels [p_done, ...) in 16s until at least np are in */
static inline __attribute__((always_inline)) void dwc_in(dwc_grp *g,
                                                         int32_t np)
{
    __m512 rv[16];
    int32_t r, j;
    if (np > g->npix)
        np = g->npix;
    while (g->p_done < np) {
        const int32_t p0 = g->p_done;
        const int32_t n = g->npix - p0 < 16 ? g->npix - p0 : 16;
        if (n == 16)
            for (r = 0; r < 16; r++)
                rv[r] = g->in[r] ? _mm512_loadu_ps(g->in[r] + p0)
                                 : _mm512_setzero_ps();
        else
            for (r = 0; r < 16; r++)
                rv[r] = g->in[r] ? _mm512_maskz_loadu_ps(
                                       (__mmask16)((1u << n) - 1u), g->in[r] + p0)
                                 : _mm512_setzero_ps();
        ln_rt__tr16_ps(rv);
        for (j = 0; j < n; j++) {
            _mm512_store_ps(g->pad + (size_t)16 * ((g->y + g->pt) * g->wp +
                                                   g->x + g->pl),
                            rv[j]);
            if (++g->x == g->W) {
                g->x = 0;
                g->y++;
            }
        }
        g->p_done = p0 + n;
    }
}

/* transpose the outputs [q_done, nq) back into the channel planes, in
 * whole 16s unless all: the last block may be short */
static inline __attribute__((always_inline)) void dwc_out(dwc_grp *g,
                                                          int32_t nq)
{
    __m512 rv[16];
    int32_t r, j;
    while (g->q_done + 16 <= nq ||
           (nq == g->nq && g->q_done < nq)) {
        const int32_t q0 = g->q_done;
        const int32_t n = g->nq - q0 < 16 ? g->nq - q0 : 16;
        for (j = 0; j < 16; j++)
            rv[j] = j < n ? _mm512_load_ps(g->ob + (size_t)16 * (q0 + j))
                          : _mm512_setzero_ps();
        ln_rt__tr16_ps(rv);
        if (n == 16)
            for (r = 0; r < g->nc; r++)
                _mm512_storeu_ps(g->out0 + (size_t)r * g->nq + q0, rv[r]);
        else
            for (r = 0; r < g->nc; r++)
                _mm512_mask_storeu_ps(g->out0 + (size_t)r * g->nq + q0,
                                      (__mmask16)((1u << n) - 1u), rv[r]);
        g->q_done = q0 + n;
    }
}

/* XB consecutive output pixels in each of R rows, all taps; KH / KW / SW
 * constant in the unrolled instances (SW 0: sw at run time). ip: padded
 * pixel of the first output's first tap; wp: padded row length (pixels);
 * rs: floats from one output row's inputs to the next's; os: the same
 * for the outputs */
static inline __attribute__((always_inline)) void
dwc_px(const int KH, const int KW, const int SW, const int XB, const int R,
       const int CL, const float *ip, int32_t wp, int32_t sw_, size_t rs,
       const float *wt, __m512 b0, float *op, size_t os, size_t ops,
       ln_rt_act act, float al, float be)
{
    const int32_t sw = SW ? SW : sw_;
    __m512 acc[2][8];
    int x, ky, kx, i;
    for (i = 0; i < R; i++)
        for (x = 0; x < XB; x++)
            acc[i][x] = b0;
    for (ky = 0; ky < KH; ky++) {
        const float *row = ip + (size_t)16 * ky * wp;
        for (kx = 0; kx < KW; kx++) {
            const __m512 w = _mm512_load_ps(wt + 16 * (ky * KW + kx));
            for (i = 0; i < R; i++)
                for (x = 0; x < XB; x++)
                    acc[i][x] = _mm512_fmadd_ps(
                        _mm512_load_ps(row + i * rs + 16 * (x * sw + kx)), w,
                        acc[i][x]);
        }
    }
    for (i = 0; i < R; i++)
        for (x = 0; x < XB; x++) {
            const __m512 y = ln_rt__act_v512(acc[i][x], act, al, be);
            if (CL) /* straight into the channels-last output */
                _mm512_storeu_ps(op + i * os + ops * x, y);
            else
                _mm512_store_ps(op + i * os + 16 * x, y);
        }
}

/* xb (a run-time value) output pixels from ox in two rows (xb 1..8) or
 * in one (xb 8, 4, 2 or 1): the unrolled instance for xb */
#define DWC_PX(XB, R)                                                         \
    dwc_px(KH, KW, SW, XB, R, CL, ir + (size_t)16 * ox * sw, wp, sw, rs, wt,  \
           b0, orow + ops * ox, os, ops, act, al, be)
#define DWC_XB2(xb)                                                           \
    do {                                                                      \
        switch (xb) {                                                         \
        case 8: DWC_PX(8, 2); break;                                          \
        case 7: DWC_PX(7, 2); break;                                          \
        case 6: DWC_PX(6, 2); break;                                          \
        case 5: DWC_PX(5, 2); break;                                          \
        case 4: DWC_PX(4, 2); break;                                          \
        case 3: DWC_PX(3, 2); break;                                          \
        case 2: DWC_PX(2, 2); break;                                          \
        default: DWC_PX(1, 2); break;                                         \
        }                                                                     \
    } while (0)
#define DWC_XB1(xb)                                                           \
    do {                                                                      \
        switch (xb) {                                                         \
        case 8: DWC_PX(8, 1); break;                                          \
        case 4: DWC_PX(4, 1); break;                                          \
        case 2: DWC_PX(2, 1); break;                                          \
        default: DWC_PX(1, 1); break;                                         \
        }                                                                     \
    } while (0)

/* all output rows, two at a time, each row in ceil(ow / 8) runs of as
 * even a length as there can be (ow 14: 7 + 7), so that every pass keeps
 * 2 x 4..8 sums in flight. With an odd row count the last row runs again
 * with the one before it (the same values written twice); a single row
 * alone. The input is transposed in as the rows need it and the outputs
 * transposed back as they complete, so the shuffles of one interleave
 * with the FMAs of the other. */
static inline __attribute__((always_inline)) void
dwc_rows(const int KH, const int KW, const int SW, const int CL, dwc_grp *g,
         int32_t kh, int32_t sh, int32_t sw_, int32_t oh, int32_t ow,
         const float *wt, __m512 b0, ln_rt_act act, float al, float be)
{
    const int32_t sw = SW ? SW : sw_, wp = g->wp;
    const int32_t nrun = (ow + 7) / 8, base = ow / nrun, ext = ow % nrun;
    /* CL: the output is channels-last, lane 0 at out0, pixels C apart;
     * the input is already in g->pad */
    const size_t ops = CL ? (size_t)g->C : 16;
    const size_t rs = (size_t)16 * sh * wp, os = ops * ow;
    int32_t oy, ox, i;
    for (oy = 0; oy < oh;) {
        /* rows y0 and y0 + 1, or y0 alone */
        const int32_t y0 = oy + 1 < oh || oh == 1 ? oy : oh - 2;
        const float *ir = g->pad + (size_t)16 * y0 * sh * wp;
        float *orow = (CL ? g->out0 : g->ob) + ops * y0 * ow;
        /* the last input row these output rows read (+1), in pixels */
        if (!CL)
            dwc_in(g, ((y0 + (oh > 1)) * sh + kh - g->pt) * g->W);
        if (oh > 1)
            for (i = 0, ox = 0; i < nrun; ox += base + (i < ext), i++)
                DWC_XB2(base + (i < ext));
        else /* runs of 8, 4, 2, 1: a single row is rare */
            for (ox = 0; ox < ow; ox += i) {
                i = ow - ox >= 8 ? 8 : ow - ox >= 4 ? 4 : ow - ox >= 2 ? 2 : 1;
                DWC_XB1(i);
            }
        oy = y0 + 1 + (oh > 1);
        if (!CL)
            dwc_out(g, oy * ow);
    }
}

/* a group's geometry; the padded buffer 64-byte aligned in scratch */
static void dwc_init(dwc_grp *g, const ln_rt_conv2d_args *a, int32_t oh,
                     int32_t ow, void *scratch)
{
    g->W = a->w;
    g->npix = a->h * a->w;
    g->nq = oh * ow;
    g->pt = a->pad_top;
    g->pl = a->pad_left;
    g->wp = a->w + a->pad_left + a->pad_right;
    g->pad = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
}

/* the padded buffer's hp rows zero */
static void dwc_zero(dwc_grp *g, int32_t hp)
{
    int32_t j;
    for (j = 0; j < hp * g->wp; j++)
        _mm512_store_ps(g->pad + 16 * j, _mm512_setzero_ps());
}

/* group g's weights, tap t's 16 (zero in the missing lanes) at wt + 16 t:
 * the group's 16 x ntap block transposed, 16 taps at a time */
static void dwc_weights(const float *weight, int32_t o0, int32_t nc,
                        int32_t ntap, float *wt)
{
    __m512 rv[16];
    int32_t t, r, j;
    for (t = 0; t < ntap; t += 16) {
        const int32_t nt = ntap - t < 16 ? ntap - t : 16;
        const __mmask16 tm = (__mmask16)((1u << nt) - 1u);
        for (r = 0; r < 16; r++)
            rv[r] = r < nc ? _mm512_maskz_loadu_ps(
                                 tm, weight + (size_t)(o0 + r) * ntap + t)
                           : _mm512_setzero_ps();
        ln_rt__tr16_ps(rv);
        /* not a loop to nt: GCC made that a memcpy call */
        for (j = 0; j < 16; j++)
            if (j < nt)
                _mm512_store_ps(wt + 16 * (t + j), rv[j]);
    }
}

/* the unrolled instances: 3x3 and 5x5 at stride 1 and 2, the rest with
 * the stride at run time */
static inline __attribute__((always_inline)) void
dwc_run(const int CL, dwc_grp *g, const ln_rt_conv2d_args *a, int32_t oh,
        int32_t ow, const float *wt, __m512 b0)
{
    const int32_t kh = a->kh, kw = a->kw, sh = a->stride_h, sw = a->stride_w;
    if (kh == 3 && kw == 3 && sw == 1)
        dwc_rows(3, 3, 1, CL, g, kh, sh, sw, oh, ow, wt, b0, a->act,
                 a->alpha, a->beta);
    else if (kh == 3 && kw == 3 && sw == 2)
        dwc_rows(3, 3, 2, CL, g, kh, sh, sw, oh, ow, wt, b0, a->act,
                 a->alpha, a->beta);
    else if (kh == 5 && kw == 5 && sw == 1)
        dwc_rows(5, 5, 1, CL, g, kh, sh, sw, oh, ow, wt, b0, a->act,
                 a->alpha, a->beta);
    else if (kh == 5 && kw == 5 && sw == 2)
        dwc_rows(5, 5, 2, CL, g, kh, sh, sw, oh, ow, wt, b0, a->act,
                 a->alpha, a->beta);
    else
        dwc_rows(kh, kw, 0, CL, g, kh, sh, sw, oh, ow, wt, b0, a->act,
                 a->alpha, a->beta);
}
#undef DWC_XB1
#undef DWC_XB2
#undef DWC_PX

int ln_rt__conv2d_depthwise_cl_f32_avx512(const ln_rt_conv2d_args *a,
                                          const float *src,
                                          const float *weight,
                                          const float *bias, float *dst,
                                          void *scratch)
{
    const int32_t H = a->h;
    const int32_t hp = H + a->pad_top + a->pad_bottom;
    const int32_t ntap = a->kh * a->kw, mult = a->oc / a->c;
    int32_t oh, ow, b, o0, r;
    dwc_grp g;
    float wt[64 * 16] __attribute__((aligned(64)));

    if (!ln_rt__conv2d_depthwise_cl_floats(a))
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    dwc_init(&g, a, oh, ow, scratch);
    g.ob = g.pad + (size_t)16 * hp * g.wp;
    /* the border stays zero; the interior is rewritten per group */
    dwc_zero(&g, hp);
    for (b = 0; b < a->n; b++) {
        for (o0 = 0; o0 < a->oc; o0 += 16) {
            __m512 b0;
            g.nc = a->oc - o0 < 16 ? a->oc - o0 : 16;
            for (r = 0; r < 16; r++)
                g.in[r] = r < g.nc ? src + ((size_t)b * a->c + (o0 + r) / mult) *
                                               (size_t)g.npix
                                   : NULL;
            g.out0 = dst + ((size_t)b * a->oc + o0) * (size_t)g.nq;
            g.p_done = g.y = g.x = g.q_done = 0;
            dwc_weights(weight, o0, g.nc, ntap, wt);
            b0 = bias ? _mm512_maskz_loadu_ps((__mmask16)((1u << g.nc) - 1u),
                                              bias + o0)
                      : _mm512_setzero_ps();
            dwc_run(0, &g, a, oh, ow, wt, b0);
        }
    }
    return 1;
}

/* 3x3 stride 1 pads 1 channels-last, read in place, for H >= 2: the XB
 * outputs from column ox of every row, two rows a pass (an odd count's
 * last row again with the one before it), 16 channels (o0), the nine
 * weight vectors and 2 x XB sums in registers. Input row iy is img + iy
 * * W * C (pixels C floats apart; rows outside the image read zrow, W x C
 * zeros); the run's taps left of its first output and right of its last
 * load through the masks ml / mr, zero where that column is the padding
 * (the address then the row's first / last pixel, so that no load leaves
 * the row). A padded tap adds 0 * w: the NCHW kernels' sums (bias, then
 * the taps in row-major order). ACT: 1 none, 2 relu, 3 the clamps (ReLU6,
 * MobileNetV2's, and Clip: ln_rt__act_nosilu_v512's min(max(v, lo), hi)
 * with lo and hi in registers; through that function's switch, 960 @7
 * took 1.36x ReLU's time, 384 @14 1.47x), 0 a's at run time.
 * In one process on a Zen 5, against the NCHW kernel these shapes take
 * (the 3x3 lane-shift one): DS-CNN's 64 @25x5 0.53, 128 @6 0.51, 256 @3
 * 0.47, 32 @7 0.49 (and 0.52 of the channels kernel on a copy of the
 * image, the first version); with the ky loop left rolled by GCC (the
 * weights reloaded) 0.72. */
static inline __attribute__((always_inline)) void
dwn3_col(const int XB, const int ACT, const ln_rt_conv2d_args *a,
         const float *img, const float *zrow, const float *wt, __m512 b0,
         int32_t o0, int32_t ox, float *out)
{
    const int32_t H = a->h, W = a->w;
    const size_t C = (size_t)a->c, rs = (size_t)W * C;
    const __mmask16 ml = ox == 0 ? 0 : 0xffff;
    const __mmask16 mr = ox + XB == W ? 0 : 0xffff;
    /* columns of the taps left of / right of the run, in the row */
    const int32_t cl = ox == 0 ? 0 : ox - 1, cr = ox + XB == W ? W - 1 : ox + XB;
    const __m512 lo = _mm512_set1_ps(a->act == LN_RT_ACT_CLIP ? a->alpha : 0.0f);
    const __m512 hi = _mm512_set1_ps(a->act == LN_RT_ACT_CLIP ? a->beta : 6.0f);
    __m512 w[9];
    int32_t oy, j;
    for (j = 0; j < 9; j++)
        w[j] = _mm512_load_ps(wt + 16 * j);
    for (oy = 0; oy < H;) {
        const int32_t y0 = oy + 1 < H ? oy : H - 2;
        const float *rp[4];
        __m512 acc[2][8];
        int i, x, ky, kx;
        for (j = 0; j < 4; j++) {
            const int32_t iy = y0 - 1 + j;
            rp[j] = (iy >= 0 && iy < H ? img + (size_t)iy * rs : zrow) + o0;
        }
        for (i = 0; i < 2; i++)
            for (x = 0; x < XB; x++)
                acc[i][x] = b0;
        /* unrolled whole: GCC kept a loop over ky, the weights reloaded */
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 3
#endif
        for (ky = 0; ky < 3; ky++)
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 3
#endif
            for (kx = 0; kx < 3; kx++)
                for (i = 0; i < 2; i++)
                    for (x = 0; x < XB; x++) {
                        const int col = x + kx - 1;
                        const float *r = rp[i + ky];
                        const __m512 v =
                            col < 0 ? _mm512_maskz_loadu_ps(ml, r + (size_t)cl * C)
                            : col >= XB
                                ? _mm512_maskz_loadu_ps(mr, r + (size_t)cr * C)
                                : _mm512_loadu_ps(r + (size_t)(ox + col) * C);
                        acc[i][x] = _mm512_fmadd_ps(v, w[ky * 3 + kx], acc[i][x]);
                    }
        for (i = 0; i < 2; i++)
            for (x = 0; x < XB; x++) {
                __m512 y = acc[i][x];
                if (ACT == 2)
                    y = _mm512_max_ps(y, _mm512_setzero_ps());
                else if (ACT == 3)
                    y = _mm512_min_ps(_mm512_max_ps(y, lo), hi);
                else if (ACT == 0)
                    y = ln_rt__act_nosilu_v512(y, a->act, a->alpha, a->beta);
                _mm512_storeu_ps(out + ((size_t)(y0 + i) * W + ox + x) * C + o0, y);
            }
        oy = y0 + 2;
    }
}

#define DWN3_ACT(XB)                                                          \
    do {                                                                      \
        if (a->act == LN_RT_ACT_NONE)                                         \
            dwn3_col(XB, 1, a, img, zrow, wt, b0, o0, ox, out);               \
        else if (a->act == LN_RT_ACT_RELU)                                    \
            dwn3_col(XB, 2, a, img, zrow, wt, b0, o0, ox, out);               \
        else if (a->act == LN_RT_ACT_RELU6 || a->act == LN_RT_ACT_CLIP)       \
            dwn3_col(XB, 3, a, img, zrow, wt, b0, o0, ox, out);               \
        else                                                                  \
            dwn3_col(XB, 0, a, img, zrow, wt, b0, o0, ox, out);               \
    } while (0)

/* the column run of xb (1..8) outputs from ox, every row */
static void dwn3_run(int32_t xb, const ln_rt_conv2d_args *a,
                     const float *img, const float *zrow, const float *wt,
                     __m512 b0, int32_t o0, int32_t ox, float *out)
{
    switch (xb) {
    case 8: DWN3_ACT(8); break;
    case 7: DWN3_ACT(7); break;
    case 6: DWN3_ACT(6); break;
    case 5: DWN3_ACT(5); break;
    case 4: DWN3_ACT(4); break;
    case 3: DWN3_ACT(3); break;
    case 2: DWN3_ACT(2); break;
    default: DWN3_ACT(1); break;
    }
}
#undef DWN3_ACT

/* the shapes dwn3 takes: 3x3, stride 1, pads 1, two rows or more */
static int dwn3_ok(const ln_rt_conv2d_args *a)
{
    return a->kh == 3 && a->kw == 3 && a->stride_h == 1 && a->stride_w == 1 &&
           a->pad_top == 1 && a->pad_left == 1 && a->pad_bottom == 1 &&
           a->pad_right == 1 && a->h >= 2;
}

/* every row in runs of as even a length as there can be (up to 8) */
static void dwn3(const ln_rt_conv2d_args *a, const float *img,
                 const float *wt, __m512 b0, int32_t o0, const float *zrow,
                 float *out)
{
    const int32_t W = a->w;
    const int32_t nrun = (W + 7) / 8, base = W / nrun, ext = W % nrun;
    int32_t i, ox;
    for (i = 0, ox = 0; i < nrun; ox += base + (i < ext), i++)
        dwn3_run(base + (i < ext), a, img, zrow, wt, b0, o0, ox, out);
}

/* The channels-last depthwise conv (ln_rt_conv2d_depthwise_nhwc_f32, on
 * the shapes ln_rt_conv2d_depthwise_nhwc_ok takes): the channels kernel's
 * rows, its input and output in the tensors' own layout. Per group of 16
 * channels the image's pixels are copied (one vector each, no shuffle)
 * into the zero-bordered buffer; the outputs are stored straight into
 * dst, C floats apart. Scratch: 64-byte alignment and the buffer. (One
 * buffer for all groups, filled in one pass over the pixels, ran 1.2x
 * slower on DS-CNN's 64 @25x5: 4x the zeroing, out of L1.) */
void ln_rt__conv2d_depthwise_nhwc_f32_avx512(const ln_rt_conv2d_args *a,
                                             const float *src,
                                             const float *weight,
                                             const float *bias, float *dst,
                                             void *scratch)
{
    const int32_t H = a->h, W = a->w, C = a->c;
    const int32_t hp = H + a->pad_top + a->pad_bottom;
    const int32_t ntap = a->kh * a->kw;
    int32_t oh, ow, b, o0, y, x;
    dwc_grp g;
    float wt[64 * 16] __attribute__((aligned(64)));

    ln_rt__conv_out_hw(a, &oh, &ow);
    dwc_init(&g, a, oh, ow, scratch);
    g.C = C;
    g.nc = 16;
    g.ob = NULL;
    if (dwn3_ok(a)) { /* in place; g.pad is a zero row */
        memset(g.pad, 0, (size_t)W * C * sizeof(float));
        for (b = 0; b < a->n; b++)
            for (o0 = 0; o0 < C; o0 += 16) {
                dwc_weights(weight, o0, 16, ntap, wt);
                dwn3(a, src + (size_t)b * H * W * C, wt,
                     bias ? _mm512_loadu_ps(bias + o0) : _mm512_setzero_ps(),
                     o0, g.pad, dst + (size_t)b * g.nq * C);
            }
        return;
    }
    dwc_zero(&g, hp);
    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * H * W * C;
        for (o0 = 0; o0 < C; o0 += 16) {
            __m512 b0;
            for (y = 0; y < H; y++) {
                const float *s = img + (size_t)y * W * C + o0;
                float *d = g.pad + (size_t)16 * ((y + g.pt) * g.wp + g.pl);
                for (x = 0; x < W; x++)
                    _mm512_store_ps(d + 16 * x,
                                    _mm512_loadu_ps(s + (size_t)x * C));
            }
            g.out0 = dst + (size_t)b * g.nq * C + o0;
            dwc_weights(weight, o0, 16, ntap, wt);
            b0 = bias ? _mm512_loadu_ps(bias + o0) : _mm512_setzero_ps();
            dwc_run(1, &g, a, oh, ow, wt, b0);
        }
    }
}

/* ---- 3x3 stride 2 with pads 0 or 1 on the left and top: lane shifts --
 * Output vector j of a row (outputs x = 16 j + l) reads input columns
 * 2 x - pl .. 2 x - pl + 2 of each of its three input rows. The row's two
 * vectors A, B at column 32 j split into even (E: column 2 x) and odd (O:
 * 2 x + 1) lanes by vpermt2ps; with pads 1 (PyTorch's) the taps kx 0, 1,
 * 2 are O shifted up one lane with the previous vector's O[15] in lane 0
 * (valignd; zero before the first: the padding), E and O; with pads 0
 * (TensorFlow's "same" on even sizes, pads 0 / 1) they are E, O and E
 * shifted down one lane with the next vector's E[0] (the next pair is
 * loaded one vector ahead). Columns past the row read zeros (k-masked
 * loads), rows outside the image are skipped, and each output is its bias,
 * then the taps in row-major order: the direct kernel's sums (the same
 * bits), for two masked loads and three shuffles per row and vector where
 * it spends four loads, three permutes and per-block masks. Output rows
 * go two at a time (dwe_rows: their shared input row split once, two FMA
 * chains; 0.78-0.92 of one at a time on a Zen 5, same bits). Output rows
 * of up to 1024; returns 0 without touching dst otherwise. */
#define DWE_MAXV 64

typedef struct {
    const __mmask16 *ma, *mb, *ms; /* pair j's loads, output vector j */
    int32_t nv;
    int32_t nfull; /* pairs 0 .. nfull - 1 lie in the row */
    ln_rt_act act;
    float alpha, beta;
} dwe_geom;

/* input row r's pair j split: *e even, *o odd columns; FULL: the pair
 * lies in the row, plain loads (GCC reloads a mask into a k-register for
 * every load that uses it) */
static inline __attribute__((always_inline)) void
dwe_split(const int FULL, const dwe_geom *g, const float *r, int32_t j,
          __m512 *e, __m512 *o)
{
    const __m512 x = FULL ? _mm512_loadu_ps(r + 32 * j)
                          : _mm512_maskz_loadu_ps(g->ma[j], r + 32 * j);
    const __m512 y = FULL ? _mm512_loadu_ps(r + 32 * j + 16)
                          : _mm512_maskz_loadu_ps(g->mb[j],
                                                  r + 32 * j + 16);
    *e = DW_EVEN(x, y);
    *o = DW_ODD(x, y);
}

/* R (1, 2) output rows from input rows r[0 .. 2 R] (NULL: outside the
 * image): output row i reads input rows 2 i .. 2 i + 2, so two rows share
 * their middle one and run as two independent FMA chains (one chain of 9
 * dependent FMAs per vector had left the loop at about half the FMA rate
 * on a Zen 5). Input row k's taps go to each output row that reads it, in
 * increasing k: every output still sums its taps in row-major order. */
/* output vector j of the rows (dwe_rows); FULL: the pair it loads (j,
 * or j + 1 with PL = 0) lies in the row */
static inline __attribute__((always_inline)) void
dwe_vec(const int PL, const int R, const int FULL, const dwe_geom *g,
        const float *const *r, const __m512 *w, __m512 bv, float *orow,
        int32_t ow, int32_t j, __m512 *e, __m512 *o)
{
    __m512 acc[2];
    int k, i;
    acc[0] = acc[1] = bv;
    for (k = 0; k <= 2 * R; k++) {
        __m512 en, on, x0, x1, x2;
        if (!r[k])
            continue;
        if (PL == 1) {
            /* o[k]: the previous vector's odd lanes */
            dwe_split(FULL, g, r[k], j, &en, &on);
            x0 = DW_ALIGNR(on, o[k], 15);
            x1 = en;
            x2 = on;
        } else {
            /* e[k], o[k]: this vector's; en: the next one's */
            dwe_split(FULL, g, r[k], j + 1, &en, &on);
            x0 = e[k];
            x1 = o[k];
            x2 = DW_ALIGNR(en, e[k], 1);
        }
        for (i = 0; i < R; i++)
            if (k >= 2 * i && k <= 2 * i + 2) {
                const int ky = k - 2 * i;
                acc[i] = _mm512_fmadd_ps(x0, w[3 * ky], acc[i]);
                acc[i] = _mm512_fmadd_ps(x1, w[3 * ky + 1], acc[i]);
                acc[i] = _mm512_fmadd_ps(x2, w[3 * ky + 2], acc[i]);
            }
        e[k] = en;
        o[k] = on;
    }
    /* a pair in the row has all 16 of its outputs */
    for (i = 0; i < R; i++) {
        const __m512 v = ln_rt__act_v512(acc[i], g->act, g->alpha,
                                         g->beta);
        if (FULL)
            _mm512_storeu_ps(orow + (size_t)i * ow + 16 * j, v);
        else
            _mm512_mask_storeu_ps(orow + (size_t)i * ow + 16 * j,
                                  g->ms[j], v);
    }
}

static inline __attribute__((always_inline)) void
dwe_rows(const int PL, const int R, const dwe_geom *g,
         const float *const *r, const __m512 *w, __m512 bv, float *orow,
         int32_t ow)
{
    /* the vectors whose pair lies in the row, then the rest */
    const int32_t nf = PL == 1 ? g->nfull : g->nfull - 1;
    __m512 e[5], o[5];
    int32_t j;
    int k;
    for (k = 0; k <= 2 * R; k++) {
        e[k] = o[k] = _mm512_setzero_ps();
        if (PL == 0 && r[k]) /* pair 0, one vector ahead */
            dwe_split(0, g, r[k], 0, &e[k], &o[k]);
    }
    for (j = 0; j < nf && j < g->nv; j++)
        dwe_vec(PL, R, 1, g, r, w, bv, orow, ow, j, e, o);
    for (; j < g->nv; j++)
        dwe_vec(PL, R, 0, g, r, w, bv, orow, ow, j, e, o);
}

int ln_rt__conv2d_depthwise_s2_planes_f32_avx512(const ln_rt_conv2d_args *a,
                                                 const float *src,
                                                 const float *weight,
                                                 const float *bias,
                                                 float *dst, size_t oplane)
{
    const int32_t H = a->h, W = a->w, mult = a->oc / a->c;
    __mmask16 ma[DWE_MAXV + 1], mb[DWE_MAXV + 1], ms[DWE_MAXV];
    int32_t oh, ow, b, o, oy, j;
    dwe_geom g;

    if (!ln_rt__conv2d_depthwise_s2_ok(a))
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    g.nv = (ow + 15) / 16;
    for (j = 0; j <= g.nv; j++) { /* pairs 0 .. nv: one ahead */
        ma[j] = dw_range_mask(32 * j, W);
        mb[j] = dw_range_mask(32 * j + 16, W);
    }
    for (j = 0; j < g.nv; j++)
        ms[j] = dw_range_mask(16 * j, ow);
    g.ma = ma; g.mb = mb; g.ms = ms;
    /* rows of up to two vectors run all masked: the split into two
     * loops cost 4-5% on MobileNetV1-0.25's 16 @48 (two vectors) */
    g.nfull = g.nv > 2 ? W / 32 : 0;
    g.act = a->act; g.alpha = a->alpha; g.beta = a->beta;
    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *in = src + ((size_t)b * a->c + o / mult) *
                                        (size_t)H * W;
            float *out = dst + ((size_t)b * a->oc + o) * oplane;
            const float *wk = weight + (size_t)o * 9;
            const __m512 bv = _mm512_set1_ps(bias ? bias[o] : 0.0f);
            __m512 w[9];
            int k;
            for (k = 0; k < 9; k++)
                w[k] = _mm512_set1_ps(wk[k]);
            for (oy = 0; oy < oh; oy += 2) {
                const float *r[5];
                float *orow = out + (size_t)oy * ow;
                for (k = 0; k < 5; k++) {
                    const int32_t iy = 2 * oy - a->pad_top + k;
                    r[k] = iy >= 0 && iy < H ? in + (size_t)iy * W : NULL;
                }
                if (oy + 1 < oh) {
                    if (a->pad_left)
                        dwe_rows(1, 2, &g, r, w, bv, orow, ow);
                    else
                        dwe_rows(0, 2, &g, r, w, bv, orow, ow);
                } else if (a->pad_left) {
                    dwe_rows(1, 1, &g, r, w, bv, orow, ow);
                } else {
                    dwe_rows(0, 1, &g, r, w, bv, orow, ow);
                }
            }
        }
    }
    return 1;
}

int ln_rt__conv2d_depthwise_s2_f32_avx512(const ln_rt_conv2d_args *a,
                                          const float *src,
                                          const float *weight,
                                          const float *bias, float *dst)
{
    int32_t oh, ow;
    ln_rt__conv_out_hw(a, &oh, &ow);
    return ln_rt__conv2d_depthwise_s2_planes_f32_avx512(
        a, src, weight, bias, dst, (size_t)(oh > 0 ? oh : 0) * (ow > 0 ? ow : 0));
}

#else
typedef int ln_rt__conv2d_depthwise_avx512_unused; /* ISO C wants a non-empty file */
#endif
