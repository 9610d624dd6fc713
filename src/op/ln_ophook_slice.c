/*
 * ln_ophook_slice.c -- slice in its two forms, as the runtime's general
 * ln_rt_slice_args:
 *   LightNet: 'axis', 'start', 'len' -- len elements from start on one axis;
 *   ONNX:     'starts', 'ends' and optional 'axes', 'steps' (Slice-1
 *             attributes, Slice-10+ constant inputs).  Negative starts and
 *             ends count from the end; they are clamped to the axis as ONNX
 *             says ([0, dim] for a positive step, [0, dim-1] and [-1, dim-1]
 *             for a negative one), so INT64_MAX-style "to the end" values
 *             work (params saturate them to INT_MAX).
 * Every axis not named is taken whole with step 1.
 */
#include "ln_ophook.h"

static int onnx_form(const ln_op_arg *op_arg, ln_rt_slice_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *st = ln_op_param(op_arg, "starts");
    const ln_param_entry *en = ln_op_param(op_arg, "ends");
    const ln_param_entry *ax = ln_op_param(op_arg, "axes");
    const ln_param_entry *sp = ln_op_param(op_arg, "steps");
    int n = st->array_len, seen[LN_MAXDIM] = {0};

    LN_OPCK(ln_opck(op_arg, en && en->array_len == n,
                    "'starts' has %d entries, 'ends' %d", n, en ? en->array_len : 0));
    LN_OPCK(ln_opck(op_arg, !ax || ax->array_len == 0 || ax->array_len == n,
                    "'axes' has %d entries, 'starts' %d", ax ? ax->array_len : 0, n));
    LN_OPCK(ln_opck(op_arg, !sp || sp->array_len == 0 || sp->array_len == n,
                    "'steps' has %d entries, 'starts' %d", sp ? sp->array_len : 0, n));
    LN_OPCK(ln_opck(op_arg, n <= src->ndim, "'starts' has %d entries, 'src' has %d dims",
                    n, src->ndim));
    for (int i = 0; i < n; i++) {
        int axis = ax && ax->array_len ? ax->value_array_int[i] : i;
        int step = sp && sp->array_len ? sp->value_array_int[i] : 1;
        int a0 = axis < 0 ? axis + src->ndim : axis;
        long d, s, e, len;

        LN_OPCK(ln_opck(op_arg, a0 >= 0 && a0 < src->ndim && !seen[a0],
                        "'axes'[%d] (%d) is out of range or repeated for 'src' ndim %d",
                        i, axis, src->ndim));
        LN_OPCK(ln_opck(op_arg, step != 0, "'steps'[%d] is 0", i));
        seen[a0] = 1;
        d = src->dims[a0];
        s = st->value_array_int[i];
        e = en->value_array_int[i];
        if (s < 0)
            s += d;
        if (e < 0)
            e += d;
        if (step > 0) {
            s = s < 0 ? 0 : s > d ? d : s;
            e = e < 0 ? 0 : e > d ? d : e;
            len = e > s ? (e - s + step - 1) / step : 0;
        } else {
            s = s < 0 ? 0 : s > d - 1 ? d - 1 : s;
            e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
            len = s > e ? (s - e + (-step) - 1) / (-step) : 0;
        }
        if (s >= d)             /* empty slice: any start inside the axis */
            s = d > 0 ? d - 1 : 0;
        a->starts[a0] = (int32_t)s;
        a->steps[a0] = step;
        a->dst_dims[a0] = (int32_t)len;
    }
    return 0;
}

static int lightnet_form(const ln_op_arg *op_arg, ln_rt_slice_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_param_int(op_arg, "axis", 0);
    int start = ln_ophook_param_int(op_arg, "start", 0);
    int len;

    LN_OPCK(ln_opck(op_arg, ln_op_param(op_arg, "len") != NULL,
                    "needs 'len' (with 'axis' and 'start') or ONNX-style 'starts' and 'ends'"));
    len = ln_ophook_param_int(op_arg, "len", 1);
    LN_OPCK(ln_opck(op_arg, axis < src->ndim,
                    "'axis' (%d) must be less than 'src' ndim (%d)", axis, src->ndim));
    /* start <= dims - len, not start + len <= dims: the params' checks
     * (axis, start >= 0, len >= 1) leave start + len free to overflow */
    LN_OPCK(ln_opck(op_arg, start <= src->dims[axis] - len,
                    "'start' (%d) + 'len' (%d) exceeds 'src' dims[%d] (%d)", start, len, axis,
                    src->dims[axis]));
    a->starts[axis] = start;
    a->dst_dims[axis] = len;
    return 0;
}

static int slice_args(const ln_op_arg *op_arg, ln_rt_slice_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *st = ln_op_param(op_arg, "starts");

    a->ndim = src->ndim;
    for (int i = 0; i < LN_RT_MAX_DIMS; i++) {
        a->src_dims[i] = i < src->ndim ? src->dims[i] : 1;
        a->starts[i] = 0;
        a->steps[i] = 1;
        a->dst_dims[i] = a->src_dims[i];
    }
    return st ? onnx_form(op_arg, a) : lightnet_form(op_arg, a);
}

int ln_ophook_slice_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    ln_rt_slice_args a;

    LN_OPCK(slice_args(op_arg, &a));
    *ndim = a.ndim;
    for (int i = 0; i < a.ndim; i++)
        dims[i] = a.dst_dims[i];
    return 0;
}

void ln_ophook_slice_args(const ln_op_arg *op_arg, ln_rt_slice_args *args)
{
    slice_args(op_arg, args);
}
