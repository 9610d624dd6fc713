/*
 * ln_ophook_quant.c -- quantize_linear / dequantize_linear: the
 * [outer][len][inner] view of 'src' around 'axis' (default 1, as ONNX)
 * when the scale has more than one entry (one per element of that axis:
 * the description checks it), else one run.
 */
#include "ln_ophook.h"

void ln_ophook_quant_args(const ln_op_arg *op_arg, ln_rt_quant_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *scale = ln_op_tensor_in(op_arg, "scale")->tensor;
    int axis;

    a->per_axis = scale->len > 1 && src->ndim > 0;
    if (!a->per_axis) {
        a->outer = 1;
        a->len = 1;
        a->inner = (int32_t)src->len;
        return;
    }
    axis = ln_ophook_axis(op_arg, "axis", 1, src->ndim);
    a->outer = (int32_t)ln_ophook_dims_prod(src->dims, 0, axis);
    a->len = src->dims[axis];
    a->inner = (int32_t)ln_ophook_dims_prod(src->dims, axis + 1, src->ndim);
}
