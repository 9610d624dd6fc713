/*
 * ln_ophook_misc.c -- shapes and kernel arguments of the small ops in
 * gen/op_descs/misc.json: compress (a constant condition along an axis,
 * or over the flattened input when there is none), reverse_sequence, mvn
 * (its axes checked as a reduction's) and det.
 */
#include "ln_ophook.h"

/* compress: 'axis' of this value means ONNX's absent axis (flattened) */
#define COMPRESS_NO_AXIS 2147483647

/* [outer][len][inner] around compress's axis */
static int compress_view(const ln_op_arg *op_arg, ln_rt_compress_args *a, int *axis)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int ax = ln_ophook_param_int(op_arg, "axis", COMPRESS_NO_AXIS);

    if (ax == COMPRESS_NO_AXIS) {
        a->outer = a->inner = 1;
        a->len = (int32_t)src->len;
        *axis = -1;
        return 0;
    }
    LN_OPCK(ln_ophook_check_axis(op_arg, "axis", 0, src->ndim, axis));
    a->outer = (int32_t)ln_ophook_dims_prod(src->dims, 0, *axis);
    a->len = src->dims[*axis];
    a->inner = (int32_t)ln_ophook_dims_prod(src->dims, *axis + 1, src->ndim);
    return 0;
}

int ln_ophook_compress_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *c = ln_op_param(op_arg, "condition");
    ln_rt_compress_args a;
    int axis, n = 0;

    LN_OPCK(compress_view(op_arg, &a, &axis));
    for (int j = 0; j < c->array_len; j++) {
        if (!c->value_array_bool[j])
            continue;
        LN_OPCK(ln_opck(op_arg, j < a.len, "'condition' selects index %d, beyond the %d "
                        "elements along the axis", j, a.len));
        n++;
    }
    LN_OPCK(ln_opck(op_arg, n > 0, "'condition' selects nothing (the result would be empty)"));
    if (axis < 0) {
        *ndim = 1;
        dims[0] = n;
        return 0;
    }
    *ndim = src->ndim;
    for (int d = 0; d < src->ndim; d++)
        dims[d] = d == axis ? n : src->dims[d];
    return 0;
}

void ln_ophook_compress_args(const ln_op_arg *op_arg, ln_rt_compress_args *a)
{
    int axis;
    compress_view(op_arg, a, &axis);
}

void ln_ophook_reverse_sequence_args(const ln_op_arg *op_arg, ln_rt_reverse_sequence_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    a->time_axis = ln_ophook_param_int(op_arg, "time_axis", 0);
    a->time = src->dims[a->time_axis];
    a->batch = src->dims[1 - a->time_axis];
    a->inner = (int32_t)ln_ophook_dims_prod(src->dims, 2, src->ndim);
}

/* mvn: src's shape, once 'axes' is checked as a reduction's */
int ln_ophook_mvn_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    LN_OPCK(ln_ophook_reduce_dst_shape(op_arg, ndim, dims));
    *ndim = src->ndim;
    for (int d = 0; d < src->ndim; d++)
        dims[d] = src->dims[d];
    return 0;
}

/* det: the matrices' order */
void ln_ophook_det_n(const ln_op_arg *op_arg, int32_t *n)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    *n = src->dims[src->ndim - 1];
}
