/*
 * ln_interp.h -- the interpreter over a context (ln_context.h): load it
 * into memory, set inputs, run, get outputs, unload.
 */
#ifndef LN_INTERP_H
#define LN_INTERP_H

#include "ln_context.h"

LN_CPPSTART

/* Plan when not planned yet, allocate the arena, give every tensor its
 * memory, read weights from datafile (NULL: the file named by the IR, if
 * any), static_run. */
int ln_context_load(ln_context *ctx, const char *datafile);
int ln_context_set_data(ln_context *ctx, const char *tname, const void *data,
                        size_t nbytes);
/* A tensor other than a graph input or output reads back as computed
 * only when the plan keeps every tensor (ctx->plan_noreuse set before
 * ln_context_compile, as lightnet --save does): otherwise the plan may
 * reuse its bytes, and on host targets store it channels-last
 * (ln_pass_nhwc_edges). */
int ln_context_get_data(const ln_context *ctx, const char *tname, void *data,
                        size_t nbytes);
/* The tensor's bytes (0 when unknown). */
size_t ln_context_data_size(const ln_context *ctx, const char *tname);
ln_tensor *ln_context_tensor(const ln_context *ctx, const char *tname);
int ln_context_run(const ln_context *ctx);
void ln_context_unload(ln_context *ctx);

LN_CPPEND
#endif
