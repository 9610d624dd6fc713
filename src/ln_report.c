/*
 * ln_report.c -- reports for people: memory figures and the table of
 * planned tensors, the dot graph, the memory-plan SVG, the per-op profile.
 * Nothing here changes the context.
 *
 * Tables keep their columns for any name length: a name longer than its
 * column is cut in the middle ("/features/fe...conv/Conv_output_0") unless
 * LN_REPORT_LONG_NAMES widens the column to the longest name.  Widths count
 * UTF-8 characters, not bytes.  The pictures are sized to the model, their
 * text is escaped (a byte that is not UTF-8 becomes '?') and fitted to the
 * room it has, by estimate: block labels and the legend use a monospace
 * font (0.6 em per character), so the estimate holds in any renderer that
 * has one.
 */
#define _XOPEN_SOURCE 700   /* clock_gettime */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include "ln_report.h"
#include "ln_outfile.h"

/* ---- text: widths, cutting, escaping ---------------------------------- */

/* Bytes of the UTF-8 sequence at s; 0 when it is not a valid one. */
static int u8seq(const unsigned char *s)
{
    unsigned c = s[0];
    int n;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)      /* stops at the terminating NUL too */
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0) ||
        (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
        return 0;                       /* overlong, surrogate, > U+10FFFF */
    return n;
}

static int u8step(const char *s)
{
    int n = u8seq((const unsigned char *)s);
    return n ? n : 1;
}

int ln_report_width(const char *s)
{
    int w = 0;

    for (; *s; s += u8step(s))
        w++;
    return w;
}

char *ln_report_shorten(const char *s, int width)
{
    int w = ln_report_width(s), head, tail, dots = 3;
    const char *h = s, *t = s;
    size_t hb, tb;
    char *r;

    if (w <= width)
        return ln_strdup(s);
    if (width < 5) {        /* no room for the dots: the head alone */
        head = width < 0 ? 0 : width;
        tail = dots = 0;
    } else {
        head = (width - 3) / 2;
        tail = width - 3 - head;
    }
    for (int i = 0; i < head; i++)
        h += u8step(h);
    for (int i = 0; i < w - tail; i++)
        t += u8step(t);
    hb = (size_t)(h - s);
    tb = tail ? strlen(t) : 0;
    r = ln_alloc(hb + (size_t)dots + tb + 1);
    memcpy(r, s, hb);
    memcpy(r + hb, "...", (size_t)dots);
    memcpy(r + hb + dots, t, tb);
    r[hb + dots + tb] = '\0';
    return r;
}

void ln_report_cell(FILE *fp, const char *s, int width, int pad)
{
    char *c = ln_report_shorten(s, width);

    fputs(c, fp);
    if (pad)
        fprintf(fp, "%*s", width - ln_report_width(c), "");
    ln_free(c);
}

/* s as XML character data or attribute value */
static void xml_text(FILE *fp, const char *s)
{
    while (*s) {
        int n = u8seq((const unsigned char *)s);
        unsigned char c = (unsigned char)*s;
        if (n == 0 || (c < 0x20 && c != '\t' && c != '\n')) {
            fputc('?', fp);     /* not allowed in XML 1.0 */
            s++;
            continue;
        }
        switch (c) {
        case '<': fputs("&lt;", fp); break;
        case '>': fputs("&gt;", fp); break;
        case '&': fputs("&amp;", fp); break;
        case '"': fputs("&quot;", fp); break;
        case '\'': fputs("&apos;", fp); break;
        default: fwrite(s, 1, (size_t)n, fp);
        }
        s += n;
    }
}

/* s cut to width characters, as XML */
static void xml_cut(FILE *fp, const char *s, int width)
{
    char *c = ln_report_shorten(s, width);
    xml_text(fp, c);
    ln_free(c);
}

/* s inside a dot double-quoted string */
static void dot_text(FILE *fp, const char *s)
{
    while (*s) {
        int n = u8seq((const unsigned char *)s);
        unsigned char c = (unsigned char)*s;
        if (n == 0 || c < 0x20) {
            fputc('?', fp);
            s++;
            continue;
        }
        if (c == '"' || c == '\\')
            fputc('\\', fp);
        fwrite(s, 1, (size_t)n, fp);
        s += n;
    }
}

static void dot_cut(FILE *fp, const char *s, int width)
{
    char *c = ln_report_shorten(s, width);
    dot_text(fp, c);
    ln_free(c);
}

/* 1234567 -> "1,234,567" in buf (at least 32 bytes) */
static const char *group3(char *buf, size_t v)
{
    char t[24];
    int n = snprintf(t, sizeof t, "%zu", v), j = 0;

    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            buf[j++] = ',';
        buf[j++] = t[i];
    }
    buf[j] = '\0';
    return buf;
}

static double pct(size_t a, size_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* ---- the plan on op steps --------------------------------------------- */

/* Does op only make constants (a weight's create op)?  Such ops take no
 * arena and no time; the op steps, the pictures and the tables skip them. */
static ln_bool op_is_const(const ln_context *ctx, const ln_op *op)
{
    if (!op->op_arg->tensors_out || op->op_arg->tensors_in)
        return LN_FALSE;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
        if (!te || !te->isstatic)
            return LN_FALSE;
    }
    return LN_TRUE;
}

typedef struct life {
    ln_tensor_entry *te;
    int first, last;      /* op steps of its first write and last read */
    const ln_op *op;      /* the op that writes it */
} life;

/* The planned tensors in the order they are written, with their lifetimes
 * in op steps: step k is the k-th op that is not a constant's, and the
 * last step (nsteps - 1) is the end of the run, where graph outputs live. */
typedef struct plan_view {
    life *L;
    int n, nsteps;
    const ln_op **op_at;  /* the op of each step; NULL at the end */
} plan_view;

static void plan_view_init(plan_view *v, const ln_context *ctx)
{
    int cap = 64, step = 0, nops = ln_list_length(ctx->ops);
    ln_hash *idx = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    ln_list *outs = ln_context_outputs(ctx);

    v->L = ln_alloc(sizeof(life) * (size_t)cap);
    v->op_at = ln_alloc(sizeof(ln_op *) * (size_t)(nops + 1));
    v->n = 0;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (op_is_const(ctx, op))
            continue;
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            intptr_t i = (intptr_t)ln_hash_find(idx, tl->name);
            if (i > 0)
                v->L[i - 1].last = step;
        }
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            if (!te || !te->planned || ln_hash_find(idx, tl->name))
                continue;
            if (v->n == cap)
                v->L = ln_realloc(v->L, sizeof(life) * (size_t)(cap *= 2));
            v->L[v->n].te = te;
            v->L[v->n].first = v->L[v->n].last = step;
            v->L[v->n].op = op;
            ln_hash_insert(idx, te->name, (void *)(intptr_t)(v->n + 1));
            v->n++;
        }
        v->op_at[step++] = op;
    }
    v->op_at[step] = NULL;
    for (int i = 0; i < v->n; i++)
        if (ln_list_find_custom(outs, v->L[i].te->name, ln_str_cmp))
            v->L[i].last = step;
    v->nsteps = step + 1;
    ln_list_free(outs);
    ln_hash_free(idx);
}

static void plan_view_free(plan_view *v)
{
    ln_free(v->L);
    ln_free(v->op_at);
}

/* ---- the memory report ------------------------------------------------ */

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

int ln_report_tensors(FILE *fp, const ln_context *ctx, const char *prefix, int flags)
{
    plan_view v;
    int nw = 6;     /* "tensor" */

    if (!ctx->planned)
        return ln_error(LN_EINVAL, "%s: not planned (compile first)", ctx->source);
    plan_view_init(&v, ctx);
    for (int i = 0; i < v.n; i++) {
        int w = ln_report_width(v.L[i].te->name);
        if (w > nw)
            nw = w;
    }
    if (!(flags & LN_REPORT_LONG_NAMES) && nw > LN_REPORT_NAME_WIDTH)
        nw = LN_REPORT_NAME_WIDTH;
    fputs(prefix, fp);
    ln_report_cell(fp, "tensor", nw, 1);
    fprintf(fp, " %10s %10s %9s  %s\n", "bytes", "offset", "op steps", "where");
    for (int i = 0; i < v.n; i++) {
        ln_tensor_entry *te = v.L[i].te;
        char steps[32];
        snprintf(steps, sizeof steps, "%d..%d", v.L[i].first, v.L[i].last);
        fputs(prefix, fp);
        ln_report_cell(fp, te->name, nw, 1);
        fprintf(fp, " %10zu %10zu %9s  ", ln_tensor_size(te->tensor), te->offset, steps);
        if (te->io_buffer || te->owner) {
            fputs(te->io_buffer ? "caller buffer of '" : "arena, shares '", fp);
            ln_report_cell(fp, te->io_buffer ? te->io_buffer : te->owner, nw, 0);
            fputs("'\n", fp);
        } else {
            fputs("arena\n", fp);
        }
    }
    plan_view_free(&v);
    return 0;
}

/* A quantized model: how many ops compute on int8, and which float ops
 * stay float between a DequantizeLinear and a QuantizeLinear (no int8
 * kernel takes them): each named.  Nothing for a float model. */
static void report_quantized(FILE *fp, const ln_context *ctx)
{
    int n8 = 0, nf = 0, nq = 0, shown = 0, nops = ln_list_length(ctx->ops);
    const ln_op **quantized = ln_alloc(sizeof *quantized * (size_t)(nops ? nops : 1));

    /* the producers of what a QuantizeLinear reads */
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ln_tensor_entry *src = ln_op_base_is(op, "quantize_linear")
                               ? ln_op_tensor_in(op->op_arg, "src") : NULL;
        ln_op *p = src ? ln_dfg_producer(ctx->dfg, src->name) : NULL;
        if (p)
            quantized[nq++] = p;
    }
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ln_tensor_list_entry *o = op->op_arg->tensors_out ? op->op_arg->tensors_out->data : NULL;
        ln_tensor_entry *te = o ? ln_tensor_table_find(ctx->tensor_table, o->name) : NULL;
        ln_bool near_qdq = LN_FALSE;
        if (!te || te->isstatic || ln_op_base_is(op, "input") || ln_op_base_is(op, "create") ||
            ln_op_base_is(op, "quantize_linear") || ln_op_base_is(op, "dequantize_linear"))
            continue;
        if (te->tensor->dtype == LN_DTYPE_INT8 || te->tensor->dtype == LN_DTYPE_UINT8) {
            n8++;
            continue;
        }
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            ln_op *p = ln_dfg_producer(ctx->dfg, tl->name);
            near_qdq |= p && ln_op_base_is(p, "dequantize_linear");
        }
        for (int i = 0; i < nq && !near_qdq; i++)
            near_qdq = quantized[i] == op;
        if (!near_qdq)
            continue;
        if (nf++ == 0)
            fputs("  stays float between DequantizeLinear and QuantizeLinear (no int8 kernel):\n",
                  fp);
        if (shown < 12) {
            fprintf(fp, "    %s (%s)\n", op->op_arg->name, op->op_arg->optype);
            shown++;
        }
    }
    if (nf > shown)
        fprintf(fp, "    and %d more\n", nf - shown);
    if (n8 || nf)
        fprintf(fp, "  int8 ops                   %10d  (%d op%s kept float)\n", n8, nf,
                nf == 1 ? "" : "s");
    ln_free(quantized);
}

int ln_report_mem(FILE *fp, const ln_context *ctx, int flags)
{
    plan_view v;

    if (!ctx->planned)
        return ln_error(LN_EINVAL, "%s: not planned (compile first)", ctx->source);
    plan_view_init(&v, ctx);
    fprintf(fp, "memory report for %s (%d ops, %d op steps, %d planned tensors)\n", ctx->source,
            ln_list_length(ctx->ops), v.nsteps - 1, v.n);
    plan_view_free(&v);
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
    report_quantized(fp, ctx);
    return ln_report_tensors(fp, ctx, "  ", flags);
}

/* ---- the data-flow graph ---------------------------------------------- */

#define DOT_LABEL_WIDTH 28      /* characters of an op name in its box */
#define DOT_CLUSTER_MAX 40      /* ops drawn in one column before clustering */
#define DOT_CLUSTER_OPS 32      /* about this many ops per cluster */

/* The op's label: its name cut in the middle, its optype and the shape of
 * its first output. */
static void dot_label(FILE *fp, const ln_context *ctx, const ln_op *op)
{
    ln_tensor_list_entry *out = op->op_arg->tensors_out ? op->op_arg->tensors_out->data : NULL;
    ln_tensor_entry *te = out ? ln_tensor_table_find(ctx->tensor_table, out->name) : NULL;
    char dims[128];

    fputs("label=\"", fp);
    dot_cut(fp, op->op_arg->name, DOT_LABEL_WIDTH);
    fputs("\\n", fp);
    dot_cut(fp, op->op_arg->optype, DOT_LABEL_WIDTH);
    if (te) {
        ln_dims_str(dims, sizeof dims, te->tensor->ndim, te->tensor->dims);
        fprintf(fp, " %s", dims);
    }
    fputs("\", tooltip=\"", fp);
    dot_text(fp, op->op_arg->name);
    fputs(" (", fp);
    dot_text(fp, op->op_arg->optype);
    fputs(")\"", fp);
}

/* Long graphs are cut into clusters of about DOT_CLUSTER_OPS ops; an edge
 * between clusters does not constrain the ranks, so every cluster starts at
 * the top and they stand side by side instead of one column thousands of
 * pixels tall.  A constant (shown with LN_REPORT_DOT_WEIGHTS) goes with its
 * first reader. */
int ln_report_dot(FILE *fp, const ln_context *ctx, int flags)
{
    int nops = ln_list_length(ctx->ops), ncomp = 0, nclusters = 1, per, k = 0;
    int weights = (flags & LN_REPORT_DOT_WEIGHTS) != 0, hidden = 0;
    const ln_op **ops = ln_alloc(sizeof(ln_op *) * (size_t)(nops ? nops : 1));
    int *cl = ln_alloc(sizeof(int) * (size_t)(nops ? nops : 1));
    ln_bool *konst = ln_alloc(sizeof(ln_bool) * (size_t)(nops ? nops : 1));
    ln_hash *at = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);

    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ops[k] = op;
        konst[k] = op_is_const(ctx, op);
        ncomp += !konst[k];
        hidden += konst[k] && !weights;
        ln_hash_insert(at, op->op_arg->name, (void *)(intptr_t)(k + 1));
        k++;
    }
    if (ncomp > DOT_CLUSTER_MAX)
        nclusters = (ncomp + DOT_CLUSTER_OPS - 1) / DOT_CLUSTER_OPS;
    per = (ncomp + nclusters - 1) / nclusters;
    k = 0;
    for (int i = 0; i < nops; i++)
        cl[i] = konst[i] ? -1 : k++ / (per ? per : 1);
    for (int i = 0; i < nops; i++) {       /* a constant joins its first reader */
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, ops[i]->op_arg->tensors_in) {
            ln_op *prod = ln_dfg_producer(ctx->dfg, tl->name);
            intptr_t p = prod ? (intptr_t)ln_hash_find(at, prod->op_arg->name) : 0;
            if (p > 0 && cl[p - 1] < 0 && !konst[i])
                cl[p - 1] = cl[i];
        }
    }

    fputs("digraph lightnet {\n  graph [rankdir=TB, nodesep=0.15, ranksep=0.22, "
          "fontname=\"Helvetica\", fontsize=12, labelloc=t, label=\"", fp);
    dot_cut(fp, ctx->source ? ctx->source : "model", 60);
    fprintf(fp, ": %d ops", ncomp);
    if (hidden)
        fprintf(fp, " (%d constants hidden; --dot-weights shows them)", hidden);
    fputs("\"];\n  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=9, "
          "height=0.3, margin=\"0.06,0.03\"];\n"
          "  edge [fontname=\"Helvetica\", fontsize=8, arrowsize=0.6];\n", fp);
    for (int c = -1; c < nclusters; c++) {
        if (c >= 0 && nclusters > 1)
            fprintf(fp, "  subgraph cluster_%d {\n    label=\"ops %d..%d\"; style=dashed; "
                    "color=\"#999999\"; fontsize=10;\n", c, c * per, c * per + per - 1 < ncomp - 1 ?
                    c * per + per - 1 : ncomp - 1);
        for (int i = 0; i < nops; i++) {
            if (cl[i] != c || (konst[i] && !weights))
                continue;
            fprintf(fp, "%s  n%d [", c >= 0 && nclusters > 1 ? "  " : "", i);
            dot_label(fp, ctx, ops[i]);
            if (konst[i])
                fputs(", shape=note, style=filled, fillcolor=\"#eeeeee\", fontsize=8", fp);
            else if (!ops[i]->op_arg->tensors_in)
                fputs(", shape=note, style=filled, fillcolor=\"#ddeeff\"", fp);
            fputs("];\n", fp);
        }
        if (c >= 0 && nclusters > 1)
            fputs("  }\n", fp);
    }
    for (int i = 0; i < nops; i++) {
        if (konst[i])
            continue;
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, ops[i]->op_arg->tensors_in) {
            ln_op *prod = ln_dfg_producer(ctx->dfg, tl->name);
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            intptr_t p = prod ? (intptr_t)ln_hash_find(at, prod->op_arg->name) : 0;
            char dims[128] = "?";
            if (p <= 0 || (konst[p - 1] && !weights))
                continue;
            if (te)
                ln_dims_str(dims, sizeof dims, te->tensor->ndim, te->tensor->dims);
            fprintf(fp, "  n%d -> n%d [tooltip=\"", (int)p - 1, i);
            dot_text(fp, tl->name);
            fprintf(fp, " %s\"", dims);
            if (konst[p - 1])
                fputs(", style=dashed, color=\"#999999\"", fp);
            if (cl[p - 1] != cl[i])     /* to the next column */
                fputs(", constraint=false, color=\"#888888\"", fp);
            fputs("];\n", fp);
        }
    }
    fputs("}\n", fp);
    ln_hash_free(at);
    ln_free(ops);
    ln_free(cl);
    ln_free(konst);
    return 0;
}

/* ---- the memory-plan picture ------------------------------------------ */

#define SVG_CH 6.1          /* px per character of the 10 px monospace text */
#define SVG_CH11 6.7        /* the same at 11 px */
#define SVG_MONO "DejaVu Sans Mono, Menlo, Consolas, monospace"
#define SVG_LEGEND_NAME 56  /* characters of a name in the legend */

/* An arena buffer: its owner tensor and the union of the lifetimes of the
 * tensors that share it (in-place outputs, views, a concat's inputs). */
typedef struct block {
    const life *l;
    int first, last;
    size_t size;            /* bytes, aligned as planned */
    int num;                /* its number in the legend, 0 when named */
} block;

static block *plan_blocks(const plan_view *v, int *nb)
{
    block *B = ln_alloc(sizeof(block) * (size_t)(v->n ? v->n : 1));
    ln_hash *idx = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);

    *nb = 0;
    for (int i = 0; i < v->n; i++) {
        ln_tensor_entry *te = v->L[i].te;
        if (te->io_buffer || te->owner)
            continue;       /* caller buffers are not in the arena; sharers below */
        B[*nb].l = &v->L[i];
        B[*nb].first = v->L[i].first;
        B[*nb].last = v->L[i].last;
        B[*nb].size = ln_align_up(ln_tensor_size(te->tensor), LN_MEM_ALIGN);
        B[*nb].num = 0;
        ln_hash_insert(idx, te->name, (void *)(intptr_t)(*nb + 1));
        (*nb)++;
    }
    for (int i = 0; i < v->n; i++) {
        ln_tensor_entry *te = v->L[i].te;
        intptr_t b = te->owner && !te->io_buffer ? (intptr_t)ln_hash_find(idx, te->owner) : 0;
        if (b <= 0)
            continue;
        if (v->L[i].first < B[b - 1].first)
            B[b - 1].first = v->L[i].first;
        if (v->L[i].last > B[b - 1].last)
            B[b - 1].last = v->L[i].last;
    }
    ln_hash_free(idx);
    return B;
}

/* Arena bytes live at each step (live[nsteps]); returns the first step
 * where they peak. */
static int plan_peak(const plan_view *v, const block *B, int nb, size_t *live, int *depth)
{
    int peak = 0;

    for (int s = 0; s < v->nsteps; s++) {
        live[s] = 0;
        depth[s] = 0;
        for (int i = 0; i < nb; i++)
            if (B[i].first <= s && s <= B[i].last) {
                live[s] += B[i].size;
                depth[s]++;
            }
        if (live[s] > live[peak])
            peak = s;
    }
    return peak;
}

int ln_report_peak(FILE *fp, const ln_context *ctx, const char *prefix, int flags)
{
    plan_view v;
    block *B;
    size_t *live;
    int *depth, nb, peak, nw = 6;
    const ln_op *op;

    if (!ctx->planned)
        return ln_error(LN_EINVAL, "%s: not planned (compile first)", ctx->source);
    plan_view_init(&v, ctx);
    B = plan_blocks(&v, &nb);
    live = ln_alloc(sizeof(size_t) * (size_t)v.nsteps);
    depth = ln_alloc(sizeof(int) * (size_t)v.nsteps);
    peak = plan_peak(&v, B, nb, live, depth);
    op = v.op_at[peak];
    fprintf(fp, "%speak: %zu bytes of the arena live at op step %d of %d, ", prefix, live[peak],
            peak, v.nsteps - 1);
    if (op) {
        ln_report_cell(fp, op->op_arg->name, (flags & LN_REPORT_LONG_NAMES) ? INT_MAX / 2 :
                       LN_REPORT_NAME_WIDTH, 0);
        fprintf(fp, " (%s)\n", op->op_arg->optype);
    } else {
        fputs("the end of the run\n", fp);
    }
    for (int i = 0; i < nb; i++) {
        int w = ln_report_width(B[i].l->te->name);
        if (B[i].first <= peak && peak <= B[i].last && w > nw)
            nw = w;
    }
    if (!(flags & LN_REPORT_LONG_NAMES) && nw > LN_REPORT_NAME_WIDTH)
        nw = LN_REPORT_NAME_WIDTH;
    fputs(prefix, fp);
    ln_report_cell(fp, "buffer", nw, 1);
    fprintf(fp, " %10s %10s %9s\n", "bytes", "offset", "op steps");
    for (int i = 0; i < nb; i++) {
        char steps[32];
        if (B[i].first > peak || peak > B[i].last)
            continue;
        snprintf(steps, sizeof steps, "%d..%d", B[i].first, B[i].last);
        fputs(prefix, fp);
        ln_report_cell(fp, B[i].l->te->name, nw, 1);
        fprintf(fp, " %10zu %10zu %9s\n", B[i].size, B[i].l->te->offset, steps);
    }
    plan_view_free(&v);
    ln_free(B);
    ln_free(live);
    ln_free(depth);
    return 0;
}

/* A 1-2-5 step that cuts span into about n parts (at least 1). */
static size_t nice_step(size_t span, size_t n)
{
    size_t raw = (span + n - 1) / n, p = 1;
    static const size_t m[] = {1, 2, 5, 10};

    while (raw / 10 >= p)
        p *= 10;
    for (int i = 0; i < 4; i++)
        if (p * m[i] >= raw)
            return p * m[i];
    return p * 10;
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* How a block is labelled: with its name, with its number (and as much of
 * the name as fits), or not at all; horizontally or bottom to top. */
typedef struct label {
    int chars;              /* characters that fit, 0: no text */
    int vertical;
} label;

static label fit_label(double w, double h)
{
    label hz = {0, 0}, vt = {0, 1};

    if (h >= 12 && w >= 8)
        hz.chars = (int)((w - 4) / SVG_CH);
    if (w >= 12 && h >= 8)
        vt.chars = (int)((h - 6) / SVG_CH);
    return vt.chars > hz.chars + 2 ? vt : hz;  /* horizontal when about even */
}

static void svg_label_at(FILE *fp, double x, double y, double w, double h, int vertical)
{
    if (vertical)
        fprintf(fp, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\">", x + w / 2 + 3.5,
                y + h - 3);
    else
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + h / 2 + 3.5);
}

int ln_report_mem_svg(FILE *fp, const ln_context *ctx, int flags)
{
    plan_view v;
    block *B;
    label *lab;
    int nb, nsteps, peak = 0, maxdepth = 1, nleg = 0, namew = 4, nd = 1, legcols, legrows;
    int *depth, tstep;
    size_t *live, ymax, ystep, lb = ctx->lower_bound, arena = ctx->arena_size;
    double plot_w, plot_h, colw, sy, x0 = 84, y0 = 78, W, H, legpx, legy;
    char b1[32], b2[32];
    const char *src = ctx->source ? ctx->source : "model";

    if (!ctx->planned)
        return ln_error(LN_EINVAL, "%s: not planned (compile first)", ctx->source);
    plan_view_init(&v, ctx);
    nsteps = v.nsteps;
    B = plan_blocks(&v, &nb);
    live = ln_alloc(sizeof(size_t) * (size_t)nsteps);
    depth = ln_alloc(sizeof(int) * (size_t)nsteps);
    lab = ln_alloc(sizeof(label) * (size_t)(nb ? nb : 1));
    peak = plan_peak(&v, B, nb, live, depth);
    for (int s = 0; s < nsteps; s++)
        if (depth[s] > maxdepth)
            maxdepth = depth[s];

    /* the size: wider with more steps, taller with more buffers at once */
    plot_w = clampd(26.0 * nsteps, 480, 2400);
    colw = plot_w / nsteps;
    ymax = arena > lb ? arena : lb;
    if (live[peak] > ymax)
        ymax = live[peak];
    ymax += ymax / 25 + 1;      /* room above the arena line */
    plot_h = 200.0 + 80.0 * maxdepth;
    for (int i = 0; i < nb; i++) {  /* tall enough to name the big buffers */
        double frac = (double)B[i].size / (double)ymax;
        double need = (ln_report_width(B[i].l->te->name) * SVG_CH + 8) / frac;
        if (frac >= 0.25 && need > plot_h)
            plot_h = need;
    }
    plot_h = clampd(plot_h, 540, 1000);
    sy = plot_h / (double)ymax;

    /* which blocks carry their name, which a number and a legend line */
    for (int i = 0; i < nb; i++) {
        double w = colw * (B[i].last - B[i].first + 1), h = sy * (double)B[i].size;
        const char *name = B[i].l->te->name;
        int len;
        lab[i] = fit_label(w, h);
        if (lab[i].chars >= ln_report_width(name))
            continue;
        B[i].num = ++nleg;
        len = ln_report_width(name);
        if (len > namew)
            namew = len;
    }
    if (!(flags & LN_REPORT_LONG_NAMES) && namew > SVG_LEGEND_NAME)
        namew = SVG_LEGEND_NAME;
    for (int k = nleg; k >= 10; k /= 10)
        nd++;
    /* a legend column: number, swatch, name, bytes, op steps */
    legpx = (nd + namew + 26) * SVG_CH + 20 + 24;
    W = x0 + plot_w + 180;
    if (W < legpx + 20)
        W = legpx + 20;
    legcols = (int)((W - 20) / legpx);
    if (legcols < 1)
        legcols = 1;
    legrows = (nleg + legcols - 1) / legcols;
    legy = y0 + plot_h + 58;
    H = legy + (nleg ? 18 + 14.0 * legrows : 0) + 8;

    fprintf(fp, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"Helvetica, Arial, sans-serif\" "
            "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            W, H, W, H);
    /* title: the model (cut to fit), the figures, the peak */
    fputs("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">", fp);
    xml_cut(fp, src, (int)((W - 20) / 8.6));
    fputs("</text>\n", fp);
    fprintf(fp, "<text x=\"10\" y=\"38\">arena %s bytes, lower bound %s bytes (arena is %.1f%% "
            "of it); %d op steps, %d arena buffers</text>\n", group3(b1, arena), group3(b2, lb),
            pct(arena, lb), nsteps - 1, nb);
    {
        const ln_op *op = v.op_at[peak];
        char head[128];
        int room = (int)((W - 20) / SVG_CH11);
        snprintf(head, sizeof head, "peak: %s bytes live at op step %d, ", group3(b1, live[peak]),
                 peak);
        fprintf(fp, "<text x=\"10\" y=\"54\" fill=\"#b00000\">%s", head);
        if (op) {
            room -= (int)strlen(head) + ln_report_width(op->op_arg->optype) + 3;
            xml_cut(fp, op->op_arg->name, room > 8 ? room : 8);
            fputs(" (", fp);
            xml_text(fp, op->op_arg->optype);
            fputs(")", fp);
        } else {
            fputs("the end of the run", fp);
        }
        fputs("</text>\n", fp);
    }

    /* the plot area, the y axis in bytes, the x axis in op steps */
    fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f7f7f7\" "
            "stroke=\"#888\"/>\n", x0, y0, plot_w, plot_h);
    ystep = nice_step(ymax, 6);
    fputs("<g font-size=\"10\" fill=\"#333\">\n", fp);
    for (size_t y = 0; y <= ymax; y += ystep) {
        double py = y0 + plot_h - sy * (double)y;
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x0 - 4, py,
                x0 + plot_w, py, x0 - 6, py + 3.5, group3(b1, y));
    }
    tstep = (int)nice_step((size_t)(30.0 / colw + 1), 1);
    if (30.0 / colw <= 1)
        tstep = 1;
    for (int s = 0; s < nsteps; s += tstep) {
        double px = x0 + colw * (s + 0.5);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>\n", px,
                y0 + plot_h, px, y0 + plot_h + 4, px, y0 + plot_h + 15, s);
    }
    fputs("</g>\n", fp);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">op step (ops that compute; "
            "the last step is the end of the run)</text>\n", x0 + plot_w / 2, y0 + plot_h + 32);
    fprintf(fp, "<text transform=\"translate(14,%.1f) rotate(-90)\" text-anchor=\"middle\">"
            "arena offset (bytes)</text>\n", y0 + plot_h / 2);

    /* the buffers */
    for (int i = 0; i < nb; i++) {
        ln_tensor_entry *te = B[i].l->te;
        char dims[128];
        unsigned hue = (unsigned)(i * 47) % 360;
        double x = x0 + colw * B[i].first, w = colw * (B[i].last - B[i].first + 1);
        double h = sy * (double)B[i].size, y = y0 + plot_h - sy * (double)(te->offset + B[i].size);
        if (h < 1)
            h = 1;
        fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"hsl(%u,60%%,72%%)\" stroke=\"#333\" stroke-width=\"0.5\"><title>", x, y,
                w, h, hue);
        if (B[i].num)
            fprintf(fp, "%d: ", B[i].num);
        xml_text(fp, te->name);
        fputs(" (", fp);
        xml_text(fp, B[i].l->op->op_arg->optype);
        fprintf(fp, ") %s %s: %zu bytes at offset %zu, op steps %d..%d</title></rect>\n",
                ln_dtype_name(te->tensor->dtype),
                ln_dims_str(dims, sizeof dims, te->tensor->ndim, te->tensor->dims),
                ln_tensor_size(te->tensor), te->offset, B[i].first, B[i].last);
    }
    /* their names or numbers */
    fputs("<g font-family=\"" SVG_MONO "\" font-size=\"10\" fill=\"#111\">\n", fp);
    for (int i = 0; i < nb; i++) {
        ln_tensor_entry *te = B[i].l->te;
        double x = x0 + colw * B[i].first, w = colw * (B[i].last - B[i].first + 1);
        double h = sy * (double)B[i].size, y = y0 + plot_h - sy * (double)(te->offset + B[i].size);
        int room = lab[i].chars;
        char num[16];
        if (!B[i].num) {
            svg_label_at(fp, x, y, w, h, lab[i].vertical);
            xml_text(fp, te->name);
            fputs("</text>\n", fp);
            continue;
        }
        snprintf(num, sizeof num, "%d", B[i].num);
        if (room < (int)strlen(num))
            continue;           /* too small even for its number: the legend */
        room -= (int)strlen(num) + 1;  /* part of the name too, when it says something */
        if (room < 24 && h >= 12 && w >= strlen(num) * SVG_CH + 4)
            lab[i].vertical = 0;    /* a number alone reads better upright */
        svg_label_at(fp, x, y, w, h, lab[i].vertical);
        fprintf(fp, "<tspan font-weight=\"bold\">%s</tspan>", num);
        if (room >= 24) {
            fputc(' ', fp);
            xml_cut(fp, te->name, room);
        }
        fputs("</text>\n", fp);
    }
    fputs("</g>\n", fp);

    /* the lower bound, the arena, the peak step */
    {
        double ya = y0 + plot_h - sy * (double)arena, yl = y0 + plot_h - sy * (double)lb;
        double xe = x0 + plot_w, px = x0 + colw * (peak + 0.5);
        fprintf(fp, "<g font-family=\"" SVG_MONO "\" font-size=\"11\">\n");
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#b00000\" "
                "stroke-dasharray=\"3,3\"/>\n", px, y0, px, y0 + plot_h);
        fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#b00000\">peak"
                "</text>\n", px, y0 - 4);
        fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                "stroke-width=\"1.5\"/>\n", x0, ya, xe + 8, ya);
        if (arena == lb) {
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">arena = lower bound</text>\n"
                    "<text x=\"%.1f\" y=\"%.1f\">%s bytes</text>\n", xe + 10, ya - 3, xe + 10,
                    ya + 12, group3(b1, arena));
        } else {
            fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#0050b0\" "
                    "stroke-width=\"1.5\" stroke-dasharray=\"6,3\"/>\n", x0, yl, xe + 8, yl);
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\">arena %s</text>\n", xe + 10, ya - 3,
                    group3(b1, arena));
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#0050b0\">lower bound %s</text>\n",
                    xe + 10, yl + 12, group3(b1, lb));
        }
        fputs("</g>\n", fp);
    }

    /* the legend: every block not named on the picture */
    if (nleg) {
        int k = 0;
        fprintf(fp, "<text x=\"10\" y=\"%.1f\">buffers not named above: number, tensor, bytes, "
                "op steps (first..last)</text>\n", legy);
        fputs("<g font-family=\"" SVG_MONO "\" font-size=\"10\">\n", fp);
        for (int i = 0; i < nb; i++) {
            double lx, ly, nx;
            char steps[32];
            if (!B[i].num)
                continue;
            lx = 10 + legpx * (k / legrows);
            ly = legy + 18 + 14.0 * (k % legrows);
            nx = lx + nd * SVG_CH;      /* the number's right edge */
            k++;
            snprintf(steps, sizeof steps, "%d..%d", B[i].first, B[i].last);
            fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-weight=\"bold\">"
                    "%d</text><rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\" "
                    "fill=\"hsl(%u,60%%,72%%)\" stroke=\"#333\" stroke-width=\"0.5\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\">", nx, ly, B[i].num, nx + 4, ly - 9,
                    (unsigned)(i * 47) % 360, nx + 20, ly);
            xml_cut(fp, B[i].l->te->name, namew);
            fprintf(fp, "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                    nx + 20 + (namew + 12) * SVG_CH, ly, group3(b1, B[i].size),
                    nx + 20 + (namew + 26) * SVG_CH, ly, steps);
        }
        fputs("</g>\n", fp);
    }
    fputs("</svg>\n", fp);
    plan_view_free(&v);
    ln_free(B);
    ln_free(lab);
    ln_free(live);
    ln_free(depth);
    return 0;
}

/* ---- the profile ------------------------------------------------------ */

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

int ln_report_profile(FILE *fp, const ln_context *ctx, int runs, int flags)
{
    int n = ln_list_length(ctx->ops), i, ret = 0, nw = 2, tw = 6;
    prof *P;
    double total = 0;

    if (!ctx->loaded)
        return ln_error(LN_EINVAL, "%s: profile before load", ctx->source);
    P = ln_alloc(sizeof(prof) * (size_t)(n ? n : 1));
    i = 0;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        P[i].op = op;
        P[i++].t = 0;
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
    for (i = 0; i < n; i++) {
        int w;
        total += P[i].t;
        if (!P[i].op->run)
            continue;
        if ((w = ln_report_width(P[i].op->op_arg->name)) > nw)
            nw = w;
        if ((w = ln_report_width(P[i].op->op_arg->optype)) > tw)
            tw = w;
    }
    if (!(flags & LN_REPORT_LONG_NAMES)) {
        nw = nw > LN_REPORT_NAME_WIDTH ? LN_REPORT_NAME_WIDTH : nw;
        tw = tw > 24 ? 24 : tw;
    }
    qsort(P, (size_t)n, sizeof(prof), cmp_prof);
    fprintf(fp, "profile of %s: %d runs, %.3f ms per run\n", ctx->source, runs,
            runs ? 1e3 * total / runs : 0.0);
    fputs("  ", fp);
    ln_report_cell(fp, "op", nw, 1);
    fputc(' ', fp);
    ln_report_cell(fp, "optype", tw, 1);
    fprintf(fp, " %10s %6s\n", "ms/run", "share");
    for (i = 0; i < n; i++) {
        if (!P[i].op->run)
            continue;
        fputs("  ", fp);
        ln_report_cell(fp, P[i].op->op_arg->name, nw, 1);
        fputc(' ', fp);
        ln_report_cell(fp, P[i].op->op_arg->optype, tw, 1);
        fprintf(fp, " %10.4f %5.1f%%\n", runs ? 1e3 * P[i].t / runs : 0.0,
                total > 0 ? 100.0 * P[i].t / total : 0.0);
    }
    ln_free(P);
    return ret;
}

int ln_report_to_file(const char *path, const ln_context *ctx, int flags,
                      int (*fn)(FILE *, const ln_context *, int))
{
    ln_outfile *o;
    int ret;

    if (ln_streq(path, "-"))
        return fn(stdout, ctx, flags);
    if (!(o = ln_outfile_open(path)))
        return ln_error_code();
    if ((ret = fn(ln_outfile_fp(o), ctx, flags))) {
        ln_outfile_abort(o);
        return ret;
    }
    return ln_outfile_commit(o);
}
