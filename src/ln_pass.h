/*
 * ln_pass.h -- the compile passes an arch's optimize recipe strings together.
 */
#ifndef LN_PASS_H
#define LN_PASS_H

#include "ln_context.h"

LN_CPPSTART

/* Each op is offered to the expanders in order; the first match replaces it. */
/* Each op goes to the first rule function that matches, else to its row
 * of defaults (either may be NULL). */
int ln_pass_expander(ln_context *ctx, ln_expander_func *funcs,
                     const ln_expand_default *defaults);
/* Windows of win_size adjacent ops are offered to the combiners; a match
 * replaces the window, and the new ops are looked at again. */
int ln_pass_combiner(ln_context *ctx, size_t win_size, ln_combiner_func *funcs);
/* Ops that compute only from constants run now, at compile time; their
 * outputs become constants (create ops reading from the constants store). */
int ln_pass_fold_constants(ln_context *ctx);
/* A view (reshape, flatten, dropout, ...) of a constant becomes a constant,
 * also a graph output: a view has no kernel to fill a buffer of its own.
 * Needed for correctness, so it runs at -O0 too. */
int ln_pass_fold_const_views(ln_context *ctx);
/* Ops whose outputs nobody reads and that are not graph outputs go (ops
 * with no outputs -- output, print -- stay: they are the point). */
int ln_pass_remove_dead(ln_context *ctx);
/* Views that change nothing (identity, inference dropout, a reshape to the
 * same shape) go: their readers read the source instead. */
int ln_pass_remove_identity(ln_context *ctx);
/* A Cast to the dtype its input has already (PyTorch's quantized export
 * puts one between every QuantizeLinear and DequantizeLinear) goes: its
 * readers read the source; a graph output or an If's condition keeps its
 * cast. */
int ln_pass_remove_noop_casts(ln_context *ctx);
/* batchnorm after conv2d / gemm (whose output it alone reads) folds into
 * their weights and bias. */
int ln_pass_fold_batchnorm(ln_context *ctx);
/* Small-map group-1 conv2d_cpu with constant weights -> conv2d_packed_cpu
 * (conv2d_res_cpu -> conv2d_packed_res_cpu) reading the weights packed now
 * (host targets only). */
int ln_pass_pack_conv(ln_context *ctx);
/* x * g (g one factor per image and channel) read by a group-1 conv2d_cpu
 * (conv2d_res_cpu) alone becomes a conv2d_scale_cpu that scales a copy of its weights,
 * where those are fewer numbers than a plane of x (squeeze-excitation);
 * host targets only. */
int ln_pass_fold_channel_scale(ln_context *ctx);
/* A 1x1 conv2d_cpu and the depthwise conv2d_dw_cpu that alone reads it
 * become one conv2d_pwdw_cpu (host targets only). */
int ln_pass_fuse_pwdw(ln_context *ctx);
/* A conv2d_cpu with ReLU whose output a float32 maxpool2d_cpu alone reads
 * becomes, with it, one conv2d_maxpool_cpu where ln_rt_conv2d_maxpool_ok
 * takes the pair (host targets only). */
int ln_pass_fuse_conv_maxpool(ln_context *ctx);
/* Tensors that packed convs (and channels-last depthwise convs between
 * them) alone write and read are stored [n][h][w][c]: conv2d_packed_cpu's
 * 'nhwc', conv2d_dw_nhwc_cpu (host targets only; not with plan_noreuse). */
int ln_pass_nhwc_edges(ln_context *ctx);
/* GELU's erf form as exported (x / c or x * c -> erf -> + 1 -> times x and
 * 0.5, in either order) becomes one gelu_cpu with the chain's constants,
 * bit for bit (ln_pass_gelu.c). */
int ln_pass_fuse_gelu(ln_context *ctx);
/* A zero constant pad before conv2d (or avgpool2d counting pads) becomes
 * the op's padding; a pad of all zeros goes. */
int ln_pass_fold_pad(ln_context *ctx);
/* DequantizeLinear -> conv2d/gemm/matmul [-> relu/clip] -> QuantizeLinear
 * chains of int8 tensors and constants become conv2d_s8 / fc_s8
 * (ln_pass_qdq.c); runs before constant folding, which would turn the
 * weights' DequantizeLinear into float constants. */
int ln_pass_fuse_qdq(ln_context *ctx);
/* Every op must now belong to arch (abstract ops with no expansion fail). */
int ln_pass_check_arch(const ln_context *ctx, const char *arch);

LN_CPPEND
#endif
