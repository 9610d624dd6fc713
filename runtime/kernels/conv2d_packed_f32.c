/*
 * conv2d_packed_f32.c -- group-1 convolution for small output maps with
 * the vector lanes along output channels and the weights packed ahead of
 * time (ln_rt_conv2d_f32_pack; the compiler's host recipe packs the
 * constant weights once, ln-aot emits them packed).
 *
 * The direct AVX-512 kernel and the GEMM run their lanes along output
 * pixels, so a 7x7 map fills 49 of 64 lanes and a 3x3 map 9 of 16. Here a
 * register tile is 6 output pixels x up to 4 vectors of 16 output
 * channels: each weight vector feeds 6 FMAs, each broadcast input 1-4.
 * Layout: output channels in blocks of 16, block b = [tap][c][16] (taps
 * ky * kw + kx), the last block nb = oc - 16 b wide ([tap][c][nb]), so the
 * packed tensor has exactly oc * c * kh * kw floats (the weight's shape
 * stays [oc][c][kh][kw]). The same layout for every ISA: the AVX-512
 * kernel reads a block as one vector, the AVX2 kernel as two halves, the
 * portable one as 16 lanes of a loop. Pads: the image is copied once into
 * a zero-padded scratch plane per channel (small maps only), so no tap
 * is bounds-checked; without pads the source is read in place. Tiles past
 * the last pixel repeat it (results not stored). Output: NCHW, written
 * through a scratch tile transposed 16 x 16 (AVX-512) or per lane.
 */
#include <string.h>
#include "ln_rt_internal.h"

#define PK_MAXTAPS 64

static void pk_geometry(const ln_rt_conv2d_args *a, int32_t *oh, int32_t *ow,
                        int32_t *hp, int32_t *wp, int *padded)
{
    *oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                              a->pad_bottom, 1);
    *ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                              a->pad_right, 1);
    *padded = a->pad_top || a->pad_left || a->pad_bottom || a->pad_right;
    *hp = a->h + a->pad_top + a->pad_bottom;
    *wp = a->w + a->pad_left + a->pad_right;
}

/* Shapes this kernel takes (the same on every ISA: the compiler packs the
 * weights for it before it knows which CPU runs them): group 1, no
 * dilation, stride 1 or 2 on both axes, up to 64 taps, 16 or more output
 * channels, the padded image at most 1M floats, and output maps of at
 * most 128 pixels, or of at most 256 with stride 2 or with 128 input
 * channels or more. The 65-128 pixel and stride-2 cases (since the
 * reduction steps take several taps when c < 128), against the direct
 * kernel / GEMM on an Intel Xeon (AVX-512, bench/kernels and a per-path
 * driver, best of 3 x 100 runs): DS-CNN's 1->64 10x4 s2 first conv (25x5
 * output) 54 -> 98 GFLOP/s, its 64->64 1x1 @25x5 107 -> 122, LeNet-5's
 * 6->16 5x5 @14 (10x10 out) 39 -> 103, ResNet-8's 16->32 3x3 s2 and 1x1
 * s2 @32 (16x16 out) 87 -> 94 and 48 -> 58, a 32->64 3x3 @11 118 -> 141;
 * left out: stride 1 above 128 pixels with fewer than 128 channels
 * (ResNet-8's 32->32 3x3 @16: 125 direct, 126 packed; MobileNetV1's
 * 32->64 and 64->64 1x1 @12 130 / 143 through the GEMM, 96 / 124 packed;
 * MobileNetV2's 64->384 and 96->576 1x1 @14 140 / 147 against 118 / 132).
 * Earlier figures, maps of at most 64 pixels (one tap per step then): On
 * an Intel Xeon (AVX-512, bench/kernels, best of many) it beat the direct
 * kernel / GEMM on every such map measured (ResNet-18's 512x7x7 3x3 57%
 * -> 76% of the FMA peak, 256x14x14 3x3 73% -> 87%, MobileNetV2's 1x1 at
 * 7x7 62-64% -> 77-83%, MobileNetV1-0.25's 1x1 at 3x3 37-40% -> 62-65%,
 * at 6x6 56-61% -> 74-82%); with 12x12 - 16x16 maps and 32-64 input
 * channels (MobileNetV1's 64->64 @12, ResNet-8's 32->32 @16, MobileNetV2's
 * 64->384 @14) it lost by 10-25%, and tied at DS-CNN's 64->64 @25x5
 * (then; 107 -> 122 GFLOP/s above). */
int ln_rt_conv2d_packed_ok(const ln_rt_conv2d_args *a)
{
    int32_t oh, ow, hp, wp;
    int padded;
    if (!ln_rt__conv_args_ok(a) || a->group != 1 || a->dil_h != 1 ||
        a->dil_w != 1 || a->stride_h != a->stride_w ||
        (a->stride_w != 1 && a->stride_w != 2) ||
        a->kh * a->kw > PK_MAXTAPS || a->oc < 16 || a->c < 1)
        return 0;
    pk_geometry(a, &oh, &ow, &hp, &wp, &padded);
    return oh > 0 && ow > 0 &&
           ((int64_t)oh * ow <= 128 ||
            ((int64_t)oh * ow <= 256 &&
             (a->c >= 128 || a->stride_w == 2))) &&
           (int64_t)a->c * hp * wp <= (1 << 20);
}

/* packed[b][t][ic][j] = weight[16 b + j][ic][t] */
void ln_rt_conv2d_f32_pack(const ln_rt_conv2d_args *a, const float *weight,
                           float *packed)
{
    const int32_t khw = a->kh * a->kw, c = a->c, kk = c * khw;
    int32_t o0, t, ic, j;
    for (o0 = 0; o0 < a->oc; o0 += 16) {
        const int32_t nb = a->oc - o0 < 16 ? a->oc - o0 : 16;
        float *blk = packed + (size_t)o0 * kk;
        for (t = 0; t < khw; t++)
            for (ic = 0; ic < c; ic++)
                for (j = 0; j < nb; j++)
                    blk[((size_t)t * c + ic) * nb + j] =
                        weight[(size_t)(o0 + j) * kk + (size_t)ic * khw + t];
    }
}

static size_t pk_npix(int32_t ohw)
{
    size_t n = ((size_t)ohw + LN_RT_PK_TILE - 1) / LN_RT_PK_TILE *
               LN_RT_PK_TILE;
    return (n + 15) / 16 * 16;
}

size_t ln_rt_conv2d_packed_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    int32_t oh, ow, hp, wp;
    int padded;
    size_t n;
    if (!ln_rt_conv2d_packed_ok(a))
        return 0;
    pk_geometry(a, &oh, &ow, &hp, &wp, &padded);
    n = pk_npix(oh * ow);
    /* tile buffer, padded image, pixel and tap offsets (int32) */
    return (64 * n + (padded ? (size_t)a->c * hp * wp : 0) + n +
            PK_MAXTAPS) * sizeof(float) + 64;
}

/* ---- portable kernel: 6 pixels x one block of 16 channels -------------
 * The same steps as the SIMD kernels: per tap, input channels 128 at a
 * time, the sums of every pixel kept in the tile buffer between steps (so
 * a step's 8 KiB of weights is read from cache by every pixel tile). */
#define PK_KC 128

static void pk_step_c(const ln_rt__pk_geom *g, const float *wb, int32_t nb,
                      int t, int32_t c0, int32_t c1, int first, float *T)
{
    const int32_t ws = nb;
    int32_t p0, ic, p, j;
    for (p0 = 0; p0 < g->ohw; p0 += LN_RT_PK_TILE) {
        float acc[LN_RT_PK_TILE][16];
        if (first)
            memset(acc, 0, sizeof(acc));
        else
            memcpy(acc, T + (size_t)p0 * 16, sizeof(acc));
        for (ic = c0; ic < c1; ic++) {
            const float *wv = wb + ((size_t)t * g->c + ic) * ws;
            const float *xc = g->x + g->toff[t] + (size_t)ic * g->plane;
            for (p = 0; p < LN_RT_PK_TILE; p++) {
                const float xs = xc[g->pix[p0 + p]];
                if (nb == 16)
                    for (j = 0; j < 16; j++)
                        acc[p][j] += xs * wv[j];
                else
                    for (j = 0; j < nb; j++)
                        acc[p][j] += xs * wv[j];
            }
        }
        memcpy(T + (size_t)p0 * 16, acc, sizeof(acc));
    }
}

static void pk_block_c(const ln_rt__pk_geom *g, const float *wb, int32_t nb,
                       int32_t oc0, float *dst)
{
    const int32_t ohw = g->ohw;
    float *T = g->tbuf;
    int32_t c0, p, j;
    int t;
    for (t = 0; t < g->ntap; t++)
        for (c0 = 0; c0 < g->c; c0 += PK_KC)
            pk_step_c(g, wb, nb, t, c0,
                      g->c - c0 < PK_KC ? g->c : c0 + PK_KC,
                      t == 0 && c0 == 0, T);
    for (j = 0; j < nb; j++) {
        const float bv = g->bias ? g->bias[oc0 + j] : 0.0f;
        float *d = dst + (size_t)(oc0 + j) * g->ocs;
        for (p = 0; p < ohw; p++)
            d[(size_t)p * g->ops] = T[(size_t)p * 16 + j] + bv;
    }
}

void ln_rt__conv2d_packed_c(const ln_rt__pk_geom *g, const float *w,
                            float *dst)
{
    const size_t kk = (size_t)g->c * g->ntap;
    int32_t o0;
    for (o0 = 0; o0 < g->oc; o0 += 16)
        pk_block_c(g, w + (size_t)o0 * kk,
                   g->oc - o0 < 16 ? g->oc - o0 : 16, o0, dst);
    ln_rt__act_f32(dst, (size_t)g->oc * g->ohw, g->act, g->alpha, g->beta);
}

/* layout: LN_RT_NHWC_SRC / LN_RT_NHWC_DST say which side is
 * channels-last ([n][h][w][c]); the kernels are the same, only the
 * input's strides (a channel 1 float apart, a pixel c) and the output's
 * stage change, so every output is the same sum in the same order */
int ln_rt_conv2d_packed_nhwc_f32(const ln_rt_conv2d_args *a, int layout,
                                 const float *src, const float *packed,
                                 const float *bias, float *dst,
                                 void *scratch)
{
    const int in_cl = (layout & LN_RT_NHWC_SRC) != 0;
    int32_t oh, ow, hp, wp, ohw, oy, ox, ky, kx, b, ic, y;
    int padded;
    size_t n, hw, ohwn, ps;
    float *tb, *xp;
    int32_t *pix, *toff;
    ln_rt__pk_geom g;

    if (!ln_rt_conv2d_packed_ok(a) ||
        (layout & ~(LN_RT_NHWC_SRC | LN_RT_NHWC_DST)))
        return LN_RT_ARG_ERROR;
    pk_geometry(a, &oh, &ow, &hp, &wp, &padded);
    ohw = oh * ow;
    n = pk_npix(ohw);
    /* a pixel's step in the input, a channel's is g.plane */
    ps = in_cl ? (size_t)a->c : 1;
    /* 64-byte aligned tile buffer */
    tb = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    xp = tb + 64 * n;
    pix = (int32_t *)(xp + (padded ? (size_t)a->c * hp * wp : 0));
    toff = pix + n;
    for (oy = 0; oy < oh; oy++)
        for (ox = 0; ox < ow; ox++)
            pix[oy * ow + ox] =
                (int32_t)((oy * a->stride_h * wp + ox * a->stride_w) * ps);
    for (y = ohw; y < (int32_t)n; y++)
        pix[y] = pix[ohw - 1];
    for (ky = 0; ky < a->kh; ky++)
        for (kx = 0; kx < a->kw; kx++)
            toff[ky * a->kw + kx] = (int32_t)((ky * wp + kx) * ps);
    hw = (size_t)a->h * a->w;
    ohwn = (size_t)ohw;
    g.plane = in_cl ? 1 : padded ? (size_t)hp * wp : hw;
    g.c = a->c; g.ntap = a->kh * a->kw; g.npix = (int32_t)n; g.ohw = ohw;
    g.oc = a->oc; g.pix = pix; g.toff = toff; g.tbuf = tb; g.bias = bias;
    g.act = a->act; g.alpha = a->alpha; g.beta = a->beta;
    if (layout & LN_RT_NHWC_DST) {
        g.ocs = 1;
        g.ops = (size_t)a->oc;
    } else {
        g.ocs = ohwn;
        g.ops = 1;
    }
    if (padded)
        memset(xp, 0, (size_t)a->c * hp * wp * sizeof(float));
    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * a->c * hw;
        float *out = dst + (size_t)b * a->oc * ohwn;
        if (padded) {
            if (in_cl) /* [hp][wp][c]: a row's w pixels are one run */
                for (y = 0; y < a->h; y++)
                    memcpy(xp + ((size_t)(y + a->pad_top) * wp +
                                 a->pad_left) * a->c,
                           img + (size_t)y * a->w * a->c,
                           (size_t)a->w * a->c * sizeof(float));
            else
                for (ic = 0; ic < a->c; ic++)
                    for (y = 0; y < a->h; y++)
                        memcpy(xp + (size_t)ic * hp * wp +
                                   (size_t)(y + a->pad_top) * wp + a->pad_left,
                               img + (size_t)ic * hw + (size_t)y * a->w,
                               (size_t)a->w * sizeof(float));
            g.x = xp;
        } else
            g.x = img;
#if LN_RT_HAVE_AVX512
        if (LN_RT_CPU_AVX512) {
            ln_rt__conv2d_packed_avx512(&g, packed, out);
            continue;
        }
#endif
#if LN_RT_HAVE_AVX2
        if (LN_RT_CPU_AVX2) {
            ln_rt__conv2d_packed_avx2(&g, packed, out);
            continue;
        }
#endif
        ln_rt__conv2d_packed_c(&g, packed, out);
    }
    return LN_RT_OK;
}

int ln_rt_conv2d_packed_f32(const ln_rt_conv2d_args *a, const float *src,
                            const float *packed, const float *bias,
                            float *dst, void *scratch)
{
    return ln_rt_conv2d_packed_nhwc_f32(a, 0, src, packed, bias, dst,
                                        scratch);
}

/* The packed conv with a residual input (conv2d_packed_res_cpu): dst =
 * act(conv(src) + bias + res), res [n][oc][oh][ow] like dst and apart
 * from it. The conv runs without its activation, then one pass adds res
 * and applies it: the maps the packed kernel takes are small, so that
 * pass reads dst back from cache. */
int ln_rt_conv2d_packed_res_nhwc_f32(const ln_rt_conv2d_args *a, int layout,
                                     const float *src, const float *packed,
                                     const float *bias, const float *res,
                                     float *dst, void *scratch)
{
    ln_rt_conv2d_args na;
    int32_t oh, ow;
    size_t i, n;
    int ret;

    if (!res || res == dst || !ln_rt_conv2d_packed_ok(a) ||
        (layout & ~LN_RT_NHWC_SRC))
        return LN_RT_ARG_ERROR;
    na = *a;
    na.act = LN_RT_ACT_NONE;
    if ((ret = ln_rt_conv2d_packed_nhwc_f32(&na, layout, src, packed, bias,
                                            dst, scratch)))
        return ret;
    ln_rt__conv_out_hw(a, &oh, &ow);
    n = (size_t)a->n * a->oc * oh * ow;
    for (i = 0; i < n; i++)
        dst[i] += res[i];
    ln_rt__act_f32(dst, n, a->act, a->alpha, a->beta);
    return LN_RT_OK;
}

int ln_rt_conv2d_packed_res_f32(const ln_rt_conv2d_args *a, const float *src,
                                const float *packed, const float *bias,
                                const float *res, float *dst, void *scratch)
{
    return ln_rt_conv2d_packed_res_nhwc_f32(a, 0, src, packed, bias, res, dst,
                                            scratch);
}
