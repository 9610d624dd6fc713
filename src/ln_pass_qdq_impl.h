/*
 * ln_pass_qdq_impl.h -- what the QDQ pass files share (ln_pass_qdq.c: the
 * conv/gemm chains and the helpers; ln_pass_qdq_ops.c: the other ops and
 * the moves of Q/DQ across views).  Not installed.
 */
#ifndef LN_PASS_QDQ_IMPL_H
#define LN_PASS_QDQ_IMPL_H

#include <stdint.h>
#include "ln_context.h"

/* A DQ -> conv2d/gemm/matmul [-> relu/clip] -> Q chain (ln_pass_qdq.c). */
typedef struct qchain {
    ln_op *q, *act, *op, *dqx, *dqw, *dqb;  /* act, dqb may be NULL */
    ln_op *act2;                /* a second activation before act (PyTorch's
                                 * relu6: Relu then Clip), or NULL */
    ln_op *badd;                /* the Add that takes a matmul's bias, or NULL */
    const char *bias;           /* the bias tensor (conv/gemm "bias", the
                                 * matmul's Add's other input), or NULL */
    const char *bias_arg;       /* the Add's arg of the bias (with badd) */
    ln_bool wview;              /* a view between dqw and a conv (1-D: unsqueeze) */
    double x_scale, y_scale;
    int x_zp, y_zp, act_min, act_max;
    int kind;                   /* 0 conv2d, 1 gemm, 2 matmul */
    int trans_b;
} qchain;

/* flatten, reshape, squeeze, unsqueeze or transpose (cpu) */
ln_bool ln_qdq_is_view(const ln_op *op);

/* An op of a cpu optype; NULL (the lists freed) when the build lacks it. */
ln_op *ln_qdq_new_op(const ln_context *ctx, const char *optype, const char *name, ln_list *ins,
                     ln_list *outs, ln_list *params);

/* The producer of op's input arg when it is of optype, else NULL. */
ln_op *ln_qdq_producer_of(const ln_context *ctx, const ln_op *op, const char *arg,
                          const char *optype);

/* The table entry of op's output arg. */
ln_tensor_entry *ln_qdq_tout(const ln_context *ctx, const ln_op *op, const char *arg);

/* Scale and int8 zero point of a per-tensor (de)quantize op. */
ln_bool ln_qdq_per_tensor_s8(ln_context *ctx, const ln_op *op, double *scale, int *zp);

/* Round half to even, as QuantizeLinear. */
double ln_qdq_round_even(double v);

/* The output clamp of the chain's relu/clip. */
ln_bool ln_qdq_clamp_of(const qchain *c, int *lo, int *hi);

/* TFLite's QuantizeMultiplier: m = mult * 2^(shift - 31); LN_FALSE when a
 * left shift could overflow a value of magnitude bound. */
ln_bool ln_qdq_quantize_multiplier(double m, double bound, int32_t *mult, int32_t *shift);

/* A new constant and its create op appended to *before (name: caller frees). */
char *ln_qdq_add_const(ln_context *ctx, const char *prefix, ln_dtype dt, int ndim, const int *dims,
                       const void *data, ln_list **before);

/* One static positive float scale? */
ln_bool ln_qdq_per_tensor_s8_scale(ln_context *ctx, const ln_op *op);

/* The same scale (to float precision)? */
ln_bool ln_qdq_same_scale(ln_context *ctx, const ln_op *a, const ln_op *b);

/* The same per-tensor int8 scale and zero point? */
ln_bool ln_qdq_same_qparams(ln_context *ctx, const ln_op *a, const ln_op *b);

/* requantize_s8 / global_avgpool_s8 at real multiplier m. */
ln_op *ln_qdq_requant_op(ln_context *ctx, const char *optype, const char *name, const char *x,
                         const char *y, double m, double bound, int zx, int zy);

/* TFLite's int8 softmax parameters (beta 1) for input scale sx; LN_FALSE
 * when sx is out of the kernel's range (ln_pass_qdq_ops.c). */
ln_bool ln_qdq_softmax_params(double sx, int32_t *mult, int32_t *shift, int32_t *diff_min);

/* The rewrites of ln_pass_qdq_ops.c, each an ln_pass_fold_all fold. */
int ln_qdq_sink_one(ln_context *ctx, ln_op *view, ln_bool *done);
int ln_qdq_requant_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_gap_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_concat_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_pool_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_pad_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_add_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_lut_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_softmax_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_u8_one(ln_context *ctx, ln_op *q, ln_bool *done);
int ln_qdq_act_one(ln_context *ctx, ln_op *act, ln_bool *done);
int ln_qdq_hoist_one(ln_context *ctx, ln_op *q, ln_bool *done);

#endif
