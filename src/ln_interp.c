/*
 * ln_interp.c -- the interpreter: a compiled, planned context loaded into
 * memory (one arena, the caller's buffers played by buffers of its own,
 * the weights) and run op by op; inputs in and outputs out by name.  An
 * op with a guard (a branch of a run-time If) runs only when it holds.
 */
#include <string.h>
#include "ln_interp.h"

/* Tensors planned into a graph input's or output's caller buffer: the
 * interpreter plays the caller and gives each such buffer its own memory. */
static int set_io_data(ln_context *ctx)
{
    ln_hash_iter it;
    void *k, *v;

    for (int pass = 0; pass < 2; pass++) {
        ln_hash_iter_init(&it, ctx->tensor_table);
        while (ln_hash_iter_next(&it, &k, &v)) {
            ln_tensor_entry *te = v, *io;
            if (!te->planned || !te->io_buffer)
                continue;
            if (pass == 0 && ln_streq(te->io_buffer, te->name)) {
                size_t n = ln_tensor_size(te->tensor);
                te->tensor->data = ln_mem_type_info(LN_MEM_CPU)->alloc_func(n ? n : 1);
                if (!te->tensor->data)
                    return ln_error(LN_ENOMEM, "%s: no memory for the %zu bytes of '%s'",
                                    ctx->source, n, te->name);
                te->tensor->owns_data = LN_TRUE;
            } else if (pass == 1 && !ln_streq(te->io_buffer, te->name)) {
                io = ln_tensor_table_find(ctx->tensor_table, te->io_buffer);
                te->tensor->data = (char *)io->tensor->data + te->offset;
                te->tensor->owns_data = LN_FALSE;
            }
        }
    }
    return 0;
}

int ln_context_load(ln_context *ctx, const char *datafile)
{
    int ret;

    if (ctx->loaded)
        return 0;
    if (datafile && (!ctx->data_file || !ln_streq(datafile, ctx->data_file)))
        ln_context_set_data_file(ctx, datafile);
    if ((ret = ln_context_plan(ctx)))
        return ret;
    ctx->arena = ln_mem_type_info(LN_MEM_CPU)->alloc_func(ctx->arena_size ? ctx->arena_size : 1);
    if (!ctx->arena)
        return ln_error(LN_ENOMEM, "%s: no memory for the %zu-byte arena", ctx->source,
                        ctx->arena_size);
    ln_tensor_table_set_data(ctx->tensor_table, ctx->arena);
    ctx->loaded = LN_TRUE;
    if ((ret = set_io_data(ctx)) || (ret = ln_context_materialize_consts(ctx)))
        goto fail;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ln_tensor_entry *out;
        /* the constants' own static_run ran when they were materialized */
        if (!op->static_run)
            continue;
        out = ln_op_tensor_out(op->op_arg, "dst");
        if (out && out->isstatic)
            continue;
        if ((ret = op->static_run(op->op_arg)))
            goto fail;
    }
    return 0;
fail:
    ln_context_unload(ctx);
    return ret;
}

void ln_context_unload(ln_context *ctx)
{
    if (ctx->loaded)
        ln_context_release_data(ctx);
}

ln_tensor *ln_context_tensor(const ln_context *ctx, const char *tname)
{
    ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tname);
    return te ? te->tensor : NULL;
}

size_t ln_context_data_size(const ln_context *ctx, const char *tname)
{
    ln_tensor *t = ln_context_tensor(ctx, tname);
    return t ? ln_tensor_size(t) : 0;
}

static int data_access(const ln_context *ctx, const char *tname, size_t nbytes,
                       ln_tensor **t)
{
    *t = ln_context_tensor(ctx, tname);
    if (!*t)
        return ln_error(LN_ENOTFOUND, "no tensor named '%s'", tname);
    if (!ctx->loaded || !(*t)->data)
        return ln_error(LN_EINVAL, "tensor '%s' has no memory (load the context first)",
                        tname);
    if (nbytes != ln_tensor_size(*t))
        return ln_error(LN_EINVAL, "tensor '%s' has %zu bytes, got %zu", tname,
                        ln_tensor_size(*t), nbytes);
    return 0;
}

int ln_context_set_data(ln_context *ctx, const char *tname, const void *data,
                        size_t nbytes)
{
    ln_tensor *t;
    int ret = data_access(ctx, tname, nbytes, &t);
    if (!ret)
        memcpy(t->data, data, nbytes);
    return ret;
}

int ln_context_get_data(const ln_context *ctx, const char *tname, void *data,
                        size_t nbytes)
{
    ln_tensor *t;
    int ret = data_access(ctx, tname, nbytes, &t);
    if (!ret)
        memcpy(data, t->data, nbytes);
    return ret;
}

int ln_context_run(const ln_context *ctx)
{
    int ret;

    if (!ctx->loaded)
        return ln_error(LN_EINVAL, "%s: run before load", ctx->source ? ctx->source : "context");
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (!op->run) {
            if (ln_streq(op->op_arg->arch, "none"))
                return ln_error(LN_EUNSUPPORTED,
                                "%s (%s): abstract op cannot run; compile for a target first",
                                op->op_arg->name, op->op_arg->optype);
            continue;
        }
        if (op->op_arg->guard && !ln_op_guard_holds(op->op_arg))
            continue;               /* a branch of an If not taken */
        if ((ret = op->run(op->op_arg)))
            return ret;
    }
    return 0;
}
