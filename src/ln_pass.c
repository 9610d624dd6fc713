/*
 * ln_pass.c -- expander and combiner passes.
 *
 * Both walk ctx->ops once, asking the arch's generated rule functions in
 * order; the first rule that matches wins.  Replacements go through
 * ln_context_replace_ops, which keeps the tensor table and the data-flow
 * graph right (post_run of the old ops, pre_run of the new).
 */
#include "ln_pass.h"

int ln_pass_expander(ln_context *ctx, ln_expander_func *funcs)
{
    ln_list *l = ctx->ops;

    if (!funcs)
        return 0;
    while (l) {
        ln_op *op = l->data;
        ln_list *new_ops = NULL;
        int match = 0, n, ret;

        for (int i = 0; funcs[i] && !match; i++)
            new_ops = funcs[i](ctx, op, &match);
        if (!match) {
            l = l->next;
            continue;
        }
        n = ln_list_length(new_ops);
        if ((ret = ln_context_replace_ops(ctx, &l, 1, new_ops)))
            return ret;
        while (n-- > 0 && l)
            l = l->next;
    }
    return 0;
}

int ln_pass_combiner(ln_context *ctx, size_t win_size, ln_combiner_func *funcs)
{
    ln_list *l = ctx->ops;

    if (!funcs)
        return 0;
    while (l) {
        ln_list *new_ops = NULL;
        int match = 0, ret;

        if ((size_t)ln_list_length(l) < win_size)
            break;
        for (int i = 0; funcs[i] && !match; i++)
            new_ops = funcs[i](ctx, l, win_size, &match);
        if (!match) {
            l = l->next;
            continue;
        }
        /* look at the fused op again: chains fuse step by step */
        if ((ret = ln_context_replace_ops(ctx, &l, win_size, new_ops)))
            return ret;
    }
    return 0;
}

int ln_pass_check_arch(const ln_context *ctx, const char *arch)
{
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (!ln_streq(op->op_arg->arch, arch))
            return ln_error(LN_EUNSUPPORTED,
                            "%s (%s): no %s implementation of this op (arch is '%s')",
                            op->op_arg->name, op->op_arg->optype, arch, op->op_arg->arch);
    }
    return 0;
}
