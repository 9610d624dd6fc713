/*
 * ln_ophook_argmin.c -- argmin's [outer][len][inner] view around 'axis'
 * (absent: 0, as in ONNX ArgMin and the description). The shared
 * ln_ophook_axis_* hooks default an absent axis to -1 for ops other than
 * gather and argmax, so argmin has its own.
 */
#include "ln_ophook.h"

static void view3_axis0(const ln_op_arg *op_arg, int32_t *outer, int32_t *len,
                        int32_t *inner)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_axis(op_arg, "axis", 0, src->ndim);

    *outer = (int32_t)ln_ophook_dims_prod(src->dims, 0, axis);
    *len = src->dims[axis];
    *inner = (int32_t)ln_ophook_dims_prod(src->dims, axis + 1, src->ndim);
}

void ln_ophook_argmin_outer(const ln_op_arg *op_arg, int32_t *v)
{
    int32_t l, i;

    view3_axis0(op_arg, v, &l, &i);
}

void ln_ophook_argmin_len(const ln_op_arg *op_arg, int32_t *v)
{
    int32_t o, i;

    view3_axis0(op_arg, &o, v, &i);
}

void ln_ophook_argmin_inner(const ln_op_arg *op_arg, int32_t *v)
{
    int32_t o, l;

    view3_axis0(op_arg, &o, &l, v);
}
