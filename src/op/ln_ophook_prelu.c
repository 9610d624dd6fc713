/*
 * ln_ophook_prelu.c -- prelu's slope broadcasts one way onto src (ONNX
 * "unidirectional broadcasting"): right-aligned, every slope extent equals
 * src's or is 1, and slope has no more axes than src. dst has src's shape.
 */
#include "ln_ophook.h"

int ln_ophook_prelu_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *s = ln_op_tensor_in(op_arg, "slope")->tensor;
    char sx[64], ss[64];

    if (s->ndim > x->ndim)
        return ln_opck(op_arg, LN_FALSE,
                       "'slope' %s has more axes than 'src' %s",
                       ln_dims_str(ss, sizeof ss, s->ndim, s->dims),
                       ln_dims_str(sx, sizeof sx, x->ndim, x->dims));
    for (int i = 0; i < s->ndim; i++) {
        /* axis i counted from the right */
        int ds = s->dims[s->ndim - 1 - i], dx = x->dims[x->ndim - 1 - i];

        if (ds != dx && ds != 1)
            return ln_opck(op_arg, LN_FALSE,
                           "'slope' %s does not broadcast to 'src' %s (axis %d from the right: %d vs %d)",
                           ln_dims_str(ss, sizeof ss, s->ndim, s->dims),
                           ln_dims_str(sx, sizeof sx, x->ndim, x->dims), i, ds, dx);
    }
    *ndim = x->ndim;
    for (int i = 0; i < x->ndim; i++)
        dims[i] = x->dims[i];
    return 0;
}

void ln_ophook_prelu_bcast(const ln_op_arg *op_arg, ln_rt_bcast_args *bcast)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *s = ln_op_tensor_in(op_arg, "slope")->tensor;
    int n = x->ndim;

    bcast->ndim = n;
    for (int i = 0; i < n; i++) {
        int is = i - (n - s->ndim);
        bcast->a_dims[i] = x->dims[i];
        bcast->b_dims[i] = is >= 0 ? s->dims[is] : 1;
        bcast->y_dims[i] = x->dims[i];
    }
}
