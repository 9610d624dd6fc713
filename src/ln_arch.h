/*
 * ln_arch.h -- architectures and the op-prototype registry.
 *
 * An architecture ("none" for the abstract ops every model is written in,
 * "cpu" for the ops that call libln_rt) brings its op prototypes and its
 * optimizers: expanders (one abstract op -> arch ops), combiners (a window
 * of adjacent ops -> fused ops), subgraphers and schedulers, and an
 * optimize function, the readable recipe that runs them in order.  The op
 * lists and optimizer arrays are generated at build time from gen/ (the
 * ncnn way: no static initializers).
 */
#ifndef LN_ARCH_H
#define LN_ARCH_H

#include "ln_op.h"

LN_CPPSTART

struct ln_context;

/* Returns the ops that replace op (NULL with *match = 0 when no rule
 * applies).  The new ops are fresh; the caller puts them in place. */
typedef ln_list *(*ln_expander_func)(const struct ln_context *ctx,
                                     const ln_op *op, int *match);
/* Looks at win_size ops starting at win_ops; same contract. */
typedef ln_list *(*ln_combiner_func)(const struct ln_context *ctx,
                                     const ln_list *win_ops, size_t win_size,
                                     int *match);
/* The default expansion of an op without rules of its own: the same
 * tensors and params under the arch's optype.  Tables are sorted by optype
 * and end with {NULL, NULL}. */
typedef struct ln_expand_default {
    const char *optype;
    const char *arch_optype;
} ln_expand_default;
typedef int (*ln_subgraph_func)(struct ln_context *ctx);
typedef int (*ln_schedule_func)(struct ln_context *ctx);
typedef int (*ln_optimize_func)(struct ln_context *ctx);

typedef struct ln_arch {
    const char *arch_name;
    int (*init_func)(void **priv);      /* may be NULL */
    void (*cleanup_func)(void **priv);  /* may be NULL */
    void *priv;
    ln_expander_func *ep_funcs;     /* NULL-terminated, may be NULL */
    const ln_expand_default *ep_defaults;   /* may be NULL */
    ln_combiner_func *cb_funcs;     /* NULL-terminated, may be NULL */
    ln_subgraph_func *sg_funcs;     /* NULL-terminated, may be NULL */
    ln_schedule_func *sd_funcs;     /* NULL-terminated, may be NULL */
    ln_optimize_func optimize;      /* the compile recipe; NULL: none */
} ln_arch;

/* Build the global arch table and op-prototype table (idempotent). */
int ln_arch_init(void);
void ln_arch_cleanup(void);
const ln_arch *ln_arch_find(const char *arch_name);
/* The prototype for an optype across all archs, or NULL. */
const ln_op *ln_arch_op_proto(const char *optype);
/* LN_TRUE when optype is a known op stripped from this build (LN_OPS). */
ln_bool ln_arch_op_stripped(const char *optype);
/* NULL-terminated names of the registered archs. */
const char *const *ln_arch_names(void);

LN_CPPEND
#endif
