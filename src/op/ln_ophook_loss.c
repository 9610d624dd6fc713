/*
 * ln_ophook_loss.c -- nll_loss and softmax_cross_entropy (ONNX
 * NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss): the target's shape
 * against src's, the loss's shape by 'reduction', and the kernel's
 * ln_rt_loss_args (src as [n][c][d]).
 */
#include <stdint.h>
#include <string.h>
#include "ln_ophook.h"

/* 'target' must be src's shape without axis 1; dst is target's shape
 * (reduction "none") or a scalar. */
int ln_ophook_loss_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *target = ln_op_tensor_in(op_arg, "target")->tensor;
    const char *reduction = ln_ophook_param_str(op_arg, "reduction", "mean");
    char sb[128], tb[128];
    int same = target->ndim == src->ndim - 1 && target->dims[0] == src->dims[0];

    for (int i = 1; same && i < target->ndim; i++)
        same = target->dims[i] == src->dims[i + 1];
    LN_OPCK(ln_opck(op_arg, same, "'target' is %s, not 'src' (%s) without dims[1]",
                    ln_dims_str(tb, sizeof tb, target->ndim, target->dims),
                    ln_dims_str(sb, sizeof sb, src->ndim, src->dims)));
    LN_OPCK(ln_opck(op_arg, ln_ophook_dims_prod(src->dims, 2, src->ndim) <= INT32_MAX,
                    "'src' dims[2..] hold more than 2^31 - 1 elements"));
    if (strcmp(reduction, "none") == 0) {
        *ndim = target->ndim;
        memcpy(dims, target->dims, (size_t)target->ndim * sizeof *dims);
    } else {
        *ndim = 0;
    }
    return 0;
}

void ln_ophook_loss_args(const ln_op_arg *op_arg, ln_rt_loss_args *a)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    const char *reduction = ln_ophook_param_str(op_arg, "reduction", "mean");
    const ln_param_entry *ii = ln_op_param(op_arg, "ignore_index");

    memset(a, 0, sizeof *a);
    a->n = src->dims[0];
    a->c = src->dims[1];
    a->d = (int32_t)ln_ophook_dims_prod(src->dims, 2, src->ndim);
    a->reduction = strcmp(reduction, "none") == 0  ? LN_RT_LOSS_NONE
                   : strcmp(reduction, "sum") == 0 ? LN_RT_LOSS_SUM
                                                   : LN_RT_LOSS_MEAN;
    /* the default, -1e19, is no int64: nothing is ignored (pre_run has
     * checked that any other value is an int64) */
    if (ii && ii->value_double >= -9223372036854775808.0) {
        a->has_ignore = 1;
        a->ignore_index = (int64_t)ii->value_double;
    }
}
