/*
 * ln_ophook_pad.c -- pad (ONNX Pad: 'pads' is [begin_0.., end_0..], one
 * pair per axis, negative crops; mode constant / reflect / edge).
 */
#include <stdint.h>
#include <string.h>
#include "ln_ophook.h"

static int pad_args(const ln_op_arg *op_arg, ln_rt_pad_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "pads");
    const char *mode = ln_ophook_param_str(op_arg, "mode", "constant");
    int n = src->ndim;

    LN_OPCK(ln_opck(op_arg, pe->array_len == 2 * n,
                    "'pads' has %d entries, 'src' (ndim %d) needs %d", pe->array_len, n, 2 * n));
    a->ndim = n;
    a->mode = !strcmp(mode, "reflect") ? LN_RT_PAD_REFLECT
            : !strcmp(mode, "edge") ? LN_RT_PAD_EDGE : LN_RT_PAD_CONSTANT;
    a->value = ln_ophook_param_float(op_arg, "value", 0.0f);
    {   /* ln_rt_pad's fill: 'value' as one element of src's type */
        const ln_param_entry *ve = ln_op_param(op_arg, "value");
        double v = ve ? ve->value_double : 0.0;
        memset(a->fill, 0, sizeof(a->fill));
        LN_OPCK(ln_opck(op_arg, ln_dtype_size(src->dtype) <= sizeof(a->fill),
                        "'src' elements of %d bytes are too large", (int)ln_dtype_size(src->dtype)));
        if (ln_rt_cast(LN_RT_FLOAT64, &v, (ln_rt_dtype)src->dtype, a->fill, 1) != LN_RT_OK)
            return ln_opck(op_arg, 0, "'src' has a dtype Pad cannot fill (%s)",
                           ln_dtype_name(src->dtype));
    }
    for (int i = 0; i < LN_RT_MAX_DIMS; i++) {
        a->src_dims[i] = i < n ? src->dims[i] : 1;
        a->pads_begin[i] = i < n ? pe->value_array_int[i] : 0;
        a->pads_end[i] = i < n ? pe->value_array_int[n + i] : 0;
    }
    for (int i = 0; i < n; i++) {
        int d = src->dims[i], b = a->pads_begin[i], e = a->pads_end[i];

        LN_OPCK(ln_opck(op_arg, (int64_t)d + b + e >= 0,
                        "'pads' crop axis %d (%d) below 0 (%d + %d)", i, d, b, e));
        LN_OPCK(ln_opck(op_arg, (int64_t)d + b + e <= INT32_MAX,
                        "'pads' grow axis %d (%d) beyond %d (%d + %d)", i, d, INT32_MAX, b, e));
        if (a->mode == LN_RT_PAD_REFLECT)
            LN_OPCK(ln_opck(op_arg, b < d && e < d,
                            "mode 'reflect' needs pads smaller than the axis: axis %d is %d, "
                            "pads %d and %d", i, d, b, e));
        if (a->mode == LN_RT_PAD_EDGE)
            LN_OPCK(ln_opck(op_arg, d >= 1 || (b <= 0 && e <= 0),
                            "mode 'edge' cannot pad the empty axis %d", i));
    }
    return 0;
}

int ln_ophook_pad_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    ln_rt_pad_args a;

    LN_OPCK(pad_args(op_arg, &a));
    *ndim = a.ndim;
    for (int i = 0; i < a.ndim; i++)
        dims[i] = a.src_dims[i] + a.pads_begin[i] + a.pads_end[i];
    return 0;
}

void ln_ophook_pad_args(const ln_op_arg *op_arg, ln_rt_pad_args *args)
{
    pad_args(op_arg, args);
}
