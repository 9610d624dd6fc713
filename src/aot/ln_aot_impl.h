/*
 * ln_aot_impl.h -- what ln-aot's two phases share (not installed): the
 * emitter's state.  ln_aot.c builds everything but the weights' text
 * (phase 1); ln_aot_write.c writes the files (phase 2).
 */
#ifndef LN_AOT_IMPL_H
#define LN_AOT_IMPL_H

#include <stdio.h>
#include "ln_context.h"
#include "ln_aot_buf.h"

struct ln_aot_opts;

#define LINE_BYTES 96   /* weight bytes per line of string literal (at most) */

typedef struct weight {
    const char *tname;      /* borrowed from the tensor table */
    const ln_tensor *t;
    const char *sym;        /* NAME_w_<tensor> when embedded */
    size_t off;             /* offset in the blob */
} weight;

typedef struct io {
    const char *tname;
    ln_tensor_entry *te;
    char param[24];         /* in0, out0, ... */
} io;

typedef struct emitter {
    ln_context *ctx;
    const struct ln_aot_opts *o;
    const char *name;
    char *up;               /* NAME upper-cased */
    ln_hash *idents;        /* every identifier emitted (owned keys) */
    ln_hash *locals;        /* tensor name -> its local pointer */
    ln_hash *privsyms;      /* "op\nfield" -> static object (owned keys) */
    weight *w;
    int nw, wcap;
    ln_hash *wmap;          /* tensor name -> weight index + 1 */
    ln_hash *kernels;       /* the ln_rt_ functions called (owned keys) */
    io *ins, *outs;
    int nin, nout;
    ln_aot_buf offs;        /* #define NAME_OFF_... */
    ln_aot_buf statics;     /* private data objects */
    ln_aot_buf decls;       /* the run function's local pointers */
    ln_aot_buf body;        /* its statements */
    size_t blob_size;
    size_t max_size;        /* largest size or end offset the code uses */
    ln_list *guard;         /* the guard blocks open (the ops' guard entries) */
    ln_bool uses_arena, needs_copy;
    int ncalls, ncopies;
} emitter;

void ln_aot_c_string(ln_aot_buf *b, const char *s);
void ln_aot_describe(ln_aot_buf *b, const char *name, const ln_tensor *t);
const char *ln_aot_dtype_ctype(ln_dtype d);
int ln_aot_write_blob(emitter *e, FILE *fp);
int ln_aot_write_header(emitter *e, FILE *fp);
int ln_aot_write_source(emitter *e, FILE *fp);

#endif
