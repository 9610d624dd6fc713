/* Hooks for the generator test descriptions: only their names matter to
 * the generator (it checks they are defined here). */
#include "ln_ophook.h"

int ln_ophook_conv2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *w = ln_op_tensor_in(op_arg, "weight")->tensor;

    *ndim = 4;
    dims[0] = src->dims[0];
    dims[1] = w->dims[0];
    dims[2] = src->dims[2] - w->dims[2] + 1;
    dims[3] = src->dims[3] - w->dims[3] + 1;
    return 0;
}

void ln_ophook_conv2d_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *args)
{
    (void)op_arg;
    args->group = 1;
}

size_t ln_ophook_flatten_offset(const ln_op_arg *op_arg, const ln_tensor_entry *te)
{
    (void)op_arg;
    (void)te;
    return 0;
}

int ln_ophook_split_dst_shape(const ln_op_arg *op_arg, int i, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    (void)i;
    *ndim = src->ndim;
    for (int d = 0; d < src->ndim; d++)
        dims[d] = src->dims[d];
    return 0;
}
