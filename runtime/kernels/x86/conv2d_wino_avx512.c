/*
 * conv2d_wino_avx512.c -- AVX-512F Winograd F(2x2, 3x3) convolution: 3x3,
 * stride 1, group 1, no dilation, any pads, weights transformed ahead of
 * time (ln_rt_conv2d_wino_f32_pack: U = G g G^T, [4][4][oc][c]).
 *
 * The output is cut into 2x2 tiles; a block is up to 48 tiles (three
 * vectors of 16 lanes, a lane per tile): one tile row's consecutive tiles
 * when tile rows are longer than 16; up to three tile rows, a vector each,
 * for rows of 9-16 tiles; up to six, two to a vector (lanes 0-7 and 8-15),
 * for rows of 8 or fewer. Per block:
 *   1. every input channel's 4x4 patches are transformed, V = B^T d B (16
 *      values per tile, adds only), into the scratch block V[16][c][48]:
 *      the four columns of a patch row are the even and odd lanes of two
 *      pairs of masked loads (columns outside the image read zeros);
 *   2. for each block of 8 output channels and each of the 16 positions,
 *      M = U[pos] x V[pos] (8 x c by c x 48: the direct kernel's register
 *      tile, 8 broadcast weights x 3 aligned vectors), into M[16][8][48];
 *   3. Y = A^T M A, + bias, + residual, activation, the two outputs of each
 *      row of a tile interleaved (vpermt2ps) and stored through the column
 *      mask.
 * 16 products per 4 outputs and input channel instead of 36: 2.25x fewer
 * multiplies. The transforms' coefficients are 0, +-1 and +-1/2, so the
 * result differs from the direct sum only in rounding (each output a sum of
 * c * 16 products of transformed values; see the test's bound).
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>
#define LN_RT_ACT_SIMD_512
#include "act_simd.h"

#define WG_NV 3               /* vectors (16 tiles each) per block */
#define WG_NR LN_RT_WINO_NR    /* output channels per register tile */
#define WG_LANES LN_RT_WINO_LANES
#if WG_LANES != 16 * WG_NV
#error "LN_RT_WINO_LANES is three vectors"
#endif

/* one block's vectors: lane 0's tile (ty, tx0); with half set (rows of
 * 8 tiles or fewer) lanes 0-7 are tile row ty and lanes 8-15 tile row
 * ty + 1 (when yb: ty + 1 is a tile row of the map) */
typedef struct {
    int32_t ty[WG_NV], tx0[WG_NV];
    int yb[WG_NV];
    int nv, half;
} wg_blk;

/* 1. V[pos][ic][v * 16 + lane] for every input channel */
static void wg_in(const ln_rt_conv2d_args *a, const float *img,
                  const wg_blk *bk, float *vb)
{
    const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                         20, 22, 24, 26, 28, 30);
    const __m512i od = _mm512_add_epi32(ev, _mm512_set1_epi32(1));
    const int32_t H = a->h, W = a->w, c = a->c;
    const size_t hw = (size_t)H * W;
    int v;

    for (v = 0; v < bk->nv; v++) {
        /* loads A and B of each patch row at columns x0 and x0 + 2: one
         * row's columns x0 .. x0 + 33 (A its first 16, B the next), or
         * with half, A on tile row ty's input row and B on ty + 1's */
        const int32_t x0 = 2 * bk->tx0[v] - a->pad_left;
        const int32_t y0 = 2 * bk->ty[v] - a->pad_top;
        const ptrdiff_t bo = bk->half ? 2 * (ptrdiff_t)W : 16;
        __mmask16 mk[4]; /* A at x0, B, A at x0 + 2, B at x0 + 2 */
        int q, r;
        int32_t ic;
        for (q = 0; q < 4; q++) {
            const int32_t xs = x0 + (q & 1) * (bk->half ? 0 : 16) +
                               (q >> 1) * 2;
            uint32_t m = 0;
            int l;
            for (l = 0; l < 16; l++)
                if (xs + l >= 0 && xs + l < W)
                    m |= 1u << l;
            mk[q] = (__mmask16)m;
        }
        for (ic = 0; ic < c; ic++) {
            __m512 d[4][4];
            const float *pl = img + (size_t)ic * hw;
            for (r = 0; r < 4; r++) {
                const int32_t iy = y0 + r, iyb = bk->half ? iy + 2 : iy;
                const int ina = iy >= 0 && iy < H;
                const int inb = iyb >= 0 && iyb < H && (!bk->half || bk->yb[v]);
                if (!ina && !inb) {
                    d[r][0] = d[r][1] = d[r][2] = d[r][3] =
                        _mm512_setzero_ps();
                } else {
                    const float *p = pl + (ptrdiff_t)iy * W + x0;
                    const __mmask16 ma0 = ina ? mk[0] : 0, ma2 = ina ? mk[2] : 0,
                                    mb0 = inb ? mk[1] : 0, mb2 = inb ? mk[3] : 0;
                    const __m512 l0 = _mm512_maskz_loadu_ps(ma0, p);
                    const __m512 l1 = _mm512_maskz_loadu_ps(mb0, p + bo);
                    const __m512 l2 = _mm512_maskz_loadu_ps(ma2, p + 2);
                    const __m512 l3 = _mm512_maskz_loadu_ps(mb2, p + bo + 2);
                    d[r][0] = _mm512_permutex2var_ps(l0, ev, l1);
                    d[r][1] = _mm512_permutex2var_ps(l0, od, l1);
                    d[r][2] = _mm512_permutex2var_ps(l2, ev, l3);
                    d[r][3] = _mm512_permutex2var_ps(l2, od, l3);
                }
            }
            {
                /* t = B^T d (over rows), then V = t B (over columns) */
                __m512 t[4][4];
                int j;
                for (j = 0; j < 4; j++) {
                    t[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
                    t[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
                    t[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
                    t[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
                }
                for (r = 0; r < 4; r++) {
                    float *o = vb + ((size_t)(4 * r) * c + ic) * WG_LANES +
                               16 * v;
                    const size_t ps = (size_t)c * WG_LANES; /* per pos */
                    _mm512_store_ps(o, _mm512_sub_ps(t[r][0], t[r][2]));
                    _mm512_store_ps(o + ps, _mm512_add_ps(t[r][1], t[r][2]));
                    _mm512_store_ps(o + 2 * ps,
                                    _mm512_sub_ps(t[r][2], t[r][1]));
                    _mm512_store_ps(o + 3 * ps,
                                    _mm512_sub_ps(t[r][1], t[r][3]));
                }
            }
        }
    }
}

/* 2. M[pos][r][v] = sum over ic of U[pos][o0 + r][ic] * V[pos][ic][v] */
static inline __attribute__((always_inline)) void
wg_mul(const float *u, const float *vb, int32_t c, int32_t oc, int32_t o0,
       int nr, int nv, float *mb)
{
    int pos;
    const ptrdiff_t d1 = nr > 1 ? c : 0, d2 = nr > 2 ? 2 * c : 0,
                    d3 = nr > 3 ? 3 * c : 0, d4 = nr > 4 ? 4 * c : 0,
                    d5 = nr > 5 ? 5 * c : 0, d6 = nr > 6 ? 6 * c : 0,
                    d7 = nr > 7 ? 7 * c : 0;
    for (pos = 0; pos < 16; pos++) {
        const float *wp = u + ((size_t)pos * oc + o0) * c;
        const float *vp = vb + (size_t)pos * c * WG_LANES;
        __m512 c00 = _mm512_setzero_ps(), c01 = c00, c02 = c00;
        __m512 c10 = c00, c11 = c00, c12 = c00, c20 = c00, c21 = c00,
               c22 = c00, c30 = c00, c31 = c00, c32 = c00;
        __m512 c40 = c00, c41 = c00, c42 = c00, c50 = c00, c51 = c00,
               c52 = c00, c60 = c00, c61 = c00, c62 = c00, c70 = c00,
               c71 = c00, c72 = c00;
        int32_t ic;
        for (ic = 0; ic < c; ic++) {
            const __m512 b0 = _mm512_load_ps(vp);
            const __m512 b1 = nv > 1 ? _mm512_load_ps(vp + 16) : b0;
            const __m512 b2 = nv > 2 ? _mm512_load_ps(vp + 32) : b0;
            __m512 w;
#define WG_ROW(r)                                                             \
    w = _mm512_set1_ps(wp[d##r]);                                             \
    c##r##0 = _mm512_fmadd_ps(w, b0, c##r##0);                                \
    if (nv > 1)                                                               \
        c##r##1 = _mm512_fmadd_ps(w, b1, c##r##1);                            \
    if (nv > 2)                                                               \
        c##r##2 = _mm512_fmadd_ps(w, b2, c##r##2);
            {
                const ptrdiff_t d0 = 0;
                WG_ROW(0) WG_ROW(1) WG_ROW(2) WG_ROW(3)
                WG_ROW(4) WG_ROW(5) WG_ROW(6) WG_ROW(7)
            }
#undef WG_ROW
            vp += WG_LANES;
            wp++;
        }
        {
            float *m = mb + (size_t)pos * WG_NR * WG_LANES;
#define WG_ST(r)                                                              \
    _mm512_store_ps(m + r * WG_LANES, c##r##0);                               \
    if (nv > 1)                                                               \
        _mm512_store_ps(m + r * WG_LANES + 16, c##r##1);                      \
    if (nv > 2)                                                               \
        _mm512_store_ps(m + r * WG_LANES + 32, c##r##2);
            WG_ST(0) WG_ST(1) WG_ST(2) WG_ST(3)
            WG_ST(4) WG_ST(5) WG_ST(6) WG_ST(7)
#undef WG_ST
        }
    }
}

static void wg_mul_1(const float *u, const float *vb, int32_t c, int32_t oc,
                     int32_t o0, int nr, float *mb)
{
    wg_mul(u, vb, c, oc, o0, nr, 1, mb);
}
static void wg_mul_2(const float *u, const float *vb, int32_t c, int32_t oc,
                     int32_t o0, int nr, float *mb)
{
    wg_mul(u, vb, c, oc, o0, nr, 2, mb);
}
static void wg_mul_3(const float *u, const float *vb, int32_t c, int32_t oc,
                     int32_t o0, int nr, float *mb)
{
    wg_mul(u, vb, c, oc, o0, nr, 3, mb);
}

/* 3. Y = A^T M A for output channels o0 .. o0 + mv - 1 */
static void wg_out(const ln_rt_conv2d_args *a, const wg_blk *bk,
                   const float *mb, int32_t o0, int mv, const float *bias,
                   const float *res, float *out, int32_t oh, int32_t ow)
{
    const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20,
                                         5, 21, 6, 22, 7, 23);
    const __m512i hi = _mm512_add_epi32(lo, _mm512_set1_epi32(8));
    const size_t npix = (size_t)oh * ow;
    int r, v;

    for (v = 0; v < bk->nv; v++) {
        /* e0 (lanes 0-7 interleaved) goes to columns ox .. ox + 15 of
         * tile row ty's output rows, e1 (lanes 8-15) to the next 16
         * columns, or with half to tile row ty + 1's */
        const int32_t oy = 2 * bk->ty[v], ox = 2 * bk->tx0[v];
        const int32_t ncol = ow - ox < 32 ? ow - ox : 32;
        const __mmask16 s0 = (__mmask16)(ncol >= 16 ? 0xffffu
                                         : (1u << ncol) - 1u);
        const __mmask16 s1 = bk->half ? (bk->yb[v] ? s0 : 0)
                             : (__mmask16)(ncol >= 32 ? 0xffffu
                                           : ncol <= 16 ? 0u
                                           : (1u << (ncol - 16)) - 1u);
        const ptrdiff_t eo = bk->half ? 2 * (ptrdiff_t)ow : 16;
        const int rows = oh - oy < 2 ? 1 : 2;
        /* with half, tile row ty + 1's second output row may be past oh */
        const int rowsb = !bk->half ? rows : oh - oy - 2 < 2 ? 1 : 2;
        for (r = 0; r < mv; r++) {
            const float *m = mb + (size_t)r * WG_LANES + 16 * v;
            __m512 s[2][4], y[2][2];
            int i, j;
#define WG_M(pos) _mm512_load_ps(m + (size_t)(pos) * WG_NR * WG_LANES)
            for (j = 0; j < 4; j++) {
                const __m512 m0 = WG_M(j), m1 = WG_M(4 + j),
                             m2 = WG_M(8 + j), m3 = WG_M(12 + j);
                s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
                s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
            }
#undef WG_M
            for (i = 0; i < 2; i++) {
                y[i][0] = _mm512_add_ps(_mm512_add_ps(s[i][0], s[i][1]),
                                        s[i][2]);
                y[i][1] = _mm512_sub_ps(_mm512_sub_ps(s[i][1], s[i][2]),
                                        s[i][3]);
            }
            for (i = 0; i < rows; i++) {
                const size_t off = (size_t)(o0 + r) * npix +
                                   (size_t)(oy + i) * ow + (size_t)ox;
                const __mmask16 s1i = i < rowsb ? s1 : 0;
                __m512 e0 = _mm512_permutex2var_ps(y[i][0], lo, y[i][1]);
                __m512 e1 = _mm512_permutex2var_ps(y[i][0], hi, y[i][1]);
                if (bias) {
                    const __m512 bv = _mm512_set1_ps(bias[o0 + r]);
                    e0 = _mm512_add_ps(e0, bv);
                    e1 = _mm512_add_ps(e1, bv);
                }
                if (res) {
                    e0 = _mm512_add_ps(e0,
                                       _mm512_maskz_loadu_ps(s0, res + off));
                    e1 = _mm512_add_ps(
                        e1, _mm512_maskz_loadu_ps(s1i, res + off + eo));
                }
                e0 = ln_rt__act_v512(e0, a->act, a->alpha, a->beta);
                e1 = ln_rt__act_v512(e1, a->act, a->alpha, a->beta);
                _mm512_mask_storeu_ps(out + off, s0, e0);
                _mm512_mask_storeu_ps(out + off + eo, s1i, e1);
            }
        }
    }
}

void ln_rt__conv2d_wino_f32_avx512(const ln_rt_conv2d_args *a,
                                   const float *src, const float *u,
                                   const float *bias, const float *res,
                                   float *dst, float *scratch)
{
    const int32_t oh = ln_rt_conv_out_size(a->h, 3, 1, a->pad_top,
                                           a->pad_bottom, 1);
    const int32_t ow = ln_rt_conv_out_size(a->w, 3, 1, a->pad_left,
                                           a->pad_right, 1);
    const int32_t th = (oh + 1) / 2, tw = (ow + 1) / 2;
    float *vb = scratch;
    float *mb = vb + (size_t)16 * a->c * WG_LANES;
    int32_t b, ty, tx0, o0;

    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * a->c * a->h * a->w;
        float *out = dst + (size_t)b * a->oc * oh * ow;
        const float *rin = res ? res + (size_t)b * a->oc * oh * ow : NULL;
        /* tile rows per block: 1 (rows of 17+ tiles, in segments of up
         * to 48), 3 (9-16 tiles, a row a vector) or 6 (up to 8, two rows
         * a vector) */
        const int half = tw <= 8;
        const int32_t rpb = tw > 16 ? 1 : half ? 2 * WG_NV : WG_NV;
        for (ty = 0; ty < th; ty += rpb) {
            for (tx0 = 0; tx0 < tw; tx0 += tw > 16 ? WG_LANES : tw) {
                wg_blk bk;
                int v;
                bk.nv = 0;
                bk.half = half;
                for (v = 0; v < WG_NV; v++) {
                    const int32_t y = tw > 16 ? ty : ty + (half ? 2 * v : v);
                    const int32_t x = tw > 16 ? tx0 + 16 * v : 0;
                    if (y >= th || x >= tw)
                        break;
                    bk.ty[v] = y;
                    bk.tx0[v] = x;
                    bk.yb[v] = y + 1 < th;
                    bk.nv++;
                }
                wg_in(a, img, &bk, vb);
                for (o0 = 0; o0 < a->oc; o0 += WG_NR) {
                    const int mv = a->oc - o0 < WG_NR ? (int)(a->oc - o0)
                                                      : WG_NR;
                    (bk.nv == 1 ? wg_mul_1 : bk.nv == 2 ? wg_mul_2
                                                        : wg_mul_3)(
                        u, vb, a->c, a->oc, o0, mv, mb);
                    wg_out(a, &bk, mb, o0, mv, bias, rin, out, oh, ow);
                }
            }
        }
    }
}

#else
typedef int ln_rt__conv2d_wino_avx512_unused; /* ISO C: non-empty file */
#endif
