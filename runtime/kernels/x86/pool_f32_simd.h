/*
 * pool_f32_simd.h -- 2-D max / average pooling, NCHW float32, written
 * once for the AVX2 and AVX-512F files (pool_f32_avx2.c, pool_f32_avx512.c
 * define the PL_* vector macros and PL_FN, then include this).
 *
 * The same separable scheme as the portable pool_plane (pool_f32.c), and
 * the same operations in the same order, so that every ISA level gives the
 * portable kernel's bits:
 *  - per output row, the kh input rows of its window (clipped to the input)
 *    are reduced into a row buffer rb: the first row, then max(row, acc) or
 *    acc + row, whole vectors with a masked tail; rb[j] holds input column
 *    j - pad_left, and its columns left of 0 and from w on are filled once
 *    per call with -inf (max) or 0 (average) -- the padding;
 *  - each output ox then reduces taps rb[ox * sw + kx * dw], kx ascending,
 *    PL_VL outputs at a time (stride 2: the even lanes of two loads);
 *  - an output whose window lies inside the input (the interior run
 *    [ia0, ib0)) starts from its first tap, one that is clipped from -inf
 *    (max) -- which, with -inf pads, is the portable pool_edge's result,
 *    NaN included: a NaN propagates only from the first reduced tap of an
 *    interior window, as there; an average adds its pad zeros, which the
 *    portable edge code leaves out (the same sum: adding +0 changes at most
 *    the sign of a zero, and both end with +0 for a zero sum), and divides
 *    by the count for clipped outputs, multiplies by 1 / (rows * kw) for
 *    interior ones (both as pool_f32.c).
 * The vertical passes of a group of output rows (across planes: a 13x13
 * output is 13 rows of 16 lanes) fill the buffer before their horizontal
 * passes read it: the taps' unaligned loads read what the vertical pass
 * stored just before, and, one row at a time, waited for those stores
 * (no store forwarding to a load that spans two stores); 27x27 -> 13x13
 * ran at ~90 cycles per output row that way.
 * Taken: stride_w 1 or 2, any kernel, stride_h, dilation and padding, when
 * (ow - 1) * sw + span + 2 * PL_VL <= PL_ROWBUF; else 0 is returned.
 * pool_f32.c calls it only for windows of up to LN_RT_POOL_ROW (256)
 * columns, those its pool_plane takes (wider ones sum in another order).
 */

#define PL_ROWBUF 1024 /* floats in one output row's buffer */
#define PL_GROUP 4      /* the buffer holds 4 such rows (16 KB) */

#define PL_INLINE static inline __attribute__((always_inline))

/* the vertical pass: dst[i] = reduction of s0[i + r * rs], r < nrow,
 * i < n (nrow >= 1) */
PL_INLINE void PL_CAT(PL_FN, _rows_t)(const float *s0, size_t rs,
                                      int32_t nrow, float *dst, int32_t n,
                                      int is_max)
{
    int32_t i, r;
    for (i = 0; i + PL_VL <= n; i += PL_VL) {
        PL_V v = PL_LOAD(s0 + i);
        const float *s = s0;
        for (r = 1; r < nrow; r++) {
            s += rs;
            v = is_max ? PL_MAX(PL_LOAD(s + i), v) : PL_ADD(v, PL_LOAD(s + i));
        }
        PL_STORE(dst + i, v);
    }
    if (i < n) {
        PL_M m = PL_LANES(0, n - i);
        PL_V v = PL_MLOAD(s0 + i, m);
        const float *s = s0;
        for (r = 1; r < nrow; r++) {
            s += rs;
            v = is_max ? PL_MAX(PL_MLOAD(s + i, m), v)
                       : PL_ADD(v, PL_MLOAD(s + i, m));
        }
        PL_MSTORE(dst + i, m, v);
    }
}

/* with the common row counts as constants (the loop over rows unrolled;
 * is_max is one where _loop inlines this) */
PL_INLINE void PL_CAT(PL_FN, _rows)(const float *s0, size_t rs, int32_t nrow,
                                    float *dst, int32_t n, int is_max)
{
    if (nrow == 3)
        PL_CAT(PL_FN, _rows_t)(s0, rs, 3, dst, n, is_max);
    else if (nrow == 2)
        PL_CAT(PL_FN, _rows_t)(s0, rs, 2, dst, n, is_max);
    else
        PL_CAT(PL_FN, _rows_t)(s0, rs, nrow, dst, n, is_max);
}

/* what the horizontal pass of an output row needs */
typedef struct {
    int32_t ow, ia0, ib0;  /* outputs; the interior ones [ia0, ib0) */
    const float *cdiv;     /* average: horizontal count of each output */
} PL_CAT(PL_FN, _h);

/* the horizontal pass of one output row: yr[ox] = reduction of
 * row[ox * sw + kx * dw], kx < kw, then (average) the division */
PL_INLINE void PL_CAT(PL_FN, _hrow_t)(const PL_CAT(PL_FN, _h) *h,
                                      const float *row, float *yr,
                                      int32_t sw, int32_t kw, int32_t dw,
                                      int is_max, PL_V vinv, PL_V vrc,
                                      int avg_zero)
{
    const PL_V ninf = PL_SET1(-INFINITY), zero = PL_SET1(0.0f);
    const int32_t ow = h->ow;
    int32_t ox0, kx;
    for (ox0 = 0; ox0 < ow; ox0 += PL_VL) {
        const float *base = row + (size_t)ox0 * sw;
        int32_t nl = ow - ox0 < PL_VL ? ow - ox0 : PL_VL;
        int32_t il = h->ia0 - ox0, ih = h->ib0 - ox0;
        /* whether every written lane is an interior output */
        int all_int = il <= 0 && ih >= nl;
        PL_V acc, t;
        acc = sw == 1 ? PL_LOAD(base) : PL_EVEN2(base);
        if (is_max) {
            if (!all_int) /* clipped windows start from -inf */
                acc = PL_SEL(PL_LANES(il, ih), PL_MAX(acc, ninf), acc);
            for (kx = 1; kx < kw; kx++) {
                t = sw == 1 ? PL_LOAD(base + kx * dw)
                            : PL_EVEN2(base + kx * dw);
                acc = PL_MAX(t, acc);
            }
        } else {
            PL_V res;
            for (kx = 1; kx < kw; kx++) {
                t = sw == 1 ? PL_LOAD(base + kx * dw)
                            : PL_EVEN2(base + kx * dw);
                acc = PL_ADD(acc, t);
            }
            res = avg_zero ? zero : PL_MUL(acc, vinv);
            if (!all_int) {
                PL_V d = PL_MUL(vrc, PL_LOAD(h->cdiv + ox0));
                PL_V qd = PL_SEL(PL_POS(d), zero, PL_DIV(acc, d));
                res = PL_SEL(PL_LANES(il, ih), qd, res);
            }
            acc = res;
        }
        if (nl == PL_VL)
            PL_STORE(yr + ox0, acc);
        else
            PL_MSTORE(yr + ox0, PL_LANES(0, nl), acc);
    }
}

/* the output rows r = plane * oh + oy, grp at a time (sw, kw, dw and
 * is_max constants where PL_FN calls it with constants) */
PL_INLINE void PL_CAT(PL_FN, _loop)(const ln_rt_pool2d_args *a,
                                    const float *x, float *y, float *rb,
                                    int32_t pitch, int32_t grp, int32_t wv,
                                    const PL_CAT(PL_FN, _h) *hp, int is_max,
                                    int32_t sw, int32_t kw, int32_t dw)
{
    const int32_t w = a->w, ow = a->ow, oh = a->oh, pl = a->pad_left;
    const float fill = is_max ? -INFINITY : 0.0f;
    const PL_V zero = PL_SET1(0.0f);
    int32_t last_rc = -1, i, g, ng;
    int last_zero = 0;
    PL_V last_inv = zero, last_rc_v = zero;
    size_t r0, nrows, hw = (size_t)a->h * w;
    /* output rows r = plane * oh + oy, grp at a time */
    nrows = (size_t)a->n * a->c * oh;
    for (r0 = 0; r0 < nrows; r0 += (size_t)grp) {
        const int32_t oyg = (int32_t)(r0 % (size_t)oh);
        const float *in = x + r0 / (size_t)oh * hw;
        int32_t oy = oyg;
        ng = nrows - r0 < (size_t)grp ? (int32_t)(nrows - r0) : grp;
        /* the vertical passes (none when the windows read padding only) */
        for (g = 0; g < ng && wv > 0; g++, oy++) {
            int32_t ylo, yhi, y0;
            float *dst = rb + (size_t)g * pitch + pl;
            if (oy == oh) { /* the next plane */
                oy = 0;
                in += hw;
            }
            y0 = oy * a->stride_h - a->pad_top;
            ln_rt__pool_taps(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
            if (yhi > ylo)
                PL_CAT(PL_FN, _rows)(in + (size_t)(y0 + ylo * a->dil_h) * w,
                                     (size_t)a->dil_h * w, yhi - ylo, dst, wv,
                                     is_max);
            else
                for (i = 0; i < wv; i++)
                    dst[i] = fill;
        }
        /* the horizontal passes, PL_VL outputs at a time */
        for (g = 0, oy = oyg; g < ng; g++, oy++) {
            const float *row = rb + (size_t)g * pitch;
            float *yr = y + (r0 + (size_t)g) * (size_t)ow;
            PL_V vinv = zero, vrc = zero;
            int avg_zero = 0;
            if (oy == oh)
                oy = 0;
            if (!is_max) {
                int32_t ylo, yhi, pylo, pyhi;
                int32_t y0 = oy * a->stride_h - a->pad_top, rc, cnt;
                ln_rt__pool_taps(y0, a->kh, a->dil_h, a->h, &ylo, &yhi);
                ln_rt__pool_taps(y0 + a->pad_top, a->kh, a->dil_h,
                                 a->h + a->pad_top + a->pad_bottom, &pylo,
                                 &pyhi);
                rc = a->count_include_pad ? pyhi - pylo : yhi - ylo;
                if (rc != last_rc) { /* mostly kh: one division per call */
                    cnt = rc * kw;
                    last_zero = cnt <= 0;
                    last_inv = PL_SET1(cnt > 0 ? 1.0f / (float)cnt : 0.0f);
                    last_rc_v = PL_SET1((float)rc);
                    last_rc = rc;
                }
                avg_zero = last_zero;
                vinv = last_inv;
                vrc = last_rc_v;
            }
            PL_CAT(PL_FN, _hrow_t)(hp, row, yr, sw, kw, dw, is_max, vinv,
                                   vrc, avg_zero);
        }
    }
}

int PL_FN(const ln_rt_pool2d_args *a, const float *x, float *y, int is_max)
{
    PL_ALIGN float rb[PL_ROWBUF * PL_GROUP];
    PL_ALIGN float cdiv[PL_ROWBUF + PL_VL];
    const int32_t sw = a->stride_w, kw = a->kw, dw = a->dil_w;
    const int32_t w = a->w, ow = a->ow, oh = a->oh, pl = a->pad_left;
    const int32_t span = (kw - 1) * dw + 1;
    int32_t nb, pitch, grp, wv, ia0, ib0, i, g, nfill;
    PL_CAT(PL_FN, _h) hp;
    const float fill = is_max ? -INFINITY : 0.0f;

    if ((sw != 1 && sw != 2) || ow > PL_ROWBUF || span > PL_ROWBUF ||
        pl > PL_ROWBUF)
        return 0;
    nb = (ow - 1) * sw + span; /* rb entries the windows read */
    if (ow <= 0 || oh <= 0)
        return 1; /* nothing to write */
    if (nb + 2 * PL_VL > PL_ROWBUF)
        return 0; /* too long */
    /* the buffer holds grp rows of pitch floats: the vertical pass of
     * grp output rows (across planes), then their horizontal pass -- the
     * loads of a row's taps then do not wait on its stores */
    pitch = (nb + 2 * PL_VL + PL_VL - 1) / PL_VL * PL_VL;
    grp = PL_ROWBUF * PL_GROUP / pitch;
    /* input columns the vertical pass writes: rb[pl, pl + wv) */
    wv = w < nb - pl ? w : nb - pl;
    if (wv < 0)
        wv = 0;
    /* the padding: every column of the rows used (at most the output
     * rows) but those the vertical passes write. Filling all 16 KB took
     * ~40% of the fused stem's time (ln_rt_conv2d_maxpool_f32 pools 4
     * output rows of one plane a call) */
    nfill = (size_t)a->n * a->c * oh < (size_t)grp
                ? (int32_t)((size_t)a->n * a->c * oh) : grp;
    for (g = 0; g < nfill; g++) {
        float *r = rb + (size_t)g * pitch;
        for (i = 0; i < pl && i < pitch; i++)
            r[i] = fill;
        for (i = pl + wv; i < pitch; i++)
            r[i] = fill;
    }
    /* the interior outputs, as pool_plane: ox * sw - pl >= 0 and
     * ox * sw - pl + span <= w */
    ia0 = (pl + sw - 1) / sw;
    ib0 = w - span + pl < 0 ? 0 : (w - span + pl) / sw + 1;
    if (ib0 > ow)
        ib0 = ow;
    if (ia0 > ib0)
        ia0 = ib0;
    /* average: the horizontal count of each output (clipped ones) */
    if (!is_max)
        for (i = 0; i < ow + PL_VL; i++) {
            int32_t x0 = i * sw - pl, lo, hi;
            if (i >= ow || (i >= ia0 && i < ib0)) {
                cdiv[i] = (float)kw;
                continue;
            }
            if (a->count_include_pad)
                ln_rt__pool_taps(x0 + pl, kw, dw, w + pl + a->pad_right,
                                 &lo, &hi);
            else
                ln_rt__pool_taps(x0, kw, dw, w, &lo, &hi);
            cdiv[i] = (float)(hi - lo);
        }

    hp.ow = ow; hp.ia0 = ia0; hp.ib0 = ib0; hp.cdiv = cdiv;
#define PL_L(sw_, kw_, dw_, mx)                                              \
    PL_CAT(PL_FN, _loop)(a, x, y, rb, pitch, grp, wv, &hp, mx, sw_, kw_, dw_)
    if (dw == 1 && sw == 2 && kw == 3)
        is_max ? PL_L(2, 3, 1, 1) : PL_L(2, 3, 1, 0);
    else if (dw == 1 && sw == 2 && kw == 2)
        is_max ? PL_L(2, 2, 1, 1) : PL_L(2, 2, 1, 0);
    else if (dw == 1 && sw == 1 && kw == 3)
        is_max ? PL_L(1, 3, 1, 1) : PL_L(1, 3, 1, 0);
    else if (sw == 2)
        is_max ? PL_L(2, kw, dw, 1) : PL_L(2, kw, dw, 0);
    else
        is_max ? PL_L(1, kw, dw, 1) : PL_L(1, kw, dw, 0);
#undef PL_L
    return 1;
}
