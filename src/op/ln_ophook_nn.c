/*
 * ln_ophook_nn.c -- what the hooks of the neural-network ops share:
 * reading a param with its described default (pre_run has checked type
 * and range, so a param is either absent or right), normalizing an axis,
 * products of dims, and the padding of a 2-D window (conv, pool) under
 * ONNX's auto_pad.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "ln_ophook.h"

int ln_ophook_param_int(const ln_op_arg *op_arg, const char *name, int def)
{
    const ln_param_entry *pe = ln_op_param(op_arg, name);

    if (!pe)
        return def;
    if (pe->type == LN_PARAM_BOOL)
        return pe->value_bool ? 1 : 0;
    return pe->value_int;
}

float ln_ophook_param_float(const ln_op_arg *op_arg, const char *name, float def)
{
    const ln_param_entry *pe = ln_op_param(op_arg, name);

    return pe ? pe->value_float : def;
}

const char *ln_ophook_param_str(const ln_op_arg *op_arg, const char *name,
                                const char *def)
{
    const ln_param_entry *pe = ln_op_param(op_arg, name);

    return pe && pe->value_string ? pe->value_string : def;
}

int ln_ophook_param_ints(const ln_op_arg *op_arg, const char *name, int *out,
                         int max)
{
    const ln_param_entry *pe = ln_op_param(op_arg, name);
    int n;

    if (!pe || pe->type != LN_PARAM_ARRAY_NUMBER)
        return 0;
    n = pe->array_len < max ? pe->array_len : max;
    for (int i = 0; i < n; i++)
        out[i] = pe->value_array_int[i];
    return pe->array_len;
}

int ln_ophook_axis(const ln_op_arg *op_arg, const char *name, int def, int ndim)
{
    int axis = ln_ophook_param_int(op_arg, name, def);

    return axis < 0 ? axis + ndim : axis;
}

int ln_ophook_check_axis(const ln_op_arg *op_arg, const char *name, int def,
                         int ndim, int *axis)
{
    int a = ln_ophook_param_int(op_arg, name, def);

    *axis = a < 0 ? a + ndim : a;
    return ln_opck(op_arg, *axis >= 0 && *axis < ndim,
                   "'%s' (%d) is out of range for 'src' ndim %d (%d..%d)",
                   name, a, ndim, -ndim, ndim - 1);
}

size_t ln_ophook_dims_prod(const int *dims, int from, int to)
{
    size_t p = 1;

    for (int i = from; i < to; i++)
        p *= (size_t)dims[i];
    return p;
}

/*
 * ONNX auto_pad: NOTSET takes 'pads' as given; VALID pads nothing; SAME_*
 * pads so that out = ceil(in / stride), the odd pixel at the end (UPPER) or
 * the beginning (LOWER).  pads is [top, left, bottom, right], the order of
 * ONNX's [x1_begin, x2_begin, x1_end, x2_end].
 */
void ln_ophook_window_pads(const ln_op_arg *op_arg, const int *in, const int *k,
                           const int *stride, const int *dil, int *pads)
{
    const char *ap = ln_ophook_param_str(op_arg, "auto_pad", "NOTSET");

    memset(pads, 0, 4 * sizeof *pads);
    if (!strcmp(ap, "NOTSET")) {
        ln_ophook_param_ints(op_arg, "pads", pads, 4);
        return;
    }
    if (!strcmp(ap, "VALID"))
        return;
    for (int i = 0; i < 2; i++) {
        /* in 64 bits; a total beyond int32 is saturated and then refused by
         * ln_ophook_window_check */
        int64_t out = ((int64_t)in[i] + stride[i] - 1) / stride[i];
        int64_t total = (out - 1) * stride[i] + ((int64_t)k[i] - 1) * dil[i] + 1 - in[i];
        int64_t small;

        if (total < 0)
            total = 0;
        if (total > INT32_MAX)
            total = INT32_MAX;
        small = total / 2;
        pads[i] = (int)(!strcmp(ap, "SAME_LOWER") ? total - small : small);
        pads[i + 2] = (int)(total - pads[i]);
    }
}

int ln_ophook_window_check(const ln_op_arg *op_arg, const int *in, const int *k,
                           const int *dil, const int *pads)
{
    for (int i = 0; i < 2; i++) {
        int64_t padded = (int64_t)in[i] + pads[i] + pads[i + 2];
        int64_t window = (int64_t)dil[i] * (k[i] - 1) + 1;

        LN_OPCK(ln_opck(op_arg, padded <= INT32_MAX && window <= INT32_MAX,
                        "spatial axis %d: input %d padded by %d and %d, window %d dilated by "
                        "%d exceed %d", i, in[i], pads[i], pads[i + 2], k[i], dil[i],
                        INT32_MAX));
    }
    return 0;
}

/* Fused activation params (activation, act_alpha, act_beta) of conv2d,
 * conv_transpose2d and gemm. */
ln_rt_act ln_ophook_act_prefixed(const ln_op_arg *op_arg, const char *prefix,
                                  float *alpha, float *beta)
{
    static const char *const names[] = {"none", "relu", "relu6", "leakyrelu", "clip", "silu",
                                        "hardswish"};
    char name[32];
    const char *a;
    ln_rt_act act = LN_RT_ACT_NONE;

    snprintf(name, sizeof name, "%sactivation", prefix);
    a = ln_ophook_param_str(op_arg, name, "none");
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
        if (!strcmp(a, names[i]))
            act = (ln_rt_act)i;
    snprintf(name, sizeof name, "%sact_alpha", prefix);
    *alpha = ln_ophook_param_float(op_arg, name, 0.01f);
    snprintf(name, sizeof name, "%sact_beta", prefix);
    *beta = ln_ophook_param_float(op_arg, name, 6.0f);
    return act;
}

ln_rt_act ln_ophook_act(const ln_op_arg *op_arg, float *alpha, float *beta)
{
    return ln_ophook_act_prefixed(op_arg, "", alpha, beta);
}

/* cast_cpu between equal dtypes: a plain copy (nothing when in place). */
void ln_ophook_copy(const ln_tensor *src, ln_tensor *dst)
{
    if (dst->data != src->data)
        memcpy(dst->data, src->data, ln_tensor_size(src));
}
