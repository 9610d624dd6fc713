/*
 * ln_ophook_conv3d.c -- conv3d, conv_transpose3d, maxpool3d, avgpool3d:
 * output shapes (ONNX auto_pad, ceil_mode, output_padding / output_shape)
 * and the runtime's ln_rt_conv3d_args / ln_rt_pool3d_args.
 *
 * The spatial axes are those after N and C: three for the convolutions
 * and avgpool3d, two or three for maxpool3d (a 2-D MaxPool whose Indices
 * output is used imports as maxpool3d on a 4-D input, depth 1).  Each
 * array param has one entry per spatial axis (pads two), or is absent
 * and takes the ONNX default; a length that fits neither is refused.
 */
#include <stdint.h>
#include <string.h>
#include "ln_ophook.h"

typedef struct {
    int nsp;                         /* spatial axes: 2 or 3 */
    int in[3], k[3], stride[3], dil[3], pads[6], out[3];
} geom;

/* An array param of n entries, or absent (def for each). */
static int read_ints(const ln_op_arg *op_arg, const char *name, int n, int *v, int def)
{
    int got[6], len = ln_ophook_param_ints(op_arg, name, got, 6);

    LN_OPCK(ln_opck(op_arg, len == 0 || len == n,
                    "'%s' has %d entries, the input has %d spatial axes (%d expected)",
                    name, len, n / (strcmp(name, "pads") ? 1 : 2), n));
    for (int i = 0; i < n; i++)
        v[i] = len ? got[i] : def;
    return 0;
}

/* The window params of src (kernel from kernel_shape or weight) padded to
 * three axes (a leading axis of 1 when src is 4-D); pads from 'pads' or
 * auto_pad; out left for the caller. */
static int window_geom(const ln_op_arg *op_arg, const ln_tensor *src, const int *wk, geom *g)
{
    const char *ap = ln_ophook_param_str(op_arg, "auto_pad", "NOTSET");
    int n = src->ndim - 2, off = 3 - n, k[3], s[3], d[3], p[6];

    g->nsp = n;
    if (wk) {
        int ks[3];
        LN_OPCK(read_ints(op_arg, "kernel_shape", n, ks, 0));
        for (int i = 0; i < n; i++) {
            LN_OPCK(ln_opck(op_arg, ks[i] == 0 || ks[i] == wk[i],
                            "'kernel_shape'[%d] (%d) does not match 'weight' dims[%d] (%d)",
                            i, ks[i], i + 2, wk[i]));
            k[i] = wk[i];
        }
    } else {
        LN_OPCK(ln_opck(op_arg, ln_ophook_param_ints(op_arg, "kernel_shape", k, 3) == n,
                        "'kernel_shape' must have %d entries (one per spatial axis)", n));
    }
    LN_OPCK(read_ints(op_arg, "stride", n, s, 1));
    LN_OPCK(read_ints(op_arg, "dilation", n, d, 1));
    LN_OPCK(read_ints(op_arg, "pads", 2 * n, p, 0));
    for (int i = 0; i < 3; i++) {
        int j = i - off;
        g->in[i] = j < 0 ? 1 : src->dims[2 + j];
        g->k[i] = j < 0 ? 1 : k[j];
        g->stride[i] = j < 0 ? 1 : s[j];
        g->dil[i] = j < 0 ? 1 : d[j];
        g->pads[i] = j < 0 ? 0 : p[j];
        g->pads[i + 3] = j < 0 ? 0 : p[j + n];
        LN_OPCK(ln_opck(op_arg, g->k[i] >= 1 && g->stride[i] >= 1 && g->dil[i] >= 1 &&
                                g->pads[i] >= 0 && g->pads[i + 3] >= 0,
                        "spatial axis %d: kernel %d, stride %d, dilation %d must be >= 1, "
                        "pads %d, %d >= 0", j, g->k[i], g->stride[i], g->dil[i], g->pads[i],
                        g->pads[i + 3]));
    }
    if (!strcmp(ap, "VALID"))
        memset(g->pads, 0, sizeof g->pads);
    else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER"))
        for (int i = 0; i < 3; i++) {
            int64_t out = ((int64_t)g->in[i] + g->stride[i] - 1) / g->stride[i];
            int64_t total = (out - 1) * g->stride[i] + ((int64_t)g->k[i] - 1) * g->dil[i] + 1
                            - g->in[i];
            total = total < 0 ? 0 : total > INT32_MAX ? INT32_MAX : total;
            g->pads[i] = (int)(!strcmp(ap, "SAME_LOWER") ? total - total / 2 : total / 2);
            g->pads[i + 3] = (int)(total - g->pads[i]);
        }
    for (int i = 0; i < 3; i++) {
        int64_t padded = (int64_t)g->in[i] + g->pads[i] + g->pads[i + 3];
        int64_t window = (int64_t)g->dil[i] * (g->k[i] - 1) + 1;
        LN_OPCK(ln_opck(op_arg, padded <= INT32_MAX && window <= INT32_MAX,
                        "spatial axis %d: padded input or dilated window exceeds %d",
                        i - off, INT32_MAX));
    }
    return 0;
}

static int conv_geom(const ln_op_arg *op_arg, geom *g)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;

    LN_OPCK(window_geom(op_arg, src, w->dims + 2, g));
    for (int i = 0; i < 3; i++) {
        g->out[i] = ln_rt_conv_out_size(g->in[i], g->k[i], g->stride[i], g->pads[i],
                                        g->pads[i + 3], g->dil[i]);
        LN_OPCK(ln_opck(op_arg, g->out[i] >= 1,
                        "spatial axis %d: kernel %d (dilation %d) does not fit 'src' %d padded "
                        "by %d and %d", i, g->k[i], g->dil[i], g->in[i], g->pads[i],
                        g->pads[i + 3]));
    }
    return 0;
}

int ln_ophook_conv3d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    geom g;

    LN_OPCK(conv_geom(op_arg, &g));
    *ndim = 5;
    dims[0] = src->dims[0];
    dims[1] = w->dims[0];
    for (int i = 0; i < 3; i++)
        dims[2 + i] = g.out[i];
    return 0;
}

static void fill_conv_args(const ln_op_arg *op_arg, const geom *g, int oc,
                           ln_rt_conv3d_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->oc = oc;
    a->group = ln_ophook_param_int(op_arg, "group", 1);
    for (int i = 0; i < 3; i++) {
        a->in[i] = g->in[i];
        a->out[i] = g->out[i];
        a->k[i] = g->k[i];
        a->stride[i] = g->stride[i];
        a->dil[i] = g->dil[i];
        a->pad[i] = g->pads[i];
        a->pad[i + 3] = g->pads[i + 3];
    }
    a->act = ln_ophook_act(op_arg, &a->alpha, &a->beta);
}

void ln_ophook_conv3d_args(const ln_op_arg *op_arg, ln_rt_conv3d_args *a)
{
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    geom g;

    (void)conv_geom(op_arg, &g);
    fill_conv_args(op_arg, &g, w->dims[0], a);
}

/* ConvTranspose: the full output stride * (in - 1) + output_padding +
 * dil * (k - 1) + 1 less the pads; output_shape (or SAME_*: in * stride)
 * sets the pads instead, split as ONNX says (SAME_UPPER: more at the end). */
static int transpose_geom(const ln_op_arg *op_arg, geom *g)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    const char *ap = ln_ophook_param_str(op_arg, "auto_pad", "NOTSET");
    int opad[3], oshape[3], has_shape, n;

    /* auto_pad is handled here, not as a conv's */
    {
        int p[6];
        LN_OPCK(window_geom(op_arg, src, w->dims + 2, g));
        LN_OPCK(read_ints(op_arg, "pads", 6, p, 0));
        for (int i = 0; i < 6; i++)
            g->pads[i] = !strcmp(ap, "NOTSET") ? p[i] : 0;
    }
    LN_OPCK(read_ints(op_arg, "output_padding", 3, opad, 0));
    n = ln_ophook_param_ints(op_arg, "output_shape", oshape, 3);
    LN_OPCK(ln_opck(op_arg, n == 0 || n == 3,
                    "'output_shape' has %d entries, not 3 (D, H, W)", n));
    has_shape = n == 3;
    for (int i = 0; i < 3; i++) {
        int64_t full = (int64_t)g->stride[i] * (g->in[i] - 1) + opad[i] +
                       (int64_t)g->dil[i] * (g->k[i] - 1) + 1;
        LN_OPCK(ln_opck(op_arg, opad[i] >= 0 && full <= INT32_MAX,
                        "spatial axis %d: output_padding %d, or the full output %lld exceeds %d",
                        i, opad[i], (long long)full, INT32_MAX));
        if (!has_shape && (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")))
            oshape[i] = (int)((int64_t)g->in[i] * g->stride[i] <= INT32_MAX
                                  ? (int64_t)g->in[i] * g->stride[i] : INT32_MAX);
        if (has_shape || !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
            /* ONNX's split, in floor division: SAME_UPPER has the larger
             * half at the end, SAME_LOWER and NOTSET at the start.  A
             * negative total (an output_shape beyond the full output)
             * makes negative pads: outputs no input reaches, bias only */
            int64_t total = full - oshape[i];
            int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
            g->pads[i] = (int)(!strcmp(ap, "SAME_UPPER") ? half : total - half);
            g->pads[i + 3] = (int)(total - g->pads[i]);
        }
        g->out[i] = (int)(full - g->pads[i] - g->pads[i + 3]);
        LN_OPCK(ln_opck(op_arg, g->out[i] >= 1, "spatial axis %d: output would be %d", i,
                        g->out[i]));
    }
    return 0;
}

int ln_ophook_conv_transpose3d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    int64_t oc = (int64_t)w->dims[1] * ln_ophook_param_int(op_arg, "group", 1);
    geom g;

    LN_OPCK(transpose_geom(op_arg, &g));
    LN_OPCK(ln_opck(op_arg, oc <= INT32_MAX, "'weight' dims[1] * 'group' exceeds %d",
                    INT32_MAX));
    *ndim = 5;
    dims[0] = src->dims[0];
    dims[1] = (int)oc;
    for (int i = 0; i < 3; i++)
        dims[2 + i] = g.out[i];
    return 0;
}

void ln_ophook_conv_transpose3d_args(const ln_op_arg *op_arg, ln_rt_conv3d_args *a)
{
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;
    geom g;

    (void)transpose_geom(op_arg, &g);
    fill_conv_args(op_arg, &g, w->dims[1] * ln_ophook_param_int(op_arg, "group", 1), a);
}

/* Pooling: floor or ceil mode; in ceil mode a window starting in the end
 * padding is dropped (as ONNX Runtime and PyTorch do, and maxpool2d). */
static int pool_geom(const ln_op_arg *op_arg, geom *g)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int ceil_mode = ln_ophook_param_int(op_arg, "ceil_mode", 0);

    LN_OPCK(window_geom(op_arg, src, NULL, g));
    for (int i = 0; i < 3; i++) {
        int64_t span = (int64_t)g->in[i] + g->pads[i] + g->pads[i + 3] -
                       (int64_t)g->dil[i] * (g->k[i] - 1) - 1;
        int64_t out = span < 0 ? 0 : (ceil_mode ? (span + g->stride[i] - 1) / g->stride[i]
                                                : span / g->stride[i]) + 1;
        if (ceil_mode && out > 0 && (out - 1) * g->stride[i] >= (int64_t)g->in[i] + g->pads[i])
            out--;
        LN_OPCK(ln_opck(op_arg, g->pads[i] < g->k[i] && g->pads[i + 3] < g->k[i],
                        "spatial axis %d: pads %d, %d must be smaller than the kernel (%d)",
                        i, g->pads[i], g->pads[i + 3], g->k[i]));
        LN_OPCK(ln_opck(op_arg, out >= 1, "spatial axis %d: window %d does not fit 'src' (%d)",
                        i, g->k[i], g->in[i]));
        g->out[i] = (int)out;
    }
    return 0;
}

int ln_ophook_pool3d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    geom g;

    LN_OPCK(pool_geom(op_arg, &g));
    *ndim = src->ndim;
    dims[0] = src->dims[0];
    dims[1] = src->dims[1];
    for (int i = 3 - g.nsp; i < 3; i++)
        dims[2 + i - (3 - g.nsp)] = g.out[i];
    return 0;
}

void ln_ophook_pool3d_args(const ln_op_arg *op_arg, ln_rt_pool3d_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    geom g;

    (void)pool_geom(op_arg, &g);
    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    for (int i = 0; i < 3; i++) {
        a->in[i] = g.in[i];
        a->out[i] = g.out[i];
        a->k[i] = g.k[i];
        a->stride[i] = g.stride[i];
        a->dil[i] = g.dil[i];
        a->pad[i] = g.pads[i];
        a->pad[i + 3] = g.pads[i + 3];
    }
    a->count_include_pad = ln_ophook_param_int(op_arg, "count_include_pad", 0);
    a->storage_order = ln_ophook_param_int(op_arg, "storage_order", 0);
}
