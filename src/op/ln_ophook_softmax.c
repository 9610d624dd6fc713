/*
 * ln_ophook_softmax.c -- the [outer][len][inner] view of 'src' around the
 * param 'axis' that softmax, logsoftmax, argmax, gather, layernorm, topk
 * and cumsum kernels take.  With the bool param 'coerce_2d' (ONNX Softmax before
 * opset 13) the axis and everything after it are one: len is their
 * product and inner is 1.  An absent 'axis' is 0 for gather, argmax,
 * argmin and cumsum (as in ONNX and in their descriptions), -1 for the
 * others.
 */
#include <string.h>
#include "ln_ophook.h"

static int axis_default(const ln_op_arg *op_arg)
{
    const char *t = op_arg->optype;

    return !strncmp(t, "gather", 6) || !strncmp(t, "argmax", 6) || !strncmp(t, "argmin", 6) ||
                   !strncmp(t, "cumsum", 6)
               ? 0
               : -1;
}

static void view3(const ln_op_arg *op_arg, int32_t *outer, int32_t *len, int32_t *inner)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_axis(op_arg, "axis", axis_default(op_arg), src->ndim);
    int coerce = ln_ophook_param_int(op_arg, "coerce_2d", 0);

    if (src->ndim == 0) {
        *outer = *len = *inner = 1;
        return;
    }
    *outer = (int32_t)ln_ophook_dims_prod(src->dims, 0, axis);
    if (coerce) {
        *len = (int32_t)ln_ophook_dims_prod(src->dims, axis, src->ndim);
        *inner = 1;
    } else {
        *len = src->dims[axis];
        *inner = (int32_t)ln_ophook_dims_prod(src->dims, axis + 1, src->ndim);
    }
}

void ln_ophook_axis_outer(const ln_op_arg *op_arg, int32_t *v)
{
    int32_t l, i;

    view3(op_arg, v, &l, &i);
}

void ln_ophook_axis_len(const ln_op_arg *op_arg, int32_t *v)
{
    int32_t o, i;

    view3(op_arg, &o, v, &i);
}

void ln_ophook_axis_inner(const ln_op_arg *op_arg, int32_t *v)
{
    int32_t o, l;

    view3(op_arg, &o, &l, v);
}

/* The product of the dims from 'axis' on (layernorm's normalized size). */
void ln_ophook_axis_rest(const ln_op_arg *op_arg, int32_t *v)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_axis(op_arg, "axis", -1, src->ndim);

    *v = (int32_t)ln_ophook_dims_prod(src->dims, axis, src->ndim);
}

/* layernorm's mean and inv_std_dev: src's shape with the normalized axes
 * (from 'axis' on, already checked) set to 1. */
int ln_ophook_layernorm_stat_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_axis(op_arg, "axis", -1, src->ndim);

    *ndim = src->ndim;
    for (int i = 0; i < src->ndim; i++)
        dims[i] = i < axis ? src->dims[i] : 1;
    return 0;
}

/* dst has src's shape once 'axis' is checked against src's rank. */
int ln_ophook_axis_same_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis;

    LN_OPCK(ln_ophook_check_axis(op_arg, "axis", axis_default(op_arg), src->ndim, &axis));
    *ndim = src->ndim;
    for (int i = 0; i < src->ndim; i++)
        dims[i] = src->dims[i];
    return 0;
}

/* argmax: src's shape with dims[axis] = 1 (keepdims) or removed. */
int ln_ophook_argmax_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int keep = ln_ophook_param_int(op_arg, "keepdims", 1), axis, n = 0;

    LN_OPCK(ln_ophook_check_axis(op_arg, "axis", 0, src->ndim, &axis));
    for (int i = 0; i < src->ndim; i++) {
        if (i != axis)
            dims[n++] = src->dims[i];
        else if (keep)
            dims[n++] = 1;
    }
    *ndim = n;
    return 0;
}

/* gather: src dims before axis, then indices' dims, then src dims after. */
int ln_ophook_gather_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *idx = ln_op_tensor_in(op_arg, "indices")->tensor;
    int axis, n = 0;

    LN_OPCK(ln_ophook_check_axis(op_arg, "axis", 0, src->ndim, &axis));
    LN_OPCK(ln_opck(op_arg, src->ndim - 1 + idx->ndim <= LN_MAXDIM,
                    "output rank %d is more than %d", src->ndim - 1 + idx->ndim, LN_MAXDIM));
    for (int i = 0; i < axis; i++)
        dims[n++] = src->dims[i];
    for (int i = 0; i < idx->ndim; i++)
        dims[n++] = idx->dims[i];
    for (int i = axis + 1; i < src->ndim; i++)
        dims[n++] = src->dims[i];
    *ndim = n;
    return 0;
}
