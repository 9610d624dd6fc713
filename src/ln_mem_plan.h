/*
 * ln_mem_plan.h -- static memory planning: every non-constant tensor gets a
 * fixed offset in one arena.
 */
#ifndef LN_MEM_PLAN_H
#define LN_MEM_PLAN_H

#include "ln_context.h"

LN_CPPSTART

typedef struct ln_mem_buf {
    const char *name;     /* the tensor that owns the buffer */
    size_t size;          /* bytes, aligned */
    int first, last;      /* op indexes of the first write and last read */
    size_t offset;
} ln_mem_buf;

/* Plan ctx (after pre_run; after the expander and combiner when compiling):
 * sets each entry's offset/planned/owner and ctx->arena_size, lower_bound. */
int ln_mem_plan(ln_context *ctx);
/* The plan's invariant (ln_mem_plan runs it after every plan): no op
 * writes over bytes of a tensor that is still to be read, except an
 * in-place op over its dying input and a concat over an input produced in
 * its slice.  0, or LN_EINTERNAL naming the op and both tensors. */
int ln_mem_plan_check(const ln_context *ctx);
/* Offsets for bufs[0..n) such that buffers live at the same step do not
 * overlap; returns the arena size.  Exposed for tests. */
size_t ln_mem_plan_place(ln_mem_buf *bufs, int n, size_t align);
/* The largest sum of sizes live at one step. */
size_t ln_mem_plan_lower_bound(const ln_mem_buf *bufs, int n);

LN_CPPEND
#endif
