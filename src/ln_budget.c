/*
 * ln_budget.c -- a model's RAM and flash on a target, item by item, and
 * the verdict against a budget (ln_budget.h; docs/firmware.md).
 *
 * What the model brings is found by emitting it (ln_aot_emit, weights to a
 * temporary blob so the source stays small) and reading the source back:
 * the ln_rt_ kernels NAME_run calls, the arguments of each call, and the
 * static const kernel argument structs.  The runtime's share comes from the
 * target's size table (src/auto/ln_budget_<target>.h, measured from the
 * built libln_rt.a and the toolchain's C libraries by tools/rtsizes.py):
 * a graph of input sections, walked from the kernels the model calls,
 * which is what the linker keeps with --gc-sections.  The stack is the
 * deepest chain in that graph (a reference to a function that is not a
 * call is taken as a possible indirect call) plus an estimate of
 * NAME_run's own frame.
 *
 * What it does not do: compile anything, or count the application's own
 * code and data (start-up, I/O, printing) -- only what the model brings.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ln_budget.h"
#include "ln_util.h"
#include "aot/ln_aot.h"

/* The size table's types (the generated headers fill arrays of them). */
enum { LN_BUDGET_RUNTIME, LN_BUDGET_LIBM, LN_BUDGET_LIBC, LN_BUDGET_LIBGCC, LN_BUDGET_NLIBS };
enum { LN_BUDGET_TEXT, LN_BUDGET_RODATA, LN_BUDGET_DATA, LN_BUDGET_BSS };

typedef struct ln_budget_node {
    const char *name;         /* function, or section for data */
    int lib, kind;
    unsigned bytes, align, frame;
    unsigned indirect;        /* calls through a pointer (blx rN) */
    unsigned first, nedges;   /* into the edges */
} ln_budget_node;

typedef struct ln_budget_edge {
    unsigned to, call;        /* call 0: an address or data reference */
} ln_budget_edge;

typedef struct ln_budget_struct {
    const char *type;
    unsigned bytes, align;
} ln_budget_struct;

#include "auto/ln_budget_cortex_m4.h"

#define NELEM(a) (sizeof (a) / sizeof (a)[0])

typedef struct budget_table {
    const char *target, *toolchain, *file;
    const ln_budget_node *nodes;
    size_t nnodes;
    const ln_budget_edge *edges;
    const ln_budget_struct *structs;
    size_t nstructs;
} budget_table;

static const budget_table tables[] = {
    {"cortex-m4", LN_BUDGET_CORTEX_M4_TOOLCHAIN, "src/auto/ln_budget_cortex_m4.h",
     ln_budget_cortex_m4_nodes, NELEM(ln_budget_cortex_m4_nodes), ln_budget_cortex_m4_edges,
     ln_budget_cortex_m4_structs, NELEM(ln_budget_cortex_m4_structs)},
};

/* Model code, fitted to .text.NAME_run of the 12 test models (float and
 * int8) built with arm-none-eabi-gcc 12.2.1 -O2: 50 bytes + 6 per kernel
 * argument, within 50 bytes of each.  NAME_run's frame: the callee-saved
 * registers plus the arguments passed on the stack beyond the fourth. */
#define CODE_BASE 50
#define CODE_PER_ARG 6
#define FRAME_BASE 32
#define FRAME_PER_STACK_ARG 4

/* ---- --budget ram=128K,flash=512K --------------------------------------- */

/* "128K" -> 131072; -1 on a malformed or too large size. */
static int parse_size(const char *s, size_t n, size_t *out)
{
    size_t v = 0, mult = 1, i = 0;

    if (n == 0 || !isdigit((unsigned char)s[0]))
        return -1;
    for (; i < n && isdigit((unsigned char)s[i]); i++) {
        if (v > (SIZE_MAX - 9) / 10)
            return -1;
        v = v * 10 + (size_t)(s[i] - '0');
    }
    if (i < n) {
        if (s[i] == 'K' || s[i] == 'k')
            mult = 1024;
        else if (s[i] == 'M' || s[i] == 'm')
            mult = 1024 * 1024;
        else
            return -1;
        if (++i < n && (s[i] == 'B' || s[i] == 'b'))
            i++;
        if (i != n)
            return -1;
    }
    if (v > SIZE_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}

int ln_budget_parse(const char *spec, ln_budget *b)
{
    const char *p = spec;

    b->has_ram = b->has_flash = 0;
    if (!*spec)
        return ln_error(LN_EINVAL, "--budget: empty (give ram=SIZE,flash=SIZE, e.g. "
                        "ram=128K,flash=512K)");
    while (*p) {
        const char *end = strchr(p, ','), *eq;
        size_t len = end ? (size_t)(end - p) : strlen(p), flen, *lim;
        int *has;

        eq = memchr(p, '=', len);
        flen = eq ? (size_t)(eq - p) : len;
        if (flen == 3 && !strncmp(p, "ram", 3))
            lim = &b->ram_limit, has = &b->has_ram;
        else if (flen == 5 && !strncmp(p, "flash", 5))
            lim = &b->flash_limit, has = &b->has_flash;
        else
            return ln_error(LN_EINVAL, "--budget: unknown field '%.*s' (the fields are ram "
                            "and flash: ram=128K,flash=512K)", (int)flen, p);
        if (*has)
            return ln_error(LN_EINVAL, "--budget: field '%.*s' given twice", (int)flen, p);
        if (!eq)
            return ln_error(LN_EINVAL, "--budget: field '%.*s' has no size (%.*s=SIZE)",
                            (int)flen, p, (int)flen, p);
        if (parse_size(eq + 1, len - flen - 1, lim))
            return ln_error(LN_EINVAL, "--budget: field '%.*s': bad size '%.*s' (bytes, or "
                            "with K or M, 1024-based: 128K)", (int)flen, p,
                            (int)(len - flen - 1), eq + 1);
        *has = 1;
        p += len;
        if (*p == ',' && !*++p)
            return ln_error(LN_EINVAL, "--budget: a field is missing after the last ','");
    }
    return 0;
}

/* ---- the emitted source ---------------------------------------------------- */

/* What NAME_run calls. */
typedef struct model_calls {
    char **kernels;           /* distinct callees, ln_rt_ and memcpy/memset */
    int nkernels, ncalls, nargs, max_args;
} model_calls;

static void add_kernel(model_calls *mc, const char *s, size_t n)
{
    for (int i = 0; i < mc->nkernels; i++)
        if (strlen(mc->kernels[i]) == n && !strncmp(mc->kernels[i], s, n))
            return;
    mc->kernels = ln_realloc(mc->kernels, sizeof *mc->kernels * (size_t)(mc->nkernels + 1));
    mc->kernels[mc->nkernels] = ln_alloc(n + 1);
    memcpy(mc->kernels[mc->nkernels], s, n);
    mc->kernels[mc->nkernels++][n] = '\0';
}

/* The calls in the body of NAME_run: each ln_rt_xxx( or memcpy( / memset(
 * and its top-level arguments. */
static void scan_calls(const char *body, model_calls *mc)
{
    for (const char *p = body; *p; p++) {
        size_t n = 0;
        int depth = 1, args = 1;
        const char *q;

        if (p > body && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        if (!strncmp(p, "ln_rt_", 6) || !strncmp(p, "memcpy(", 7) || !strncmp(p, "memset(", 7))
            while (isalnum((unsigned char)p[n]) || p[n] == '_')
                n++;
        if (!n || p[n] != '(')
            continue;
        for (q = p + n + 1; *q && depth; q++) {
            if (*q == '(' || *q == '{' || *q == '[')
                depth++;
            else if (*q == ')' || *q == '}' || *q == ']')
                depth--;
            else if (*q == ',' && depth == 1)
                args++;
        }
        add_kernel(mc, p, n);
        mc->ncalls++;
        mc->nargs += args;
        if (args > mc->max_args)
            mc->max_args = args;
        p = q - 1;
    }
}

static char *read_back(FILE *fp)
{
    long n;
    char *s;

    if (fflush(fp) || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
        ln_error(LN_EIO, "budget: cannot read the emitted source back: %s", strerror(errno));
        return NULL;
    }
    s = ln_alloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, fp) != (size_t)n) {
        ln_free(s);
        ln_error(LN_EIO, "budget: cannot read the emitted source back");
        return NULL;
    }
    s[n] = '\0';
    return s;
}

/* ---- the size table ------------------------------------------------------ */

static const ln_budget_node *find_node(const budget_table *t, const char *name)
{
    for (size_t i = 0; i < t->nnodes; i++)
        if ((t->nodes[i].kind == LN_BUDGET_TEXT) && ln_streq(t->nodes[i].name, name))
            return &t->nodes[i];
    return NULL;
}

static void mark(const budget_table *t, size_t i, unsigned char *seen)
{
    if (seen[i])
        return;
    seen[i] = 1;
    for (unsigned e = 0; e < t->nodes[i].nedges; e++)
        mark(t, t->edges[t->nodes[i].first + e].to, seen);
}

/* The stack walk: memo and state per node, the next node on the deepest
 * chain, and the functions whose address is taken (what a call through a
 * pointer may reach). */
typedef struct walk {
    const budget_table *t;
    unsigned *memo;
    unsigned char *state;
    size_t *next, *taken, ntaken;
} walk;

/* Deepest stack from node i: its frame plus the deepest node it references
 * (a call, or a function whose address it or its data takes); a node that
 * calls through a pointer may also reach any function whose address is
 * taken. */
static unsigned depth(walk *w, size_t i)
{
    const ln_budget_node *n = &w->t->nodes[i];
    unsigned best = 0;

    if (w->state[i] == 2)
        return w->memo[i];
    if (w->state[i] == 1)   /* recursion: counted once */
        return 0;
    w->state[i] = 1;
    w->next[i] = (size_t)-1;
    for (size_t e = 0; e < n->nedges + (n->indirect ? w->ntaken : 0); e++) {
        size_t to = e < n->nedges ? w->t->edges[n->first + e].to : w->taken[e - n->nedges];
        unsigned d = depth(w, to);
        if (w->next[i] == (size_t)-1 || d > best)
            best = d, w->next[i] = to;
    }
    w->state[i] = 2;
    return w->memo[i] = n->frame + best;
}

static size_t align_up(size_t n, size_t a)
{
    return a > 1 ? (n + a - 1) / a * a : n;
}

/* ---- the estimate ------------------------------------------------------- */

static ln_budget_item *add_item(ln_budget *b, const char *label, size_t bytes, int ram)
{
    ln_budget_item *it = &b->items[b->nitems++];

    assert(b->nitems <= LN_BUDGET_MAX_ITEMS);
    it->label = label;
    it->bytes = bytes;
    it->ram = ram;
    it->note[0] = '\0';
    return it;
}

static void fmt_bytes(size_t v, char *buf)   /* 142344 -> "142,344" */
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%zu", v), j = 0;

    for (int i = 0; i < n; i++) {
        buf[j++] = tmp[i];
        if ((n - i - 1) % 3 == 0 && i < n - 1)
            buf[j++] = ',';
    }
    buf[j] = '\0';
}

/* Walks the table from the model's callees and adds the items. */
static int add_runtime(ln_budget *b, const budget_table *t, const model_calls *mc,
                       const char *name)
{
    unsigned char *seen = ln_alloc(t->nnodes);
    walk w;
    size_t code[LN_BUDGET_NLIBS], data = 0, bss = 0, nfn = 0, deepest = 0, root = (size_t)-1;
    unsigned frame = FRAME_BASE + FRAME_PER_STACK_ARG * (unsigned)(mc->max_args > 4 ?
                                                                    mc->max_args - 4 : 0);
    int ret = 0, len;
    ln_budget_item *it;

    w.t = t;
    w.memo = ln_alloc(sizeof *w.memo * t->nnodes);
    w.state = ln_alloc(t->nnodes);
    w.next = ln_alloc(sizeof *w.next * t->nnodes);
    w.taken = ln_alloc(sizeof *w.taken * t->nnodes);
    w.ntaken = 0;
    memset(seen, 0, t->nnodes);
    memset(w.state, 0, t->nnodes);
    memset(code, 0, sizeof code);
    for (int k = 0; k < mc->nkernels; k++) {
        const ln_budget_node *n = find_node(t, mc->kernels[k]);
        if (!n) {
            ret = ln_error(LN_ENOTFOUND, "budget: kernel '%s' is not in the %s size table (%s): "
                           "run make -C runtime m4-sizes", mc->kernels[k], t->target, t->file);
            goto out;
        }
        mark(t, (size_t)(n - t->nodes), seen);
    }
    for (size_t i = 0; i < t->nnodes; i++)   /* addresses taken in what is linked */
        for (unsigned e = 0; seen[i] && e < t->nodes[i].nedges; e++) {
            const ln_budget_edge *ed = &t->edges[t->nodes[i].first + e];
            size_t k;
            if (ed->call || t->nodes[ed->to].kind != LN_BUDGET_TEXT)
                continue;
            for (k = 0; k < w.ntaken && w.taken[k] != ed->to; k++)
                ;
            if (k == w.ntaken)
                w.taken[w.ntaken++] = ed->to;
        }
    for (int k = 0; k < mc->nkernels; k++) {
        size_t i = (size_t)(find_node(t, mc->kernels[k]) - t->nodes);
        if (root == (size_t)-1 || depth(&w, i) > deepest)
            deepest = depth(&w, i), root = i;
    }
    for (size_t i = 0; i < t->nnodes; i++) {
        const ln_budget_node *n = &t->nodes[i];
        size_t sz = align_up(n->bytes, n->align);
        if (!seen[i])
            continue;
        if (n->kind == LN_BUDGET_BSS)
            bss += sz;
        else {
            code[n->lib] += sz;
            if (n->kind == LN_BUDGET_DATA)
                data += sz;
        }
        if (n->lib == LN_BUDGET_RUNTIME && n->kind == LN_BUDGET_TEXT)
            nfn++;
    }
    it = add_item(b, "runtime state", data + bss, 1);
    snprintf(it->note, sizeof it->note, ".data + .bss of the runtime and C library pieces "
             "linked (.data %zu, .bss %zu)", data, bss);
    it = add_item(b, "stack", frame + deepest, 1);
    len = snprintf(b->stack_path, sizeof b->stack_path, "%s_run (~%u)", name, frame);
    for (size_t i = root; i != (size_t)-1 && len > 0 && (size_t)len < sizeof b->stack_path;
         i = w.next[i]) {
        if (t->nodes[i].kind == LN_BUDGET_TEXT)
            len += snprintf(b->stack_path + len, sizeof b->stack_path - (size_t)len,
                            " -> %s (%u)", t->nodes[i].name, t->nodes[i].frame);
    }
    snprintf(it->note, sizeof it->note, "%s_run ~%u + deepest kernel chain %zu (below)",
             name, frame, deepest);
    it = add_item(b, "runtime kernels", code[LN_BUDGET_RUNTIME], 0);
    snprintf(it->note, sizeof it->note, "%zu functions + constants of libln_rt, from %d "
             "kernel(s) called", nfn, mc->nkernels);
    it = add_item(b, "C library", code[LN_BUDGET_LIBM] + code[LN_BUDGET_LIBC] +
                  code[LN_BUDGET_LIBGCC], 0);
    snprintf(it->note, sizeof it->note, "libm %zu, libc %zu, libgcc %zu",
             code[LN_BUDGET_LIBM], code[LN_BUDGET_LIBC], code[LN_BUDGET_LIBGCC]);
out:
    ln_free(seen);
    ln_free(w.state);
    ln_free(w.memo);
    ln_free(w.next);
    ln_free(w.taken);
    return ret;
}

/* The static const kernel argument structs: bytes and count. */
static int arg_structs(const budget_table *t, const char *src, size_t *bytes, int *count)
{
    const char *p = src;
    static const char decl[] = "\nstatic const ln_rt_";

    *bytes = 0;
    *count = 0;
    while ((p = strstr(p, decl))) {
        const char *type = p + 14, *end = type;
        size_t i;
        while (isalnum((unsigned char)*end) || *end == '_')
            end++;
        for (i = 0; i < t->nstructs; i++)
            if (strlen(t->structs[i].type) == (size_t)(end - type) &&
                !strncmp(t->structs[i].type, type, (size_t)(end - type)))
                break;
        if (i == t->nstructs)
            return ln_error(LN_ENOTFOUND, "budget: argument type '%.*s' is not in the %s size "
                            "table (%s): run make -C runtime m4-sizes", (int)(end - type), type,
                            t->target, t->file);
        *bytes += align_up(t->structs[i].bytes, t->structs[i].align);
        ++*count;
        p = end;
    }
    return 0;
}

int ln_budget_estimate(ln_context *ctx, const char *target, const char *name, ln_budget *b)
{
    const budget_table *t = NULL;
    FILE *c = NULL, *blob = NULL;
    char *src = NULL, *run = NULL, *body, *end;
    model_calls mc;
    ln_aot_opts ao;
    ln_aot_stats st;
    size_t argb = 0;
    int nargs = 0, ret;
    char lb[32];
    ln_budget_item *it;

    for (size_t i = 0; i < NELEM(tables); i++)
        if (ln_streq(tables[i].target, target))
            t = &tables[i];
    if (!t)
        return ln_error(LN_EUNSUPPORTED, "--budget: no size table for target '%s' (one is "
                        "measured for cortex-m4; the host's sizes depend on its compiler and C "
                        "library, so -t cpu has no budget)", target);
    b->target = t->target;
    b->toolchain = t->toolchain;
    b->nitems = 0;
    memset(&mc, 0, sizeof mc);
    memset(&st, 0, sizeof st);
    memset(&ao, 0, sizeof ao);
    ao.name = name;
    ao.weights_file = "budget.bin";   /* the source stays small */
    if (!(c = tmpfile()) || !(blob = tmpfile())) {
        ret = ln_error(LN_EIO, "budget: cannot create a temporary file: %s", strerror(errno));
        goto out;
    }
    if ((ret = ln_aot_emit(ctx, &ao, c, NULL, blob, &st)) || !(src = read_back(c))) {
        ret = ret ? ret : ln_error_code();
        goto out;
    }
    run = ln_sprintf("\nint %s_run(", name);
    for (body = strstr(src, run); body; body = strstr(body + 1, run)) {
        const char *eol = strchr(body + 1, '\n');
        if (eol && eol[-1] != ';')   /* the definition, not a declaration */
            break;
    }
    if (!body || !(end = strstr(body, "\n}\n"))) {
        ret = ln_error(LN_EINTERNAL, "budget: no %s_run in the emitted source", name);
        goto out;
    }
    *end = '\0';
    scan_calls(body, &mc);
    *end = '\n';
    if ((ret = arg_structs(t, src, &argb, &nargs)))
        goto out;

    fmt_bytes(ctx->lower_bound, lb);
    it = add_item(b, "arena", ctx->arena_size, 1);
    snprintf(it->note, sizeof it->note, "planned; lower bound %s%s", lb,
             ctx->io_in_arena ? "; inputs and outputs inside" : "");
    it = add_item(b, "input and output buffers", st.io_bytes, 1);
    snprintf(it->note, sizeof it->note, "%s", ctx->io_in_arena ? "inside the arena "
             "(--io-in-arena)" : "the caller's (0 with --io-in-arena)");
    it = add_item(b, "kernel arguments in RAM", 0, 1);
    snprintf(it->note, sizeof it->note, "none: the %d argument structs are static const "
             "(flash)", nargs);
    it = add_item(b, "weights", st.weights_bytes - st.requant_bytes, 0);
    snprintf(it->note, sizeof it->note, "%d constants, 16-byte aligned",
             st.nweights);
    it = add_item(b, "requantization tables", st.requant_bytes, 0);
    snprintf(it->note, sizeof it->note, "int8 multipliers and shifts");
    it = add_item(b, "kernel arguments", argb, 0);
    snprintf(it->note, sizeof it->note, "%d static const structs", nargs);
    it = add_item(b, "model code", (size_t)CODE_BASE + (size_t)CODE_PER_ARG * (size_t)mc.nargs,
                  0);
    snprintf(it->note, sizeof it->note, "estimate: %d + %d x %d arguments of %d calls",
             CODE_BASE, CODE_PER_ARG, mc.nargs, mc.ncalls);
    if ((ret = add_runtime(b, t, &mc, name)))
        goto out;
    b->ram = b->flash = 0;
    for (int i = 0; i < b->nitems; i++) {
        if (b->items[i].ram)
            b->ram += b->items[i].bytes;
        else
            b->flash += b->items[i].bytes;
    }
    /* the runtime's .data is in both: RAM, and its initial image in flash */
out:
    if (c)
        fclose(c);
    if (blob)
        fclose(blob);
    for (int i = 0; i < mc.nkernels; i++)
        ln_free(mc.kernels[i]);
    ln_free(mc.kernels);
    ln_free(st.kernels);
    ln_free(src);
    ln_free(run);
    return ret;
}

/* ---- the table and the verdict ------------------------------------------ */

static void total_line(FILE *fp, const char *prefix, size_t total, int has, size_t limit)
{
    char a[32], l[32];

    fmt_bytes(total, a);
    fprintf(fp, "%s  %-28s %12s", prefix, "total", a);
    if (has) {
        fmt_bytes(limit, l);
        fprintf(fp, "  of %s (%.1f%%): %s", l, limit ? 100.0 * (double)total / (double)limit :
                100.0, total <= limit ? "fits" : "DOES NOT FIT");
    }
    fputc('\n', fp);
}

void ln_budget_print(FILE *fp, const ln_budget *b, const char *prefix)
{
    char v[32];

    fprintf(fp, "%sbudget on %s (runtime and C library sizes measured with %s)\n", prefix,
            b->target, b->toolchain);
    for (int ram = 1; ram >= 0; ram--) {
        fprintf(fp, "%s%-30s %12s\n", prefix, ram ? "RAM" : "flash", "bytes");
        for (int i = 0; i < b->nitems; i++) {
            const ln_budget_item *it = &b->items[i];
            if (it->ram != ram)
                continue;
            fmt_bytes(it->bytes, v);
            fprintf(fp, "%s  %-28s %12s  %s\n", prefix, it->label, v, it->note);
        }
        total_line(fp, prefix, ram ? b->ram : b->flash, ram ? b->has_ram : b->has_flash,
                   ram ? b->ram_limit : b->flash_limit);
    }
    fprintf(fp, "%sdeepest stack: %s\n", prefix, b->stack_path);
}

int ln_budget_verdict(const ln_budget *b, const char *model)
{
    char msg[2][200];
    int n = 0;

    for (int ram = 1; ram >= 0; ram--) {
        size_t total = ram ? b->ram : b->flash, limit = ram ? b->ram_limit : b->flash_limit;
        const ln_budget_item *big = NULL;
        char t[32], l[32], s[32];

        if (!(ram ? b->has_ram : b->has_flash) || total <= limit)
            continue;
        for (int i = 0; i < b->nitems; i++)
            if (b->items[i].ram == ram && (!big || b->items[i].bytes > big->bytes))
                big = &b->items[i];
        fmt_bytes(total, t);
        fmt_bytes(limit, l);
        fmt_bytes(big->bytes, s);
        snprintf(msg[n++], sizeof msg[0], "%s %s > %s (the %s, %s bytes, %s the largest item)",
                 ram ? "RAM" : "flash", t, l, big->label, s,
                 big->label[strlen(big->label) - 1] == 's' ? "are" : "is");
    }
    if (!n)
        return 0;
    return ln_error(LN_EINVAL, "%s does not fit: %s%s%s", model, msg[0], n > 1 ? "; " : "",
                    n > 1 ? msg[1] : "");
}
