/*
 * conv2d_direct_avx512.c -- AVX-512F direct convolution (group 1, no
 * packing, no scratch) for small convs, where building the GEMM engine's
 * patch block costs as much as the multiplication (few input channels,
 * 16-64 output channels, maps of 32x32 and smaller).
 *
 * Output pixels are cut into blocks of up to 32 lanes (two zmm vectors).
 * When the output rows are as wide as the input rows (stride 1, "same"
 * padding: pad_left + pad_right == kw - 1) a block is 48 consecutive pixels
 * (three vectors) of the flattened oh*ow map, crossing rows, or 64 (four
 * vectors: an 8x8 map is one block) for maps of 49-64 pixels; otherwise a
 * block is a segment of one output row. Either way
 * lane j of tap (ky, kx) reads the input at one base offset + s*j + ky*W +
 * kx, so each (tap, input channel) is one (stride 1) or two (stride 2,
 * even lanes picked by vpermt2ps) k-masked loads straight from the
 * unpadded input: masked-off lanes -- the zero padding, lanes past the end
 * -- read as zeros and touch no memory. The masks of every tap are
 * computed once per block from the lanes' (oy, ox); for a row segment a
 * tap's valid lanes are one range, found with scalar arithmetic (the
 * per-lane compares were half of MobileNetV1's 3->8 s2 first conv).
 * Stride 2 with rows of 9-16 outputs puts two output rows in a block (one
 * per vector) instead of one 16-lane row (ResNet-8's 32x32 -> 16x16).
 *
 * Register tile: 8 output channels x up to 3 vectors = 24 accumulators,
 * or 6 x 4 vectors (fewer vectors for blocks' lane tails); each loaded
 * input vector feeds 6-8 FMAs, each broadcast weight 2-4. Input channels
 * in chunks of DC_CHUNK (64), taps inside a chunk, the chunk's channels
 * innermost, so a tap's masks stay in k-registers while the inner loop
 * runs over channels, and the chunk's input rows (~45 KiB for a 48-lane
 * block at 56x56, ~27 at 28x28) are reused by all taps from L1 / near L2
 * instead of the whole block's input streaming through once per tap
 * (DenseNet's 128->32 3x3 at 56x56 0.83-0.90x the time, at 28x28 and
 * 14x14 0.84-0.94x; <= 64 channels is one chunk: the old order, the same
 * bits). The weights of a step are broadcast from
 * the weight tensor in place ([oc][c][kh][kw], rows c*kh*kw apart),
 * addressed as one pointer + loop-invariant row offsets: stepping eight
 * row pointers per input channel made the 8x2 loop issue-bound (~38 uops
 * per 16 FMAs). The output channel tail (oc % 8 or % 6) computes duplicate
 * rows that are not stored. The weights of one 8-row block (8 x c*kh*kw
 * floats, 18 KiB at c = 64, 3x3) stay in L1 across the pixel blocks.
 *
 * Three input channels (RGB first convs) get instances whose channel loop
 * has a constant trip count (unrolled): ResNet-8's 3->16 3x3 @32 went
 * from 66 to 74-78 GFLOP/s (Intel Xeon, AVX-512, best of 3 x 100 runs);
 * MobileNetV1's 3->8 s2 @96 stayed at ~50, its time is in the per-block
 * masks and stores. (Stride 2 with 1-4 input channels and rows of 16+
 * outputs now goes to x86/conv2d_s2few_avx512.c first: 79 GFLOP/s there.)
 *
 * Returns 0 without touching dst for what it cannot do (groups, dilation,
 * strides other than 1 or 2 on both axes, more than 64 taps); when it is
 * worth calling is ln_rt__conv2d_direct_ok's (conv2d_f32.c) business.
 * Compiled to something only for AVX-512F.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"
#include "conv_store_avx512.h"

#define DC_MAXTAPS 64
#define DC_CHUNK 64 /* input channels per chunk (see the top) */


/* even bits of a 32-bit mask from a 16-bit lane mask: lane j -> bit 2j */
static inline uint32_t dc_spread(uint32_t m)
{
    m &= 0xffffu;
    m = (m | (m << 8)) & 0x00ff00ffu;
    m = (m | (m << 4)) & 0x0f0f0f0fu;
    m = (m | (m << 2)) & 0x33333333u;
    m = (m | (m << 1)) & 0x55555555u;
    return m;
}

typedef struct {
    const float *w[8];      /* weight rows of the block (tail rows repeat) */
    int32_t kk;             /* c * kh * kw */
    int32_t khw, c;
    size_t hw;              /* input plane size */
} dc_wblk;

/* One block: NV vectors (1-4; 3-4 at stride 1 only) of lanes times NR
 * (<= 8) output channels, stride S (1 or 2). off[t] is the input offset of
 * lane 0 for tap t (may be outside the plane: the masks keep every load in
 * bounds), m[t][v] the lane masks (for S = 2, 32-bit element masks of the
 * two loads per vector, m[t][0] and m[t][2..3]). acc[4 * r + v] gets
 * output channel r, vector v. */
#define DC_ACC_ROW(r)                                                         \
    __m512 c##r##0 = _mm512_setzero_ps(), c##r##1 = _mm512_setzero_ps(),     \
           c##r##2 = _mm512_setzero_ps(), c##r##3 = _mm512_setzero_ps();
static inline __attribute__((always_inline)) void
dc_block(const dc_wblk *wb, const float *img, const ptrdiff_t *off,
         const uint32_t (*m)[4], int ntap, int nv, int nr, int s, int cc,
         ptrdiff_t rs, ptrdiff_t vs, __m512 *acc)
{
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
    DC_ACC_ROW(0) DC_ACC_ROW(1) DC_ACC_ROW(2) DC_ACC_ROW(3)
    DC_ACC_ROW(4) DC_ACC_ROW(5) DC_ACC_ROW(6) DC_ACC_ROW(7)
    const ptrdiff_t khw = wb->khw;
    const size_t hw = wb->hw;
    /* rows 1-7 as offsets from row 0: one weight pointer to step per
     * input channel, not eight (the loop is issue-bound, not FMA-bound) */
    const ptrdiff_t d1 = wb->w[1] - wb->w[0], d2 = wb->w[2] - wb->w[0],
                    d3 = wb->w[3] - wb->w[0], d4 = wb->w[4] - wb->w[0],
                    d5 = wb->w[5] - wb->w[0], d6 = wb->w[6] - wb->w[0],
                    d7 = wb->w[7] - wb->w[0];
    const ptrdiff_t d0 = 0;
    const int32_t nc = cc ? cc : wb->c;
    int t;
    int32_t ic, c0;

    for (c0 = 0; c0 < nc; c0 += DC_CHUNK) {
        const int32_t ce = nc - c0 < DC_CHUNK ? nc : c0 + DC_CHUNK;
        for (t = 0; t < ntap; t++) {
            const __mmask16 m0 = (__mmask16)m[t][0],
                            m1 = (__mmask16)m[t][1],
                            m2 = (__mmask16)m[t][2],
                            m3 = (__mmask16)m[t][3];
            const __mmask16 m0h = (__mmask16)(m[t][0] >> 16);
            const float *ip = img + off[t] + (ptrdiff_t)c0 * (ptrdiff_t)hw;
            const float *wp = wb->w[0] + t + (ptrdiff_t)c0 * khw;
            if (!(m[t][0] | m[t][1] | m[t][2] | m[t][3]))
                continue; /* the whole tap is padding (top / bottom rows) */
            for (ic = c0; ic < ce; ic++) {
                __m512 b0, b1 = _mm512_setzero_ps(),
                           b2 = _mm512_setzero_ps(),
                           b3 = _mm512_setzero_ps(), a;
                if (s == 1) {
                    b0 = _mm512_maskz_loadu_ps(m0, ip);
                    if (nv >= 2)
                        b1 = _mm512_maskz_loadu_ps(m1, ip + 16);
                    if (nv >= 3)
                        b2 = _mm512_maskz_loadu_ps(m2, ip + 32);
                    if (nv >= 4)
                        b3 = _mm512_maskz_loadu_ps(m3, ip + 48);
                } else {
                    __m512 l0 = _mm512_maskz_loadu_ps(m0, ip);
                    __m512 l1 = _mm512_maskz_loadu_ps(m0h, ip + rs);
                    b0 = _mm512_permutex2var_ps(l0, ev, l1);
                    if (nv == 2) {
                        __m512 l2 = _mm512_maskz_loadu_ps(m2, ip + vs);
                        __m512 l3 = _mm512_maskz_loadu_ps(m3, ip + vs + rs);
                        b1 = _mm512_permutex2var_ps(l2, ev, l3);
                    }
                }
#define DC_ROW(r)                                                             \
    if (nr > r) {                                                             \
        a = _mm512_set1_ps(wp[d##r]);                                            \
        c##r##0 = _mm512_fmadd_ps(a, b0, c##r##0);                            \
        if (nv >= 2)                                                          \
            c##r##1 = _mm512_fmadd_ps(a, b1, c##r##1);                        \
        if (nv >= 3)                                                          \
            c##r##2 = _mm512_fmadd_ps(a, b2, c##r##2);                        \
        if (nv >= 4)                                                          \
            c##r##3 = _mm512_fmadd_ps(a, b3, c##r##3);                        \
    }
                DC_ROW(0) DC_ROW(1) DC_ROW(2) DC_ROW(3)
                DC_ROW(4) DC_ROW(5) DC_ROW(6) DC_ROW(7)
#undef DC_ROW
                ip += hw;
                wp += khw;
            }
        }
    }
#define DC_OUT_ROW(r)                                                         \
    acc[4 * r] = c##r##0; acc[4 * r + 1] = c##r##1;                           \
    acc[4 * r + 2] = c##r##2; acc[4 * r + 3] = c##r##3;
    DC_OUT_ROW(0) DC_OUT_ROW(1) DC_OUT_ROW(2) DC_OUT_ROW(3)
    DC_OUT_ROW(4) DC_OUT_ROW(5) DC_OUT_ROW(6) DC_OUT_ROW(7)
#undef DC_OUT_ROW
}
#undef DC_ACC_ROW

/* the instances the dispatcher picks from: stride 1 with 1-4 vectors
 * (NR = 8, or 6 at 4 vectors: 24 accumulators), stride 2 with 1-2 */
typedef void (*dc_block_fn)(const dc_wblk *, const float *,
                            const ptrdiff_t *, const uint32_t (*)[4], int,
                            ptrdiff_t, ptrdiff_t, __m512 *);
#define DC_INST(name, nv, nr, s, cc)                                          \
    static void name(const dc_wblk *wb, const float *img,                     \
                     const ptrdiff_t *off, const uint32_t (*m)[4], int ntap,  \
                     ptrdiff_t rs, ptrdiff_t vs, __m512 *acc)                 \
    {                                                                         \
        dc_block(wb, img, off, m, ntap, nv, nr, s, cc, rs, vs, acc);          \
    }
/* each with any number of input channels and with exactly 3 (_c3) */
#define DC_INST2(nv, nr, s)                                                   \
    DC_INST(dc_block_##nv##_##s, nv, nr, s, 0)                                \
    DC_INST(dc_block_##nv##_##s##_c3, nv, nr, s, 3)
DC_INST2(1, 8, 1)
DC_INST2(2, 8, 1)
DC_INST2(3, 8, 1)
DC_INST2(4, 6, 1)
DC_INST2(1, 8, 2)
DC_INST2(2, 8, 2)
#undef DC_INST2
#undef DC_INST

int ln_rt__conv2d_direct_f32_avx512(const ln_rt_conv2d_args *a,
                                    const float *src, const float *weight,
                                    const float *bias, float *dst)
{
    return ln_rt__conv2d_direct_res_f32_avx512(a, src, weight, bias, NULL,
                                               dst);
}

/* res (NULL or dst's shape; may be dst itself): added after the bias,
 * before the activation, in the store epilogue (the same lanes, loaded
 * through the store's mask) */
int ln_rt__conv2d_direct_res_f32_avx512(const ln_rt_conv2d_args *a,
                                        const float *src,
                                        const float *weight,
                                        const float *bias, const float *res,
                                        float *dst)
{
    const int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h,
                                           a->pad_top, a->pad_bottom, 1);
    const int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w,
                                           a->pad_left, a->pad_right, 1);
    const int32_t H = a->h, W = a->w, kh = a->kh, kw = a->kw;
    const int32_t s = a->stride_w, ntap = kh * kw;
    /* in locals: the stores (void *) would make the compiler reload them
     * per vector */
    const ln_rt_act act = a->act;
    const float alpha = a->alpha, beta = a->beta;
    const int flat = s == 1 && a->stride_h == 1 && ow == W;
    const int pw = flat && ntap == 1 && oh == H;
    /* stride 2, rows of <= 8 outputs: a 16-lane vector is two output rows
     * (lanes 0-7 and 8-15), its two loads start on two input rows */
    const int rp = !flat && s == 2 && ow <= 8;
    /* stride 2, rows of 9-16 outputs: a 32-lane block is two output rows
     * (one per vector), not one row's 16 lanes in a 1-vector block */
    const int r2 = !flat && s == 2 && ow > 8 && ow <= 16;
    const ptrdiff_t rs = rp ? (ptrdiff_t)a->stride_h * W : 16;
    const ptrdiff_t vs = rp ? 2 * rs : r2 ? (ptrdiff_t)a->stride_h * W : 32;
    const int rpk = rp || r2; /* block of whole rows, compress-stored */
    const int32_t npix = oh * ow;
    const int32_t nblk_row = (ow + 31) / 32;
    /* lanes of a flat block (stride 1, rows as wide as the input) */
    const int32_t lb = !flat ? 32 : npix > 48 && npix <= 64 ? 64 : 48;
    const int32_t nblk = flat ? (npix + lb - 1) / lb
                         : rp ? (oh + 3) / 4 : r2 ? (oh + 1) / 2
                         : oh * nblk_row;
    ptrdiff_t off[DC_MAXTAPS];
    uint32_t mk[DC_MAXTAPS][4];
    dc_wblk wb;
    int32_t b, o0, blk, r, t, j;

    /* what the kernel can do; conv2d_f32.c decides when it should */
    if (a->group != 1 || a->dil_h != 1 || a->dil_w != 1 ||
        a->stride_h != s || (s != 1 && s != 2) || ntap > DC_MAXTAPS ||
        oh <= 0 || ow <= 0)
        return 0;
    wb.khw = ntap;
    wb.c = a->c;
    wb.kk = a->c * ntap;
    wb.hw = (size_t)H * W;
    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * a->c * wb.hw;
        float *out = dst + (size_t)b * a->oc * npix;
        const float *rin = res ? res + (size_t)b * a->oc * npix : NULL;
        for (blk = 0; blk < nblk; blk++) {
            int32_t nl, p0 = 0, oy0 = 0, x0 = 0;
            uint32_t vm = 0; /* rp: valid lanes of the block */
            if (pw) { /* 1x1, no pads, stride 1: only the tail is masked */
                p0 = blk * lb;
                nl = npix - p0 < lb ? npix - p0 : lb;
                off[0] = p0;
                for (j = 0; j < 4; j++) {
                    const int32_t rem = nl - 16 * j;
                    mk[0][j] = rem >= 16 ? 0xffffu
                               : rem <= 0 ? 0u : (1u << rem) - 1u;
                }
            } else if (!flat && !rpk) {
                /* one row segment: a tap's lanes are all out (input row
                 * outside the image) or the lane range [jlo, jhi) whose
                 * input column is inside -- scalar, no per-lane compares */
                oy0 = blk / nblk_row;
                x0 = blk % nblk_row * 32;
                nl = ow - x0 < 32 ? ow - x0 : 32;
                {
                    const ptrdiff_t base =
                        ((ptrdiff_t)oy0 * a->stride_h - a->pad_top) * W +
                        (ptrdiff_t)x0 * s - a->pad_left;
                    int32_t ky = 0, kx = 0;
                    for (t = 0; t < ntap; t++) {
                        /* s is 1 or 2: ceil(n / s) without a division */
                        const int32_t iy = oy0 * a->stride_h + ky - a->pad_top;
                        const int32_t ix0 = x0 * s + kx - a->pad_left;
                        int32_t jlo = ix0 >= 0 ? 0 : (-ix0 + s - 1) >> (s - 1);
                        int32_t jhi = W - ix0 <= 0 ? 0
                                      : (W - ix0 + s - 1) >> (s - 1);
                        uint64_t lm = 0;
                        if (jhi > nl)
                            jhi = nl;
                        if (iy >= 0 && iy < H && jlo < jhi) {
                            /* lanes (s 1) or elements 2j (s 2) */
                            const int32_t lo = jlo * s, hi = jhi * s;
                            lm = (hi >= 64 ? ~(uint64_t)0
                                           : ((uint64_t)1 << hi) - 1u) &
                                 ~(((uint64_t)1 << lo) - 1u);
                            if (s == 2)
                                lm &= 0x5555555555555555ull;
                        }
                        off[t] = base + (ptrdiff_t)ky * W + kx;
                        if (s == 1) {
                            mk[t][0] = (uint32_t)(lm & 0xffffu);
                            mk[t][1] = (uint32_t)(lm >> 16) & 0xffffu;
                            mk[t][2] = mk[t][3] = 0;
                        } else {
                            mk[t][0] = (uint32_t)lm;
                            mk[t][1] = 0;
                            mk[t][2] = (uint32_t)(lm >> 32) & 0xffffu;
                            mk[t][3] = (uint32_t)(lm >> 48);
                        }
                        if (++kx == kw) {
                            kx = 0;
                            ky++;
                        }
                    }
                }
            } else {
                /* lanes: (oy[j], ox[j]); invalid lanes get oy = -1 << 20 */
                int32_t oyl[64], oxl[64];
                ptrdiff_t base;
                __m512i voy0, voy1, vox0, vox1;
                if (flat) {
                    p0 = blk * lb;
                    nl = npix - p0 < lb ? npix - p0 : lb;
                    oy0 = p0 / ow;
                    x0 = p0 % ow;
                    for (j = 0; j < 64; j++) { /* no division per lane */
                        oyl[j] = j < nl ? oy0 : -(1 << 20);
                        oxl[j] = x0;
                        if (++x0 == ow) {
                            x0 = 0;
                            oy0++;
                        }
                    }
                    base = (ptrdiff_t)p0 - (ptrdiff_t)a->pad_top * W -
                           a->pad_left;
                } else if (rpk) {
                    const int32_t lpr = rp ? 8 : 16; /* lanes per row */
                    oy0 = blk * (32 / lpr);
                    nl = 0;
                    for (j = 0; j < 32; j++) {
                        const int32_t oy = oy0 + j / lpr, ox = j % lpr;
                        const int ok = ox < ow && oy < oh;
                        oyl[j] = ok ? oy : -(1 << 20);
                        oxl[j] = ox;
                        if (ok) {
                            vm |= 1u << j;
                            nl = j + 1;
                        }
                    }
                    base = ((ptrdiff_t)oy0 * a->stride_h - a->pad_top) * W -
                           a->pad_left;
                } else {
                    oy0 = blk / nblk_row;
                    x0 = blk % nblk_row * 32;
                    nl = ow - x0 < 32 ? ow - x0 : 32;
                    for (j = 0; j < 32; j++) {
                        oyl[j] = j < nl ? oy0 : -(1 << 20);
                        oxl[j] = x0 + j;
                    }
                    base = ((ptrdiff_t)oy0 * a->stride_h - a->pad_top) * W +
                           (ptrdiff_t)x0 * s - a->pad_left;
                }
                voy0 = _mm512_loadu_si512(oyl);
                voy1 = _mm512_loadu_si512(oyl + 16);
                vox0 = _mm512_loadu_si512(oxl);
                vox1 = _mm512_loadu_si512(oxl + 16);
                if (a->stride_h != 1) {
                    __m512i sh = _mm512_set1_epi32(a->stride_h);
                    voy0 = _mm512_mullo_epi32(voy0, sh);
                    voy1 = _mm512_mullo_epi32(voy1, sh);
                }
                if (s != 1) {
                    __m512i sw = _mm512_set1_epi32(s);
                    vox0 = _mm512_mullo_epi32(vox0, sw);
                    vox1 = _mm512_mullo_epi32(vox1, sw);
                }
                for (t = 0; t < ntap; t++) {
                    const int32_t ky = t / kw, kx = t % kw;
                    /* lane valid: 0 <= oy*sh + ky - pt < H, same for x */
                    const __m512i ylo = _mm512_set1_epi32(a->pad_top - ky);
                    const __m512i yhi = _mm512_set1_epi32(H + a->pad_top - ky);
                    const __m512i xlo = _mm512_set1_epi32(a->pad_left - kx);
                    const __m512i xhi = _mm512_set1_epi32(W + a->pad_left - kx);
                    uint32_t l0 = (uint32_t)(
                        _mm512_cmpge_epi32_mask(voy0, ylo) &
                        _mm512_cmplt_epi32_mask(voy0, yhi) &
                        _mm512_cmpge_epi32_mask(vox0, xlo) &
                        _mm512_cmplt_epi32_mask(vox0, xhi));
                    uint32_t l1 = (uint32_t)(
                        _mm512_cmpge_epi32_mask(voy1, ylo) &
                        _mm512_cmplt_epi32_mask(voy1, yhi) &
                        _mm512_cmpge_epi32_mask(vox1, xlo) &
                        _mm512_cmplt_epi32_mask(vox1, xhi));
                    off[t] = base + (ptrdiff_t)ky * W + kx;
                    if (s == 1) {
                        mk[t][0] = l0;
                        mk[t][1] = l1;
                        mk[t][2] = mk[t][3] = 0;
                        if (lb > 32) { /* flat blocks of 48 / 64 lanes */
                            const __m512i oy2 = _mm512_loadu_si512(oyl + 32),
                                          oy3 = _mm512_loadu_si512(oyl + 48),
                                          ox2 = _mm512_loadu_si512(oxl + 32),
                                          ox3 = _mm512_loadu_si512(oxl + 48);
                            mk[t][2] = (uint32_t)(
                                _mm512_cmpge_epi32_mask(oy2, ylo) &
                                _mm512_cmplt_epi32_mask(oy2, yhi) &
                                _mm512_cmpge_epi32_mask(ox2, xlo) &
                                _mm512_cmplt_epi32_mask(ox2, xhi));
                            mk[t][3] = (uint32_t)(
                                _mm512_cmpge_epi32_mask(oy3, ylo) &
                                _mm512_cmplt_epi32_mask(oy3, yhi) &
                                _mm512_cmpge_epi32_mask(ox3, xlo) &
                                _mm512_cmplt_epi32_mask(ox3, xhi));
                        }
                    } else {
                        uint32_t e0 = dc_spread(l0), e1 = dc_spread(l1);
                        mk[t][0] = e0;       /* elements 0..31 */
                        mk[t][1] = 0;
                        mk[t][2] = e1 & 0xffffu;
                        mk[t][3] = e1 >> 16;
                    }
                }
            }
            {
                /* stride 1: as many vectors as the block has lanes (4
                 * vectors take 6 output channels: 24 accumulators) */
                const int nvb = (nl + 15) / 16;
                const int nrb = s == 1 && nvb == 4 ? 6 : 8;
                const dc_block_fn fn =
                    a->c == 3
                    ? (s == 1 ? (nvb == 1 ? dc_block_1_1_c3
                                 : nvb == 2 ? dc_block_2_1_c3
                                 : nvb == 3 ? dc_block_3_1_c3
                                            : dc_block_4_1_c3)
                              : (nl > 16 ? dc_block_2_2_c3 : dc_block_1_2_c3))
                    : s == 1 ? (nvb == 1 ? dc_block_1_1 : nvb == 2 ? dc_block_2_1
                              : nvb == 3 ? dc_block_3_1 : dc_block_4_1)
                           : (nl > 16 ? dc_block_2_2 : dc_block_1_2);
            for (o0 = 0; o0 < a->oc; o0 += nrb) {
                const int mv = a->oc - o0 < nrb ? (int)(a->oc - o0) : nrb;
                __m512 acc[32];
                for (r = 0; r < 8; r++)
                    wb.w[r] = weight + (size_t)(o0 + (r < mv ? r : 0)) * wb.kk;
                fn(&wb, img, off, mk, ntap, rs, vs, acc);
                if (rpk) {
                    /* the block's rows are consecutive in the output:
                     * compress each vector's valid lanes and store them
                     * one after the other */
                    const __mmask16 v0m = (__mmask16)vm,
                                    v1m = (__mmask16)(vm >> 16);
                    const int n0 = __builtin_popcount(vm & 0xffffu),
                              n1 = __builtin_popcount(vm >> 16);
                    const __mmask16 s0 = (__mmask16)((1u << n0) - 1u);
                    const __mmask16 s1 = (__mmask16)((1u << n1) - 1u);
                    const size_t oo = (size_t)o0 * npix + (size_t)oy0 * ow;
                    float *op = out + oo;
                    const float *rp_ = rin ? rin + oo : NULL;
                    for (r = 0; r < mv; r++) {
                        __m512 v0 = acc[4 * r], v1 = acc[4 * r + 1];
                        if (bias) {
                            __m512 bv = _mm512_set1_ps(bias[o0 + r]);
                            v0 = _mm512_add_ps(v0, bv);
                            v1 = _mm512_add_ps(v1, bv);
                        }
                        if (rp_) { /* the stored lanes, expanded back */
                            v0 = _mm512_add_ps(
                                v0, _mm512_maskz_expandloadu_ps(v0m, rp_));
                            if (n1)
                                v1 = _mm512_add_ps(
                                    v1, _mm512_maskz_expandloadu_ps(
                                            v1m, rp_ + n0));
                            rp_ += npix;
                        }
                        v0 = ln_rt__act_v512(v0, act, alpha, beta);
                        v1 = ln_rt__act_v512(v1, act, alpha, beta);
                        _mm512_mask_storeu_ps(
                            op, s0, _mm512_maskz_compress_ps(v0m, v0));
                        if (n1)
                            _mm512_mask_storeu_ps(
                                op + n0, s1,
                                _mm512_maskz_compress_ps(v1m, v1));
                        op += npix;
                    }
                } else {
                    const size_t oo = (size_t)o0 * npix +
                                      (flat ? (size_t)p0
                                            : (size_t)oy0 * ow + (size_t)x0);
                    float *op = out + oo;
                    const float *rp_ = rin ? rin + oo : NULL;
                    for (r = 0; r < mv; r++) {
                        ln_rt__conv_store_v512(op, rp_, acc + 4 * r, nvb, nl,
                                               bias ? bias + o0 + r : NULL,
                                               act, alpha, beta);
                        op += npix;
                        if (rp_)
                            rp_ += npix;
                    }
                }
            }
            }
        }
    }
    return 1;
}

#else
typedef int ln_rt__conv2d_direct_avx512_unused; /* ISO C: non-empty file */
#endif
