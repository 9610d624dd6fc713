/*
 * ln_ophook_concat.c -- concat (variadic inputs src_0, src_1, ...) and
 * split (variadic outputs dst_0, dst_1, ...) along 'axis' (negative counts
 * from the end): shapes, and the [outer][axis_dims[i]][inner] view the
 * kernels take.
 */
#include <stdio.h>
#include "ln_ophook.h"

static const ln_tensor *nth(const ln_op_arg *op_arg, ln_list *list, const char *prefix, int i)
{
    char an[32];
    const char *name;
    ln_tensor_entry *te;

    snprintf(an, sizeof an, "%s_%d", prefix, i);
    name = ln_tensor_list_find_name(list, an);
    te = name ? ln_tensor_table_find(op_arg->tensor_table, name) : NULL;
    return te ? te->tensor : NULL;
}

int ln_ophook_concat_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *s0 = nth(op_arg, op_arg->tensors_in, "src", 0), *s;
    int axis;

    LN_OPCK(ln_ophook_check_axis(op_arg, "axis", 0, s0->ndim, &axis));
    *ndim = s0->ndim;
    for (int d = 0; d < s0->ndim; d++)
        dims[d] = s0->dims[d];
    for (int i = 1; (s = nth(op_arg, op_arg->tensors_in, "src", i)); i++) {
        char a[64], b[64];

        LN_OPCK(ln_opck(op_arg, s->ndim == s0->ndim,
                        "'src_%d' %s and 'src_0' %s differ in rank", i,
                        ln_dims_str(a, sizeof a, s->ndim, s->dims),
                        ln_dims_str(b, sizeof b, s0->ndim, s0->dims)));
        for (int d = 0; d < s0->ndim; d++)
            LN_OPCK(ln_opck(op_arg, d == axis || s->dims[d] == s0->dims[d],
                            "'src_%d' %s and 'src_0' %s differ in dims[%d] (concat axis is %d)",
                            i, ln_dims_str(a, sizeof a, s->ndim, s->dims),
                            ln_dims_str(b, sizeof b, s0->ndim, s0->dims), d, axis));
        dims[axis] += s->dims[axis];
    }
    return 0;
}

void ln_ophook_concat_args(const ln_op_arg *op_arg, ln_rt_concat_args *a)
{
    const ln_tensor *dst = ln_op_tensor_out(op_arg, "dst")->tensor, *s;
    int axis = ln_ophook_axis(op_arg, "axis", 0, dst->ndim);

    a->outer = (int32_t)ln_ophook_dims_prod(dst->dims, 0, axis);
    a->inner = (int32_t)ln_ophook_dims_prod(dst->dims, axis + 1, dst->ndim);
    for (int i = 0; i < LN_RT_MAX_VARIADIC; i++)
        a->axis_dims[i] = 0;
    for (int i = 0; (s = nth(op_arg, op_arg->tensors_in, "src", i)); i++)
        a->axis_dims[i] = s->dims[axis];
}

/* The size of output i along axis: 'split' when given, else equal parts
 * (the last one smaller when the axis does not divide, as ONNX 18 does). */
static int split_size(const ln_op_arg *op_arg, const ln_tensor *src, int axis, int n, int i)
{
    const ln_param_entry *pe = ln_op_param(op_arg, "split");
    int len = src->dims[axis], part;

    if (pe && pe->array_len > 0)
        return i < pe->array_len ? pe->value_array_int[i] : 0;
    part = (len + n - 1) / n;
    return i < n - 1 ? part : len - part * (n - 1);
}

static int split_count(const ln_op_arg *op_arg)
{
    char an[32];
    int n = 0;

    for (;; n++) {
        snprintf(an, sizeof an, "dst_%d", n);
        if (!ln_tensor_list_find_name(op_arg->tensors_out, an))
            return n;
    }
}

int ln_ophook_split_dst_shape(const ln_op_arg *op_arg, int i, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "split");
    int n = split_count(op_arg), axis;

    LN_OPCK(ln_ophook_check_axis(op_arg, "axis", 0, src->ndim, &axis));
    if (pe && pe->array_len > 0) {
        int sum = 0;

        LN_OPCK(ln_opck(op_arg, pe->array_len == n,
                        "'split' has %d sizes for %d outputs", pe->array_len, n));
        for (int k = 0; k < pe->array_len; k++)
            sum += pe->value_array_int[k];
        LN_OPCK(ln_opck(op_arg, sum == src->dims[axis],
                        "'split' sizes add up to %d, 'src' dims[%d] is %d", sum, axis,
                        src->dims[axis]));
    } else {
        LN_OPCK(ln_opck(op_arg, split_size(op_arg, src, axis, n, n - 1) >= 0,
                        "'src' dims[%d] (%d) cannot be split into %d parts", axis,
                        src->dims[axis], n));
    }
    *ndim = src->ndim;
    for (int d = 0; d < src->ndim; d++)
        dims[d] = src->dims[d];
    dims[axis] = split_size(op_arg, src, axis, n, i);
    return 0;
}

void ln_ophook_split_args(const ln_op_arg *op_arg, ln_rt_concat_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int axis = ln_ophook_axis(op_arg, "axis", 0, src->ndim);
    int n = split_count(op_arg);

    a->outer = (int32_t)ln_ophook_dims_prod(src->dims, 0, axis);
    a->inner = (int32_t)ln_ophook_dims_prod(src->dims, axis + 1, src->ndim);
    for (int i = 0; i < LN_RT_MAX_VARIADIC; i++)
        a->axis_dims[i] = i < n ? split_size(op_arg, src, axis, n, i) : 0;
}
