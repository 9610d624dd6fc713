/*
 * ln_ophook.h -- hand-written pieces of ops that a description cannot say:
 * shape functions that need code, the private data a kernel call needs,
 * view offsets.  A description names a hook by its function name; the
 * generated src/op/auto/ln_opimpl_<optype>.c calls it.
 *
 * Kinds (signatures fixed by gen/opgen.pl, see docs/op-descriptions.md):
 *   shape hook   int f(const ln_op_arg *op_arg, int *ndim, int *dims)
 *                Runs in pre_run after the declared checks; may fail with
 *                ln_opck (message names the op) and returns its code.
 *   priv hook    void f(const ln_op_arg *op_arg, T *field)
 *                Runs at the end of pre_run, outputs are in the table.
 *   offset hook  size_t f(const ln_op_arg *op_arg, const ln_tensor_entry *te)
 *   plain call   any function a run/static_run entry calls, e.g.
 *                ln_ophook_create_fill.
 */
#ifndef LN_OPHOOK_H
#define LN_OPHOOK_H

#include "ln_op.h"
#include "ln_rt.h"

LN_CPPSTART

/* add: dst shape = numpy broadcast of src1 and src2. */
int ln_ophook_add_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* add_cpu: the three shapes right-aligned for ln_rt_add_f32. */
void ln_ophook_add_bcast(const ln_op_arg *op_arg, ln_rt_bcast_args *bcast);

/* reshape: dims with one -1 (inferred) and 0 (copy src's dim). */
int ln_ophook_reshape_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);

/* slice_cpu: start/len along axis as an ln_rt_slice_args. */
void ln_ophook_slice_args(const ln_op_arg *op_arg, ln_rt_slice_args *args);

/* create_cpu: n values (as double) converted into dst's dtype. */
void ln_ophook_create_fill(ln_tensor *dst, const double *data, int n);

/* prelu: dst shape = src's, after checking slope broadcasts onto src. */
int ln_ophook_prelu_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* prelu_cpu: src and slope shapes right-aligned for ln_rt_prelu_f32. */
void ln_ophook_prelu_bcast(const ln_op_arg *op_arg, ln_rt_bcast_args *bcast);

LN_CPPEND
#endif
