/*
 * conv2d_s8_dsp.c -- the int8 NCHW convolutions and the fully connected
 * layer for Armv7E-M with the DSP extension (Cortex-M4/M7/M33), bit-exact
 * with the portable kernels in conv2d_s8.c and fc_pool_s8.c (integer sums
 * do not depend on their order; the requantization is the same inline).
 *
 * The inner loops use SMLAD (two 16x16 products added to an accumulator in
 * one instruction) on pairs of inputs and weights along the reduction.
 * Weights stay int8 as stored (ONNX's [oc][c/group][kh][kw]: one output
 * channel's K = c/group*kh*kw weights are contiguous): one 32-bit load gives
 * four, SXTB16 spreads bytes 0 and 2 into two int16 halves and, after a
 * rotation by 8, bytes 1 and 3.  Inputs are spread the same way by SXTAB16,
 * which adds the input offset to both halves in the same instruction, so an
 * input word pairs with a weight word without any reordering.
 *
 * - Pointwise (1x1, stride 1, no padding): no scratch.  Two neighbouring
 *   pixels of channels c and c+2 are two halfword loads made into one word
 *   (pixel p in bytes 0 and 2, pixel p+1 in bytes 1 and 3), so SXTAB16
 *   gives pixel p's pair and, rotated, pixel p+1's.  Two pixels by two
 *   output channels at a time: four accumulators.
 * - Other convolutions: the K inputs of two output pixels gathered into two
 *   int8 columns in scratch (taps in the padding hold the zero point, which
 *   the offset turns into 0), then the same two-by-two products.
 * - Depthwise 3x3, stride 1 or 2, no dilation, one output per channel: no
 *   scratch.  A word of four input bytes r0..r3 gives (r0, r2) and (r1, r3):
 *   out(x) = (r0, r2).(w0, w2) + (r1, r3).(w1, 0) and, at stride 1,
 *   out(x+1) = (r1, r3).(w0, w2) + (r0, r2).(0, w1).  Border pixels, whose
 *   four-byte window leaves the input row, are summed tap by tap.
 * - Fully connected: no scratch, two outputs at a time.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_DSP
#include <arm_acle.h>
#include <string.h>

static inline int32_t ld32(const void *p)
{
    int32_t v;
    memcpy(&v, p, 4);   /* one LDR: Armv7-M loads unaligned words */
    return v;
}

static inline uint32_t ld16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

/* (v, v) as two int16 halves: the offset SXTAB16 adds */
static inline int32_t dup16(int32_t v)
{
    return (int32_t)(((uint32_t)v & 0xffffu) | ((uint32_t)v << 16));
}

/* (lo, hi) as two int16 halves */
static inline int32_t pack16(int32_t lo, int32_t hi)
{
    return (int32_t)(((uint32_t)lo & 0xffffu) | ((uint32_t)hi << 16));
}

/* Bytes 1 and 3 sign-extended (and offset): SXTB16/SXTAB16 with their
 * operand rotated by 8 in the same instruction, which GCC 12 does not
 * fold from C. */
static inline int32_t sxtb16_ror8(int32_t w)
{
    int32_t r;
    __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(w));
    return r;
}

static inline int32_t sxtab16_ror8(int32_t off, int32_t x)
{
    int32_t r;
    __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(off), "r"(x));
    return r;
}

#define SPREAD_EVEN(w) __sxtb16(w)
#define SPREAD_ODD(w) sxtb16_ror8(w)
#define SPREAD_EVEN_OFF(off, x) __sxtab16((off), (x))
#define SPREAD_ODD_OFF(off, x) sxtab16_ror8((off), (x))

/* TFLite's requantization with the per-channel work done once: for the
 * default double rounding, the doubling high multiply is
 * floor(((x << left) * mult + 2^30) / 2^31) -- one SMLAL and a funnel
 * shift; for both signs equal to TFLite's nudged division toward zero
 * (the nudge for a negative product, 1 - 2^30, and the truncation toward
 * zero move the same ties the same way), and exact without saturation as
 * long as mult is not INT32_MIN (ln_rt__conv2d_nchw_s8_dsp checks it) --
 * then the rounding right shift, ties away from zero. */
typedef struct {
    int32_t mult, shift, left, right, mask, half, off, lo, hi;
} rq_t;

static inline void rq_init(rq_t *q, const ln_rt_s8_conv_args *a, int32_t mult, int32_t shift)
{
    q->mult = mult;
    q->shift = shift;
    q->left = shift > 0 ? shift : 0;
    q->right = shift > 0 ? 0 : -shift;
    q->mask = (int32_t)((1u << q->right) - 1u);
    q->half = q->mask >> 1;
    q->off = a->output_offset;
    q->lo = a->act_min;
    q->hi = a->act_max;
}

static inline int8_t rq_apply(const rq_t *q, int32_t x)
{
#ifdef LN_RT_S8_SINGLE_ROUNDING
    int32_t v = ln_rt__requant(x, q->mult, q->shift) + q->off;
#else
    int64_t p = (int64_t)(int32_t)((uint32_t)x << q->left) * q->mult + ((int64_t)1 << 30);
    int32_t h = (int32_t)(p >> 31);
    int32_t v = (h >> q->right) + ((h & q->mask) > q->half + (h < 0)) + q->off;
#endif
    return (int8_t)(v < q->lo ? q->lo : v > q->hi ? q->hi : v);
}

static inline int8_t finish(int32_t acc, const ln_rt_s8_conv_args *a, int32_t mult,
                            int32_t shift)
{
    rq_t q;
    rq_init(&q, a, mult, shift);
    return rq_apply(&q, acc);
}

/* Stack the kernels below may use for columns and rows (bytes). */
#define DSP_STACK 1024

/* Position of reduction index k in an int16 column: k0 k2 k1 k3 in each
 * four, the order SXTB16 leaves a weight word in. */
static inline int32_t colpos(int32_t k)
{
    return (k & ~3) | ((k & 1) << 1) | ((k & 2) >> 1);
}

/* ---- pointwise ---------------------------------------------------------- */

/* Pixels p and p+1 of channels c (at x) and c + 2 (at x + d) as one word:
 * bytes x[c][p], x[c][p+1], x[c+2][p], x[c+2][p+1]. */
static inline int32_t pixel_pairs(const int8_t *x, size_t d)
{
    return (int32_t)(ld16(x) | (ld16(x + d) << 16));
}

/* Pixel p of channels c and c + 2 in bytes 0 and 2. */
static inline int32_t pixel_one(const int8_t *x, size_t d)
{
    return (int32_t)((uint32_t)(uint8_t)x[0] | ((uint32_t)(uint8_t)x[d] << 16));
}

static void conv_1x1(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                     const int32_t *bias, const int32_t *mult, const int32_t *shift,
                     int8_t *dst)
{
    int32_t groups = a->group > 0 ? a->group : 1, cg = a->c / groups, og = a->oc / groups;
    int32_t off = a->input_offset, off2 = dup16(off), K4 = cg & ~3;
    size_t plane = (size_t)a->h * a->w;

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t g = 0; g < groups; g++) {
            const int8_t *x0 = src + ((size_t)b * a->c + (size_t)g * cg) * plane;
            const int8_t *wg = weight + (size_t)g * og * cg;
            int8_t *yg = dst + ((size_t)b * a->oc + (size_t)g * og) * plane;
            size_t p = 0;
            for (; p + 2 <= plane; p += 2) {
                for (int32_t o = 0; o < og; o += 2) {
                    int32_t oc = g * og + o, two = o + 1 < og;
                    const int8_t *wa = wg + (size_t)o * cg, *wb = two ? wa + cg : wa;
                    const int8_t *xp = x0 + p;
                    int32_t s00 = bias ? bias[oc] : 0, s01 = s00;
                    int32_t s10 = bias && two ? bias[oc + 1] : 0, s11 = s10, k = 0;
                    for (; k < K4; k += 4, xp += 4 * plane) {
                        int32_t u = pixel_pairs(xp, 2 * plane);
                        int32_t v = pixel_pairs(xp + plane, 2 * plane);
                        int32_t a02 = SPREAD_EVEN_OFF(off2, u), b02 = SPREAD_ODD_OFF(off2, u);
                        int32_t a13 = SPREAD_EVEN_OFF(off2, v), b13 = SPREAD_ODD_OFF(off2, v);
                        int32_t w = ld32(wa + k), we = SPREAD_EVEN(w), wo = SPREAD_ODD(w);
                        s00 = __smlad(a02, we, s00);
                        s00 = __smlad(a13, wo, s00);
                        s01 = __smlad(b02, we, s01);
                        s01 = __smlad(b13, wo, s01);
                        w = ld32(wb + k);
                        we = SPREAD_EVEN(w);
                        wo = SPREAD_ODD(w);
                        s10 = __smlad(a02, we, s10);
                        s10 = __smlad(a13, wo, s10);
                        s11 = __smlad(b02, we, s11);
                        s11 = __smlad(b13, wo, s11);
                    }
                    for (; k < cg; k++, xp += plane) {
                        int32_t x0v = xp[0] + off, x1v = xp[1] + off;
                        s00 += x0v * wa[k];
                        s01 += x1v * wa[k];
                        s10 += x0v * wb[k];
                        s11 += x1v * wb[k];
                    }
                    yg[(size_t)o * plane + p] = finish(s00, a, mult[oc], shift[oc]);
                    yg[(size_t)o * plane + p + 1] = finish(s01, a, mult[oc], shift[oc]);
                    if (two) {
                        yg[(size_t)(o + 1) * plane + p] =
                            finish(s10, a, mult[oc + 1], shift[oc + 1]);
                        yg[(size_t)(o + 1) * plane + p + 1] =
                            finish(s11, a, mult[oc + 1], shift[oc + 1]);
                    }
                }
            }
            for (; p < plane; p++)      /* an odd last pixel */
                for (int32_t o = 0; o < og; o++) {
                    int32_t oc = g * og + o, s = bias ? bias[oc] : 0, k = 0;
                    const int8_t *wa = wg + (size_t)o * cg, *xp = x0 + p;
                    for (; k < K4; k += 4, xp += 4 * plane) {
                        int32_t w = ld32(wa + k);
                        s = __smlad(SPREAD_EVEN_OFF(off2, pixel_one(xp, 2 * plane)),
                                    SPREAD_EVEN(w), s);
                        s = __smlad(SPREAD_EVEN_OFF(off2, pixel_one(xp + plane, 2 * plane)),
                                    SPREAD_ODD(w), s);
                    }
                    for (; k < cg; k++, xp += plane)
                        s += (xp[0] + off) * wa[k];
                    yg[(size_t)o * plane + p] = finish(s, a, mult[oc], shift[oc]);
                }
        }
}

/* Pointwise with up to DSP_STACK / 4 input channels per group: the two
 * pixels' inputs gathered once into int16 columns on the stack (offset
 * added, colpos order), then read with plain word loads by every output
 * channel. */
static void conv_1x1_cols(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                          const int32_t *bias, const int32_t *mult, const int32_t *shift,
                          int8_t *dst)
{
    int16_t cols[2][DSP_STACK / 4];
    int32_t groups = a->group > 0 ? a->group : 1, cg = a->c / groups, og = a->oc / groups;
    int32_t off = a->input_offset, K4 = cg & ~3;
    size_t plane = (size_t)a->h * a->w;
    int16_t *ca = cols[0], *cb = cols[1];

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t g = 0; g < groups; g++) {
            const int8_t *x0 = src + ((size_t)b * a->c + (size_t)g * cg) * plane;
            const int8_t *wg = weight + (size_t)g * og * cg;
            int8_t *yg = dst + ((size_t)b * a->oc + (size_t)g * og) * plane;
            for (size_t p = 0; p < plane; p += 2) {
                int two = p + 1 < plane;
                const int8_t *xp = x0 + p;
                for (int32_t k = 0; k < cg; k++, xp += plane) {
                    int32_t q = colpos(k);
                    ca[q] = (int16_t)(xp[0] + off);
                    cb[q] = (int16_t)(two ? xp[1] + off : 0);
                }
                for (int32_t o = 0; o < og; o += 2) {
                    int32_t oc = g * og + o, pair = o + 1 < og, k = 0;
                    const int8_t *wa = wg + (size_t)o * cg, *wb = pair ? wa + cg : wa;
                    int32_t s00 = bias ? bias[oc] : 0, s01 = s00;
                    int32_t s10 = bias && pair ? bias[oc + 1] : 0, s11 = s10;
                    rq_t q;
                    for (; k < K4; k += 4) {
                        int32_t a0 = ld32(ca + k), a1 = ld32(ca + k + 2);
                        int32_t b0 = ld32(cb + k), b1 = ld32(cb + k + 2);
                        int32_t w = ld32(wa + k), we = SPREAD_EVEN(w), wo = SPREAD_ODD(w);
                        s00 = __smlad(a0, we, s00);
                        s00 = __smlad(a1, wo, s00);
                        s01 = __smlad(b0, we, s01);
                        s01 = __smlad(b1, wo, s01);
                        w = ld32(wb + k);
                        we = SPREAD_EVEN(w);
                        wo = SPREAD_ODD(w);
                        s10 = __smlad(a0, we, s10);
                        s10 = __smlad(a1, wo, s10);
                        s11 = __smlad(b0, we, s11);
                        s11 = __smlad(b1, wo, s11);
                    }
                    for (; k < cg; k++) {
                        int32_t q0 = colpos(k);
                        s00 += ca[q0] * wa[k];
                        s01 += cb[q0] * wa[k];
                        s10 += ca[q0] * wb[k];
                        s11 += cb[q0] * wb[k];
                    }
                    rq_init(&q, a, mult[oc], shift[oc]);
                    yg[(size_t)o * plane + p] = rq_apply(&q, s00);
                    if (two)
                        yg[(size_t)o * plane + p + 1] = rq_apply(&q, s01);
                    if (pair) {
                        rq_init(&q, a, mult[oc + 1], shift[oc + 1]);
                        yg[(size_t)(o + 1) * plane + p] = rq_apply(&q, s10);
                        if (two)
                            yg[(size_t)(o + 1) * plane + p + 1] = rq_apply(&q, s11);
                    }
                }
            }
        }
}

/* ---- general convolution through two int8 columns ----------------------- */

/* The K = cg * kh * kw inputs of output pixel (oy, ox), group channels
 * from x0, as int8; the zero point (-input_offset) in the padding. */
static void im2col(const ln_rt_s8_conv_args *a, const int8_t *x0, int32_t cg, int32_t oy,
                   int32_t ox, int8_t *col)
{
    size_t plane = (size_t)a->h * a->w;
    int8_t zp = (int8_t)-a->input_offset;

    for (int32_t ic = 0; ic < cg; ic++) {
        const int8_t *x = x0 + (size_t)ic * plane;
        for (int32_t ky = 0; ky < a->kh; ky++) {
            int32_t iy = oy * a->stride_h - a->pad_top + ky * a->dil_h;
            int32_t ix = ox * a->stride_w - a->pad_left;
            const int8_t *xr = x + (size_t)iy * a->w;
            if (iy < 0 || iy >= a->h) {
                memset(col, zp, (size_t)a->kw);
                col += a->kw;
                continue;
            }
            if (a->dil_w == 1 && ix >= 0 && ix + a->kw <= a->w) {
                memcpy(col, xr + ix, (size_t)a->kw);
                col += a->kw;
                continue;
            }
            for (int32_t kx = 0; kx < a->kw; kx++, ix += a->dil_w)
                *col++ = ix >= 0 && ix < a->w ? xr[ix] : zp;
        }
    }
}

/* Two weight rows (wa, wb) against two columns (ca, cb) over K, added to
 * s[0] = wa.ca, s[1] = wa.cb, s[2] = wb.ca, s[3] = wb.cb. */
static inline void dot2x2(const int8_t *wa, const int8_t *wb, const int8_t *ca,
                          const int8_t *cb, int32_t K, int32_t off, int32_t *s)
{
    int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3], k = 0, off2 = dup16(off);

    for (; k + 4 <= K; k += 4) {
        int32_t u = ld32(ca + k), v = ld32(cb + k);
        int32_t a02 = SPREAD_EVEN_OFF(off2, u), a13 = SPREAD_ODD_OFF(off2, u);
        int32_t b02 = SPREAD_EVEN_OFF(off2, v), b13 = SPREAD_ODD_OFF(off2, v);
        int32_t w = ld32(wa + k), we = SPREAD_EVEN(w), wo = SPREAD_ODD(w);
        s0 = __smlad(a02, we, s0);
        s0 = __smlad(a13, wo, s0);
        s1 = __smlad(b02, we, s1);
        s1 = __smlad(b13, wo, s1);
        w = ld32(wb + k);
        we = SPREAD_EVEN(w);
        wo = SPREAD_ODD(w);
        s2 = __smlad(a02, we, s2);
        s2 = __smlad(a13, wo, s2);
        s3 = __smlad(b02, we, s3);
        s3 = __smlad(b13, wo, s3);
    }
    for (; k < K; k++) {
        s0 += (ca[k] + off) * wa[k];
        s1 += (cb[k] + off) * wa[k];
        s2 += (ca[k] + off) * wb[k];
        s3 += (cb[k] + off) * wb[k];
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}

static inline int32_t dot1(const int8_t *w8, const int8_t *c, int32_t K, int32_t off,
                           int32_t s)
{
    int32_t k = 0, off2 = dup16(off);

    for (; k + 4 <= K; k += 4) {
        int32_t w = ld32(w8 + k), u = ld32(c + k);
        s = __smlad(SPREAD_EVEN_OFF(off2, u), SPREAD_EVEN(w), s);
        s = __smlad(SPREAD_ODD_OFF(off2, u), SPREAD_ODD(w), s);
    }
    for (; k < K; k++)
        s += (c[k] + off) * w8[k];
    return s;
}

static void conv_cols(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                      const int32_t *bias, const int32_t *mult, const int32_t *shift,
                      int8_t *dst, int8_t *cols)
{
    int32_t groups = a->group > 0 ? a->group : 1, cg = a->c / groups, og = a->oc / groups;
    int32_t K = cg * a->kh * a->kw, off = a->input_offset;
    size_t plane = (size_t)a->h * a->w, ohw = (size_t)a->oh * a->ow;
    int8_t *ca = cols, *cb = cols + ((K + 3) & ~3);

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t g = 0; g < groups; g++) {
            const int8_t *x0 = src + ((size_t)b * a->c + (size_t)g * cg) * plane;
            const int8_t *wg = weight + (size_t)g * og * K;
            int8_t *yg = dst + ((size_t)b * a->oc + (size_t)g * og) * ohw;
            for (size_t p = 0; p < ohw; p += 2) {
                int32_t oy = (int32_t)(p / (size_t)a->ow), ox = (int32_t)(p % (size_t)a->ow);
                int32_t o = 0;
                im2col(a, x0, cg, oy, ox, ca);
                if (p + 1 == ohw) {     /* an odd last pixel */
                    for (; o < og; o++) {
                        int32_t oc = g * og + o;
                        int32_t s = dot1(wg + (size_t)o * K, ca, K, off, bias ? bias[oc] : 0);
                        yg[(size_t)o * ohw + p] = finish(s, a, mult[oc], shift[oc]);
                    }
                    break;
                }
                if (ox + 1 < a->ow)
                    im2col(a, x0, cg, oy, ox + 1, cb);
                else
                    im2col(a, x0, cg, oy + 1, 0, cb);
                for (; o + 2 <= og; o += 2) {
                    int32_t oc = g * og + o, s[4];
                    int8_t *y = yg + (size_t)o * ohw + p;
                    s[0] = s[1] = bias ? bias[oc] : 0;
                    s[2] = s[3] = bias ? bias[oc + 1] : 0;
                    dot2x2(wg + (size_t)o * K, wg + (size_t)(o + 1) * K, ca, cb, K, off, s);
                    y[0] = finish(s[0], a, mult[oc], shift[oc]);
                    y[1] = finish(s[1], a, mult[oc], shift[oc]);
                    y[ohw] = finish(s[2], a, mult[oc + 1], shift[oc + 1]);
                    y[ohw + 1] = finish(s[3], a, mult[oc + 1], shift[oc + 1]);
                }
                if (o < og) {
                    int32_t oc = g * og + o, b0 = bias ? bias[oc] : 0;
                    const int8_t *w8 = wg + (size_t)o * K;
                    int8_t *y = yg + (size_t)o * ohw + p;
                    y[0] = finish(dot1(w8, ca, K, off, b0), a, mult[oc], shift[oc]);
                    y[1] = finish(dot1(w8, cb, K, off, b0), a, mult[oc], shift[oc]);
                }
            }
        }
}

/* ---- depthwise 3x3 ------------------------------------------------------ */

/* The padded row width the depthwise kernel reads: the last output's
 * word ends at (ow - 1) * stride + 4; the input and its left padding must
 * fit too. */
static int32_t dw_row_width(const ln_rt_s8_conv_args *a)
{
    int32_t n = (a->ow - 1) * a->stride_w + 4;
    return n > a->pad_left + a->w ? n : a->pad_left + a->w;
}

/* Input row iy of one channel padded with the zero point (what
 * x + input_offset makes 0): pad_left of them, the row, the rest; a row
 * of them outside the input. */
static void dw_fill_row(const ln_rt_s8_conv_args *a, const int8_t *x, int32_t iy, int8_t *r,
                        int32_t n)
{
    int8_t zp = (int8_t)-a->input_offset;
    int32_t i = 0;

    if (iy >= 0 && iy < a->h) {
        const int8_t *xr = x + (size_t)iy * a->w;
        for (; i < a->pad_left; i++)
            r[i] = zp;
        for (int32_t j = 0; j < a->w; j++)
            r[i++] = xr[j];
    }
    for (; i < n; i++)
        r[i] = zp;
}

/* Depthwise 3x3 on three padded rows on the stack (a ring: input row iy
 * lives in slot iy mod 3, so stride 1 copies one new row per output row). */
static void dw3x3(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                  const int32_t *bias, const int32_t *mult, const int32_t *shift, int8_t *dst)
{
    int8_t rows[3][DSP_STACK / 3];
    size_t plane = (size_t)a->h * a->w, ohw = (size_t)a->oh * a->ow;
    int32_t s = a->stride_w, off2 = dup16(a->input_offset), rw = dw_row_width(a);

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t ch = 0; ch < a->c; ch++) {
            const int8_t *x = src + ((size_t)b * a->c + ch) * plane, *w = weight + (size_t)ch * 9;
            int8_t *y = dst + ((size_t)b * a->oc + ch) * ohw;
            int32_t w02[3], w1z[3], wz1[3], b0 = bias ? bias[ch] : 0;
            int32_t held[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
            rq_t q;
            rq_init(&q, a, mult[ch], shift[ch]);
            for (int ky = 0; ky < 3; ky++) {
                w02[ky] = pack16(w[3 * ky], w[3 * ky + 2]);
                w1z[ky] = pack16(w[3 * ky + 1], 0);
                wz1[ky] = pack16(0, w[3 * ky + 1]);
            }
            for (int32_t oy = 0; oy < a->oh; oy++) {
                int32_t iy0 = oy * a->stride_h - a->pad_top, ox = 0;
                int8_t *yr = y + (size_t)oy * a->ow;
                const int8_t *r[3];
                for (int ky = 0; ky < 3; ky++) {
                    int32_t iy = iy0 + ky, slot = (int32_t)(((iy % 3) + 3) % 3);
                    if (held[slot] != iy) {
                        dw_fill_row(a, x, iy, rows[slot], rw);
                        held[slot] = iy;
                    }
                    r[ky] = rows[slot];
                }
                if (s == 1)
                    for (; ox + 2 <= a->ow; ox += 2) {
                        int32_t acc0 = b0, acc1 = b0;
                        for (int i = 0; i < 3; i++) {
                            int32_t v = ld32(r[i] + ox);
                            int32_t e = SPREAD_EVEN_OFF(off2, v), o = SPREAD_ODD_OFF(off2, v);
                            acc0 = __smlad(e, w02[i], acc0);
                            acc0 = __smlad(o, w1z[i], acc0);
                            acc1 = __smlad(o, w02[i], acc1);
                            acc1 = __smlad(e, wz1[i], acc1);
                        }
                        yr[ox] = rq_apply(&q, acc0);
                        yr[ox + 1] = rq_apply(&q, acc1);
                    }
                for (; ox < a->ow; ox++) {
                    int32_t acc = b0;
                    for (int i = 0; i < 3; i++) {
                        int32_t v = ld32(r[i] + ox * s);
                        acc = __smlad(SPREAD_EVEN_OFF(off2, v), w02[i], acc);
                        acc = __smlad(SPREAD_ODD_OFF(off2, v), w1z[i], acc);
                    }
                    yr[ox] = rq_apply(&q, acc);
                }
            }
        }
}

int ln_rt__conv2d_nchw_s8_dsp(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias, const int32_t *mult,
                              const int32_t *shift, int8_t *dst, void *scratch)
{
    int32_t groups = a->group > 0 ? a->group : 1;

    if ((size_t)a->oh * a->ow == 0)
        return 0;
    for (int32_t o = 0; o < a->oc; o++)     /* rq_apply's one assumption */
        if (mult[o] == INT32_MIN)
            return 0;
    if (ln_rt__s8_is_dw3x3(a) && dw_row_width(a) <= DSP_STACK / 3) {
        dw3x3(a, src, weight, bias, mult, shift, dst);
        return 1;
    }
    if (ln_rt__s8_is_1x1(a)) {
        if (a->c / groups <= DSP_STACK / 4)
            conv_1x1_cols(a, src, weight, bias, mult, shift, dst);
        else
            conv_1x1(a, src, weight, bias, mult, shift, dst);
        return 1;
    }
    if (!scratch)
        return 0;
    conv_cols(a, src, weight, bias, mult, shift, dst, scratch);
    return 1;
}

/* ---- fully connected ---------------------------------------------------- */

int ln_rt__fc_s8_dsp(const ln_rt_s8_fc_args *a, const int8_t *src, const int8_t *weight,
                     const int32_t *bias, const int32_t *mult, const int32_t *shift,
                     int8_t *dst)
{
    int32_t K = a->in, K4 = K & ~3, off = a->input_offset, off2 = dup16(off);

    if (a->filter_offset != 0)
        return 0;
    for (int32_t b = 0; b < a->batches; b++) {
        const int8_t *x = src + (size_t)b * K;
        int8_t *y = dst + (size_t)b * a->out;
        for (int32_t o = 0; o < a->out; o += 4) {
            int32_t n = a->out - o < 4 ? a->out - o : 4, acc[4];
            const int8_t *w0 = weight + (size_t)o * K;
            const int8_t *w1 = n > 1 ? w0 + K : w0, *w2 = n > 2 ? w0 + 2 * (size_t)K : w0;
            const int8_t *w3 = n > 3 ? w0 + 3 * (size_t)K : w0;
            int32_t s0 = bias ? bias[o] : 0, s1 = bias && n > 1 ? bias[o + 1] : 0;
            int32_t s2 = bias && n > 2 ? bias[o + 2] : 0, s3 = bias && n > 3 ? bias[o + 3] : 0;
            int32_t k = 0;
            for (; k < K4; k += 4) {
                int32_t u = ld32(x + k), e = SPREAD_EVEN_OFF(off2, u), d = SPREAD_ODD_OFF(off2, u);
                int32_t w = ld32(w0 + k);
                s0 = __smlad(e, SPREAD_EVEN(w), s0);
                s0 = __smlad(d, SPREAD_ODD(w), s0);
                w = ld32(w1 + k);
                s1 = __smlad(e, SPREAD_EVEN(w), s1);
                s1 = __smlad(d, SPREAD_ODD(w), s1);
                w = ld32(w2 + k);
                s2 = __smlad(e, SPREAD_EVEN(w), s2);
                s2 = __smlad(d, SPREAD_ODD(w), s2);
                w = ld32(w3 + k);
                s3 = __smlad(e, SPREAD_EVEN(w), s3);
                s3 = __smlad(d, SPREAD_ODD(w), s3);
            }
            for (; k < K; k++) {
                int32_t xv = x[k] + off;
                s0 += xv * w0[k];
                s1 += xv * w1[k];
                s2 += xv * w2[k];
                s3 += xv * w3[k];
            }
            acc[0] = s0;
            acc[1] = s1;
            acc[2] = s2;
            acc[3] = s3;
            for (int32_t i = 0; i < n; i++) {
                int32_t q = a->per_channel ? o + i : 0;
                y[o + i] = ln_rt__clamp_s8(ln_rt__requant(acc[i], mult[q], shift[q]) +
                                           a->output_offset, a->act_min, a->act_max);
            }
        }
    }
    return 1;
}

#else
typedef int ln_rt__conv2d_s8_dsp_unused;   /* ISO C: no empty translation unit */
#endif
