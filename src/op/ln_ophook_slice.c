/*
 * ln_ophook_slice.c -- LightNet's slice (axis, start, len) as the runtime's
 * general ln_rt_slice_args: every other axis is taken whole, step 1.
 */
#include "ln_ophook.h"

void ln_ophook_slice_args(const ln_op_arg *op_arg, ln_rt_slice_args *args)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_op_param(op_arg, "axis")->value_int;
    int start = ln_op_param(op_arg, "start")->value_int;
    int len = ln_op_param(op_arg, "len")->value_int;

    args->ndim = src->ndim;
    for (int i = 0; i < src->ndim; i++) {
        args->src_dims[i] = src->dims[i];
        args->starts[i] = i == axis ? start : 0;
        args->steps[i] = 1;
        args->dst_dims[i] = i == axis ? len : src->dims[i];
    }
}
