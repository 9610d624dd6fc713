/*
 * conv2d_pwdw_f32.c -- a 1x1 expand conv and the depthwise conv that alone
 * reads it, fused (the first two convs of an inverted residual block:
 * MobileNetV2, EfficientNet, MnasNet).
 *
 * Unfused, the expand writes its whole output -- MobileNetV2's 96 x 112 x
 * 112 is 4.8 MB -- and the depthwise conv reads it back, from L3 or
 * memory. Here the big tensor is never written. Two ways, by shape:
 *
 * Bands (stride-2 pairs whose expand reads a large input through the
 * GEMM path: ln_rt__conv2d_pwdw_plan): the expand runs for every channel
 * over the input rows of a band of the depthwise conv's output rows, into
 * scratch; the depthwise conv runs on that band as an image of its own
 * (its pads those of the band's edges) and writes its rows of dst (the
 * AVX-512 stride-2 kernel in place, others through scratch and a copy).
 * The rows two bands share are moved to the front of the next, not
 * computed again. The expand's input rows are read once and its output
 * stays in L2. Each half is the plain kernel's arithmetic -- the GEMM over
 * a range of the image's columns gives the whole image's sums, and every
 * depthwise kernel sums bias, then the taps in row-major order, whatever
 * the rows around -- so the bits are the unfused pair's.
 *
 * Blocks (the others; the Cortex-M4): the expand runs for a block of its
 * output channels at a time over the whole map into scratch and the
 * depthwise conv consumes the block while it is in L2. Each half is the
 * plain kernel (ln_rt_conv2d_f32 on oc = the block,
 * ln_rt_conv2d_depthwise_f32 on the block's channels), the same bits
 * wherever the expand takes the same path for a block as for all of its
 * channels. On an Intel Xeon (2 MiB L2, best of 30, one process timing
 * both) a 256 KiB block ran MobileNetV2's 16->96 @112 + 3x3 s2 depthwise
 * in 0.85x the unfused pair's time with warm caches and 0.53x with cold
 * ones. But each block reads the expand's whole input again (16 x 112 x
 * 112 is 0.8 MB): on a Zen 5 (1 MiB L2) that expand ran at 57-62% of the
 * FMA peak in its 12 blocks, 63-68% unblocked and 71-73% in bands
 * (bench/kernels).
 */
#include <string.h>
#include "ln_rt_internal.h"

/* -DPWDW_BLOCK_BYTES=... / -DPWDW_BAND_BYTES=... to try other sizes (the
 * scratch size follows them, so the compiler and the kernels must agree) */
#ifndef PWDW_BLOCK_BYTES
#define PWDW_BLOCK_BYTES (256u << 10)
#endif
/* a band's expanded rows and the depthwise conv's output rows together */
#ifndef PWDW_BAND_BYTES
#define PWDW_BAND_BYTES (512u << 10)
#endif

/* the two convs fit together: pw 1x1 stride 1 unpadded group 1, dw
 * depthwise with multiplier 1 over pw's outputs, the same images */
int ln_rt_conv2d_pwdw_ok(const ln_rt_conv2d_args *pw,
                         const ln_rt_conv2d_args *dw)
{
    return ln_rt__conv_args_ok(pw) && ln_rt__conv_args_ok(dw) &&
           pw->kh == 1 && pw->kw == 1 && pw->stride_h == 1 &&
           pw->stride_w == 1 && pw->pad_top == 0 && pw->pad_left == 0 &&
           pw->pad_bottom == 0 && pw->pad_right == 0 && pw->group == 1 &&
           dw->n == pw->n && dw->c == pw->oc && dw->oc == dw->c &&
           dw->group == dw->c && dw->h == pw->h && dw->w == pw->w;
}

/* output channels per block (see the top comment) */
static int32_t pwdw_block(const ln_rt_conv2d_args *pw)
{
    const size_t plane = (size_t)pw->h * pw->w * sizeof(float);
    size_t mb = plane ? PWDW_BLOCK_BYTES / plane / 8 * 8 : (size_t)pw->oc;
    if (mb < 8)
        mb = 8;
    return mb < (size_t)pw->oc ? (int32_t)mb : pw->oc;
}

/* the rows of dw's kernel window */
static int32_t pwdw_span(const ln_rt_conv2d_args *dw)
{
    return dw->dil_h * (dw->kh - 1) + 1;
}

/* the input rows [*r0, *r1) the depthwise output rows [oy0, oy1) read
 * (in the image: the pads outside) */
static void pwdw_band_rows(const ln_rt_conv2d_args *dw, int32_t oy0,
                           int32_t oy1, int32_t *r0, int32_t *r1)
{
    const int32_t a = oy0 * dw->stride_h - dw->pad_top;
    const int32_t b = (oy1 - 1) * dw->stride_h - dw->pad_top + pwdw_span(dw);
    *r0 = a < 0 ? 0 : a;
    *r1 = b > dw->h ? dw->h : b;
}

/* Bands: where the expand runs the GEMM path (not the AVX-512 direct
 * kernel's small maps, whose sums differ), off the M4, with pads shorter
 * than the window (a band then always reads a row of the image), where
 * the blocks would read an input larger than 2 blocks again for each
 * (beyond L2 with the block) and the depthwise conv has stride 2 (its
 * output, copied from scratch to dst, a quarter of the expanded rows); *rows
 * = the output rows of a band, as many as fit in PWDW_BAND_BYTES (at least
 * 1). Else blocks of *rows channels. In one process on a Zen 5 (1 MiB
 * L2), best of 100 alternated, 3x3 s2 pads 1, against the blocks:
 * MobileNetV2's 16->96 @112 0.84-0.86 of the time, MnasNet's 16->48 @112
 * 0.85-0.88, 32->96 @112 0.76 (with the AVX2 kernels, the band's output
 * through scratch: 0.75-0.77 and 0.76-0.79; portable C level); with
 * inputs of 0.3-0.4 MB, which stay in L2 beside a block, 24->144 @56
 * 1.01-1.03, 16->96 @56 1.06-1.07, 32->192 @28 1.09-1.12; at stride 1,
 * where the band's output goes through scratch and a copy as large as the
 * expanded rows, 16->96 @112 1.05-1.20, 24->144 @56 1.24, 32->192 @28
 * 1.46. Bands of 256 KiB and 1 MiB: 0.85-0.91, no better. */
int ln_rt__conv2d_pwdw_plan(const ln_rt_conv2d_args *pw,
                            const ln_rt_conv2d_args *dw, int32_t *rows)
{
#if !LN_RT_TARGET_IS_CORTEX_M4
    int32_t oh, ow, r;
    ln_rt__conv_out_hw(dw, &oh, &ow);
    if (!ln_rt__conv2d_direct_ok(pw) && dw->pad_top < pwdw_span(dw) &&
        dw->pad_bottom < pwdw_span(dw) && dw->stride_h == 2 &&
        dw->stride_w == 2 && oh > 0 && ow > 0 &&
        (uint64_t)pw->c * pw->h * pw->w * sizeof(float) >
            2u * PWDW_BLOCK_BYTES) {
        /* the bytes of a band of r output rows (at most r - 1 strides +
         * the window of expanded rows, and r output rows) */
        for (r = 1; r < oh; r++) {
            const int64_t er = (int64_t)r * dw->stride_h + pwdw_span(dw);
            const int64_t eb = (er < dw->h ? er : dw->h) * dw->w;
            if ((int64_t)pw->oc * (eb + (int64_t)(r + 1) * ow) *
                    (int64_t)sizeof(float) > (int64_t)PWDW_BAND_BYTES)
                break;
        }
        *rows = r;
        return 1;
    }
#else
    (void)dw;
#endif
    *rows = pwdw_block(pw);
    return 0;
}

/* the depthwise conv over a band's expanded rows [r0, r1) as an image,
 * its output rows [oy0, oy1): the band's own pads (the image's at its
 * edges, none inside) */
static void pwdw_band_dw(const ln_rt_conv2d_args *dw, int32_t oy0,
                         int32_t oy1, int32_t r0, int32_t r1,
                         ln_rt_conv2d_args *d)
{
    *d = *dw;
    d->n = 1;
    d->h = r1 - r0;
    d->pad_top = r0 - (oy0 * dw->stride_h - dw->pad_top);
    d->pad_bottom = (oy1 - oy0 - 1) * dw->stride_h + pwdw_span(dw) -
                    d->h - d->pad_top;
}

/* the band path's floats: the expanded rows of a band, its output rows
 * (64-byte multiples) */
static void pwdw_band_floats(const ln_rt_conv2d_args *pw,
                             const ln_rt_conv2d_args *dw, int32_t rows,
                             size_t *fin, size_t *fout)
{
    int32_t oh, ow, ey;
    ln_rt__conv_out_hw(dw, &oh, &ow);
    ey = (rows - 1) * dw->stride_h + pwdw_span(dw);
    ey = ey < dw->h ? ey : dw->h;
    *fin = ((size_t)pw->oc * ey * pw->w + 15) & ~(size_t)15;
    *fout = ((size_t)pw->oc * rows * ow + 15) & ~(size_t)15;
}

static void pwdw_block_args(const ln_rt_conv2d_args *pw,
                            const ln_rt_conv2d_args *dw, int32_t mb,
                            ln_rt_conv2d_args *p, ln_rt_conv2d_args *d)
{
    *p = *pw;
    *d = *dw;
    p->n = d->n = 1;
    p->oc = mb;
    d->c = d->oc = d->group = mb;
}

/* the block's planes, rounded up to 64 bytes */
static size_t pwdw_planes_bytes(const ln_rt_conv2d_args *pw)
{
    return ((size_t)pwdw_block(pw) * pw->h * pw->w * sizeof(float) + 63) &
           ~(size_t)63;
}

size_t ln_rt_conv2d_pwdw_f32_scratch_size(const ln_rt_conv2d_args *pw,
                                          const ln_rt_conv2d_args *dw)
{
    ln_rt_conv2d_args p, d;
    size_t sp, sd;
    int32_t rows;
    if (!ln_rt_conv2d_pwdw_ok(pw, dw))
        return 0;
    if (ln_rt__conv2d_pwdw_plan(pw, dw, &rows)) {
        int32_t oh, ow, oy0, r0, r1;
        size_t fin, fout;
        p = *pw;
        p.n = 1;
        sp = ln_rt_conv2d_f32_scratch_size(&p);
        ln_rt__conv_out_hw(dw, &oh, &ow);
        /* the largest depthwise scratch of any band */
        for (oy0 = 0; oy0 < oh; oy0 += rows) {
            const int32_t oy1 = oh - oy0 < rows ? oh : oy0 + rows;
            size_t s;
            pwdw_band_rows(dw, oy0, oy1, &r0, &r1);
            pwdw_band_dw(dw, oy0, oy1, r0, r1, &d);
            s = ln_rt_conv2d_depthwise_f32_scratch_size(&d);
            sp = s > sp ? s : sp;
        }
        pwdw_band_floats(pw, dw, rows, &fin, &fout);
        return (fin + fout) * sizeof(float) + sp;
    }
    pwdw_block_args(pw, dw, rows, &p, &d);
    sp = ln_rt_conv2d_f32_scratch_size(&p);
    sd = ln_rt_conv2d_depthwise_f32_scratch_size(&d);
    return pwdw_planes_bytes(pw) + (sp > sd ? sp : sd);
}

#if !LN_RT_TARGET_IS_CORTEX_M4
/* keep floats from shift on in each of m planes bold floats apart to the
 * front of planes bnew apart, in place: from the last plane down when the
 * planes grow (a plane's new place then ends before the unmoved ones
 * below start: shift + keep <= bold), from the first up when they shrink
 * (keep <= bnew) */
static void pwdw_keep(float *band, int32_t m, size_t bold, size_t bnew,
                      size_t shift, size_t keep)
{
    const int32_t step = bnew >= bold ? -1 : 1;
    int32_t o;
    for (o = step < 0 ? m - 1 : 0; o >= 0 && o < m; o += step)
        memmove(band + (size_t)o * bnew, band + (size_t)o * bold + shift,
                keep * sizeof(float));
}

/* one image in bands of rows output rows (see the top comment): the
 * band's expanded rows [r0, r1) are planes of (r1 - r0) * w floats, the
 * depthwise conv's image; those the band above computed too are moved
 * to the front, the others computed */
static int pwdw_bands(const ln_rt_conv2d_args *pw,
                      const ln_rt_conv2d_args *dw, int32_t rows,
                      const float *x, const float *pw_weight,
                      const float *pw_bias, const float *dw_weight,
                      const float *dw_bias, float *y, void *scratch)
{
    const int32_t m = pw->oc, w = pw->w;
    ln_rt_conv2d_args p = *pw;
    int32_t oh, ow, oy0, b0 = 0, b1 = 0, o;
    size_t fin, fout, bold = 0;
    float *band = scratch, *bout;
    void *ks;
    int ret;

    ln_rt__conv_out_hw(dw, &oh, &ow);
    pwdw_band_floats(pw, dw, rows, &fin, &fout);
    bout = band + fin;
    ks = bout + fout;
    p.n = 1;
    for (oy0 = 0; oy0 < oh; oy0 += rows) {
        const int32_t oy1 = oh - oy0 < rows ? oh : oy0 + rows;
        ln_rt_conv2d_args d;
        int32_t r0, r1, k0;
        size_t bnew;
        pwdw_band_rows(dw, oy0, oy1, &r0, &r1);
        bnew = (size_t)(r1 - r0) * w;
        if (r0 < b1 && (r0 > b0 || bnew != bold))
            pwdw_keep(band, m, bold, bnew, (size_t)(r0 - b0) * w,
                      (size_t)(b1 - r0) * w);
        k0 = r0 < b1 ? b1 : r0;
        if (r1 > k0)
            ln_rt__conv2d_gemm_rows_f32(&p, x, pw_weight, pw_bias,
                                        band + (size_t)(k0 - r0) * w, bnew,
                                        k0, r1, ks);
        b0 = r0;
        b1 = r1;
        bold = bnew;
        pwdw_band_dw(dw, oy0, oy1, r0, r1, &d);
        if (oy0 == 0 && oy1 == oh) { /* the whole map: in place */
            if ((ret = ln_rt_conv2d_depthwise_f32(&d, band, dw_weight,
                                                  dw_bias, y, ks)))
                return ret;
            continue;
        }
#if LN_RT_HAVE_AVX512
        /* the kernel ln_rt_conv2d_depthwise_f32 runs on this band (it
         * tries the channels kernel first) writes to y's planes */
        if (LN_RT_CPU_AVX512 && !ln_rt__conv2d_depthwise_cl_floats(&d) &&
            ln_rt__conv2d_depthwise_s2_planes_f32_avx512(
                &d, band, dw_weight, dw_bias, y + (size_t)oy0 * ow,
                (size_t)oh * ow))
            continue;
#endif
        if ((ret = ln_rt_conv2d_depthwise_f32(&d, band, dw_weight, dw_bias,
                                              bout, ks)))
            return ret;
        /* a plane's rows [oy0, oy1) are contiguous in y */
        for (o = 0; o < m; o++)
            memcpy(y + (size_t)o * oh * ow + (size_t)oy0 * ow,
                   bout + (size_t)o * (oy1 - oy0) * ow,
                   (size_t)(oy1 - oy0) * ow * sizeof(float));
    }
    return LN_RT_OK;
}
#endif

int ln_rt_conv2d_pwdw_f32(const ln_rt_conv2d_args *pw,
                          const ln_rt_conv2d_args *dw, const float *src,
                          const float *pw_weight, const float *pw_bias,
                          const float *dw_weight, const float *dw_bias,
                          float *dst, void *scratch)
{
    const int32_t m = pw->oc;
    int32_t mb, oh, ow, b, m0;
    float *planes = scratch;
    void *ks;
    int ret;

    if (!ln_rt_conv2d_pwdw_ok(pw, dw) || !scratch)
        return LN_RT_ARG_ERROR;
    ln_rt__conv_out_hw(dw, &oh, &ow);
    if (oh <= 0 || ow <= 0 || pw->n == 0)
        return LN_RT_OK;
    if (ln_rt__conv2d_pwdw_plan(pw, dw, &mb)) {
#if !LN_RT_TARGET_IS_CORTEX_M4 /* (never banded there) */
        for (b = 0; b < pw->n; b++)
            if ((ret = pwdw_bands(pw, dw, mb,
                                  src + (size_t)b * pw->c * pw->h * pw->w,
                                  pw_weight, pw_bias, dw_weight, dw_bias,
                                  dst + (size_t)b * m * oh * ow, scratch)))
                return ret;
#endif
        return LN_RT_OK;
    }
    ks = (char *)scratch + pwdw_planes_bytes(pw);
    for (b = 0; b < pw->n; b++) {
        const float *x = src + (size_t)b * pw->c * pw->h * pw->w;
        float *y = dst + (size_t)b * m * oh * ow;
        for (m0 = 0; m0 < m; m0 += mb) {
            ln_rt_conv2d_args p, d;
            pwdw_block_args(pw, dw, m - m0 < mb ? m - m0 : mb, &p, &d);
            if ((ret = ln_rt_conv2d_f32(&p, x, pw_weight + (size_t)m0 * pw->c,
                                        pw_bias ? pw_bias + m0 : NULL, planes,
                                        ks)) ||
                (ret = ln_rt_conv2d_depthwise_f32(
                     &d, planes, dw_weight + (size_t)m0 * dw->kh * dw->kw,
                     dw_bias ? dw_bias + m0 : NULL,
                     y + (size_t)m0 * oh * ow, ks)))
                return ret;
        }
    }
    return LN_RT_OK;
}
