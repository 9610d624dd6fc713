/*
 * conv2d_pwdw_f32.c -- a 1x1 expand conv and the depthwise conv that alone
 * reads it, fused (the first two convs of an inverted residual block:
 * MobileNetV2, EfficientNet, MnasNet).
 *
 * Unfused, the expand writes its whole output -- MobileNetV2's 96 x 112 x
 * 112 is 4.8 MB -- and the depthwise conv reads it back, from L3 or
 * memory. The depthwise conv needs only its own channel of that tensor, so
 * here the expand runs for a block of its output channels at a time into
 * scratch and the depthwise conv consumes the block while it is still in
 * L2: the big tensor is never written. Each half is the plain kernel
 * (ln_rt_conv2d_f32 on oc = the block, ln_rt_conv2d_depthwise_f32 on the
 * block's channels), so the sums are the unfused pair's (the same bits
 * wherever the expand takes the same path for a block as for all of its
 * channels, as on every large map).
 *
 * The block: as many channels as fit in PWDW_BLOCK_BYTES of planes,
 * rounded down to a multiple of 8 (the GEMM's MR on AVX-512), at least 8.
 * On an Intel Xeon (2 MiB L2, best of 30, one process timing both) a
 * 256 KiB block ran MobileNetV2's 16->96 @112 + 3x3 s2 depthwise in 0.85x
 * the unfused pair's time with warm caches and 0.53x with cold ones,
 * 24->144 @56 + s1 / s2 0.95 / 0.96x warm, 0.76 / 0.56x cold, 32->192 @28
 * level warm and 0.78-0.82x cold; 128 KiB and 512 KiB-1 MiB blocks were
 * level or slower.
 */
#include "ln_rt_internal.h"

/* -DPWDW_BLOCK_BYTES=... to try another block size (the scratch size
 * follows it, so the compiler and the kernels must agree) */
#ifndef PWDW_BLOCK_BYTES
#define PWDW_BLOCK_BYTES (256u << 10)
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

/* the block's planes, rounded up to 64 bytes; then the larger of the two
 * kernels' scratch for one image and one block */
static size_t pwdw_planes_bytes(const ln_rt_conv2d_args *pw)
{
    return ((size_t)pwdw_block(pw) * pw->h * pw->w * sizeof(float) + 63) &
           ~(size_t)63;
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

size_t ln_rt_conv2d_pwdw_f32_scratch_size(const ln_rt_conv2d_args *pw,
                                          const ln_rt_conv2d_args *dw)
{
    ln_rt_conv2d_args p, d;
    size_t sp, sd;
    if (!ln_rt_conv2d_pwdw_ok(pw, dw))
        return 0;
    pwdw_block_args(pw, dw, pwdw_block(pw), &p, &d);
    sp = ln_rt_conv2d_f32_scratch_size(&p);
    sd = ln_rt_conv2d_depthwise_f32_scratch_size(&d);
    return pwdw_planes_bytes(pw) + (sp > sd ? sp : sd);
}

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
    mb = pwdw_block(pw);
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
