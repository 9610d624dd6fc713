/*
 * ln_report.h -- what a person looks at: the memory report, the data-flow
 * graph as Graphviz dot, the memory plan as an SVG picture, and the
 * interpreter's per-op profile.
 */
#ifndef LN_REPORT_H
#define LN_REPORT_H

#include "ln_context.h"

LN_CPPSTART

/* Arena vs lower bound vs no-aliasing bound vs no-reuse total, and the
 * biggest buffers; ctx must be planned. */
int ln_report_mem(FILE *fp, const ln_context *ctx);
/* The op stream as a dot digraph: ops are boxes, edges are tensors with
 * their shapes; constants are drawn as small notes. */
int ln_report_dot(FILE *fp, const ln_context *ctx);
/* The memory plan: x = op step, y = arena offset; one rectangle per tensor
 * buffer with a tooltip (name, shape, bytes, offset, lifetime). */
int ln_report_mem_svg(FILE *fp, const ln_context *ctx);
/* Run the model `runs` times, timing each op; prints ops by total time. */
int ln_report_profile(FILE *fp, const ln_context *ctx, int runs);
/* Write text produced by fn into path whole (temp + rename) or not at all. */
int ln_report_to_file(const char *path, const ln_context *ctx,
                      int (*fn)(FILE *, const ln_context *));

LN_CPPEND
#endif
