/*
 * ln_budget.h -- "does it fit": a compiled, planned model's RAM and flash
 * on a target, item by item, against the part's budget (docs/firmware.md).
 *
 * RAM   = arena + caller input/output buffers (0 with --io-in-arena)
 *         + kernel arguments in RAM (none: they are static const)
 *         + runtime state (.data + .bss of the kernels linked)
 *         + stack (model_run and the deepest kernel call chain);
 * flash = weights + int8 requantization tables + kernel argument structs
 *         + model code (estimated per kernel argument) + the runtime
 *         sections the model's kernels reach + the C library pieces they
 *         reach (libm, libc, libgcc).
 *
 * The runtime and C library figures come from a size table measured from
 * the target's libln_rt.a (src/auto/ln_budget_<target>.h, written by
 * tools/rtsizes.py: `make -C runtime m4-sizes`).  Only targets with a table
 * have a budget; the host target `cpu` has none and is refused.
 */
#ifndef LN_BUDGET_H
#define LN_BUDGET_H

#include <stdio.h>
#include "ln_context.h"

LN_CPPSTART

#define LN_BUDGET_MAX_ITEMS 16

typedef struct ln_budget_item {
    const char *label;        /* "arena", "weights", ... */
    char note[160];           /* how it was found, for the table */
    size_t bytes;
    int ram;                  /* 1: counts against RAM, 0: against flash */
} ln_budget_item;

typedef struct ln_budget {
    /* the limits (--budget); has_* 0 when a field was not given */
    size_t ram_limit, flash_limit;
    int has_ram, has_flash;
    /* filled by ln_budget_estimate() */
    const char *target, *toolchain;
    ln_budget_item items[LN_BUDGET_MAX_ITEMS];
    int nitems;
    size_t ram, flash;
    char stack_path[512];     /* the deepest chain, "model_run (~48) -> ..." */
} ln_budget;

/* "ram=128K,flash=512K" (K, M: 1024-based; plain bytes; either field may
 * be left out, not both) into b's limits.  0, or LN_EINVAL with a message
 * naming the field. */
int ln_budget_parse(const char *spec, ln_budget *b);

/* The items of ctx (compiled for target and planned, constants readable)
 * when emitted as NAME: ln_aot_emit into temporary files, the kernels and
 * argument structs it writes looked up in the target's size table.  0, or
 * a negative LN_E* code with the message set (no table for the target, a
 * kernel missing from a stale table). */
int ln_budget_estimate(ln_context *ctx, const char *target, const char *name, ln_budget *b);

/* The table: every item, the totals against the limits; lines open with
 * prefix. */
void ln_budget_print(FILE *fp, const ln_budget *b, const char *prefix);

/* 0 when the model fits the limits given; else LN_EINVAL with the message
 * "MODEL does not fit: RAM 142,344 > 131,072 (the arena, 74,304 bytes, is
 * the largest item)". */
int ln_budget_verdict(const ln_budget *b, const char *model);

LN_CPPEND
#endif
