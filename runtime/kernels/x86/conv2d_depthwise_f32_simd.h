/*
 * conv2d_depthwise_f32_simd.h -- direct depthwise convolution without a padded copy,
 * written once over a small vector vocabulary and included by
 * conv2d_depthwise_f32_avx2.c (8 lanes) and conv2d_depthwise_f32_avx512.c (16 lanes).
 *
 * The includer defines:
 *   DW_V, DW_VL            vector type and lanes
 *   DW_M                   load/store mask type
 *   DW_LOAD(p), DW_MLOAD(p, m), DW_STORE(p, v), DW_MSTORE(p, m, v)
 *   DW_FMA(a, b, c)        a * b + c
 *   DW_SET1(x)
 *   DW_RANGE_MASK(i0, n)   lanes l with 0 <= i0 + l < n
 *   DW_EVEN(lo, hi), DW_ODD(lo, hi)   stride 2: even / odd elements of the
 *                          2 * DW_VL floats lo:hi, in an order DW_FIX undoes
 *   DW_FIX(v)              reorder a stride-2 accumulator for the store
 *   DW_ALIGNR(hi, lo, n)   optional: lanes n.. of lo then hi's (AVX-512's
 *                          valignd); with it 3x3, 5x5 and 7x7 stride 1 take
 *                          their taps by lane shifts (_s1a below)
 *   DW_ACT(v, act, alpha, beta)       every activation but SiLU, inlined
 *   DW_ACT_FULL(v, act, alpha, beta)  every activation (applied to each
 *                          finished plane when act is SiLU: see DW_FN)
 *   DW_FN                  name of the entry point
 *
 * Output rows are cut into blocks of up to DW_NCH vectors (4 x DW_VL
 * outputs); every tap of every row is summed into the block's accumulators
 * (one store per vector). A block whose reads all fall inside the input
 * row and whose outputs all exist ("interior") uses plain loads; the first
 * and the last block of a row may not, and use masked loads (masked-off
 * lanes read nothing, so they stand for the zero padding) and a masked
 * store, with masks computed once per call. Input rows outside the image
 * (top / bottom padding) are skipped. Stride 1 computes two output rows
 * per pass so each input vector feeds both (kh + 1 row loads for
 * 2 * kh rows of taps); with DW_ALIGNR, 3x3, 5x5 and 7x7 load each input
 * vector of a row once and shift it into the taps. Stride 2 loads 2 * DW_VL contiguous floats and
 * splits them into even and odd lanes (taps kx = 2m and 2m + 1 share the
 * pair). 3x3 and 5x5 kernels (EfficientNet's, MnasNet's) get fully
 * unrolled instances; any kh and kw <= 8
 * work through the generic one. Returns 0 (nothing done) for what this
 * does not cover: dilation, stride_w > 2, kw > 8, or padding so large that
 * a block other than the first and last reaches outside the image.
 */
#ifndef DW_FN
#error "include from an ISA file"
#endif

#define DW_NCH 4
#define DW_MAXKW 8
/* masks of one edge block: loads [chunk][tap or (pair, half)] + stores */
#define DW_NLM (DW_NCH * DW_MAXKW)

#if defined(__GNUC__)
#define DW_INLINE static inline __attribute__((always_inline))
#else
#define DW_INLINE static inline
#endif

typedef struct {
    int nch;            /* vectors in the block */
    int masked;         /* edge block: lm / sm below are used */
    DW_M lm[DW_NLM];
    DW_M sm[DW_NCH];
#ifdef DW_ALIGNR
    /* _s1a: the lanes of vectors -1 .. nch (of the centre tap's columns)
     * that are read and lie in the row (every block) */
    DW_M am[DW_NCH + 2];
    unsigned am_part; /* bit j: am[j + 1] is not all ones */
#endif
} DW_CAT(DW_FN, _blk);

#define DW_BLK DW_CAT(DW_FN, _blk)

/* stride 1, R output rows (R = 1 or 2; the rows are consecutive and the
 * stride_h is 1 when R = 2). irow[i] + col is input row i of the pass at
 * the column of the block's first tap; irow[i] is NULL when that row is
 * padding.
 * Named accumulators (aR_C), not arrays: GCC kept arrays of them on the
 * stack, a load and a store around many FMAs (perf annotate); named, 3x3
 * stride 1 on 16 channels at 56x56 and 112x112 (in L2) ran in 0.85-0.87x
 * the time with AVX-512 and 0.80-0.93x with AVX2 (Intel Xeon, best of
 * 300). Stride 2 (below) measured level: its permutes bound it. */
#define DW_S1_TAP(C, A0, A1)                                                  \
    if (NCH > C) {                                                            \
        DW_V x = MASKED ? DW_MLOAD(p + C * DW_VL + kx,                        \
                                   bk->lm[C * DW_MAXKW + kx])                 \
                        : DW_LOAD(p + C * DW_VL + kx);                        \
        if (u0)                                                               \
            A0 = DW_FMA(w0, x, A0);                                           \
        if (u1)                                                               \
            A1 = DW_FMA(w1, x, A1);                                           \
    }
/* vector C of a block's output row O: V (the sum, activation applied
 * here), masked at an edge block; _s1 and _s2 store with it */
#define DW_STORE_ACC(C, V, O)                                                 \
    if (NCH > C) {                                                            \
        DW_V v_ = DW_ACT(V, act, alpha, beta);                                \
        if (MASKED)                                                           \
            DW_MSTORE(O + C * DW_VL, bk->sm[C], v_);                          \
        else                                                                  \
            DW_STORE(O + C * DW_VL, v_);                                      \
    }
/* the taps kx of input row ir into both output rows' sums (TAP gets the
 * tap's input vector), and the pass's stores: _s1 and _s1a */
#define DW_S1_KX(TAP)                                                         \
    for (kx = 0; kx < KW; kx++) {                                             \
        DW_V w0 = DW_SET1(u0 ? wk[ir * KW + kx] : 0.0f);                      \
        DW_V w1 = DW_SET1(u1 ? wk[(ir - 1) * KW + kx] : 0.0f);                \
        TAP(0, a00, a10)                                                      \
        TAP(1, a01, a11)                                                      \
        TAP(2, a02, a12)                                                      \
        TAP(3, a03, a13)                                                      \
    }
#define DW_S1_STORES()                                                        \
    DW_STORE_ACC(0, a00, o0) DW_STORE_ACC(1, a01, o0)                         \
    DW_STORE_ACC(2, a02, o0) DW_STORE_ACC(3, a03, o0)                         \
    if (R > 1) {                                                              \
        DW_STORE_ACC(0, a10, o1) DW_STORE_ACC(1, a11, o1)                     \
        DW_STORE_ACC(2, a12, o1) DW_STORE_ACC(3, a13, o1)                     \
    }
DW_INLINE void DW_CAT(DW_FN, _s1)(const int KH, const int KW, const int NCH,
                                  const int R, const int MASKED,
                                  const float *const *irow, ptrdiff_t col,
                                  const float *wk, DW_V bv, const DW_BLK *bk,
                                  float *o0, float *o1, ln_rt_act act,
                                  float alpha, float beta)
{
    DW_V a00 = bv, a01 = bv, a02 = bv, a03 = bv;
    DW_V a10 = bv, a11 = bv, a12 = bv, a13 = bv;
    int ir, kx;
    for (ir = 0; ir < KH + R - 1; ir++) {
        const float *p = irow[ir];
        const int u0 = ir < KH, u1 = R > 1 && ir >= 1;
        if (!p)
            continue;
        p += col;
        DW_S1_KX(DW_S1_TAP)
    }
    DW_S1_STORES()
}
#undef DW_S1_TAP

#ifdef DW_ALIGNR
/* Stride 1 through lane shifts (3x3, 5x5 and 7x7; the ISA has DW_ALIGNR): per
 * input row, vectors -1 .. NCH of the block at the centre tap's columns
 * (kx = KW / 2) are loaded once each, and tap kx of vector C is the shift
 * of the pair (C - 1, C) or (C, C + 1) by kx - KW / 2 lanes. The _s1
 * kernel loads every (vector, tap) instead: 3 loads a vector and row at
 * 3x3, each splitting two cache lines and, in an edge block, with its
 * mask reloaded into a k-register (about 2 cycles each on a Zen 5: the
 * kernel ran at ~14 cycles an output vector on 112- and 56-wide rows,
 * every vector of which is in an edge block). Masked-off lanes read 0,
 * the zero padding, so each tap has the value _s1 gives it: the same
 * sums in the same order (bias, then the taps in row-major order), the
 * same bits. */
DW_INLINE DW_V DW_CAT(DW_FN, _shift)(DW_V lo, DW_V mid, DW_V hi, int d)
{
    /* x[16 C + l + d] from (C - 1, C, C + 1) = (lo, mid, hi), |d| <= 3 */
    switch (d) {
    case -3: return DW_ALIGNR(mid, lo, 13);
    case -2: return DW_ALIGNR(mid, lo, 14);
    case -1: return DW_ALIGNR(mid, lo, 15);
    case 1: return DW_ALIGNR(hi, mid, 1);
    case 2: return DW_ALIGNR(hi, mid, 2);
    case 3: return DW_ALIGNR(hi, mid, 3);
    default: return mid;
    }
}
#define DW_S1A_TAP(C, A0, A1)                                                 \
    if (NCH > C) {                                                            \
        DW_V x = DW_CAT(DW_FN, _shift)(v[C], v[C + 1], v[C + 2], kx - KW / 2);\
        if (u0)                                                               \
            A0 = DW_FMA(w0, x, A0);                                           \
        if (u1)                                                               \
            A1 = DW_FMA(w1, x, A1);                                           \
    }
DW_INLINE void DW_CAT(DW_FN, _s1a)(const int KH, const int KW, const int NCH,
                                   const int R, const int MASKED,
                                   const float *const *irow, ptrdiff_t col,
                                   const float *wk, DW_V bv,
                                   const DW_BLK *bk, float *o0, float *o1,
                                   ln_rt_act act, float alpha, float beta)
{
    DW_V a00 = bv, a01 = bv, a02 = bv, a03 = bv;
    DW_V a10 = bv, a11 = bv, a12 = bv, a13 = bv;
    int ir, kx, j;
    /* unrolled whole, so that v stays in registers and every shift has
     * its constant (GCC left the 5x5 instance's loops rolled) */
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 16
#endif
    for (ir = 0; ir < KH + R - 1; ir++) {
        const float *p = irow[ir];
        const int u0 = ir < KH, u1 = R > 1 && ir >= 1;
        DW_V v[DW_NCH + 2]; /* v[j]: vector j - 1 */
        if (!p)
            continue;
        p += col;
        p += KW / 2;
        v[0] = DW_MLOAD(p - DW_VL, bk->am[0]);
        /* in an edge block, only the vectors that reach past the row
         * take their masks (a mask is reloaded into a k-register for
         * every load that uses it) */
        for (j = 0; j < NCH; j++)
            v[j + 1] = MASKED && (bk->am_part >> j & 1u)
                           ? DW_MLOAD(p + j * DW_VL, bk->am[j + 1])
                           : DW_LOAD(p + j * DW_VL);
        v[NCH + 1] = DW_MLOAD(p + NCH * DW_VL, bk->am[NCH + 1]);
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 8
#endif
        DW_S1_KX(DW_S1A_TAP)
    }
    DW_S1_STORES()
}
#undef DW_S1A_TAP
#endif
#undef DW_S1_KX
#undef DW_S1_STORES

/* stride 2 along the row (any stride_h), one output row; named
 * accumulators as in _s1 */
#define DW_S2_TAP(C, A)                                                       \
    if (NCH > C) {                                                            \
        const float *q = p + C * 2 * DW_VL + 2 * m;                           \
        const DW_M *lm = bk->lm + C * DW_MAXKW + 2 * m;                       \
        DW_V lo = MASKED ? DW_MLOAD(q, lm[0]) : DW_LOAD(q);                   \
        DW_V hi = MASKED ? DW_MLOAD(q + DW_VL, lm[1]) : DW_LOAD(q + DW_VL);   \
        A = DW_FMA(we, DW_EVEN(lo, hi), A);                                   \
        if (2 * m + 1 < KW)                                                   \
            A = DW_FMA(wo, DW_ODD(lo, hi), A);                                \
    }
DW_INLINE void DW_CAT(DW_FN, _s2)(const int KH, const int KW, const int NCH,
                                  const int MASKED, const float *const *irow,
                                  ptrdiff_t col,
                                  const float *wk, DW_V bv, const DW_BLK *bk,
                                  float *o0, ln_rt_act act, float alpha,
                                  float beta)
{
    DW_V a0 = bv, a1 = bv, a2 = bv, a3 = bv;
    int ir, m;
    for (ir = 0; ir < KH; ir++) {
        const float *p = irow[ir];
        if (!p)
            continue;
        p += col;
        for (m = 0; m < (KW + 1) / 2; m++) {
            DW_V we = DW_SET1(wk[ir * KW + 2 * m]);
            DW_V wo = DW_SET1(2 * m + 1 < KW ? wk[ir * KW + 2 * m + 1]
                                             : 0.0f);
            DW_S2_TAP(0, a0)
            DW_S2_TAP(1, a1)
            DW_S2_TAP(2, a2)
            DW_S2_TAP(3, a3)
        }
    }
    DW_STORE_ACC(0, DW_FIX(a0), o0) DW_STORE_ACC(1, DW_FIX(a1), o0)
    DW_STORE_ACC(2, DW_FIX(a2), o0) DW_STORE_ACC(3, DW_FIX(a3), o0)
}
#undef DW_S2_TAP
#undef DW_STORE_ACC

/* one block: dispatch to an instance with constant sizes */
#define DW_S1_CASE(F, KH, KW, NCH, R, M)                                      \
    F(KH, KW, NCH, R, M, irow, col, wk, bv, bk, o0, o1, act, al, be); break;
#define DW_S1_CASES_F(F, KH, KW, R)                                           \
    switch (bk->nch * 2 + bk->masked) {                                       \
    case 2: DW_S1_CASE(F, KH, KW, 1, R, 0)                                    \
    case 3: DW_S1_CASE(F, KH, KW, 1, R, 1)                                    \
    case 4: DW_S1_CASE(F, KH, KW, 2, R, 0)                                    \
    case 5: DW_S1_CASE(F, KH, KW, 2, R, 1)                                    \
    case 6: DW_S1_CASE(F, KH, KW, 3, R, 0)                                    \
    case 7: DW_S1_CASE(F, KH, KW, 3, R, 1)                                    \
    case 8: DW_S1_CASE(F, KH, KW, 4, R, 0)                                    \
    default: DW_S1_CASE(F, KH, KW, 4, R, 1)                                   \
    }
#define DW_S1_CASES(KH, KW, R) DW_S1_CASES_F(DW_CAT(DW_FN, _s1), KH, KW, R)
/* the 3x3, 5x5 and 7x7 instances: lane shifts where the ISA has them */
#ifdef DW_ALIGNR
#define DW_S1K_CASES(KH, KW, R) DW_S1_CASES_F(DW_CAT(DW_FN, _s1a), KH, KW, R)
#else
#define DW_S1K_CASES(KH, KW, R) DW_S1_CASES(KH, KW, R)
#endif

#define DW_S2_CASE(KH, KW, NCH, M)                                            \
    DW_CAT(DW_FN, _s2)(KH, KW, NCH, M, irow, col, wk, bv, bk, o0, act, al,    \
                       be); break;
#define DW_S2_CASES(KH, KW)                                                   \
    switch (bk->nch * 2 + bk->masked) {                                       \
    case 2: DW_S2_CASE(KH, KW, 1, 0)                                          \
    case 3: DW_S2_CASE(KH, KW, 1, 1)                                          \
    case 4: DW_S2_CASE(KH, KW, 2, 0)                                          \
    case 5: DW_S2_CASE(KH, KW, 2, 1)                                          \
    case 6: DW_S2_CASE(KH, KW, 3, 0)                                          \
    case 7: DW_S2_CASE(KH, KW, 3, 1)                                          \
    case 8: DW_S2_CASE(KH, KW, 4, 0)                                          \
    default: DW_S2_CASE(KH, KW, 4, 1)                                         \
    }

/* Set up block `bk` for outputs [ox0, ox0 + nv) of a row; returns 0 when
 * the block is not interior and no mask table may be used for it. */
static int DW_CAT(DW_FN, _setup)(DW_BLK *bk, int32_t ox0, int32_t nv,
                                 int32_t w, int32_t sw, int32_t pl,
                                 int32_t kw, int may_mask)
{
    int32_t first, lastr, c, t;
    bk->nch = (int)((nv + DW_VL - 1) / DW_VL);
    /* input columns the block's loads touch */
    first = ox0 * sw - pl;
    if (sw == 1)
        lastr = ox0 + bk->nch * DW_VL - 1 - pl + kw - 1;
    else
        lastr = 2 * (ox0 + (bk->nch - 1) * DW_VL) - pl +
                2 * ((kw + 1) / 2 - 1) + 2 * DW_VL - 1;
    bk->masked = !(first >= 0 && lastr < w && nv == bk->nch * DW_VL);
#ifdef DW_ALIGNR
    if (sw == 1) {
        /* vector j - 1 at the centre tap's columns c0 + 16 (j - 1): of
         * the outer two only the lanes a shift reads (kw / 2 on the left,
         * kw - 1 - kw / 2 on the right) */
        const int32_t c0 = ox0 - pl + kw / 2;
        bk->am_part = 0;
        for (c = 0; c < bk->nch + 2; c++) {
            bk->am[c] = DW_RANGE_MASK(c0 + (c - 1) * DW_VL, w);
            if (c >= 1 && c <= bk->nch &&
                bk->am[c] != DW_RANGE_MASK(0, DW_VL))
                bk->am_part |= 1u << (c - 1);
        }
        bk->am[0] &= (DW_M)~(((unsigned)1 << (DW_VL - kw / 2)) - 1u);
        bk->am[bk->nch + 1] &= (DW_M)(((unsigned)1 << (kw - 1 - kw / 2)) - 1u);
    }
#endif
    if (!bk->masked)
        return 1;
    if (!may_mask)
        return 0;
    for (c = 0; c < bk->nch; c++) {
        int32_t o = ox0 + c * DW_VL;
        bk->sm[c] = DW_RANGE_MASK(o, ox0 + nv);
        if (sw == 1) {
            for (t = 0; t < kw; t++)
                bk->lm[c * DW_MAXKW + t] = DW_RANGE_MASK(o - pl + t, w);
        } else {
            for (t = 0; t < (kw + 1) / 2; t++) {
                int32_t i0 = 2 * o - pl + 2 * t;
                bk->lm[c * DW_MAXKW + 2 * t] = DW_RANGE_MASK(i0, w);
                bk->lm[c * DW_MAXKW + 2 * t + 1] =
                    DW_RANGE_MASK(i0 + DW_VL, w);
            }
        }
    }
    return 1;
}

int DW_FN(const ln_rt_conv2d_args *a, const float *src, const float *weight,
          const float *bias, float *dst)
{
    const int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h,
                                           a->pad_top, a->pad_bottom, 1);
    const int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w,
                                           a->pad_left, a->pad_right, 1);
    const int32_t h = a->h, w = a->w, kh = a->kh, kw = a->kw;
    const int32_t sh = a->stride_h, sw = a->stride_w, pt = a->pad_top;
    const int32_t pl = a->pad_left, mult = a->oc / a->c;
    const int32_t bw = DW_NCH * DW_VL; /* outputs per block */
    const int32_t nblk = (ow + bw - 1) / bw;
    const ln_rt_act act = a->act;
    const float al = a->alpha, be = a->beta;
    const int is33 = kh == 3 && kw == 3, is55 = kh == 5 && kw == 5;
#ifdef DW_ALIGNR
    const int is77 = kh == 7 && kw == 7; /* with lane shifts only */
#endif
    const int two = sw == 1 && sh == 1;
    DW_BLK edge[2], mid;
    int32_t bi, b, o, oy, i;
    const float *irow[2 * DW_MAXKW + 2];

    if (a->dil_h != 1 || a->dil_w != 1 || (sw != 1 && sw != 2) ||
        kw > DW_MAXKW || kh > 2 * DW_MAXKW)
        return 0;
    /* first and last block may be edge blocks; all others must be
     * interior (and full) */
    DW_CAT(DW_FN, _setup)(&edge[0], 0, ow < bw ? ow : bw, w, sw, pl, kw, 1);
    if (nblk > 1)
        DW_CAT(DW_FN, _setup)(&edge[1], (nblk - 1) * bw,
                              ow - (nblk - 1) * bw, w, sw, pl, kw, 1);
    for (bi = 1; bi + 1 < nblk; bi++)
        if (!DW_CAT(DW_FN, _setup)(&mid, bi * bw, bw, w, sw, pl, kw, 0))
            return 0;
    if (nblk > 2)
        DW_CAT(DW_FN, _setup)(&mid, bw, bw, w, sw, pl, kw, 0);

    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *in = src + ((size_t)b * a->c + o / mult) *
                                        (size_t)h * w;
            const float *wk = weight + (size_t)o * kh * kw;
            float *out = dst + ((size_t)b * a->oc + o) * (size_t)oh * ow;
            const DW_V bv = DW_SET1(bias ? bias[o] : 0.0f);
            for (oy = 0; oy < oh;) {
                const int R = two && oy + 1 < oh ? 2 : 1;
                const int32_t iy0 = oy * sh - pt;
                float *o0 = out + (size_t)oy * ow, *o1 = o0 + ow;
                /* the pass's input rows (NULL: padding), at column 0;
                 * a block reads them from its column col on. Per block,
                 * this loop (which GCC vectorized) cost ~6 cycles an
                 * output vector at 112x112 */
                for (i = 0; i < kh + R - 1; i++) {
                    int32_t iy = iy0 + i;
                    irow[i] = iy >= 0 && iy < h ? in + (ptrdiff_t)iy * w
                                                : NULL;
                }
                for (bi = 0; bi < nblk; bi++) {
                    const DW_BLK *bk = bi == 0 ? &edge[0]
                                       : bi == nblk - 1 ? &edge[1] : &mid;
                    const ptrdiff_t col = (ptrdiff_t)bi * bw * sw - pl;
                    if (sw == 1) {
                        if (R == 2) {
                            if (is33) {
                                DW_S1K_CASES(3, 3, 2)
                            } else if (is55) {
                                DW_S1K_CASES(5, 5, 2)
#ifdef DW_ALIGNR
                            } else if (is77) {
                                DW_S1K_CASES(7, 7, 2)
#endif
                            } else {
                                DW_S1_CASES(kh, kw, 2)
                            }
                        } else if (is33) {
                            DW_S1K_CASES(3, 3, 1)
                        } else if (is55) {
                            DW_S1K_CASES(5, 5, 1)
#ifdef DW_ALIGNR
                        } else if (is77) {
                            DW_S1K_CASES(7, 7, 1)
#endif
                        } else {
                            DW_S1_CASES(kh, kw, 1)
                        }
                    } else if (is33) {
                        DW_S2_CASES(3, 3)
                    } else if (is55) {
                        DW_S2_CASES(5, 5)
                    } else {
                        DW_S2_CASES(kh, kw)
                    }
                    o0 += bw;
                    o1 += bw;
                }
                oy += R;
            }
            /* SiLU over the finished plane (still in L1): the block
             * instances store through DW_ACT, which leaves SiLU out so
             * that it stays inlined at every store */
            if (act == LN_RT_ACT_SILU) {
                const int32_t np = oh * ow;
                for (i = 0; i < np; i += DW_VL) {
                    if (np - i >= DW_VL) {
                        DW_STORE(out + i, DW_ACT_FULL(DW_LOAD(out + i), act,
                                                      al, be));
                    } else {
                        const DW_M m = DW_RANGE_MASK(i, np);
                        DW_MSTORE(out + i, m,
                                  DW_ACT_FULL(DW_MLOAD(out + i, m), act, al,
                                              be));
                    }
                }
            }
        }
    }
    return 1;
}

#undef DW_S1_CASES
#undef DW_S1_CASE
#undef DW_S1_CASES_F
#undef DW_S2_CASE
#undef DW_S1K_CASES
#undef DW_S2_CASES
#undef DW_BLK
#undef DW_NLM
#undef DW_MAXKW
#undef DW_NCH
#undef DW_INLINE
