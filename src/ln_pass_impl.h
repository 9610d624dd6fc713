/*
 * ln_pass_impl.h -- helpers the pass files share (ln_pass.c, ln_pass_qdq.c):
 * looking up an op's tensors and params, its sole reader, constants made
 * by a pass, and replacing ops.  Not installed.
 */
#ifndef LN_PASS_IMPL_H
#define LN_PASS_IMPL_H

#include "ln_context.h"

/* The table entry / name of op's input (output) arg, NULL when absent. */
ln_tensor_entry *ln_pass_tin(const ln_context *ctx, const ln_op *op, const char *arg);
const char *ln_pass_tname_in(const ln_op *op, const char *arg);
const char *ln_pass_tname_out(const ln_op *op, const char *arg);
/* A number (string) param, def when absent. */
double ln_pass_num_param(const ln_op *op, const char *arg, double def);
const char *ln_pass_str_param(const ln_op *op, const char *arg, const char *def);
/* The only reader of tname (NULL when none or several, or a graph output). */
ln_op *ln_pass_sole_reader(const ln_context *ctx, const char *tname);
/* A create op (of arch) for constant tname, read from the store. */
ln_op *ln_pass_const_op(ln_context *ctx, const char *arch, const char *tname,
                        const ln_tensor *t);
/* Offer every op of optype to fold until none changes any more. */
int ln_pass_fold_all(ln_context *ctx, const char *optype,
                     int (*fold)(ln_context *, ln_op *, ln_bool *));
/* Replace op by the (constant) ops `before` followed by repl. */
int ln_pass_replace_with(ln_context *ctx, ln_op *op, ln_list *before, ln_op *repl);
/* Remove op, whose output `from` carries the same values as `to`: its
 * readers read `to` instead. */
int ln_pass_bypass(ln_context *ctx, ln_op *op, const char *from, const char *to);
/* A name no tensor or op has yet, from prefix (caller frees). */
char *ln_pass_unique(const ln_context *ctx, const char *prefix);

#endif
