/*
 * ln_ophook_tile.c -- tile ('repeats' per axis) and expand (numpy
 * broadcast of src to 'shape'), both as ln_rt_tile_args: dst index i reads
 * src index i % src_dims on every axis.
 */
#include "ln_ophook.h"

int ln_ophook_tile_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "repeats");

    LN_OPCK(ln_opck(op_arg, pe->array_len == src->ndim,
                    "'repeats' has %d entries, 'src' has %d dims", pe->array_len, src->ndim));
    for (int i = 0; i < src->ndim; i++)
        dims[i] = src->dims[i] * pe->value_array_int[i];
    *ndim = src->ndim;
    return 0;
}

int ln_ophook_expand_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "shape");
    int n = pe->array_len > src->ndim ? pe->array_len : src->ndim;

    LN_OPCK(ln_opck(op_arg, n <= LN_MAXDIM, "rank %d is more than %d", n, LN_MAXDIM));
    for (int i = 0; i < n; i++) {
        int is = src->ndim - n + i, ip = pe->array_len - n + i;
        int ds = is >= 0 ? src->dims[is] : 1, dp = ip >= 0 ? pe->value_array_int[ip] : 1;

        LN_OPCK(ln_opck(op_arg, ds == dp || ds == 1 || dp == 1,
                        "'src' does not broadcast to 'shape' (axis %d from the right: %d vs %d)",
                        n - 1 - i, ds, dp));
        dims[i] = ds == 1 ? dp : ds;
    }
    *ndim = n;
    return 0;
}

void ln_ophook_tile_args(const ln_op_arg *op_arg, ln_rt_tile_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *dst = ln_op_tensor_out(op_arg, "dst")->tensor;
    int n = dst->ndim;

    a->ndim = n;
    for (int i = 0; i < LN_RT_MAX_DIMS; i++) {
        int is = i - (n - src->ndim);

        a->src_dims[i] = i < n && is >= 0 ? src->dims[is] : 1;
        a->dst_dims[i] = i < n ? dst->dims[i] : 1;
    }
}
