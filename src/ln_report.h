/*
 * ln_report.h -- what a person looks at: the memory report, the data-flow
 * graph as Graphviz dot, the memory plan as an SVG picture, and the
 * interpreter's per-op profile.
 */
#ifndef LN_REPORT_H
#define LN_REPORT_H

#include "ln_context.h"

LN_CPPSTART

/* flags of the reports */
#define LN_REPORT_LONG_NAMES  1   /* tables: full names, the column as wide as
                                   * the longest (else cut in the middle) */
#define LN_REPORT_DOT_WEIGHTS 2   /* dot: constants and their edges too */

/* A table's name column is at most this many characters wide unless
 * LN_REPORT_LONG_NAMES. */
#define LN_REPORT_NAME_WIDTH 40

/* Arena vs lower bound vs no-aliasing bound vs no-reuse total, and the
 * table of planned tensors; ctx must be planned. */
int ln_report_mem(FILE *fp, const ln_context *ctx, int flags);
/* The table of planned tensors alone (bytes, offset, life in op steps,
 * where), every line opening with prefix; ctx must be planned. */
int ln_report_tensors(FILE *fp, const ln_context *ctx, const char *prefix, int flags);
/* The arena buffers live at the step where the most bytes are live: the
 * step, its op and a table of the buffers (the lower bound is their sum
 * when the plan's lifetimes agree); lines open with prefix. */
int ln_report_peak(FILE *fp, const ln_context *ctx, const char *prefix, int flags);
/* The op stream as a dot digraph: ops are boxes (name cut in the middle,
 * optype, output shape), edges carry the tensor as a tooltip; long graphs
 * are cut into clusters laid side by side.  Constants only with
 * LN_REPORT_DOT_WEIGHTS (as notes, with dashed edges). */
int ln_report_dot(FILE *fp, const ln_context *ctx, int flags);
/* The memory plan: x = op step, y = arena offset; one rectangle per arena
 * buffer, named on the picture when the name fits, else numbered and
 * listed in a legend; the lower bound, the arena and the peak step marked. */
int ln_report_mem_svg(FILE *fp, const ln_context *ctx, int flags);
/* Run the model `runs` times, timing each op; prints ops by total time. */
int ln_report_profile(FILE *fp, const ln_context *ctx, int runs, int flags);
/* Write text produced by fn into path whole (temp + rename) or not at all;
 * "-" is stdout. */
int ln_report_to_file(const char *path, const ln_context *ctx, int flags,
                      int (*fn)(FILE *, const ln_context *, int));

/* Width of s in characters (UTF-8 code points; a stray byte counts one). */
int ln_report_width(const char *s);
/* s cut to at most width characters by replacing its middle with "..."
 * ("/features/fe...conv/Conv_output_0"); a new string (ln_free). */
char *ln_report_shorten(const char *s, int width);
/* s left-aligned in a column width characters wide: cut in the middle when
 * longer, padded with spaces when shorter (not after the last column). */
void ln_report_cell(FILE *fp, const char *s, int width, int pad);

LN_CPPEND
#endif
