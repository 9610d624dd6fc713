/*
 * ln_ophook_reshape.c -- reshape's output shape (ONNX Reshape semantics):
 * a 0 copies src's dim at that index (unless the param 'allowzero' is
 * true: then it is a 0 dim), one -1 takes whatever is left; the element
 * count must not change.
 */
#include "ln_ophook.h"

int ln_ophook_reshape_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_param_entry *pe = ln_op_param(op_arg, "dims");
    int allowzero = ln_ophook_param_int(op_arg, "allowzero", 0);
    int n = pe->array_len, infer = -1;
    size_t known = 1;
    char s1[64], s2[64];

    for (int i = 0; i < n; i++) {
        int d = pe->value_array_int[i];

        if (d == -1) {
            if (infer >= 0)
                return ln_opck(op_arg, LN_FALSE,
                               "'dims' has more than one -1 (at %d and %d)", infer, i);
            infer = i;
            continue;
        }
        if (d == 0 && !allowzero) {
            if (i >= src->ndim)
                return ln_opck(op_arg, LN_FALSE,
                               "'dims'[%d] is 0 but 'src' has only %d dims", i, src->ndim);
            d = src->dims[i];
        }
        dims[i] = d;
        known *= (size_t)d;
    }
    if (infer >= 0) {
        if (known == 0 || src->len % known != 0)
            return ln_opck(op_arg, LN_FALSE,
                           "'dims' %s cannot hold the %zu elements of 'src' %s",
                           ln_dims_str(s1, sizeof s1, n, pe->value_array_int), src->len,
                           ln_dims_str(s2, sizeof s2, src->ndim, src->dims));
        dims[infer] = (int)(src->len / known);
        known = src->len;
    }
    if (known != src->len)
        return ln_opck(op_arg, LN_FALSE,
                       "'dims' %s makes %zu elements, 'src' %s has %zu",
                       ln_dims_str(s1, sizeof s1, n, dims), known,
                       ln_dims_str(s2, sizeof s2, src->ndim, src->dims), src->len);
    *ndim = n;
    return 0;
}
