/*
 * ln_report.c -- reports for people: memory figures, dot graph, memory-plan
 * SVG, per-op profile.  Nothing here changes the context.
 */
#define _XOPEN_SOURCE 700   /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include "ln_report.h"
#include "ln_outfile.h"

typedef struct life {
    ln_tensor_entry *te;
    int first, last;
    const char *optype;
} life;

/* Lifetimes of the planned tensors on the op order; n returned. */
static life *lifetimes(const ln_context *ctx, int *n, int *nsteps)
{
    int cap = 64, step = 0;
    life *L = ln_alloc(sizeof(life) * (size_t)cap);
    ln_hash *idx = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    ln_list *outs = ln_context_outputs(ctx);

    *n = 0;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            intptr_t i = (intptr_t)ln_hash_find(idx, tl->name);
            if (i > 0)
                L[i - 1].last = step;
        }
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            if (!te || !te->planned || ln_hash_find(idx, tl->name))
                continue;
            if (*n == cap)
                L = ln_realloc(L, sizeof(life) * (size_t)(cap *= 2));
            L[*n].te = te;
            L[*n].first = L[*n].last = step;
            L[*n].optype = op->op_arg->optype;
            ln_hash_insert(idx, te->name, (void *)(intptr_t)(*n + 1));
            (*n)++;
        }
        step++;
    }
    for (int i = 0; i < *n; i++)
        if (ln_list_find_custom(outs, L[i].te->name, ln_str_cmp))
            L[i].last = step;
    *nsteps = step + 1;
    ln_list_free(outs);
    ln_hash_free(idx);
    return L;
}

static double pct(size_t a, size_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Constants (flash on a microcontroller): every static tensor an op
 * reads, and of those the int8 requantization tables (mult, shift). */
static void report_constants(FILE *fp, const ln_context *ctx)
{
    size_t bytes = 0, requant = 0;
    int n = 0;
    ln_hash *seen = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);

    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            if (!te || !te->isstatic)
                continue;
            if (ln_streq(tl->arg_name, "mult") || ln_streq(tl->arg_name, "shift"))
                requant += ln_tensor_size(te->tensor);
            if (ln_hash_find(seen, te->name))
                continue;
            ln_hash_insert(seen, te->name, te);
            bytes += ln_tensor_size(te->tensor);
            n++;
        }
    }
    ln_hash_free(seen);
    fprintf(fp, "  constants                  %10zu bytes  (%d tensors; flash", bytes, n);
    if (requant)
        fprintf(fp, ", of which %zu int8 requantization tables", requant);
    fputs(")\n", fp);
}

int ln_report_mem(FILE *fp, const ln_context *ctx)
{
    int n, steps;
    life *L;

    if (!ctx->planned)
        return ln_error(LN_EINVAL, "%s: not planned (compile first)", ctx->source);
    L = lifetimes(ctx, &n, &steps);
    fprintf(fp, "memory report for %s (%d ops, %d planned tensors)\n", ctx->source,
            ln_list_length(ctx->ops), n);
    fprintf(fp, "  arena                      %10zu bytes\n", ctx->arena_size);
    fprintf(fp, "  arena lower bound          %10zu bytes  (arena is %.1f%% of it)\n",
            ctx->lower_bound, pct(ctx->arena_size, ctx->lower_bound));
    fprintf(fp, "  caller buffers (in/out)    %10zu bytes  (%s)\n", ctx->io_size,
            ctx->io_in_arena ? "inside the arena" : "the caller's, outside the arena");
    fprintf(fp, "  total RAM                  %10zu bytes  (arena + caller buffers)\n",
            ctx->arena_size + ctx->io_size);
    fprintf(fp, "  bound without aliasing     %10zu bytes  (every tensor its own buffer while live)\n",
            ctx->lower_bound_noalias);
    fprintf(fp, "  no reuse at all            %10zu bytes  (every tensor its own buffer)\n",
            ctx->noreuse_size);
    report_constants(fp, ctx);
    fprintf(fp, "  %-28s %10s %10s %6s  %s\n", "tensor", "bytes", "offset", "life", "where");
    for (int i = 0; i < n; i++) {
        ln_tensor_entry *te = L[i].te;
        char where[160];
        if (te->io_buffer)
            snprintf(where, sizeof where, "caller buffer of '%s'", te->io_buffer);
        else if (te->owner)
            snprintf(where, sizeof where, "arena, shares '%s'", te->owner);
        else
            snprintf(where, sizeof where, "arena");
        fprintf(fp, "  %-28s %10zu %10zu %2d..%-2d  %s\n", te->name,
                ln_tensor_size(te->tensor), te->offset, L[i].first, L[i].last, where);
    }
    ln_free(L);
    return 0;
}

static void dot_id(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

int ln_report_dot(FILE *fp, const ln_context *ctx)
{
    fputs("digraph lightnet {\n  rankdir=TB;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n"
          "  edge [fontname=\"Helvetica\", fontsize=10];\n", fp);
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        fputs("  ", fp);
        dot_id(fp, op->op_arg->name);
        fprintf(fp, " [label=\"%s\\n(%s)\"%s];\n", op->op_arg->name, op->op_arg->optype,
                ln_tensor_list_length(op->op_arg->tensors_in) == 0 ? ", shape=note" : "");
    }
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            ln_op *prod = ln_dfg_producer(ctx->dfg, tl->name);
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            char dims[128] = "?";
            if (!prod)
                continue;
            if (te)
                ln_dims_str(dims, sizeof dims, te->tensor->ndim, te->tensor->dims);
            fputs("  ", fp);
            dot_id(fp, prod->op_arg->name);
            fputs(" -> ", fp);
            dot_id(fp, op->op_arg->name);
            fprintf(fp, " [label=\"%s %s\"%s];\n", tl->name, dims,
                    te && te->isstatic ? ", style=dashed" : "");
        }
    }
    fputs("}\n", fp);
    return 0;
}

static void xml_text(FILE *fp, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '"': fputs("&quot;", fp); break;
        default: fputc(*s, fp);
        }
    }
}

int ln_report_mem_svg(FILE *fp, const ln_context *ctx)
{
    int n, steps;
    life *L;
    const double W = 900, H = 500, left = 70, top = 40, bottom = 40;
    double sx, sy;
    size_t arena;
    int *col, ncols;

    if (!ctx->planned)
        return ln_error(LN_EINVAL, "%s: not planned (compile first)", ctx->source);
    L = lifetimes(ctx, &n, &steps);
    /* x is the op step, counting only ops that compute something: the
     * constants' create ops take no arena and would only widen the picture */
    col = ln_alloc(sizeof(int) * (size_t)(steps + 1));
    {
        int step = 0, c = 0;
        LN_LIST_FOREACH(ln_op, op, ctx->ops) {
            ln_bool konst = op->op_arg->tensors_out != NULL && op->op_arg->tensors_in == NULL;
            LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
                ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
                if (te && !te->isstatic)
                    konst = LN_FALSE;
            }
            col[step++] = c;
            if (!konst)
                c++;
        }
        col[step] = c;      /* the end: graph outputs live to here */
        ncols = c + 1;
    }
    arena = ctx->arena_size ? ctx->arena_size : 1;
    sx = (W - left - 20) / ncols;
    sy = (H - top - bottom) / (double)arena;
    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"Helvetica, sans-serif\" font-size=\"11\">\n", W, H);
    fprintf(fp, "<text x=\"%.0f\" y=\"20\" font-size=\"14\">", left);
    xml_text(fp, ctx->source ? ctx->source : "model");
    fprintf(fp, ": arena %zu bytes, lower bound %zu bytes (%d ops)</text>\n", ctx->arena_size,
            ctx->lower_bound, steps - 1);
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f4f4f4\" "
            "stroke=\"#888\"/>\n", left, top, W - left - 20, H - top - bottom);
    fprintf(fp, "<text x=\"5\" y=\"%.1f\">0</text>\n<text x=\"5\" y=\"%.1f\">%zu</text>\n",
            top + 10, H - bottom, ctx->arena_size);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">op step &#8594;</text>\n", left, H - 10);
    for (int i = 0; i < n; i++) {
        ln_tensor_entry *te = L[i].te;
        char dims[128];
        unsigned hue = (unsigned)(i * 47) % 360;
        double x, y, w, h;
        if (te->io_buffer || te->owner)
            continue;       /* caller buffers are not in the arena; views share */
        x = left + sx * col[L[i].first];
        w = sx * (col[L[i].last] - col[L[i].first] + 1);
        y = top + sy * (double)te->offset;
        h = sy * (double)ln_align_up(ln_tensor_size(te->tensor), LN_MEM_ALIGN);
        if (h < 1)
            h = 1;
        fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"hsl(%u,60%%,65%%)\" stroke=\"#333\" stroke-width=\"0.5\"><title>", x, y,
                w, h, hue);
        xml_text(fp, te->name);
        fprintf(fp, " (%s) %s %s: %zu bytes at offset %zu, ops %d..%d</title></rect>\n",
                L[i].optype, ln_dtype_name(te->tensor->dtype),
                ln_dims_str(dims, sizeof dims, te->tensor->ndim, te->tensor->dims),
                ln_tensor_size(te->tensor), te->offset, L[i].first, L[i].last);
    }
    fputs("</svg>\n", fp);
    ln_free(L);
    ln_free(col);
    return 0;
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct prof {
    ln_op *op;
    double t;
} prof;

static int cmp_prof(const void *a, const void *b)
{
    double x = ((const prof *)a)->t, y = ((const prof *)b)->t;
    return x < y ? 1 : x > y ? -1 : 0;
}

int ln_report_profile(FILE *fp, const ln_context *ctx, int runs)
{
    int n = ln_list_length(ctx->ops), i, ret = 0;
    prof *P = ln_alloc(sizeof(prof) * (size_t)(n ? n : 1));
    double total = 0;

    if (!ctx->loaded)
        return ln_error(LN_EINVAL, "%s: profile before load", ctx->source);
    i = 0;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        P[i++].op = op;
    }
    for (int r = 0; r < runs && !ret; r++) {
        for (i = 0; i < n; i++) {
            double t0;
            if (!P[i].op->run)
                continue;
            t0 = now_sec();
            if ((ret = P[i].op->run(P[i].op->op_arg)))
                break;
            P[i].t += now_sec() - t0;
        }
    }
    for (i = 0; i < n; i++)
        total += P[i].t;
    qsort(P, (size_t)n, sizeof(prof), cmp_prof);
    fprintf(fp, "profile of %s: %d runs, %.3f ms per run\n", ctx->source, runs,
            runs ? 1e3 * total / runs : 0.0);
    fprintf(fp, "  %-32s %-18s %10s %6s\n", "op", "optype", "ms/run", "share");
    for (i = 0; i < n; i++) {
        if (!P[i].op->run)
            continue;
        fprintf(fp, "  %-32s %-18s %10.4f %5.1f%%\n", P[i].op->op_arg->name,
                P[i].op->op_arg->optype, runs ? 1e3 * P[i].t / runs : 0.0, pct((size_t)(P[i].t * 1e9), (size_t)(total * 1e9)));
    }
    ln_free(P);
    return ret;
}

int ln_report_to_file(const char *path, const ln_context *ctx,
                      int (*fn)(FILE *, const ln_context *))
{
    ln_outfile *o;
    int ret;

    if (ln_streq(path, "-"))
        return fn(stdout, ctx);
    if (!(o = ln_outfile_open(path)))
        return ln_error_code();
    if ((ret = fn(ln_outfile_fp(o), ctx))) {
        ln_outfile_abort(o);
        return ret;
    }
    return ln_outfile_commit(o);
}
