/*
 * ln_aot.h -- a compiled, planned model as C: one source file, one header
 * and optionally a weights blob, for `ln-aot` (docs/aot.md).
 *
 * The emitted code is a straight-line sequence of ln_rt_ kernel calls at
 * the fixed offsets the memory planner chose; each call comes from the op's
 * "aot" template in its description (ln_opregistry_aot[]), so an op gets
 * AOT support from its description alone.  The emitted code never
 * allocates, never prints and writes no global state.
 *
 * What it does not do: compile the model (the caller runs the pipeline,
 * see ln-aot.c) or write files whole (the caller passes temporary files and
 * renames them when this returns 0).
 */
#ifndef LN_AOT_H
#define LN_AOT_H

#include <stdio.h>
#include "ln_context.h"

LN_CPPSTART

typedef struct ln_aot_opts {
    /* C identifier: functions and objects are NAME_..., macros
     * UPPER(NAME)_... */
    const char *name;
    /* What the source #includes for its declarations ("model.h"); NULL:
     * the declarations are written into the source itself. */
    const char *header_include;
    /* NULL: weights embedded as static const arrays.  Else the name of the
     * blob file (for comments); the blob goes to `blob` and the source
     * refers to `extern const unsigned char NAME_weights[]`. */
    const char *weights_file;
    ln_bool static_arena;     /* also NAME_run_static(), a static arena */
    /* Lines (without comment markers) for the files' opening comment:
     * tool version, command line, model hash.  May be NULL. */
    const char *banner;
    /* Width of the target's size_t in bits: 0 means 32 (a microcontroller).
     * A model whose arena, tensors or constants need larger sizes or
     * offsets is refused; the source also carries an #error for a target
     * whose SIZE_MAX is smaller than its largest size. */
    int addr_bits;
} ln_aot_opts;

/* What the emission found, for reports. */
typedef struct ln_aot_stats {
    size_t weights_bytes;     /* constants emitted (blob size with padding) */
    size_t requant_bytes;     /* of which int8 requantization tables (mult, shift) */
    int nweights;
    int ncalls;               /* kernel calls in NAME_run */
    int ncopies;              /* input/output copies at the edges */
    size_t io_bytes;          /* caller buffers: inputs + outputs (0 in the arena) */
    char *kernels;            /* the distinct ln_rt_ functions called, sorted,
                               * space-separated; the caller ln_free()s it */
} ln_aot_stats;

/* Emit ctx, which must be compiled and planned, with the constants
 * readable (ln_context_static_data).  Everything is checked and built in
 * memory before the first byte goes to c (an op without emission rule,
 * missing weights, no graph input fail with nothing written).  h (may be
 * NULL) gets the header, blob (with opts->weights_file) the weights;
 * stats may be NULL.  0 or a negative LN_E* code with the message set. */
int ln_aot_emit(ln_context *ctx, const ln_aot_opts *opts, FILE *c, FILE *h,
                FILE *blob, ln_aot_stats *stats);

/* 64-bit FNV-1a of n bytes, continuing from hash (start with
 * LN_AOT_FNV1A_INIT). */
#define LN_AOT_FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t ln_aot_fnv1a(const void *p, size_t n, uint64_t hash);
/* LN_TRUE when s is a C identifier ([A-Za-z_][A-Za-z0-9_]*). */
ln_bool ln_aot_is_ident(const char *s);

LN_CPPEND
#endif
