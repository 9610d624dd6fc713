/*
 * ln_ophook_reduce.c -- reduce_mean/sum/max/min over 'axes' (negative
 * count from the end; none: every axis, unless noop_with_empty_axes, then
 * none), keepdims.
 */
#include "ln_ophook.h"

static int axes_mask(const ln_op_arg *op_arg, uint32_t *mask)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axes[LN_MAXDIM], n;

    n = ln_ophook_param_ints(op_arg, "axes", axes, LN_MAXDIM);
    LN_OPCK(ln_opck(op_arg, n <= src->ndim, "'axes' has %d entries, 'src' has %d dims",
                    n, src->ndim));
    *mask = 0;
    if (n == 0) {
        if (!ln_ophook_param_int(op_arg, "noop_with_empty_axes", 0))
            *mask = src->ndim ? (uint32_t)((1u << src->ndim) - 1) : 0;
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int a = axes[i] < 0 ? axes[i] + src->ndim : axes[i];

        LN_OPCK(ln_opck(op_arg, a >= 0 && a < src->ndim && !(*mask & (1u << a)),
                        "'axes'[%d] (%d) is out of range or repeated for 'src' ndim %d",
                        i, axes[i], src->ndim));
        *mask |= 1u << a;
    }
    return 0;
}

int ln_ophook_reduce_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int keep = ln_ophook_param_int(op_arg, "keepdims", 1), n = 0;
    uint32_t mask;

    LN_OPCK(axes_mask(op_arg, &mask));
    for (int i = 0; i < src->ndim; i++) {
        if (!(mask & (1u << i)))
            dims[n++] = src->dims[i];
        else if (keep)
            dims[n++] = 1;
    }
    *ndim = n;
    return 0;
}

void ln_ophook_reduce_args(const ln_op_arg *op_arg, ln_rt_reduce_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    a->ndim = src->ndim;
    for (int i = 0; i < LN_RT_MAX_DIMS; i++)
        a->dims[i] = i < src->ndim ? src->dims[i] : 1;
    axes_mask(op_arg, &a->axes_mask);
}
