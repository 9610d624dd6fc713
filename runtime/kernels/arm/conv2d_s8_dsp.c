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

/* TFLite's requantization (ln_rt__requant) with the per-channel work done
 * once: the shifts taken apart and the rounding mask made; the doubling
 * high multiply without the saturation check, as no multiplier here is
 * INT32_MIN (ln_rt__conv2d_nchw_s8_dsp checks). */
typedef struct {
    int32_t mult, shift, left, right, mask, off, lo, hi;
} rq_t;

static inline void rq_init(rq_t *q, const ln_rt_s8_conv_args *a, int32_t mult, int32_t shift)
{
    q->mult = mult;
    q->shift = shift;
    q->left = shift > 0 ? shift : 0;
    q->right = shift > 0 ? 0 : -shift;
    q->mask = (int32_t)((1u << q->right) - 1u);
    q->off = a->output_offset;
    q->lo = a->act_min;
    q->hi = a->act_max;
}

static inline int8_t rq_apply(const rq_t *q, int32_t x)
{
#ifdef LN_RT_S8_SINGLE_ROUNDING
    int32_t v = ln_rt__requant(x, q->mult, q->shift) + q->off;
#else
    int32_t h = ln_rt__srdhm_nosat((int32_t)((uint32_t)x << q->left), q->mult);
    int32_t v = ln_rt__rdivpot_mask(h, q->right, q->mask) + q->off;
#endif
    return (int8_t)(v < q->lo ? q->lo : v > q->hi ? q->hi : v);
}

/* GCC turns byte loops into memcpy/memset calls, which cost more than a
 * row of three bytes */
#if defined(__GNUC__) && !defined(__clang__)
#define LN_RT_NO_LIBCALL_LOOPS __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define LN_RT_NO_LIBCALL_LOOPS
#endif

/* Stack the kernels below may use for columns and rows (bytes). */
#define DSP_STACK LN_RT_S8_DSP_STACK

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

/* Two pixels' inputs as int16 columns (offset added), interleaved by four
 * reduction steps -- pixel p's (k0, k2), (k1, k3), then pixel p+1's -- so
 * one pointer walks both and every output channel reads them with plain
 * word loads: 4 * K bytes (K rounded up to 4), on the stack up to
 * DSP_STACK, else in the arena scratch. */
static inline int32_t pw_pos(int32_t k)
{
    return ((k & ~3) << 1) | colpos(k & 3);
}

static inline void st32(void *p, int32_t v)
{
    memcpy(p, &v, 4);
}

/* Pointwise: pixels p and p + 1 (only p unless two) of the group's
 * channels into a column pair.  Four channels at a time: the pixels of
 * channels c and c + 2 are one word (pixel_pairs), whose SXTAB16 is pixel
 * p's (k0, k2) with the offset added and, rotated, pixel p + 1's; channels
 * c + 1 and c + 3 give the (k1, k3) halves. */
static void gather_1x1(const int8_t *x0, size_t plane, int32_t cg, int32_t off, size_t p,
                       int two, int16_t *cols)
{
    const int8_t *xp = x0 + p;
    int32_t off2 = dup16(off), k = 0;

    for (; k + 4 <= cg; k += 4, xp += 4 * plane, cols += 8) {
        int32_t u = two ? pixel_pairs(xp, 2 * plane) : pixel_one(xp, 2 * plane);
        int32_t v = two ? pixel_pairs(xp + plane, 2 * plane) : pixel_one(xp + plane, 2 * plane);
        st32(cols, SPREAD_EVEN_OFF(off2, u));
        st32(cols + 2, SPREAD_EVEN_OFF(off2, v));
        st32(cols + 4, SPREAD_ODD_OFF(off2, u));
        st32(cols + 6, SPREAD_ODD_OFF(off2, v));
    }
    for (; k < cg; k++, xp += plane) {
        int32_t q = colpos(k & 3);
        cols[q] = (int16_t)(xp[0] + off);
        cols[q + 4] = (int16_t)(two ? xp[1] + off : 0);
    }
}

/* Any conv: the K = cg * kh * kw taps of output pixel (oy, ox) as int8 in
 * order into t, the zero point in the padding and up to Kp; a window inside
 * the input without per-row tests (3x3: nine byte copies per channel, 670
 * instructions for ResNet-8's 144 taps where the row loop took 1,750).  The geometry
 * in locals: the int8 stores may alias anything, so fields read through a
 * would be loaded again after each.  Byte loops: a row of three is not
 * worth a memcpy call. */
LN_RT_NO_LIBCALL_LOOPS
static void gather_taps(const ln_rt_s8_conv_args *a, const int8_t *x0, int32_t cg, int32_t oy,
                        int32_t ox, int8_t *t, int32_t Kp)
{
    const int32_t h = a->h, w = a->w, kh = a->kh, kw = a->kw, dh = a->dil_h, dw = a->dil_w;
    const size_t plane = (size_t)h * w;
    const int32_t ix0 = ox * a->stride_w - a->pad_left, iy0 = oy * a->stride_h - a->pad_top;
    const int8_t zp = (int8_t)-a->input_offset;
    const int inside = ix0 >= 0 && ix0 + (kw - 1) * dw < w;
    int8_t *tend = t + Kp;

    if (inside && iy0 >= 0 && iy0 + (kh - 1) * dh < h) {   /* the window inside */
        const int8_t *x = x0 + (size_t)iy0 * w + ix0;
        if (kh == 3 && kw == 3 && dh == 1 && dw == 1) {
            for (int32_t ic = 0; ic < cg; ic++, x += plane, t += 9) {
                t[0] = x[0];
                t[1] = x[1];
                t[2] = x[2];
                t[3] = x[w];
                t[4] = x[w + 1];
                t[5] = x[w + 2];
                t[6] = x[2 * w];
                t[7] = x[2 * w + 1];
                t[8] = x[2 * w + 2];
            }
        } else if (kw == 4 && dw == 1) {        /* a word per row (DS-CNN's 10x4) */
            for (int32_t ic = 0; ic < cg; ic++, x += plane)
                for (int32_t ky = 0; ky < kh; ky++, t += 4)
                    st32(t, ld32(x + (size_t)ky * dh * w));
        } else {
            for (int32_t ic = 0; ic < cg; ic++, x += plane)
                for (int32_t ky = 0; ky < kh; ky++) {
                    const int8_t *xr = x + (size_t)ky * dh * w;
                    for (int32_t kx = 0; kx < kw; kx++, xr += dw)
                        *t++ = *xr;
                }
        }
        while (t < tend)
            *t++ = zp;
        return;
    }
    for (int32_t ic = 0; ic < cg; ic++) {
        const int8_t *x = x0 + (size_t)ic * plane;
        for (int32_t ky = 0, iy = iy0; ky < kh; ky++, iy += dh) {
            const int8_t *xr = x + (size_t)iy * w + ix0;
            if (iy < 0 || iy >= h) {
                for (int32_t kx = 0; kx < kw; kx++)
                    *t++ = zp;
            } else if (inside && kw == 3 && dw == 1) {
                t[0] = xr[0];
                t[1] = xr[1];
                t[2] = xr[2];
                t += 3;
            } else if (inside) {
                for (int32_t kx = 0; kx < kw; kx++, xr += dw)
                    *t++ = *xr;
            } else {
                for (int32_t kx = 0, ix = ix0; kx < kw; kx++, ix += dw)
                    *t++ = ix >= 0 && ix < w ? x[(size_t)iy * w + ix] : zp;
            }
        }
    }
    while (t < tend)
        *t++ = zp;
}

/* An int8 column t of Kp taps into its half of a column pair: each word
 * of four taps becomes (k0, k2) and (k1, k3) with the offset added. */
static void expand_col(const int8_t *t, int32_t Kp, int32_t off, int16_t *half)
{
    int32_t off2 = dup16(off);

    for (int32_t j = 0; j < Kp; j += 4, half += 8) {
        int32_t v = ld32(t + j);
        st32(half, SPREAD_EVEN_OFF(off2, v));
        st32(half + 2, SPREAD_ODD_OFF(off2, v));
    }
}

/* Two weight rows (wa, and wa + kb when two_rows) against the np pixels
 * of a block (np / 2 rounded up column pairs of 2 * Kp int16 each), the
 * outputs requantized by qa / qb into ya[i] and ya[ohw + i] (restrict:
 * the int8 stores would otherwise reload *qa after each).  One call per
 * row pair and block, so the requantization is set up once per block and
 * the call costs once per block.  Not inlined: the K loop wants all
 * fourteen registers to itself. */
static __attribute__((noinline)) void rows2_block(const int8_t *wa, int32_t kb, int two_rows,
                                                  const int16_t *cols, int32_t K, int32_t Kp,
                                                  size_t np, int32_t ba, int32_t bb,
                                                  const rq_t *qa, const rq_t *qb,
                                                  int8_t *restrict ya, size_t ohw)
{

    for (size_t i = 0; i < np; i += 2, cols += 2 * Kp) {
        int32_t s00 = ba, s01 = ba, s10 = bb, s11 = bb;
        const int8_t *w = wa, *wend = wa + (K & ~3);
        const int16_t *c = cols;
        if (w < wend) {
            /* The loop in assembly: four sums, four column words, two
             * temporaries, the two pointers, the row distance and the end
             * are fourteen registers; GCC's allocation of the same C
             * spilled one (23 instructions per 16 products, here 20). */
            int32_t a0, a1, b0, b1, v, t;
            __asm__ volatile(
                "1:\n\t"
                "ldr %[a0], [%[c]], #4\n\t"
                "ldr %[a1], [%[c]], #4\n\t"
                "ldr %[b0], [%[c]], #4\n\t"
                "ldr %[b1], [%[c]], #4\n\t"
                "ldr %[v], [%[w], %[kb]]\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[s10], %[a0], %[t], %[s10]\n\t"
                "smlad %[s11], %[b0], %[t], %[s11]\n\t"
                "sxtb16 %[t], %[v], ror #8\n\t"
                "smlad %[s10], %[a1], %[t], %[s10]\n\t"
                "smlad %[s11], %[b1], %[t], %[s11]\n\t"
                "ldr %[v], [%[w]], #4\n\t"
                "sxtb16 %[t], %[v]\n\t"
                "smlad %[s00], %[a0], %[t], %[s00]\n\t"
                "smlad %[s01], %[b0], %[t], %[s01]\n\t"
                "sxtb16 %[t], %[v], ror #8\n\t"
                "smlad %[s00], %[a1], %[t], %[s00]\n\t"
                "smlad %[s01], %[b1], %[t], %[s01]\n\t"
                "cmp %[w], %[wend]\n\t"
                "bne 1b\n\t"
                : [a0] "=&r"(a0), [a1] "=&r"(a1), [b0] "=&r"(b0), [b1] "=&r"(b1),
                  [v] "=&r"(v), [t] "=&r"(t), [s00] "+r"(s00), [s01] "+r"(s01),
                  [s10] "+r"(s10), [s11] "+r"(s11), [c] "+r"(c), [w] "+r"(w)
                : [kb] "r"(kb), [wend] "r"(wend)
                : "cc", "memory");
        }
        for (int32_t k = K & ~3; k < K; k++) {
            int32_t q = pw_pos(k);
            s00 += cols[q] * wa[k];
            s01 += cols[q + 4] * wa[k];
            s10 += cols[q] * wa[k + kb];
            s11 += cols[q + 4] * wa[k + kb];
        }
        ya[i] = rq_apply(qa, s00);
        if (i + 1 < np)
            ya[i + 1] = rq_apply(qa, s01);
        if (two_rows) {
            ya[ohw + i] = rq_apply(qb, s10);
            if (i + 1 < np)
                ya[ohw + i + 1] = rq_apply(qb, s11);
        }
    }
}

/* Any group conv through the columns.  On the stack (4 * K bytes fit in
 * DSP_STACK) as many pixels as fit are gathered at once, in the arena
 * scratch two; then every output channel pair runs over the block. */
static void conv_cols(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                      const int32_t *bias, const int32_t *mult, const int32_t *shift,
                      int8_t *dst, int16_t *scratch)
{
    int16_t stack_cols[DSP_STACK / 2];
    int8_t stack_taps[DSP_STACK / 4];
    int32_t groups = a->group > 0 ? a->group : 1, cg = a->c / groups, og = a->oc / groups;
    int32_t K = cg * a->kh * a->kw, Kp = (K + 3) & ~3;
    size_t plane = (size_t)a->h * a->w, ohw = (size_t)a->oh * a->ow;
    int pointwise = ln_rt__s8_is_1x1(a), on_stack = ln_rt__s8_cols_bytes(a) <= DSP_STACK;
    int16_t *cols = on_stack ? stack_cols : scratch;
    /* the int8 taps of one pixel: after the columns in scratch */
    int8_t *taps = on_stack ? stack_taps : (int8_t *)(scratch + 2 * (size_t)Kp);
    /* pixels per block: pairs of columns of 2 * Kp int16 */
    size_t block = on_stack ? 2 * ((DSP_STACK / 2) / (2 * (size_t)Kp)) : 2;

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t g = 0; g < groups; g++) {
            const int8_t *x0 = src + ((size_t)b * a->c + (size_t)g * cg) * plane;
            const int8_t *wg = weight + (size_t)g * og * K;
            int8_t *yg = dst + ((size_t)b * a->oc + (size_t)g * og) * ohw;
            for (size_t p0 = 0; p0 < ohw; p0 += block) {
                size_t np = ohw - p0 < block ? ohw - p0 : block;
                for (size_t i = 0; i < np; i++) {
                    int16_t *pc = cols + (i / 2) * 2 * (size_t)Kp;
                    size_t p = p0 + i;
                    if (pointwise) {
                        gather_1x1(x0, plane, cg, a->input_offset, p, i + 1 < np, pc);
                        i++;
                        continue;
                    }
                    gather_taps(a, x0, cg, (int32_t)(p / (size_t)a->ow),
                                (int32_t)(p % (size_t)a->ow), taps, Kp);
                    expand_col(taps, Kp, a->input_offset, pc + (i % 2) * 4);
                }
                if (!pointwise && np % 2) {     /* the unused half: sums not stored; defined */
                    memset(taps, -a->input_offset, (size_t)Kp);
                    expand_col(taps, Kp, a->input_offset, cols + (np / 2) * 2 * (size_t)Kp + 4);
                }
                for (int32_t o = 0; o < og; o += 2) {
                    int32_t oc = g * og + o, two = o + 1 < og;
                    rq_t qa, qb;
                    rq_init(&qa, a, mult[oc], shift[oc]);
                    rq_init(&qb, a, mult[two ? oc + 1 : oc], shift[two ? oc + 1 : oc]);
                    rows2_block(wg + (size_t)o * K, two ? K : 0, two, cols, K, Kp, np,
                                bias ? bias[oc] : 0, bias && two ? bias[oc + 1] : 0, &qa, &qb,
                                yg + (size_t)o * ohw + p0, ohw);
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
LN_RT_NO_LIBCALL_LOOPS
static void dw_fill_row(const ln_rt_s8_conv_args *a, const int8_t *x, int32_t iy, int8_t *restrict r,
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

/* One output row of a 3x3 depthwise channel from its three padded input
 * rows.  A word of four inputs r0..r3 gives e = (r0, r2) and o = (r1, r3)
 * (offset added): out(x) = e.(w0, w2) + o.bottom * w1 and, at stride 1,
 * out(x + 1) = o.(w0, w2) + e.top * w1 (SMLAD, SMLABB, SMLATB).  Not
 * inlined: its loop wants the registers (six weight words, two sums, three
 * row pointers). */
static inline void dw_row_body(const int8_t *r0, const int8_t *r1, const int8_t *r2,
                               int32_t ow, int32_t s, int32_t off2, int32_t b0,
                               const int32_t *wk, const rq_t *q, int8_t *restrict yr)
{
    const int32_t a0 = wk[0], a1 = wk[1], a2 = wk[2], c0 = wk[3], c1 = wk[4], c2 = wk[5];
    int32_t ox = 0;

    if (s == 1)
        for (; ox + 2 <= ow; ox += 2) {
            int32_t acc0 = b0, acc1 = b0, v, e, o;
            v = ld32(r0 + ox);
            e = SPREAD_EVEN_OFF(off2, v);
            o = SPREAD_ODD_OFF(off2, v);
            acc0 = __smlabb(o, c0, __smlad(e, a0, acc0));
            acc1 = __smlatb(e, c0, __smlad(o, a0, acc1));
            v = ld32(r1 + ox);
            e = SPREAD_EVEN_OFF(off2, v);
            o = SPREAD_ODD_OFF(off2, v);
            acc0 = __smlabb(o, c1, __smlad(e, a1, acc0));
            acc1 = __smlatb(e, c1, __smlad(o, a1, acc1));
            v = ld32(r2 + ox);
            e = SPREAD_EVEN_OFF(off2, v);
            o = SPREAD_ODD_OFF(off2, v);
            acc0 = __smlabb(o, c2, __smlad(e, a2, acc0));
            acc1 = __smlatb(e, c2, __smlad(o, a2, acc1));
            yr[ox] = rq_apply(q, acc0);
            yr[ox + 1] = rq_apply(q, acc1);
        }
    for (; ox < ow; ox++) {
        int32_t acc = b0, v;
        v = ld32(r0 + ox * s);
        acc = __smlabb(SPREAD_ODD_OFF(off2, v), c0, __smlad(SPREAD_EVEN_OFF(off2, v), a0, acc));
        v = ld32(r1 + ox * s);
        acc = __smlabb(SPREAD_ODD_OFF(off2, v), c1, __smlad(SPREAD_EVEN_OFF(off2, v), a1, acc));
        v = ld32(r2 + ox * s);
        acc = __smlabb(SPREAD_ODD_OFF(off2, v), c2, __smlad(SPREAD_EVEN_OFF(off2, v), a2, acc));
        yr[ox] = rq_apply(q, acc);
    }
}

static __attribute__((noinline)) void dw_row(const int8_t *r0, const int8_t *r1,
                                             const int8_t *r2, int32_t ow, int32_t s,
                                             int32_t off2, int32_t b0, const int32_t *wk,
                                             const rq_t *q, int8_t *restrict yr)
{
    dw_row_body(r0, r1, r2, ow, s, off2, b0, wk, q, yr);
}

/* Every output row of a channel from its whole padded plane (rows rw
 * apart): no per-row call or copy, for the small maps where those cost
 * as much as the row (DS-CNN's 25x5). */
static __attribute__((noinline)) void dw_plane(const int8_t *pl, int32_t rw, int32_t oh,
                                               int32_t ow, int32_t sh, int32_t s, int32_t off2,
                                               int32_t b0, const int32_t *wk, const rq_t *q,
                                               int8_t *restrict y)
{
    for (int32_t oy = 0; oy < oh; oy++, pl += sh * rw, y += ow)
        dw_row_body(pl, pl + rw, pl + 2 * rw, ow, s, off2, b0, wk, q, y);
}

/* Depthwise 3x3 on zero-point padded rows on the stack: the whole padded
 * plane when it fits (1 KB), else three rows kept as a window sliding down
 * the channel (stride 1 copies one new row per output row, stride 2 two). */
static void dw3x3(const ln_rt_s8_conv_args *a, const int8_t *src, const int8_t *weight,
                  const int32_t *bias, const int32_t *mult, const int32_t *shift, int8_t *dst)
{
    int8_t rows[3][DSP_STACK / 3];
    size_t plane = (size_t)a->h * a->w, ohw = (size_t)a->oh * a->ow;
    int32_t off2 = dup16(a->input_offset), rw = dw_row_width(a);

    /* the padded plane's rows: from -pad_top to the last output's window */
    int32_t prows = (a->oh - 1) * a->stride_h + 3;
    int whole = (size_t)prows * rw <= sizeof rows;

    for (int32_t b = 0; b < a->n; b++)
        for (int32_t ch = 0; ch < a->c; ch++) {
            const int8_t *x = src + ((size_t)b * a->c + ch) * plane, *w = weight + (size_t)ch * 9;
            int8_t *y = dst + ((size_t)b * a->oc + ch) * ohw;
            int8_t *r[3] = {rows[0], rows[1], rows[2]};    /* input rows top .. top + 2 */
            int32_t wk[6], top = INT32_MIN;
            rq_t q;
            rq_init(&q, a, mult[ch], shift[ch]);
            for (int ky = 0; ky < 3; ky++) {
                wk[ky] = pack16(w[3 * ky], w[3 * ky + 2]);
                wk[3 + ky] = w[3 * ky + 1];
            }
            if (whole) {
                int8_t *pl = &rows[0][0];
                for (int32_t i = 0; i < prows; i++)
                    dw_fill_row(a, x, i - a->pad_top, pl + (size_t)i * rw, rw);
                dw_plane(pl, rw, a->oh, a->ow, a->stride_h, a->stride_w, off2,
                         bias ? bias[ch] : 0, wk, &q, y);
                continue;
            }
            for (int32_t oy = 0; oy < a->oh; oy++) {
                int32_t iy0 = oy * a->stride_h - a->pad_top, keep = 0;
                if (top != INT32_MIN && iy0 - top < 3)
                    keep = 3 - (iy0 - top);     /* rows still in the window */
                for (int k = 0; k < 3 - keep; k++) {    /* slide: the kept rows to the top */
                    int8_t *t = r[0];
                    r[0] = r[1];
                    r[1] = r[2];
                    r[2] = t;
                }
                for (int k = keep; k < 3; k++)
                    dw_fill_row(a, x, iy0 + k, r[k], rw);
                top = iy0;
                dw_row(r[0], r[1], r[2], a->ow, a->stride_w, off2, bias ? bias[ch] : 0, wk, &q,
                       y + (size_t)oy * a->ow);
            }
        }
}

int ln_rt__conv2d_nchw_s8_dsp(const ln_rt_s8_conv_args *a, const int8_t *src,
                              const int8_t *weight, const int32_t *bias, const int32_t *mult,
                              const int32_t *shift, int8_t *dst, void *scratch)
{
    if ((size_t)a->oh * a->ow == 0)
        return 0;
    for (int32_t o = 0; o < a->oc; o++)     /* rq_apply's one assumption */
        if (mult[o] == INT32_MIN)
            return 0;
    if (ln_rt__s8_is_dw3x3(a) && dw_row_width(a) <= DSP_STACK / 3) {
        dw3x3(a, src, weight, bias, mult, shift, dst);
        return 1;
    }
    if (ln_rt__s8_cols_bytes(a) > DSP_STACK && !scratch)
        return 0;
    conv_cols(a, src, weight, bias, mult, shift, dst, scratch);
    return 1;
}

/* ---- fully connected ---------------------------------------------------- */

/* Four weight rows (w0 and the three after it, K apart) against the int16
 * column (colpos order): s[i] += row i . column, word by word up to K
 * rounded down to 4, then tap by tap.  Not inlined: four row pointers,
 * four sums and the column words fill the registers. */
static __attribute__((noinline)) void fc_rows4(const int8_t *w0, int32_t K, const int16_t *col,
                                               int32_t *s)
{
    const int8_t *w1 = w0 + K, *w2 = w1 + K, *w3 = w2 + K;
    const int16_t *c = col, *cend = col + (K & ~3);
    int32_t s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];

    if (c < cend) {
        /* The loop in assembly: four sums, five post-incremented pointers,
         * the end and four temporaries are fourteen registers, which GCC's
         * allocation of the same C spills (27 instructions per 16 products
         * instead of 24). */
        int32_t e, o, v, t;
        __asm__ volatile(
            "1:\n\t"
            "ldr %[e], [%[c]], #4\n\t"
            "ldr %[o], [%[c]], #4\n\t"
            "ldr %[v], [%[w0]], #4\n\t"
            "sxtb16 %[t], %[v]\n\t"
            "smlad %[s0], %[e], %[t], %[s0]\n\t"
            "sxtb16 %[t], %[v], ror #8\n\t"
            "smlad %[s0], %[o], %[t], %[s0]\n\t"
            "ldr %[v], [%[w1]], #4\n\t"
            "sxtb16 %[t], %[v]\n\t"
            "smlad %[s1], %[e], %[t], %[s1]\n\t"
            "sxtb16 %[t], %[v], ror #8\n\t"
            "smlad %[s1], %[o], %[t], %[s1]\n\t"
            "ldr %[v], [%[w2]], #4\n\t"
            "sxtb16 %[t], %[v]\n\t"
            "smlad %[s2], %[e], %[t], %[s2]\n\t"
            "sxtb16 %[t], %[v], ror #8\n\t"
            "smlad %[s2], %[o], %[t], %[s2]\n\t"
            "ldr %[v], [%[w3]], #4\n\t"
            "sxtb16 %[t], %[v]\n\t"
            "smlad %[s3], %[e], %[t], %[s3]\n\t"
            "sxtb16 %[t], %[v], ror #8\n\t"
            "smlad %[s3], %[o], %[t], %[s3]\n\t"
            "cmp %[c], %[cend]\n\t"
            "bne 1b\n\t"
            : [e] "=&r"(e), [o] "=&r"(o), [v] "=&r"(v), [t] "=&r"(t), [s0] "+r"(s0),
              [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [c] "+r"(c), [w0] "+r"(w0),
              [w1] "+r"(w1), [w2] "+r"(w2), [w3] "+r"(w3)
            : [cend] "r"(cend)
            : "cc", "memory");
    }
    for (int32_t k = 0; k < (K & 3); k++) {
        int32_t xv = c[colpos(k)];
        s0 += xv * w0[k];
        s1 += xv * w1[k];
        s2 += xv * w2[k];
        s3 += xv * w3[k];
    }
    s[0] = s0;
    s[1] = s1;
    s[2] = s2;
    s[3] = s3;
}

/* Fully connected: each input row once into an int16 column on the stack
 * (offset added; up to DSP_STACK inputs, 2 * DSP_STACK bytes: the stack the
 * convs use, as columns, is not in use then; more inputs take the portable
 * kernel),
 * then four output rows at a time (fc_rows4; a last group of fewer reads
 * its first row again and stores only its own).  A weight zero point
 * (filter_offset) is left to the portable kernel. */
int ln_rt__fc_s8_dsp(const ln_rt_s8_fc_args *a, const int8_t *src, const int8_t *weight,
                     const int32_t *bias, const int32_t *mult, const int32_t *shift,
                     int8_t *dst)
{
    int16_t col[DSP_STACK];
    int32_t K = a->in, off = a->input_offset, off2 = dup16(off);

    if (a->filter_offset != 0 || K > DSP_STACK)
        return 0;
    for (int32_t b = 0; b < a->batches; b++) {
        const int8_t *x = src + (size_t)b * K;
        int8_t *restrict y = dst + (size_t)b * a->out;
        int32_t k = 0;
        for (; k + 4 <= K; k += 4) {
            int32_t v = ld32(x + k);
            st32(col + k, SPREAD_EVEN_OFF(off2, v));
            st32(col + k + 2, SPREAD_ODD_OFF(off2, v));
        }
        for (; k < K; k++)
            col[(k & ~3) + colpos(k & 3)] = (int16_t)(x[k] + off);
        for (int32_t o = 0; o < a->out; o += 4) {
            int32_t n = a->out - o < 4 ? a->out - o : 4, s[4];
            /* fewer than four rows left: the group starts earlier, those
             * before o are computed again and not stored */
            int32_t o0 = n == 4 || a->out < 4 ? o : a->out - 4;
            int32_t rows = a->out < 4 ? a->out : 4;
            if (rows < 4) {     /* a layer of under four outputs: row by row */
                for (int32_t i = 0; i < rows; i++) {
                    const int8_t *w = weight + (size_t)i * K;
                    int32_t t = bias ? bias[i] : 0, q = a->per_channel ? i : 0, j = 0;
                    for (; j + 4 <= K; j += 4) {
                        int32_t v = ld32(w + j);
                        t = __smlad(ld32(col + j), SPREAD_EVEN(v), t);
                        t = __smlad(ld32(col + j + 2), SPREAD_ODD(v), t);
                    }
                    for (; j < K; j++)
                        t += col[(j & ~3) + colpos(j & 3)] * w[j];
                    y[i] = ln_rt__clamp_s8(ln_rt__requant(t, mult[q], shift[q]) +
                                           a->output_offset, a->act_min, a->act_max);
                }
                break;
            }
            for (int32_t i = 0; i < 4; i++)
                s[i] = bias ? bias[o0 + i] : 0;
            fc_rows4(weight + (size_t)o0 * K, K, col, s);
            for (int32_t i = o - o0; i < 4; i++) {
                int32_t q = a->per_channel ? o0 + i : 0;
                y[o0 + i] = ln_rt__clamp_s8(ln_rt__requant(s[i], mult[q], shift[q]) +
                                            a->output_offset, a->act_min, a->act_max);
            }
        }
    }
    return 1;
}

#else
typedef int ln_rt__conv2d_s8_dsp_unused;   /* ISO C: no empty translation unit */
#endif
