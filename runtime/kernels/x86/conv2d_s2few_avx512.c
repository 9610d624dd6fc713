/*
 * conv2d_s2few_avx512.c -- AVX-512F stride-2 (and stride-1) convolution
 * for few input channels (1-4): the RGB first convs of ImageNet models
 * (ResNet-18 / DenseNet-121's 3->64 7x7 pad 3, SqueezeNet 1.1's 3->64 3x3
 * no pad, MobileNetV2's 3->32 3x3 pad 1, all at 224x224) and, at stride 1,
 * those of CIFAR-sized and LeNet-style models (ResNet-8's 3->16 3x3 @32,
 * LeNet-5's 1->6 5x5 @28). At stride 1 the rows are copied with their
 * padding instead of split (one phase, tap kx at x + kx) and each output
 * row copies one new row a channel; in one process against the direct
 * kernel these had run on (same bits): ResNet-8's conv1 0.69 of the time,
 * LeNet-5's 0.55, 3->64 3x3 @224 0.49, 3->32 @64 0.79.
 *
 * Lanes run along the pixels of one output row. Before each output row the
 * kh input rows of every channel it reads are split into their even and
 * odd columns, zero padding included, in a row buffer on the stack:
 *   buf[ci][ky][phase][X] = in[ci][2*oy + ky - pad_top][2*X + phase - pad_left]
 * (0 outside the image), so tap (ky, kx) of output pixel x reads
 * buf[ci][ky][kx & 1][x + (kx >> 1)]: ONE plain unmasked load per vector
 * and tap, no permute, no per-tap masks (x86/conv2d_direct_avx512.c needs
 * two masked loads and a vpermt2ps per vector at stride 2). The split is
 * two masked loads (masks computed once per call), two permutes and two
 * stores per 16 columns of both phase rows. The buffer is a ring of kh
 * rows a channel, so an output row splits only the 2 rows the one above
 * did not read (kh - 2 are shared). Few instructions against the FMAs
 * (~1% of their count at 7x7, ~3% at 3x3 with 64 output channels), but
 * on a Zen 5 the split took ~40% of MobileNetV1-0.25's 3->8 @96 (a probe
 * splitting only the first row ran in 0.61 of the time): with the ring
 * and the masks out of the loop, in one process, that conv runs in 0.88
 * of the time, MobileNetV2's 3->32 3x3 @224 0.95, ResNet-18's 3->64 7x7
 * 0.95-0.97 (same bits).
 *
 * Register tile: 8 output channels x up to 3 vectors (48 pixels) = 24
 * accumulators; the taps of all input channels are one loop over a table
 * of row-buffer offsets (c*kh*kw <= 484 steps), weights broadcast from the
 * weight tensor in place ([oc][c][kh][kw], one pointer + 7 row offsets).
 * The output channel tail (oc % 8) computes duplicate rows, not stored.
 * Each output is a sum from 0, one FMA per tap, + bias, + res,
 * activation, with the taps in the order of the kernel the public entry
 * would otherwise run (conv2d_f32.c), so this one changes no bits: the
 * direct kernel's (ky, kx, ci) where ln_rt__conv2d_direct_ok holds
 * (small images: MobileNetV1-0.25's 3->8 @96), the GEMM's (ci, ky, kx)
 * elsewhere. The order depends on shapes only, never on pointers.
 *
 * Compiled to something only for AVX-512F; ln_rt__conv2d_s2few_ok is
 * plain C.
 */
#include "conv2d_s2few_avx512.h"

/* row buffer capacity in floats (32 KiB of stack) */
#define S2F_BUF 8192
#define S2F_MAXTAPS 484

/* phase row length: whole 16-column chunks, covering every column a
 * 16-lane vector of the last block reads (x < ceil16(ow), + kw / 2 at
 * stride 2, + kw - 1 at stride 1) */
static int32_t s2f_pw(int32_t ow, int32_t kw, int32_t s)
{
    return (ow + 15) / 16 * 16 + (((s == 2 ? kw / 2 : kw - 1) + 15) / 16) * 16;
}

int ln_rt__conv2d_s2few_ok(const ln_rt_conv2d_args *a)
{
    int32_t ow;
    int32_t s = a->stride_w;
    /* not a 1x1 at stride 1, which the GEMM reads in place: 3->64 @56
     * took 1.34x its time here, 4->32 @112 1.14x */
    if (a->group != 1 || a->dil_h != 1 || a->dil_w != 1 ||
        a->stride_h != s || (s != 1 && s != 2) || a->c < 1 || a->c > 4 ||
        a->kh < 1 || a->kw < 1 || a->kh > 11 || a->kw > 11 ||
        a->c * a->kh * a->kw > 256 || (s == 1 && a->kh * a->kw == 1))
        return 0;
    ow = ln_rt_conv_out_size(a->w, a->kw, s, a->pad_left, a->pad_right, 1);
    if (ow < 16 || ow > 512 ||
        ln_rt_conv_out_size(a->h, a->kh, s, a->pad_top, a->pad_bottom, 1) <
            1)
        return 0;
    return (int64_t)a->c * a->kh * s * s2f_pw(ow, a->kw, s) <= S2F_BUF;
}

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"
#include "conv_store_avx512.h"

/* Where a block's sums go: out + r * plane for output channel row r < mv
 * (rin likewise, the residual, or NULL), nl lanes of the nv vectors
 * (the last through ml). */
typedef struct {
    float *out;
    const float *rin;
    size_t plane;
    int mv;
    int32_t nl;
    __mmask16 ml;
    const float *bias;
    ln_rt_act act;
    float alpha, beta;
    float lo, hi; /* S2F_CLAMP's bounds */
} s2f_dst;

/* act kinds of a block instance: its epilogue in registers for none,
 * ReLU and the clamps min(max(x, lo), hi) (ReLU6, MobileNetV2's Clip 0..6:
 * lo 0, hi 6; Clip: alpha, beta), the operations of
 * ln_rt__act_nosilu_v512 in its order; any other activation (SiLU's
 * sigmoid would spill the 24 accumulators around it) through
 * ln_rt__conv_store_v512 on a copy of them. In one process against that
 * copy, MobileNetV2's 3->32 3x3 s2 with its ReLU6 ran in 0.87-0.88 of the
 * time. For the others, storing the sums (+ bias, + res) and running
 * ln_rt__act_v512 over the block's rows while in L1 took 1.05x (leaky
 * ReLU, HardSwish) and 1.10x (SiLU, EfficientNet's first conv) the time
 * of the copy. */
#define S2F_NONE 0
#define S2F_RELU 1
#define S2F_CLAMP 2
#define S2F_GENERIC 3

/* one output channel's row of a block from its accumulators: the
 * operations of ln_rt__conv_store_v512 in its order (+ bias, + res,
 * activation), so the same bits; the vectors before the last are whole */
static inline __attribute__((always_inline)) void
s2f_store_row(const s2f_dst *o, int r, __m512 x0, __m512 x1, __m512 x2,
              int nv, int kind)
{
    float *op = o->out + (size_t)r * o->plane;
    const float *rp = o->rin ? o->rin + (size_t)r * o->plane : NULL;
    __m512 bv = _mm512_setzero_ps();
    if (o->bias) {
        bv = _mm512_set1_ps(o->bias[r]);
        x0 = _mm512_add_ps(x0, bv);
        x1 = _mm512_add_ps(x1, bv);
        x2 = _mm512_add_ps(x2, bv);
    }
    if (rp) {
        x0 = _mm512_add_ps(x0, _mm512_maskz_loadu_ps(nv > 1 ? 0xffff : o->ml,
                                                     rp));
        if (nv >= 2)
            x1 = _mm512_add_ps(x1, _mm512_maskz_loadu_ps(
                                       nv > 2 ? 0xffff : o->ml, rp + 16));
        if (nv >= 3)
            x2 = _mm512_add_ps(x2, _mm512_maskz_loadu_ps(o->ml, rp + 32));
    }
    if (kind == S2F_RELU) {
        x0 = _mm512_max_ps(x0, _mm512_setzero_ps());
        x1 = _mm512_max_ps(x1, _mm512_setzero_ps());
        x2 = _mm512_max_ps(x2, _mm512_setzero_ps());
    } else if (kind == S2F_CLAMP) {
        const __m512 lo = _mm512_set1_ps(o->lo), hi = _mm512_set1_ps(o->hi);
        x0 = _mm512_min_ps(_mm512_max_ps(x0, lo), hi);
        x1 = _mm512_min_ps(_mm512_max_ps(x1, lo), hi);
        x2 = _mm512_min_ps(_mm512_max_ps(x2, lo), hi);
    }
    if (nv == 1) {
        _mm512_mask_storeu_ps(op, o->ml, x0);
    } else if (nv == 2) {
        _mm512_storeu_ps(op, x0);
        _mm512_mask_storeu_ps(op + 16, o->ml, x1);
    } else {
        _mm512_storeu_ps(op, x0);
        _mm512_storeu_ps(op + 16, x1);
        _mm512_mask_storeu_ps(op + 32, o->ml, x2);
    }
}

/* NV vectors (1-3) x 8 output channels, the taps' sums then the stores.
 * The epilogue works on the named accumulators: through an array (the
 * block returned its sums to the caller, which stored them) a 3x3 conv's
 * 27 taps a block left ~30% of the time outside the FMAs (MobileNetV2's
 * 3->32 @224: each extra 27 taps of a probe cost 0.107 ms, the call
 * 0.152). */
#define S2F_ACC_ROW(r)                                                        \
    __m512 c##r##0 = _mm512_setzero_ps(), c##r##1 = _mm512_setzero_ps(),     \
           c##r##2 = _mm512_setzero_ps();
static inline __attribute__((always_inline)) void
s2f_block(const float *w0, const ptrdiff_t *d, const float *buf,
          const int32_t *toff, const int32_t *woff, int32_t nt, int nv,
          int kind, const s2f_dst *o)
{
    S2F_ACC_ROW(0) S2F_ACC_ROW(1) S2F_ACC_ROW(2) S2F_ACC_ROW(3)
    S2F_ACC_ROW(4) S2F_ACC_ROW(5) S2F_ACC_ROW(6) S2F_ACC_ROW(7)
    const ptrdiff_t d1 = d[1], d2 = d[2], d3 = d[3], d4 = d[4], d5 = d[5],
                    d6 = d[6], d7 = d[7];
    int32_t t;
    for (t = 0; t < nt; t++) {
        const float *ip = buf + toff[t];
        const float *wp = w0 + woff[t];
        __m512 b0 = _mm512_loadu_ps(ip), b1 = _mm512_setzero_ps(),
               b2 = _mm512_setzero_ps(), a;
        if (nv >= 2)
            b1 = _mm512_loadu_ps(ip + 16);
        if (nv >= 3)
            b2 = _mm512_loadu_ps(ip + 32);
#define S2F_ROW(r, dr)                                                        \
    a = _mm512_set1_ps(wp[dr]);                                               \
    c##r##0 = _mm512_fmadd_ps(a, b0, c##r##0);                                \
    if (nv >= 2)                                                              \
        c##r##1 = _mm512_fmadd_ps(a, b1, c##r##1);                            \
    if (nv >= 3)                                                              \
        c##r##2 = _mm512_fmadd_ps(a, b2, c##r##2);
        S2F_ROW(0, 0) S2F_ROW(1, d1) S2F_ROW(2, d2) S2F_ROW(3, d3)
        S2F_ROW(4, d4) S2F_ROW(5, d5) S2F_ROW(6, d6) S2F_ROW(7, d7)
#undef S2F_ROW
    }
    if (kind == S2F_GENERIC) {
        __m512 acc[24];
        int r;
#define S2F_OUT_ROW(r)                                                        \
    acc[3 * r] = c##r##0; acc[3 * r + 1] = c##r##1; acc[3 * r + 2] = c##r##2;
        S2F_OUT_ROW(0) S2F_OUT_ROW(1) S2F_OUT_ROW(2) S2F_OUT_ROW(3)
        S2F_OUT_ROW(4) S2F_OUT_ROW(5) S2F_OUT_ROW(6) S2F_OUT_ROW(7)
#undef S2F_OUT_ROW
        for (r = 0; r < o->mv; r++)
            ln_rt__conv_store_v512(
                o->out + (size_t)r * o->plane,
                o->rin ? o->rin + (size_t)r * o->plane : NULL, acc + 3 * r,
                nv, o->nl, o->bias ? o->bias + r : NULL, o->act, o->alpha,
                o->beta);
        return;
    }
#define S2F_ST(r)                                                             \
    if (r < o->mv)                                                            \
        s2f_store_row(o, r, c##r##0, c##r##1, c##r##2, nv, kind);
    S2F_ST(0) S2F_ST(1) S2F_ST(2) S2F_ST(3)
    S2F_ST(4) S2F_ST(5) S2F_ST(6) S2F_ST(7)
#undef S2F_ST
}
#undef S2F_ACC_ROW

typedef void (*s2f_block_fn)(const float *, const ptrdiff_t *, const float *,
                             const int32_t *, const int32_t *, int32_t,
                             const s2f_dst *);
#define S2F_INST(nv, kind)                                                    \
    static void s2f_block_##nv##_##kind(const float *w0, const ptrdiff_t *d,  \
                                        const float *buf,                     \
                                        const int32_t *toff,                  \
                                        const int32_t *woff, int32_t nt,      \
                                        const s2f_dst *o)                     \
    {                                                                         \
        s2f_block(w0, d, buf, toff, woff, nt, nv, kind, o);                   \
    }
S2F_INST(1, 0) S2F_INST(2, 0) S2F_INST(3, 0)
S2F_INST(1, 1) S2F_INST(2, 1) S2F_INST(3, 1)
S2F_INST(1, 2) S2F_INST(2, 2) S2F_INST(3, 2)
S2F_INST(1, 3) S2F_INST(2, 3) S2F_INST(3, 3)
#undef S2F_INST

/* [kind][nv - 1] */
static const s2f_block_fn s2f_blocks[4][3] = {
    { s2f_block_1_0, s2f_block_2_0, s2f_block_3_0 },
    { s2f_block_1_1, s2f_block_2_1, s2f_block_3_1 },
    { s2f_block_1_2, s2f_block_2_2, s2f_block_3_2 },
    { s2f_block_1_3, s2f_block_2_3, s2f_block_3_3 }
};

/* the lanes of the 32 columns from 2x - pl that fall in [0, W), for
 * every 16-column chunk x of a phase row: masks[2 * (x / 16) + half] */
static void s2f_masks(int32_t W, int32_t pl, int32_t pw, __mmask16 *masks)
{
    int32_t x;
    for (x = 0; x < pw; x += 16) {
        const int32_t c0 = 2 * x - pl;
        const int32_t lo = c0 >= 0 ? 0 : -c0 > 32 ? 32 : -c0;
        const int32_t hi = W - c0 >= 32 ? 32 : W - c0 <= 0 ? 0 : W - c0;
        const uint64_t m = lo < hi ? (((uint64_t)1 << hi) - 1u) &
                                         ~(((uint64_t)1 << lo) - 1u)
                                   : 0;
        masks[2 * (x / 16)] = (__mmask16)(m & 0xffffu);
        masks[2 * (x / 16) + 1] = (__mmask16)(m >> 16);
    }
}

/* stride 1: the lanes of the 16 columns from x - pl that fall in [0, W),
 * for every 16-column chunk x of a row: masks[x / 16] */
static void s2f_masks1(int32_t W, int32_t pl, int32_t pw, __mmask16 *masks)
{
    int32_t x;
    for (x = 0; x < pw; x += 16) {
        const int32_t c0 = x - pl;
        const int32_t lo = c0 >= 0 ? 0 : -c0 > 16 ? 16 : -c0;
        const int32_t hi = W - c0 >= 16 ? 16 : W - c0 <= 0 ? 0 : W - c0;
        masks[x / 16] = (__mmask16)(lo < hi ? ((1u << hi) - 1u) &
                                                  ~((1u << lo) - 1u)
                                            : 0u);
    }
}

/* stride 1: one input row (NULL: outside the image) from column -pl on,
 * r[X] = row[X - pl], zero outside [0, W) (masks from s2f_masks1) */
static void s2f_copy(const float *row, int32_t pl, int32_t pw,
                     const __mmask16 *masks, float *r)
{
    int32_t x;
    if (!row) {
        for (x = 0; x < pw; x += 16)
            _mm512_storeu_ps(r + x, _mm512_setzero_ps());
        return;
    }
    row -= pl;
    for (x = 0; x < pw; x += 16, masks++)
        _mm512_storeu_ps(r + x, *masks == 0xffffu
                                    ? _mm512_loadu_ps(row + x)
                                    : _mm512_maskz_loadu_ps(*masks, row + x));
}

/* one input row (NULL: outside the image) split into its even and odd
 * columns from column -pl on: ev[X] = row[2X - pl], od[X] = row[2X + 1 - pl],
 * zero outside [0, W) (masks from s2f_masks); pw a multiple of 16 */
static void s2f_split(const float *row, int32_t pl, int32_t pw,
                      const __mmask16 *masks, float *ev, float *od)
{
    const __m512i ie = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
    const __m512i io = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                         21, 23, 25, 27, 29, 31);
    int32_t x;
    if (!row) {
        for (x = 0; x < pw; x += 16) {
            _mm512_storeu_ps(ev + x, _mm512_setzero_ps());
            _mm512_storeu_ps(od + x, _mm512_setzero_ps());
        }
        return;
    }
    row -= pl;
    for (x = 0; x < pw; x += 16, masks += 2) {
        __m512 l0, l1;
        /* the chunks inside the row by plain loads: a masked load that
         * splits a cache line (every one at an odd pad) cost about twice
         * a plain one on a Zen 5 */
        if ((masks[0] & masks[1]) == 0xffffu) {
            l0 = _mm512_loadu_ps(row + 2 * x);
            l1 = _mm512_loadu_ps(row + 2 * x + 16);
        } else {
            l0 = _mm512_maskz_loadu_ps(masks[0], row + 2 * x);
            l1 = _mm512_maskz_loadu_ps(masks[1], row + 2 * x + 16);
        }
        _mm512_storeu_ps(ev + x, _mm512_permutex2var_ps(l0, ie, l1));
        _mm512_storeu_ps(od + x, _mm512_permutex2var_ps(l0, io, l1));
    }
}

/* Touch the input rows [iy0, iy0 + nr) of every channel (those in the
 * image), which the next output row splits. These first convs read the
 * graph's input, which the previous run's last layers (a classifier's
 * megabytes of weights) have pushed out of the caches, nr = stride rows a
 * channel per output row, too few for the hardware to run ahead on: in
 * the interpreter on an AMD EPYC (Zen 5), best of 4 alternated, this took
 * MobileNetV2's 3->32 3x3 from 0.291 to 0.267 ms, ResNet-18's 3->64 7x7
 * 1.455 -> 1.424, DenseNet-121's 1.485 -> 1.440, SqueezeNet 1.1's 3->64
 * 3x3 0.521 -> 0.506. */
static void s2f_prefetch_rows(const ln_rt_conv2d_args *a, const float *img,
                              int32_t iy0, int32_t nr)
{
    const size_t hw = (size_t)a->h * a->w;
    int32_t ci, iy, x;
    for (ci = 0; ci < a->c; ci++)
        for (iy = iy0; iy < iy0 + nr; iy++) {
            const float *q = img + ci * hw + (size_t)iy * a->w;
            if (iy < 0 || iy >= a->h)
                continue;
            for (x = 0; x < a->w; x += 16)
                _mm_prefetch((const char *)(q + x), _MM_HINT_T0);
            _mm_prefetch((const char *)(q + a->w - 1), _MM_HINT_T0);
        }
}

/* Output rows [oy0, oy1) of one image: output channel o's row oy at
 * out + o * plane + (oy - oy0) * ow (rin, the residual, likewise). The
 * first row splits all kh input rows of its window, the others the 2 the
 * row above did not read. */
static void s2f_rows(const ln_rt_conv2d_args *a, const float *img,
                     const float *weight, const float *bias, const float *rin,
                     float *out, size_t plane, int32_t oy0, int32_t oy1)
{
    float buf[S2F_BUF];
    int32_t toff[S2F_MAXTAPS], woff[S2F_MAXTAPS], tbase[S2F_MAXTAPS];
    unsigned char tky[S2F_MAXTAPS];
    __mmask16 masks[2 * (S2F_BUF / 16)];
    const int32_t s = a->stride_w;
    int32_t oh, ow, pw, nt, kk, oy, o0, r, ci, ky, kx, t;
    int direct, kind;
    size_t hw;
    ln_rt_act act;
    float alpha, beta, lo, hi;

    oh = ln_rt_conv_out_size(a->h, a->kh, s, a->pad_top, a->pad_bottom, 1);
    ow = ln_rt_conv_out_size(a->w, a->kw, s, a->pad_left, a->pad_right, 1);
    pw = s2f_pw(ow, a->kw, s);
    kk = a->c * a->kh * a->kw;
    nt = kk;
    hw = (size_t)a->h * a->w;
    act = a->act;
    kind = act == LN_RT_ACT_NONE   ? S2F_NONE
           : act == LN_RT_ACT_RELU ? S2F_RELU
           : act == LN_RT_ACT_RELU6 || act == LN_RT_ACT_CLIP ? S2F_CLAMP
                                                             : S2F_GENERIC;
    alpha = a->alpha;
    beta = a->beta;
    lo = act == LN_RT_ACT_CLIP ? alpha : 0.0f; /* S2F_CLAMP's */
    hi = act == LN_RT_ACT_CLIP ? beta : 6.0f;
    /* tap t: its row buffer offset (but for the row's slot: see below)
     * and weight ([oc][c][kh][kw]) offset, in the order of the sum (see
     * the top) */
    direct = ln_rt__conv2d_direct_ok(a);
    for (t = 0; t < nt; t++) {
        if (direct) {
            ci = t % a->c;
            kx = t / a->c % a->kw;
            ky = t / (a->c * a->kw);
        } else {
            kx = t % a->kw;
            ky = t / a->kw % a->kh;
            ci = t / (a->kh * a->kw);
        }
        tbase[t] = (ci * a->kh * s + kx % s) * pw + kx / s;
        tky[t] = (unsigned char)ky;
        woff[t] = (ci * a->kh + ky) * a->kw + kx;
    }
    if (s == 2)
        s2f_masks(a->w, a->pad_left, pw, masks);
    else
        s2f_masks1(a->w, a->pad_left, pw, masks);
    for (oy = oy0; oy < oy1; oy++) {
        /* the buffer is a ring of kh split rows a channel: padded row
         * pr in slot pr % kh. Output row oy reads rows s oy .. s oy +
         * kh - 1, the kh - s first of which row oy - 1 read too, so
         * only the others are split (s rows where there were kh) */
        const int32_t rot = s * oy % a->kh;
        int32_t x0;
        for (ci = 0; ci < a->c; ci++)
            for (ky = oy > oy0 && a->kh > s ? a->kh - s : 0; ky < a->kh;
                 ky++) {
                const int32_t iy = s * oy + ky - a->pad_top;
                const float *row = iy >= 0 && iy < a->h
                                       ? img + ci * hw + (size_t)iy * a->w
                                       : NULL;
                float *ev = buf + (size_t)((ci * a->kh +
                                            (s * oy + ky) % a->kh) *
                                           s) * pw;
                if (s == 2)
                    s2f_split(row, a->pad_left, pw, masks, ev, ev + pw);
                else
                    s2f_copy(row, a->pad_left, pw, masks, ev);
            }
        for (t = 0; t < nt; t++) {
            const int32_t sl = tky[t] + rot;
            toff[t] = tbase[t] + (sl >= a->kh ? sl - a->kh : sl) * s * pw;
        }
        if (oy + 1 < oh)
            s2f_prefetch_rows(a, img,
                              s * (oy + 1) + a->kh - s - a->pad_top, s);
        for (o0 = 0; o0 < a->oc; o0 += 8) {
            const float *w0 = weight + (size_t)o0 * kk;
            ptrdiff_t d[8];
            s2f_dst o;
            o.mv = a->oc - o0 < 8 ? (int)(a->oc - o0) : 8;
            o.bias = bias ? bias + o0 : NULL;
            o.plane = plane;
            o.act = act; o.alpha = alpha; o.beta = beta;
            o.lo = lo; o.hi = hi;
            for (r = 0; r < 8; r++)
                d[r] = r < o.mv ? (ptrdiff_t)r * kk : 0;
            for (x0 = 0; x0 < ow;) {
                /* vectors of the block: 3, or 2 + 2 for the last 4 */
                const int32_t rem = (ow - x0 + 15) / 16;
                const int nv = rem >= 3 && rem != 4 ? 3 : rem >= 2 ? 2 : 1;
                const int32_t nl = ow - x0 < 16 * nv ? ow - x0 : 16 * nv;
                const size_t oo = (size_t)o0 * plane +
                                  (size_t)(oy - oy0) * ow + x0;
                const int32_t ll = nl - 16 * (nv - 1);
                o.out = out + oo;
                o.rin = rin ? rin + oo : NULL;
                o.nl = nl;
                o.ml = (__mmask16)(ll >= 16 ? 0xffffu : (1u << ll) - 1u);
                s2f_blocks[kind][nv - 1](w0, d, buf + x0, toff, woff, nt,
                                         &o);
                x0 += nl;
            }
        }
    }
}

int ln_rt__conv2d_s2few_f32_avx512(const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, const float *res,
                                   float *dst)
{
    int32_t oh, ow, b;
    size_t npix;

    if (!ln_rt__conv2d_s2few_ok(a))
        return 0;
    oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                             a->pad_bottom, 1);
    ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                             a->pad_right, 1);
    npix = (size_t)oh * ow;
    for (b = 0; b < a->n; b++)
        s2f_rows(a, src + (size_t)b * a->c * a->h * a->w, weight, bias,
                 res ? res + (size_t)b * a->oc * npix : NULL,
                 dst + (size_t)b * a->oc * npix, npix, 0, oh);
    return 1;
}

int ln_rt__conv2d_s2few_rows_avx512(const ln_rt_conv2d_args *a,
                                    const float *img, const float *weight,
                                    const float *bias, float *out,
                                    size_t plane, int32_t oy0, int32_t oy1)
{
    if (!ln_rt__conv2d_s2few_ok(a))
        return 0;
    s2f_rows(a, img, weight, bias, NULL, out, plane, oy0, oy1);
    return 1;
}

#else
int ln_rt__conv2d_s2few_f32_avx512(const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, const float *res,
                                   float *dst)
{
    (void)a; (void)src; (void)weight; (void)bias; (void)res; (void)dst;
    return 0;
}

int ln_rt__conv2d_s2few_rows_avx512(const ln_rt_conv2d_args *a,
                                    const float *img, const float *weight,
                                    const float *bias, float *out,
                                    size_t plane, int32_t oy0, int32_t oy1)
{
    (void)a; (void)img; (void)weight; (void)bias; (void)out; (void)plane;
    (void)oy0; (void)oy1;
    return 0;
}
#endif
