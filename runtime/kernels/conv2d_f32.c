/*
 * conv2d_f32.c -- 2-D convolution and transposed convolution, NCHW, float32.
 *
 * conv2d is a GEMM per (image, group): weights [oc/g][cg*kh*kw] times the
 * patch matrix [cg*kh*kw][oh*ow]. The patch matrix is never materialized:
 * the B packer of the GEMM engine reads image pixels (or zeros for padding)
 * straight into the packed panels, one KC x NC block at a time, so scratch
 * stays at the engine's two packing buffers even for 3x3 convs on big
 * images. For 1x1 stride-1 convs the packer degenerates into row copies.
 * Depthwise convs are conv2d_depthwise_f32.c's.
 * conv_transpose2d is a GEMM (weights^T x input) followed by col2im.
 */
#include <string.h>
#include "ln_rt_internal.h"
#include "x86/conv2d_s2few_avx512.h"

int32_t ln_rt_conv_out_size(int32_t in, int32_t k, int32_t stride,
                            int32_t pad_begin, int32_t pad_end, int32_t dil)
{
    int32_t span = dil * (k - 1) + 1;
    int32_t full = in + pad_begin + pad_end;
    if (stride <= 0 || full < span)
        return 0;
    return (full - span) / stride + 1;
}

/* 1x1, stride 1, no padding: the image itself is the B matrix */
static int conv_is_pointwise(const ln_rt_conv2d_args *a)
{
    return a->kh == 1 && a->kw == 1 && a->stride_h == 1 &&
           a->stride_w == 1 && a->pad_top == 0 && a->pad_left == 0 &&
           a->pad_bottom == 0 && a->pad_right == 0;
}

/* A pointwise conv whose GEMM reads the image in place as B (row stride
 * h*w): all but those with >= 128 input and output channels, where a B
 * panel read in place (kc rows h*w floats apart, 256 rows of 2 lines in
 * few L1 sets at 56x56: 12544 bytes = 4096 * 3 + 256) kept missing and
 * packing it (a row copy, paid once per 16+ A panels) was 20-40% faster
 * on an Intel Xeon (bench/kernels: DenseNet's 256->128 and 128->128 at
 * 56x56, SqueezeNet's 512->1000 at 13x13, MobileNetV2's 160->960 at 7x7);
 * with fewer channels the copy costs more than it saves (MobileNetV2's
 * 16->96 at 112x112 took twice as long, its 192->32 at 28x28 1.6x). */
static int conv_b_in_place(const ln_rt_conv2d_args *a)
{
    return conv_is_pointwise(a) &&
           !(a->oc / a->group >= 128 && a->c / a->group >= 128);
}

/* ---- patch-matrix packer --------------------------------------------- */
typedef struct {
    const float *img;       /* first channel of this group, one image */
    int32_t h, w, kh, kw, sh, sw, pt, pl, dh, dw, ow;
    int32_t oyb;            /* column j is output pixel oyb * ow + j */
} conv_bctx;

/* d[i] = s[2 * i], i < n: a constant stride the compiler vectorizes (even
 * lanes of two loads). The variable-stride loop in pack_b_conv was 40% of
 * ResNet-18's 7x7 s2 first conv (perf). Kept out of line and behind a
 * packer of its own (pack_b_conv_s2, for rows of >= 16 outputs), so that
 * the other convs' packer is the loop it was. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void copy_stride2(float *restrict d, const float *restrict s,
                         int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++)
        d[i] = s[2 * i];
}

/* Writes rows [p0, p0+kc) x columns [j0, j0+nc) of the patch matrix as a
 * row-major block (row stride LN_RT_GEMM_LDB(nc), columns up to
 * roundup(nc, 16) zero). Row p
 * is (channel, ky, kx); column j is output pixel (oy, ox). Each block row is
 * built one output row at a time: the taps that fall in the padding are
 * zeros, the rest a copy (a straight one for stride 1) of an input row. */
static inline void pack_b_conv_body(const void *ctx, int32_t p0,
                                    int32_t kc, int32_t j0, int32_t nc,
                                    float *dst, int wide_s2)
{
    const conv_bctx *b = ctx;
    const int32_t khw = b->kh * b->kw, ldb = LN_RT_GEMM_LDB(nc);
    const int32_t ncr = (nc + 15) / 16 * 16;
    const int32_t ow = b->ow, w = b->w, h = b->h, sw = b->sw;
    const int32_t oy0 = b->oyb + j0 / ow, ox0 = j0 % ow;
    int32_t p;

    for (p = 0; p < kc; p++) {
        const int32_t row = p0 + p, ci = row / khw, r = row % khw;
        const int32_t ky = r / b->kw, kx = r % b->kw;
        const int32_t off = kx * b->dw - b->pl;
        const float *plane = b->img + (size_t)ci * h * w;
        /* valid ox: 0 <= ox * sw + off < w */
        int32_t lo = off >= 0 ? 0 : (-off + sw - 1) / sw;
        int32_t hi = w - off <= 0 ? 0 : (w - off - 1) / sw + 1;
        int32_t done = 0, oy = oy0, xa = ox0;
        float *d = dst + (size_t)p * ldb;

        if (hi > ow)
            hi = ow;
        if (lo > hi)
            lo = hi;
        while (done < nc) {
            /* columns [xa, xb) of output row oy go to d[done ...] */
            const int32_t xb = ow - xa < nc - done ? ow : xa + (nc - done);
            const int32_t iy = oy * b->sh - b->pt + ky * b->dh;
            float *q = d + done;
            int32_t x0 = xa > lo ? xa : lo, x1 = xb < hi ? xb : hi, x;
            if (iy < 0 || iy >= h || x0 >= x1) {
                memset(q, 0, (size_t)(xb - xa) * sizeof(float));
            } else {
                const float *srow = plane + (size_t)iy * w + off;
                if (x0 > xa)
                    memset(q, 0, (size_t)(x0 - xa) * sizeof(float));
                if (sw == 1) {
                    memcpy(q + (x0 - xa), srow + x0,
                           (size_t)(x1 - x0) * sizeof(float));
                } else if (wide_s2 && x1 - x0 >= 16) {
                    copy_stride2(q + (x0 - xa), srow + (ptrdiff_t)x0 * 2,
                                 x1 - x0);
                } else
                    for (x = x0; x < x1; x++)
                        q[x - xa] = srow[(ptrdiff_t)x * sw];
                if (xb > x1)
                    memset(q + (x1 - xa), 0, (size_t)(xb - x1) * sizeof(float));
            }
            done += xb - xa;
            xa = 0;
            oy++;
        }
        if (ncr > nc)
            memset(d + nc, 0, (size_t)(ncr - nc) * sizeof(float));
    }
}

/* the packer, and its variant for stride-2 rows of 16 outputs or more
 * (chosen per call, so the other convs run the packer's code unchanged) */
static void pack_b_conv(const void *ctx, int32_t p0, int32_t kc, int32_t j0,
                        int32_t nc, int nr, float *dst)
{
    (void)nr;
    pack_b_conv_body(ctx, p0, kc, j0, nc, dst, 0);
}

static void pack_b_conv_s2(const void *ctx, int32_t p0, int32_t kc,
                           int32_t j0, int32_t nc, int nr, float *dst)
{
    (void)nr;
    pack_b_conv_body(ctx, p0, kc, j0, nc, dst, 1);
}

/* The host's scratch: the packed GEMM's blocks (whatever the ISA). */
static size_t host_scratch_size(const ln_rt_conv2d_args *a)
{
    int32_t oh, ow, cg, kk;
    if (!ln_rt__conv_args_ok(a))
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    cg = a->c / a->group;
    kk = cg * a->kh * a->kw;
    if (oh <= 0 || ow <= 0 || kk <= 0)
        return 0;
    /* + 16 columns: the packed block's row stride (LN_RT_GEMM_LDB) */
    return (ln_rt__gemm_scratch_floats(a->oc / a->group, oh * ow, kk, 1,
                                       conv_b_in_place(a)) +
            (conv_b_in_place(a) ? 0
             : 16 * (size_t)(kk < LN_RT_GEMM_KC ? kk : LN_RT_GEMM_KC))) *
           sizeof(float);
}

/* Direct kernel or GEMM for a group-1 conv (x86/conv2d_direct_avx512.c).
 * The GEMM path packs a KC x NC patch block per (k block, n block) and
 * pays for it once per MR rows of output channels, so with few output
 * channels, few input channels or small maps the packing costs as much as
 * the products; the direct kernel reads the image in place with k-masked
 * loads and runs the input channels 64 at a time, so it wants a chunk's
 * image rows and one 8-row weight block in L1/L2. Taken when: group 1, no
 * dilation, stride 1 or 2 (same on both axes), at most 64 taps, K =
 * c*kh*kw <= 1024 (more for 3x3 stride 1: direct_3x3_narrow,
 * direct_3x3_mid), the input image at most 256 KiB
 * (c*h*w <= 64K floats: every MLPerf Tiny conv, not the big early layers of
 * ResNet-18 / MobileNetV2; 256K floats = 1 MiB, an L2, for 3x3 stride 1:
 * ResNet-18's 64x56x56 3x3 convs run 80% of the FMA peak direct against
 * 69% through the GEMM, whose patch packing is ~20% of its time there,
 * while its 7x7 s2 first conv and MobileNetV2's 56x56 1x1 expands were
 * slower direct), and either "same"-width stride-1 output rows
 * (pixel blocks then run across rows, so an 8x8 map fills its lanes) or
 * rows of at least 16 outputs (a 5- or 8-wide row would leave most of a
 * 32-lane block idle: DS-CNN's 10x4 s2 first conv, ResNet-8's 16x16 -> 8x8
 * s2 conv stay on the GEMM). 1x1 stride-1 convs too, up to 128 output
 * pixels: the GEMM reads their image in place already, but the direct
 * kernel has no per-call packing of tails; from 144 pixels (12x12) on the
 * GEMM was 10-25% faster on an Intel Xeon (bench/kernels, best of 3:
 * MobileNetV1-0.25's 8->16 @48 ... 64->64 @12, MobileNetV2's 32->192 @28
 * and 64->384 @14), the direct kernel 7-29% faster below (DS-CNN's @25x5,
 * MobileNetV1's @6 and @3, MobileNetV2's 960->320 @7) -- but for at most
 * 512 output channels: MobileNetV2's 160->960 and 320->1280 at 7x7 ran
 * 0.87-0.89x the time through the GEMM, whose B panel packing pays over
 * that many rows (best of 6 alternated; 960->320 level). */
/* 3x3 stride 1 with at most 32 output channels: the GEMM pays its patch
 * packing once per 4 A panels there, so the direct kernel stays ahead up
 * to K = 1152 and 2 MiB images: DenseNet-121's 128->32 3x3 convs ran
 * 70-74% of the FMA peak direct against 51-59% through the GEMM at 56x56
 * and 28x28, 71% against 34-50% at 14x14 (bench/kernels, Intel Xeon). */
static int direct_3x3_narrow(const ln_rt_conv2d_args *a)
{
    return a->kh == 3 && a->kw == 3 && a->stride_h == 1 &&
           a->stride_w == 1 && a->oc <= 32 && a->c * 9 <= 1152 &&
           (int64_t)a->c * a->h * a->w <= 524288;
}

/* 3x3 stride 1, K up to 2304 (256 input channels) with at most 192 output
 * channels: since the direct kernel runs 64 input channels at a time it
 * beat the GEMM there (bench/kernels, Intel Xeon, best of 4-5: ResNet-18's
 * 128->128 at 28x28 0.93x the GEMM's time, 128->128 at 14x14 0.81x and
 * 7x7 0.73x, 120->64 at 28x28 0.79x, 192->96 at 28x28 0.88x, 192->192 at
 * 14x14 0.90x, 256->64 at 28x28 0.77x); with more outputs the GEMM's
 * packing pays over more rows: 256->256 at 14x14 and 512->512 at 7x7 level,
 * 128->256 at 28x28 1.03x, so those stay on the GEMM. The image limit (1
 * MiB) is direct_ok's. */
static int direct_3x3_mid(const ln_rt_conv2d_args *a)
{
    return a->kh == 3 && a->kw == 3 && a->stride_h == 1 &&
           a->stride_w == 1 && a->oc <= 192 && a->c * 9 <= 2304;
}

int ln_rt__conv2d_direct_ok(const ln_rt_conv2d_args *a)
{
    /* 1x1 stride 2 (ResNet downsampling): the GEMM's patch is a strided
     * gather of c x oh*ow floats, cheap beside the products, while the
     * direct kernel spends a permute per vector on the even lanes:
     * ResNet-18's 256->512 at 14x14 ran 0.57x the time through the GEMM,
     * 64->128 at 56x56 0.63x, 128->256 at 28x28 0.66x, ResNet-8's 16->32
     * at 32x32 level (bench/kernels, Intel Xeon, best of 3-4) */
    if (a->kh == 1 && a->kw == 1) {
        if (a->stride_h == 2 && a->stride_w == 2)
            return 0;
        /* stride 1: <= 128 output pixels, <= 512 outputs (above) */
        if (a->stride_h == 1 && a->stride_w == 1 &&
            ((int64_t)ln_rt_conv_out_size(a->h, 1, 1, a->pad_top,
                                          a->pad_bottom, 1) *
                     ln_rt_conv_out_size(a->w, 1, 1, a->pad_left,
                                         a->pad_right, 1) > 128 ||
             a->oc > 512))
            return 0;
    }
    return a->group == 1 && a->dil_h == 1 && a->dil_w == 1 &&
           a->stride_h == a->stride_w &&
           (a->stride_w == 1 || a->stride_w == 2) &&
           a->kh * a->kw <= 64 &&
           (a->c * a->kh * a->kw <= 1024 || direct_3x3_narrow(a) ||
            direct_3x3_mid(a)) &&
           ((int64_t)a->c * a->h * a->w <= 65536 ||
            (a->kh == 3 && a->kw == 3 && a->stride_w == 1 &&
             (int64_t)a->c * a->h * a->w <= 262144) ||
            direct_3x3_narrow(a)) &&
           ((a->stride_w == 1 &&
             a->pad_left + a->pad_right == a->kw - 1) ||
            (a->stride_w == 2 && a->c >= 8 &&
             ln_rt_conv_out_size(a->w, a->kw, 2, a->pad_left,
                                 a->pad_right, 1) <= 8) ||
            ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                                a->pad_right, 1) >= 16);
}

/* Portable direct conv (group 1, no dilation, any stride and pads): no
 * packing and no scratch. NOT chosen by ln_rt_conv2d_f32 yet: sending the
 * direct shapes to it on every ISA (scratch 0) cut ResNet-8's arena from
 * 352 to 197 KB but cost +47% Cortex-M4 instructions (65.0M vs 44.2M) and
 * 2.5x on 1x1 convs; it needs Cortex-M tuning (vldm-friendly weight reads,
 * more pixels per tile) first. Tested against the reference. Register tile: 4 output channels x
 * 4 output pixels of one row (16 accumulators, 4 weights, 4 inputs: fits
 * the M4's 32 single-precision registers); input rows outside the image are
 * skipped per output row, and tiles whose taps all fall inside the row read
 * without bounds checks. The output channel tail computes duplicate rows
 * that are not stored. */
void ln_rt__conv2d_direct_f32_c(const ln_rt_conv2d_args *a, const float *src,
                                const float *weight, const float *bias,
                                float *dst)
{
    const int32_t oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h,
                                           a->pad_top, a->pad_bottom, 1);
    const int32_t ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w,
                                           a->pad_left, a->pad_right, 1);
    const int32_t H = a->h, W = a->w, kh = a->kh, kw = a->kw;
    const int32_t sh = a->stride_h, sw = a->stride_w, C = a->c;
    const int32_t khw = kh * kw, kk = C * khw;
    const size_t hw = (size_t)H * W, ohw = (size_t)oh * ow;
    int32_t b, o0, oy, ox0, ci, ky, kx, r;

    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * C * hw;
        float *out = dst + (size_t)b * a->oc * ohw;
        for (o0 = 0; o0 < a->oc; o0 += 4) {
            const int mv = a->oc - o0 < 4 ? (int)(a->oc - o0) : 4;
            const float *w0 = weight + (size_t)o0 * kk;
            const float *w1 = weight + (size_t)(o0 + (mv > 1)) * kk;
            const float *w2 = weight + (size_t)(o0 + (mv > 2 ? 2 : 0)) * kk;
            const float *w3 = weight + (size_t)(o0 + (mv > 3 ? 3 : 0)) * kk;
            for (oy = 0; oy < oh; oy++) {
                const int32_t iy0 = oy * sh - a->pad_top;
                const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
                const int32_t ky1 = H - iy0 < kh ? H - iy0 : kh;
                for (ox0 = 0; ox0 < ow; ox0 += 4) {
                    const int32_t nx = ow - ox0 < 4 ? ow - ox0 : 4;
                    const int32_t ix0 = ox0 * sw - a->pad_left;
                    const int inner = nx == 4 && ix0 >= 0 &&
                                      ix0 + 3 * sw + kw - 1 < W;
                    float c00 = 0, c01 = 0, c02 = 0, c03 = 0;
                    float c10 = 0, c11 = 0, c12 = 0, c13 = 0;
                    float c20 = 0, c21 = 0, c22 = 0, c23 = 0;
                    float c30 = 0, c31 = 0, c32 = 0, c33 = 0;
                    float *op;
#define DC_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)                              \
    c00 += a0 * x0; c01 += a0 * x1; c02 += a0 * x2; c03 += a0 * x3;          \
    c10 += a1 * x0; c11 += a1 * x1; c12 += a1 * x2; c13 += a1 * x3;          \
    c20 += a2 * x0; c21 += a2 * x1; c22 += a2 * x2; c23 += a2 * x3;          \
    c30 += a3 * x0; c31 += a3 * x1; c32 += a3 * x2; c33 += a3 * x3;
                    for (ci = 0; ci < C; ci++) {
                        for (ky = ky0; ky < ky1; ky++) {
                            const float *row = img + (size_t)ci * hw +
                                               (size_t)(iy0 + ky) * W;
                            const int32_t t = ci * khw + ky * kw;
                            const float *q0 = w0 + t, *q1 = w1 + t;
                            const float *q2 = w2 + t, *q3 = w3 + t;
                            if (inner) { /* no bounds checks */
                                const float *p = row + ix0;
                                for (kx = 0; kx < kw; kx++, p++) {
                                    const float a0 = q0[kx], a1 = q1[kx];
                                    const float a2 = q2[kx], a3 = q3[kx];
                                    const float x0 = p[0], x1 = p[sw];
                                    const float x2 = p[2 * sw];
                                    const float x3 = p[3 * sw];
                                    DC_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)
                                }
                                continue;
                            }
                            for (kx = 0; kx < kw; kx++) {
                                const float a0 = q0[kx], a1 = q1[kx];
                                const float a2 = q2[kx], a3 = q3[kx];
                                float xv[4], x0, x1, x2, x3;
                                int j;
                                for (j = 0; j < 4; j++) {
                                    const int32_t ix = ix0 + j * sw + kx;
                                    xv[j] = j < nx && ix >= 0 && ix < W
                                                ? row[ix]
                                                : 0.0f;
                                }
                                x0 = xv[0]; x1 = xv[1];
                                x2 = xv[2]; x3 = xv[3];
                                DC_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)
                            }
                        }
                    }
#undef DC_FMA16
                    {
                        const float cv[4][4] = {{c00, c01, c02, c03},
                                                {c10, c11, c12, c13},
                                                {c20, c21, c22, c23},
                                                {c30, c31, c32, c33}};
                        int j;
                        for (r = 0; r < mv; r++) {
                            const float bv = bias ? bias[o0 + r] : 0.0f;
                            op = out + (size_t)(o0 + r) * ohw +
                                 (size_t)oy * ow + ox0;
                            for (j = 0; j < nx; j++)
                                op[j] = cv[r][j] + bv;
                        }
                    }
                }
                for (r = 0; r < mv; r++)
                    ln_rt__act_f32(out + (size_t)(o0 + r) * ohw +
                                       (size_t)oy * ow,
                                   (size_t)ow, a->act, a->alpha, a->beta);
            }
        }
    }
}

/* The GEMM path for output rows [oy0, oy1) of one image (img [c][h][w]):
 * output channel o's row oy to out + o * plane + (oy - oy0) * ow, a
 * column range of the whole image's patch matrix (the same k blocks and
 * order, so the same sums: ln_rt_conv2d_maxpool_f32's rows are the whole
 * image's); accumulate: out already holds an addend (the residual
 * epilogue). The weights are A, read in place; 1x1 stride-1 unpadded
 * convs read the image in place as B unless conv_b_in_place says packing
 * pays. */
static void conv_gemm_rows(const ln_rt__gemm_isa *isa,
                           const ln_rt_conv2d_args *a, const float *img,
                           const float *weight, const float *bias,
                           float *out, size_t plane, int32_t oy0,
                           int32_t oy1, int accumulate, void *scratch)
{
    const int32_t cg = a->c / a->group, mg = a->oc / a->group;
    const int32_t kk = cg * a->kh * a->kw;
    int32_t oh, ow, g;
    ln_rt__mat am;
    conv_bctx bc;
    ln_rt__gemm_src s;

    ln_rt__conv_out_hw(a, &oh, &ow);
    (void)oh;
    am.ld = kk; am.trans = 0; am.scale = 1.0f;
    bc.h = a->h; bc.w = a->w; bc.kh = a->kh; bc.kw = a->kw;
    bc.sh = a->stride_h; bc.sw = a->stride_w; bc.pt = a->pad_top;
    bc.pl = a->pad_left; bc.dh = a->dil_h; bc.dw = a->dil_w; bc.ow = ow;
    bc.oyb = oy0;
    s.pack_a = ln_rt__pack_a_mat; s.actx = &am;
    s.pack_b = a->stride_w == 2 && ow >= 16 ? pack_b_conv_s2 : pack_b_conv;
    s.bctx = &bc; s.b_rowmajor = 1;
    s.b_direct = NULL; s.b_ld = 0;
    s.a_ld = kk;
    for (g = 0; g < a->group; g++) {
        am.p = weight + (size_t)g * mg * kk;
        s.a_direct = am.p;
        bc.img = img + (size_t)g * cg * a->h * a->w;
        if (conv_b_in_place(a)) {
            /* output pixel p is input pixel p */
            s.b_direct = bc.img + (size_t)oy0 * a->w;
            s.b_ld = a->h * a->w;
        }
        ln_rt__gemm_run(isa, &s, mg, (oy1 - oy0) * ow, kk,
                        out + (size_t)g * mg * plane, (int32_t)plane,
                        accumulate, bias ? bias + g * mg : NULL, a->act,
                        a->alpha, a->beta, scratch);
    }
}

#if !LN_RT_TARGET_IS_CORTEX_M4
void ln_rt__conv2d_gemm_rows_f32(const ln_rt_conv2d_args *a, const float *img,
                                 const float *weight, const float *bias,
                                 float *out, size_t plane, int32_t oy0,
                                 int32_t oy1, void *scratch)
{
    conv_gemm_rows(ln_rt__gemm_isa_default(), a, img, weight, bias, out,
                   plane, oy0, oy1, 0, scratch);
}
#endif

static int conv_gemm(const ln_rt__gemm_isa *isa, const ln_rt_conv2d_args *a,
                     const float *src, const float *weight,
                     const float *bias, float *dst, void *scratch,
                     int accumulate)
{
    int32_t oh, ow, b;

    if (!ln_rt__conv_args_ok(a))
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0 || a->n == 0)
        return LN_RT_OK;
    for (b = 0; b < a->n; b++)
        conv_gemm_rows(isa, a, src + (size_t)b * a->c * a->h * a->w, weight,
                       bias, dst + (size_t)b * a->oc * oh * ow,
                       (size_t)oh * ow, 0, oh, accumulate, scratch);
    return LN_RT_OK;
}

int ln_rt__conv2d_gemm_f32_isa(const ln_rt__gemm_isa *isa,
                               const ln_rt_conv2d_args *a, const float *src,
                               const float *weight, const float *bias,
                               float *dst, void *scratch)
{
    return conv_gemm(isa, a, src, weight, bias, dst, scratch, 0);
}

int ln_rt__conv2d_f32_isa(const ln_rt__gemm_isa *isa,
                          const ln_rt_conv2d_args *a, const float *src,
                          const float *weight, const float *bias, float *dst,
                          void *scratch)
{
    int32_t oh, ow;

    if (!ln_rt__conv_args_ok(a))
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0 || a->n == 0)
        return LN_RT_OK;
    /* depthwise shapes reach here only from hand-written IR (the
     * compiler gives them to conv2d_dw_cpu): the GEMM path handles groups */
#if LN_RT_HAVE_AVX512
    /* stride 2 (or 1) with 1-4 input channels (RGB first convs), rows of
     * >= 16 outputs: x86/conv2d_s2few_avx512.c, before the GEMM (bench/kernels,
     * Intel Xeon, best of 5 alternated: ResNet-18's 3->64 7x7 @224 1.60 ms
     * against 1.95 through the GEMM, MobileNetV2's 3->32 3x3 0.20 / 0.25,
     * SqueezeNet's 3->64 3x3 no pad 0.42 / 0.44) and before the direct
     * kernel where that one takes the shape too (MobileNetV1-0.25's 3->8
     * @96; at stride 1 ResNet-8's 3->16 3x3 @32, 0.69 of the time, and
     * LeNet-5's 1->6 5x5, 0.55). It sums in the order of the kernel it
     * stands in for, the direct kernel's (ky, kx, ci) or the GEMM's (ci,
     * ky, kx), from 0 with one FMA each, + bias, so it gives that kernel's
     * bits (test_rt_conv checks) */
    if (isa == &ln_rt__gemm_isa_avx512 && ln_rt__conv2d_s2few_ok(a) &&
        ln_rt__conv2d_s2few_f32_avx512(a, src, weight, bias, NULL, dst))
        return LN_RT_OK;
    if (isa == &ln_rt__gemm_isa_avx512 && ln_rt__conv2d_direct_ok(a) &&
        ln_rt__conv2d_direct_f32_avx512(a, src, weight, bias, dst))
        return LN_RT_OK;
#endif
    return ln_rt__conv2d_gemm_f32_isa(isa, a, src, weight, bias, dst,
                                      scratch);
}

int ln_rt_conv2d_f32(const ln_rt_conv2d_args *a, const float *src,
                     const float *weight, const float *bias, float *dst,
                     void *scratch)
{
#if LN_RT_TARGET_IS_CORTEX_M4
    return ln_rt_conv2d_f32_for(LN_RT_TARGET_CORTEX_M4, a, src, weight, bias,
                                dst, scratch);
#else
    return ln_rt__conv2d_f32_isa(ln_rt__gemm_isa_default(), a, src, weight,
                                 bias, dst, scratch);
#endif
}

/* ---- a conv and the max pool that alone reads it --------------------- */
/* pool output rows per band: CP_BAND (the band buffer then holds the conv
 * rows of 4 pool rows: 9 rows of a 3x3 stride-2 pool, 256 KB for the
 * ImageNet stems' 64 x 111 / 112), or as many more as fit in
 * CP_BAND_BYTES where the conv's rows are narrow -- a small map is then
 * one band, the conv's whole output, pooled in one call: LeNet-5's 1->6
 * 5x5 @28 + 2x2 pool took 5.5-7.1 us in three bands (a first-conv call
 * and 6 pool calls each) against 4 us for the unfused pair */
#define CP_BAND 4
#define CP_BAND_BYTES (256u << 10)

static int32_t cp_band_prows(const ln_rt_conv2d_args *a,
                             const ln_rt_pool2d_args *p)
{
    const size_t row = (size_t)a->oc * p->stride_h * p->w * sizeof(float);
    size_t n = row ? CP_BAND_BYTES / row : CP_BAND;
    if (n < CP_BAND)
        n = CP_BAND;
    return n < (size_t)p->oh ? (int32_t)n : p->oh;
}

/* conv rows in a band: those of its pool rows' windows, at most the
 * conv's rows (p->h) */
static int32_t cp_band_rows(const ln_rt_conv2d_args *a,
                            const ln_rt_pool2d_args *p)
{
    const int32_t r = (cp_band_prows(a, p) - 1) * p->stride_h + p->kh;
    return r < p->h ? r : p->h;
}

static size_t cp_band_floats(const ln_rt_conv2d_args *a,
                             const ln_rt_pool2d_args *p)
{
    return ((size_t)a->oc * cp_band_rows(a, p) * p->w + 15) / 16 * 16;
}

/* the first-conv kernel's shape: it, not the direct kernel, runs it on
 * AVX-512 (the M4 library has no x86 sources, nor this op's models) */
static int cp_s2few_ok(const ln_rt_conv2d_args *a)
{
#if LN_RT_TARGET_IS_CORTEX_M4
    (void)a;
    return 0;
#else
    return ln_rt__conv2d_s2few_ok(a);
#endif
}

int ln_rt_conv2d_maxpool_ok(const ln_rt_conv2d_args *a,
                            const ln_rt_pool2d_args *p)
{
    int32_t oh, ow;
    if (!ln_rt__conv_args_ok(a) || !ln_rt__pool_args_ok(p))
        return 0;
    ln_rt__conv_out_hw(a, &oh, &ow);
    /* ReLU: every conv output is +0 or more, no NaN, so any order of the
     * maxima gives the pool's bits; the conv ln_rt_conv2d_f32 runs through
     * the first-conv kernel (first where it takes the shape) or the GEMM,
     * which make rows alike (the direct kernel does not) */
    return a->act == LN_RT_ACT_RELU &&
           (!ln_rt__conv2d_direct_ok(a) || cp_s2few_ok(a)) &&
           p->n == a->n && p->c == a->oc && p->h == oh && p->w == ow &&
           p->dil_h == 1 && p->dil_w == 1 && oh > 0 && ow > 0 &&
           p->oh > 0 && p->ow > 0 && p->pad_top < p->kh &&
           p->pad_bottom < p->kh && p->pad_left < p->kw &&
           p->pad_right < p->kw &&
           (p->oh - 1) * p->stride_h - p->pad_top < oh &&
           (p->ow - 1) * p->stride_w - p->pad_left < ow;
}

size_t ln_rt_conv2d_maxpool_f32_scratch_size(const ln_rt_conv2d_args *a,
                                             const ln_rt_pool2d_args *p)
{
    if (!ln_rt_conv2d_maxpool_ok(a, p))
        return 0;
    /* the band, the GEMM's blocks */
    return cp_band_floats(a, p) * sizeof(float) + host_scratch_size(a);
}

/* pool output rows [py0, py1) of one image from the band, which holds
 * the conv rows [r0, r1) every window of those rows reads of the image
 * (row r of channel o at band + o * bplane + (r - r0) * w): the pool
 * kernel on each channel's rows as an image of their own, the windows
 * clipped where the image's are (its pads, a band's edge inside the
 * image never: the band has every row they read) */
static void cp_pool_rows(const ln_rt_pool2d_args *p, const float *band,
                         size_t bplane, int32_t r0, int32_t r1, int32_t py0,
                         int32_t py1, float *out)
{
    const int32_t y0 = py0 * p->stride_h - p->pad_top;
    const int32_t ye = (py1 - 1) * p->stride_h - p->pad_top + p->kh;
    ln_rt_pool2d_args q = *p;
    int32_t o;
    q.n = 1;
    if (r0 == 0 && r1 == p->h && py0 == 0 && py1 == p->oh &&
        bplane == (size_t)p->h * p->w) {
        /* the band is the image's whole conv output: the pair's pool */
        (void)ln_rt_maxpool2d_f32(&q, band, out);
        return;
    }
    q.c = 1;
    q.h = r1 - r0;
    q.oh = py1 - py0;
    q.pad_top = r0 - y0;
    q.pad_bottom = ye > r1 ? ye - r1 : 0;
    for (o = 0; o < p->c; o++)
        (void)ln_rt_maxpool2d_f32(&q, band + (size_t)o * bplane,
                                  out + (size_t)o * p->oh * p->ow +
                                      (size_t)py0 * p->ow);
}

int ln_rt_conv2d_maxpool_f32(const ln_rt_conv2d_args *a,
                             const ln_rt_pool2d_args *p, const float *src,
                             const float *weight, const float *bias,
                             float *dst, void *scratch)
{
    const ln_rt__gemm_isa *isa = ln_rt__gemm_isa_default();
    const size_t bplane = (size_t)cp_band_rows(a, p) * p->w;
    const int32_t nb = cp_band_prows(a, p);
    float *band = scratch, *cs;
    int32_t oh, ow, b;

    if (!ln_rt_conv2d_maxpool_ok(a, p) || !scratch)
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(a, &oh, &ow);
    cs = band + cp_band_floats(a, p);
    for (b = 0; b < a->n; b++) {
        const float *img = src + (size_t)b * a->c * a->h * a->w;
        float *out = dst + (size_t)b * p->c * p->oh * p->ow;
        int32_t b0 = 0, b1 = 0, py0, o;
        for (py0 = 0; py0 < p->oh; py0 += nb) {
            const int32_t py1 = p->oh - py0 < nb ? p->oh : py0 + nb;
            int32_t r0 = py0 * p->stride_h - p->pad_top;
            int32_t r1 = (py1 - 1) * p->stride_h - p->pad_top + p->kh, k0;
            r0 = r0 < 0 ? 0 : r0;
            r1 = r1 > oh ? oh : r1;
            if (r1 < r0)
                r1 = r0;
            /* rows [r0, b1) are in the band already: to its front */
            if (r0 < b1 && r0 > b0)
                for (o = 0; o < a->oc; o++)
                    memmove(band + (size_t)o * bplane,
                            band + (size_t)o * bplane + (size_t)(r0 - b0) * ow,
                            (size_t)(b1 - r0) * ow * sizeof(float));
            k0 = r0 < b1 ? b1 : r0;
            if (r1 > k0) {
                float *bo = band + (size_t)(k0 - r0) * ow;
#if LN_RT_HAVE_AVX512
                if (!(isa == &ln_rt__gemm_isa_avx512 &&
                      ln_rt__conv2d_s2few_rows_avx512(a, img, weight, bias, bo,
                                                      bplane, k0, r1)))
#endif
                    conv_gemm_rows(isa, a, img, weight, bias, bo, bplane, k0,
                                   r1, 0, cs);
            }
            b0 = r0;
            b1 = r1;
            if (r1 > r0)
                cp_pool_rows(p, band, bplane, r0, r1, py0, py1, out);
        }
    }
    return LN_RT_OK;
}

/* ---- the Cortex-M4 variant: direct convolution, no scratch ------------
 * What ln_rt_conv2d_f32_for(LN_RT_TARGET_CORTEX_M4, ...) runs on every
 * build (portable C; the M4 build runs it for both targets), so a plan for
 * the M4 reserves no scratch for convolutions. Register tile: 4 output
 * channels x 4 output pixels (16 accumulators, 4 weights and up to 4 + kw
 * inputs: the M4's 32 single-precision registers), one product per tap in
 * a VFMA with -ffp-contract=fast. Pointwise convs (1x1, stride 1, no pads)
 * run over the flattened image, input channels two at a time. Other convs
 * go output row by output row: the kernel rows that fall outside the image
 * are skipped; the columns whose taps all lie inside the row ("interior")
 * take the 4-pixel tile with no bounds checks, specialized for 3x3 stride
 * 1 and 2; the border columns (and what is left of the interior) one pixel
 * at a time with the taps clipped to the row. Output channel tails
 * compute duplicate rows that are not stored. Groups run per group;
 * dilation takes a plain clipped loop (slow, no model here uses it). */
typedef struct {
    const float *img;               /* the group's first input channel */
    int32_t c, h, w, kh, kw, sh, sw, pt, pl, oh, ow;
    size_t hw, ohw;
    int32_t khw, kk;                /* taps per channel, per output channel */
} m4_conv;

#define M4_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)                              \
    c00 += a0 * x0; c01 += a0 * x1; c02 += a0 * x2; c03 += a0 * x3;          \
    c10 += a1 * x0; c11 += a1 * x1; c12 += a1 * x2; c13 += a1 * x3;          \
    c20 += a2 * x0; c21 += a2 * x1; c22 += a2 * x2; c23 += a2 * x3;          \
    c30 += a3 * x0; c31 += a3 * x1; c32 += a3 * x2; c33 += a3 * x3;

#define M4_DECL16                                                             \
    float c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0,     \
          c13 = 0, c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0,     \
          c32 = 0, c33 = 0;

/* the 16 sums plus bias into rows o[0..mv) at pixel x */
#define M4_STORE16(o, bv, mv, x)                                              \
    do {                                                                      \
        float *o0_ = o[0] + (x);                                              \
        o0_[0] = c00 + bv[0]; o0_[1] = c01 + bv[0];                           \
        o0_[2] = c02 + bv[0]; o0_[3] = c03 + bv[0];                           \
        if (mv > 1) { float *o1_ = o[1] + (x);                                \
            o1_[0] = c10 + bv[1]; o1_[1] = c11 + bv[1];                       \
            o1_[2] = c12 + bv[1]; o1_[3] = c13 + bv[1]; }                     \
        if (mv > 2) { float *o2_ = o[2] + (x);                                \
            o2_[0] = c20 + bv[2]; o2_[1] = c21 + bv[2];                       \
            o2_[2] = c22 + bv[2]; o2_[3] = c23 + bv[2]; }                     \
        if (mv > 3) { float *o3_ = o[3] + (x);                                \
            o3_[0] = c30 + bv[3]; o3_[1] = c31 + bv[3];                       \
            o3_[2] = c32 + bv[3]; o3_[3] = c33 + bv[3]; }                     \
    } while (0)

/* 1x1 stride 1 without pads: [oc][c] x [c][hw], 4 x 4 tiles */
static void m4_pointwise(const m4_conv *g, const float *const *w,
                         float *const *o, const float *bv, int mv)
{
    const int32_t C = g->c, n = (int32_t)g->hw;
    const size_t hw = g->hw;
    int32_t p, ci;

    for (p = 0; p + 4 <= n; p += 4) {
        const float *x = g->img + p;
        const float *q0 = w[0], *q1 = w[1], *q2 = w[2], *q3 = w[3];
        M4_DECL16
        for (ci = C; ci >= 2; ci -= 2) {
            const float *y = x + hw;
            float x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
            float a0 = q0[0], a1 = q1[0], a2 = q2[0], a3 = q3[0];
            M4_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)
            x0 = y[0]; x1 = y[1]; x2 = y[2]; x3 = y[3];
            a0 = q0[1]; a1 = q1[1]; a2 = q2[1]; a3 = q3[1];
            M4_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)
            x = y + hw;
            q0 += 2; q1 += 2; q2 += 2; q3 += 2;
        }
        if (ci) {
            const float x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
            const float a0 = q0[0], a1 = q1[0], a2 = q2[0], a3 = q3[0];
            M4_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)
        }
        M4_STORE16(o, bv, mv, p);
    }
    for (; p < n; p++) {
        const float *x = g->img + p;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (ci = 0; ci < C; ci++, x += g->hw) {
            s0 += w[0][ci] * x[0]; s1 += w[1][ci] * x[0];
            s2 += w[2][ci] * x[0]; s3 += w[3][ci] * x[0];
        }
        o[0][p] = s0 + bv[0];
        if (mv > 1) o[1][p] = s1 + bv[1];
        if (mv > 2) o[2][p] = s2 + bv[2];
        if (mv > 3) o[3][p] = s3 + bv[3];
    }
}

/* one output pixel of 4 channels, taps clipped to the image */
static void m4_pixel(const m4_conv *g, int32_t iy0, int32_t ky0, int32_t ky1,
                     int32_t ox, const float *const *w, float *const *o,
                     const float *bv, int mv)
{
    const int32_t ix0 = ox * g->sw - g->pl;
    const int32_t kx0 = ix0 < 0 ? -ix0 : 0;
    const int32_t kx1 = g->w - ix0 < g->kw ? g->w - ix0 : g->kw;
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int32_t ci, ky, kx;

    for (ci = 0; ci < g->c; ci++) {
        for (ky = ky0; ky < ky1; ky++) {
            const float *row = g->img + (size_t)ci * g->hw +
                               (size_t)(iy0 + ky) * g->w + ix0;
            const int32_t t = ci * g->khw + ky * g->kw;
            const float *q0 = w[0] + t, *q1 = w[1] + t;
            const float *q2 = w[2] + t, *q3 = w[3] + t;
            for (kx = kx0; kx < kx1; kx++) {
                const float x = row[kx];
                s0 += q0[kx] * x; s1 += q1[kx] * x;
                s2 += q2[kx] * x; s3 += q3[kx] * x;
            }
        }
    }
    o[0][ox] = s0 + bv[0];
    if (mv > 1) o[1][ox] = s1 + bv[1];
    if (mv > 2) o[2][ox] = s2 + bv[2];
    if (mv > 3) o[3][ox] = s3 + bv[3];
}

/* 4 interior pixels from ox of 4 channels: every tap inside the row.
 * KW and SW are constants where the caller specializes. */
#define M4_TILE(NAME, KW, SW)                                                 \
static void NAME(const m4_conv *g, int32_t iy0, int32_t ky0, int32_t ky1,     \
                 int32_t ox, const float *const *w, float *const *o,          \
                 const float *bv, int mv)                                     \
{                                                                             \
    const int32_t kw_ = (KW), sw_ = (SW);                                     \
    const float *base = g->img + (size_t)iy0 * g->w + ox * sw_ - g->pl;       \
    int32_t ci, ky, kx;                                                       \
    M4_DECL16                                                                 \
    for (ci = 0; ci < g->c; ci++) {                                           \
        const float *rowc = base + (size_t)ci * g->hw;                        \
        const int32_t tc = ci * g->khw;                                       \
        for (ky = ky0; ky < ky1; ky++) {                                      \
            const float *p = rowc + (size_t)ky * g->w;                        \
            const int32_t t = tc + ky * kw_;                                  \
            const float *q0 = w[0] + t, *q1 = w[1] + t;                       \
            const float *q2 = w[2] + t, *q3 = w[3] + t;                       \
            for (kx = 0; kx < kw_; kx++, p++) {                               \
                const float a0 = q0[kx], a1 = q1[kx];                         \
                const float a2 = q2[kx], a3 = q3[kx];                         \
                const float x0 = p[0], x1 = p[sw_];                           \
                const float x2 = p[2 * sw_], x3 = p[3 * sw_];                 \
                M4_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)                      \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    M4_STORE16(o, bv, mv, ox);                                                \
}

M4_TILE(m4_tile_any, g->kw, g->sw)

/* 3x3, stride SW: each kernel row's 3 * SW + 3 inputs are loaded once
 * and feed its three taps; EDGE tiles (reaching into the pads) read a zero
 * for an input outside the row. */
#define M4_X(j) (edge_ ? ((uint32_t)(ix0 + (j)) < (uint32_t)W ? p[(j)] : 0.0f) \
                       : p[(j)])
#define M4_TILE3(NAME, SW, EDGE)                                              \
static void NAME(const m4_conv *g, int32_t iy0, int32_t ky0, int32_t ky1,     \
                 int32_t ox, const float *const *w, float *const *o,          \
                 const float *bv, int mv)                                     \
{                                                                             \
    const int32_t ix0 = ox * (SW) - g->pl, W = g->w;                          \
    const int edge_ = (EDGE);                                                 \
    const float *q0 = w[0], *q1 = w[1], *q2 = w[2], *q3 = w[3];               \
    int32_t ci, ky;                                                           \
    M4_DECL16                                                                 \
    for (ci = 0; ci < g->c; ci++) {                                           \
        const float *rowc = g->img + (size_t)ci * g->hw +                     \
                            (ptrdiff_t)iy0 * W;                               \
        for (ky = ky0; ky < ky1; ky++) {                                      \
            const float *p = rowc + (ptrdiff_t)ky * W + ix0;                  \
            const int32_t t = ky * 3;                                         \
            float x0 = M4_X(0), x1 = M4_X(1), x2 = M4_X(2), x3 = M4_X(3);     \
            float x4 = M4_X(4), x5 = M4_X(5), a0, a1, a2, a3;                 \
            if ((SW) == 1) {                                                  \
                a0 = q0[t]; a1 = q1[t]; a2 = q2[t]; a3 = q3[t];               \
                M4_FMA16(a0, a1, a2, a3, x0, x1, x2, x3)                      \
                a0 = q0[t + 1]; a1 = q1[t + 1];                               \
                a2 = q2[t + 1]; a3 = q3[t + 1];                               \
                M4_FMA16(a0, a1, a2, a3, x1, x2, x3, x4)                      \
                a0 = q0[t + 2]; a1 = q1[t + 2];                               \
                a2 = q2[t + 2]; a3 = q3[t + 2];                               \
                M4_FMA16(a0, a1, a2, a3, x2, x3, x4, x5)                      \
            } else {                                                          \
                float x6 = M4_X(6), x7 = M4_X(7), x8 = M4_X(8);               \
                a0 = q0[t]; a1 = q1[t]; a2 = q2[t]; a3 = q3[t];               \
                M4_FMA16(a0, a1, a2, a3, x0, x2, x4, x6)                      \
                a0 = q0[t + 1]; a1 = q1[t + 1];                               \
                a2 = q2[t + 1]; a3 = q3[t + 1];                               \
                M4_FMA16(a0, a1, a2, a3, x1, x3, x5, x7)                      \
                a0 = q0[t + 2]; a1 = q1[t + 2];                               \
                a2 = q2[t + 2]; a3 = q3[t + 2];                               \
                M4_FMA16(a0, a1, a2, a3, x2, x4, x6, x8)                      \
            }                                                                 \
        }                                                                     \
        q0 += 9; q1 += 9; q2 += 9; q3 += 9;                                   \
    }                                                                         \
    M4_STORE16(o, bv, mv, ox);                                                \
}

M4_TILE3(m4_tile_3s1, 1, 0)
M4_TILE3(m4_tile_3s1_edge, 1, 1)
M4_TILE3(m4_tile_3s2, 2, 0)
M4_TILE3(m4_tile_3s2_edge, 2, 1)

typedef void (*m4_tile_fn)(const m4_conv *, int32_t, int32_t, int32_t,
                           int32_t, const float *const *, float *const *,
                           const float *, int);

/* rows of 4 output channels, dilation 1 */
static void m4_rows(const m4_conv *g, const float *const *w, float *const *o,
                    const float *bv, int mv)
{
    const int k3 = g->kw == 3 && g->kh == 3 && (g->sw == 1 || g->sw == 2);
    const m4_tile_fn tile = k3 && g->sw == 1 ? m4_tile_3s1
                          : k3 ? m4_tile_3s2 : m4_tile_any;
    const m4_tile_fn edge = g->sw == 1 ? m4_tile_3s1_edge : m4_tile_3s2_edge;
    /* interior columns: 0 <= ox * sw - pl and ox * sw - pl + kw <= w */
    const int32_t xi0 = (g->pl + g->sw - 1) / g->sw;
    int32_t xi1 = g->w - g->kw + g->pl < 0 ? 0
                  : (g->w - g->kw + g->pl) / g->sw + 1;
    int32_t oy, ox;

    if (xi1 > g->ow)
        xi1 = g->ow;
    for (oy = 0; oy < g->oh; oy++) {
        const int32_t iy0 = oy * g->sh - g->pt;
        const int32_t ky0 = iy0 < 0 ? -iy0 : 0;
        const int32_t ky1 = g->h - iy0 < g->kh ? g->h - iy0 : g->kh;
        float *orow[4];
        int r;
        for (r = 0; r < 4; r++)
            orow[r] = o[r] + (size_t)oy * g->ow;
        ox = 0;
        if (k3) { /* 3x3: tiles from the left edge on, edges checked */
            for (; ox + 4 <= g->ow; ox += 4)
                (ox >= xi0 && ox + 4 <= xi1 ? tile : edge)(
                    g, iy0, ky0, ky1, ox, w, orow, bv, mv);
        } else {
            for (; ox < xi0 && ox < g->ow; ox++)
                m4_pixel(g, iy0, ky0, ky1, ox, w, orow, bv, mv);
            for (; ox + 4 <= xi1; ox += 4)
                tile(g, iy0, ky0, ky1, ox, w, orow, bv, mv);
        }
        for (; ox < g->ow; ox++)
            m4_pixel(g, iy0, ky0, ky1, ox, w, orow, bv, mv);
    }
}

/* dilated: one output at a time, taps bounds-checked */
static void m4_dilated(const ln_rt_conv2d_args *a, const m4_conv *g,
                       const float *const *w, float *const *o,
                       const float *bv, int mv)
{
    int32_t oy, ox, ci, ky, kx;
    int r;
    for (oy = 0; oy < g->oh; oy++)
        for (ox = 0; ox < g->ow; ox++)
            for (r = 0; r < mv; r++) {
                float s = 0;
                for (ci = 0; ci < g->c; ci++)
                    for (ky = 0; ky < g->kh; ky++) {
                        const int32_t iy = oy * g->sh - g->pt + ky * a->dil_h;
                        if (iy < 0 || iy >= g->h)
                            continue;
                        for (kx = 0; kx < g->kw; kx++) {
                            const int32_t ix = ox * g->sw - g->pl + kx * a->dil_w;
                            if (ix >= 0 && ix < g->w)
                                s += w[r][ci * g->khw + ky * g->kw + kx] *
                                     g->img[(size_t)ci * g->hw +
                                            (size_t)iy * g->w + ix];
                        }
                    }
                o[r][(size_t)oy * g->ow + ox] = s + bv[r];
            }
}

void ln_rt__conv2d_f32_m4(const ln_rt_conv2d_args *a, const float *src,
                          const float *weight, const float *bias, float *dst)
{
    const int32_t cg = a->c / a->group, mg = a->oc / a->group;
    const int pointwise = conv_is_pointwise(a);
    const int dilated = a->dil_h != 1 || a->dil_w != 1;
    m4_conv g;
    int32_t b, gi, o0;

    g.c = cg; g.h = a->h; g.w = a->w; g.kh = a->kh; g.kw = a->kw;
    g.sh = a->stride_h; g.sw = a->stride_w; g.pt = a->pad_top;
    g.pl = a->pad_left;
    g.oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top,
                               a->pad_bottom, a->dil_h);
    g.ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left,
                               a->pad_right, a->dil_w);
    g.hw = (size_t)a->h * a->w;
    g.ohw = (size_t)g.oh * g.ow;
    g.khw = a->kh * a->kw;
    g.kk = cg * g.khw;
    for (b = 0; b < a->n; b++) {
        for (gi = 0; gi < a->group; gi++) {
            g.img = src + ((size_t)b * a->c + (size_t)gi * cg) * g.hw;
            for (o0 = 0; o0 < mg; o0 += 4) {
                const int mv = mg - o0 < 4 ? (int)(mg - o0) : 4;
                const int32_t oc0 = gi * mg + o0;
                const float *w[4];
                float *o[4], bv[4];
                int r;
                for (r = 0; r < 4; r++) {
                    const int32_t oc = oc0 + (r < mv ? r : 0);
                    w[r] = weight + (size_t)oc * g.kk;
                    o[r] = dst + ((size_t)b * a->oc + oc) * g.ohw;
                    bv[r] = bias ? bias[oc] : 0.0f;
                }
                if (pointwise)
                    m4_pointwise(&g, w, o, bv, mv);
                else if (dilated)
                    m4_dilated(a, &g, w, o, bv, mv);
                else
                    m4_rows(&g, w, o, bv, mv);
                if (a->act != LN_RT_ACT_NONE)
                    for (r = 0; r < mv; r++)
                        ln_rt__act_f32(o[r], g.ohw, a->act, a->alpha, a->beta);
            }
        }
    }
}

/* The M4 variant needs none; so a Cortex-M4 build may run it for a plan
 * made for either target. */
size_t ln_rt_conv2d_f32_scratch_size_for(ln_rt_target t,
                                         const ln_rt_conv2d_args *a)
{
    if (t == LN_RT_TARGET_CORTEX_M4)
        return 0;
    return host_scratch_size(a);
}

size_t ln_rt_conv2d_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    return ln_rt_conv2d_f32_scratch_size_for(LN_RT_TARGET_THIS, a);
}

int ln_rt_conv2d_f32_for(ln_rt_target t, const ln_rt_conv2d_args *a,
                         const float *src, const float *weight,
                         const float *bias, float *dst, void *scratch)
{
    if (!ln_rt__conv_args_ok(a))
        return LN_RT_ARG_ERROR;
#if LN_RT_TARGET_IS_CORTEX_M4
    (void)t; /* the M4 variant needs no scratch: right for every plan */
#else
    if (t != LN_RT_TARGET_CORTEX_M4)
        return ln_rt_conv2d_f32(a, src, weight, bias, dst, scratch);
#endif
    (void)scratch;
    ln_rt__conv2d_f32_m4(a, src, weight, bias, dst);
    return LN_RT_OK;
}

/* ---- residual epilogue: dst = act(conv(src) + bias + res) --------------
 * res has dst's shape and is dst itself or does not overlap it. The
 * AVX-512 direct kernel adds res in its store epilogue; the GEMM path
 * starts C as res (a copy unless res is dst) and accumulates into it (the
 * micro-kernels' "C += " on the first k block), bias and activation on the
 * last; the Cortex-M4 variant adds res and applies the activation in one
 * pass after the conv (no scratch there to start C in). */
int ln_rt__conv2d_res_f32_isa(const ln_rt__gemm_isa *isa,
                              const ln_rt_conv2d_args *a, const float *src,
                              const float *weight, const float *bias,
                              const float *res, float *dst, void *scratch)
{
    int32_t oh, ow;

    if (!ln_rt__conv_args_ok(a) || !res)
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0 || a->n == 0)
        return LN_RT_OK;
#if LN_RT_HAVE_AVX512
    /* not the stride-2 few-channel kernel: the GEMM starts its sums from
     * res, that kernel adds res after the bias, so the bits would differ
     * from the plain GEMM path's (and no network adds a residual to its
     * RGB first conv) */
    if (isa == &ln_rt__gemm_isa_avx512 && ln_rt__conv2d_direct_ok(a) &&
        ln_rt__conv2d_direct_res_f32_avx512(a, src, weight, bias, res, dst))
        return LN_RT_OK;
#endif
    if (res != dst)
        memcpy(dst, res, (size_t)a->n * a->oc * oh * ow * sizeof(float));
    return conv_gemm(isa, a, src, weight, bias, dst, scratch, 1);
}

int ln_rt_conv2d_res_f32_for(ln_rt_target t, const ln_rt_conv2d_args *a,
                             const float *src, const float *weight,
                             const float *bias, const float *res, float *dst,
                             void *scratch)
{
    ln_rt_conv2d_args na;
    int32_t oh, ow;
    size_t i, n;

    if (!ln_rt__conv_args_ok(a) || !res)
        return LN_RT_ARG_ERROR;
#if LN_RT_TARGET_IS_CORTEX_M4
    (void)t;
#else
    if (t != LN_RT_TARGET_CORTEX_M4)
        return ln_rt__conv2d_res_f32_isa(ln_rt__gemm_isa_default(), a, src,
                                         weight, bias, res, dst, scratch);
#endif
    (void)scratch;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0)
        return LN_RT_OK;
    n = (size_t)a->n * a->oc * oh * ow;
    if (res == dst) { /* the conv would overwrite res: no way to add it */
        return LN_RT_ARG_ERROR;
    }
    na = *a;
    na.act = LN_RT_ACT_NONE;
    ln_rt__conv2d_f32_m4(&na, src, weight, bias, dst);
    for (i = 0; i < n; i++)
        dst[i] += res[i];
    ln_rt__act_f32(dst, n, a->act, a->alpha, a->beta);
    return LN_RT_OK;
}

/* ---- input channels scaled (squeeze-excitation) ------------------------
 * conv(src * scale) = conv with w[o][c][k] * scale[c]: the weights are
 * scaled into scratch (its first bytes, rounded up to 64) for each image,
 * then the plain conv of that image runs on the rest of the scratch. */
static size_t scaled_w_bytes(const ln_rt_conv2d_args *a)
{
    return ((size_t)a->oc * a->c * a->kh * a->kw * sizeof(float) + 63) & ~(size_t)63;
}

size_t ln_rt_conv2d_scaled_f32_scratch_size(const ln_rt_conv2d_args *a)
{
    ln_rt_conv2d_args one = *a;
    one.n = 1;
    return scaled_w_bytes(a) + ln_rt_conv2d_f32_scratch_size(&one);
}

int ln_rt_conv2d_scaled_f32(const ln_rt_conv2d_args *a, const float *src,
                            const float *scale, const float *weight,
                            const float *bias, const float *res, float *dst,
                            void *scratch)
{
    ln_rt_conv2d_args one;
    const size_t kk = (size_t)a->kh * a->kw;
    float *ws = scratch;
    int32_t oh, ow, b, o, c;
    size_t k;
    int ret;

    if (!ln_rt__conv_args_ok(a) || a->group != 1 || !scale)
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(a, &oh, &ow);
    if (oh <= 0 || ow <= 0 || a->n == 0)
        return LN_RT_OK;
    one = *a;
    one.n = 1;
    for (b = 0; b < a->n; b++) {
        const float *sc = scale + (size_t)b * a->c;
        for (o = 0; o < a->oc; o++)
            for (c = 0; c < a->c; c++) {
                const float *w = weight + ((size_t)o * a->c + c) * kk;
                float *wd = ws + ((size_t)o * a->c + c) * kk;
                for (k = 0; k < kk; k++)
                    wd[k] = w[k] * sc[c];
            }
        const size_t od = (size_t)b * a->oc * oh * ow;
        const float *sb = src + (size_t)b * a->c * a->h * a->w;
        void *cs = (char *)scratch + scaled_w_bytes(a);
        ret = res ? ln_rt_conv2d_res_f32_for(LN_RT_TARGET_THIS, &one, sb, ws, bias,
                                             res + od, dst + od, cs)
                  : ln_rt_conv2d_f32(&one, sb, ws, bias, dst + od, cs);
        if (ret)
            return ret;
    }
    return LN_RT_OK;
}

/* ---- transposed convolution ------------------------------------------ */
/* Per (image, group) and per block of up to NCT input pixels:
 * col[(o, ky, kx)][pixel] = W_g^T x X_g (the GEMM engine, A transposed),
 * then col2im adds each col row into the output at
 * (iy * sh - pt + ky * dh, ix * sw - pl + kx * dw). The output starts as
 * the bias; the activation runs once at the end. Scratch holds one col
 * block plus the engine's packing buffers. */
#define LN_RT_CONVT_NC LN_RT_GEMM_NC

static int convt_args_ok(const ln_rt_conv_transpose2d_args *a)
{
    return a->n >= 0 && a->c > 0 && a->oc > 0 && a->group > 0 &&
           a->c % a->group == 0 && a->oc % a->group == 0 && a->kh > 0 &&
           a->kw > 0 && a->stride_h > 0 && a->stride_w > 0 &&
           a->dil_h > 0 && a->dil_w > 0 && a->oh >= 0 && a->ow >= 0 &&
           a->h >= 0 && a->w >= 0;
}

size_t ln_rt_conv_transpose2d_f32_scratch_size(
    const ln_rt_conv_transpose2d_args *a)
{
    int32_t m, nb, hw;
    if (!convt_args_ok(a))
        return 0;
    m = a->oc / a->group * a->kh * a->kw;
    hw = a->h * a->w;
    nb = hw < LN_RT_CONVT_NC ? hw : LN_RT_CONVT_NC;
    if (nb <= 0)
        return 0;
    return ((size_t)m * nb +
            ln_rt__gemm_scratch_floats(m, nb, a->c / a->group, 0, 0)) *
           sizeof(float);
}

int ln_rt_conv_transpose2d_f32(const ln_rt_conv_transpose2d_args *a,
                               const float *src, const float *weight,
                               const float *bias, float *dst, void *scratch)
{
    const ln_rt__gemm_isa *isa = ln_rt__gemm_isa_default();
    int32_t cg, mg, m, hw, b, g, o, j0, nb, i;
    size_t ohw;
    float *col = scratch, *gs;
    ln_rt__mat am, bm;
    ln_rt__gemm_src s;

    if (!convt_args_ok(a))
        return LN_RT_ARG_ERROR;
    cg = a->c / a->group;
    mg = a->oc / a->group;
    m = mg * a->kh * a->kw;
    hw = a->h * a->w;
    ohw = (size_t)a->oh * a->ow;
    nb = hw < LN_RT_CONVT_NC ? hw : LN_RT_CONVT_NC;
    gs = col + (size_t)m * (nb > 0 ? nb : 0);
    am.trans = 1; am.ld = m; am.scale = 1.0f;
    bm.trans = 0; bm.ld = hw; bm.scale = 1.0f;
    memset(&s, 0, sizeof(s));
    s.pack_a = ln_rt__pack_a_mat; s.actx = &am;
    s.pack_b = ln_rt__pack_b_mat; s.bctx = &bm;
    for (b = 0; b < a->n; b++) {
        float *out = dst + (size_t)b * a->oc * ohw;
        for (o = 0; o < a->oc; o++) {
            float v = bias ? bias[o] : 0.0f;
            size_t q;
            for (q = 0; q < ohw; q++)
                out[(size_t)o * ohw + q] = v;
        }
        for (g = 0; g < a->group && hw > 0; g++) {
            am.p = weight + (size_t)g * cg * m;
            for (j0 = 0; j0 < hw; j0 += nb) {
                int32_t nc = hw - j0 < nb ? hw - j0 : nb;
                bm.p = src + ((size_t)b * a->c + (size_t)g * cg) * hw + j0;
                ln_rt__gemm_run(isa, &s, m, nc, cg, col, nc, 0, NULL,
                                LN_RT_ACT_NONE, 0.0f, 0.0f, gs);
                /* col2im: row i = (o, ky, kx), columns = pixels j0.. */
                for (i = 0; i < m; i++) {
                    int32_t ol = i / (a->kh * a->kw), r = i % (a->kh * a->kw);
                    int32_t ky = r / a->kw, kx = r % a->kw;
                    int32_t offx = kx * a->dil_w - a->pad_left;
                    float *op = out + (size_t)(g * mg + ol) * ohw;
                    const float *cr = col + (size_t)i * nc;
                    int32_t j = 0;
                    while (j < nc) {
                        int32_t pix = j0 + j, iy = pix / a->w, ix = pix % a->w;
                        int32_t len = a->w - ix < nc - j ? a->w - ix : nc - j;
                        int32_t oy = iy * a->stride_h - a->pad_top +
                                     ky * a->dil_h;
                        if (oy >= 0 && oy < a->oh) {
                            float *orow = op + (size_t)oy * a->ow;
                            int32_t x;
                            for (x = 0; x < len; x++) {
                                int32_t ox = (ix + x) * a->stride_w + offx;
                                if (ox >= 0 && ox < a->ow)
                                    orow[ox] += cr[j + x];
                            }
                        }
                        j += len;
                    }
                }
            }
        }
        ln_rt__act_f32(out, (size_t)a->oc * ohw, a->act, a->alpha, a->beta);
    }
    return LN_RT_OK;
}
