/*
 * ln_pass_qdq.c -- QDQ models to int8 ops.
 *
 * A QDQ model (what ONNX Runtime's quantizer and PyTorch's quantized
 * export write) keeps float ops between DequantizeLinear and
 * QuantizeLinear:
 *
 *   x_q -> DQ -> conv2d/gemm/matmul (weight DQ(w_q), bias DQ(b_q)) [-> relu/clip] -> Q -> y_q
 *
 * When x_q and y_q are int8 at one scale each, w_q is an int8 constant
 * (symmetric, per tensor or per output channel) and the bias an int32
 * constant at scale x_scale * w_scale[o] (or a float constant, quantized
 * here to that scale), the chain becomes one conv2d_s8 / fc_s8 with
 * TensorFlow Lite's arithmetic: the real multipliers x_scale * w_scale[o] /
 * y_scale become Q31 multipliers and shifts now, as int32 constants (ln-aot
 * writes them to flash), and the relu/clip becomes the output clamp.
 * Anything else stays float between its DQ and Q ops, which compute the
 * QDQ semantics exactly.  uint8 activations (ONNX Runtime's default) are
 * made int8 first where that changes nothing (u8_one).  A per-tensor DQ before a view (flatten,
 * reshape, squeeze, unsqueeze, transpose) moves after it first, so that
 * the view works on the int8 tensor, and a Q after a view moves before it.  Then a Q(DQ(x)) of equal parameters
 * goes (of other parameters: requantize_s8), DQ -> max/average pool -> Q
 * of equal parameters becomes the pool on int8, DQ x2 -> Add/Mul [->
 * Relu] -> Q an add_s8/mul_s8 (TFLite's ADD/MUL, broadcasting), DQ ->
 * GlobalAveragePool -> Q a
 * global_avgpool_s8, DQ... -> Concat -> Q a concat of int8 tensors (the
 * inputs of other parameters requantized), DQ -> an elementwise function
 * -> Q a table lookup (lut_s8), DQ -> Pad -> Q of one scale a pad on int8.  The int8 result differs from the float path
 * only in rounding: at most a step or two of the output scale.
 *
 * Written as a pass beside fold_batchnorm rather than as combiner rules:
 * the rewrite computes new constants from the matched ones, which the
 * optimizer descriptions cannot express yet.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ln_pass_impl.h"

typedef struct qchain {
    ln_op *q, *act, *op, *dqx, *dqw, *dqb;  /* act, dqb may be NULL */
    ln_bool wview;              /* a view between dqw and a conv (1-D: unsqueeze) */
    double x_scale, y_scale;
    int x_zp, y_zp, act_min, act_max;
    int kind;                   /* 0 conv2d, 1 gemm, 2 matmul */
    int trans_b;
} qchain;

static ln_bool is_view(const ln_op *op)
{
    static const char *const views[] = {"flatten_cpu", "reshape_cpu", "squeeze_cpu",
                                        "unsqueeze_cpu", "transpose_cpu", NULL};
    for (int i = 0; op && views[i]; i++)
        if (ln_streq(op->op_arg->optype, views[i]))
            return LN_TRUE;
    return LN_FALSE;
}

/* An op of a cpu optype; NULL (the lists freed) when this build lacks it
 * (LN_OPS). */
static ln_op *new_op(const ln_context *ctx, const char *optype, const char *name, ln_list *ins,
                     ln_list *outs, ln_list *params)
{
    const ln_op *proto = ln_arch_op_proto(optype);

    if (!proto) {
        ln_tensor_list_free(ins);
        ln_tensor_list_free(outs);
        ln_param_list_free(params);
        return NULL;
    }
    return ln_op_create_from_proto(proto, name, ins, outs, params, ctx->tensor_table);
}


/* The producer of op's input arg when it is a cpu op of optype. */
static ln_op *producer_of(const ln_context *ctx, const ln_op *op, const char *arg,
                          const char *optype)
{
    const char *n = ln_pass_tname_in(op, arg);
    ln_op *p = n ? ln_dfg_producer(ctx->dfg, n) : NULL;
    return p && ln_streq(p->op_arg->optype, optype) ? p : NULL;
}

static ln_tensor_entry *tout(const ln_context *ctx, const ln_op *op, const char *arg)
{
    const char *n = ln_pass_tname_out(op, arg);
    return n ? ln_tensor_table_find(ctx->tensor_table, n) : NULL;
}

static ln_bool is_static(const ln_context *ctx, const ln_op *op, const char *arg)
{
    ln_tensor_entry *te = ln_pass_tin(ctx, op, arg);
    return te && te->isstatic;
}

/* Scale and zero point of a per-tensor (de)quantize op with an int8 zero
 * point (or none, for a dequantize of int8); LN_FALSE otherwise. */
static ln_bool per_tensor_s8(ln_context *ctx, const ln_op *op, double *scale, int *zp)
{
    ln_tensor_entry *s = ln_pass_tin(ctx, op, "scale"), *z = ln_pass_tin(ctx, op, "zero_point");
    ln_tensor *t;

    if (!s || !s->isstatic || s->tensor->len != 1 || (z && !z->isstatic))
        return LN_FALSE;
    if (ln_context_static_data(ctx, s->name, &t))
        return LN_FALSE;
    *scale = ((const float *)t->data)[0];
    if (!(*scale > 0) || !isfinite(*scale))
        return LN_FALSE;
    *zp = 0;
    if (z) {
        if (z->tensor->dtype != LN_DTYPE_INT8 || ln_context_static_data(ctx, z->name, &t))
            return LN_FALSE;
        *zp = ((const int8_t *)t->data)[0];
    }
    return LN_TRUE;
}

/* round half to even, as ONNX's QuantizeLinear */
static double round_even(double v)
{
    double r = floor(v + 0.5);
    if (r - v == 0.5 && fmod(r, 2.0) != 0.0)
        r -= 1.0;
    return r;
}

/* The output clamp of the relu/clip between the op and the Q. */
static ln_bool clamp_of(const qchain *c, int *lo, int *hi)
{
    double a, b;

    *lo = -128;
    *hi = 127;
    if (!c->act)
        return LN_TRUE;
    if (ln_streq(c->act->op_arg->optype, "relu_cpu")) {
        *lo = c->y_zp;
        return LN_TRUE;
    }
    if (ln_pass_tname_in(c->act, "min_t") || ln_pass_tname_in(c->act, "max_t"))
        return LN_FALSE;
    a = round_even(ln_pass_num_param(c->act, "min", -INFINITY) / c->y_scale) + c->y_zp;
    b = round_even(ln_pass_num_param(c->act, "max", INFINITY) / c->y_scale) + c->y_zp;
    if (a > -128)
        *lo = a > 127 ? 127 : (int)a;
    if (b < 127)
        *hi = b < -128 ? -128 : (int)b;
    return *lo <= *hi;
}

/* Find the chain ending in quantize op q; LN_FALSE when it is not one. */
static ln_bool match(ln_context *ctx, ln_op *q, qchain *c)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *p = y ? ln_dfg_producer(ctx->dfg, y) : NULL;
    const char *t;

    memset(c, 0, sizeof *c);
    c->q = q;
    if (!p || ln_pass_sole_reader(ctx, y) != q || !per_tensor_s8(ctx, q, &c->y_scale, &c->y_zp) ||
        !ln_pass_tname_in(q, "zero_point"))
        return LN_FALSE;
    t = p->op_arg->optype;
    if (ln_streq(t, "relu_cpu") || ln_streq(t, "clip_cpu")) {
        const char *x = ln_pass_tname_in(p, "src");
        c->act = p;
        p = x ? ln_dfg_producer(ctx->dfg, x) : NULL;
        if (!p || ln_pass_sole_reader(ctx, x) != c->act)
            return LN_FALSE;
        t = p->op_arg->optype;
    }
    c->op = p;
    c->kind = ln_streq(t, "gemm_cpu") ? 1 : ln_streq(t, "matmul_cpu") ? 2
              : ln_streq(t, "conv2d_cpu") || ln_streq(t, "conv2d_dw_cpu") ? 0 : -1;
    if (c->kind < 0 || !ln_streq(ln_pass_str_param(p, "activation", "none"), "none"))
        return LN_FALSE;
    if (c->kind == 1 && (ln_pass_num_param(p, "trans_a", 0) != 0 ||
                         ln_pass_num_param(p, "alpha", 1) != 1 || ln_pass_num_param(p, "beta", 1) != 1))
        return LN_FALSE;
    c->trans_b = c->kind == 1 ? (int)ln_pass_num_param(p, "trans_b", 0) : c->kind == 0;
    c->dqx = producer_of(ctx, p, c->kind == 2 ? "src1" : "src", "dequantize_linear_cpu");
    c->dqw = producer_of(ctx, p, c->kind == 2 ? "src2" : "weight", "dequantize_linear_cpu");
    if (!c->dqw && c->kind == 0) {
        const char *wn = ln_pass_tname_in(p, c->kind == 2 ? "src2" : "weight");
        ln_op *v = wn ? ln_dfg_producer(ctx->dfg, wn) : NULL;
        if (is_view(v) && !ln_streq(v->op_arg->optype, "transpose_cpu")) {
            c->dqw = producer_of(ctx, v, "src", "dequantize_linear_cpu");
            c->wview = LN_TRUE;
        }
    }
    if (!c->dqx || !c->dqw || !per_tensor_s8(ctx, c->dqx, &c->x_scale, &c->x_zp) ||
        ln_pass_tin(ctx, c->dqx, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_pass_tin(ctx, c->dqx, "src")->tensor->ndim != (c->kind ? 2 : 4) ||
        !is_static(ctx, c->dqw, "src") || !is_static(ctx, c->dqw, "scale") ||
        ln_pass_tin(ctx, c->dqw, "src")->tensor->dtype != LN_DTYPE_INT8)
        return LN_FALSE;
    if (c->kind != 2 && ln_pass_tname_in(p, "bias")) {
        ln_tensor_entry *b = ln_pass_tin(ctx, p, "bias");
        c->dqb = producer_of(ctx, p, "bias", "dequantize_linear_cpu");
        if (!(b->isstatic && b->tensor->dtype == LN_DTYPE_FLOAT32) &&
            !(c->dqb && is_static(ctx, c->dqb, "src") && is_static(ctx, c->dqb, "scale") &&
              ln_pass_tin(ctx, c->dqb, "src")->tensor->dtype == LN_DTYPE_INT32))
            return LN_FALSE;
        if (b->isstatic)
            c->dqb = NULL;
    }
    return clamp_of(c, &c->act_min, &c->act_max);
}

/* TFLite's QuantizeMultiplier: m = mult * 2^(shift - 31), mult in
 * [2^30, 2^31); LN_FALSE when m is out of the kernels' range. */
static ln_bool quantize_multiplier(double m, int32_t *mult, int32_t *shift)
{
    int e;
    double f;
    long long q;

    if (m == 0) {
        *mult = 0;
        *shift = 0;
        return LN_TRUE;
    }
    f = frexp(m, &e);
    q = llround(f * 2147483648.0);
    if (q == 2147483648LL) {
        q /= 2;
        e++;
    }
    if (e < -31) {
        *mult = 0;
        *shift = 0;
        return LN_TRUE;
    }
    if (e > 30)
        return LN_FALSE;
    *mult = (int32_t)q;
    *shift = e;
    return LN_TRUE;
}

/* Per output channel weight scales (n of them) and the weight zero point:
 * all zero for a conv (symmetric), one value for a gemm. */
static ln_bool weight_scales(ln_context *ctx, const qchain *c, int n, double *ws, int *wzp)
{
    ln_tensor *s, *z = NULL, *w;
    const char *zn = ln_pass_tname_in(c->dqw, "zero_point");
    int axis = (int)ln_pass_num_param(c->dqw, "axis", 1), out_axis;

    if (ln_context_static_data(ctx, ln_pass_tname_in(c->dqw, "scale"), &s) ||
        ln_context_static_data(ctx, ln_pass_tname_in(c->dqw, "src"), &w) ||
        (zn && ln_context_static_data(ctx, zn, &z)) || s->dtype != LN_DTYPE_FLOAT32 ||
        (z && z->dtype != LN_DTYPE_INT8))
        return LN_FALSE;
    out_axis = c->trans_b ? 0 : 1;
    if (axis < 0)
        axis += w->ndim;
    if (s->len != 1 && (s->len != (size_t)n || axis != out_axis))
        return LN_FALSE;
    *wzp = z ? ((const int8_t *)z->data)[0] : 0;
    for (size_t i = 0; z && i < z->len; i++)
        if (((const int8_t *)z->data)[i] != *wzp)
            return LN_FALSE;
    if (*wzp != 0 && c->kind == 0)
        return LN_FALSE;       /* the conv kernels take symmetric weights */
    for (int o = 0; o < n; o++) {
        ws[o] = ((const float *)s->data)[s->len == 1 ? 0 : o];
        if (!(ws[o] > 0) || !isfinite(ws[o]))
            return LN_FALSE;
    }
    return LN_TRUE;
}

/* The bias as int32 at scale x_scale * ws[o]: the DQ's own values when its
 * scale is that (to float precision), else quantized from the float. */
static ln_bool bias_s8(ln_context *ctx, const qchain *c, int n, const double *ws, int32_t *b)
{
    ln_tensor *t, *s = NULL, *z = NULL;
    const char *zn = c->dqb ? ln_pass_tname_in(c->dqb, "zero_point") : NULL;

    if (ln_context_static_data(ctx, ln_pass_tname_in(c->dqb ? c->dqb : c->op,
                                                     c->dqb ? "src" : "bias"), &t) ||
        t->len != (size_t)n ||
        (c->dqb && (ln_context_static_data(ctx, ln_pass_tname_in(c->dqb, "scale"), &s) ||
                    (s->len != 1 && s->len != (size_t)n))) ||
        (zn && ln_context_static_data(ctx, zn, &z)))
        return LN_FALSE;
    for (size_t i = 0; z && i < z->len; i++)
        if (((const int32_t *)z->data)[i] != 0)
            return LN_FALSE;
    for (int o = 0; o < n; o++) {
        double want = c->x_scale * ws[o], v;
        if (s) {
            double have = ((const float *)s->data)[s->len == 1 ? 0 : o];
            if (fabs(have - want) <= 1e-6 * want) {
                b[o] = ((const int32_t *)t->data)[o];
                continue;
            }
            v = ((const int32_t *)t->data)[o] * have;
        } else {
            v = ((const float *)t->data)[o];
        }
        v = round_even(v / want);
        if (!(fabs(v) < 2147483647.0))
            return LN_FALSE;
        b[o] = (int32_t)v;
    }
    return LN_TRUE;
}

/* A new int32 (int8) constant of dims and its create op appended to *before. */
static char *add_const(ln_context *ctx, const char *prefix, ln_dtype dt, int ndim, const int *dims,
                       const void *data, ln_list **before)
{
    ln_tensor *t = ln_tensor_create_alloc(dt, ndim, dims);
    char *name = ln_pass_unique(ctx, prefix);

    memcpy(t->data, data, ln_tensor_size(t));
    ln_context_const_set(ctx, name, t);
    *before = ln_list_append(*before, ln_pass_const_op(ctx, "cpu", name, t));
    return name;
}

static ln_list *copy_params(const ln_op *op, ln_list *params, const char *const *names)
{
    for (int i = 0; names[i]; i++) {
        ln_param_entry *pe = ln_op_param(op->op_arg, names[i]);
        if (pe)
            params = ln_param_list_append_entry(params, ln_param_entry_copy(pe));
    }
    return params;
}

/* The int8 op of chain c, with the constants it needs in *before; NULL
 * when a scale or the bias does not fit the kernels. */
static ln_op *int8_op(ln_context *ctx, const qchain *c, ln_list **before)
{
    static const char *const conv_params[] = {"group", "stride", "dilation", "pads",
                                              "auto_pad", "kernel_shape", NULL};
    ln_tensor *w;
    int n, wzp = 0, ok, dims[2];
    double *ws = NULL;
    int32_t *mult = NULL, *shift = NULL, *bias = NULL;
    int8_t *wt = NULL;
    char prefix[256], *names[4] = {NULL, NULL, NULL, NULL};
    ln_list *ins = NULL, *params = NULL;
    ln_op *op = NULL;
    const char *wname = ln_pass_tname_in(c->dqw, "src");
    const ln_tensor *wshape = ln_pass_tin(ctx, c->op, c->kind == 2 ? "src2" : "weight")->tensor;

    if (ln_context_static_data(ctx, wname, &w) || wshape->ndim != (c->kind ? 2 : 4) ||
        w->len != wshape->len || (c->wview && w->dims[0] != wshape->dims[0]))
        return NULL;
    n = wshape->dims[c->trans_b ? 0 : 1];
    ws = ln_alloc(sizeof *ws * (size_t)n);
    mult = ln_alloc(sizeof *mult * (size_t)n);
    shift = ln_alloc(sizeof *shift * (size_t)n);
    bias = ln_alloc(sizeof *bias * (size_t)n);
    ok = weight_scales(ctx, c, n, ws, &wzp) &&
         (!ln_pass_tname_in(c->op, "bias") || c->kind == 2 || bias_s8(ctx, c, n, ws, bias));
    for (int o = 0; ok && o < n; o++)
        ok = quantize_multiplier(c->x_scale * ws[o] / c->y_scale, &mult[o], &shift[o]);
    if (ok) {
        snprintf(prefix, sizeof prefix, "%s__mult", c->op->op_arg->name);
        names[0] = add_const(ctx, prefix, LN_DTYPE_INT32, 1, &n, mult, before);
        snprintf(prefix, sizeof prefix, "%s__shift", c->op->op_arg->name);
        names[1] = add_const(ctx, prefix, LN_DTYPE_INT32, 1, &n, shift, before);
        if (ln_pass_tname_in(c->op, "bias") && c->kind != 2) {
            snprintf(prefix, sizeof prefix, "%s__bias_s32", c->op->op_arg->name);
            names[2] = add_const(ctx, prefix, LN_DTYPE_INT32, 1, &n, bias, before);
        }
        if (!c->trans_b) {      /* [K][N] -> [N][K] for the fc kernel */
            int k = w->dims[0];
            wt = ln_alloc((size_t)n * (size_t)k);
            for (int i = 0; i < k; i++)
                for (int o = 0; o < n; o++)
                    wt[(size_t)o * k + i] = ((const int8_t *)w->data)[(size_t)i * n + o];
            dims[0] = n;
            dims[1] = k;
            snprintf(prefix, sizeof prefix, "%s__weight_t", c->op->op_arg->name);
            names[3] = add_const(ctx, prefix, LN_DTYPE_INT8, 2, dims, wt, before);
            wname = names[3];
        } else if (c->wview) {  /* the view's shape, the same bytes */
            snprintf(prefix, sizeof prefix, "%s__weight", c->op->op_arg->name);
            names[3] = add_const(ctx, prefix, LN_DTYPE_INT8, wshape->ndim, wshape->dims, w->data,
                                 before);
            wname = names[3];
        }
        ins = ln_tensor_list_append(ins, "src", ln_pass_tname_in(c->dqx, "src"));
        ins = ln_tensor_list_append(ins, "weight", wname);
        if (names[2])
            ins = ln_tensor_list_append(ins, "bias", names[2]);
        ins = ln_tensor_list_append(ins, "mult", names[0]);
        ins = ln_tensor_list_append(ins, "shift", names[1]);
        if (c->kind == 0)
            params = copy_params(c->op, params, conv_params);
        else
            params = ln_param_list_append_int(params, "weight_zero_point", wzp);
        params = ln_param_list_append_int(params, "src_zero_point", c->x_zp);
        params = ln_param_list_append_int(params, "dst_zero_point", c->y_zp);
        params = ln_param_list_append_int(params, "act_min", c->act_min);
        params = ln_param_list_append_int(params, "act_max", c->act_max);
        op = new_op(ctx, c->kind ? "fc_s8_cpu" : "conv2d_s8_cpu", c->op->op_arg->name, ins,
                    ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(c->q, "dst")), params);
    }
    for (int i = 0; i < 4; i++)
        ln_free(names[i]);
    ln_free(ws);
    ln_free(mult);
    ln_free(shift);
    ln_free(bias);
    ln_free(wt);
    return op;
}

static int fuse_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    qchain c;
    ln_list *before = NULL;
    ln_op *op;
    int ret;

    *done = LN_FALSE;
    if (!match(ctx, q, &c) || !(op = int8_op(ctx, &c, &before))) {
        LN_LIST_FOREACH(ln_op, cop, before)
            ln_op_free(cop);    /* their constants stay in the store, unread */
        ln_list_free(before);
        return 0;
    }
    /* the readers of the old outputs go first: the new op writes q's output */
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)) ||
        (c.act && (ret = ln_context_remove_op(ctx, c.act->op_arg->name))) ||
        (ret = ln_pass_replace_with(ctx, c.op, before, op)))
        return ret;
    *done = LN_TRUE;
    return 0;
}

/* view(DQ(x_q)) -> DQ(view(x_q)) for a per-tensor DQ: the int8 tensor
 * goes through the view (flatten before a classifier's gemm), and the DQ
 * comes next to the op it feeds.  A pad of nothing (MLPerf Tiny's
 * Pad -> AveragePool) is an identity view here; a pad of 0 (TF-style
 * "same" padding before a conv) pads the int8 tensor with its zero point,
 * and reflect / edge pads copy int8 values: both exact. */
static ln_bool zero_pad(const ln_op *pad)
{
    ln_param_entry *pe = ln_op_param(pad->op_arg, "pads");

    if (!pe || pe->type != LN_PARAM_ARRAY_NUMBER)
        return LN_FALSE;
    for (int i = 0; i < pe->array_len; i++)
        if (pe->value_array_double[i] != 0)
            return LN_FALSE;
    return LN_TRUE;
}

static int sink_one(ln_context *ctx, ln_op *view, ln_bool *done)
{
    ln_op *dq = producer_of(ctx, view, "src", "dequantize_linear_cpu"), *v2, *dq2;
    ln_bool is_pad = ln_streq(view->op_arg->optype, "pad_cpu");
    ln_tensor_entry *x;
    ln_list *ins = NULL;
    double scale;
    int zp;
    char buf[256], *tq, *dqname;
    const char *zn;

    ln_list *vparams = NULL;

    *done = LN_FALSE;
    if (!dq || !per_tensor_s8(ctx, dq, &scale, &zp) || !(x = ln_pass_tin(ctx, dq, "src")) ||
        x->isstatic || x->tensor->dtype != LN_DTYPE_INT8)
        return 0;
    if (is_pad && !zero_pad(view)) {
        /* a real pad: of 0 (the zero point's value, exactly) or by copies */
        ln_param_entry *pe;
        if (ln_streq(ln_pass_str_param(view, "mode", "constant"), "constant") &&
            ln_pass_num_param(view, "value", 0.0) != 0.0)
            return 0;
        vparams = ln_param_list_remove(ln_param_list_copy(view->op_arg->params), "value");
        pe = ln_param_entry_create("value", LN_PARAM_NUMBER);
        ln_param_set_satu_number(pe, zp);
        vparams = ln_param_list_append_entry(vparams, pe);
        is_pad = LN_FALSE;  /* the pad itself, on int8 */
    } else if (!is_pad) {
        vparams = ln_param_list_copy(view->op_arg->params);
    }
    snprintf(buf, sizeof buf, "%s__q", ln_pass_tname_out(view, "dst"));
    tq = ln_pass_unique(ctx, buf);
    snprintf(buf, sizeof buf, "%s__dq", view->op_arg->name);
    dqname = ln_pass_unique(ctx, buf);
    v2 = new_op(ctx, is_pad ? "identity_cpu" : view->op_arg->optype, view->op_arg->name,
                ln_tensor_list_append(NULL, "src", x->name), ln_tensor_list_append(NULL, "dst", tq),
                vparams);
    ins = ln_tensor_list_append(ln_tensor_list_append(ins, "src", tq), "scale",
                                ln_pass_tname_in(dq, "scale"));
    if ((zn = ln_pass_tname_in(dq, "zero_point")))
        ins = ln_tensor_list_append(ins, "zero_point", zn);
    dq2 = new_op(ctx, "dequantize_linear_cpu", dqname, ins,
                 ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(view, "dst")),
                 ln_param_list_copy(dq->op_arg->params));
    ln_free(tq);
    ln_free(dqname);
    if (!v2 || !dq2) {
        if (v2)
            ln_op_free(v2);
        if (dq2)
            ln_op_free(dq2);
        return 0;
    }
    *done = LN_TRUE;
    return ln_pass_replace_with(ctx, view, ln_list_append(NULL, v2), dq2);
}

/* The op's scale: one static positive float. */
static ln_bool scale_of(ln_context *ctx, const ln_op *op, double *scale)
{
    ln_tensor_entry *s = ln_pass_tin(ctx, op, "scale");
    ln_tensor *t;

    if (!s || !s->isstatic || s->tensor->len != 1 || s->tensor->dtype != LN_DTYPE_FLOAT32 ||
        ln_context_static_data(ctx, s->name, &t))
        return LN_FALSE;
    *scale = ((const float *)t->data)[0];
    return *scale > 0 && isfinite(*scale);
}

static ln_bool per_tensor_s8_scale(ln_context *ctx, const ln_op *op)
{
    double s;
    return scale_of(ctx, op, &s);
}

static ln_bool same_scale(ln_context *ctx, const ln_op *a, const ln_op *b)
{
    double sa, sb;
    return scale_of(ctx, a, &sa) && scale_of(ctx, b, &sb) && fabs(sa - sb) <= 1e-6 * sa;
}

/* Do two per-tensor int8 (de)quantize ops have the same scale and zero
 * point (to float precision)? */
static ln_bool same_qparams(ln_context *ctx, const ln_op *a, const ln_op *b)
{
    double sa, sb;
    int za, zb;

    return per_tensor_s8(ctx, a, &sa, &za) && per_tensor_s8(ctx, b, &sb, &zb) && za == zb &&
           fabs(sa - sb) <= 1e-6 * sa;
}

/* A requantize_s8 (or global_avgpool_s8) op name: x (int8, zero point
 * zx) -> y at real multiplier m, zero point zy; NULL when m is out of the
 * kernels' range. */
static ln_op *requant_op(ln_context *ctx, const char *optype, const char *name, const char *x,
                         const char *y, double m, int zx, int zy)
{
    int32_t mult, shift;
    ln_list *params = NULL;

    if (!quantize_multiplier(m, &mult, &shift))
        return NULL;
    params = ln_param_list_append_int(params, "src_zero_point", zx);
    params = ln_param_list_append_int(params, "dst_zero_point", zy);
    params = ln_param_list_append_int(params, "mult", mult);
    params = ln_param_list_append_int(params, "shift", shift);
    return new_op(ctx, optype, name, ln_tensor_list_append(NULL, "src", x),
                  ln_tensor_list_append(NULL, "dst", y), params);
}

/* Q(DQ(x)) with the same parameters is x: its readers read x; with other
 * parameters a requantize_s8. */
static int requant_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    ln_op *dq = producer_of(ctx, q, "src", "dequantize_linear_cpu"), *op;
    ln_tensor_entry *x = dq ? ln_pass_tin(ctx, dq, "src") : NULL, *y;
    double sx, sy;
    int zx, zy;

    *done = LN_FALSE;
    y = tout(ctx, q, "dst");
    if (!x || !y || x->tensor->dtype != LN_DTYPE_INT8 || y->tensor->dtype != LN_DTYPE_INT8 ||
        !per_tensor_s8(ctx, dq, &sx, &zx) || !per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    if (same_qparams(ctx, dq, q) && !y->is_io) {
        *done = LN_TRUE;
        return ln_pass_bypass(ctx, q, y->name, x->name);
    }
    if (same_qparams(ctx, dq, q) ||
        !(op = requant_op(ctx, "requantize_s8_cpu", q->op_arg->name, x->name, y->name, sx / sy,
                          zx, zy)))
        return 0;
    *done = LN_TRUE;
    return ln_pass_replace_with(ctx, q, NULL, op);
}

/* Q(GlobalAveragePool(DQ(x))) -> global_avgpool_s8: the plane's sum at
 * real multiplier sx / (sy * plane size). */
static int gap_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *pool = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *op;
    ln_tensor_entry *x;
    double sx, sy, hw;
    int zx, zy, ret;

    *done = LN_FALSE;
    if (!pool || ln_pass_sole_reader(ctx, y) != q ||
        !ln_streq(pool->op_arg->optype, "globalavgpool_cpu") ||
        !(dq = producer_of(ctx, pool, "src", "dequantize_linear_cpu")) ||
        !(x = ln_pass_tin(ctx, dq, "src")) || x->tensor->dtype != LN_DTYPE_INT8 ||
        x->tensor->ndim < 3 || tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        !per_tensor_s8(ctx, dq, &sx, &zx) || !per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    hw = (double)x->tensor->len / ((double)x->tensor->dims[0] * x->tensor->dims[1]);
    if (!(hw >= 1) || hw * 255.0 > 2147483647.0 ||
        !(op = requant_op(ctx, "global_avgpool_s8_cpu", pool->op_arg->name, x->name,
                          ln_pass_tname_out(q, "dst"), sx / (sy * hw), zx, zy)))
        return 0;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, pool, NULL, op);
}

/* Q(Concat(DQ(a), DQ(b), ...)) -> Concat on int8, an input of other
 * parameters than the output's requantized first. */
static int concat_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *cat = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *op;
    ln_list *ins = NULL, *before = NULL;
    double sy;
    int zy, ret;

    *done = LN_FALSE;
    if (!cat || ln_pass_sole_reader(ctx, y) != q || !ln_streq(cat->op_arg->optype, "concat_cpu") ||
        tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 || !per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, cat->op_arg->tensors_in) {
        ln_op *dq = producer_of(ctx, cat, tl->arg_name, "dequantize_linear_cpu");
        ln_tensor_entry *x = dq ? ln_pass_tin(ctx, dq, "src") : NULL;
        double sx;
        int zx;
        if (!x || x->tensor->dtype != LN_DTYPE_INT8 || !per_tensor_s8(ctx, dq, &sx, &zx))
            goto refuse;
        if (same_qparams(ctx, dq, q)) {
            ins = ln_tensor_list_append(ins, tl->arg_name, x->name);
        } else {
            char buf[256], *t, *n;
            ln_op *rq;
            snprintf(buf, sizeof buf, "%s__requant", x->name);
            t = ln_pass_unique(ctx, buf);
            snprintf(buf, sizeof buf, "%s_requant", dq->op_arg->name);
            n = ln_pass_unique(ctx, buf);
            rq = requant_op(ctx, "requantize_s8_cpu", n, x->name, t, sx / sy, zx, zy);
            ins = ln_tensor_list_append(ins, tl->arg_name, t);
            ln_free(t);
            ln_free(n);
            if (!rq)
                goto refuse;
            before = ln_list_append(before, rq);
        }
    }
    op = new_op(ctx, "concat_cpu", cat->op_arg->name, ins,
                ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(q, "dst")),
                ln_param_list_copy(cat->op_arg->params));
    ins = NULL;
    if (!op)
        goto refuse;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, cat, before, op);
refuse:
    ln_tensor_list_free(ins);
    LN_LIST_FOREACH(ln_op, r, before)
        ln_op_free(r);
    ln_list_free(before);
    return 0;
}

/* Q(pool(DQ(x))) with the same parameters in and out is pool(x) on int8
 * (max commutes with the quantization; the average is TFLite's, whose
 * rounding differs from the float path's at ties only).  Not an average
 * that counts padding unless the zero point is 0: the int8 kernel pads
 * with 0, which is the real 0 only then. */
static int pool_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *pool = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *np;
    double scale;
    int zp, ret;

    *done = LN_FALSE;
    if (!pool || ln_pass_sole_reader(ctx, y) != q ||
        !(ln_streq(pool->op_arg->optype, "maxpool2d_cpu") ||
          ln_streq(pool->op_arg->optype, "avgpool2d_cpu")) ||
        !(dq = producer_of(ctx, pool, "src", "dequantize_linear_cpu")) ||
        ln_pass_tin(ctx, dq, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 || !same_qparams(ctx, dq, q) ||
        !per_tensor_s8(ctx, q, &scale, &zp))
        return 0;
    if (ln_streq(pool->op_arg->optype, "avgpool2d_cpu") && zp != 0 &&
        ln_pass_num_param(pool, "count_include_pad", 0) != 0)
        return 0;
    np = new_op(ctx, pool->op_arg->optype, pool->op_arg->name,
                ln_tensor_list_append(NULL, "src", ln_pass_tname_in(dq, "src")),
                ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(q, "dst")),
                ln_param_list_copy(pool->op_arg->params));
    if (!np)
        return 0;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, pool, NULL, np);
}

/* Q(Pad(DQ(x))) with the same parameters in and out is Pad(x) on int8 with
 * the pad value quantized (reflect and edge copy values, which commute
 * with the quantization); a zero pad before an int8 conv then folds into
 * its padding (ln_pass_fold_pad). */
static int pad_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *pad = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *np;
    ln_param_entry *pe;
    ln_list *params;
    double scale, v;
    int zp, ret;

    *done = LN_FALSE;
    if (!pad || ln_pass_sole_reader(ctx, y) != q || !ln_streq(pad->op_arg->optype, "pad_cpu") ||
        !(dq = producer_of(ctx, pad, "src", "dequantize_linear_cpu")) ||
        ln_pass_tin(ctx, dq, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 || !same_qparams(ctx, dq, q) ||
        !per_tensor_s8(ctx, q, &scale, &zp))
        return 0;
    v = round_even(ln_pass_num_param(pad, "value", 0.0) / scale) + zp;
    v = v < -128 ? -128 : v > 127 ? 127 : v;
    params = ln_param_list_copy(pad->op_arg->params);
    params = ln_param_list_remove(params, "value");
    pe = ln_param_entry_create("value", LN_PARAM_NUMBER);
    ln_param_set_satu_number(pe, v);
    params = ln_param_list_append_entry(params, pe);
    np = new_op(ctx, "pad_cpu", pad->op_arg->name,
                ln_tensor_list_append(NULL, "src", ln_pass_tname_in(dq, "src")),
                ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(q, "dst")), params);
    if (!np)
        return 0;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, pad, NULL, np);
}

/* TFLite's ADD parameters for input scales s1, s2 and output scale so. */
static ln_bool add_multipliers(double s1, double s2, double so, int32_t *m)
{
    double twice = 2 * (s1 > s2 ? s1 : s2);

    return quantize_multiplier(s1 / twice, &m[0], &m[1]) &&
           quantize_multiplier(s2 / twice, &m[2], &m[3]) &&
           quantize_multiplier(twice / ((double)(1 << 20) * so), &m[4], &m[5]) &&
           m[1] <= 0 && m[3] <= 0;
}

/* Q(add(DQ(a), DQ(b)) [-> relu/clip]) -> add_s8 (TFLite's ADD), with mul
 * mul_s8 (MUL); numpy broadcasting. */
static int add_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    static const char *const pn[] = {"src1_mult", "src1_shift", "src2_mult", "src2_shift",
                                     "dst_mult", "dst_shift"};
    qchain c;
    ln_op *dqa, *dqb, *op;
    double sa, sb;
    int za, zb, ret;
    int32_t m[6];
    ln_bool is_mul;
    ln_list *params = NULL;
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *p = y ? ln_dfg_producer(ctx->dfg, y) : NULL;

    *done = LN_FALSE;
    memset(&c, 0, sizeof c);
    if (!p || ln_pass_sole_reader(ctx, y) != q || !per_tensor_s8(ctx, q, &c.y_scale, &c.y_zp) ||
        !ln_pass_tname_in(q, "zero_point"))
        return 0;
    if (ln_streq(p->op_arg->optype, "relu_cpu") || ln_streq(p->op_arg->optype, "clip_cpu")) {
        const char *x = ln_pass_tname_in(p, "src");
        c.act = p;
        p = x ? ln_dfg_producer(ctx->dfg, x) : NULL;
        if (!p || ln_pass_sole_reader(ctx, x) != c.act)
            return 0;
    }
    is_mul = ln_streq(p->op_arg->optype, "mul_cpu");
    if ((!is_mul && !ln_streq(p->op_arg->optype, "add_cpu")) ||
        !clamp_of(&c, &c.act_min, &c.act_max) ||
        !(dqa = producer_of(ctx, p, "src1", "dequantize_linear_cpu")) ||
        !(dqb = producer_of(ctx, p, "src2", "dequantize_linear_cpu")) ||
        !per_tensor_s8(ctx, dqa, &sa, &za) || !per_tensor_s8(ctx, dqb, &sb, &zb) ||
        ln_pass_tin(ctx, dqa, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_pass_tin(ctx, dqb, "src")->tensor->dtype != LN_DTYPE_INT8)
        return 0;
    if (is_mul ? !quantize_multiplier(sa * sb / c.y_scale, &m[4], &m[5])
               : !add_multipliers(sa, sb, c.y_scale, m))
        return 0;
    params = ln_param_list_append_int(params, "src1_zero_point", za);
    params = ln_param_list_append_int(params, "src2_zero_point", zb);
    params = ln_param_list_append_int(params, "dst_zero_point", c.y_zp);
    for (int i = is_mul ? 4 : 0; i < 6; i++)
        params = ln_param_list_append_int(params, pn[i], m[i]);
    params = ln_param_list_append_int(params, "act_min", c.act_min);
    params = ln_param_list_append_int(params, "act_max", c.act_max);
    op = new_op(ctx, is_mul ? "mul_s8_cpu" : "add_s8_cpu", p->op_arg->name,
                ln_tensor_list_append(ln_tensor_list_append(NULL, "src1",
                                                            ln_pass_tname_in(dqa, "src")),
                                      "src2", ln_pass_tname_in(dqb, "src")),
                ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(q, "dst")), params);
    if (!op)
        return 0;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)) ||
        (c.act && (ret = ln_context_remove_op(ctx, c.act->op_arg->name))))
        return ret;
    return ln_pass_replace_with(ctx, p, NULL, op);
}

/* Elementwise float ops of one input that a table can stand for. */
static ln_bool tabulable(const ln_op *op)
{
    static const char *const ops[] = {
        "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "erf", "exp",
        "hardswish", "log", "neg", "reciprocal", "relu", "round", "sigmoid", "sign", "sin",
        "sinh", "softplus", "softsign", "sqrt", "tan", "tanh", "celu", "elu", "hardsigmoid",
        "leakyrelu", "selu", "shrink", "thresholdedrelu", "clip", NULL};
    const char *t = op->op_arg->optype;
    size_t n = strlen(t);

    if (n < 5 || strcmp(t + n - 4, "_cpu") != 0 ||
        ln_tensor_list_length(op->op_arg->tensors_in) != 1 ||
        ln_tensor_list_length(op->op_arg->tensors_out) != 1)
        return LN_FALSE;
    for (int i = 0; ops[i]; i++)
        if (strlen(ops[i]) == n - 4 && strncmp(t, ops[i], n - 4) == 0)
            return LN_TRUE;
    return LN_FALSE;
}

/* Q(f(DQ(x))) of an elementwise f -> lut_s8(x, T): T is f run on the 256
 * dequantized int8 values and quantized, by copies of f and the Q on a
 * constant that constant folding (the next pass) turns into the table. */
static int lut_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *f = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *f2, *q2, *lut;
    ln_tensor_entry *x;
    ln_list *before = NULL, *ins = NULL;
    float vals[256];
    double sx, sy;
    int zx, zy, ret, dims[1] = {256};
    char buf[256], *fin, *fout, *tab;

    *done = LN_FALSE;
    if (!f || ln_pass_sole_reader(ctx, y) != q || !tabulable(f) ||
        !(dq = producer_of(ctx, f, "src", "dequantize_linear_cpu")) ||
        !(x = ln_pass_tin(ctx, dq, "src")) || x->tensor->dtype != LN_DTYPE_INT8 ||
        tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_pass_tin(ctx, f, "src")->tensor->dtype != LN_DTYPE_FLOAT32 ||
        !per_tensor_s8(ctx, dq, &sx, &zx) || !per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    for (int i = 0; i < 256; i++)   /* as ln_rt_dequantize_s8 computes them */
        vals[i] = (float)((int64_t)(i - 128) - zx) * (float)sx;
    snprintf(buf, sizeof buf, "%s__lut_in", f->op_arg->name);
    fin = add_const(ctx, buf, LN_DTYPE_FLOAT32, 1, dims, vals, &before);
    snprintf(buf, sizeof buf, "%s__lut_f", f->op_arg->name);
    fout = ln_pass_unique(ctx, buf);
    snprintf(buf, sizeof buf, "%s__lut", f->op_arg->name);
    tab = ln_pass_unique(ctx, buf);
    f2 = new_op(ctx, f->op_arg->optype, fout, ln_tensor_list_append(NULL, "src", fin),
                ln_tensor_list_append(NULL, "dst", fout), ln_param_list_copy(f->op_arg->params));
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, q->op_arg->tensors_in)
        ins = ln_tensor_list_append(ins, tl->arg_name, ln_streq(tl->arg_name, "src") ? fout : tl->name);
    q2 = new_op(ctx, "quantize_linear_cpu", tab, ins, ln_tensor_list_append(NULL, "dst", tab),
                ln_param_list_copy(q->op_arg->params));
    lut = new_op(ctx, "lut_s8_cpu", f->op_arg->name,
                 ln_tensor_list_append(ln_tensor_list_append(NULL, "src", x->name), "table", tab),
                 ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(q, "dst")), NULL);
    ln_free(fin);
    ln_free(fout);
    ln_free(tab);
    if (!f2 || !q2 || !lut) {
        before = ln_list_append(ln_list_append(ln_list_append(before, f2), q2), lut);
        LN_LIST_FOREACH(ln_op, o, before)
            if (o)
                ln_op_free(o);
        ln_list_free(before);
        return 0;
    }
    before = ln_list_append(ln_list_append(before, f2), q2);
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, f, before, lut);
}

/* A copy of (de)quantize op with its zero point read from zp instead. */
static ln_op *with_zero_point(const ln_context *ctx, const ln_op *op, const char *zp)
{
    ln_list *ins = NULL, *outs = NULL;

    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in)
        ins = ln_tensor_list_append(ins, tl->arg_name,
                                    ln_streq(tl->arg_name, "zero_point") ? zp : tl->name);
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out)
        outs = ln_tensor_list_append(outs, tl->arg_name, tl->name);
    return new_op(ctx, op->op_arg->optype, op->op_arg->name, ins, outs,
                  ln_param_list_copy(op->op_arg->params));
}

/* The per-tensor uint8 zero point of a (de)quantize op, -1 when it has none. */
static int zero_point_u8(ln_context *ctx, const ln_op *op)
{
    ln_tensor_entry *z = ln_pass_tin(ctx, op, "zero_point");
    ln_tensor *t;

    if (!z || !z->isstatic || z->tensor->dtype != LN_DTYPE_UINT8 || z->tensor->len != 1 ||
        ln_context_static_data(ctx, z->name, &t))
        return -1;
    return ((const uint8_t *)t->data)[0];
}

/* A uint8 activation (ONNX Runtime's default) whose Q is read only by DQs
 * of the same parameters becomes int8: Q_s8(x) with zero point z - 128 is
 * Q_u8(x) - 128 element for element, and DQ_s8 of it with z - 128 the
 * same real values; then the int8 fusions apply.  A graph input or output
 * keeps its type. */
static int u8_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    ln_tensor_entry *y = tout(ctx, q, "dst");
    ln_list *readers, *before = NULL;
    int zp = zero_point_u8(ctx, q), ret = 0;
    int8_t z8 = (int8_t)(zp - 128);
    int dims[1] = {1};
    char buf[256], *zname;
    ln_op *nq;

    *done = LN_FALSE;
    if (zp < 0 || !y || y->is_io || !per_tensor_s8_scale(ctx, q))
        return 0;
    readers = ln_dfg_nexts(ctx->dfg, q, y->name);
    LN_LIST_FOREACH(ln_op, r, readers) {
        if (!ln_streq(r->op_arg->optype, "dequantize_linear_cpu") ||
            zero_point_u8(ctx, r) != zp || !same_scale(ctx, q, r)) {
            ln_list_free(readers);
            return 0;
        }
    }
    snprintf(buf, sizeof buf, "%s__zero_point_s8", y->name);
    zname = add_const(ctx, buf, LN_DTYPE_INT8, 0, dims, &z8, &before);
    nq = with_zero_point(ctx, q, zname);
    if (!nq || (ret = ln_pass_replace_with(ctx, q, before, nq))) {
        ln_list_free(readers);
        ln_free(zname);
        return nq ? ret : 0;
    }
    *done = LN_TRUE;
    LN_LIST_FOREACH(ln_op, r, readers) {
        ln_op *nr = with_zero_point(ctx, r, zname);
        if (!nr) {
            ret = ln_error(LN_EINTERNAL, "%s: cannot make its int8 copy", r->op_arg->name);
            break;
        }
        if ((ret = ln_pass_replace_with(ctx, r, NULL, nr)))
            break;
    }
    ln_list_free(readers);
    ln_free(zname);
    return ret;
}


/* act(view(y)) -> view(act(y)) for a relu or clip (elementwise, so it
 * commutes with a view) that alone reads the view and is read by a Q
 * alone: a 1-D conv's squeeze then stands between the relu and the Q,
 * where hoist_one moves it. */
static int act_one(ln_context *ctx, ln_op *act, ln_bool *done)
{
    const char *v = ln_pass_tname_in(act, "src");
    ln_op *view = v ? ln_dfg_producer(ctx->dfg, v) : NULL, *a2, *v2;
    char buf[256], *t;
    ln_list *ins = NULL;

    ln_op *r = ln_pass_sole_reader(ctx, ln_pass_tname_out(act, "dst"));

    *done = LN_FALSE;
    if (!is_view(view) || ln_pass_sole_reader(ctx, v) != act ||
        ln_tensor_list_length(act->op_arg->tensors_in) != 1 || !r ||
        !ln_streq(r->op_arg->optype, "quantize_linear_cpu"))
        return 0;
    snprintf(buf, sizeof buf, "%s__act", ln_pass_tname_in(view, "src"));
    t = ln_pass_unique(ctx, buf);
    ins = ln_tensor_list_append(ins, "src", ln_pass_tname_in(view, "src"));
    a2 = new_op(ctx, act->op_arg->optype, act->op_arg->name, ins,
                ln_tensor_list_append(NULL, "dst", t), ln_param_list_copy(act->op_arg->params));
    v2 = new_op(ctx, view->op_arg->optype, view->op_arg->name,
                ln_tensor_list_append(NULL, "src", t),
                ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(act, "dst")),
                ln_param_list_copy(view->op_arg->params));
    ln_free(t);
    if (!a2 || !v2) {
        if (a2)
            ln_op_free(a2);
        if (v2)
            ln_op_free(v2);
        return 0;
    }
    *done = LN_TRUE;
    {
        int ret = ln_context_remove_op(ctx, act->op_arg->name);
        if (ret)
            return ret;
    }
    return ln_pass_replace_with(ctx, view, ln_list_append(NULL, a2), v2);
}

/* Q(view(y)) -> view(Q(y)) for a per-tensor Q of a view (squeeze after a
 * 1-D conv, reshape after a matmul) that only the Q reads: the Q comes
 * next to the op that computes y. */
static int hoist_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *view = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *q2, *v2;
    ln_list *ins = NULL;
    double scale;
    int zp;
    char buf[256], *tq, *qname;

    *done = LN_FALSE;
    if (!is_view(view) || ln_pass_sole_reader(ctx, y) != q || !per_tensor_s8(ctx, q, &scale, &zp) ||
        tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_pass_tin(ctx, view, "src")->tensor->dtype != LN_DTYPE_FLOAT32)
        return 0;
    snprintf(buf, sizeof buf, "%s__q", ln_pass_tname_in(view, "src"));
    tq = ln_pass_unique(ctx, buf);
    snprintf(buf, sizeof buf, "%s__q", view->op_arg->name);
    qname = ln_pass_unique(ctx, buf);
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, q->op_arg->tensors_in)
        ins = ln_tensor_list_append(ins, tl->arg_name,
                                    ln_streq(tl->arg_name, "src") ? ln_pass_tname_in(view, "src")
                                                                  : tl->name);
    q2 = new_op(ctx, "quantize_linear_cpu", qname, ins, ln_tensor_list_append(NULL, "dst", tq),
                ln_param_list_copy(q->op_arg->params));
    v2 = new_op(ctx, view->op_arg->optype, view->op_arg->name,
                ln_tensor_list_append(NULL, "src", tq),
                ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(q, "dst")),
                ln_param_list_copy(view->op_arg->params));
    ln_free(tq);
    ln_free(qname);
    if (!q2 || !v2) {
        if (q2)
            ln_op_free(q2);
        if (v2)
            ln_op_free(v2);
        return 0;
    }
    *done = LN_TRUE;
    if ((zp = ln_context_remove_op(ctx, q->op_arg->name)))
        return zp;
    return ln_pass_replace_with(ctx, view, ln_list_append(NULL, q2), v2);
}

int ln_pass_fuse_qdq(ln_context *ctx)
{
    static const char *const views[] = {"flatten_cpu", "reshape_cpu", "squeeze_cpu",
                                        "unsqueeze_cpu", "transpose_cpu", "pad_cpu", NULL};
    int (*const fuse[])(ln_context *, ln_op *, ln_bool *) = {
        requant_one, pad_one, fuse_one, pool_one, add_one, gap_one, concat_one, lut_one};
    int ret;

    if ((ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", u8_one)) ||
        (ret = ln_pass_fold_all(ctx, "relu_cpu", act_one)) ||
        (ret = ln_pass_fold_all(ctx, "clip_cpu", act_one)) ||
        (ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", hoist_one)))
        return ret;
    for (int i = 0; views[i]; i++)
        if ((ret = ln_pass_fold_all(ctx, views[i], sink_one)))
            return ret;
    for (size_t i = 0; i < sizeof fuse / sizeof fuse[0]; i++)
        if ((ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", fuse[i])))
            return ret;
    /* the DQs the fusions left unread go now: the folds that follow look
     * for sole readers */
    return ln_pass_remove_dead(ctx);
}
