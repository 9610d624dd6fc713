/*
 * conv2d_depthwise_f32.c -- depthwise 2-D convolution (group == c, oc a
 * multiple of c), NCHW, float32: a direct kernel, on x86 the one in
 * x86/conv2d_depthwise_f32_simd.h (masked edges, no copy); with AVX-512
 * before it, 3x3 stride 2 with pads 0 or 1 on the top and left as lane
 * shifts of each row's even and odd columns and, for narrow maps, 3x3
 * stride 1 lane shifts of the flat plane (rows of 2..15 and 17..31, no
 * scratch) or 16 channels across the lanes (scratch: a padded pixel-major
 * copy of 16 planes and the outputs); else (and for dilation etc.) sums
 * over a zero-padded copy of each input plane (scratch: one padded plane,
 * reserved whatever the ISA).  No reference to
 * the GEMM engine, so a model without standard convs does not link it.
 */
#include <string.h>
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
/* the AVX2 direct kernel, else its padded-plane fallback */
static void dw_avx2(const ln_rt_conv2d_args *a, const float *src,
                    const float *weight, const float *bias, float *dst,
                    void *scratch)
{
    if (!ln_rt__conv2d_depthwise_f32_avx2(a, src, weight, bias, dst))
        ln_rt__conv2d_depthwise_f32_avx2_padded(a, src, weight, bias, dst,
                                                scratch);
}
#endif

/* the depthwise kernels: x86 direct ones by row width, else the padded
 * plane (portable: always) */
static void dw_run(int portable, const ln_rt_conv2d_args *a, const float *src,
                   const float *weight, const float *bias, float *dst,
                   int32_t ow, void *scratch)
{
#if LN_RT_HAVE_AVX2
    if (!portable) {
#if LN_RT_HAVE_AVX512
        /* 3x3 stride 1 "same" on rows of 2..15 and 17..31: lane shifts
         * of the flat plane (DS-CNN's 64 @25x5 0.62 of the channels
         * kernel's time, MobileNetV1's 64 @12 0.72, 128 @6 0.82, 256 @3
         * 0.89, MobileNetV2's 960 @7 0.81; 384 @14 0.61 of the flat
         * kernel's; against the direct kernel, MobileNetV1-0.25's 32 @24
         * 0.58, MobileNetV2's 192 @28 0.65, ShuffleNetV2's 24 @28 0.68,
         * 64 @21..31 0.55-0.76, and the channels kernel's 64 @17 / @20
         * 0.65 / 0.79; best of 300-3000, one process) */
        if (LN_RT_CPU_AVX512 &&
            ln_rt__conv2d_depthwise_flat3_f32_avx512(a, src, weight, bias, dst))
            return;
        /* narrow maps (ln_rt__conv2d_depthwise_cl_floats says which):
         * 16 channels across the lanes */
        if (LN_RT_CPU_AVX512 &&
            ln_rt__conv2d_depthwise_cl_f32_avx512(a, src, weight, bias, dst,
                                                  scratch))
            return;
        /* 3x3 stride 2, pads 0 or 1 on the top and left: lane shifts of
         * the rows' even and odd columns (against the direct kernel, one
         * process: MobileNetV1-0.25's 16 @48 0.59, MobileNetV2's 144 @56
         * 0.64 and 96 @112 0.76, 32 @64 0.59, 8 @33 0.67; the channels
         * kernel, before it, stays ahead on output rows of up to 11) */
        if (LN_RT_CPU_AVX512 &&
            ln_rt__conv2d_depthwise_s2_f32_avx512(a, src, weight, bias, dst))
            return;
        /* rows narrower than 16: flat vectors across rows */
        if (LN_RT_CPU_AVX512 && ow < LN_RT_DW512_MIN_OW &&
            ln_rt__conv2d_depthwise_flat_f32_avx512(a, src, weight, bias, dst))
            return;
        if (LN_RT_CPU_AVX512 && ow >= LN_RT_DW512_MIN_OW &&
            ln_rt__conv2d_depthwise_f32_avx512(a, src, weight, bias, dst))
            return;
#endif
        if (LN_RT_CPU_AVX512 && a->act == LN_RT_ACT_SILU) { /* rare */
            /* the AVX2 kernels' in-register SiLU (act_simd.h's 256-bit
             * sigmoid) differs in the last bits from the AVX-512 one every
             * other kernel uses on this CPU: here it comes after, from
             * ln_rt_silu_f32, so that a conv + SiLU gives the same bits
             * fused or not, whichever kernel ran */
            ln_rt_conv2d_args na = *a;
            int32_t oh, ow2;
            na.act = LN_RT_ACT_NONE;
            dw_avx2(&na, src, weight, bias, dst, scratch);
            ln_rt__conv_out_hw(a, &oh, &ow2);
            ln_rt__act_f32(dst, (size_t)a->n * a->oc * oh * ow2, a->act,
                           a->alpha, a->beta);
            return;
        }
        dw_avx2(a, src, weight, bias, dst, scratch);
        return;
    }
#endif
    (void)portable;
    (void)ow;
    ln_rt__conv2d_depthwise_f32_c(a, src, weight, bias, dst, scratch);
}

#if !LN_RT_TARGET_IS_CORTEX_M4
/* The shapes the 3x3 lane-shift kernel takes (it runs before the
 * channels kernel, which then needs no scratch for them): 3x3, stride 1,
 * no dilation, pads 1 on every side, rows of 2..15 or 17..31 (a tap's
 * flat offset then stays within a pair of the kernel's window of three or
 * five vectors), any height. */
int ln_rt__conv2d_depthwise_flat3_ok(const ln_rt_conv2d_args *a)
{
    return a->kh == 3 && a->kw == 3 && a->stride_h == 1 &&
           a->stride_w == 1 && a->dil_h == 1 && a->dil_w == 1 &&
           a->pad_top == 1 && a->pad_bottom == 1 && a->pad_left == 1 &&
           a->pad_right == 1 && a->w >= 2 && a->w <= 31 && a->w != 16 &&
           a->h >= 1;
}

/* The shapes the 3x3 stride-2 lane-shift kernel takes: 3x3, stride 2,
 * no dilation, pads 0 or 1 on the top and the left (any on the bottom and
 * the right: output column x reads input columns 2x - pad_left ..
 * 2x - pad_left + 2), output rows of up to 1024 (its masks: 64 vectors). */
int ln_rt__conv2d_depthwise_s2_ok(const ln_rt_conv2d_args *a)
{
    int32_t oh, ow;
    if (a->kh != 3 || a->kw != 3 || a->stride_h != 2 || a->stride_w != 2 ||
        a->dil_h != 1 || a->dil_w != 1 || a->pad_top > 1 ||
        a->pad_left > 1)
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    return oh > 0 && ow > 0 && ow <= 1024;
}

/* Which shapes the channels-across-lanes kernel takes, from side-by-side
 * runs against the kernels it replaces (time per channel, AVX-512, one
 * core, docs/performance.md): more than 9 taps (5x5) on rows of up to 28
 * outputs, any stride (0.23-0.75 of the time); up to 9 taps on rows of
 * up to 12 (0.31-0.95) and, at stride 1, of 16..20 (0.80-0.86 against
 * the 16-lane direct kernel) and, at stride 2, of 13..23 (0.47-0.87
 * against what ran them before, the AVX2 kernel for rows of 13-15 and the
 * 16-lane direct kernel above: MobileNetV2's 192 @28 -> 14 0.47,
 * EfficientNet's 240 @28 0.64, 64 @46 -> 23 0.87; best of 4 runs
 * alternated). Not: 3x3 stride 1 on rows of 13..15 (the flat kernel,
 * 1.0) or 28 (1.3), 3x3 stride 2 to rows of 24 (0.94-1.03) or 28 (from
 * 56: 1.27-1.30, the input's transposes outweigh the taps), fewer than 16
 * channels (half the lanes idle: 1.12 at 8). Later (the stride-2
 * lane-shift kernel two rows a pass), 3x3 stride 2 with pads 0 / 1 on rows
 * of 12 or more went to that kernel: against this one on a Zen 5, rows of
 * 12 0.79-0.93, 14 0.71-0.81, 16 0.55, 23 0.81; rows of 11 0.96-0.97,
 * 10 1.07, 8 1.32-1.37, 7 1.5-1.6 stay here. And 5x5 on rows of 29..47
 * came here from the direct kernel, but for 32 (two whole vectors there;
 * 1.08-1.10): on a Zen 5, 96 ch @29 0.61, @30 0.65, @33 0.52, @38 0.67,
 * @40 0.77, @44 0.74, 144 @31 0.76, @35 0.54, 240 @30 0.66, 60 -> 30 s2
 * 0.68; rows of 48 (0.93) and 56 (0.88) were left out for the scratch
 * they would plan (16 channels of padded input and output). Every kernel
 * sums bias, then
 * the taps in row-major order: which one runs changes no bit (test_rt_conv
 * checks the channels kernel against the other AVX-512 ones). */
size_t ln_rt__conv2d_depthwise_cl_floats(const ln_rt_conv2d_args *a)
{
    const int s1 = a->stride_h == 1 && a->stride_w == 1;
    int32_t oh, ow;
    size_t n;
    if (a->dil_h != 1 || a->dil_w != 1 || a->kh > 8 || a->kw > 8 ||
        a->oc < 16 || ln_rt__conv2d_depthwise_flat3_ok(a))
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0 || ow > LN_RT_DW_CL_MAX_OW)
        return 0;
    if (a->kh * a->kw <= 9 && ow > 12 && !(s1 && ow >= 16 && ow <= 20) &&
        !(a->stride_w == 2 && ow < 24))
        return 0;
    /* rows of 29..47: more than 9 taps, and not 32 wide (two whole
     * vectors for the direct kernel) */
    if (ow > 28 && (a->kh * a->kw <= 9 || ow % 16 == 0))
        return 0;
    /* 5x5 and 7x7 stride 1 on rows of 41..47: the direct kernel's lane
     * shifts (since stop 37; in one process on a Zen 5, against this
     * kernel: 5x5 @44 0.79, @47 0.89, @40 0.83, @36 0.98, @30 1.05; 7x7
     * @47 0.92, @40 1.15, @29 1.30) */
    if (s1 && ow > 40 && a->kh == a->kw && (a->kh == 5 || a->kh == 7))
        return 0;
    /* 3x3 stride 2 on rows of 12 or more: the lane-shift kernel, since it
     * runs two output rows a pass */
    if (ow >= 12 && ln_rt__conv2d_depthwise_s2_ok(a))
        return 0;
    /* 64-byte alignment, the padded image and the outputs, 16 channels */
    n = 16 + (size_t)16 * ((size_t)(a->h + a->pad_top + a->pad_bottom) *
                               (size_t)(a->w + a->pad_left + a->pad_right) +
                           (size_t)oh * (size_t)ow);
    return n <= LN_RT_DW_CL_MAXF ? n : 0;
}
#endif

static size_t dw_scratch_size(const ln_rt_conv2d_args *a)
{
    size_t n = (size_t)(a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK) *
               (size_t)(a->h + a->pad_top + a->pad_bottom);
#if !LN_RT_TARGET_IS_CORTEX_M4
    /* the channels-across-lanes kernel's buffers, whatever this CPU
     * runs: the size is the plan's, not the process's */
    if (ln_rt__conv2d_depthwise_cl_floats(a) > n)
        n = ln_rt__conv2d_depthwise_cl_floats(a);
#endif
    return n * sizeof(float);
}

size_t ln_rt_conv2d_depthwise_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    return ln_rt_conv2d_depthwise_f32_scratch_size_for(LN_RT_TARGET_THIS, a);
}

int ln_rt_conv2d_depthwise_f32(const ln_rt_conv2d_args *a, const float *src,
                               const float *weight, const float *bias,
                               float *dst, void *scratch)
{
    int32_t oh, ow;
    if (!ln_rt__conv_args_ok(a) || a->group != a->c || a->oc % a->c != 0)
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0 || a->n == 0)
        return LN_RT_OK;
#if LN_RT_TARGET_IS_CORTEX_M4
    (void)scratch;
    ln_rt__conv2d_depthwise_f32_m4(a, src, weight, bias, dst);
    return LN_RT_OK;
#endif
    /* no reference to the GEMM engine here (not even its ISA table) */
    dw_run(!LN_RT_CPU_AVX2, a, src, weight, bias, dst, ow, scratch);
    return LN_RT_OK;
}

/* ---- channels-last ----------------------------------------------------
 * src and dst [n][h][w][c], multiplier 1. The AVX-512 kernel reads 3x3
 * stride 1 pads 1 in place (rows outside the image from a zero row in
 * scratch) and copies each group of 16 channels of other shapes into a
 * zero-bordered buffer (16 floats a pixel); the AVX2 and portable ones
 * read the source in place with the taps bounds-checked, from tap-major
 * weights wt[t][c] in scratch. Every one sums bias, then the taps in
 * row-major order (a padded tap adds 0 * w), as the NCHW kernels of its
 * ISA do. */

/* the AVX-512 kernel's zero-bordered buffer of one group of 16 channels */
static size_t dw_nhwc_padf(const ln_rt_conv2d_args *a)
{
    return (size_t)16 * (size_t)(a->h + a->pad_top + a->pad_bottom) *
           (size_t)(a->w + a->pad_left + a->pad_right);
}

static size_t dw_nhwc_floats(const ln_rt_conv2d_args *a)
{
    const size_t pad = dw_nhwc_padf(a);
    const size_t wt = (size_t)a->kh * a->kw * a->c;
    const size_t zrow = (size_t)a->w * a->c; /* AVX-512 3x3 s1: a zero row */
    const size_t m = pad > wt ? pad : wt;
    return 16 + (m > zrow ? m : zrow);
}

int ln_rt_conv2d_depthwise_nhwc_ok(const ln_rt_conv2d_args *a)
{
    int32_t oh, ow;
    if (!ln_rt__conv_args_ok(a) || a->group != a->c || a->oc != a->c ||
        a->c % 16 != 0 || a->dil_h != 1 || a->dil_w != 1 || a->kh > 8 ||
        a->kw > 8 || a->act == LN_RT_ACT_SILU)
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    return oh > 0 && ow > 0 && dw_nhwc_padf(a) <= LN_RT_DW_NHWC_MAXF;
}

size_t ln_rt_conv2d_depthwise_nhwc_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    return ln_rt_conv2d_depthwise_nhwc_ok(a) ? dw_nhwc_floats(a) * sizeof(float)
                                             : 0;
}

static void dw_nhwc_c(const ln_rt_conv2d_args *a, const float *src,
                      const float *wt, const float *bias, float *dst)
{
    const int32_t H = a->h, W = a->w, C = a->c;
    int32_t oh, ow, b, oy, ox, ky, kx, c, t;
    ln_rt__conv_out_hw(a, &oh, &ow);
    for (b = 0; b < a->n; b++)
        for (oy = 0; oy < oh; oy++)
            for (ox = 0; ox < ow; ox++) {
                float *o = dst + (((size_t)b * oh + oy) * ow + ox) * C;
                for (c = 0; c < C; c++)
                    o[c] = bias ? bias[c] : 0.0f;
                for (ky = 0, t = 0; ky < a->kh; ky++) {
                    const int32_t iy = oy * a->stride_h - a->pad_top + ky;
                    for (kx = 0; kx < a->kw; kx++, t++) {
                        const int32_t ix = ox * a->stride_w - a->pad_left + kx;
                        const float *w = wt + (size_t)t * C;
                        if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
                            const float *x =
                                src + (((size_t)b * H + iy) * W + ix) * C;
                            for (c = 0; c < C; c++)
                                o[c] += w[c] * x[c];
                        } else
                            for (c = 0; c < C; c++)
                                o[c] += w[c] * 0.0f;
                    }
                }
            }
    ln_rt__act_f32(dst, (size_t)a->n * oh * ow * C, a->act, a->alpha,
                   a->beta);
}

int ln_rt_conv2d_depthwise_nhwc_f32(const ln_rt_conv2d_args *a,
                                    const float *src, const float *weight,
                                    const float *bias, float *dst,
                                    void *scratch)
{
    const int32_t ntap = a->kh * a->kw;
    float *wt;
    int32_t t, c;
    if (!ln_rt_conv2d_depthwise_nhwc_ok(a))
        return LN_RT_ARG_ERROR;
    if (a->n == 0)
        return LN_RT_OK;
#if LN_RT_HAVE_AVX512
    if (LN_RT_CPU_AVX512) {
        ln_rt__conv2d_depthwise_nhwc_f32_avx512(a, src, weight, bias, dst,
                                                scratch);
        return LN_RT_OK;
    }
#endif
    wt = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    for (c = 0; c < a->c; c++)
        for (t = 0; t < ntap; t++)
            wt[(size_t)t * a->c + c] = weight[(size_t)c * ntap + t];
#if LN_RT_HAVE_AVX2
    if (LN_RT_CPU_AVX2) {
        ln_rt__conv2d_depthwise_nhwc_f32_avx2(a, src, wt, bias, dst);
        return LN_RT_OK;
    }
#endif
    dw_nhwc_c(a, src, wt, bias, dst);
    return LN_RT_OK;
}

/* ---- portable --------------------------------------------------------- */
/* Each input plane is first copied into a zero-bordered plane in scratch
 * (row length w + pads + LN_RT_DW_SLACK, so vector loads may run past the
 * last output without leaving the buffer); then every output is a plain
 * sum over kernel taps with no bounds checks. The borders are zeroed once
 * per call; only the interior is rewritten per channel. */
void ln_rt__conv2d_depthwise_pad_plane(const ln_rt_conv2d_args *a, const float *plane,
                         float *pp)
{
    int32_t wp = a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK, y;
    for (y = 0; y < a->h; y++)
        memcpy(pp + (size_t)(y + a->pad_top) * wp + a->pad_left,
               plane + (size_t)y * a->w, (size_t)a->w * sizeof(float));
}

void ln_rt__conv2d_depthwise_f32_c(const ln_rt_conv2d_args *a, const float *src,
                         const float *weight, const float *bias, float *dst,
                         float *pp)
{
    int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                                     a->pad_bottom, a->dil_h);
    int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                                     a->pad_right, a->dil_w);
    int32_t wp = a->w + a->pad_left + a->pad_right + LN_RT_DW_SLACK;
    int32_t hp = a->h + a->pad_top + a->pad_bottom;
    int32_t mult = a->oc / a->c, b, o, oy, ky, kx, ox;
    const int32_t sw = a->stride_w;

    memset(pp, 0, (size_t)wp * hp * sizeof(float));
    for (b = 0; b < a->n; b++) {
        for (o = 0; o < a->oc; o++) {
            const float *wk = weight + (size_t)o * a->kh * a->kw;
            float *out = dst + ((size_t)b * a->oc + o) * oh * ow;
            float b0 = bias ? bias[o] : 0.0f;
            if (o % mult == 0)
                ln_rt__conv2d_depthwise_pad_plane(a, src + ((size_t)b * a->c + o / mult) *
                                               a->h * a->w, pp);
            for (oy = 0; oy < oh; oy++) {
                float *orow = out + (size_t)oy * ow;
                for (ox = 0; ox < ow; ox++)
                    orow[ox] = b0;
                for (ky = 0; ky < a->kh; ky++) {
                    const float *irow =
                        pp + (size_t)(oy * a->stride_h + ky * a->dil_h) * wp;
                    for (kx = 0; kx < a->kw; kx++) {
                        const float *ip = irow + kx * a->dil_w;
                        float wv = wk[ky * a->kw + kx];
                        if (sw == 1)
                            for (ox = 0; ox < ow; ox++)
                                orow[ox] += wv * ip[ox];
                        else
                            for (ox = 0; ox < ow; ox++)
                                orow[ox] += wv * ip[ox * sw];
                    }
                }
                ln_rt__act_f32(orow, (size_t)ow, a->act, a->alpha, a->beta);
            }
        }
    }
}

/* ---- the Cortex-M4 variant: no scratch -------------------------------
 * What ln_rt_conv2d_depthwise_f32_for(LN_RT_TARGET_CORTEX_M4, ...) runs on
 * every build (the M4 build for both targets). Per output row, the kernel
 * rows outside the image are skipped; 3x3 convs (stride 1, 2) go four
 * outputs at a time, each kernel row's inputs loaded once for its three
 * taps (tiles reaching into the pads read zeros there), the rest one
 * output at a time with the taps clipped.
 * Dilation takes a plain bounds-checked loop. */
/* 4 outputs of a 3x3 depthwise row from ox, stride SW: each kernel row's
 * 3 * SW + 3 inputs loaded once; EDGE tiles read zeros outside the row */
#define M4_DWX(j) (edge_ ? ((uint32_t)(ix0 + (j)) < (uint32_t)W ? p[(j)] : 0.0f) \
                         : p[(j)])
#define M4_DW3(NAME, SW, EDGE)                                                \
static void NAME(const float *rows, int32_t W, int32_t ix0, int32_t ky0,      \
                 int32_t ky1, const float *wk, float b0, float *op)           \
{                                                                             \
    const int edge_ = (EDGE);                                                 \
    float s0 = b0, s1 = b0, s2 = b0, s3 = b0;                                 \
    int32_t ky;                                                               \
    for (ky = ky0; ky < ky1; ky++) {                                          \
        const float *p = rows + (ptrdiff_t)ky * W + ix0;                      \
        const float w0 = wk[3 * ky], w1 = wk[3 * ky + 1], w2 = wk[3 * ky + 2]; \
        const float x0 = M4_DWX(0), x1 = M4_DWX(1), x2 = M4_DWX(2);           \
        const float x3 = M4_DWX(3), x4 = M4_DWX(4), x5 = M4_DWX(5);           \
        if ((SW) == 1) {                                                      \
            s0 += w0 * x0 + w1 * x1 + w2 * x2;                                \
            s1 += w0 * x1 + w1 * x2 + w2 * x3;                                \
            s2 += w0 * x2 + w1 * x3 + w2 * x4;                                \
            s3 += w0 * x3 + w1 * x4 + w2 * x5;                                \
        } else {                                                              \
            const float x6 = M4_DWX(6), x7 = M4_DWX(7), x8 = M4_DWX(8);       \
            s0 += w0 * x0 + w1 * x1 + w2 * x2;                                \
            s1 += w0 * x2 + w1 * x3 + w2 * x4;                                \
            s2 += w0 * x4 + w1 * x5 + w2 * x6;                                \
            s3 += w0 * x6 + w1 * x7 + w2 * x8;                                \
        }                                                                     \
    }                                                                         \
    op[0] = s0; op[1] = s1; op[2] = s2; op[3] = s3;                           \
}

M4_DW3(m4_dw3s1, 1, 0)
M4_DW3(m4_dw3s1_edge, 1, 1)
M4_DW3(m4_dw3s2, 2, 0)
M4_DW3(m4_dw3s2_edge, 2, 1)

static void m4_dw_plane(const ln_rt_conv2d_args *a, const float *plane,
                        const float *wk, float b0, float *out, int32_t oh,
                        int32_t ow)
{
    const int32_t H = a->h, W = a->w, kh = a->kh, kw = a->kw;
    const int32_t sh = a->stride_h, sw = a->stride_w, pl = a->pad_left;
    const int32_t xi0 = (pl + sw - 1) / sw;
    const int32_t xi1 = W - kw + pl < 0 ? 0 : (W - kw + pl) / sw + 1;
    const int k3 = kh == 3 && kw == 3 && (sw == 1 || sw == 2);
    int32_t oy, ox, ky, kx;

    for (oy = 0; oy < oh; oy++) {
        const int32_t iy0 = oy * sh - a->pad_top;
        const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
        const int32_t ky1 = H - iy0 < kh ? H - iy0 : kh;
        const float *rows = plane + (ptrdiff_t)iy0 * W;
        float *orow = out + (size_t)oy * ow;
        ox = 0;
        if (k3)
            for (; ox + 4 <= ow; ox += 4) {
                const int in = ox >= xi0 && ox + 4 <= xi1;
                if (sw == 1)
                    (in ? m4_dw3s1 : m4_dw3s1_edge)(rows, W, ox - pl, ky0, ky1,
                                                    wk, b0, orow + ox);
                else
                    (in ? m4_dw3s2 : m4_dw3s2_edge)(rows, W, 2 * ox - pl, ky0,
                                                    ky1, wk, b0, orow + ox);
            }
        for (; ox < ow; ox++) {
            const int32_t ix0 = ox * sw - pl;
            const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
            const int32_t kx1 = W - ix0 < kw ? W - ix0 : kw;
            float s = b0;
            for (ky = ky0; ky < ky1; ky++) {
                const float *p = rows + (ptrdiff_t)ky * W + ix0;
                const float *q = wk + ky * kw;
                for (kx = kx0; kx < kx1; kx++)
                    s += q[kx] * p[kx];
            }
            orow[ox] = s;
        }
    }
}

static void m4_dw_dilated(const ln_rt_conv2d_args *a, const float *plane,
                          const float *wk, float b0, float *out, int32_t oh,
                          int32_t ow)
{
    int32_t oy, ox, ky, kx;
    for (oy = 0; oy < oh; oy++)
        for (ox = 0; ox < ow; ox++) {
            float s = b0;
            for (ky = 0; ky < a->kh; ky++) {
                const int32_t iy = oy * a->stride_h - a->pad_top + ky * a->dil_h;
                if (iy < 0 || iy >= a->h)
                    continue;
                for (kx = 0; kx < a->kw; kx++) {
                    const int32_t ix = ox * a->stride_w - a->pad_left + kx * a->dil_w;
                    if (ix >= 0 && ix < a->w)
                        s += wk[ky * a->kw + kx] * plane[(size_t)iy * a->w + ix];
                }
            }
            out[(size_t)oy * ow + ox] = s;
        }
}

void ln_rt__conv2d_depthwise_f32_m4(const ln_rt_conv2d_args *a,
                                    const float *src, const float *weight,
                                    const float *bias, float *dst)
{
    const int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h,
                                           a->pad_top, a->pad_bottom, a->dil_h);
    const int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w,
                                           a->pad_left, a->pad_right, a->dil_w);
    const int32_t mult = a->oc / a->c;
    const int dilated = a->dil_h != 1 || a->dil_w != 1;
    int32_t b, o;

    for (b = 0; b < a->n; b++)
        for (o = 0; o < a->oc; o++) {
            const float *plane = src + ((size_t)b * a->c + o / mult) * a->h * a->w;
            const float *wk = weight + (size_t)o * a->kh * a->kw;
            float *out = dst + ((size_t)b * a->oc + o) * oh * ow;
            const float b0 = bias ? bias[o] : 0.0f;
            if (dilated)
                m4_dw_dilated(a, plane, wk, b0, out, oh, ow);
            else
                m4_dw_plane(a, plane, wk, b0, out, oh, ow);
            ln_rt__act_f32(out, (size_t)oh * ow, a->act, a->alpha, a->beta);
        }
}

size_t ln_rt_conv2d_depthwise_f32_scratch_size_for(ln_rt_target t,
                                                   const ln_rt_conv2d_args *a)
{
    if (t == LN_RT_TARGET_CORTEX_M4 || !ln_rt__conv_args_ok(a) ||
        a->group != a->c || a->oc % a->c != 0)
        return 0;
    return dw_scratch_size(a);
}

int ln_rt_conv2d_depthwise_f32_for(ln_rt_target t, const ln_rt_conv2d_args *a,
                                   const float *src, const float *weight,
                                   const float *bias, float *dst,
                                   void *scratch)
{
    if (!ln_rt__conv_args_ok(a) || a->group != a->c || a->oc % a->c != 0)
        return LN_RT_ARG_ERROR;
#if LN_RT_TARGET_IS_CORTEX_M4
    (void)t; /* no scratch: right for a plan made for either target */
#else
    if (t != LN_RT_TARGET_CORTEX_M4)
        return ln_rt_conv2d_depthwise_f32(a, src, weight, bias, dst, scratch);
#endif
    (void)scratch;
    ln_rt__conv2d_depthwise_f32_m4(a, src, weight, bias, dst);
    return LN_RT_OK;
}
