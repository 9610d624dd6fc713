/*
 * ln_pass.c -- expander and combiner passes.
 *
 * Both walk ctx->ops once, asking the arch's generated rule functions in
 * order; the first rule that matches wins.  Replacements go through
 * ln_context_replace_ops, which keeps the tensor table and the data-flow
 * graph right (post_run of the old ops, pre_run of the new).
 */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "ln_pass.h"
#include "ln_pass_impl.h"
#include "ln_ophook.h"

static int cmp_default(const void *key, const void *row)
{
    return strcmp(key, ((const ln_expand_default *)row)->optype);
}

/* The default expansion of op, or NULL when its optype has no row (or its
 * arch op is not in this build). */
static ln_list *expand_default(const ln_op *op, const ln_expand_default *defaults)
{
    const ln_expand_default *row;
    const ln_op *proto;
    size_t n = 0;

    if (!defaults)
        return NULL;
    while (defaults[n].optype)
        n++;
    row = bsearch(op->op_arg->optype, defaults, n, sizeof *defaults, cmp_default);
    if (!row || !(proto = ln_arch_op_proto(row->arch_optype)))
        return NULL;
    return ln_list_append(NULL, ln_op_copy_as(op, proto));
}

int ln_pass_expander(ln_context *ctx, ln_expander_func *funcs,
                     const ln_expand_default *defaults)
{
    ln_list *l = ctx->ops;

    while (l) {
        ln_op *op = l->data;
        ln_list *new_ops = NULL;
        int match = 0, n, ret;

        for (int i = 0; funcs && funcs[i] && !match; i++)
            new_ops = funcs[i](ctx, op, &match);
        if (!match && (new_ops = expand_default(op, defaults)))
            match = 1;
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

/* Do the n ops from l on run under one guard? */
static ln_bool same_guard(ln_list *l, size_t n)
{
    for (ln_list *m = l->next; m && --n > 0; m = m->next)
        if (!ln_op_same_guard(l->data, m->data))
            return LN_FALSE;
    return LN_TRUE;
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
        if (!same_guard(l, win_size)) {
            l = l->next;            /* never fuse across a branch of an If */
            continue;
        }
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
ln_op *ln_pass_const_op(ln_context *ctx, const char *arch, const char *tname,
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

/* Can op run now, on constants?  A graph output stays computed by the
 * stream, not a constant, unless views_only: a view has no kernel, so a
 * view of a constant has to become one (the caller's output is then
 * copied at the edge). */
static ln_bool foldable(const ln_context *ctx, const ln_op *op, ln_bool views_only)
{
    if (is_base(op, "create") || is_base(op, "input") || is_base(op, "output") ||
        is_base(op, "print") || !op->op_arg->tensors_in || !op->op_arg->tensors_out)
        return LN_FALSE;
    if (!op->run && op->mem_kind != LN_MEMPLAN_VIEW)
        return LN_FALSE;
    if (views_only && (op->run || op->mem_kind != LN_MEMPLAN_VIEW))
        return LN_FALSE;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        if (!te || !te->isstatic)
            return LN_FALSE;
    }
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        if (!te || (te->is_io && !views_only))
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
        if (!te->tensor->data) {
            ret = ln_error(LN_ENOMEM, "%s (%s): no memory for the %zu bytes of '%s'",
                           op->op_arg->name, op->op_arg->optype, n, te->name);
            break;
        }
        te->tensor->owns_data = LN_TRUE;
        outs = ln_list_append(outs, te);
    }
    if (ret) {
        ;                       /* no memory for an output */
    } else if (op->run) {
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
            if (!(c = ln_pass_const_op(ctx, op->op_arg->arch, te->name, te->tensor)))
                ret = ln_error(LN_EUNSUPPORTED, "no create op for arch '%s'", op->op_arg->arch);
            else
                *new_ops = ln_list_append(*new_ops, c);
        }
    }
    ln_list_free(outs);
    return ret;
}

static int fold_all_constants(ln_context *ctx, ln_bool views_only)
{
    ln_list *l = ctx->ops;
    int ret;

    while (l) {
        ln_op *op = l->data;
        ln_list *new_ops = NULL;
        int n;

        if (!foldable(ctx, op, views_only)) {
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

int ln_pass_fold_constants(ln_context *ctx)
{
    return fold_all_constants(ctx, LN_FALSE);
}

int ln_pass_fold_const_views(ln_context *ctx)
{
    return fold_all_constants(ctx, LN_TRUE);
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

/* Remove op, whose output `from` carries the same values as `to`: its
 * readers read `to` instead (and the dfg follows them). */
int ln_pass_bypass(ln_context *ctx, ln_op *op, const char *from, const char *to)
{
    char *f = ln_strdup(from), *t = ln_strdup(to);
    ln_list *readers = ln_dfg_nexts(ctx->dfg, op, f);
    int ret;

    LN_LIST_FOREACH(ln_op, r, readers) {
        ln_dfg_remove(ctx->dfg, r);
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, r->op_arg->tensors_in) {
            if (ln_streq(tl->name, f)) {
                ln_free(tl->name);
                tl->name = ln_strdup(t);
            }
        }
    }
    ret = ln_context_remove_op(ctx, op->op_arg->name);
    LN_LIST_FOREACH(ln_op, r, readers) {
        ln_dfg_add(ctx->dfg, r);
    }
    ln_list_free(readers);
    ln_free(f);
    ln_free(t);
    return ret;
}

int ln_pass_remove_identity(ln_context *ctx)
{
    int ret;

    for (ln_list *l = ctx->ops; l;) {
        ln_op *op = l->data;
        const char *src = NULL, *dst = NULL;

        l = l->next;
        if (is_identity(ctx, op, &src, &dst) && (ret = ln_pass_bypass(ctx, op, dst, src)))
            return ret;
    }
    return 0;
}

/* Is tensor name the condition of some op's guard (a branch of an If)? */
static ln_bool is_guard(const ln_context *ctx, const char *name)
{
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, g, op->op_arg->guard) {
            if (ln_streq(g->name, name))
                return LN_TRUE;
        }
    }
    return LN_FALSE;
}

static int noop_cast_one(ln_context *ctx, ln_op *op, ln_bool *done)
{
    const char *src = ln_pass_tname_in(op, "src"), *dst = ln_pass_tname_out(op, "dst");
    ln_tensor_entry *in = src ? ln_tensor_table_find(ctx->tensor_table, src) : NULL;
    ln_tensor_entry *out = dst ? ln_tensor_table_find(ctx->tensor_table, dst) : NULL;

    *done = LN_FALSE;
    if (!in || !out || out->is_io || in->tensor->dtype != out->tensor->dtype ||
        !ln_tensor_same_shape(in->tensor, out->tensor) || is_guard(ctx, dst))
        return 0;
    *done = LN_TRUE;
    return ln_pass_bypass(ctx, op, dst, src);
}

int ln_pass_remove_noop_casts(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "cast_cpu", noop_cast_one);
}

/* ---- folds into conv2d / gemm ------------------------------------------- */

ln_tensor_entry *ln_pass_tin(const ln_context *ctx, const ln_op *op, const char *arg)
{
    const char *n = ln_tensor_list_find_name(op->op_arg->tensors_in, arg);
    return n ? ln_tensor_table_find(ctx->tensor_table, n) : NULL;
}

const char *ln_pass_tname_in(const ln_op *op, const char *arg)
{
    return ln_tensor_list_find_name(op->op_arg->tensors_in, arg);
}

const char *ln_pass_tname_out(const ln_op *op, const char *arg)
{
    return ln_tensor_list_find_name(op->op_arg->tensors_out, arg);
}

/* Number param with its described default when absent. */
double ln_pass_num_param(const ln_op *op, const char *arg, double def)
{
    ln_param_entry *pe = ln_op_param(op->op_arg, arg);
    return pe && pe->type == LN_PARAM_NUMBER ? pe->value_double : def;
}

const char *ln_pass_str_param(const ln_op *op, const char *arg, const char *def)
{
    ln_param_entry *pe = ln_op_param(op->op_arg, arg);
    return pe && pe->type == LN_PARAM_STRING ? pe->value_string : def;
}

static void set_tensor_name(ln_list *list, const char *arg, const char *name)
{
    ln_tensor_list_entry *e = ln_tensor_list_find_by_arg_name(list, arg);
    if (e) {
        ln_free(e->name);
        e->name = ln_strdup(name);
    } else {
        ln_list *tail = ln_tensor_list_append(NULL, arg, name);
        ln_list *l = list;
        while (l->next)
            l = l->next;
        l->next = tail;
    }
}

static ln_list *set_param(ln_list *params, ln_param_entry *pe)
{
    params = ln_param_list_remove(params, pe->arg_name);
    return ln_param_list_append_entry(params, pe);
}

/* The only reader of tname (NULL when none or several, or a graph output,
 * or when it runs under another guard than the producer: the folds that
 * ask never merge ops across a branch of an If). */
ln_op *ln_pass_sole_reader(const ln_context *ctx, const char *tname)
{
    ln_op *prod = ln_dfg_producer(ctx->dfg, tname);
    ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tname);
    ln_list *r;
    ln_op *op = NULL;

    if (!prod || !te || te->is_io)
        return NULL;
    r = ln_dfg_nexts(ctx->dfg, prod, tname);
    if (ln_list_length(r) == 1 && ln_op_same_guard(r->data, prod))
        op = r->data;
    ln_list_free(r);
    return op;
}

static ln_list *find_node(ln_list *ops, const ln_op *op)
{
    for (ln_list *l = ops; l; l = l->next)
        if (l->data == op)
            return l;
    return NULL;
}

/* Offer every op of optype to fold until none changes any more (a fold
 * edits the op list, so the walk starts over after each). */
int ln_pass_fold_all(ln_context *ctx, const char *optype,
                     int (*fold)(ln_context *, ln_op *, ln_bool *))
{
    ln_bool again = LN_TRUE;
    int ret;

    while (again) {
        again = LN_FALSE;
        LN_LIST_FOREACH(ln_op, op, ctx->ops) {
            ln_bool done;
            if (!ln_streq(op->op_arg->optype, optype))
                continue;
            if ((ret = fold(ctx, op, &done)))
                return ret;
            if (done) {
                again = LN_TRUE;
                break;
            }
        }
    }
    return 0;
}

/* Replace op by `before` constant ops followed by `repl`. */
int ln_pass_replace_with(ln_context *ctx, ln_op *op, ln_list *before, ln_op *repl)
{
    ln_list *pos = find_node(ctx->ops, op);
    ln_list *new_ops = ln_list_append(before, repl);
    return ln_context_replace_ops(ctx, &pos, 1, new_ops);
}

/* A unique op/tensor name from a prefix. */
char *ln_pass_unique(const ln_context *ctx, const char *prefix)
{
    char buf[256];
    for (int i = 0;; i++) {
        snprintf(buf, sizeof buf, i ? "%s_%d" : "%s", prefix, i);
        if (!ln_tensor_table_find(ctx->tensor_table, buf) &&
            !ln_op_table_find(ctx->op_table, buf))
            return ln_strdup(buf);
    }
}

/*
 * batchnorm(conv(x, W, b)) = conv(x, W', b') with, per output channel c,
 * s = scale[c] / sqrt(var[c] + eps), W'[c] = s W[c], b'[c] = s (b[c] - mean[c])
 * + bias[c].  gemm the same along its output columns (weight [K,N], or
 * [N,K] with trans_b), with alpha kept and beta C folded into the bias.
 * Only when the conv/gemm output feeds the batchnorm alone, has no fused
 * activation yet, and every parameter is a constant.
 */
static int fold_bn_one(ln_context *ctx, ln_op *bn, ln_bool *done)
{
    const char *x = ln_pass_tname_in(bn, "src");
    ln_op *prod = x ? ln_dfg_producer(ctx->dfg, x) : NULL;
    ln_tensor *scale, *bias, *mean, *var, *w, *b = NULL;
    ln_tensor_entry *we, *be, *ye;
    ln_bool is_gemm;
    int nout, ret, trans_b = 0;
    double eps = ln_pass_num_param(bn, "epsilon", 1e-5), beta = 1.0;
    float *nw, *nb;
    ln_tensor *tw, *tb;
    char *wname, *bname;
    ln_op *cw, *cb, *newop;
    ln_list *before;

    *done = LN_FALSE;
    if (!prod || ln_pass_sole_reader(ctx, x) != bn)
        return 0;
    is_gemm = ln_streq(prod->op_arg->optype, "gemm_cpu");
    if (!is_gemm && !ln_streq(prod->op_arg->optype, "conv2d_cpu") &&
        !ln_streq(prod->op_arg->optype, "conv2d_dw_cpu"))
        return 0;
    if (!ln_streq(ln_pass_str_param(prod, "activation", "none"), "none"))
        return 0;
    we = ln_pass_tin(ctx, prod, "weight");
    be = ln_pass_tin(ctx, prod, "bias");
    ye = ln_pass_tin(ctx, bn, "src");
    if (!we || !we->isstatic || (be && !be->isstatic) || we->tensor->dtype != LN_DTYPE_FLOAT32)
        return 0;
    {
        const char *args[4] = {"scale", "bias", "mean", "var"};
        for (int i = 0; i < 4; i++) {
            ln_tensor_entry *e = ln_pass_tin(ctx, bn, args[i]);
            if (!e || !e->isstatic || e->tensor->dtype != LN_DTYPE_FLOAT32)
                return 0;
        }
    }
    nout = ye->tensor->dims[1];
    if (is_gemm) {
        trans_b = (int)ln_pass_num_param(prod, "trans_b", 0);
        beta = ln_pass_num_param(prod, "beta", 1.0);
        if (we->tensor->ndim != 2 || we->tensor->dims[trans_b ? 0 : 1] != nout)
            return 0;
        if (be && !(be->tensor->len == (size_t)nout &&
                    (be->tensor->ndim == 1 || (be->tensor->ndim == 2 && be->tensor->dims[0] == 1))))
            return 0;       /* a bias per row as well: not foldable into one vector */
    } else if (we->tensor->dims[0] != nout) {
        return 0;
    }
    if ((ret = ln_context_static_data(ctx, ln_pass_tname_in(bn, "scale"), &scale)) ||
        (ret = ln_context_static_data(ctx, ln_pass_tname_in(bn, "bias"), &bias)) ||
        (ret = ln_context_static_data(ctx, ln_pass_tname_in(bn, "mean"), &mean)) ||
        (ret = ln_context_static_data(ctx, ln_pass_tname_in(bn, "var"), &var)) ||
        (ret = ln_context_static_data(ctx, we->name, &w)) ||
        (be && (ret = ln_context_static_data(ctx, be->name, &b))))
        return ret;
    if (scale->len != (size_t)nout || bias->len != (size_t)nout || mean->len != (size_t)nout ||
        var->len != (size_t)nout)
        return 0;
    tw = ln_tensor_create_alloc(LN_DTYPE_FLOAT32, w->ndim, w->dims);
    {
        int bd[1] = {nout};
        tb = ln_tensor_create_alloc(LN_DTYPE_FLOAT32, 1, bd);
    }
    nw = tw->data;
    nb = tb->data;
    memcpy(nw, w->data, ln_tensor_size(w));
    for (int c = 0; c < nout; c++) {
        double s = ((const float *)scale->data)[c] /
                   sqrt((double)((const float *)var->data)[c] + eps);
        double b0 = b ? beta * ((const float *)b->data)[c] : 0.0;
        nb[c] = (float)(s * (b0 - ((const float *)mean->data)[c]) + ((const float *)bias->data)[c]);
        if (!is_gemm || trans_b) {
            size_t per = w->len / (size_t)nout;
            for (size_t i = 0; i < per; i++)
                nw[(size_t)c * per + i] = (float)(s * nw[(size_t)c * per + i]);
        } else {
            int K = w->dims[0];
            for (int k = 0; k < K; k++)
                nw[(size_t)k * (size_t)nout + (size_t)c] =
                    (float)(s * nw[(size_t)k * (size_t)nout + (size_t)c]);
        }
    }
    wname = ln_pass_unique(ctx, we->name);
    bname = ln_pass_unique(ctx, be ? be->name : prod->op_arg->name);
    if (!be) {
        char *t = bname;
        bname = ln_sprintf("%s_bias", t);
        ln_free(t);
        t = bname;
        bname = ln_pass_unique(ctx, t);
        ln_free(t);
    }
    ln_context_const_set(ctx, wname, tw);
    ln_context_const_set(ctx, bname, tb);
    cw = ln_pass_const_op(ctx, "cpu", wname, tw);
    cb = ln_pass_const_op(ctx, "cpu", bname, tb);
    newop = ln_op_copy(prod);
    set_tensor_name(newop->op_arg->tensors_in, "weight", wname);
    set_tensor_name(newop->op_arg->tensors_in, "bias", bname);
    set_tensor_name(newop->op_arg->tensors_out, "dst", ln_pass_tname_out(bn, "dst"));
    if (is_gemm) {
        ln_param_entry *pe = ln_param_entry_create("beta", LN_PARAM_NUMBER);
        ln_param_set_satu_number(pe, 1.0);
        newop->op_arg->params = set_param(newop->op_arg->params, pe);
    }
    ln_free(wname);
    ln_free(bname);
    before = ln_list_append(ln_list_append(NULL, cw), cb);
    /* the batchnorm goes first: the new op writes its output */
    if ((ret = ln_context_remove_op(ctx, bn->op_arg->name)) ||
        (ret = ln_pass_replace_with(ctx, prod, before, newop)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

int ln_pass_fold_batchnorm(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "batchnorm_cpu", fold_bn_one);
}

/*
 * pad(x) with zeros on H and W only, read by one conv2d (or one avgpool2d
 * counting pads), becomes that op's own padding, as does an int8 pad with
 * the zero point before an int8 conv; a pad of all zeros is nothing and
 * its readers read x.
 */
static int fold_pad_one(ln_context *ctx, ln_op *pad, ln_bool *done)
{
    ln_param_entry *pp = ln_op_param(pad->op_arg, "pads"), *cp;
    const char *x = ln_pass_tname_in(pad, "src"), *y = ln_pass_tname_out(pad, "dst");
    ln_tensor_entry *xe = ln_pass_tin(ctx, pad, "src");
    ln_op *next, *newop;
    int n, zero = 1, ret;
    double add[4], np[4];

    *done = LN_FALSE;
    if (!pp || pp->type != LN_PARAM_ARRAY_NUMBER || !xe || !y ||
        !ln_streq(ln_pass_str_param(pad, "mode", "constant"), "constant"))
        return 0;
    n = pp->array_len / 2;
    for (int i = 0; i < pp->array_len; i++)
        if (pp->value_array_double[i] != 0)
            zero = 0;
    if (zero) {
        ln_tensor_entry *ye = ln_tensor_table_find(ctx->tensor_table, y);
        if (ye && ye->is_io)
            return 0;       /* a graph output keeps its name */
        ret = ln_pass_bypass(ctx, pad, y, x);
        *done = ret == 0;
        return ret;
    }
    if (ln_pass_tname_in(pad, "value_t"))
        return 0;           /* a constant known only at run time */
    if (ln_pass_num_param(pad, "value", 0.0) != 0.0 && xe->tensor->dtype != LN_DTYPE_INT8)
        return 0;
    if (n != 4 || pp->value_array_double[0] || pp->value_array_double[1] ||
        pp->value_array_double[4] || pp->value_array_double[5])
        return 0;
    for (int i = 0; i < 4; i++)
        if (pp->value_array_double[2 + (i % 2) + (i / 2) * 4] < 0)
            return 0;
    next = ln_pass_sole_reader(ctx, y);
    if (!next || !ln_streq(ln_pass_tname_in(next, "src"), y))
        return 0;
    if (ln_streq(next->op_arg->optype, "avgpool2d_cpu")) {
        /* in ceil mode a window starting in the trailing pad is dropped,
         * one starting in the explicit Pad's zeros is not: the output
         * shape could change */
        if (ln_pass_num_param(next, "count_include_pad", 0) != 1 || ln_pass_num_param(next, "ceil_mode", 0) != 0)
            return 0;
    } else if (ln_streq(next->op_arg->optype, "conv2d_s8_cpu")) {
        /* an int8 conv's padding is its input zero point */
        if (ln_pass_num_param(pad, "value", 0.0) != ln_pass_num_param(next, "src_zero_point", 0))
            return 0;
    } else if (!ln_streq(next->op_arg->optype, "conv2d_cpu") &&
               !ln_streq(next->op_arg->optype, "conv2d_dw_cpu")) {
        return 0;
    }
    if (xe->tensor->dtype == LN_DTYPE_INT8 && !ln_streq(next->op_arg->optype, "conv2d_s8_cpu"))
        return 0;
    if (!ln_streq(ln_pass_str_param(next, "auto_pad", "NOTSET"), "NOTSET"))
        return 0;
    /* ONNX pads: [n_b, c_b, h_b, w_b, n_e, c_e, h_e, w_e]; conv: [h_b, w_b, h_e, w_e] */
    add[0] = pp->value_array_double[2];
    add[1] = pp->value_array_double[3];
    add[2] = pp->value_array_double[6];
    add[3] = pp->value_array_double[7];
    cp = ln_op_param(next->op_arg, "pads");
    for (int i = 0; i < 4; i++)
        np[i] = add[i] + (cp && cp->array_len == 4 ? cp->value_array_double[i] : 0);
    if (ln_streq(next->op_arg->optype, "avgpool2d_cpu")) {
        /* a pool's pads stay below its kernel (ONNX Runtime's rule) */
        ln_param_entry *kp = ln_op_param(next->op_arg, "kernel_shape");
        if (!kp || kp->type != LN_PARAM_ARRAY_NUMBER || kp->array_len != 2)
            return 0;
        for (int i = 0; i < 4; i++)
            if (np[i] >= kp->value_array_double[i % 2])
                return 0;
    }
    newop = ln_op_copy(next);
    {
        ln_param_entry *pe = ln_param_entry_create("pads", LN_PARAM_ARRAY_NUMBER);
        ln_param_set_satu_array_number(pe, 4, np);
        newop->op_arg->params = set_param(newop->op_arg->params, pe);
    }
    set_tensor_name(newop->op_arg->tensors_in, "src", x);
    if ((ret = ln_pass_replace_with(ctx, next, NULL, newop)) ||
        (ret = ln_context_remove_op(ctx, pad->op_arg->name)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

int ln_pass_fold_pad(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "pad_cpu", fold_pad_one);
}

/*
 * A conv2d_cpu whose shape the packed small-map kernel takes
 * (ln_rt_conv2d_packed_ok) and whose weight is a float32 constant becomes
 * a conv2d_packed_cpu (a conv2d_res_cpu: conv2d_packed_res_cpu) reading a
 * new constant: the weight packed once, now
 * (ln_rt_conv2d_f32_pack; same shape, the packed order), so that the
 * interpreter packs when the model is loaded and ln-aot emits the packed
 * data. A 3x3 stride-1 conv the Winograd kernel takes
 * (ln_rt_conv2d_wino_ok) becomes a conv2d_wino_cpu (conv2d_wino_res_cpu)
 * the same way, its weight transformed (ln_rt_conv2d_wino_f32_pack:
 * [4][4][oc][c]); where both kernels take a shape (rows of 12+ outputs on
 * a map of <= 64 or 256 pixels), the Winograd one. Host targets
 * only (the caller's business): the Cortex-M4 runtime has neither.
 */
static int pack_conv_one(ln_context *ctx, ln_op *conv, ln_bool *done)
{
    ln_tensor_entry *we = ln_pass_tin(ctx, conv, "weight");
    const int res = ln_streq(conv->op_arg->optype, "conv2d_res_cpu");
    const ln_op *proto;
    ln_rt_conv2d_args a;
    ln_tensor *w, *tw;
    ln_op *cw, *newop;
    char *wname, *t;
    int wino, ret;

    *done = LN_FALSE;
    if (!we || !we->isstatic || we->tensor->dtype != LN_DTYPE_FLOAT32 ||
        we->tensor->ndim != 4)
        return 0;
    ln_ophook_conv2d_args(conv->op_arg, &a);
    wino = ln_rt_conv2d_wino_ok(&a);
    proto = ln_arch_op_proto(wino ? (res ? "conv2d_wino_res_cpu" : "conv2d_wino_cpu")
                                  : res ? "conv2d_packed_res_cpu" : "conv2d_packed_cpu");
    if (!proto || !(wino || ln_rt_conv2d_packed_ok(&a)) ||
        we->tensor->len != (size_t)a.oc * a.c * a.kh * a.kw)
        return 0;
    if ((ret = ln_context_static_data(ctx, we->name, &w)))
        return ret;
    if (wino) {
        const int ud[4] = {4, 4, a.oc, a.c};
        tw = ln_tensor_create_alloc(LN_DTYPE_FLOAT32, 4, ud);
        ln_rt_conv2d_wino_f32_pack(&a, w->data, tw->data);
    } else {
        tw = ln_tensor_create_alloc(LN_DTYPE_FLOAT32, w->ndim, w->dims);
        ln_rt_conv2d_f32_pack(&a, w->data, tw->data);
    }
    t = ln_sprintf(wino ? "%s_wino" : "%s_packed", we->name);
    wname = ln_pass_unique(ctx, t);
    ln_free(t);
    ln_context_const_set(ctx, wname, tw);
    cw = ln_pass_const_op(ctx, "cpu", wname, tw);
    newop = ln_op_copy_as(conv, proto);
    set_tensor_name(newop->op_arg->tensors_in, "weight", wname);
    ln_free(wname);
    if ((ret = ln_pass_replace_with(ctx, conv, ln_list_append(NULL, cw), newop)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

/*
 * Squeeze-excitation: y = x * g with g [n][c][1][1] (one factor per image
 * and channel: a computed gate, or a constant), y read by one group-1
 * conv2d_cpu or conv2d_res_cpu alone, as its src (not as the residual).
 * Where the conv's weights per input channel are fewer numbers than a
 * plane of x (oc * kh * kw < h * w), the conv
 * becomes a conv2d_scale_cpu reading x and g, which scales a copy of its
 * weights instead (ln_rt_conv2d_scaled_f32): the pass over x disappears.
 * EfficientNet-B0: the gates of its 112x112 .. 28x28 stages. Host targets
 * only (the caller's business); after the pack pass, so a conv packed for
 * a small map keeps its packed kernel and the mul.
 */
static int channel_scale_one(ln_context *ctx, ln_op *mul, ln_bool *done)
{
    const char *y = ln_pass_tname_out(mul, "dst");
    ln_tensor_entry *e1 = ln_pass_tin(ctx, mul, "src1"), *e2 = ln_pass_tin(ctx, mul, "src2");
    ln_tensor_entry *xe, *ge, *we;
    const ln_op *proto = ln_arch_op_proto("conv2d_scale_cpu");
    ln_op *conv, *newop;
    const ln_tensor *x, *g;
    int ret;

    *done = LN_FALSE;
    if (!proto || !y || !e1 || !e2 || ln_streq(e1->name, e2->name))
        return 0;
    xe = e1->tensor->ndim == 4 && e1->tensor->dims[2] * e1->tensor->dims[3] > 1 ? e1 : e2;
    ge = xe == e1 ? e2 : e1;
    x = xe->tensor;
    g = ge->tensor;
    if (x->ndim != 4 || g->ndim != 4 || x->dtype != LN_DTYPE_FLOAT32 ||
        g->dtype != LN_DTYPE_FLOAT32 || g->dims[0] != x->dims[0] ||
        g->dims[1] != x->dims[1] || g->dims[2] != 1 || g->dims[3] != 1)
        return 0;
    conv = ln_pass_sole_reader(ctx, y);
    if (!conv || !(ln_streq(conv->op_arg->optype, "conv2d_cpu") ||
                   ln_streq(conv->op_arg->optype, "conv2d_res_cpu")) ||
        !ln_streq(ln_pass_tname_in(conv, "src"), y) ||
        ln_pass_num_param(conv, "group", 1) != 1)
        return 0;
    we = ln_pass_tin(ctx, conv, "weight");
    if (!we || we->tensor->ndim != 4 || we->tensor->dims[1] != x->dims[1] ||
        (int64_t)we->tensor->dims[0] * we->tensor->dims[2] * we->tensor->dims[3] >=
            (int64_t)x->dims[2] * x->dims[3])
        return 0;
    newop = ln_op_copy_as(conv, proto);
    set_tensor_name(newop->op_arg->tensors_in, "src", xe->name);
    set_tensor_name(newop->op_arg->tensors_in, "scale", ge->name);
    if ((ret = ln_pass_replace_with(ctx, conv, NULL, newop)) ||
        (ret = ln_context_remove_op(ctx, mul->op_arg->name)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

int ln_pass_fold_channel_scale(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "mul_cpu", channel_scale_one);
}

/*
 * An inverted residual block's expand and depthwise convs: a 1x1 stride-1
 * unpadded group-1 conv2d_cpu whose output only a conv2d_dw_cpu with
 * multiplier 1 reads becomes, with it, one conv2d_pwdw_cpu
 * (ln_rt_conv2d_pwdw_f32: the expand runs a block of channels at a time
 * into scratch and the depthwise conv consumes it there). The fused op
 * keeps the depthwise conv's name, params, weight and bias and takes the
 * 1x1 conv's src, weight (pw_weight), bias (pw_bias) and activation
 * params (pw_activation, pw_act_alpha, pw_act_beta). Only where the
 * expanded tensor is larger than the kernel's scratch (several blocks):
 * a map that fits one block gains nothing and plans more. Host targets
 * only (the caller's business); after the pack pass, so an expand packed
 * for a small map keeps its packed kernel.
 */
static int pwdw_one(ln_context *ctx, ln_op *dw, ln_bool *done)
{
    static const char *const act_params[] = {"activation", "act_alpha", "act_beta"};
    const char *t = ln_pass_tname_in(dw, "src");
    const ln_op *proto = ln_arch_op_proto("conv2d_pwdw_cpu");
    ln_op *pw, *newop;
    ln_rt_conv2d_args pa, da;
    const char *pb;
    int ret;

    *done = LN_FALSE;
    pw = t ? ln_dfg_producer(ctx->dfg, t) : NULL;
    if (!proto || !pw || !ln_streq(pw->op_arg->optype, "conv2d_cpu") ||
        ln_pass_sole_reader(ctx, t) != dw)
        return 0;
    ln_ophook_conv2d_args(pw->op_arg, &pa);
    ln_ophook_conv2d_args(dw->op_arg, &da);
    /* and only where its scratch is smaller than the expanded tensor: the
     * kernel runs several blocks. One block is the unfused pair with the
     * tensor moved into scratch, live beside the inner kernels' scratch:
     * MobileNetV1-0.25's arena grew 222 -> 271 KB that way, for no speed */
    if (!ln_rt_conv2d_pwdw_ok(&pa, &da) ||
        ln_rt_conv2d_pwdw_f32_scratch_size(&pa, &da) >=
            (size_t)pa.n * pa.oc * pa.h * pa.w * sizeof(float))
        return 0;
    newop = ln_op_copy_as(dw, proto);
    set_tensor_name(newop->op_arg->tensors_in, "src", ln_pass_tname_in(pw, "src"));
    set_tensor_name(newop->op_arg->tensors_in, "pw_weight", ln_pass_tname_in(pw, "weight"));
    if ((pb = ln_pass_tname_in(pw, "bias")))
        set_tensor_name(newop->op_arg->tensors_in, "pw_bias", pb);
    for (size_t i = 0; i < sizeof act_params / sizeof act_params[0]; i++) {
        const ln_param_entry *pe = ln_param_list_find(pw->op_arg->params, act_params[i]);
        ln_param_entry *c;
        if (!pe)
            continue;
        c = ln_param_entry_copy(pe);
        ln_free(c->arg_name);
        c->arg_name = ln_sprintf("pw_%s", act_params[i]);
        newop->op_arg->params = set_param(newop->op_arg->params, c);
    }
    if ((ret = ln_pass_replace_with(ctx, dw, NULL, newop)) ||
        (ret = ln_context_remove_op(ctx, pw->op_arg->name)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

int ln_pass_fuse_pwdw(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "conv2d_dw_cpu", pwdw_one);
}

/*
 * The conv -> ReLU -> max pool stem of ImageNet networks (ResNet's and
 * DenseNet's 7x7 s2 + 3x3 s2, SqueezeNet's 3x3 s2 + 3x3 s2): a float32
 * maxpool2d_cpu whose input a conv2d_cpu with ReLU writes and it alone
 * reads becomes, with the conv, one conv2d_maxpool_cpu
 * (ln_rt_conv2d_maxpool_f32: the conv's rows a band at a time into scratch,
 * pooled there), where ln_rt_conv2d_maxpool_ok takes the pair (ReLU, not
 * the direct kernel's shapes: then the bits are the pair's). The fused op
 * takes the pool's name, output and place, the conv's params, src, weight
 * and bias, and the pool's geometry as it planned it (pool_kernel_shape,
 * pool_stride, pool_pads, pool_out: auto_pad and ceil_mode resolved). Host
 * targets only (the caller's business); after the pack pass, so a conv
 * packed for a small map keeps its packed kernel and the pool.
 */
static ln_param_entry *int_array_param(const char *name, int n, const int *v)
{
    ln_param_entry *pe = ln_param_entry_create(name, LN_PARAM_ARRAY_NUMBER);
    double d[4];
    for (int i = 0; i < n; i++)
        d[i] = v[i];
    ln_param_set_satu_array_number(pe, n, d);
    return pe;
}

static int conv_maxpool_one(ln_context *ctx, ln_op *pool, ln_bool *done)
{
    const char *t = ln_pass_tname_in(pool, "src");
    const ln_op *proto = ln_arch_op_proto("conv2d_maxpool_cpu");
    ln_tensor_entry *te = t ? ln_tensor_table_find(ctx->tensor_table, t) : NULL;
    ln_op *conv, *newop;
    ln_rt_conv2d_args a;
    ln_rt_pool2d_args p;
    char *sn;
    int ret;

    *done = LN_FALSE;
    conv = t ? ln_dfg_producer(ctx->dfg, t) : NULL;
    if (!proto || !conv || !te || te->tensor->dtype != LN_DTYPE_FLOAT32 ||
        !ln_streq(conv->op_arg->optype, "conv2d_cpu") || ln_pass_sole_reader(ctx, t) != pool ||
        !ln_streq(ln_pass_tname_out(conv, "dst"), t))
        return 0;
    ln_ophook_conv2d_args(conv->op_arg, &a);
    ln_ophook_pool2d_args(pool->op_arg, &p);
    if (!ln_rt_conv2d_maxpool_ok(&a, &p))
        return 0;
    newop = ln_op_copy_as(conv, proto);
    ln_free(newop->op_arg->name);
    newop->op_arg->name = ln_strdup(pool->op_arg->name);
    set_tensor_name(newop->op_arg->tensors_out, "dst", ln_pass_tname_out(pool, "dst"));
    if (ln_tensor_list_find_by_arg_name(newop->op_arg->tensors_out, "scratch")) {
        sn = ln_sprintf("%s__scratch", pool->op_arg->name);
        set_tensor_name(newop->op_arg->tensors_out, "scratch", sn);
        ln_free(sn);
    }
    {
        const int k[2] = {p.kh, p.kw}, st[2] = {p.stride_h, p.stride_w};
        const int pads[4] = {p.pad_top, p.pad_left, p.pad_bottom, p.pad_right};
        const int out[2] = {p.oh, p.ow};
        newop->op_arg->params = set_param(newop->op_arg->params,
                                          int_array_param("pool_kernel_shape", 2, k));
        newop->op_arg->params = set_param(newop->op_arg->params,
                                          int_array_param("pool_stride", 2, st));
        newop->op_arg->params = set_param(newop->op_arg->params,
                                          int_array_param("pool_pads", 4, pads));
        newop->op_arg->params = set_param(newop->op_arg->params,
                                          int_array_param("pool_out", 2, out));
    }
    if ((ret = ln_pass_replace_with(ctx, pool, NULL, newop)) ||
        (ret = ln_context_remove_op(ctx, conv->op_arg->name)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

int ln_pass_fuse_conv_maxpool(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "maxpool2d_cpu", conv_maxpool_one);
}

/*
 * Channels-last edges. The packed conv's lanes run along output channels:
 * its tile is [pixel][channel], which it transposes 16 x 16 into NCHW
 * planes, and it reads its input by broadcasts, in any layout. So a
 * tensor that a packed conv writes and only packed convs read can stay
 * [n][h][w][c] in memory (its shape, and everything the planner sees,
 * unchanged): the writer skips the transposes. A depthwise conv the
 * channels-last kernel takes (ln_rt_conv2d_depthwise_nhwc_ok) may sit on
 * such an edge, reading and writing that layout (conv2d_dw_nhwc_cpu):
 * DS-CNN's and MobileNetV1's small-map dw / pw chains. An average pool
 * over each whole plane may read it (avgpool2d_nhwc_cpu: its [n][c][1][1]
 * is the same either way), and so may a packed conv with a residual add
 * (its residual and output NCHW: MobileNetV2's and MnasNet's 7x7 blocks
 * end so). Every kernel sums in the same order, so the bits do not
 * change. Never a graph input or output, a constant, or a tensor any
 * other op reads; not across an If's branches; not when the caller wants
 * intermediate tensors (--save, --compare, ln-quant's calibration:
 * plan_noreuse), which must read NCHW. Host targets only (the caller's
 * business).
 */
static ln_bool nhwc_packed(const ln_op *op)
{
    return ln_streq(op->op_arg->optype, "conv2d_packed_cpu");
}

/* the packed conv with a residual: it may read src channels-last (its
 * residual and output stay NCHW) */
static ln_bool nhwc_packed_res(const ln_op *op)
{
    return ln_streq(op->op_arg->optype, "conv2d_packed_res_cpu");
}

static ln_bool nhwc_dw(const ln_op *op)
{
    ln_rt_conv2d_args a;
    if (!ln_streq(op->op_arg->optype, "conv2d_dw_cpu"))
        return LN_FALSE;
    ln_ophook_conv2d_args(op->op_arg, &a);
    return ln_rt_conv2d_depthwise_nhwc_ok(&a) ? LN_TRUE : LN_FALSE;
}

/* a pool with one window over each whole plane: its output [n][c][1][1]
 * is the same in either layout */
static ln_bool nhwc_pool(const ln_context *ctx, const ln_op *op)
{
    ln_tensor_entry *te;
    ln_rt_pool2d_args a;
    if (!ln_streq(op->op_arg->optype, "avgpool2d_cpu"))
        return LN_FALSE;
    te = ln_pass_tin(ctx, op, "src");
    if (!te || te->tensor->dtype != LN_DTYPE_FLOAT32)
        return LN_FALSE;
    ln_ophook_pool2d_args(op->op_arg, &a);
    return ln_rt_avgpool2d_nhwc_ok(&a) ? LN_TRUE : LN_FALSE;
}

/* an op that may read a channels-last src */
static ln_bool nhwc_reader(const ln_context *ctx, const ln_op *op)
{
    return nhwc_packed(op) || nhwc_packed_res(op) || nhwc_dw(op) || nhwc_pool(ctx, op);
}

static ln_bool nhwc_has(ln_list *set, const char *name)
{
    return name && ln_list_find_custom(set, (void *)name, ln_str_cmp) ? LN_TRUE : LN_FALSE;
}

/* op's src / dst in the set, as LN_RT_NHWC_SRC | LN_RT_NHWC_DST */
static int nhwc_bits(ln_list *set, const ln_op *op)
{
    return (nhwc_has(set, ln_pass_tname_in(op, "src")) ? LN_RT_NHWC_SRC : 0) |
           (nhwc_has(set, ln_pass_tname_out(op, "dst")) ? LN_RT_NHWC_DST : 0);
}

/* may tensor t (dst of writer w) be channels-last, as far as w, its
 * readers and the tensor itself go? */
static ln_bool nhwc_edge(const ln_context *ctx, const ln_op *w, const char *t)
{
    ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, t);
    ln_list *r;
    ln_bool ok;

    if (!te || te->is_io || te->isstatic || te->tensor->dtype != LN_DTYPE_FLOAT32 ||
        te->tensor->ndim != 4)
        return LN_FALSE;
    r = ln_dfg_nexts(ctx->dfg, w, t);
    ok = r != NULL;
    for (ln_list *l = r; l && ok; l = l->next) {
        const ln_op *o = l->data;
        const char *src = ln_pass_tname_in(o, "src");
        ok = nhwc_reader(ctx, o) && ln_op_same_guard(o, w) && src && ln_streq(src, t);
        /* read once, as src (not also as a bias or a second input) */
        for (ln_list *tl = o->op_arg->tensors_in; tl && ok; tl = tl->next) {
            const ln_tensor_list_entry *e = tl->data;
            if (ln_streq(e->name, t) && !ln_streq(e->arg_name, "src"))
                ok = LN_FALSE;
        }
    }
    ln_list_free(r);
    return ok;
}

int ln_pass_nhwc_edges(ln_context *ctx)
{
    const ln_op *pk = ln_arch_op_proto("conv2d_packed_cpu");
    const ln_op *dwn = ln_arch_op_proto("conv2d_dw_nhwc_cpu");
    const ln_op *pooln = ln_arch_op_proto("avgpool2d_nhwc_cpu");
    const ln_op *pkres = ln_arch_op_proto("conv2d_packed_res_cpu");
    ln_list *set = NULL, *todo = NULL;
    ln_bool changed = LN_TRUE;
    int ret = 0;

    if (!pk || !dwn || !pooln || !pkres || ctx->plan_noreuse)
        return 0;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        const char *t = ln_pass_tname_out(op, "dst");
        if ((nhwc_packed(op) || nhwc_dw(op)) && t && nhwc_edge(ctx, op, t))
            set = ln_list_append(set, ln_strdup(t));
    }
    /* a depthwise conv is channels-last on both sides or on neither */
    while (changed) {
        changed = LN_FALSE;
        LN_LIST_FOREACH(ln_op, op, ctx->ops) {
            const int b = nhwc_dw(op) ? nhwc_bits(set, op) : 0;
            if (b == LN_RT_NHWC_SRC || b == LN_RT_NHWC_DST) {
                const char *gone = b == LN_RT_NHWC_SRC ? ln_pass_tname_in(op, "src")
                                                       : ln_pass_tname_out(op, "dst");
                set = ln_list_remove_custom_deep(set, (void *)gone, ln_str_cmp, ln_free);
                changed = LN_TRUE;
            }
        }
    }
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (nhwc_bits(set, op) && nhwc_reader(ctx, op))
            todo = ln_list_append(todo, op);
    }
    LN_LIST_FOREACH(ln_op, op, todo) {
        ln_op *newop;
        if (nhwc_packed(op) || nhwc_packed_res(op)) {
            newop = ln_op_copy_as(op, nhwc_packed(op) ? pk : pkres);
            newop->op_arg->params = ln_param_list_remove(newop->op_arg->params, "nhwc");
            newop->op_arg->params = ln_param_list_append_int(newop->op_arg->params, "nhwc",
                                                            nhwc_bits(set, op));
        } else
            newop = ln_op_copy_as(op, nhwc_dw(op) ? dwn : pooln);
        if ((ret = ln_pass_replace_with(ctx, op, NULL, newop)))
            break;
    }
    ln_list_free(todo);
    ln_list_free_deep(set, ln_free);
    return ret;
}

int ln_pass_pack_conv(ln_context *ctx)
{
    int ret = ln_pass_fold_all(ctx, "conv2d_cpu", pack_conv_one);

    return ret ? ret : ln_pass_fold_all(ctx, "conv2d_res_cpu", pack_conv_one);
}
