/*
 * ln_ophook_quant.c -- quantize_linear / dequantize_linear: the
 * [outer][len][inner] view of 'src' around 'axis' (default 1, as ONNX)
 * when the scale has more than one entry (one per element of that axis:
 * the description checks it), else one run.  And the arguments of fc_s8,
 * add_s8, requantize_s8 and global_avgpool_s8, and of conv2d_integer,
 * conv3d_integer and matmul_integer (with matmul_integer's zero point
 * shapes).
 */
#include <stdio.h>
#include <string.h>
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

void ln_ophook_s8_fc_args(const ln_op_arg *op_arg, ln_rt_s8_fc_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;

    memset(a, 0, sizeof *a);
    a->batches = src->dims[0];
    a->in = src->dims[1];
    a->out = w->dims[0];
    a->input_offset = -ln_ophook_param_int(op_arg, "src_zero_point", 0);
    a->filter_offset = -ln_ophook_param_int(op_arg, "weight_zero_point", 0);
    a->output_offset = ln_ophook_param_int(op_arg, "dst_zero_point", 0);
    a->act_min = ln_ophook_param_int(op_arg, "act_min", -128);
    a->act_max = ln_ophook_param_int(op_arg, "act_max", 127);
    a->per_channel = 1;
}

void ln_ophook_s8_add_args(const ln_op_arg *op_arg, ln_rt_s8_binary_args *a)
{
    memset(a, 0, sizeof *a);
    a->in1_offset = -ln_ophook_param_int(op_arg, "src1_zero_point", 0);
    a->in2_offset = -ln_ophook_param_int(op_arg, "src2_zero_point", 0);
    a->output_offset = ln_ophook_param_int(op_arg, "dst_zero_point", 0);
    a->in1_mult = ln_ophook_param_int(op_arg, "src1_mult", 1073741824);
    a->in1_shift = ln_ophook_param_int(op_arg, "src1_shift", 0);
    a->in2_mult = ln_ophook_param_int(op_arg, "src2_mult", 1073741824);
    a->in2_shift = ln_ophook_param_int(op_arg, "src2_shift", 0);
    a->left_shift = 20;
    a->output_mult = ln_ophook_param_int(op_arg, "dst_mult", 1073741824);
    a->output_shift = ln_ophook_param_int(op_arg, "dst_shift", 0);
    a->act_min = ln_ophook_param_int(op_arg, "act_min", -128);
    a->act_max = ln_ophook_param_int(op_arg, "act_max", 127);
}

void ln_ophook_s8_requant_args(const ln_op_arg *op_arg, ln_rt_s8_requant_args *a)
{
    memset(a, 0, sizeof *a);
    a->input_offset = -ln_ophook_param_int(op_arg, "src_zero_point", 0);
    a->output_offset = ln_ophook_param_int(op_arg, "dst_zero_point", 0);
    a->mult = ln_ophook_param_int(op_arg, "mult", 1073741824);
    a->shift = ln_ophook_param_int(op_arg, "shift", 1);
    a->act_min = ln_ophook_param_int(op_arg, "act_min", -128);
    a->act_max = ln_ophook_param_int(op_arg, "act_max", 127);
}

/* conv2d_integer / matmul_integer: the operands' signedness and how many
 * zero points each has (0 when absent). */
static void integer_args(const ln_op_arg *op_arg, const char *x, const char *w,
                         ln_rt_integer_args *a)
{
    const ln_tensor_entry *xz, *wz;
    char name[32];

    memset(a, 0, sizeof *a);
    a->x_signed = ln_op_tensor_in(op_arg, x)->tensor->dtype == LN_DTYPE_INT8;
    a->w_signed = ln_op_tensor_in(op_arg, w)->tensor->dtype == LN_DTYPE_INT8;
    snprintf(name, sizeof name, "%s_zero_point", x);
    xz = ln_op_tensor_in(op_arg, name);
    snprintf(name, sizeof name, "%s_zero_point", w);
    wz = ln_op_tensor_in(op_arg, name);
    a->x_zp_len = xz ? (int32_t)xz->tensor->len : 0;
    a->w_zp_len = wz ? (int32_t)wz->tensor->len : 0;
}

/* conv2d_integer and conv3d_integer: the same names */
void ln_ophook_conv2d_integer_args(const ln_op_arg *op_arg, ln_rt_integer_args *a)
{
    integer_args(op_arg, "src", "weight", a);
}

void ln_ophook_matmul_integer_args(const ln_op_arg *op_arg, ln_rt_integer_args *a)
{
    integer_args(op_arg, "src1", "src2", a);
}

/*
 * A zero point shape of matmul_integer's operand x (src1 when !is_b, src2
 * when is_b) that ONNX's text or ONNX Runtime 1.30 gives a meaning: []
 * or [1] (per tensor); a vector of M (src1) or N (src2) when x is 2-D; or
 * x's own shape with K as 1 (src1 [..., M, 1] per row, src2 [..., 1, N]
 * per column of each matrix).  ONNX Runtime refuses every src1 shape but
 * the per-tensor ones and src2's batch dims of 1 that would broadcast
 * ([1, 1, N] for a [2, K, N] src2): so does this.  A NULL zp is fine.
 */
ln_bool ln_ophook_matmul_integer_zp_ok(const ln_tensor *x, const ln_tensor *zp, int is_b)
{
    int k_axis;

    if (!zp || (zp->ndim <= 1 && zp->len == 1))
        return LN_TRUE;
    if (x->ndim == 2 && zp->ndim == 1)
        return zp->dims[0] == x->dims[is_b ? 1 : 0];
    if (zp->ndim != x->ndim || x->ndim < 2)
        return LN_FALSE;
    k_axis = is_b ? x->ndim - 2 : x->ndim - 1;
    for (int i = 0; i < x->ndim; i++)
        if (zp->dims[i] != (i == k_axis ? 1 : x->dims[i]))
            return LN_FALSE;
    return LN_TRUE;
}
