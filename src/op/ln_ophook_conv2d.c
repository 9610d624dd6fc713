/*
 * ln_ophook_conv2d.c -- conv2d and conv_transpose2d: output shapes (with
 * ONNX auto_pad and, for the transpose, output_padding / output_shape)
 * and the runtime's argument structs.  2-D only (NCHW); a 1-D or 3-D ONNX
 * Conv is rejected by the ndim checks of the descriptions.
 */
#include <stdint.h>
#include <string.h>
#include "ln_ophook.h"

/* conv2d_wino_cpu / conv2d_wino_res_cpu: the weight is the Winograd
 * transform [4][4][oc][c] of 3x3 kernels (ln_rt_conv2d_wino_f32_pack) */
static int is_wino(const ln_op_arg *op_arg)
{
    return strncmp(op_arg->optype, "conv2d_wino", 11) == 0;
}

/* output channels: weight dims[0], or dims[2] of a Winograd transform */
static int weight_oc(const ln_op_arg *op_arg, const ln_tensor *w)
{
    return is_wino(op_arg) ? w->dims[2] : w->dims[0];
}

/* Window geometry shared by both ops: kernel from weight dims 2, 3 (3x3
 * for a Winograd transform). */
static int geometry(const ln_op_arg *op_arg, const ln_tensor *src, const ln_tensor *w,
                    int *k, int *stride, int *dil, int *pads)
{
    int in[2];

    k[0] = is_wino(op_arg) ? 3 : w->dims[2];
    k[1] = is_wino(op_arg) ? 3 : w->dims[3];
    stride[0] = stride[1] = 1;
    dil[0] = dil[1] = 1;
    ln_ophook_param_ints(op_arg, "stride", stride, 2);
    ln_ophook_param_ints(op_arg, "dilation", dil, 2);
    in[0] = src->dims[2];
    in[1] = src->dims[3];
    ln_ophook_window_pads(op_arg, in, k, stride, dil, pads);
    return ln_ophook_window_check(op_arg, in, k, dil, pads);
}

static int check_kernel_shape(const ln_op_arg *op_arg, const ln_tensor *w)
{
    int ks[2];

    if (ln_ophook_param_ints(op_arg, "kernel_shape", ks, 2) == 0)
        return 0;
    if (is_wino(op_arg))
        return ln_opck(op_arg, ks[0] == 3 && ks[1] == 3,
                       "'kernel_shape' [%d, %d] is not the Winograd conv's 3x3", ks[0], ks[1]);
    return ln_opck(op_arg, ks[0] == w->dims[2] && ks[1] == w->dims[3],
                   "'kernel_shape' [%d, %d] does not match 'weight' dims[2..3] [%d, %d]",
                   ks[0], ks[1], w->dims[2], w->dims[3]);
}

int ln_ophook_conv2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    int k[2], stride[2], dil[2], pads[4], oh, ow;

    LN_OPCK(check_kernel_shape(op_arg, w));
    LN_OPCK(geometry(op_arg, src, w, k, stride, dil, pads));
    oh = ln_rt_conv_out_size(src->dims[2], k[0], stride[0], pads[0], pads[2], dil[0]);
    ow = ln_rt_conv_out_size(src->dims[3], k[1], stride[1], pads[1], pads[3], dil[1]);
    LN_OPCK(ln_opck(op_arg, oh >= 1 && ow >= 1,
                    "kernel %dx%d (dilation %dx%d) does not fit 'src' %dx%d padded by "
                    "[%d, %d, %d, %d]: output would be %dx%d",
                    k[0], k[1], dil[0], dil[1], src->dims[2], src->dims[3],
                    pads[0], pads[1], pads[2], pads[3], oh, ow));
    *ndim = 4;
    dims[0] = src->dims[0];
    dims[1] = weight_oc(op_arg, w);
    dims[2] = oh;
    dims[3] = ow;
    return 0;
}

/* conv2d_res_cpu: the residual has exactly the conv output's shape */
int ln_ophook_conv2d_residual_ok(const ln_op_arg *op_arg, const ln_tensor *res)
{
    int ndim = 0, dims[4], i;

    if (ln_ophook_conv2d_dst_shape(op_arg, &ndim, dims) || ndim != 4 ||
        res->ndim != ndim)
        return 0;
    for (i = 0; i < ndim; i++)
        if (res->dims[i] != dims[i])
            return 0;
    return 1;
}

void ln_ophook_conv2d_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    int k[2], stride[2], dil[2], pads[4];

    (void)geometry(op_arg, src, w, k, stride, dil, pads);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->oc = weight_oc(op_arg, w);
    a->kh = k[0];
    a->kw = k[1];
    a->stride_h = stride[0];
    a->stride_w = stride[1];
    a->pad_top = pads[0];
    a->pad_left = pads[1];
    a->pad_bottom = pads[2];
    a->pad_right = pads[3];
    a->dil_h = dil[0];
    a->dil_w = dil[1];
    a->group = ln_ophook_param_int(op_arg, "group", 1);
    a->act = ln_ophook_act(op_arg, &a->alpha, &a->beta);
}

/* conv2d_pwdw_cpu: the 1x1 conv, src -> pw_weight dims[0] channels */
void ln_ophook_conv2d_pwdw_pw_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *pw = ln_op_tensor_in(op_arg, "pw_weight")->tensor;

    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->oc = pw->dims[0];
    a->kh = a->kw = a->stride_h = a->stride_w = 1;
    a->dil_h = a->dil_w = a->group = 1;
    a->act = ln_ophook_act_prefixed(op_arg, "pw_", &a->alpha, &a->beta);
}

/* conv2d_pwdw_cpu: the depthwise conv (the op's own params) of the 1x1
 * conv's output */
void ln_ophook_conv2d_pwdw_dw_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *a)
{
    ln_ophook_conv2d_args(op_arg, a);
    a->c = ln_op_tensor_in(op_arg, "pw_weight")->tensor->dims[0];
}

/* the runtime's kernel takes the op's shape (ok) and the target is the
 * host: the Cortex-M4 runtime has neither the packed nor the Winograd conv */
static int host_kernel_ok(const ln_op_arg *op_arg, int (*ok)(const ln_rt_conv2d_args *))
{
    ln_rt_conv2d_args a;
    ln_rt_target t;

    ln_ophook_conv2d_args(op_arg, &a);
    ln_ophook_rt_target(op_arg, &t);
    return t != LN_RT_TARGET_CORTEX_M4 && ok(&a);
}

/* conv2d_maxpool_cpu: the pool's geometry from its params, over the
 * conv's output dims cd (n, oc, oh, ow) */
static void maxpool_geometry(const ln_op_arg *op_arg, const int *cd, ln_rt_pool2d_args *p)
{
    int k[2] = {1, 1}, s[2] = {1, 1}, pads[4] = {0, 0, 0, 0}, out[2] = {0, 0};

    ln_ophook_param_ints(op_arg, "pool_kernel_shape", k, 2);
    ln_ophook_param_ints(op_arg, "pool_stride", s, 2);
    ln_ophook_param_ints(op_arg, "pool_pads", pads, 4);
    ln_ophook_param_ints(op_arg, "pool_out", out, 2);
    memset(p, 0, sizeof *p);
    p->n = cd[0];
    p->c = cd[1];
    p->h = cd[2];
    p->w = cd[3];
    p->oh = out[0];
    p->ow = out[1];
    p->kh = k[0];
    p->kw = k[1];
    p->stride_h = s[0];
    p->stride_w = s[1];
    p->pad_top = pads[0];
    p->pad_left = pads[1];
    p->pad_bottom = pads[2];
    p->pad_right = pads[3];
    p->dil_h = p->dil_w = 1;
}

/* an output size of a window k, stride s over in padded by p0, p1: the
 * floor one or the ceil_mode one (its last window starting in the input
 * or the leading pad) */
static int pool_size_ok(int in, int k, int s, int p0, int p1, int out)
{
    const int span = in + p0 + p1 - k;
    int fl, ce;
    if (span < 0)
        return 0;
    fl = span / s + 1;
    ce = (span + s - 1) / s + 1;
    if ((ce - 1) * s >= in + p0)
        ce--;
    return out == fl || out == ce;
}

int ln_ophook_conv2d_maxpool_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    int cd[4], cn = 0;
    ln_rt_pool2d_args p;

    LN_OPCK(ln_ophook_conv2d_dst_shape(op_arg, &cn, cd));
    maxpool_geometry(op_arg, cd, &p);
    LN_OPCK(ln_opck(op_arg, p.pad_top < p.kh && p.pad_bottom < p.kh && p.pad_left < p.kw &&
                            p.pad_right < p.kw,
                    "'pool_pads' [%d, %d, %d, %d] not each smaller than 'pool_kernel_shape' "
                    "[%d, %d]", p.pad_top, p.pad_left, p.pad_bottom, p.pad_right, p.kh, p.kw));
    LN_OPCK(ln_opck(op_arg, pool_size_ok(cd[2], p.kh, p.stride_h, p.pad_top, p.pad_bottom, p.oh) &&
                            pool_size_ok(cd[3], p.kw, p.stride_w, p.pad_left, p.pad_right, p.ow),
                    "'pool_out' [%d, %d] is not a size of the pool (window [%d, %d], stride "
                    "[%d, %d], pads [%d, %d, %d, %d]) over the conv's %dx%d output",
                    p.oh, p.ow, p.kh, p.kw, p.stride_h, p.stride_w, p.pad_top, p.pad_left,
                    p.pad_bottom, p.pad_right, cd[2], cd[3]));
    *ndim = 4;
    dims[0] = cd[0];
    dims[1] = cd[1];
    dims[2] = p.oh;
    dims[3] = p.ow;
    return 0;
}

void ln_ophook_conv2d_maxpool_pool_args(const ln_op_arg *op_arg, ln_rt_pool2d_args *p)
{
    int cd[4] = {0, 0, 0, 0}, cn = 0;

    if (ln_ophook_conv2d_dst_shape(op_arg, &cn, cd))
        cd[0] = cd[1] = cd[2] = cd[3] = 0;
    maxpool_geometry(op_arg, cd, p);
}

int ln_ophook_conv2d_maxpool_ok(const ln_op_arg *op_arg)
{
    ln_rt_conv2d_args a;
    ln_rt_pool2d_args p;
    ln_rt_target t;

    ln_ophook_conv2d_args(op_arg, &a);
    ln_ophook_conv2d_maxpool_pool_args(op_arg, &p);
    ln_ophook_rt_target(op_arg, &t);
    return t != LN_RT_TARGET_CORTEX_M4 && ln_rt_conv2d_maxpool_ok(&a, &p);
}

/* conv2d_packed_cpu's shape check */
int ln_ophook_conv2d_packed_ok(const ln_op_arg *op_arg)
{
    return host_kernel_ok(op_arg, ln_rt_conv2d_packed_ok);
}

/* conv2d_dw_nhwc_cpu's shape check */
int ln_ophook_conv2d_dw_nhwc_ok(const ln_op_arg *op_arg)
{
    return host_kernel_ok(op_arg, ln_rt_conv2d_depthwise_nhwc_ok);
}

/* conv2d_wino_cpu's shape check */
int ln_ophook_conv2d_wino_ok(const ln_op_arg *op_arg)
{
    return host_kernel_ok(op_arg, ln_rt_conv2d_wino_ok);
}

void ln_ophook_s8_conv_args(const ln_op_arg *op_arg, ln_rt_s8_conv_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    const ln_tensor *dst = ln_op_tensor_out(op_arg, "dst")->tensor;
    int k[2], stride[2], dil[2], pads[4];

    (void)geometry(op_arg, src, w, k, stride, dil, pads);
    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->oc = w->dims[0];
    a->oh = dst->dims[2];
    a->ow = dst->dims[3];
    a->kh = k[0];
    a->kw = k[1];
    a->stride_h = stride[0];
    a->stride_w = stride[1];
    a->dil_h = dil[0];
    a->dil_w = dil[1];
    a->pad_top = pads[0];
    a->pad_left = pads[1];
    a->group = ln_ophook_param_int(op_arg, "group", 1);
    a->ch_mult = 1;
    a->input_offset = -ln_ophook_param_int(op_arg, "src_zero_point", 0);
    a->output_offset = ln_ophook_param_int(op_arg, "dst_zero_point", 0);
    a->act_min = ln_ophook_param_int(op_arg, "act_min", -128);
    a->act_max = ln_ophook_param_int(op_arg, "act_max", 127);
}

/*
 * ConvTranspose: out = stride * (in - 1) + output_padding
 * + dil * (k - 1) + 1 - pad_begin - pad_end.  With output_shape the pads
 * are derived from it (ONNX: the total split evenly, the odd pixel at the
 * end for SAME_UPPER and at the beginning otherwise); with SAME_* auto_pad
 * the output is in * stride.
 */
static int transpose_geometry(const ln_op_arg *op_arg, int *k, int *stride, int *dil,
                              int *pads, int *out)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    const char *ap = ln_ophook_param_str(op_arg, "auto_pad", "NOTSET");
    int opad[2] = {0, 0}, oshape[2], has_shape;

    k[0] = w->dims[2];
    k[1] = w->dims[3];
    stride[0] = stride[1] = dil[0] = dil[1] = 1;
    ln_ophook_param_ints(op_arg, "stride", stride, 2);
    ln_ophook_param_ints(op_arg, "dilation", dil, 2);
    ln_ophook_param_ints(op_arg, "output_padding", opad, 2);
    pads[0] = pads[1] = pads[2] = pads[3] = 0;
    has_shape = ln_ophook_param_ints(op_arg, "output_shape", oshape, 2) == 2;
    if (!has_shape && (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))) {
        for (int i = 0; i < 2; i++) {
            int64_t o = (int64_t)src->dims[2 + i] * stride[i];
            LN_OPCK(ln_opck(op_arg, o <= INT32_MAX, "output axis %d would exceed %d",
                            i, INT32_MAX));
            oshape[i] = (int)o;
        }
        has_shape = 1;
    }
    for (int i = 0; i < 2; i++) {
        int64_t full64 = (int64_t)stride[i] * (src->dims[2 + i] - 1) + opad[i]
                         + (int64_t)dil[i] * (k[i] - 1) + 1;
        int full;

        LN_OPCK(ln_opck(op_arg, full64 <= INT32_MAX,
                        "spatial axis %d: the full transposed output (%lld) exceeds %d", i,
                        (long long)full64, INT32_MAX));
        full = (int)full64;

        if (has_shape) {
            int total = full - oshape[i];

            pads[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            pads[i + 2] = total - pads[i];
        } else if (!strcmp(ap, "NOTSET")) {
            int p[4] = {0, 0, 0, 0};

            ln_ophook_param_ints(op_arg, "pads", p, 4);
            pads[i] = p[i];
            pads[i + 2] = p[i + 2];
        }
        out[i] = full - pads[i] - pads[i + 2];
    }
    return 0;
}

int ln_ophook_conv_transpose2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    int k[2], stride[2], dil[2], pads[4], out[2];

    LN_OPCK(check_kernel_shape(op_arg, w));
    LN_OPCK(transpose_geometry(op_arg, k, stride, dil, pads, out));
    LN_OPCK(ln_opck(op_arg, (int64_t)w->dims[1] * ln_ophook_param_int(op_arg, "group", 1)
                            <= INT32_MAX, "'weight' dims[1] * 'group' exceeds %d", INT32_MAX));
    LN_OPCK(ln_opck(op_arg, pads[0] >= 0 && pads[1] >= 0 && pads[2] >= 0 && pads[3] >= 0,
                    "'output_shape' asks for more than the transposed convolution makes "
                    "(pads would be [%d, %d, %d, %d])", pads[0], pads[1], pads[2], pads[3]));
    LN_OPCK(ln_opck(op_arg, out[0] >= 1 && out[1] >= 1,
                    "output would be %dx%d", out[0], out[1]));
    *ndim = 4;
    dims[0] = src->dims[0];
    dims[1] = w->dims[1] * ln_ophook_param_int(op_arg, "group", 1);
    dims[2] = out[0];
    dims[3] = out[1];
    return 0;
}

void ln_ophook_conv_transpose2d_args(const ln_op_arg *op_arg,
                                     ln_rt_conv_transpose2d_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *dst = ln_op_tensor_out(op_arg, "dst")->tensor;
    int k[2], stride[2], dil[2], pads[4], out[2];

    (void)transpose_geometry(op_arg, k, stride, dil, pads, out);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->oc = dst->dims[1];
    a->oh = dst->dims[2];
    a->ow = dst->dims[3];
    a->kh = k[0];
    a->kw = k[1];
    a->stride_h = stride[0];
    a->stride_w = stride[1];
    a->pad_top = pads[0];
    a->pad_left = pads[1];
    a->pad_bottom = pads[2];
    a->pad_right = pads[3];
    a->dil_h = dil[0];
    a->dil_w = dil[1];
    a->group = ln_ophook_param_int(op_arg, "group", 1);
    a->act = ln_ophook_act(op_arg, &a->alpha, &a->beta);
}
