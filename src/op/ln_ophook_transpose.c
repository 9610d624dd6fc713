/*
 * ln_ophook_transpose.c -- transpose (perm, default reversed axes) and the
 * view ops flatten, squeeze and unsqueeze, whose output is their input's
 * memory under new dims.
 */
#include "ln_ophook.h"

static void perm_of(const ln_op_arg *op_arg, int ndim, int *perm)
{
    if (ln_ophook_param_ints(op_arg, "perm", perm, LN_MAXDIM) == 0)
        for (int i = 0; i < ndim; i++)
            perm[i] = ndim - 1 - i;
}

int ln_ophook_transpose_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "perm");
    int perm[LN_MAXDIM], seen[LN_MAXDIM] = {0};

    if (pe && pe->array_len > 0)
        LN_OPCK(ln_opck(op_arg, pe->array_len == src->ndim,
                        "'perm' has %d entries, 'src' has %d dims", pe->array_len, src->ndim));
    perm_of(op_arg, src->ndim, perm);
    for (int i = 0; i < src->ndim; i++) {
        LN_OPCK(ln_opck(op_arg, perm[i] >= 0 && perm[i] < src->ndim && !seen[perm[i]]++,
                        "'perm' is not a permutation of 0..%d (entry %d is %d)",
                        src->ndim - 1, i, perm[i]));
        dims[i] = src->dims[perm[i]];
    }
    *ndim = src->ndim;
    return 0;
}

void ln_ophook_transpose_args(const ln_op_arg *op_arg, ln_rt_transpose_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int perm[LN_MAXDIM];

    perm_of(op_arg, src->ndim, perm);
    a->ndim = src->ndim;
    for (int i = 0; i < LN_RT_MAX_DIMS; i++) {
        a->src_dims[i] = i < src->ndim ? src->dims[i] : 1;
        a->perm[i] = i < src->ndim ? perm[i] : i;
    }
}

/* flatten: [prod(dims[:axis]), prod(dims[axis:])], axis in [-r, r]. */
int ln_ophook_flatten_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int a = ln_ophook_param_int(op_arg, "axis", 1);
    int axis = a < 0 ? a + src->ndim : a;

    LN_OPCK(ln_opck(op_arg, axis >= 0 && axis <= src->ndim,
                    "'axis' (%d) is out of range for 'src' ndim %d (%d..%d)", a, src->ndim,
                    -src->ndim, src->ndim));
    *ndim = 2;
    dims[0] = (int)ln_ophook_dims_prod(src->dims, 0, axis);
    dims[1] = (int)ln_ophook_dims_prod(src->dims, axis, src->ndim);
    return 0;
}

/* squeeze: drop the listed axes (each must be 1), or every 1 when none. */
int ln_ophook_squeeze_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axes[LN_MAXDIM], drop[LN_MAXDIM] = {0}, na, n = 0;

    na = ln_ophook_param_ints(op_arg, "axes", axes, LN_MAXDIM);
    LN_OPCK(ln_opck(op_arg, na <= src->ndim, "'axes' has %d entries, 'src' has %d dims",
                    na, src->ndim));
    for (int i = 0; i < na; i++) {
        int a = axes[i] < 0 ? axes[i] + src->ndim : axes[i];

        LN_OPCK(ln_opck(op_arg, a >= 0 && a < src->ndim && !drop[a],
                        "'axes'[%d] (%d) is out of range or repeated for 'src' ndim %d",
                        i, axes[i], src->ndim));
        LN_OPCK(ln_opck(op_arg, src->dims[a] == 1,
                        "'axes'[%d]: 'src' dims[%d] is %d, not 1", i, a, src->dims[a]));
        drop[a] = 1;
    }
    for (int i = 0; i < src->ndim; i++)
        if (!(na ? drop[i] : src->dims[i] == 1))
            dims[n++] = src->dims[i];
    *ndim = n;
    return 0;
}

/* unsqueeze: insert 1s at the listed axes of the output. */
int ln_ophook_unsqueeze_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axes[LN_MAXDIM], one[LN_MAXDIM] = {0}, na, n, k = 0;

    na = ln_ophook_param_ints(op_arg, "axes", axes, LN_MAXDIM);
    n = src->ndim + na;
    LN_OPCK(ln_opck(op_arg, n <= LN_MAXDIM, "output rank %d is more than %d", n, LN_MAXDIM));
    for (int i = 0; i < na; i++) {
        int a = axes[i] < 0 ? axes[i] + n : axes[i];

        LN_OPCK(ln_opck(op_arg, a >= 0 && a < n && !one[a],
                        "'axes'[%d] (%d) is out of range or repeated for output ndim %d",
                        i, axes[i], n));
        one[a] = 1;
    }
    for (int i = 0; i < n; i++)
        dims[i] = one[i] ? 1 : src->dims[k++];
    *ndim = n;
    return 0;
}
