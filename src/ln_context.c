/*
 * ln_context.c -- the model: parse, pre_run, compile, load, run, print.
 *
 * init parses the IR and pre_runs every op in order, so after init every
 * tensor's shape and dtype are known and every user error has been reported.
 * compile hands the context to the target arch's optimize recipe.  load
 * plans memory if nobody did, allocates one arena for every planned tensor,
 * gives constants their own memory, reads the weights file and static_runs.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ln_context.h"
#include "ln_outfile.h"
#include "ln_json.h"
#include "ln_datafile.h"
#include "ln_mem_plan.h"
#include "ln_serializer.h"
#include "ln_ophook.h"

ln_context *ln_context_create(void)
{
    ln_context *ctx = ln_alloc(sizeof *ctx);
    ctx->tensor_table = ln_tensor_table_create();
    ctx->op_table = ln_op_table_create();
    ctx->dfg = ln_dfg_create();
    ctx->consts = ln_datafile_create_dict();
    ctx->quant = ln_datafile_create_dict();
    return ctx;
}

void ln_context_free(ln_context *ctx)
{
    if (!ctx)
        return;
    ln_context_cleanup(ctx);
    ln_tensor_table_free(ctx->tensor_table);
    ln_op_table_free(ctx->op_table);
    ln_dfg_free(ctx->dfg);
    ln_hash_free(ctx->consts);
    ln_hash_free(ctx->quant);
    ln_free(ctx);
}

static int check_guards(const ln_context *ctx);

ln_bool ln_op_base_is(const ln_op *op, const char *base)
{
    size_t n = strlen(base);
    const char *t = op->op_arg->optype;
    return strncmp(t, base, n) == 0 &&
           (t[n] == '\0' || (t[n] == '_' && ln_streq(t + n + 1, op->op_arg->arch)));
}

/* pre_run with the runtime target the ops are planned for (the arch the
 * recipe compiles for, or a compiled IR's): per-target scratch sizes read
 * it (ln_ophook_rt_target). */
static int pre_run_op(const ln_context *ctx, ln_op *op)
{
    int ret;
    ln_ophook_set_target(ctx->target);
    ret = ln_op_pre_run(op);
    ln_ophook_set_target(NULL);
    return ret;
}

static void post_run_op(ln_op *op)
{
    if (op->post_run)
        op->post_run(op->op_arg);
}

static char *resolve_relative(const char *base, const char *file)
{
    const char *slash;
    if (!base || file[0] == '/' || !(slash = strrchr(base, '/')))
        return ln_strdup(file);
    return ln_sprintf("%.*s/%s", (int)(slash - base), base, file);
}

/* A JSON number that is a byte count or offset: finite, whole, >= 0, and
 * exactly representable (2^53) -- anything else is not a size. */
static ln_bool json_size(const cJSON *x, size_t *out)
{
    double d;
    if (!cJSON_IsNumber(x))
        return LN_FALSE;
    d = x->valuedouble;
    if (!(d >= 0 && d <= 9007199254740992.0) || d != (double)(uint64_t)d ||
        (uint64_t)d > SIZE_MAX)
        return LN_FALSE;
    *out = (size_t)d;
    return LN_TRUE;
}

/* Which layout op writes its output arg / reads its input arg in: 1
 * channels-last ([n][h][w][c], ln_pass_nhwc_edges), 0 NCHW (every op
 * but these four; the residual conv's 'nhwc' is 0 or 1). */
static int nhwc_of(const ln_op *op, const char *arg, int out)
{
    const char *t = op->op_arg->optype;
    if (ln_streq(t, "conv2d_dw_nhwc_cpu"))
        return ln_streq(arg, out ? "dst" : "src");
    if (ln_streq(t, "avgpool2d_nhwc_cpu"))
        return !out && ln_streq(arg, "src");
    if (ln_streq(t, "conv2d_packed_cpu") || ln_streq(t, "conv2d_packed_res_cpu")) {
        const ln_param_entry *pe = ln_param_list_find(op->op_arg->params, "nhwc");
        const int v = pe && pe->type == LN_PARAM_NUMBER ? (int)pe->value_double : 0;
        return out ? ln_streq(arg, "dst") && (v & 2) : ln_streq(arg, "src") && (v & 1);
    }
    return 0;
}

/* Every tensor is read in the layout it is written in, and a graph input
 * or output or a constant is NCHW: an IR read back (a compiled one may say
 * anything) must not have one op read another's channels-last output as
 * NCHW, which would run and give wrong numbers. */
static int check_layouts(const ln_context *ctx)
{
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            const ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            const ln_op *w = te && te->creater ? ln_op_table_find(ctx->op_table, te->creater)
                                               : NULL;
            const char *warg = NULL;
            int wl = 0, rl = nhwc_of(op, tl->arg_name, 0);
            if (w)
                LN_LIST_FOREACH(ln_tensor_list_entry, ol, w->op_arg->tensors_out) {
                    if (ln_streq(ol->name, tl->name))
                        warg = ol->arg_name;
                }
            if (w && warg)
                wl = nhwc_of(w, warg, 1);
            if ((wl || rl) && te && (te->is_io || te->isstatic))
                return ln_error(LN_EINVAL, "%s: %s (%s): tensor '%s' is a graph input or output "
                                "or a constant, which is NCHW, and 'nhwc' says channels-last",
                                ctx->source, op->op_arg->name, op->op_arg->optype, tl->name);
            if (wl != rl)
                return ln_error(LN_EINVAL, "%s: %s (%s): input '%s' reads tensor '%s' as %s, and "
                                "%s (%s) writes it %s", ctx->source, op->op_arg->name,
                                op->op_arg->optype,
                                tl->arg_name, tl->name, rl ? "channels-last" : "NCHW",
                                w ? w->op_arg->name : "its writer", w ? w->op_arg->optype : "?",
                                wl ? "channels-last" : "NCHW");
        }
    }
    return 0;
}

/* After a plan is read: every tensor the ops make has a place, a tensor in
 * a caller's buffer lies inside it, and the plan keeps the planner's
 * invariant (a plan file could say anything). */
static int check_applied_plan(ln_context *ctx)
{
    ln_hash_iter it;
    void *k, *v;
    int ret;

    if ((ret = check_layouts(ctx)))
        return ret;
    ln_hash_iter_init(&it, ctx->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v, *io;
        size_t end;
        if (te->isstatic) {
            if (te->planned)
                return ln_error(LN_EPARSE, "%s: memory_plan: '%s' is a constant, not an "
                                "arena tensor", ctx->source, te->name);
            continue;
        }
        if (!te->planned)
            return ln_error(LN_EPARSE, "%s: memory_plan: tensor '%s' has no offset",
                            ctx->source, te->name);
        if (!te->io_buffer)
            continue;
        io = ln_tensor_table_find(ctx->tensor_table, te->io_buffer);
        if (!io->planned || !io->io_buffer || !ln_streq(io->io_buffer, io->name) ||
            io->offset != 0 || !ln_size_add(te->offset, ln_tensor_size(te->tensor), &end) ||
            end > ln_tensor_size(io->tensor))
            return ln_error(LN_EPARSE, "%s: memory_plan: tensor '%s' does not lie inside "
                            "the caller's buffer '%s'", ctx->source, te->name, io->name);
    }
    if ((ret = ln_context_plan_check(ctx))) {
        ln_error_prefix("%s: memory_plan is not valid: ", ctx->source);
        return LN_EPARSE;
    }
    return 0;
}

/* A planned IR carries "memory_plan": apply it to the tensor entries. */
static int apply_plan(ln_context *ctx, const cJSON *plan)
{
    const cJSON *tensors = cJSON_GetObjectItemCaseSensitive(plan, "tensors");
    const cJSON *t, *x;

    if (!json_size(cJSON_GetObjectItemCaseSensitive(plan, "arena_size"), &ctx->arena_size) ||
        !cJSON_IsArray(tensors))
        return ln_error(LN_EPARSE, "%s: 'memory_plan' needs 'arena_size' (a byte count) "
                        "and 'tensors'", ctx->source);
    ctx->lower_bound = ctx->io_size = ctx->lower_bound_noalias = ctx->noreuse_size = 0;
    ctx->io_in_arena = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(plan, "io_in_arena"));
    /* figures for reports only */
    if ((x = cJSON_GetObjectItemCaseSensitive(plan, "lower_bound")) &&
        !json_size(x, &ctx->lower_bound))
        return ln_error(LN_EPARSE, "%s: memory_plan: 'lower_bound' is not a byte count",
                        ctx->source);
    if ((x = cJSON_GetObjectItemCaseSensitive(plan, "io_size")) && !json_size(x, &ctx->io_size))
        return ln_error(LN_EPARSE, "%s: memory_plan: 'io_size' is not a byte count",
                        ctx->source);
    if ((x = cJSON_GetObjectItemCaseSensitive(plan, "lower_bound_noalias")) &&
        !json_size(x, &ctx->lower_bound_noalias))
        return ln_error(LN_EPARSE, "%s: memory_plan: 'lower_bound_noalias' is not a byte "
                        "count", ctx->source);
    if ((x = cJSON_GetObjectItemCaseSensitive(plan, "noreuse_size")) &&
        !json_size(x, &ctx->noreuse_size))
        return ln_error(LN_EPARSE, "%s: memory_plan: 'noreuse_size' is not a byte count",
                        ctx->source);
    cJSON_ArrayForEach(t, tensors) {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
        const cJSON *owner = cJSON_GetObjectItemCaseSensitive(t, "owner");
        const cJSON *iob = cJSON_GetObjectItemCaseSensitive(t, "io_buffer");
        ln_tensor_entry *te;
        size_t off, end;
        if (!cJSON_IsString(name) ||
            !json_size(cJSON_GetObjectItemCaseSensitive(t, "offset"), &off))
            return ln_error(LN_EPARSE, "%s: memory_plan: each tensor needs 'name' and "
                            "'offset' (a byte count)", ctx->source);
        te = ln_tensor_table_find(ctx->tensor_table, name->valuestring);
        if (!te)
            return ln_error(LN_EPARSE, "%s: memory_plan: tensor '%s' is not in the model",
                            ctx->source, name->valuestring);
        if (iob && (!cJSON_IsString(iob) || !ln_tensor_table_find(ctx->tensor_table,
                                                                   iob->valuestring)))
            return ln_error(LN_EPARSE, "%s: memory_plan: tensor '%s' has a bad 'io_buffer'",
                            ctx->source, name->valuestring);
        if (!ln_size_add(off, ln_tensor_size(te->tensor), &end) ||
            (!iob && end > ctx->arena_size))
            return ln_error(LN_EPARSE, "%s: memory_plan: tensor '%s' lies outside the arena",
                            ctx->source, name->valuestring);
        ln_tensor_entry_set_io_buffer(te, iob ? iob->valuestring : NULL);
        te->offset = off;
        te->planned = LN_TRUE;
        te->mtype = LN_MEM_CPU;
        ln_tensor_entry_set_owner(te, cJSON_IsString(owner) ? owner->valuestring : NULL);
    }
    ctx->planned = LN_TRUE;
    return check_applied_plan(ctx);
}

/* Init from an IR tree (taken: freed here) and optional constants (taken). */
/* ---- quantization of tensors ---- */

static ln_bool quant_dtype(ln_dtype dt, int32_t *lo, int32_t *hi)
{
    switch (dt) {
    case LN_DTYPE_INT8: *lo = INT8_MIN; *hi = INT8_MAX; return LN_TRUE;
    case LN_DTYPE_UINT8: *lo = 0; *hi = UINT8_MAX; return LN_TRUE;
    case LN_DTYPE_INT16: *lo = INT16_MIN; *hi = INT16_MAX; return LN_TRUE;
    case LN_DTYPE_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return LN_TRUE;
    default: return LN_FALSE;
    }
}

int ln_context_set_quant(ln_context *ctx, const char *tname, int count, int axis,
                         const float *scales, const int32_t *zero_points)
{
    ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tname);
    ln_tensor *rec;
    int32_t lo, hi;
    int ret;

    if (!te)
        return ln_error(LN_ENOTFOUND, "quantization of tensor '%s': no such tensor", tname);
    if (!quant_dtype(te->tensor->dtype, &lo, &hi))
        return ln_error(LN_EINVAL, "quantization of tensor '%s': a %s tensor is not quantized "
                        "(int8, uint8, int16 or int32)", tname,
                        ln_dtype_name(te->tensor->dtype));
    if (count < 1)
        return ln_error(LN_EINVAL, "quantization of tensor '%s': no scale", tname);
    if (count > 1 && axis < 0)
        axis += te->tensor->ndim;
    for (int i = 0; i < count; i++) {
        if (!(scales[i] > 0) || !isfinite(scales[i]))
            return ln_error(LN_EINVAL, "quantization of tensor '%s': scale%s%.0d is %g (must "
                            "be positive and finite)", tname, count > 1 ? " " : "", i,
                            (double)scales[i]);
        if (zero_points && (zero_points[i] < lo || zero_points[i] > hi))
            return ln_error(LN_EINVAL, "quantization of tensor '%s': zero point%s%.0d is %ld, "
                            "outside %s", tname, count > 1 ? " " : "", i, (long)zero_points[i],
                            ln_dtype_name(te->tensor->dtype));
    }
    rec = ln_tensor_create(te->tensor->dtype, te->tensor->ndim, te->tensor->dims, NULL);
    if ((ret = ln_tensor_set_quant(rec, count, axis, scales, zero_points))) {
        ln_tensor_free(rec);
        ln_error_prefix("quantization of tensor '%s': ", tname);
        return ret;
    }
    ln_tensor_set_quant(te->tensor, count, axis, scales, zero_points);
    ln_hash_insert(ctx->quant, ln_strdup(tname), rec);
    return 0;
}

void ln_context_apply_quant(ln_context *ctx)
{
    ln_hash_iter it;
    void *k, *v;

    ln_hash_iter_init(&it, ctx->quant);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, k);
        const ln_tensor *rec = v;
        if (te && te->tensor->dtype == rec->dtype && ln_tensor_same_shape(te->tensor, rec))
            ln_tensor_set_quant(te->tensor, rec->quant_count, rec->quant_axis, rec->scales,
                                rec->zero_points);
    }
}

/* "scale" / "zero_point": a number or an array of them; n in/out (0: any) */
static int quant_numbers(const cJSON *j, const char *tname, const char *field, int *n,
                         double **out)
{
    const cJSON *x;
    int i = 0, len = cJSON_IsArray(j) ? cJSON_GetArraySize(j) : 1;

    if (!cJSON_IsNumber(j) && !(cJSON_IsArray(j) && len > 0))
        return ln_error(LN_EPARSE, "quantization of tensor '%s': field '%s' should be a "
                        "number or a non-empty array of numbers", tname, field);
    if (*n && len != *n)
        return ln_error(LN_EPARSE, "quantization of tensor '%s': %d scales but %d zero "
                        "points", tname, *n, len);
    *n = len;
    *out = ln_alloc(sizeof(double) * (size_t)len);
    if (cJSON_IsNumber(j)) {
        (*out)[0] = j->valuedouble;
        return 0;
    }
    cJSON_ArrayForEach(x, j) {
        if (!cJSON_IsNumber(x)) {
            ln_free(*out);
            *out = NULL;
            return ln_error(LN_EPARSE, "quantization of tensor '%s': field '%s' should be a "
                            "number or a non-empty array of numbers", tname, field);
        }
        (*out)[i++] = x->valuedouble;
    }
    return 0;
}

/* An IR's "quantization": {"tensor": {"scale": s | [..], "zero_point": z |
 * [..], "axis": a (per channel)}, ...} */
static int parse_quant(ln_context *ctx, const cJSON *q)
{
    const cJSON *t, *f;

    if (!q)
        return 0;
    if (!cJSON_IsObject(q))
        return ln_error(LN_EPARSE, "field 'quantization' should be an object of tensor names");
    cJSON_ArrayForEach(t, q) {
        double *sc = NULL, *zd = NULL;
        float *s;
        int32_t *z;
        int n = 0, axis = 0, ret = 0;
        if (!cJSON_IsObject(t))
            return ln_error(LN_EPARSE, "quantization of tensor '%s' should be an object",
                            t->string);
        cJSON_ArrayForEach(f, t) {
            if (!ln_streq(f->string, "scale") && !ln_streq(f->string, "zero_point") &&
                !ln_streq(f->string, "axis"))
                return ln_error(LN_EPARSE, "quantization of tensor '%s': unknown field '%s' "
                                "(scale, zero_point, axis)", t->string, f->string);
        }
        f = cJSON_GetObjectItemCaseSensitive(t, "axis");
        if (f && (!cJSON_IsNumber(f) || f->valuedouble != (int)f->valuedouble))
            return ln_error(LN_EPARSE, "quantization of tensor '%s': field 'axis' should be "
                            "an integer", t->string);
        axis = f ? (int)f->valuedouble : 0;
        if (!cJSON_GetObjectItemCaseSensitive(t, "scale"))
            return ln_error(LN_EPARSE, "quantization of tensor '%s': no field 'scale'",
                            t->string);
        if ((ret = quant_numbers(cJSON_GetObjectItemCaseSensitive(t, "scale"), t->string,
                                 "scale", &n, &sc)) ||
            ((f = cJSON_GetObjectItemCaseSensitive(t, "zero_point")) &&
             (ret = quant_numbers(f, t->string, "zero_point", &n, &zd))))
            goto next;
        if (n > 1 && !cJSON_GetObjectItemCaseSensitive(t, "axis")) {
            ret = ln_error(LN_EPARSE, "quantization of tensor '%s': %d scales need an 'axis'",
                           t->string, n);
            goto next;
        }
        s = ln_alloc(sizeof *s * (size_t)n);
        z = ln_alloc(sizeof *z * (size_t)n);
        for (int i = 0; i < n; i++) {
            s[i] = (float)sc[i];
            z[i] = 0;
            if (zd && (zd[i] != floor(zd[i]) || !(fabs(zd[i]) < 2147483648.0)))
                ret = ln_error(LN_EPARSE, "quantization of tensor '%s': zero point %d is not "
                               "an int32", t->string, i);
            else if (zd)
                z[i] = (int32_t)zd[i];
        }
        if (!ret)
            ret = ln_context_set_quant(ctx, t->string, n, axis, s, z);
        ln_free(s);
        ln_free(z);
    next:
        ln_free(sc);
        ln_free(zd);
        if (ret)
            return ret;
    }
    return 0;
}

/* The section print writes: the quantized tensors in op order. */
static cJSON *quant_json(const ln_context *ctx)
{
    cJSON *q = NULL;

    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            const ln_tensor *t = te ? te->tensor : NULL;
            cJSON *j;
            if (!t || t->quant_count < 1 || (q && cJSON_GetObjectItemCaseSensitive(q, te->name)))
                continue;
            if (!q)
                q = cJSON_CreateObject();
            j = cJSON_CreateObject();
            if (t->quant_count == 1) {
                cJSON_AddNumberToObject(j, "scale", t->scales[0]);
                cJSON_AddNumberToObject(j, "zero_point", t->zero_points[0]);
            } else {
                cJSON *s = cJSON_CreateArray(), *z = cJSON_CreateArray();
                for (int i = 0; i < t->quant_count; i++) {
                    cJSON_AddItemToArray(s, cJSON_CreateNumber(t->scales[i]));
                    cJSON_AddItemToArray(z, cJSON_CreateNumber(t->zero_points[i]));
                }
                cJSON_AddItemToObject(j, "scale", s);
                cJSON_AddItemToObject(j, "zero_point", z);
                cJSON_AddNumberToObject(j, "axis", t->quant_axis);
            }
            cJSON_AddItemToObject(q, te->name, j);
        }
    }
    return q;
}

static int init_tree(ln_context *ctx, cJSON *root, const char *source, ln_hash *consts,
                     const char *target)
{
    const cJSON *data, *arch, *plan;
    ln_list *ops = NULL;
    int ret;

    ln_context_cleanup(ctx);
    ln_arch_init();
    ctx->source = ln_strdup(source ? source : "<string>");
    if (consts) {
        /* constants that came with the model: a printed IR must write them */
        ln_hash_free(ctx->consts);
        ctx->consts = consts;
        ctx->consts_loaded = ctx->consts_dirty = LN_TRUE;
    }
    if ((ret = ln_json_parse_ops(root, ctx->source, ctx->tensor_table, &ops)))
        goto out;
    data = cJSON_GetObjectItemCaseSensitive(root, "data");
    if (data && !cJSON_IsString(data)) {
        ln_op_list_free_deep(ops);
        ret = ln_error(LN_EPARSE, "%s: field 'data' should be a file name", ctx->source);
        goto out;
    }
    if (data)
        ctx->data_file = resolve_relative(source, data->valuestring);
    ctx->ops = ops;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ln_op_table_insert(ctx->op_table, op);
    }
    /* a compiled IR's ops pre_run for the target it was planned for (the
     * scratch sizes its memory_plan holds); an uncompiled one's for the
     * target the caller will compile it for, so that ops already concrete
     * in it are checked for that target (conv2d_packed_cpu and the other
     * host-only ops are refused for the Cortex-M4 here: compile does not
     * pre_run them again) */
    arch = cJSON_GetObjectItemCaseSensitive(root, "arch");
    if (cJSON_IsString(arch) || target) {
        const ln_arch *a = ln_arch_find(cJSON_IsString(arch) ? arch->valuestring : target);
        ctx->target = a ? a->arch_name : NULL;
    }
    /* pre_run in order; on failure, undo the ones that ran */
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if ((ret = pre_run_op(ctx, op))) {
            ln_list *done = NULL;
            ln_error_prefix("%s: ", ctx->source);
            for (ln_list *l = ctx->ops; l && l->data != op; l = l->next)
                done = ln_list_prepend(done, l->data);
            LN_LIST_FOREACH(ln_op, d, done) {
                post_run_op(d);
            }
            ln_list_free(done);
            ln_op_table_free(ctx->op_table);
            ctx->op_table = ln_op_table_create();
            ln_op_list_free_deep(ctx->ops);
            ctx->ops = NULL;
            goto out;
        }
    }
    ctx->prerun_done = LN_TRUE;
    ln_dfg_free(ctx->dfg);
    ctx->dfg = ln_dfg_create_from_ops(ctx->ops);
    if ((ret = check_guards(ctx))) {
        ln_error_prefix("%s: ", ctx->source);
        goto out;
    }
    if (cJSON_IsString(arch))
        ctx->arch = ln_strdup(arch->valuestring);
    if ((ret = parse_quant(ctx, cJSON_GetObjectItemCaseSensitive(root, "quantization")))) {
        ln_error_prefix("%s: ", ctx->source);
        goto out;
    }
    plan = cJSON_GetObjectItemCaseSensitive(root, "memory_plan");
    if (plan && (ret = apply_plan(ctx, plan)))
        goto out;
    ret = 0;
out:
    cJSON_Delete(root);
    if (ret)
        ln_context_cleanup(ctx);
    return ret;
}

int ln_context_init_str(ln_context *ctx, const char *json, const char *source)
{
    cJSON *root = NULL;
    int ret;

    ln_context_cleanup(ctx);
    if ((ret = ln_json_parse_text(json, source ? source : "<string>", &root)))
        return ret;
    return init_tree(ctx, root, source, NULL, NULL);
}

int ln_context_init_mem(ln_context *ctx, const void *buf, size_t len, const char *source,
                        const char *format, const ln_serializer_opts *opts)
{
    const ln_serializer *ser;
    cJSON *root = NULL;
    ln_hash *consts = NULL;
    int ret;

    ln_context_cleanup(ctx);
    if (!source)
        source = "<memory>";
    ser = format ? ln_serializer_find(format) : ln_serializer_for(source, buf, len);
    if (!ser)
        return ln_error(LN_EUNSUPPORTED, format ? "%s: unknown model format '%s'"
                        : "%s: unknown model format%s", source, format ? format : "");
    if ((ret = ser->load(buf, len, source, opts, &root, &consts)))
        return ret;
    return init_tree(ctx, root, source, consts, opts ? opts->target : NULL);
}

static char *read_stdin(size_t *lenp)
{
    size_t cap = 4096, len = 0, n;
    char *buf = ln_alloc(cap);
    while ((n = fread(buf + len, 1, cap - len - 1, stdin)) > 0) {
        len += n;
        if (cap - len < 2)
            buf = ln_realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    *lenp = len;
    return buf;
}

int ln_context_init_opts(ln_context *ctx, const char *path, const ln_serializer_opts *opts)
{
    char *text;
    size_t len = 0;
    int ret;

    if (ln_streq(path, "-")) {
        text = read_stdin(&len);
        path = "<stdin>";
    } else if (!(text = ln_read_text(path, &len))) {
        return ln_error_code();
    }
    ret = ln_context_init_mem(ctx, text, len, path, NULL, opts);
    ln_free(text);
    return ret;
}

int ln_context_init(ln_context *ctx, const char *path)
{
    return ln_context_init_opts(ctx, path, NULL);
}

void ln_context_cleanup(ln_context *ctx)
{
    ln_list *rev;

    if (ctx->loaded)
        ln_context_release_data(ctx);
    rev = ln_list_reverse(ln_list_copy(ctx->ops));
    if (ctx->prerun_done) {
        LN_LIST_FOREACH(ln_op, op, rev) {
            post_run_op(op);
        }
    }
    ln_list_free(rev);
    ln_op_list_free_deep(ctx->ops);
    ctx->ops = NULL;
    ln_op_table_free(ctx->op_table);
    ctx->op_table = ln_op_table_create();
    ln_dfg_free(ctx->dfg);
    ctx->dfg = ln_dfg_create();
    ln_tensor_table_free(ctx->tensor_table);
    ctx->tensor_table = ln_tensor_table_create();
    ln_free(ctx->source);
    ln_free(ctx->data_file);
    ln_free(ctx->arch);
    ctx->source = ctx->data_file = ctx->arch = NULL;
    ctx->target = NULL;
    ctx->prerun_done = ctx->planned = LN_FALSE;
    ctx->arena_size = ctx->lower_bound = 0;
    ln_hash_free(ctx->consts);
    ctx->consts = ln_datafile_create_dict();
    ctx->consts_loaded = ctx->consts_dirty = LN_FALSE;
    ln_hash_free(ctx->quant);
    ctx->quant = ln_datafile_create_dict();
}

int ln_context_compile(ln_context *ctx, const char *target)
{
    const ln_arch *arch = ln_arch_find(target);
    int ret;

    if (!arch || !arch->optimize) {
        char known[128] = "";
        for (const char *const *n = ln_arch_names(); *n; n++)
            if (!ln_streq(*n, "none") && strlen(known) + strlen(*n) + 3 < sizeof known)
                strcat(strcat(known, *known ? ", " : ""), *n);
        return ln_error(LN_ENOTFOUND, "unknown target '%s' (known: %s)", target, known);
    }
    if (ctx->arch) {
        if (ln_streq(ctx->arch, target))
            return 0;
        return ln_error(LN_EINVAL, "%s: already compiled for '%s'", ctx->source, ctx->arch);
    }
    ctx->target = arch->arch_name;
    if ((ret = arch->optimize(ctx)))
        return ret;
    ln_context_apply_quant(ctx);
    ctx->arch = ln_strdup(target);
    return ln_context_check(ctx);
}

int ln_context_mem_plan(ln_context *ctx)
{
    ln_mem_plan_opts opts = {ctx->io_in_arena, ctx->plan_noreuse};
    ln_mem_plan_result res;
    ln_list *inputs, *outputs;
    int ret;

    if ((ret = check_layouts(ctx)))
        return ret;
    inputs = ln_context_inputs(ctx);
    outputs = ln_context_outputs(ctx);
    ret = ln_mem_plan(ctx->ops, ctx->tensor_table, inputs, outputs, &opts, &res);

    ln_list_free(inputs);
    ln_list_free(outputs);
    ctx->arena_size = res.arena_size;
    ctx->lower_bound = res.lower_bound;
    ctx->lower_bound_noalias = res.lower_bound_noalias;
    ctx->noreuse_size = res.noreuse_size;
    ctx->io_size = res.io_size;
    ctx->planned = LN_TRUE;
    return ret;
}

int ln_context_plan_check(const ln_context *ctx)
{
    ln_list *outputs = ln_context_outputs(ctx);
    int ret = ln_mem_plan_check(ctx->ops, ctx->tensor_table, outputs);

    ln_list_free(outputs);
    return ret;
}

int ln_context_plan(ln_context *ctx)
{
    if (ctx->planned)
        return 0;
    return ln_context_mem_plan(ctx);
}

static cJSON *plan_json(const ln_context *ctx)
{
    cJSON *plan = cJSON_CreateObject(), *tensors = cJSON_CreateArray();
    int step = 0;

    cJSON_AddNumberToObject(plan, "arena_size", (double)ctx->arena_size);
    cJSON_AddNumberToObject(plan, "lower_bound", (double)ctx->lower_bound);
    cJSON_AddNumberToObject(plan, "align", LN_MEM_ALIGN);
    cJSON_AddBoolToObject(plan, "io_in_arena", ctx->io_in_arena);
    cJSON_AddNumberToObject(plan, "io_size", (double)ctx->io_size);
    cJSON_AddNumberToObject(plan, "lower_bound_noalias", (double)ctx->lower_bound_noalias);
    cJSON_AddNumberToObject(plan, "noreuse_size", (double)ctx->noreuse_size);
    /* in op order, so the file reads like the stream */
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            cJSON *t;
            if (!te || !te->planned)
                continue;
            t = cJSON_CreateObject();
            cJSON_AddStringToObject(t, "name", te->name);
            cJSON_AddNumberToObject(t, "offset", (double)te->offset);
            cJSON_AddNumberToObject(t, "size", (double)ln_tensor_size(te->tensor));
            cJSON_AddNumberToObject(t, "first", step);
            if (te->owner)
                cJSON_AddStringToObject(t, "owner", te->owner);
            if (te->io_buffer)
                cJSON_AddStringToObject(t, "io_buffer", te->io_buffer);
            cJSON_AddItemToArray(tensors, t);
        }
        step++;
    }
    cJSON_AddItemToObject(plan, "tensors", tensors);
    return plan;
}

/* The op that writes a static tensor reads it from the weights file when
 * its "from_file" param is true. */
static ln_bool from_file(const ln_context *ctx, const ln_tensor_entry *te)
{
    ln_op *op = te->creater ? ln_op_table_find(ctx->op_table, te->creater) : NULL;
    ln_param_entry *pe = op ? ln_op_param(op->op_arg, "from_file") : NULL;
    return pe && pe->type == LN_PARAM_BOOL && pe->value_bool;
}

/* The IR as a string with "data" set to data (NULL: none). */
static char *print_str(const ln_context *ctx, const char *data)
{
    cJSON *root = cJSON_CreateObject(), *ops = cJSON_CreateArray(), *q;
    char *s, *out;

    if (data)
        cJSON_AddStringToObject(root, "data", data);
    if (ctx->arch)
        cJSON_AddStringToObject(root, "arch", ctx->arch);
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        cJSON_AddItemToArray(ops, ln_json_op(op));
    }
    cJSON_AddItemToObject(root, "ops", ops);
    if ((q = quant_json(ctx)))
        cJSON_AddItemToObject(root, "quantization", q);
    if (ctx->planned)
        cJSON_AddItemToObject(root, "memory_plan", plan_json(ctx));
    s = cJSON_Print(root);
    cJSON_Delete(root);
    out = ln_sprintf("%s\n", s);
    cJSON_free(s);
    return out;
}

char *ln_context_print_str(const ln_context *ctx)
{
    return print_str(ctx, ctx->data_file);
}


/* The constants the ops read from file, written to path. */
static int write_consts(ln_context *ctx, const char *path)
{
    int n = 0, cap = 16, ret = 0;
    const char **names = ln_alloc(sizeof(char *) * (size_t)cap);
    const ln_tensor **ts = ln_alloc(sizeof(ln_tensor *) * (size_t)cap);
    ln_hash_iter it;
    void *k, *v;

    ln_hash_iter_init(&it, ctx->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v;
        ln_tensor *t;
        if (!te->isstatic || !from_file(ctx, te))
            continue;
        if (!(t = ln_context_const_get(ctx, te->name))) {
            ret = ln_error_code();
            goto out;
        }
        if (n == cap) {
            cap *= 2;
            names = ln_realloc(names, sizeof(char *) * (size_t)cap);
            ts = ln_realloc(ts, sizeof(ln_tensor *) * (size_t)cap);
        }
        names[n] = te->name;
        ts[n++] = t;
    }
    ret = ln_datafile_write_params(path, n, names, ts);
out:
    ln_free(names);
    ln_free(ts);
    return ret;
}

int ln_context_print(const ln_context *cctx, const char *outfile)
{
    ln_context *ctx = (ln_context *)cctx;   /* constants may be read lazily */
    char *s, *params = NULL, *data = NULL;
    int ret;

    if (ln_streq(outfile, "-")) {
        if (ctx->consts_dirty)
            return ln_error(LN_EINVAL, "%s: compiling changed the weights; write the IR to "
                            "a file (-o) so they can be written beside it", ctx->source);
        s = print_str(ctx, ctx->data_file);
        fputs(s, stdout);
        ln_free(s);
        return 0;
    }
    if (ctx->consts_dirty && !ln_outfile_is_regular(outfile))
        return ln_error(LN_EINVAL, "%s: compiling changed the weights and '%s' is not a "
                        "regular file to write them beside", ctx->source, outfile);
    if (ctx->consts_dirty) {
        size_t n = strlen(outfile);
        const char *base;
        if (n > 5 && ln_streq(outfile + n - 5, ".json"))
            n -= 5;
        params = ln_sprintf("%.*s.params", (int)n, outfile);
        base = strrchr(params, '/');
        data = ln_strdup(base ? base + 1 : params);
        if ((ret = write_consts(ctx, params)))
            goto out;
    } else if (ctx->data_file) {
        /* the JSON may land elsewhere: name the weights by absolute path */
        char *abs = realpath(ctx->data_file, NULL);
        data = abs ? ln_strdup(abs) : ln_strdup(ctx->data_file);
        free(abs);
    }
    s = print_str(ctx, data);
    ret = ln_outfile_write(outfile, s, strlen(s));
    ln_free(s);
    if (ret && params)
        remove(params);
out:
    ln_free(params);
    ln_free(data);
    return ret;
}

int ln_context_set_data_file(ln_context *ctx, const char *path)
{
    ln_free(ctx->data_file);
    ctx->data_file = ln_strdup(path);
    ln_hash_free(ctx->consts);
    ctx->consts = ln_datafile_create_dict();
    ctx->consts_loaded = ctx->consts_dirty = LN_FALSE;
    return 0;
}

static int consts_load(ln_context *ctx)
{
    ln_hash *dict = NULL;
    ln_hash_iter it;
    void *k, *v;
    int ret;

    if (ctx->consts_loaded || !ctx->data_file)
        return 0;
    if ((ret = ln_datafile_read(ctx->data_file, &dict)))
        return ret;
    /* constants the passes set win over the file's */
    ln_hash_iter_init(&it, dict);
    while (ln_hash_iter_next(&it, &k, &v)) {
        if (!ln_hash_find(ctx->consts, k))
            ln_hash_insert(ctx->consts, ln_strdup(k), ln_tensor_copy(v));
    }
    ln_hash_free(dict);
    ctx->consts_loaded = LN_TRUE;
    return 0;
}

ln_tensor *ln_context_const_get(ln_context *ctx, const char *tname)
{
    ln_tensor *t = ln_hash_find(ctx->consts, tname);

    if (t)
        return t;
    if (!ctx->data_file) {
        ln_error(LN_EINVAL, "%s: tensor '%s' is read from the weights file, but no "
                 "weights file was given (\"data\" in the IR, or -f)",
                 ctx->source ? ctx->source : "model", tname);
        return NULL;
    }
    if (consts_load(ctx))
        return NULL;
    if (!(t = ln_hash_find(ctx->consts, tname)))
        ln_error(LN_ENOTFOUND, "%s: tensor '%s' is not in weights file '%s'",
                 ctx->source ? ctx->source : "model", tname, ctx->data_file);
    return t;
}

void ln_context_const_set(ln_context *ctx, const char *tname, ln_tensor *t)
{
    ln_hash_insert(ctx->consts, ln_strdup(tname), t);
    ctx->consts_dirty = LN_TRUE;
}

/* Give one static tensor its data: from the constants, or by the static_run
 * of the op that creates it (create with inline data). */
static int materialize(ln_context *ctx, ln_tensor_entry *te)
{
    ln_tensor *src;
    size_t n = ln_tensor_size(te->tensor);
    char a[128], b[128];

    if (te->tensor->data)
        return 0;
    te->tensor->data = ln_mem_type_info(LN_MEM_CPU)->alloc_func(n ? n : 1);
    if (!te->tensor->data)
        return ln_error(LN_ENOMEM, "%s: no memory for the %zu bytes of constant '%s'",
                        ctx->source, n, te->name);
    te->tensor->owns_data = LN_TRUE;
    if (from_file(ctx, te)) {
        if (!(src = ln_context_const_get(ctx, te->name)))
            return ln_error_code();
        if (src->dtype != te->tensor->dtype || src->len != te->tensor->len)
            return ln_error(LN_EINVAL, "%s: tensor '%s' is %s %s in the model but %s %s "
                            "in weights file '%s'", ctx->source, te->name,
                            ln_dtype_name(te->tensor->dtype),
                            ln_dims_str(a, sizeof a, te->tensor->ndim, te->tensor->dims),
                            ln_dtype_name(src->dtype),
                            ln_dims_str(b, sizeof b, src->ndim, src->dims),
                            ctx->data_file ? ctx->data_file : "(passes)");
        memcpy(te->tensor->data, src->data, ln_tensor_size(src));
        return 0;
    }
    {
        ln_op *op = te->creater ? ln_op_table_find(ctx->op_table, te->creater) : NULL;
        if (op && op->static_run)
            return op->static_run(op->op_arg);
    }
    return 0;
}

int ln_context_static_data(ln_context *ctx, const char *tname, ln_tensor **t)
{
    ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tname);
    int ret;

    if (!te)
        return ln_error(LN_ENOTFOUND, "no tensor named '%s'", tname);
    if (!te->isstatic)
        return ln_error(LN_EINVAL, "tensor '%s' is not a constant", tname);
    if ((ret = materialize(ctx, te)))
        return ret;
    *t = te->tensor;
    return 0;
}

int ln_context_materialize_consts(ln_context *ctx)
{
    ln_hash_iter it;
    void *k, *v;
    int ret;

    ln_hash_iter_init(&it, ctx->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v;
        if (te->isstatic && (ret = materialize(ctx, te)))
            return ret;
    }
    return 0;
}

/* Free the arena and the tensors' own memory (unload, cleanup). */
void ln_context_release_data(ln_context *ctx)
{
    ln_hash_iter it;
    void *k, *v;

    ln_hash_iter_init(&it, ctx->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor *t = ((ln_tensor_entry *)v)->tensor;
        if (t->owns_data)
            ln_mem_type_info(LN_MEM_CPU)->free_func(t->data);
        t->data = NULL;
        t->owns_data = LN_FALSE;
    }
    ln_mem_type_info(LN_MEM_CPU)->free_func(ctx->arena);
    ctx->arena = NULL;
    ctx->loaded = LN_FALSE;
}

int ln_context_add_op(ln_context *ctx, ln_op *op)
{
    int ret;

    if (ln_op_table_find(ctx->op_table, op->op_arg->name))
        return ln_error(LN_EINVAL, "op name '%s' is used twice", op->op_arg->name);
    op->op_arg->tensor_table = ctx->tensor_table;
    if ((ret = pre_run_op(ctx, op)))
        return ret;
    ctx->ops = ln_list_append(ctx->ops, op);
    ln_op_table_insert(ctx->op_table, op);
    ln_dfg_add(ctx->dfg, op);
    ctx->planned = LN_FALSE;
    return 0;
}

int ln_context_remove_op(ln_context *ctx, const char *name)
{
    ln_op *op = ln_op_table_find(ctx->op_table, name);

    if (!op)
        return ln_error(LN_ENOTFOUND, "no op named '%s'", name);
    post_run_op(op);
    ln_dfg_remove(ctx->dfg, op);
    ln_hash_remove(ctx->op_table, name);
    ctx->ops = ln_list_remove(ctx->ops, op);
    ln_op_free(op);
    ctx->planned = LN_FALSE;
    return 0;
}

int ln_context_replace_ops(ln_context *ctx, ln_list **pos, size_t win_size,
                           ln_list *new_ops)
{
    ln_list *prev = NULL, *l, *after, *old = NULL, *done = NULL;
    int ret = 0;

    for (l = ctx->ops; l && l != *pos; l = l->next)
        prev = l;
    if (!l)
        return ln_error(LN_EINVAL, "replace_ops: position is not in the op stream");
    /* detach the window */
    after = l;
    for (size_t i = 0; i < win_size && after; i++) {
        old = ln_list_append(old, after->data);
        after = after->next;
    }
    /* one guard over the window (a pass must not fuse across a branch of
     * an If); new ops without one take it */
    LN_LIST_FOREACH(ln_op, op, old) {
        if (!ln_op_same_guard(op, old->data)) {
            ret = ln_error(LN_EINVAL, "replace_ops: ops '%s' and '%s' run under different "
                           "guards (branches of an If) and cannot be replaced together",
                           ((ln_op *)old->data)->op_arg->name, op->op_arg->name);
            ln_list_free(old);
            ln_op_list_free_deep(new_ops);
            return ret;
        }
    }
    LN_LIST_FOREACH(ln_op, op, new_ops) {
        if (old && !op->op_arg->guard)
            ln_op_set_guard(op, ((ln_op *)old->data)->op_arg->guard);
    }
    /* undo the old ops, last first */
    {
        ln_list *rev = ln_list_reverse(ln_list_copy(old));
        LN_LIST_FOREACH(ln_op, op, rev) {
            post_run_op(op);
            ln_dfg_remove(ctx->dfg, op);
            ln_hash_remove(ctx->op_table, op->op_arg->name);
        }
        ln_list_free(rev);
    }
    LN_LIST_FOREACH(ln_op, op, new_ops) {
        op->op_arg->tensor_table = ctx->tensor_table;
        if ((ret = pre_run_op(ctx, op)))
            break;
        done = ln_list_append(done, op);
    }
    if (ret) {
        /* roll back: forget the new ops, redo the old ones */
        ln_list *rev = ln_list_reverse(ln_list_copy(done));
        LN_LIST_FOREACH(ln_op, op, rev) {
            post_run_op(op);
        }
        ln_list_free(rev);
        ln_list_free(done);
        ln_op_list_free_deep(new_ops);
        LN_LIST_FOREACH(ln_op, op, old) {
            pre_run_op(ctx, op);
            ln_op_table_insert(ctx->op_table, op);
            ln_dfg_add(ctx->dfg, op);
        }
        ln_list_free(old);
        return ret;
    }
    ln_list_free(done);
    /* splice */
    for (size_t i = 0; i < win_size; i++) {
        ln_list *next = l->next;
        ln_free(l);
        l = next;
    }
    if (new_ops) {
        ln_list *tail = new_ops;
        while (tail->next)
            tail = tail->next;
        tail->next = after;
        if (prev)
            prev->next = new_ops;
        else
            ctx->ops = new_ops;
        *pos = new_ops;
    } else {
        if (prev)
            prev->next = after;
        else
            ctx->ops = after;
        *pos = after;
    }
    for (ln_list *n = new_ops; n && n != after; n = n->next) {
        ln_op_table_insert(ctx->op_table, n->data);
        ln_dfg_add(ctx->dfg, n->data);
    }
    ln_op_list_free_deep(old);
    ctx->planned = LN_FALSE;
    return 0;
}

/* An op's guard: each condition a bool tensor of one element defined
 * before; and each tensor it reads computed where the op runs (by an op
 * whose guard is a prefix of its own; an if_merge reads its branches'). */
static int check_guard(const ln_context *ctx, const ln_op *op, ln_hash *seen)
{
    const ln_op_arg *a = op->op_arg;

    LN_LIST_FOREACH(ln_tensor_list_entry, g, a->guard) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, g->name);
        if (!te || !te->creater || !ln_hash_find(seen, te->creater))
            return ln_error(LN_EINVAL, "%s (%s): guard tensor '%s' is not defined by an earlier "
                            "op", a->name, a->optype, g->name);
        if (te->tensor->dtype != LN_DTYPE_BOOL || te->tensor->len != 1)
            return ln_error(LN_EINVAL, "%s (%s): guard tensor '%s' is not a bool of one element",
                            a->name, a->optype, g->name);
        if (!ln_streq(g->arg_name, "true") && !ln_streq(g->arg_name, "false"))
            return ln_error(LN_EINVAL, "%s (%s): guard on '%s' wants '%s', not true or false",
                            a->name, a->optype, g->name, g->arg_name);
    }
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, a->tensors_in) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        const ln_op *p = te && te->creater ? ln_hash_find(seen, te->creater) : NULL;
        ln_list *pg;
        if (!p || !p->op_arg->guard || ln_op_guard_within(a->guard, p->op_arg->guard))
            continue;
        pg = p->op_arg->guard;
        if (ln_op_base_is(op, "if_merge") && ln_op_guard_within(pg, a->guard) &&
            ln_list_length(pg) == ln_list_length(a->guard) + 1) {
            const ln_tensor_list_entry *last = ln_list_nth_data(pg, ln_list_length(a->guard));
            const char *cond = ln_tensor_list_find_name(a->tensors_in, "cond");
            if (cond && ln_streq(last->name, cond) &&
                ln_streq(last->arg_name, ln_streq(tl->arg_name, "on_true") ? "true" : "false"))
                continue;
        }
        return ln_error(LN_EINVAL, "%s (%s): reads '%s', which op '%s' computes only where "
                        "'%s' is %s (a branch of an If), and this op does not run only there",
                        a->name, a->optype, tl->name, p->op_arg->name,
                        ((ln_tensor_list_entry *)ln_list_nth_data(pg, ln_list_length(pg) - 1))->name,
                        ((ln_tensor_list_entry *)ln_list_nth_data(pg, ln_list_length(pg) - 1))->arg_name);
    }
    return 0;
}

/* check_guard for every op (at init: before any pass reads a guard). */
static int check_guards(const ln_context *ctx)
{
    ln_hash *seen = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    int ret = 0;

    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if ((ret = check_guard(ctx, op, seen)))
            break;
        ln_hash_insert(seen, op->op_arg->name, op);
    }
    ln_hash_free(seen);
    return ret;
}

int ln_context_check(const ln_context *ctx)
{
    ln_hash *seen = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    int ret = 0;

    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if ((ret = check_guard(ctx, op, seen)))
            break;
        if (ln_hash_find(seen, op->op_arg->name)) {
            ret = ln_error(LN_EINVAL, "op name '%s' is used twice", op->op_arg->name);
            break;
        }
        ln_hash_insert(seen, op->op_arg->name, op);
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            ln_op *creater;
            if (!te) {
                ret = ln_error(LN_EINVAL, "%s (%s): input '%s' is tensor '%s', which no op defines",
                               op->op_arg->name, op->op_arg->optype, tl->arg_name, tl->name);
                break;
            }
            creater = te->creater ? ln_hash_find(seen, te->creater) : NULL;
            if (!creater) {
                ret = ln_error(LN_EINVAL, "%s (%s): input '%s' is tensor '%s', which is not "
                               "defined by an earlier op", op->op_arg->name,
                               op->op_arg->optype, tl->arg_name, tl->name);
                break;
            }
        }
        if (ret)
            break;
    }
    ln_hash_free(seen);
    if (!ret)
        ret = ln_dfg_check(ctx->dfg);
    return ret;
}

static ln_list *io_names(const ln_context *ctx, const char *optype, int out)
{
    ln_list *names = NULL;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (!ln_op_base_is(op, optype))
            continue;
        LN_LIST_FOREACH(ln_tensor_list_entry, tl,
                        out ? op->op_arg->tensors_out : op->op_arg->tensors_in) {
            names = ln_list_append(names, tl->name);
        }
    }
    return names;
}

ln_list *ln_context_inputs(const ln_context *ctx)
{
    return io_names(ctx, "input", 1);
}

ln_list *ln_context_outputs(const ln_context *ctx)
{
    return io_names(ctx, "output", 0);
}
