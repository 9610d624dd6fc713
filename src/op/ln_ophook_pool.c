/*
 * ln_ophook_pool.c -- maxpool2d / avgpool2d: output extent with ONNX
 * auto_pad and ceil_mode, and ln_rt_pool2d_args.  In ceil mode the last
 * window must start inside the input or its leading padding (ONNX Runtime
 * and PyTorch drop a window that would start in the trailing padding).
 */
#include <stdint.h>
#include "ln_ophook.h"

static int pool_out(int in, int k, int stride, int pb, int pe, int dil, int ceil_mode)
{
    /* 64 bits: the operands passed ln_ophook_window_check, sums may not */
    int64_t span = (int64_t)in + pb + pe - (int64_t)dil * (k - 1) - 1;
    int64_t out;

    if (span < 0)
        return 0;
    out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
    if (ceil_mode && (out - 1) * stride >= (int64_t)in + pb)
        out--;
    return (int)out;
}

static int geometry(const ln_op_arg *op_arg, const ln_tensor *src, int *k, int *stride,
                    int *dil, int *pads, int *out)
{
    int in[2] = {src->dims[2], src->dims[3]};
    int ceil_mode = ln_ophook_param_int(op_arg, "ceil_mode", 0);

    k[0] = k[1] = 1;
    stride[0] = stride[1] = dil[0] = dil[1] = 1;
    ln_ophook_param_ints(op_arg, "kernel_shape", k, 2);
    ln_ophook_param_ints(op_arg, "stride", stride, 2);
    ln_ophook_param_ints(op_arg, "dilation", dil, 2);
    ln_ophook_window_pads(op_arg, in, k, stride, dil, pads);
    LN_OPCK(ln_ophook_window_check(op_arg, in, k, dil, pads));
    for (int i = 0; i < 2; i++)
        out[i] = pool_out(in[i], k[i], stride[i], pads[i], pads[i + 2], dil[i], ceil_mode);
    return 0;
}

int ln_ophook_pool2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int k[2], stride[2], dil[2], pads[4], out[2];

    LN_OPCK(geometry(op_arg, src, k, stride, dil, pads, out));
    LN_OPCK(ln_opck(op_arg, pads[0] < k[0] && pads[2] < k[0] && pads[1] < k[1] && pads[3] < k[1],
                    "'pads' [%d, %d, %d, %d] must be smaller than 'kernel_shape' [%d, %d]",
                    pads[0], pads[1], pads[2], pads[3], k[0], k[1]));
    LN_OPCK(ln_opck(op_arg, out[0] >= 1 && out[1] >= 1,
                    "window %dx%d does not fit 'src' %dx%d: output would be %dx%d",
                    k[0], k[1], src->dims[2], src->dims[3], out[0], out[1]));
    *ndim = 4;
    dims[0] = src->dims[0];
    dims[1] = src->dims[1];
    dims[2] = out[0];
    dims[3] = out[1];
    return 0;
}

void ln_ophook_pool2d_args(const ln_op_arg *op_arg, ln_rt_pool2d_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int k[2], stride[2], dil[2], pads[4], out[2];

    (void)geometry(op_arg, src, k, stride, dil, pads, out);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->h = src->dims[2];
    a->w = src->dims[3];
    a->oh = out[0];
    a->ow = out[1];
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
    a->count_include_pad = ln_ophook_param_int(op_arg, "count_include_pad", 0);
}

/* globalavgpool / globalmaxpool: [n][c][1]... */
int ln_ophook_global_pool_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    *ndim = src->ndim;
    for (int i = 0; i < src->ndim; i++)
        dims[i] = i < 2 ? src->dims[i] : 1;
    return 0;
}

/* avgpool2d_nhwc_cpu's shape check: one window per whole plane */
int ln_ophook_avgpool2d_nhwc_ok(const ln_op_arg *op_arg)
{
    ln_rt_pool2d_args a;
    ln_ophook_pool2d_args(op_arg, &a);
    return ln_rt_avgpool2d_nhwc_ok(&a);
}
