/*
 * conv2d_packed_avx512.c -- the packed small-map conv (conv2d_packed_f32.c)
 * with AVX-512F: lanes along output channels, a register tile of 6 output
 * pixels x NV (1-4) vectors of 16 channels (24 accumulators at NV = 4,
 * each weight vector loaded once per (tap, input channel) feeding 6 FMAs,
 * each input broadcast feeding NV). Full blocks of 16 channels go four
 * (then fewer) at a time; the last, partial block (nb < 16) alone with
 * k-masked weight loads. Bias and activation are applied in registers;
 * the tile goes to a scratch buffer [pixel][16] per vector, which is
 * transposed 16 x 16 in registers into the NCHW output with pixel-masked
 * stores.
 *
 * Maps of a multiple of 7 pixels that is not one of 6 (the 7x7 and 14x14
 * maps at the end of ImageNet networks) take 7 pixels x up to 3 vectors
 * instead (21 accumulators): 49 pixels are then 7 whole tiles, not 9 with
 * the last one 1/6 used. Same sums in the same order (same bits). On an
 * AMD EPYC (Zen 5), in one process against 6 x 4: 0.90-0.93 of the time
 * at 7x7 (96->576 1x1 0.91, 160->1280 0.92, 1152->320 0.91, ResNet-18's
 * 512->512 3x3 0.92: 84% of the FMA peak), 0.97 at 14x14 288->48.
 * Likewise maps of 9, 27 or 45 pixels (3x3, 3x9, 5x9: an odd multiple of
 * 9) take 9 pixels x up to 3 vectors (27 accumulators): a 3x3 map filled
 * 9 of 12 tile rows. Same machine, in one process against 6 x 4:
 * MobileNetV1-0.25's 128->256 and 256->256 1x1 @3x3 0.83 and 0.82,
 * 512->512 1x1 @3x3 0.82, 64->64 3x3 @3x3 0.90, 128->128 1x1 @3x9 0.92,
 * @5x9 0.97; at 9x9 (81 pixels, 4% of the 6-pixel tiles idle) 6 x 4
 * stays: 9 x 3 took 1.03-1.08 of its time.
 */
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX512
LN_RT_TARGET_AVX512_PRAGMA
#include <immintrin.h>

#define LN_RT_ACT_SIMD_512
#include "act_simd.h"
#include "transpose16_avx512.h"

/* One tile, one step of the reduction: pixels p0..p0+5, NV vectors, tap t,
 * input channels [c0, c1); w = first block, blocks bs floats apart, ws
 * floats per (tap, channel) row, wm the lane mask (all ones but for the
 * partial block, whose NV is 1). The sums start at zero (first) or from
 * T + v * tv + p * 16, where they go back to (+ bias and act when last;
 * CL: the last step's into the channels-last output D instead).
 * Named accumulators, not an array: GCC kept an array's 24 vectors in
 * registers but also stored them to the stack every iteration. */
#define PK_Z(P) __m512 a##P##0 = _mm512_setzero_ps(),                          \
    a##P##1 = _mm512_setzero_ps(), a##P##2 = _mm512_setzero_ps(),             \
    a##P##3 = _mm512_setzero_ps();
#define PK_LD(P)                                                              \
    a##P##0 = _mm512_loadu_ps(T + (size_t)(p0 + P) * 16);                     \
    if (NV > 1) a##P##1 = _mm512_loadu_ps(T + tv + (size_t)(p0 + P) * 16);    \
    if (NV > 2) a##P##2 = _mm512_loadu_ps(T + 2 * tv + (size_t)(p0 + P) * 16); \
    if (NV > 3) a##P##3 = _mm512_loadu_ps(T + 3 * tv + (size_t)(p0 + P) * 16);
#define PK_FMA(P, Q)                                                          \
    xb = _mm512_set1_ps(Q[xo]);                                               \
    a##P##0 = _mm512_fmadd_ps(xb, w0, a##P##0);                               \
    if (NV > 1) a##P##1 = _mm512_fmadd_ps(xb, w1, a##P##1);                   \
    if (NV > 2) a##P##2 = _mm512_fmadd_ps(xb, w2, a##P##2);                   \
    if (NV > 3) a##P##3 = _mm512_fmadd_ps(xb, w3, a##P##3);
#define PK_VAL(P, V, B)                                                       \
    (last ? ln_rt__act_v512(_mm512_add_ps(a##P##V, B), g->act, g->alpha,      \
                            g->beta)                                          \
          : a##P##V)
/* the last step of a channels-last output stores into its pixel's row
 * (V 0 of the partial block masked); every other step into the tile */
#define PK_ST1(P, V, B)                                                       \
    if (CL && last) {                                                         \
        if (V == 0)                                                           \
            _mm512_mask_storeu_ps(r##P, wm, PK_VAL(P, V, B));                 \
        else                                                                  \
            _mm512_storeu_ps(r##P + V * 16, PK_VAL(P, V, B));                 \
    } else                                                                    \
        _mm512_storeu_ps(T + V * tv + (size_t)(p0 + P) * 16, PK_VAL(P, V, B));
#define PK_ST(P)                                                              \
    PK_ST1(P, 0, b0)                                                          \
    if (NV > 1) { PK_ST1(P, 1, b1) }                                          \
    if (NV > 2) { PK_ST1(P, 2, b2) }                                          \
    if (NV > 3) { PK_ST1(P, 3, b3) }
static inline __attribute__((always_inline)) void
pk_tile(const ln_rt__pk_geom *g, const float *w, size_t bs, int32_t ws,
        __mmask16 wm, const int NV, const int NP, const int CL, const int PF,
        int32_t p0, int t0, int t1, int32_t c0, int32_t c1, int first,
        int last, int32_t oc0, float *T, size_t tv, float *D)
{
    const size_t plane = g->plane;
    const float *x0 = g->x + (size_t)c0 * plane;
    const float *q0 = x0 + g->pix[p0], *q1 = x0 + g->pix[p0 + 1];
    const float *q2 = x0 + g->pix[p0 + 2], *q3 = x0 + g->pix[p0 + 3];
    const float *q4 = x0 + g->pix[p0 + 4], *q5 = x0 + g->pix[p0 + 5];
    const float *q6 = NP > 6 ? x0 + g->pix[p0 + 6] : q5;
    const float *q7 = NP > 7 ? x0 + g->pix[p0 + 7] : q5;
    const float *q8 = NP > 8 ? x0 + g->pix[p0 + 8] : q5;
    int t;
    int32_t ic;
    /* PF (the first pixel tile of a step only): touch the next step's
     * weights, which follow this step's in each block, one line per
     * block and input channel; see PK_KC */
    const size_t pfd = t1 - t0 > 1 ? (size_t)(t1 - t0) * g->c * ws
                                   : (size_t)(c1 - c0) * ws;
    /* CL: the finished sums go to the channels-last output, pixel p at
     * D + p * ops; a tile's pixels past the last repeat it (the same sums
     * into the same place) */
    float *r0 = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL,
          *r5 = NULL, *r6 = NULL, *r7 = NULL, *r8 = NULL;
    PK_Z(0) PK_Z(1) PK_Z(2) PK_Z(3) PK_Z(4) PK_Z(5) PK_Z(6) PK_Z(7) PK_Z(8)
    if (CL) {
        const int32_t pl = g->ohw - 1;
        const size_t ops = g->ops;
#define PK_R(P) r##P = D + (size_t)(p0 + P < pl ? p0 + P : pl) * ops;
        PK_R(0) PK_R(1) PK_R(2) PK_R(3) PK_R(4) PK_R(5)
        if (NP > 6) { PK_R(6) }
        if (NP > 8) { PK_R(7) PK_R(8) }
#undef PK_R
    }

    if (!first) {
        PK_LD(0) PK_LD(1) PK_LD(2) PK_LD(3) PK_LD(4) PK_LD(5)
        if (NP > 6) { PK_LD(6) }
        if (NP > 8) { PK_LD(7) PK_LD(8) }
    }
    /* taps t0..t1-1, each over input channels c0..c1-1 (a step of several
     * taps covers all channels: its weights are contiguous) */
    for (t = t0; t < t1; t++) {
        const float *wt = w + ((size_t)t * g->c + c0) * ws;
        size_t xo = (size_t)g->toff[t];
        for (ic = c0; ic < c1; ic++, wt += ws, xo += plane) {
            __m512 xb, w0, w1 = w0 = _mm512_maskz_loadu_ps(wm, wt), w2 = w0,
                           w3 = w0;
            if (NV > 1) w1 = _mm512_loadu_ps(wt + bs);
            if (NV > 2) w2 = _mm512_loadu_ps(wt + 2 * bs);
            if (NV > 3) w3 = _mm512_loadu_ps(wt + 3 * bs);
            if (PF) {
                _mm_prefetch((const char *)(wt + pfd), _MM_HINT_T0);
                if (NV > 1) _mm_prefetch((const char *)(wt + bs + pfd), _MM_HINT_T0);
                if (NV > 2) _mm_prefetch((const char *)(wt + 2 * bs + pfd), _MM_HINT_T0);
                if (NV > 3) _mm_prefetch((const char *)(wt + 3 * bs + pfd), _MM_HINT_T0);
            }
            PK_FMA(0, q0) PK_FMA(1, q1) PK_FMA(2, q2)
            PK_FMA(3, q3) PK_FMA(4, q4) PK_FMA(5, q5)
            if (NP > 6) { PK_FMA(6, q6) }
            if (NP > 8) { PK_FMA(7, q7) PK_FMA(8, q8) }
        }
    }
    {
        __m512 b0 = _mm512_setzero_ps(), b1 = b0, b2 = b0, b3 = b0;
        if (last && g->bias) {
            b0 = _mm512_maskz_loadu_ps(wm, g->bias + oc0);
            if (NV > 1) b1 = _mm512_loadu_ps(g->bias + oc0 + 16);
            if (NV > 2) b2 = _mm512_loadu_ps(g->bias + oc0 + 32);
            if (NV > 3) b3 = _mm512_loadu_ps(g->bias + oc0 + 48);
        }
        PK_ST(0) PK_ST(1) PK_ST(2) PK_ST(3) PK_ST(4) PK_ST(5)
        if (NP > 6) { PK_ST(6) }
        if (NP > 8) { PK_ST(7) PK_ST(8) }
    }
}

/* input channels per reduction step: the step's weights (NV x 16 x KC
 * floats, 32 KiB at NV = 4) stay in L1/L2 across the pixel tiles. With
 * fewer than KC input channels a step takes KC / c taps (all channels of
 * each), the same weight budget: one tap per step made a 1-channel conv
 * (DS-CNN's 10x4 first conv, 40 taps) store and reload its 24
 * accumulators once per 24 FMAs. */
#define PK_KC 128
/* A step's weights come from memory when a conv's weights outgrow the
 * caches (ResNet-18's 512 ch 3x3: 9.4 MB each), and the first pixel tile
 * of the step then waited on them: its loads come 64 KiB - 295 KiB apart,
 * one stream per block. The first tile of each step prefetches the next
 * step's (8 KiB a block), which the other tiles of the step give time to
 * arrive. On an AMD EPYC (Zen 5), interpreter, old and new binaries
 * alternated, best of 4-5: ResNet-18's layer4 convs 6.25 -> 5.80 ms,
 * DenseNet-121's packed convs 8.66 -> 7.98, MobileNetV2's 1.64 -> 1.56,
 * EfficientNet-B0's 2.85 -> 2.62, MnasNet's 0.65 -> 0.61; DS-CNN,
 * MobileNetV1-0.25 and ResNet-8 (weights in cache) level. Same sums. */

/* rows T[0..16) of 16 floats -> column j to d + j * ld (pixel mask pm),
 * j < nb */
static void pk_transpose_store(const float *T, float *d, size_t ld,
                               int32_t nb, __mmask16 pm)
{
    __m512 r[16];
    int i;
    /* unrolled before GCC's loop distribution sees a copy loop: it had
     * made these loads a 1 KiB memcpy to the stack (4% of DS-CNN) */
#if defined(__GNUC__) && __GNUC__ >= 8
#pragma GCC unroll 16
#endif
    for (i = 0; i < 16; i++)
        r[i] = _mm512_loadu_ps(T + i * 16);
    ln_rt__tr16_ps(r);
    for (i = 0; i < nb; i++)
        _mm512_mask_storeu_ps(d + (size_t)i * ld, pm, r[i]);
}

static void pk_out(const ln_rt__pk_geom *g, const float *T, size_t tv,
                   int nv, int32_t oc0, int32_t nlast, float *dst)
{
    const int32_t ohw = g->ohw;
    int v;
    int32_t pb;
    for (v = 0; v < nv; v++) {
        const int32_t nb = v == nv - 1 ? nlast : 16;
        for (pb = 0; pb < ohw; pb += 16) {
            const int32_t np = ohw - pb < 16 ? ohw - pb : 16;
            pk_transpose_store(T + v * tv + (size_t)pb * 16,
                               dst + (size_t)(oc0 + 16 * v) * ohw + pb,
                               (size_t)ohw, nb,
                               (__mmask16)((1u << np) - 1));
        }
    }
}

/* GCC's inliner stopped taking ln_rt__act_v512 into the group functions
 * once pk_tile grew its channels-last rows (a call per store, every
 * accumulator spilled around it: +4% on DS-CNN's 64->64 1x1); flatten
 * inlines it as before */
#if defined(__GNUC__)
#define LN_PK_FLATTEN __attribute__((flatten))
#else
#define LN_PK_FLATTEN
#endif
/* CL_: the output channels-last, the last step's sums stored straight
 * into it (no transposes). The steps before keep theirs in the tile
 * buffer: kept in the output, a pixel's 2 KiB row at 512 channels put a
 * group's 49 pixels in 8 L1 sets, and ResNet-18's 512 ch 3x3 @7 took
 * 1.2x the NCHW time. */
#define PK_GROUP(NV_, NP_, CL_, SFX)                                          \
static void LN_PK_FLATTEN pk_group##NV_##_##NP_##SFX(const ln_rt__pk_geom *g, \
                          const float *w, size_t bs, int32_t ws,              \
                          __mmask16 wm, int32_t oc0, int32_t nlast,           \
                          float *dst)                                         \
{                                                                             \
    const size_t tv = (size_t)g->npix * 16;                                   \
    float *T = g->tbuf;                                                       \
    const int tps = g->c >= PK_KC ? 1 : PK_KC / g->c; /* taps per step */    \
    int t;                                                                    \
    int32_t p0, c0;                                                           \
    for (t = 0; t < g->ntap; t += tps) {                                      \
        const int t1 = g->ntap - t < tps ? g->ntap : t + tps;                 \
        for (c0 = 0; c0 < g->c; c0 += PK_KC) {                                \
            const int32_t c1 = g->c - c0 < PK_KC ? g->c : c0 + PK_KC;         \
            const int first = t == 0 && c0 == 0;                              \
            const int last = t1 == g->ntap && c1 == g->c;                     \
            pk_tile(g, w, bs, ws, wm, NV_, NP_, CL_, 1, 0, t, t1, c0, c1,     \
                    first, last, oc0, T, tv, dst + oc0);                      \
            for (p0 = NP_; p0 < g->ohw; p0 += NP_)                            \
                pk_tile(g, w, bs, ws, wm, NV_, NP_, CL_, 0, p0, t, t1, c0, c1,\
                        first, last, oc0, T, tv, dst + oc0);                  \
        }                                                                     \
    }                                                                         \
    if (!CL_)                                                                 \
        pk_out(g, g->tbuf, tv, NV_, oc0, nlast, dst);                         \
}
#define PK_GROUPS(CL_, SFX)                                                   \
    PK_GROUP(1, 6, CL_, SFX) PK_GROUP(2, 6, CL_, SFX)                         \
    PK_GROUP(3, 6, CL_, SFX) PK_GROUP(4, 6, CL_, SFX)                         \
    PK_GROUP(1, 7, CL_, SFX) PK_GROUP(2, 7, CL_, SFX)                         \
    PK_GROUP(3, 7, CL_, SFX) PK_GROUP(1, 9, CL_, SFX)                         \
    PK_GROUP(2, 9, CL_, SFX) PK_GROUP(3, 9, CL_, SFX)
PK_GROUPS(0, )
PK_GROUPS(1, _cl)

typedef void (*pk_group_fn)(const ln_rt__pk_geom *, const float *, size_t,
                            int32_t, __mmask16, int32_t, int32_t, float *);

void ln_rt__conv2d_packed_avx512(const ln_rt__pk_geom *g, const float *w,
                                 float *dst)
{
    /* [n]: n blocks of 16 channels a group; 7- and 9-pixel tiles take up
     * to 3 */
    static const pk_group_fn g6[2][5] = {
        {NULL, pk_group1_6, pk_group2_6, pk_group3_6, pk_group4_6},
        {NULL, pk_group1_6_cl, pk_group2_6_cl, pk_group3_6_cl,
         pk_group4_6_cl}};
    static const pk_group_fn g7[2][4] = {
        {NULL, pk_group1_7, pk_group2_7, pk_group3_7},
        {NULL, pk_group1_7_cl, pk_group2_7_cl, pk_group3_7_cl}};
    static const pk_group_fn g9[2][4] = {
        {NULL, pk_group1_9, pk_group2_9, pk_group3_9},
        {NULL, pk_group1_9_cl, pk_group2_9_cl, pk_group3_9_cl}};
    const int tile7 = g->ohw % 7 == 0 && g->ohw % 6 != 0;
    const int tile9 = !tile7 && g->ohw % 9 == 0 && g->ohw % 6 != 0 &&
                      g->ohw <= 45;
    const int cl = g->ocs == 1;
    const pk_group_fn *grp = tile7 ? g7[cl] : tile9 ? g9[cl] : g6[cl];
    const int32_t gmax = tile7 || tile9 ? 3 : 4;
    const size_t kk = (size_t)g->c * g->ntap, bs = 16 * kk;
    const int32_t full = g->oc / 16, nlast = g->oc % 16;
    int32_t b, n;
    for (b = 0; b < full; b += n) {
        n = full - b < gmax ? full - b : gmax;
        grp[n](g, w + b * bs, bs, 16, (__mmask16)0xffff, b * 16, 16, dst);
    }
    if (nlast)
        grp[1](g, w + full * bs, 0, nlast, (__mmask16)((1u << nlast) - 1),
               full * 16, nlast, dst);
}
#endif
