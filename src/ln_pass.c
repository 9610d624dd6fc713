/*
 * ln_pass.c -- expander and combiner passes.
 *
 * Both walk ctx->ops once, asking the arch's generated rule functions in
 * order; the first rule that matches wins.  Replacements go through
 * ln_context_replace_ops, which keeps the tensor table and the data-flow
 * graph right (post_run of the old ops, pre_run of the new).
 */
#include <string.h>
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

/* ---- constant folding ---------------------------------------------------- */

static ln_bool is_base(const ln_op *op, const char *base)
{
    size_t n = strlen(base);
    const char *t = op->op_arg->optype;
    return strncmp(t, base, n) == 0 && (t[n] == '\0' || t[n] == '_');
}

/* A create op (of op's arch) for constant tname read from the store. */
static ln_op *const_op(ln_context *ctx, const char *arch, const char *tname,
                       const ln_tensor *t)
{
    char optype[64], name[256];
    const ln_op *proto;
    double dims[LN_MAXDIM];
    ln_list *params = NULL;

    snprintf(optype, sizeof optype, ln_streq(arch, "none") ? "create" : "create_%s", arch);
    proto = ln_arch_op_proto(optype);
    if (!proto)
        return NULL;
    for (int i = 0; i < t->ndim; i++)
        dims[i] = t->dims[i];
    params = ln_param_list_append_string(params, "dtype", ln_dtype_name(t->dtype));
    params = ln_param_list_append_array_number(params, "dims", t->ndim, dims);
    params = ln_param_list_append_bool(params, "from_file", LN_TRUE);
    snprintf(name, sizeof name, "%s", tname);
    if (ln_op_table_find(ctx->op_table, name))
        ln_op_list_unique_name(ctx->ops, name, sizeof name, tname);
    return ln_op_create_from_proto(proto, name, NULL,
                                   ln_tensor_list_append(NULL, "dst", tname), params,
                                   ctx->tensor_table);
}

static ln_bool foldable(const ln_context *ctx, const ln_op *op)
{
    if (is_base(op, "create") || is_base(op, "input") || is_base(op, "output") ||
        is_base(op, "print") || !op->op_arg->tensors_in || !op->op_arg->tensors_out)
        return LN_FALSE;
    if (!op->run && op->mem_kind != LN_MEMPLAN_VIEW)
        return LN_FALSE;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        if (!te || !te->isstatic)
            return LN_FALSE;
    }
    /* a graph output stays computed by the stream, not a constant */
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        if (!te || te->is_io)
            return LN_FALSE;
    }
    return LN_TRUE;
}

/* Run op on materialized constant inputs; its outputs go to the store. */
static int fold_one(ln_context *ctx, ln_op *op, ln_list **new_ops)
{
    ln_list *outs = NULL;
    int ret = 0;

    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
        ln_tensor *t;
        if ((ret = ln_context_static_data(ctx, tl->name, &t)))
            return ret;
    }
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        size_t n = ln_tensor_size(te->tensor);
        te->tensor->data = ln_mem_type_info(LN_MEM_CPU)->alloc_func(n ? n : 1);
        te->tensor->owns_data = LN_TRUE;
        outs = ln_list_append(outs, te);
    }
    if (op->run) {
        ret = op->run(op->op_arg);
    } else {
        /* a view: the bytes of its input at the view's offset */
        const char *in = ln_tensor_list_find_name(op->op_arg->tensors_in, op->mem_in);
        ln_tensor_entry *src = in ? ln_tensor_table_find(ctx->tensor_table, in) : NULL;
        ln_tensor_entry *dst = outs->data;
        size_t off = op->calc_offset ? op->calc_offset(op->op_arg, dst) : 0;
        if (!src || off + ln_tensor_size(dst->tensor) > ln_tensor_size(src->tensor))
            ret = ln_error(LN_EINVAL, "%s (%s): cannot fold this view", op->op_arg->name,
                           op->op_arg->optype);
        else
            memcpy(dst->tensor->data, (char *)src->tensor->data + off,
                   ln_tensor_size(dst->tensor));
    }
    LN_LIST_FOREACH(ln_tensor_entry, te, outs) {
        ln_tensor_list_entry *tl = ln_tensor_list_find_by_name(op->op_arg->tensors_out, te->name);
        if (!ret && !ln_streq(tl->arg_name, "scratch")) {
            ln_op *c;
            ln_context_const_set(ctx, te->name, ln_tensor_copy(te->tensor));
            if (!(c = const_op(ctx, op->op_arg->arch, te->name, te->tensor)))
                ret = ln_error(LN_EUNSUPPORTED, "no create op for arch '%s'", op->op_arg->arch);
            else
                *new_ops = ln_list_append(*new_ops, c);
        }
    }
    ln_list_free(outs);
    return ret;
}

int ln_pass_fold_constants(ln_context *ctx)
{
    ln_list *l = ctx->ops;
    int ret;

    while (l) {
        ln_op *op = l->data;
        ln_list *new_ops = NULL;
        int n;

        if (!foldable(ctx, op)) {
            l = l->next;
            continue;
        }
        if ((ret = fold_one(ctx, op, &new_ops))) {
            ln_op_list_free_deep(new_ops);
            return ret;
        }
        n = ln_list_length(new_ops);
        if ((ret = ln_context_replace_ops(ctx, &l, 1, new_ops)))
            return ret;
        while (n-- > 0 && l)
            l = l->next;
    }
    return 0;
}

/* ---- dead ops and identities --------------------------------------------- */

int ln_pass_remove_dead(ln_context *ctx)
{
    ln_bool changed = LN_TRUE;
    int ret;

    /* removing one dead op can make its producers dead: repeat to a fixpoint */
    while (changed) {
        changed = LN_FALSE;
        for (ln_list *l = ctx->ops; l;) {
            ln_op *op = l->data;
            ln_bool dead = op->op_arg->tensors_out != NULL;
            l = l->next;
            LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
                ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
                if (ln_streq(tl->arg_name, "scratch"))
                    continue;
                if ((te && te->is_io) || ln_dfg_num_readers(ctx->dfg, tl->name) > 0) {
                    dead = LN_FALSE;
                    break;
                }
            }
            if (dead && !is_base(op, "input")) {
                if ((ret = ln_context_remove_op(ctx, op->op_arg->name)))
                    return ret;
                changed = LN_TRUE;
            }
        }
    }
    return 0;
}

/* Does op pass its input through unchanged? */
static ln_bool is_identity(const ln_context *ctx, const ln_op *op, const char **src,
                           const char **dst)
{
    ln_tensor_entry *in, *out;

    if (op->mem_kind != LN_MEMPLAN_VIEW || op->run || !op->mem_in)
        return LN_FALSE;
    if (ln_tensor_list_length(op->op_arg->tensors_out) != 1)
        return LN_FALSE;
    *src = ln_tensor_list_find_name(op->op_arg->tensors_in, op->mem_in);
    *dst = ((ln_tensor_list_entry *)op->op_arg->tensors_out->data)->name;
    if (!*src)
        return LN_FALSE;
    in = ln_tensor_table_find(ctx->tensor_table, *src);
    out = ln_tensor_table_find(ctx->tensor_table, *dst);
    if (!in || !out || out->is_io)   /* a graph output keeps its name */
        return LN_FALSE;
    if (op->calc_offset && op->calc_offset(op->op_arg, out) != 0)
        return LN_FALSE;
    return ln_tensor_same_shape(in->tensor, out->tensor) && in->tensor->dtype == out->tensor->dtype;
}

int ln_pass_remove_identity(ln_context *ctx)
{
    int ret;

    for (ln_list *l = ctx->ops; l;) {
        ln_op *op = l->data;
        const char *src = NULL, *dst = NULL;
        char *s, *d;
        ln_list *readers;

        l = l->next;
        if (!is_identity(ctx, op, &src, &dst))
            continue;
        s = ln_strdup(src);
        d = ln_strdup(dst);
        readers = ln_dfg_nexts(ctx->dfg, op, d);
        /* readers take the source; the dfg follows */
        LN_LIST_FOREACH(ln_op, r, readers) {
            ln_dfg_remove(ctx->dfg, r);
            LN_LIST_FOREACH(ln_tensor_list_entry, tl, r->op_arg->tensors_in) {
                if (ln_streq(tl->name, d)) {
                    ln_free(tl->name);
                    tl->name = ln_strdup(s);
                }
            }
        }
        if ((ret = ln_context_remove_op(ctx, op->op_arg->name)) == 0) {
            LN_LIST_FOREACH(ln_op, r, readers) {
                ln_dfg_add(ctx->dfg, r);
            }
        }
        ln_list_free(readers);
        ln_free(s);
        ln_free(d);
        if (ret)
            return ret;
    }
    return 0;
}
