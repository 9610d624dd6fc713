/*
 * ln_mem_plan.h -- static memory planning: every non-constant tensor gets a
 * fixed offset in one arena.
 */
#ifndef LN_MEM_PLAN_H
#define LN_MEM_PLAN_H

#include "ln_list.h"
#include "ln_hash.h"
#include "ln_tensor.h"

LN_CPPSTART

typedef struct ln_mem_buf {
    const char *name;     /* the tensor that owns the buffer */
    size_t size;          /* bytes, aligned */
    int first, last;      /* op indexes of the first write and last read */
    size_t offset;
} ln_mem_buf;

typedef struct ln_mem_plan_opts {
    ln_bool io_in_arena;  /* graph inputs and outputs in the arena too */
    ln_bool noreuse;      /* every buffer its own bytes (a reference plan) */
} ln_mem_plan_opts;

/* What the plan comes to (the report compares the arena with the rest). */
typedef struct ln_mem_plan_result {
    size_t arena_size;
    size_t lower_bound;          /* most bytes live at one step, after aliasing */
    size_t lower_bound_noalias;  /* the same with every tensor in its own buffer */
    size_t noreuse_size;         /* every tensor in its own bytes */
    size_t io_size;              /* the caller's input and output buffers */
} ln_mem_plan_result;

/* Plan the op stream (after pre_run; after the expander and combiner when
 * compiling): sets each tensor table entry's offset, planned, owner and
 * io_buffer, and the figures in *res; inputs and outputs name the graph's.
 * Its four steps, in ln_mem_plan.c: aliasing, lifetimes, graph I/O,
 * placement.  0, or the plan check's error. */
int ln_mem_plan(ln_list *ops, ln_hash *tensor_table, ln_list *inputs, ln_list *outputs,
                const ln_mem_plan_opts *opts, ln_mem_plan_result *res);
/* The plan's invariant (ln_mem_plan runs it after every plan): no op
 * writes over bytes of a tensor that is still to be read, except an
 * in-place op over its dying input and a concat over an input produced in
 * its slice.  0, or LN_EINTERNAL naming the op and both tensors. */
int ln_mem_plan_check(ln_list *ops, ln_hash *tensor_table, ln_list *outputs);
/* Offsets for bufs[0..n) such that buffers live at the same step do not
 * overlap; returns the arena size.  Exposed for tests. */
size_t ln_mem_plan_place(ln_mem_buf *bufs, int n, size_t align);
/* The largest sum of sizes live at one step. */
size_t ln_mem_plan_lower_bound(const ln_mem_buf *bufs, int n);

LN_CPPEND
#endif
