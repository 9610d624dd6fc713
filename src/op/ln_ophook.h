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
/* create: every inline value fits dtype (checked before create_fill runs). */
int ln_ophook_create_data_ok(const ln_op_arg *op_arg, ln_dtype dtype);
/* shape, size, constant_of_shape, range (ln_ophook_shape.c): outputs that
 * are constants, filled by static_run */
int ln_ophook_shape_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_shape_fill(ln_tensor *dst, const ln_tensor *src, int start);
void ln_ophook_size_fill(ln_tensor *dst, const ln_tensor *src);
int ln_ophook_value_fits(ln_dtype dtype, double v);
void ln_ophook_constant_fill(ln_tensor *dst, double value);
int ln_ophook_range_ok(ln_dtype dtype, double start, double limit, double delta);
double ln_ophook_range_count(double start, double limit, double delta);
int ln_ophook_range_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_range_fill(ln_tensor *dst, double start, double delta);

/* prelu: dst shape = src's, after checking slope broadcasts onto src. */
int ln_ophook_prelu_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* prelu_cpu: src and slope shapes right-aligned for ln_rt_prelu_f32. */
void ln_ophook_prelu_bcast(const ln_op_arg *op_arg, ln_rt_bcast_args *bcast);

/* --- neural-network ops (conv, gemm, pools, shapes, ...) --------------- */

/* Shared by the hooks below (src/op/ln_ophook_nn.c): a param with the
 * described default when absent; ints copies at most max entries and
 * returns the array's length (0 when absent). */
int ln_ophook_param_int(const ln_op_arg *op_arg, const char *name, int def);
float ln_ophook_param_float(const ln_op_arg *op_arg, const char *name, float def);
const char *ln_ophook_param_str(const ln_op_arg *op_arg, const char *name,
                                const char *def);
int ln_ophook_param_ints(const ln_op_arg *op_arg, const char *name, int *out, int max);
/* An axis param normalized (negative + ndim); the check variant fails
 * naming the param when it is outside [-ndim, ndim). */
int ln_ophook_axis(const ln_op_arg *op_arg, const char *name, int def, int ndim);
int ln_ophook_check_axis(const ln_op_arg *op_arg, const char *name, int def,
                         int ndim, int *axis);
size_t ln_ophook_dims_prod(const int *dims, int from, int to);
/* [top, left, bottom, right] from 'pads' and ONNX 'auto_pad'. */
void ln_ophook_window_pads(const ln_op_arg *op_arg, const int *in, const int *k,
                           const int *stride, const int *dil, int *pads);
/* Refuses a padded extent or dilated window of the two spatial axes beyond
 * int32 (the kernels index in int). */
int ln_ophook_window_check(const ln_op_arg *op_arg, const int *in, const int *k,
                           const int *dil, const int *pads);
/* 'activation', 'act_alpha', 'act_beta' as the runtime's fused activation. */
ln_rt_act ln_ophook_act(const ln_op_arg *op_arg, float *alpha, float *beta);
/* the same from params prefix + "activation", "act_alpha", "act_beta" */
ln_rt_act ln_ophook_act_prefixed(const ln_op_arg *op_arg, const char *prefix,
                                  float *alpha, float *beta);

/* conv2d, conv_transpose2d */
int ln_ophook_conv2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_conv2d_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *args);
int ln_ophook_conv2d_packed_ok(const ln_op_arg *op_arg);
/* conv2d_maxpool_cpu: dst = the pool (pool_kernel_shape, pool_stride,
 * pool_pads, pool_out) of the conv's output; its pool's args; the fused
 * kernel takes it on a host target */
int ln_ophook_conv2d_maxpool_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_conv2d_maxpool_pool_args(const ln_op_arg *op_arg, ln_rt_pool2d_args *p);
int ln_ophook_conv2d_maxpool_ok(const ln_op_arg *op_arg);
int ln_ophook_conv2d_wino_ok(const ln_op_arg *op_arg);
int ln_ophook_conv2d_dw_nhwc_ok(const ln_op_arg *op_arg);
void ln_ophook_conv2d_pwdw_pw_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *a);
void ln_ophook_conv2d_pwdw_dw_args(const ln_op_arg *op_arg, ln_rt_conv2d_args *a);
/* conv2d_res_cpu: residual has the conv output's shape (1) or not (0) */
int ln_ophook_conv2d_residual_ok(const ln_op_arg *op_arg, const ln_tensor *res);
/* The runtime target of the ops being pre_run (ln_ophook_target.c):
 * ln_context sets it from the arch being compiled for, or read back from a
 * compiled IR; NULL or an arch without a runtime variant is the host. The
 * priv hook puts it beside the kernel args of ops whose scratch differs
 * per target (conv2d_cpu, conv2d_dw_cpu). */
void ln_ophook_set_target(const char *arch);
void ln_ophook_rt_target(const ln_op_arg *op_arg, ln_rt_target *t);
/* 1 unless the target is the Cortex-M4 and 'activation' is silu or
 * hardswish (fused on the host only) */
int ln_ophook_act_target_ok(const ln_op_arg *op_arg);
/* 1 unless the target is the Cortex-M4 (conv2d_scale_cpu: host only) */
int ln_ophook_host_target_ok(const ln_op_arg *op_arg);
/* conv2d_s8: conv2d's geometry, the zero points as offsets, the clamp */
void ln_ophook_s8_conv_args(const ln_op_arg *op_arg, ln_rt_s8_conv_args *a);
int ln_ophook_conv_transpose2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_conv_transpose2d_args(const ln_op_arg *op_arg,
                                     ln_rt_conv_transpose2d_args *args);
/* conv3d, conv_transpose3d, maxpool3d, avgpool3d (ln_ophook_conv3d.c) */
int ln_ophook_conv3d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_conv3d_args(const ln_op_arg *op_arg, ln_rt_conv3d_args *args);
int ln_ophook_conv_transpose3d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_conv_transpose3d_args(const ln_op_arg *op_arg, ln_rt_conv3d_args *args);
int ln_ophook_pool3d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_pool3d_args(const ln_op_arg *op_arg, ln_rt_pool3d_args *args);
/* grid_sample, roi_align, maxunpool (ln_ophook_detect.c) */
int ln_ophook_grid_sample_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_grid_sample_args(const ln_op_arg *op_arg, ln_rt_grid_sample_args *args);
int ln_ophook_roi_align_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_roi_align_args(const ln_op_arg *op_arg, ln_rt_roi_align_args *args);
int ln_ophook_maxunpool_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_maxunpool_args(const ln_op_arg *op_arg, ln_rt_maxunpool_args *args);
/* gemm, matmul */
int ln_ophook_gemm_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_gemm_args(const ln_op_arg *op_arg, ln_rt_gemm_args *args);
int ln_ophook_matmul_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_matmul_args(const ln_op_arg *op_arg, ln_rt_matmul_args *args);
/* maxpool2d, avgpool2d, globalavgpool, globalmaxpool */
int ln_ophook_pool2d_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_pool2d_args(const ln_op_arg *op_arg, ln_rt_pool2d_args *args);
int ln_ophook_avgpool2d_nhwc_ok(const ln_op_arg *op_arg);
int ln_ophook_global_pool_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* softmax, logsoftmax, argmax, gather, layernorm: 'src' seen as
 * [outer][len][inner] around 'axis' (priv hooks, one int32_t each). */
void ln_ophook_axis_outer(const ln_op_arg *op_arg, int32_t *v);
void ln_ophook_axis_len(const ln_op_arg *op_arg, int32_t *v);
void ln_ophook_axis_inner(const ln_op_arg *op_arg, int32_t *v);
void ln_ophook_axis_rest(const ln_op_arg *op_arg, int32_t *v);
int ln_ophook_axis_same_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_layernorm_stat_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* cast */
void ln_ophook_cast_from(const ln_op_arg *op_arg, ln_rt_dtype *v);
void ln_ophook_cast_to(const ln_op_arg *op_arg, ln_rt_dtype *v);
int ln_ophook_argmax_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_gather_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* concat (inputs src_0..), split (outputs dst_0..): the kernels' view
 * [outer][axis_dims[i]][inner], in the runtime's ln_rt_concat_args (so
 * ln-aot prints it like every kernel argument struct). */
int ln_ophook_concat_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_concat_args(const ln_op_arg *op_arg, ln_rt_concat_args *args);
int ln_ophook_split_dst_shape(const ln_op_arg *op_arg, int i, int *ndim, int *dims);
void ln_ophook_split_args(const ln_op_arg *op_arg, ln_rt_concat_args *args);
/* transpose, flatten, squeeze, unsqueeze */
int ln_ophook_transpose_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_transpose_args(const ln_op_arg *op_arg, ln_rt_transpose_args *args);
int ln_ophook_flatten_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_squeeze_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_unsqueeze_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* slice (LightNet axis/start/len or ONNX starts/ends/axes/steps) */
int ln_ophook_slice_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
/* pad, reduce_*, tile, expand, resize */
int ln_ophook_pad_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_pad_args(const ln_op_arg *op_arg, ln_rt_pad_args *args);
int ln_ophook_reduce_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_reduce_args(const ln_op_arg *op_arg, ln_rt_reduce_args *args);
int ln_ophook_tile_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_expand_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_tile_args(const ln_op_arg *op_arg, ln_rt_tile_args *args);
int ln_ophook_resize_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_resize_args(const ln_op_arg *op_arg, ln_rt_resize_args *args);
/* cast_cpu between equal dtypes */
void ln_ophook_copy(const ln_tensor *src, ln_tensor *dst);
/* quantize_linear / dequantize_linear: [outer][len][inner] around 'axis'
 * for a per-axis scale, one run for a per-tensor one */
void ln_ophook_quant_args(const ln_op_arg *op_arg, ln_rt_quant_args *a);
/* fc_s8: [batches][in] x [out][in], the zero points as offsets */
void ln_ophook_s8_fc_args(const ln_op_arg *op_arg, ln_rt_s8_fc_args *a);
/* add_s8: the params as TFLite's ADD arguments (left shift 20) */
void ln_ophook_s8_add_args(const ln_op_arg *op_arg, ln_rt_s8_binary_args *a);
/* requantize_s8, global_avgpool_s8: the zero points as offsets */
void ln_ophook_s8_requant_args(const ln_op_arg *op_arg, ln_rt_s8_requant_args *a);
/* conv2d_integer, conv3d_integer / matmul_integer: signedness and zero point
 * counts; the zero point shapes matmul_integer takes */
void ln_ophook_conv2d_integer_args(const ln_op_arg *op_arg, ln_rt_integer_args *a);
void ln_ophook_matmul_integer_args(const ln_op_arg *op_arg, ln_rt_integer_args *a);
ln_bool ln_ophook_matmul_integer_zp_ok(const ln_tensor *x, const ln_tensor *zp, int is_b);
/* where: the three inputs broadcast */
int ln_ophook_where_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_where_args(const ln_op_arg *op_arg, ln_rt_where_args *a);
/* gather_elements */
void ln_ophook_gather_elements_args(const ln_op_arg *op_arg, ln_rt_gather_elements_args *a);
/* gather_nd, scatter_nd */
int ln_ophook_gather_nd_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_scatter_nd_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_nd_args(const ln_op_arg *op_arg, ln_rt_nd_args *a);
/* onehot: the output shape; indices' dims before the new axis */
int ln_ophook_onehot_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_onehot_outer(const ln_op_arg *op_arg, int32_t *v);
/* trilu: [batch][m][n] of the last two axes */
void ln_ophook_trilu_args(const ln_op_arg *op_arg, ln_rt_trilu_args *a);
/* nll_loss, softmax_cross_entropy (ln_ophook_loss.c): dst is target's
 * shape or a scalar by 'reduction'; the kernel's [n][c][d] view */
int ln_ophook_loss_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_loss_args(const ln_op_arg *op_arg, ln_rt_loss_args *a);
/* lstm / gru / rnn */
int ln_ophook_rnn_y_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
int ln_ophook_rnn_state_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
ln_bool ln_ophook_rnn_acts_ok(const ln_op_arg *op_arg);
void ln_ophook_rnn_args(const ln_op_arg *op_arg, ln_rt_rnn_args *a);
/* einsum: the equation resolved (shape, stride tables) */
int ln_ophook_einsum_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_einsum_args(const ln_op_arg *op_arg, ln_rt_einsum_args *a);
/* compress: the condition's count along the axis (or flattened) */
int ln_ophook_compress_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_compress_args(const ln_op_arg *op_arg, ln_rt_compress_args *a);
/* dft, stft: shapes and the runtime's views */
int ln_ophook_dft_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_dft_args(const ln_op_arg *op_arg, ln_rt_dft_args *a);
int ln_ophook_stft_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_stft_args(const ln_op_arg *op_arg, ln_rt_stft_args *a);
/* reverse_sequence, mvn, det */
void ln_ophook_reverse_sequence_args(const ln_op_arg *op_arg, ln_rt_reverse_sequence_args *a);
int ln_ophook_mvn_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims);
void ln_ophook_det_n(const ln_op_arg *op_arg, int32_t *n);

LN_CPPEND
#endif
