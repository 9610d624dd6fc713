/*
 * ln_mem_plan.c -- lifetimes and placement of activation memory.
 *
 * 1. Aliasing.  Walking the op stream in order: a view op's output (reshape
 *    and friends) becomes part of its input's buffer; an op that may work in
 *    place writes over its input when that input dies at this op (and is not
 *    a graph input or output), so the output joins the input's buffer too;
 *    a concat's inputs join its output's buffer at their slices, and a
 *    concat of a feature list an earlier concat laid out is placed over it
 *    (concat_extend, concat_absorb).
 *    Constants (static tensors) live outside the arena.
 * 2. Lifetimes.  Each buffer lives from the first op that writes any of its
 *    tensors to the last op that reads one (graph outputs live to the end).
 * 3. Graph inputs and outputs.  By default (opts->io_in_arena false) a
 *    buffer that is exactly one graph input or output is the caller's
 *    buffer and takes no arena space: the first op reads the caller's input
 *    and the last op writes the caller's output directly.  The interpreter
 *    and TFLite-Micro-style users set io_in_arena for the smallest total RAM.
 * 4. Placement.  Buffers are placed one by one at the lowest offset that
 *    does not overlap a placed buffer with an intersecting lifetime.  Three
 *    orders are tried -- size descending (greedy by size), the buffers live
 *    at the peak step first, then by size (Glow's peak-first idea), and by
 *    the step they are born (linear scan) -- then, while the arena is still
 *    above the lower bound, up to 64 size orders with neighbours shuffled
 *    (fixed seed: the plan is the same on every run).  The smallest arena
 *    wins.  Size order alone can paint itself into a corner: a chain of
 *    equal buffers with a small one between them (the autoencoder's 8-wide
 *    bottleneck) takes 1056 bytes where 1024 suffice; a shuffle finds it.
 *
 * The lower bound reported beside the arena is the largest sum of buffer
 * sizes live at one step, after aliasing; no placement can beat it.  Greedy
 * placement meets it on chains and on most residual and concat blocks; it
 * stops there because the optimal interval-packing problem is NP-hard in
 * general and the remaining gap on real CNNs is what the report shows.
 */
#include <limits.h>
#include <string.h>
#include <stdlib.h>
#include "ln_op.h"
#include "ln_mem_plan.h"

size_t ln_mem_plan_lower_bound(const ln_mem_buf *bufs, int n)
{
    int steps = 0;
    size_t best = 0;

    for (int i = 0; i < n; i++)
        if (bufs[i].last + 1 > steps)
            steps = bufs[i].last + 1;
    for (int s = 0; s < steps; s++) {
        size_t sum = 0;
        for (int i = 0; i < n; i++)
            if (bufs[i].first <= s && s <= bufs[i].last)
                sum += bufs[i].size;
        if (sum > best)
            best = sum;
    }
    return best;
}

static int overlap_time(const ln_mem_buf *a, const ln_mem_buf *b)
{
    return a->first <= b->last && b->first <= a->last;
}

/* Place bufs in the order given by idx; returns the arena size. */
static size_t place_in_order(ln_mem_buf *bufs, const int *idx, int n, size_t align)
{
    size_t arena = 0;
    int *placed = ln_alloc(sizeof(int) * (size_t)(n ? n : 1));
    int np = 0;

    for (int k = 0; k < n; k++) {
        ln_mem_buf *b = &bufs[idx[k]];
        size_t off = 0;
        int moved = 1;
        /* first fit: bump past every conflicting buffer until none overlaps */
        while (moved) {
            moved = 0;
            for (int j = 0; j < np; j++) {
                ln_mem_buf *p = &bufs[placed[j]];
                if (!overlap_time(b, p))
                    continue;
                if (off < p->offset + p->size && p->offset < off + b->size) {
                    off = ln_align_up(p->offset + p->size, align);
                    moved = 1;
                }
            }
        }
        b->offset = off;
        placed[np++] = idx[k];
        if (off + b->size > arena)
            arena = off + b->size;
    }
    ln_free(placed);
    return arena;
}

/* Extra shuffled orders tried while the arena is above the lower bound. */
#define LN_MEM_PLAN_SHUFFLES 64

static const ln_mem_buf *sort_bufs;
static int peak_step;

static int cmp_size_desc(const void *a, const void *b)
{
    const ln_mem_buf *x = &sort_bufs[*(const int *)a], *y = &sort_bufs[*(const int *)b];
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    if (x->first != y->first)
        return x->first - y->first;
    return (*(const int *)a) - (*(const int *)b);
}

static int cmp_peak_first(const void *a, const void *b)
{
    const ln_mem_buf *x = &sort_bufs[*(const int *)a], *y = &sort_bufs[*(const int *)b];
    int px = x->first <= peak_step && peak_step <= x->last;
    int py = y->first <= peak_step && peak_step <= y->last;
    if (px != py)
        return py - px;
    return cmp_size_desc(a, b);
}

static int cmp_first(const void *a, const void *b)
{
    const ln_mem_buf *x = &sort_bufs[*(const int *)a], *y = &sort_bufs[*(const int *)b];
    if (x->first != y->first)
        return x->first - y->first;
    return cmp_size_desc(a, b);
}

size_t ln_mem_plan_place(ln_mem_buf *bufs, int n, size_t align)
{
    int *idx = ln_alloc(sizeof(int) * (size_t)(n ? n : 1));
    size_t *best_off = ln_alloc(sizeof(size_t) * (size_t)(n ? n : 1));
    size_t best = (size_t)-1, peak = 0;
    unsigned rng = 2463534242u;
    int steps = 0;

    for (int i = 0; i < n; i++)
        if (bufs[i].last + 1 > steps)
            steps = bufs[i].last + 1;
    peak_step = 0;
    for (int s = 0; s < steps; s++) {
        size_t sum = 0;
        for (int i = 0; i < n; i++)
            if (bufs[i].first <= s && s <= bufs[i].last)
                sum += bufs[i].size;
        if (sum > peak) {
            peak = sum;
            peak_step = s;
        }
    }
    sort_bufs = bufs;
    for (int order = 0; order < 3 + LN_MEM_PLAN_SHUFFLES && best > peak; order++) {
        static int (*const orders[3])(const void *, const void *) = {
            cmp_size_desc, cmp_peak_first, cmp_first};
        size_t size;
        for (int i = 0; i < n; i++)
            idx[i] = i;
        if (order < 3) {
            qsort(idx, (size_t)n, sizeof(int), orders[order]);
        } else {
            /* size order, shuffled within a random window: a fixed-seed
             * LCG keeps the plan the same on every run */
            qsort(idx, (size_t)n, sizeof(int), cmp_size_desc);
            for (int i = n - 1; i > 0; i--) {
                int j;
                rng = rng * 1103515245u + 12345u;
                j = i - (int)((rng >> 16) % (unsigned)(order % 8 + 2));
                if (j >= 0) {
                    int t = idx[i];
                    idx[i] = idx[j];
                    idx[j] = t;
                }
            }
        }
        size = place_in_order(bufs, idx, n, align);
        if (size < best) {
            best = size;
            for (int i = 0; i < n; i++)
                best_off[i] = bufs[i].offset;
        }
    }
    for (int i = 0; i < n; i++)
        bufs[i].offset = best_off[i];
    sort_bufs = NULL;
    ln_free(idx);
    ln_free(best_off);
    return n ? best : 0;
}

/* ---- from the op stream to buffers ------------------------------------ */

typedef struct tinfo {
    ln_tensor_entry *te;
    const ln_op *by;      /* the op writing it */
    int first;            /* step of the op writing it */
    int buf;              /* index into bufs, -1 for constants */
    size_t rel;           /* offset inside the buffer */
} tinfo;

static tinfo *find_info(ln_hash *h, const char *name)
{
    return ln_hash_find(h, name);
}

/* The planner's state through its four steps. */
typedef struct planner {
    ln_list *ops;
    ln_hash *table;           /* the tensor table */
    ln_list *inputs, *outputs;  /* graph input and output names */
    const ln_mem_plan_opts *opts;
    int nops;
    ln_hash *info;            /* tensor name -> tinfo */
    ln_hash *lastuse;         /* tensor name -> 1 + the step of its last reader */
    ln_mem_buf *bufs;
    int nbufs, cap;
    /* per buffer: the last step (1-based) that reads any tensor in it,
     * INT_MAX when it holds a graph input or output (never overwritten) */
    int *blast;
    char *dead;               /* buffers a concat output absorbed */
    int dcap;
    tinfo **io_of;            /* per buffer: its graph input or output */
    int *nio;                 /* per buffer: how many; 1 = the caller's buffer */
} planner;

static ln_bool is_io(const planner *p, char *name)
{
    return ln_list_find_custom(p->outputs, name, ln_str_cmp) ||
           ln_list_find_custom(p->inputs, name, ln_str_cmp);
}

/*
 * A concat along an axis with nothing but 1s before it writes its inputs
 * one after another: each input that fills its whole buffer, shares it with
 * no graph input or output, and was produced into the arena can be produced straight
 * into its slice of the output.  Its buffer (with every tensor in it: views,
 * in-place results) joins the output's at the slice's offset, and the
 * concat kernel finds the data already in place.
 */
/* Does every tensor of buffer b lie within its first `bytes` bytes?  (The
 * buffer's size is rounded up to LN_MEM_ALIGN, so it alone cannot tell a
 * buffer holding just one small input from one that already absorbed a
 * whole concat output, of which that input is the first slice.)  And is
 * none of them a graph input or output, or a view of one (the caller's
 * buffer cannot be a slice of the concat: an input is const, an output
 * would be moved into the arena)? */
static ln_bool buffer_within(ln_hash *info, int b, size_t bytes, ln_list *inputs,
                             ln_list *outputs)
{
    ln_hash_iter it;
    void *k, *v;

    ln_hash_iter_init(&it, info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        const tinfo *x = v;
        if (x->buf != b)
            continue;
        if (x->rel + ln_tensor_size(x->te->tensor) > bytes ||
            ln_list_find_custom(inputs, x->te->name, ln_str_cmp) ||
            ln_list_find_custom(outputs, x->te->name, ln_str_cmp))
            return LN_FALSE;
    }
    return LN_TRUE;
}

/* Is tl one of the concatenated inputs ("src", or "src_0", "src_1", ...)? */
static ln_bool concat_input(const ln_op *op, const ln_tensor_list_entry *tl, size_t prefix)
{
    return strncmp(tl->arg_name, op->mem_in, prefix) == 0 &&
           (tl->arg_name[prefix] == '\0' || tl->arg_name[prefix] == '_');
}

/*
 * A concat whose first inputs (two or more) already lie one after another
 * in one buffer, ending where everything in that buffer ends -- an earlier
 * concat of the same features absorbed them: DenseNet's layers each
 * concatenate the block's growing feature list -- is itself placed there,
 * over them, and the buffer grows by the rest of its output (which
 * concat_absorb then fills with the remaining inputs' buffers where it
 * can).  The kernel then copies nothing for the prefix.  The buffer's
 * tensors keep their bytes: whatever else was there ends before the
 * prefix's end, and no op writes over the buffer in place while any
 * tensor in it is still read (alias_input's blast test).
 */
static void concat_extend(planner *p, const ln_op *op, tinfo *out, size_t prefix)
{
    size_t r0 = 0, off = 0;
    int b = -1, m = 0, ob = out->buf;
    ln_hash_iter it;
    void *k, *v;

    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
        tinfo *in;
        if (!concat_input(op, tl, prefix))
            continue;
        in = find_info(p->info, tl->name);
        if (!in || in->buf < 0)
            break;
        if (b < 0) {
            b = in->buf;
            r0 = in->rel;
        }
        if (in->buf != b || in->rel != r0 + off)
            break;
        off += ln_tensor_size(in->te->tensor);
        m++;
    }
    if (m < 2 || b == ob || p->dead[b] || is_io(p, out->te->name) ||
        !buffer_within(p->info, b, r0 + off, p->inputs, p->outputs))
        return;
    ln_hash_iter_init(&it, p->info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        tinfo *x = v;
        if (x->buf != ob)
            continue;
        x->buf = b;
        x->rel = r0 + x->rel;
        ln_tensor_entry_set_owner(x->te, p->bufs[b].name);
    }
    if (p->bufs[b].size < ln_align_up(r0 + ln_tensor_size(out->te->tensor), LN_MEM_ALIGN))
        p->bufs[b].size = ln_align_up(r0 + ln_tensor_size(out->te->tensor), LN_MEM_ALIGN);
    if (p->bufs[ob].first < p->bufs[b].first)
        p->bufs[b].first = p->bufs[ob].first;
    if (p->blast[ob] > p->blast[b])
        p->blast[b] = p->blast[ob];
    p->dead[ob] = 1;
}

static void concat_absorb(planner *p, const ln_op *op, tinfo *out)
{
    ln_hash *info = p->info;
    ln_mem_buf *bufs = p->bufs;
    char *dead = p->dead;
    int *blast = p->blast;
    ln_param_entry *pa = ln_op_param(op->op_arg, "axis");
    const ln_tensor *t = out->te->tensor;
    size_t prefix = op->mem_in ? strlen(op->mem_in) : 0, off = 0;
    int axis = pa && pa->type == LN_PARAM_NUMBER ? pa->value_int : 0;
    ln_hash_iter it;
    void *k, *v;

    if (axis < 0)
        axis += t->ndim;
    if (axis < 0 || axis >= t->ndim || !op->mem_in)
        return;
    for (int d = 0; d < axis; d++)
        if (t->dims[d] != 1)
            return;
    concat_extend(p, op, out, prefix);
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
        tinfo *in;
        int b;
        size_t bytes;
        if (!concat_input(op, tl, prefix))
            continue;
        in = find_info(info, tl->name);
        if (!in)
            return;         /* a constant: the kernel copies it, and the rest */
        bytes = ln_tensor_size(in->te->tensor);
        b = in->buf;
        if (b >= 0 && b != out->buf && !dead[b] && in->rel == 0 &&
            bufs[b].size == ln_align_up(bytes, LN_MEM_ALIGN) &&
            buffer_within(info, b, bytes, p->inputs, p->outputs)) {
            ln_hash_iter_init(&it, info);
            while (ln_hash_iter_next(&it, &k, &v)) {
                tinfo *x = v;
                if (x->buf != b)
                    continue;
                x->buf = out->buf;
                x->rel = out->rel + off + x->rel;
                ln_tensor_entry_set_owner(x->te, bufs[out->buf].name);
            }
            if (bufs[b].first < bufs[out->buf].first)
                bufs[out->buf].first = bufs[b].first;
            if (blast[b] > blast[out->buf])
                blast[out->buf] = blast[b];
            dead[b] = 1;
        }
        off += bytes;
    }
}

/*
 * An if_merge's output is the then branch's output or the else branch's:
 * only one branch runs, so each branch may write its output straight into
 * the merge's buffer (at offset 0; the kernel then copies nothing).  A
 * branch output's buffer joins the output's when every tensor in it is
 * written inside that branch (under the merge's guard plus the condition:
 * an outer tensor there would be overwritten by the other branch, or
 * outlive the merge) and it is no graph input or output.
 */
static void merge_absorb(planner *p, const ln_op *op, tinfo *out)
{
    const char *args[2] = {"on_true", "on_false"};
    const char *cond = ln_tensor_list_find_name(op->op_arg->tensors_in, "cond");
    size_t bytes = ln_tensor_size(out->te->tensor);
    ln_tensor_list_entry g = {NULL, NULL};
    ln_list branch = {&g, NULL};
    ln_hash_iter it;
    void *k, *v;

    for (int a = 0; a < 2 && cond; a++) {
        const char *in = ln_tensor_list_find_name(op->op_arg->tensors_in, args[a]);
        tinfo *ti = in ? find_info(p->info, in) : NULL;
        ln_bool ok;
        int b;
        if (!ti || (b = ti->buf) < 0 || b == out->buf || p->dead[b] || ti->rel != 0 ||
            ln_tensor_size(ti->te->tensor) != bytes ||
            p->bufs[b].size != ln_align_up(bytes, LN_MEM_ALIGN) ||
            !buffer_within(p->info, b, bytes, p->inputs, p->outputs))
            continue;
        /* the branch: the merge's guard, then (cond, value) */
        g.name = (char *)cond;
        g.arg_name = (char *)(a == 0 ? "true" : "false");
        ok = LN_TRUE;
        ln_hash_iter_init(&it, p->info);
        while (ok && ln_hash_iter_next(&it, &k, &v)) {
            const tinfo *x = v;
            const ln_list *xg;
            if (x->buf != b)
                continue;
            xg = x->by->op_arg->guard;
            ok = ln_op_guard_within(xg, op->op_arg->guard) &&
                 ln_op_guard_within(ln_list_nth((ln_list *)xg, ln_list_length(op->op_arg->guard)),
                                    &branch);
        }
        if (!ok)
            continue;
        ln_hash_iter_init(&it, p->info);
        while (ln_hash_iter_next(&it, &k, &v)) {
            tinfo *x = v;
            if (x->buf != b)
                continue;
            x->buf = out->buf;
            x->rel = out->rel + x->rel;
            ln_tensor_entry_set_owner(x->te, p->bufs[out->buf].name);
        }
        if (p->bufs[b].first < p->bufs[out->buf].first)
            p->bufs[out->buf].first = p->bufs[b].first;
        if (p->blast[b] > p->blast[out->buf])
            p->blast[out->buf] = p->blast[b];
        p->dead[b] = 1;
    }
}

/* Does op read a tensor of buffer b other than in (an in-place write over
 * b would change it under the kernel's feet)? */
static ln_bool reads_buffer_twice(const ln_op *op, const char *in, int b, ln_hash *info)
{
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
        tinfo *x = ln_streq(tl->name, in) ? NULL : find_info(info, tl->name);
        if (x && x->buf == b)
            return LN_TRUE;
    }
    return LN_FALSE;
}

/* A new buffer for te, written at step. */
static int new_buffer(planner *p, ln_tensor_entry *te, int step, int tlast)
{
    if (p->nbufs == p->cap) {
        p->cap *= 2;
        p->bufs = ln_realloc(p->bufs, sizeof(ln_mem_buf) * (size_t)p->cap);
        p->blast = ln_realloc(p->blast, sizeof(int) * (size_t)p->cap);
    }
    p->blast[p->nbufs] = tlast;
    p->bufs[p->nbufs].name = te->name;
    p->bufs[p->nbufs].size = ln_align_up(ln_tensor_size(te->tensor), LN_MEM_ALIGN);
    if (p->bufs[p->nbufs].size == 0)
        p->bufs[p->nbufs].size = LN_MEM_ALIGN;
    p->bufs[p->nbufs].first = step;
    p->bufs[p->nbufs].last = step;
    p->bufs[p->nbufs].offset = 0;
    return p->nbufs++;
}

/* May ti, output tl of op at step, live in its input's buffer (a view,
 * or in place over an input that dies here)?  Sets ti->buf and ti->rel. */
static void alias_input(planner *p, const ln_op *op, const ln_tensor_list_entry *tl, tinfo *ti,
                        int step)
{
    const char *in;
    tinfo *src;

    if (op->mem_kind == LN_MEMPLAN_OWN || !op->mem_in ||
        (op->mem_out && !ln_streq(op->mem_out, tl->arg_name)))
        return;
    in = ln_tensor_list_find_name(op->op_arg->tensors_in, op->mem_in);
    src = in ? find_info(p->info, in) : NULL;
    if (!src || src->buf < 0)
        return;
    if (op->mem_kind == LN_MEMPLAN_VIEW) {
        ti->buf = src->buf;
        ti->rel = src->rel + (op->calc_offset ? op->calc_offset(op->op_arg, ti->te) : 0);
    } else if (op->mem_kind == LN_MEMPLAN_INPLACE && !p->opts->noreuse &&
               p->blast[src->buf] == step + 1 &&   /* all of it dies here? */
               !reads_buffer_twice(op, in, src->buf, p->info) &&
               ln_tensor_size(src->te->tensor) == ln_tensor_size(ti->te->tensor) &&
               src->rel == 0 &&
               p->bufs[src->buf].size == ln_align_up(ln_tensor_size(ti->te->tensor), LN_MEM_ALIGN)) {
        ti->buf = src->buf;
        ti->rel = 0;
    }
}

/* Step 1, aliasing: every tensor an op writes gets a buffer, its input's
 * (a view, in place) or its own; a concat may absorb its inputs' buffers. */
static void plan_alias(planner *p)
{
    int step = 0;

    LN_LIST_FOREACH(ln_op, op, p->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            ln_hash_insert(p->lastuse, tl->name, (void *)(intptr_t)(step + 1));
        }
        /* a guarded op reads its conditions */
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->guard) {
            ln_hash_insert(p->lastuse, tl->name, (void *)(intptr_t)(step + 1));
        }
        step++;
    }
    step = 0;
    LN_LIST_FOREACH(ln_op, op, p->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(p->table, tl->name);
            tinfo *ti;
            int tlast;
            if (!te || find_info(p->info, tl->name))
                continue;
            ti = ln_alloc(sizeof *ti);
            ti->te = te;
            ti->buf = -1;
            ti->by = op;
            ti->first = step;
            ln_hash_insert(p->info, te->name, ti);
            if (te->isstatic)
                continue;
            tlast = is_io(p, te->name) ? INT_MAX : (int)(intptr_t)ln_hash_find(p->lastuse, te->name);
            alias_input(p, op, tl, ti, step);
            if (ti->buf >= 0) {
                if (tlast > p->blast[ti->buf])
                    p->blast[ti->buf] = tlast;
                ln_tensor_entry_set_owner(te, p->bufs[ti->buf].name);
                continue;
            }
            ti->buf = new_buffer(p, te, step, tlast);
            ti->rel = 0;
            ln_tensor_entry_set_owner(te, NULL);
            if ((op->mem_kind == LN_MEMPLAN_CONCAT || op->mem_kind == LN_MEMPLAN_MERGE) &&
                !p->opts->noreuse) {
                if (p->dcap < p->cap) {
                    p->dead = ln_realloc(p->dead, (size_t)p->cap);
                    memset(p->dead + p->dcap, 0, (size_t)(p->cap - p->dcap));
                    p->dcap = p->cap;
                }
                if (op->mem_kind == LN_MEMPLAN_CONCAT)
                    concat_absorb(p, op, ti);
                else
                    merge_absorb(p, op, ti);
            }
        }
        step++;
    }
}

/* Step 2, lifetimes: a buffer lives until the last read of any tensor in
 * it; graph inputs from the start, graph outputs to the end. */
static void plan_lifetimes(planner *p)
{
    ln_hash_iter it;
    void *k, *v;

    ln_hash_iter_init(&it, p->info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        tinfo *ti = v;
        intptr_t lu;
        if (ti->buf < 0)
            continue;
        lu = (intptr_t)ln_hash_find(p->lastuse, ti->te->name);
        if (lu > 0 && (int)lu - 1 > p->bufs[ti->buf].last)
            p->bufs[ti->buf].last = (int)lu - 1;
        if (ln_list_find_custom(p->outputs, ti->te->name, ln_str_cmp))
            p->bufs[ti->buf].last = p->nops;
        if (ln_list_find_custom(p->inputs, ti->te->name, ln_str_cmp))
            p->bufs[ti->buf].first = 0;
    }
}

/* Step 3, graph inputs and outputs in the caller's buffers: a buffer
 * holding exactly one of them, at offset 0 and covering every tensor in
 * the buffer, is that caller buffer and leaves the arena.  Others stay in
 * the arena (ln-aot copies at the edges). */
static void plan_io(planner *p)
{
    ln_hash_iter it;
    void *k, *v;

    p->io_of = ln_alloc(sizeof(tinfo *) * (size_t)(p->nbufs ? p->nbufs : 1));
    p->nio = ln_alloc(sizeof(int) * (size_t)(p->nbufs ? p->nbufs : 1));
    if (p->opts->io_in_arena)
        return;
    ln_hash_iter_init(&it, p->info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        tinfo *ti = v;
        if (ti->buf >= 0 && is_io(p, ti->te->name)) {
            p->nio[ti->buf]++;
            p->io_of[ti->buf] = ti;
        }
    }
    ln_hash_iter_init(&it, p->info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        tinfo *ti = v;
        if (ti->buf < 0 || p->nio[ti->buf] != 1)
            continue;
        if (p->io_of[ti->buf]->rel != 0 ||
            ti->rel + ln_tensor_size(ti->te->tensor) > ln_tensor_size(p->io_of[ti->buf]->te->tensor))
            p->nio[ti->buf] = -1;      /* does not fit: keep in the arena */
    }
}

/* The figures the report compares the arena with: every tensor in a
 * buffer of its own (no reuse, no aliasing) and its lower bound. */
static void plan_figures(planner *p, ln_mem_plan_result *res)
{
    ln_mem_buf *each = ln_alloc(sizeof(ln_mem_buf) * (size_t)(ln_hash_size(p->info) + 1));
    ln_hash_iter it;
    void *k, *v;
    int nt = 0;

    res->noreuse_size = res->io_size = 0;
    ln_hash_iter_init(&it, p->info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        tinfo *ti = v;
        intptr_t lu;
        if (ti->buf < 0)
            continue;
        each[nt].name = ti->te->name;
        each[nt].size = ln_align_up(ln_tensor_size(ti->te->tensor), LN_MEM_ALIGN);
        each[nt].first = ti->first;
        lu = (intptr_t)ln_hash_find(p->lastuse, ti->te->name);
        each[nt].last = lu > 0 ? (int)lu - 1 : ti->first;
        if (ln_list_find_custom(p->outputs, ti->te->name, ln_str_cmp))
            each[nt].last = p->nops;
        if (ln_list_find_custom(p->inputs, ti->te->name, ln_str_cmp))
            each[nt].first = 0;
        if (p->nio[ti->buf] == 1 && ln_streq(p->io_of[ti->buf]->te->name, ti->te->name))
            res->io_size += ln_tensor_size(ti->te->tensor);
        res->noreuse_size += each[nt].size;
        nt++;
    }
    res->lower_bound_noalias = ln_mem_plan_lower_bound(each, nt);
    ln_free(each);
}

/* Step 4, placement: offsets for the arena's buffers (not the caller's,
 * not those a concat absorbed), then for every planned tensor. */
static void plan_place(planner *p, ln_mem_plan_result *res)
{
    int n = p->nbufs ? p->nbufs : 1, na = 0;
    ln_mem_buf *arena_bufs = ln_alloc(sizeof(ln_mem_buf) * (size_t)n);
    int *map = ln_alloc(sizeof(int) * (size_t)n);
    ln_hash_iter it;
    void *k, *v;

    for (int i = 0; i < p->nbufs; i++) {
        map[i] = -1;
        if (p->nio[i] == 1 || (i < p->dcap && p->dead[i]))
            continue;
        map[i] = na;
        arena_bufs[na++] = p->bufs[i];
    }
    res->lower_bound = ln_mem_plan_lower_bound(arena_bufs, na);
    if (p->opts->noreuse) {
        size_t off = 0;
        for (int i = 0; i < na; i++) {
            arena_bufs[i].offset = off;
            off += arena_bufs[i].size;
        }
        res->arena_size = off;
    } else {
        res->arena_size = ln_mem_plan_place(arena_bufs, na, LN_MEM_ALIGN);
    }
    for (int i = 0; i < p->nbufs; i++)
        p->bufs[i].offset = map[i] >= 0 ? arena_bufs[map[i]].offset : 0;
    ln_free(arena_bufs);
    ln_free(map);
    ln_hash_iter_init(&it, p->info);
    while (ln_hash_iter_next(&it, &k, &v)) {
        tinfo *ti = v;
        if (ti->buf < 0) {
            ti->te->planned = LN_FALSE;
            continue;
        }
        ti->te->offset = p->bufs[ti->buf].offset + ti->rel;
        ti->te->planned = LN_TRUE;
        ti->te->mtype = LN_MEM_CPU;
        ln_tensor_entry_set_io_buffer(ti->te, p->nio[ti->buf] == 1 ? p->io_of[ti->buf]->te->name : NULL);
    }
}

int ln_mem_plan(ln_list *ops, ln_hash *tensor_table, ln_list *inputs, ln_list *outputs,
                const ln_mem_plan_opts *opts, ln_mem_plan_result *res)
{
    planner p = {0};

    p.ops = ops;
    p.table = tensor_table;
    p.inputs = inputs;
    p.outputs = outputs;
    p.opts = opts;
    p.nops = ln_list_length(ops);
    p.info = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, ln_free);
    p.lastuse = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    p.cap = 16;
    p.bufs = ln_alloc(sizeof(ln_mem_buf) * (size_t)p.cap);
    p.blast = ln_alloc(sizeof(int) * (size_t)p.cap);
    plan_alias(&p);
    plan_lifetimes(&p);
    plan_io(&p);
    plan_figures(&p, res);
    plan_place(&p, res);
    ln_free(p.io_of);
    ln_free(p.nio);
    ln_free(p.dead);
    ln_free(p.blast);
    ln_free(p.bufs);
    ln_hash_free(p.lastuse);
    ln_hash_free(p.info);
    return ln_mem_plan_check(ops, tensor_table, outputs);
}

/* ---- the plan's invariant --------------------------------------------- */

typedef struct chk_tensor {
    ln_tensor_entry *te;
    const char *space;    /* caller buffer (io_buffer), NULL for the arena */
    size_t lo, hi;        /* bytes [lo, hi) in that space */
    int first, last;      /* step written; last step read (nops: graph output) */
    int root;             /* the tensor whose bytes a view shows (self if none) */
    size_t rootoff;       /* offset of lo inside root's bytes */
    const ln_list *guard; /* of the op writing it */
} chk_tensor;

/* Do guards a and b never hold together (branches of one If: they part
 * at a condition one wants true and the other false)? */
static ln_bool exclusive(const ln_list *a, const ln_list *b)
{
    for (; a && b; a = a->next, b = b->next) {
        const ln_tensor_list_entry *x = a->data, *y = b->data;
        if (!ln_streq(x->name, y->name))
            return LN_FALSE;
        if (!ln_streq(x->arg_name, y->arg_name))
            return LN_TRUE;
    }
    return LN_FALSE;
}

static ln_bool same_space(const chk_tensor *a, const chk_tensor *b)
{
    return ln_streq(a->space ? a->space : "", b->space ? b->space : "");
}

static ln_bool op_views(const ln_op *op, const char *arg_name)
{
    return op->mem_kind == LN_MEMPLAN_VIEW && op->mem_in &&
           (!op->mem_out || ln_streq(op->mem_out, arg_name));
}

/* May op (at step s, writing out) overwrite t's bytes although t is live?
 * Only the planner's two deliberate overlaps: an in-place op over the input
 * that dies here, and a concat writing a slice that already holds an input
 * placed there (the kernel skips it, so every tensor showing those bytes
 * keeps its value). */
static ln_bool chk_allowed(const ln_op *op, int s, const chk_tensor *out,
                           const char *out_arg, const chk_tensor *t,
                           const chk_tensor *all, ln_hash *index)
{
    if (op->mem_kind == LN_MEMPLAN_INPLACE && op->mem_in &&
        (!op->mem_out || ln_streq(op->mem_out, out_arg))) {
        const char *in = ln_tensor_list_find_name(op->op_arg->tensors_in, op->mem_in);
        return in && ln_streq(in, t->te->name) && t->last == s &&
               t->lo == out->lo && t->hi == out->hi;
    }
    if (op->mem_kind == LN_MEMPLAN_MERGE) {
        /* a branch's output placed at the output: the kernel copies nothing */
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            if (!ln_streq(tl->arg_name, "cond") && ln_streq(tl->name, t->te->name) &&
                same_space(t, out) && t->lo == out->lo && t->hi == out->hi)
                return LN_TRUE;
        }
        return LN_FALSE;
    }
    if (op->mem_kind == LN_MEMPLAN_CONCAT && op->mem_in) {
        /* the kernel writes the output's bytes except the slices that
         * already hold their input: t may overlap only those */
        ln_param_entry *pa = ln_op_param(op->op_arg, "axis");
        const ln_tensor *ot = out->te->tensor;
        size_t prefix = strlen(op->mem_in), off = 0;
        size_t cur = t->lo > out->lo ? t->lo : out->lo;
        size_t end = t->hi < out->hi ? t->hi : out->hi;
        int axis = pa && pa->type == LN_PARAM_NUMBER ? pa->value_int : 0;
        if (axis < 0)
            axis += ot->ndim;
        for (int d = 0; d < axis; d++)
            if (ot->dims[d] != 1)
                return LN_FALSE;    /* slices are not contiguous */
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            const chk_tensor *src;
            intptr_t k;
            size_t size;
            if (strncmp(tl->arg_name, op->mem_in, prefix) != 0 ||
                (tl->arg_name[prefix] != '\0' && tl->arg_name[prefix] != '_'))
                continue;
            k = (intptr_t)ln_hash_find(index, tl->name);
            src = k > 0 ? &all[k - 1] : NULL;
            if (src) {
                size = src->hi - src->lo;
                /* slices come in order: an in-place one covering cur moves it on */
                if (same_space(src, out) && src->lo == out->lo + off &&
                    src->lo <= cur && cur < src->hi)
                    cur = src->hi;
            } else {
                ln_tensor_entry *te = ln_tensor_table_find(op->op_arg->tensor_table, tl->name);
                if (!te)
                    return LN_FALSE;
                size = ln_tensor_size(te->tensor);
            }
            off += size;
        }
        return cur >= end;
    }
    (void)s;
    return LN_FALSE;
}

/*
 * The plan's invariant: when an op writes a tensor, no other tensor whose
 * bytes it overlaps is still to be read (written before this op and read by
 * it or later), except the two overlaps the planner makes on purpose
 * (chk_allowed).  Views write nothing.  Every tensor is checked over its
 * full live range, views, in-place results and concat-absorbed inputs
 * included, in the arena and in the caller's buffers alike.  Two outputs of
 * one op never overlap.  Returns 0 or LN_EINTERNAL naming the op and the
 * two tensors.
 */
int ln_mem_plan_check(ln_list *ops, ln_hash *tensor_table, ln_list *outputs)
{
    int nops = ln_list_length(ops), n = 0, cap = 64, step = 0, ret = 0;
    chk_tensor *all = ln_alloc(sizeof(chk_tensor) * (size_t)cap);
    ln_hash *index = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);

    /* every planned tensor, its bytes, birth and view root */
    LN_LIST_FOREACH(ln_op, op, ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(tensor_table, tl->name);
            chk_tensor *c;
            if (!te || te->isstatic || !te->planned || ln_hash_find(index, te->name))
                continue;
            if (n == cap) {
                cap *= 2;
                all = ln_realloc(all, sizeof(chk_tensor) * (size_t)cap);
            }
            c = &all[n];
            c->te = te;
            c->space = te->io_buffer;
            c->lo = te->offset;
            c->hi = te->offset + ln_tensor_size(te->tensor);
            c->first = c->last = step;
            c->root = n;
            c->rootoff = 0;
            c->guard = op->op_arg->guard;
            if (op_views(op, tl->arg_name)) {
                const char *in = ln_tensor_list_find_name(op->op_arg->tensors_in, op->mem_in);
                intptr_t k = in ? (intptr_t)ln_hash_find(index, in) : 0;
                if (k > 0 && same_space(&all[k - 1], c) && c->lo >= all[k - 1].lo) {
                    c->root = all[k - 1].root;
                    c->rootoff = all[k - 1].rootoff + (c->lo - all[k - 1].lo);
                }
            }
            ln_hash_insert(index, te->name, (void *)(intptr_t)(n + 1));
            n++;
        }
        step++;
    }
    step = 0;
    LN_LIST_FOREACH(ln_op, op, ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            intptr_t k = (intptr_t)ln_hash_find(index, tl->name);
            if (k > 0 && all[k - 1].last < step)
                all[k - 1].last = step;
        }
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->guard) {
            intptr_t k = (intptr_t)ln_hash_find(index, tl->name);
            if (k > 0 && all[k - 1].last < step)
                all[k - 1].last = step;
        }
        step++;
    }
    LN_LIST_FOREACH(char, name, outputs) {
        intptr_t k = (intptr_t)ln_hash_find(index, name);
        if (k > 0)
            all[k - 1].last = nops;
    }

    /* every write against every tensor live across it */
    step = 0;
    LN_LIST_FOREACH(ln_op, op, ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            intptr_t k = (intptr_t)ln_hash_find(index, tl->name);
            const chk_tensor *u;
            if (k <= 0 || op_views(op, tl->arg_name))
                continue;
            u = &all[k - 1];
            if (u->first != step || u->lo == u->hi)
                continue;
            for (int i = 0; i < n && !ret; i++) {
                const chk_tensor *t = &all[i];
                ln_bool live = t->first < step && step <= t->last;
                ln_bool sibling = t->first == step && t != u;
                if (t == u || (!live && !sibling) || t->lo == t->hi ||
                    !same_space(t, u) ||
                    t->hi <= u->lo || u->hi <= t->lo ||
                    exclusive(t->guard, op->op_arg->guard))  /* never both run */
                    continue;
                if (sibling) {
                    /* another output of this op: only a view of one may overlap */
                    ln_tensor_list_entry *o = ln_tensor_list_find_by_name(op->op_arg->tensors_out,
                                                                          t->te->name);
                    if (o && op_views(op, o->arg_name))
                        continue;
                } else if (chk_allowed(op, step, u, tl->arg_name, t, all, index)) {
                    continue;
                }
                ret = ln_error(LN_EINTERNAL,
                               "memory plan: %s (%s) writes '%s' at [%zu, %zu) over '%s' "
                               "at [%zu, %zu), still read by step %d",
                               op->op_arg->name, op->op_arg->optype, u->te->name, u->lo, u->hi,
                               t->te->name, t->lo, t->hi, t->last);
            }
        }
        if (ret)
            break;
        step++;
    }
    ln_hash_free(index);
    ln_free(all);
    return ret;
}
