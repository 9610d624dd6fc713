/*
 * ln_ophook_add.c -- numpy broadcasting for add (and the other binary
 * elementwise ops): shapes are right-aligned, and on each axis the two
 * extents are equal or one of them is 1.  And the indexing ops' shapes and
 * arguments (where, gather/scatter elements and ND, trilu).
 */
#include <string.h>
#include "ln_ophook.h"

int ln_ophook_add_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *a = ln_op_tensor_in(op_arg, "src1")->tensor;
    const ln_tensor *b = ln_op_tensor_in(op_arg, "src2")->tensor;
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;

    for (int i = 0; i < n; i++) {
        /* axis i counted from the right */
        int ia = a->ndim - 1 - i, ib = b->ndim - 1 - i;
        int da = ia >= 0 ? a->dims[ia] : 1;
        int db = ib >= 0 ? b->dims[ib] : 1;

        if (da != db && da != 1 && db != 1) {
            char sa[64], sb[64];
            return ln_opck(op_arg, LN_FALSE,
                           "'src1' %s and 'src2' %s do not broadcast (axis %d from the right: %d vs %d)",
                           ln_dims_str(sa, sizeof sa, a->ndim, a->dims),
                           ln_dims_str(sb, sizeof sb, b->ndim, b->dims), i, da, db);
        }
        dims[n - 1 - i] = da == 1 ? db : da;
    }
    *ndim = n;
    return 0;
}

void ln_ophook_add_bcast(const ln_op_arg *op_arg, ln_rt_bcast_args *bcast)
{
    const ln_tensor *a = ln_op_tensor_in(op_arg, "src1")->tensor;
    const ln_tensor *b = ln_op_tensor_in(op_arg, "src2")->tensor;
    const ln_tensor *y = ln_op_tensor_out(op_arg, "dst")->tensor;
    int n = y->ndim;

    bcast->ndim = n;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
        bcast->a_dims[i] = ia >= 0 ? a->dims[ia] : 1;
        bcast->b_dims[i] = ib >= 0 ? b->dims[ib] : 1;
        bcast->y_dims[i] = y->dims[i];
    }
}

/* where: cond, src1 (x) and src2 (y) broadcast together */
int ln_ophook_where_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *t[3] = {ln_op_tensor_in(op_arg, "cond")->tensor,
                             ln_op_tensor_in(op_arg, "src1")->tensor,
                             ln_op_tensor_in(op_arg, "src2")->tensor};
    int n = 0;

    for (int k = 0; k < 3; k++)
        n = t[k]->ndim > n ? t[k]->ndim : n;
    for (int i = 0; i < n; i++) {
        int d = 1;
        for (int k = 0; k < 3; k++) {
            int ik = t[k]->ndim - 1 - i, dk = ik >= 0 ? t[k]->dims[ik] : 1;
            if (dk != 1 && d != 1 && dk != d)
                return ln_opck(op_arg, LN_FALSE, "'cond', 'src1' and 'src2' do not broadcast "
                               "(axis %d from the right: %d vs %d)", i, d, dk);
            d = dk != 1 ? dk : d;
        }
        dims[n - 1 - i] = d;
    }
    *ndim = n;
    return 0;
}

void ln_ophook_where_args(const ln_op_arg *op_arg, ln_rt_where_args *a)
{
    const ln_tensor *c = ln_op_tensor_in(op_arg, "cond")->tensor;
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src1")->tensor;
    const ln_tensor *y = ln_op_tensor_in(op_arg, "src2")->tensor;
    const ln_tensor *o = ln_op_tensor_out(op_arg, "dst")->tensor;
    int n = o->ndim;

    a->ndim = n;
    for (int i = 0; i < n; i++) {
        int ic = i - (n - c->ndim), ix = i - (n - x->ndim), iy = i - (n - y->ndim);
        a->c_dims[i] = ic >= 0 ? c->dims[ic] : 1;
        a->x_dims[i] = ix >= 0 ? x->dims[ix] : 1;
        a->y_dims[i] = iy >= 0 ? y->dims[iy] : 1;
        a->o_dims[i] = o->dims[i];
    }
}

void ln_ophook_gather_elements_args(const ln_op_arg *op_arg, ln_rt_gather_elements_args *a)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *i = ln_op_tensor_in(op_arg, "indices")->tensor;

    a->ndim = x->ndim;
    a->axis = ln_ophook_axis(op_arg, "axis", 0, x->ndim);
    for (int d = 0; d < x->ndim; d++) {
        a->data_dims[d] = x->dims[d];
        a->idx_dims[d] = i->dims[d];
    }
}

void ln_ophook_trilu_args(const ln_op_arg *op_arg, ln_rt_trilu_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;

    a->m = src->dims[src->ndim - 2];
    a->n = src->dims[src->ndim - 1];
    a->batch = (int32_t)ln_ophook_dims_prod(src->dims, 0, src->ndim - 2);
}

/* GatherND: batch_dims shared leading axes, index tuples of the last axis
 * of indices, the slice after them. */
int ln_ophook_gather_nd_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *i = ln_op_tensor_in(op_arg, "indices")->tensor;
    int b = ln_ophook_param_int(op_arg, "batch_dims", 0), k = i->dims[i->ndim - 1], n = 0;

    LN_OPCK(ln_opck(op_arg, b < i->ndim && b < x->ndim,
                    "'batch_dims' (%d) must be below the ranks of 'src' (%d) and 'indices' (%d)",
                    b, x->ndim, i->ndim));
    for (int d = 0; d < b; d++)
        LN_OPCK(ln_opck(op_arg, i->dims[d] == x->dims[d],
                        "'indices' dim %d (%d) differs from 'src' dim %d (%d), a batch dim", d,
                        i->dims[d], d, x->dims[d]));
    LN_OPCK(ln_opck(op_arg, k >= 1 && b + k <= x->ndim,
                    "'indices' tuples of %d cannot index 'src' of %d dims after %d batch dims",
                    k, x->ndim, b));
    LN_OPCK(ln_opck(op_arg, i->ndim - 1 + x->ndim - b - k <= LN_MAXDIM,
                    "the output would have more than %d dims", LN_MAXDIM));
    for (int d = 0; d < i->ndim - 1; d++)
        dims[n++] = i->dims[d];
    for (int d = b + k; d < x->ndim; d++)
        dims[n++] = x->dims[d];
    *ndim = n;
    return 0;
}

int ln_ophook_scatter_nd_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *i = ln_op_tensor_in(op_arg, "indices")->tensor;
    const ln_tensor *u = ln_op_tensor_in(op_arg, "updates")->tensor;
    int k = i->dims[i->ndim - 1], ok;

    LN_OPCK(ln_opck(op_arg, k >= 1 && k <= x->ndim,
                    "'indices' tuples of %d cannot index 'src' of %d dims", k, x->ndim));
    ok = u->ndim == i->ndim - 1 + x->ndim - k;
    for (int d = 0; ok && d < u->ndim; d++)
        ok = u->dims[d] == (d < i->ndim - 1 ? i->dims[d] : x->dims[k + d - (i->ndim - 1)]);
    LN_OPCK(ln_opck(op_arg, ok, "'updates' must have the shape of 'indices' without its last "
                    "axis, then 'src' after the %d indexed dims", k));
    *ndim = x->ndim;
    for (int d = 0; d < x->ndim; d++)
        dims[d] = x->dims[d];
    return 0;
}

void ln_ophook_nd_args(const ln_op_arg *op_arg, ln_rt_nd_args *a)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *i = ln_op_tensor_in(op_arg, "indices")->tensor;
    int b = ln_ophook_param_int(op_arg, "batch_dims", 0);

    memset(a, 0, sizeof *a);
    a->k = i->dims[i->ndim - 1];
    for (int d = 0; d < a->k; d++)
        a->dims[d] = x->dims[b + d];
    a->batch = (int64_t)ln_ophook_dims_prod(x->dims, 0, b);
    a->count = (int64_t)ln_ophook_dims_prod(i->dims, b, i->ndim - 1);
    a->slice = (int64_t)ln_ophook_dims_prod(x->dims, b + a->k, x->ndim);
}

/* OneHot: indices' shape with depth inserted at axis (-1: last) */
int ln_ophook_onehot_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *i = ln_op_tensor_in(op_arg, "indices")->tensor;
    int axis = ln_ophook_param_int(op_arg, "axis", -1), n = i->ndim + 1, d = 0;
    ln_param_entry *pe = ln_op_param(op_arg, "depth");

    if (axis < 0)
        axis += n;
    for (int k = 0; k < n; k++)
        dims[k] = k == axis ? (int)pe->value_double : i->dims[d++];
    *ndim = n;
    return 0;
}

void ln_ophook_onehot_outer(const ln_op_arg *op_arg, int32_t *v)
{
    const ln_tensor *i = ln_op_tensor_in(op_arg, "indices")->tensor;
    int axis = ln_ophook_param_int(op_arg, "axis", -1);

    if (axis < 0)
        axis += i->ndim + 1;
    *v = (int32_t)ln_ophook_dims_prod(i->dims, 0, axis);
}
