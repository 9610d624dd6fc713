/*
 * ln_pass_qdq.c -- QDQ models to int8 ops.
 *
 * A QDQ model (what ONNX Runtime's quantizer and PyTorch's quantized
 * export write) keeps float ops between DequantizeLinear and
 * QuantizeLinear:
 *
 *   x_q -> DQ -> conv2d/gemm/matmul (weight DQ(w_q), bias DQ(b_q)) [-> relu/clip] -> Q -> y_q
 *
 * (a matmul's bias: an Add of one constant per output column after it)
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
 * made int8 first where that changes nothing (ln_qdq_u8_one).  A
 * per-tensor DQ before a view (flatten, reshape, squeeze, unsqueeze,
 * transpose) moves after it first, so that the view works on the int8
 * tensor, and a Q after a view moves before it.  Then a Q(DQ(x)) of equal
 * parameters goes (of other parameters: requantize_s8), DQ -> max/average
 * pool -> Q of equal parameters becomes the pool on int8, DQ x2 -> Add/Mul
 * [-> Relu] -> Q an add_s8/mul_s8 (TFLite's ADD/MUL, broadcasting), DQ ->
 * GlobalAveragePool -> Q a global_avgpool_s8, DQ... -> Concat -> Q a
 * concat of int8 tensors (the inputs of other parameters requantized), DQ
 * -> an elementwise function -> Q a table lookup (lut_s8), DQ -> Pad -> Q
 * of one scale a pad on int8.  The int8 result differs from the float path
 * only in rounding: at most a step or two of the output scale.
 *
 * Written as a pass beside fold_batchnorm rather than as combiner rules:
 * the rewrite computes new constants from the matched ones, which the
 * optimizer descriptions cannot express yet.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ln_pass.h"
#include "ln_pass_impl.h"
#include "ln_pass_qdq_impl.h"

ln_bool ln_qdq_is_view(const ln_op *op)
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
ln_op *ln_qdq_new_op(const ln_context *ctx, const char *optype, const char *name, ln_list *ins,
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
ln_op *ln_qdq_producer_of(const ln_context *ctx, const ln_op *op, const char *arg,
                                 const char *optype)
{
    const char *n = ln_pass_tname_in(op, arg);
    ln_op *p = n ? ln_dfg_producer(ctx->dfg, n) : NULL;
    return p && ln_streq(p->op_arg->optype, optype) ? p : NULL;
}

ln_tensor_entry *ln_qdq_tout(const ln_context *ctx, const ln_op *op, const char *arg)
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
ln_bool ln_qdq_per_tensor_s8(ln_context *ctx, const ln_op *op, double *scale, int *zp)
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
double ln_qdq_round_even(double v)
{
    double r = floor(v + 0.5);
    if (r - v == 0.5 && fmod(r, 2.0) != 0.0)
        r -= 1.0;
    return r;
}

/* The output clamp of the relu/clip between the op and the Q. */
/* The clamp of one relu/clip act at c's output parameters, narrowing
 * [*lo, *hi]; LN_FALSE when its bounds come at run time. */
static ln_bool clamp_one(const qchain *c, const ln_op *act, int *lo, int *hi)
{
    double a, b;

    if (ln_streq(act->op_arg->optype, "relu_cpu")) {
        if (c->y_zp > *lo)
            *lo = c->y_zp;
        return LN_TRUE;
    }
    if (ln_pass_tname_in(act, "min_t") || ln_pass_tname_in(act, "max_t"))
        return LN_FALSE;
    a = ln_qdq_round_even(ln_pass_num_param(act, "min", -INFINITY) / c->y_scale) + c->y_zp;
    b = ln_qdq_round_even(ln_pass_num_param(act, "max", INFINITY) / c->y_scale) + c->y_zp;
    if (a > *lo)
        *lo = a > 127 ? 127 : (int)a;
    if (b < *hi)
        *hi = b < -128 ? -128 : (int)b;
    return LN_TRUE;
}

/* The output clamp of the relu/clip (one or two in a row: their bounds
 * intersect, which is what applying both does when they overlap) between
 * the op and the Q; LN_FALSE when it is empty or not constant. */
ln_bool ln_qdq_clamp_of(const qchain *c, int *lo, int *hi)
{
    *lo = -128;
    *hi = 127;
    if (c->act && !clamp_one(c, c->act, lo, hi))
        return LN_FALSE;
    if (c->act2 && !clamp_one(c, c->act2, lo, hi))
        return LN_FALSE;
    return *lo <= *hi;
}

/* Add(matmul(x, w), b) where b is one value per output column ([N], [1,
 * N], ...) and the sum keeps the matmul's shape: the matmul's bias, as
 * PyTorch's Linear on a 3-D input and TensorFlow's Dense export it.  The
 * matmul, with c->badd, c->bias and c->bias_arg set; NULL when not. */
static ln_op *matmul_bias_add(ln_context *ctx, qchain *c, ln_op *add)
{
    static const char *const args[] = {"src1", "src2"};

    for (int i = 0; i < 2; i++) {
        const char *mn = ln_pass_tname_in(add, args[i]), *bn = ln_pass_tname_in(add, args[1 - i]);
        ln_op *mm = mn ? ln_dfg_producer(ctx->dfg, mn) : NULL;
        const ln_tensor *m, *b, *y;

        if (!mm || !bn || !ln_streq(mm->op_arg->optype, "matmul_cpu") ||
            ln_pass_sole_reader(ctx, mn) != add)
            continue;
        m = ln_pass_tin(ctx, add, args[i])->tensor;
        b = ln_pass_tin(ctx, add, args[1 - i])->tensor;
        y = ln_qdq_tout(ctx, add, "dst")->tensor;
        if (m->ndim < 2 || y->ndim != m->ndim || y->len != m->len ||
            b->len != (size_t)m->dims[m->ndim - 1] || b->ndim < 1 || b->ndim > m->ndim ||
            b->dims[b->ndim - 1] != m->dims[m->ndim - 1])
            continue;
        c->badd = add;
        c->bias = bn;
        c->bias_arg = args[1 - i];
        return mm;
    }
    return NULL;
}

/* Find the chain ending in quantize op q; LN_FALSE when it is not one. */
static ln_bool match(ln_context *ctx, ln_op *q, qchain *c)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *p = y ? ln_dfg_producer(ctx->dfg, y) : NULL;
    const char *t;

    memset(c, 0, sizeof *c);
    c->q = q;
    if (!p || ln_pass_sole_reader(ctx, y) != q ||
        !ln_qdq_per_tensor_s8(ctx, q, &c->y_scale, &c->y_zp) ||
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
        if (ln_streq(t, "relu_cpu") || ln_streq(t, "clip_cpu")) {
            x = ln_pass_tname_in(p, "src");
            c->act2 = p;
            p = x ? ln_dfg_producer(ctx->dfg, x) : NULL;
            if (!p || ln_pass_sole_reader(ctx, x) != c->act2)
                return LN_FALSE;
            t = p->op_arg->optype;
        }
    }
    if (ln_streq(t, "add_cpu") && !(p = matmul_bias_add(ctx, c, p)))
        return LN_FALSE;
    t = p->op_arg->optype;
    c->op = p;
    c->kind = ln_streq(t, "gemm_cpu") ? 1 : ln_streq(t, "matmul_cpu") ? 2
              : ln_streq(t, "conv2d_cpu") || ln_streq(t, "conv2d_dw_cpu") ? 0 : -1;
    if (c->kind < 0 || !ln_streq(ln_pass_str_param(p, "activation", "none"), "none"))
        return LN_FALSE;
    if (c->kind == 1 && (ln_pass_num_param(p, "trans_a", 0) != 0 ||
                         ln_pass_num_param(p, "alpha", 1) != 1 ||
                         ln_pass_num_param(p, "beta", 1) != 1))
        return LN_FALSE;
    c->trans_b = c->kind == 1 ? (int)ln_pass_num_param(p, "trans_b", 0) : c->kind == 0;
    c->dqx = ln_qdq_producer_of(ctx, p, c->kind == 2 ? "src1" : "src", "dequantize_linear_cpu");
    c->dqw = ln_qdq_producer_of(ctx, p, c->kind == 2 ? "src2" : "weight", "dequantize_linear_cpu");
    if (!c->dqw && c->kind == 0) {
        const char *wn = ln_pass_tname_in(p, c->kind == 2 ? "src2" : "weight");
        ln_op *v = wn ? ln_dfg_producer(ctx->dfg, wn) : NULL;
        if (ln_qdq_is_view(v) && !ln_streq(v->op_arg->optype, "transpose_cpu")) {
            c->dqw = ln_qdq_producer_of(ctx, v, "src", "dequantize_linear_cpu");
            c->wview = LN_TRUE;
        }
    }
    if (!c->dqx || !c->dqw || !ln_qdq_per_tensor_s8(ctx, c->dqx, &c->x_scale, &c->x_zp) ||
        ln_pass_tin(ctx, c->dqx, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        !(ln_pass_tin(ctx, c->dqx, "src")->tensor->ndim == (c->kind ? 2 : 4) ||
          (c->kind == 2 && ln_pass_tin(ctx, c->dqx, "src")->tensor->ndim > 2)) ||
        !is_static(ctx, c->dqw, "src") || !is_static(ctx, c->dqw, "scale") ||
        ln_pass_tin(ctx, c->dqw, "src")->tensor->dtype != LN_DTYPE_INT8)
        return LN_FALSE;
    if (c->kind != 2)
        c->bias = ln_pass_tname_in(p, "bias");
    if (c->bias) {
        const char *barg = c->badd ? c->bias_arg : "bias";
        ln_op *bop = c->badd ? c->badd : p;
        ln_tensor_entry *b = ln_pass_tin(ctx, bop, barg);
        c->dqb = ln_qdq_producer_of(ctx, bop, barg, "dequantize_linear_cpu");
        if (!(b->isstatic && b->tensor->dtype == LN_DTYPE_FLOAT32) &&
            !(c->dqb && is_static(ctx, c->dqb, "src") && is_static(ctx, c->dqb, "scale") &&
              ln_pass_tin(ctx, c->dqb, "src")->tensor->dtype == LN_DTYPE_INT32))
            return LN_FALSE;
        if (b->isstatic)
            c->dqb = NULL;
    }
    return ln_qdq_clamp_of(c, &c->act_min, &c->act_max);
}

/* The multiplier m as mult * 2^(shift - 31) for TFLite's requantization
 * (a rounding doubling high multiply by mult, then a rounding right shift
 * by -shift when shift < 0): TFLite's QuantizeMultiplier (mult in [2^30,
 * 2^31)) but for 2^-11 <= m < 1, which is mult = m * 2^31 rounded and
 * shift 0.  There TFLite's form rounds twice, and the first rounding
 * moves about 2^(shift-1) of the results a step off the once-rounded
 * value (0.1-3% of a layer's outputs, which then travel through a deep
 * network: MobileNetV1 ended 5 steps from ONNX Runtime); with shift 0 the
 * kernel rounds once, and the multiplier's 31-bit rounding moves a result
 * whose real value v = x * m is at most 256 only when v lies within
 * |x| / 2^32 <= 2^-24 / m <= 2^-13 of a half: rarely (tests/quant/ort_ties.py
 * found one such element, 2.4e-7 below a tie, in MobileNetV2's first conv
 * over 3 inputs; within TFLite's fixed-point precision either way).  Below
 * 2^-11 TFLite's form is the better one (fewer than 2^-12 of results
 * move).  The kernels are TFLite's either way; the TFLite reference
 * vectors carry their own multipliers.  LN_FALSE when m is out of the
 * kernels' range, or when a left shift (m >= 1) could overflow the int32
 * value it is applied to, of which bound is the largest magnitude (the
 * kernels shift it left first, wrapping as TFLite's int32 arithmetic
 * does: a degenerate output range, all zeros in calibration, gives such
 * multipliers). */
ln_bool ln_qdq_quantize_multiplier(double m, double bound, int32_t *mult, int32_t *shift)
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
    if (e > 30 || (e > 0 && ldexp(bound, e) >= 2147483647.0))
        return LN_FALSE;
    *mult = (int32_t)q;
    *shift = e;
    if (e <= 0 && e >= -10) {       /* 2^-11 <= m < 1: round once */
        long long q0 = llround(ldexp(m, 31));
        if (q0 < 2147483648LL) {
            *mult = (int32_t)q0;
            *shift = 0;
        }
    }
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

    if (ln_context_static_data(ctx, c->dqb ? ln_pass_tname_in(c->dqb, "src") : c->bias, &t) ||
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
        v = ln_qdq_round_even(v / want);
        if (!(fabs(v) < 2147483647.0))
            return LN_FALSE;
        b[o] = (int32_t)v;
    }
    return LN_TRUE;
}

/* A new int32 (int8) constant of dims and its create op appended to *before. */
char *ln_qdq_add_const(ln_context *ctx, const char *prefix, ln_dtype dt, int ndim, const int *dims,
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

/* A reshape of tensor src to dims into a new tensor (its name: *dst, the
 * caller frees), appended to *ops; LN_FALSE when the build lacks it. */
static ln_bool add_reshape(ln_context *ctx, const char *src, int ndim, const int *dims,
                           char **dst, ln_list **ops)
{
    char prefix[256], *name;
    ln_op *op;

    snprintf(prefix, sizeof prefix, "%s__%dd", src, ndim);
    *dst = ln_pass_unique(ctx, prefix);
    name = ln_pass_unique(ctx, prefix);
    op = ln_qdq_new_op(ctx, "reshape_cpu", name, ln_tensor_list_append(NULL, "src", src),
                       ln_tensor_list_append(NULL, "dst", *dst),
                       ln_param_list_append_array_int(NULL, "dims", ndim, dims));
    ln_free(name);
    if (op)
        *ops = ln_list_append(*ops, op);
    return op != NULL;
}

/* The int8 op of chain c, with the constants it needs in *before; NULL
 * when a scale or the bias does not fit the kernels.  A matmul of more
 * than two input dims (PyTorch's Linear on [B, T, K]) runs as fc_s8 on
 * the rows: a reshape to [B*T, K] goes last into *before, and the op
 * returned is the reshape of fc_s8's [B*T, N] to the matmul's dims, with
 * fc_s8 in *before before it. */
static ln_op *int8_op(ln_context *ctx, const qchain *c, ln_list **before)
{
    static const char *const conv_params[] = {"group", "stride", "dilation", "pads",
                                              "auto_pad", "kernel_shape", NULL};
    ln_tensor *w;
    int n, wzp = 0, ok, dims[2];
    double *ws = NULL, acc_bound;
    int32_t *mult = NULL, *shift = NULL, *bias = NULL;
    int8_t *wt = NULL;
    char prefix[256], *names[4] = {NULL, NULL, NULL, NULL};
    ln_list *ins = NULL, *params = NULL;
    ln_op *op = NULL;
    const char *wname = ln_pass_tname_in(c->dqw, "src"), *xname;
    char *x2d = NULL, *y2d = NULL;
    const ln_tensor *x, *wshape = ln_pass_tin(ctx, c->op, c->kind == 2 ? "src2" : "weight")->tensor;

    if (ln_context_static_data(ctx, wname, &w) || wshape->ndim != (c->kind ? 2 : 4) ||
        w->len != wshape->len || (c->wview && w->dims[0] != wshape->dims[0]))
        return NULL;
    n = wshape->dims[c->trans_b ? 0 : 1];
    ws = ln_alloc(sizeof *ws * (size_t)n);
    mult = ln_alloc(sizeof *mult * (size_t)n);
    shift = ln_alloc(sizeof *shift * (size_t)n);
    bias = ln_alloc(sizeof *bias * (size_t)n);
    ok = weight_scales(ctx, c, n, ws, &wzp) &&
         (!c->bias || bias_s8(ctx, c, n, ws, bias));
    /* the accumulator's bound: K products of 9-bit offsets, the bias */
    acc_bound = (double)w->len / n * 255.0 * 255.0;
    if (ok && c->bias)
        for (int o = 0; o < n; o++)
            acc_bound = fmax(acc_bound, (double)w->len / n * 255.0 * 255.0 + fabs((double)bias[o]));
    for (int o = 0; ok && o < n; o++)
        ok = ln_qdq_quantize_multiplier(c->x_scale * ws[o] / c->y_scale, acc_bound, &mult[o],
                                        &shift[o]);
    if (ok) {
        snprintf(prefix, sizeof prefix, "%s__mult", c->op->op_arg->name);
        names[0] = ln_qdq_add_const(ctx, prefix, LN_DTYPE_INT32, 1, &n, mult, before);
        snprintf(prefix, sizeof prefix, "%s__shift", c->op->op_arg->name);
        names[1] = ln_qdq_add_const(ctx, prefix, LN_DTYPE_INT32, 1, &n, shift, before);
        if (c->bias) {
            snprintf(prefix, sizeof prefix, "%s__bias_s32", c->op->op_arg->name);
            names[2] = ln_qdq_add_const(ctx, prefix, LN_DTYPE_INT32, 1, &n, bias, before);
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
            names[3] = ln_qdq_add_const(ctx, prefix, LN_DTYPE_INT8, 2, dims, wt, before);
            wname = names[3];
        } else if (c->wview) {  /* the view's shape, the same bytes */
            snprintf(prefix, sizeof prefix, "%s__weight", c->op->op_arg->name);
            names[3] = ln_qdq_add_const(ctx, prefix, LN_DTYPE_INT8, wshape->ndim, wshape->dims,
                                        w->data,
                                        before);
            wname = names[3];
        }
        xname = ln_pass_tname_in(c->dqx, "src");
        x = ln_pass_tin(ctx, c->dqx, "src")->tensor;
        if (c->kind == 2 && x->ndim > 2) {  /* matmul rows: [..., K] -> [rows, K] */
            int d2[2] = {(int)(x->len / (size_t)x->dims[x->ndim - 1]), x->dims[x->ndim - 1]};
            if (!add_reshape(ctx, xname, 2, d2, &x2d, before))
                goto out;
            xname = x2d;
            y2d = ln_pass_unique(ctx, ln_pass_tname_out(c->q, "dst"));
        }
        ins = ln_tensor_list_append(ins, "src", xname);
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
        op = ln_qdq_new_op(ctx, c->kind ? "fc_s8_cpu" : "conv2d_s8_cpu", c->op->op_arg->name, ins,
                           ln_tensor_list_append(NULL, "dst",
                                                 y2d ? y2d : ln_pass_tname_out(c->q, "dst")),
                           params);
        if (op && y2d) {        /* [rows, N] -> the matmul's dims */
            const ln_tensor *y = ln_qdq_tout(ctx, c->q, "dst")->tensor;
            char *name;

            *before = ln_list_append(*before, op);
            snprintf(prefix, sizeof prefix, "%s__nd", c->op->op_arg->name);
            name = ln_pass_unique(ctx, prefix);
            op = ln_qdq_new_op(ctx, "reshape_cpu", name, ln_tensor_list_append(NULL, "src", y2d),
                               ln_tensor_list_append(NULL, "dst", ln_pass_tname_out(c->q, "dst")),
                               ln_param_list_append_array_int(NULL, "dims", y->ndim, y->dims));
            ln_free(name);
        }
    }
out:
    ln_free(x2d);
    ln_free(y2d);
    for (int i = 0; i < 4; i++)
        ln_free(names[i]);
    ln_free(ws);
    ln_free(mult);
    ln_free(shift);
    ln_free(bias);
    ln_free(wt);
    return op;
}

/* The int8 op's weight (per output channel along its axis 0) and int32
 * bias (at x_scale * its weight's scale) carry their quantization. */
static void note_consts(ln_context *ctx, const qchain *c, const ln_op *op)
{
    ln_tensor_entry *m = ln_pass_tin(ctx, op, "mult");
    const char *w = ln_pass_tname_in(op, "weight"), *b = ln_pass_tname_in(op, "bias");
    int n = m ? (int)m->tensor->len : 0, wzp = 0;
    double *ws = ln_alloc(sizeof *ws * (size_t)(n ? n : 1));
    float *s = ln_alloc(sizeof *s * (size_t)(n ? n : 1));
    int32_t *z = ln_alloc(sizeof *z * (size_t)(n ? n : 1));

    if (n && weight_scales(ctx, c, n, ws, &wzp)) {
        for (int o = 0; o < n; o++) {
            s[o] = (float)ws[o];
            z[o] = wzp;
        }
        if (w && ln_context_set_quant(ctx, w, n, 0, s, z))
            ln_error_clear();
        for (int o = 0; o < n; o++) {
            s[o] = (float)(c->x_scale * ws[o]);
            z[o] = 0;
        }
        if (b && ln_context_set_quant(ctx, b, n, 0, s, z))
            ln_error_clear();
    }
    ln_free(ws);
    ln_free(s);
    ln_free(z);
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
        (c.act2 && (ret = ln_context_remove_op(ctx, c.act2->op_arg->name))) ||
        (c.badd && (ret = ln_context_remove_op(ctx, c.badd->op_arg->name))) ||
        (ret = ln_pass_replace_with(ctx, c.op, before, op)))
        return ret;
    note_consts(ctx, &c, op);
    *done = LN_TRUE;
    return 0;
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

ln_bool ln_qdq_per_tensor_s8_scale(ln_context *ctx, const ln_op *op)
{
    double s;
    return scale_of(ctx, op, &s);
}

ln_bool ln_qdq_same_scale(ln_context *ctx, const ln_op *a, const ln_op *b)
{
    double sa, sb;
    return scale_of(ctx, a, &sa) && scale_of(ctx, b, &sb) && fabs(sa - sb) <= 1e-6 * sa;
}

/* Do two per-tensor int8 (de)quantize ops have the same scale and zero
 * point (to float precision)? */
ln_bool ln_qdq_same_qparams(ln_context *ctx, const ln_op *a, const ln_op *b)
{
    double sa, sb;
    int za, zb;

    return ln_qdq_per_tensor_s8(ctx, a, &sa, &za) && ln_qdq_per_tensor_s8(ctx, b, &sb, &zb) &&
           za == zb &&
           fabs(sa - sb) <= 1e-6 * sa;
}

/* A requantize_s8 (or global_avgpool_s8) op name: x (int8, zero point
 * zx) -> y at real multiplier m, zero point zy, the value requantized at
 * most bound in magnitude; NULL when m is out of the kernels' range. */
ln_op *ln_qdq_requant_op(ln_context *ctx, const char *optype, const char *name, const char *x,
                         const char *y, double m, double bound, int zx, int zy)
{
    int32_t mult, shift;
    ln_list *params = NULL;

    if (!ln_qdq_quantize_multiplier(m, bound, &mult, &shift))
        return NULL;
    params = ln_param_list_append_int(params, "src_zero_point", zx);
    params = ln_param_list_append_int(params, "dst_zero_point", zy);
    params = ln_param_list_append_int(params, "mult", mult);
    params = ln_param_list_append_int(params, "shift", shift);
    return ln_qdq_new_op(ctx, optype, name, ln_tensor_list_append(NULL, "src", x),
                         ln_tensor_list_append(NULL, "dst", y), params);
}

/* The quantized side of a QuantizeLinear (its output) or DequantizeLinear
 * (its input) carries the op's constant scale and zero point, per tensor
 * or along its axis: the int8 ops that replace the chains write and read
 * those same tensors.  Never changes the graph. */
static int note_one(ln_context *ctx, ln_op *op, ln_bool *done)
{
    ln_bool dq = ln_streq(op->op_arg->optype, "dequantize_linear_cpu");
    const char *x = dq ? ln_pass_tname_in(op, "src") : ln_pass_tname_out(op, "dst");
    const char *sn = ln_pass_tname_in(op, "scale"), *zn = ln_pass_tname_in(op, "zero_point");
    ln_tensor_entry *se = ln_pass_tin(ctx, op, "scale"), *ze = ln_pass_tin(ctx, op, "zero_point");
    ln_tensor *st, *zt = NULL;
    float *s;
    int32_t *z;
    int n;

    *done = LN_FALSE;
    if (!x || !se || !se->isstatic || (ze && !ze->isstatic) ||
        ln_context_static_data(ctx, sn, &st) || st->dtype != LN_DTYPE_FLOAT32 ||
        (zn && (ln_context_static_data(ctx, zn, &zt) || zt->len != st->len))) {
        ln_error_clear();
        return 0;
    }
    n = (int)st->len;
    s = ln_alloc(sizeof *s * (size_t)n);
    z = ln_alloc(sizeof *z * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[i] = ((const float *)st->data)[i];
        z[i] = !zt ? 0 : zt->dtype == LN_DTYPE_INT8 ? ((const int8_t *)zt->data)[i]
             : zt->dtype == LN_DTYPE_UINT8 ? ((const uint8_t *)zt->data)[i]
             : zt->dtype == LN_DTYPE_INT16 ? ((const int16_t *)zt->data)[i]
             : zt->dtype == LN_DTYPE_INT32 ? ((const int32_t *)zt->data)[i] : 0;
    }
    if (ln_context_set_quant(ctx, x, n, (int)ln_pass_num_param(op, "axis", 1), s, z))
        ln_error_clear();      /* float (a Q to float is no quantization) */
    ln_free(s);
    ln_free(z);
    return 0;
}

int ln_pass_fuse_qdq(ln_context *ctx)
{
    static const char *const views[] = {"flatten_cpu", "reshape_cpu", "squeeze_cpu",
                                        "unsqueeze_cpu", "transpose_cpu", "pad_cpu", NULL};
    int (*const fuse[])(ln_context *, ln_op *, ln_bool *) = {
        ln_qdq_requant_one, ln_qdq_pad_one, fuse_one,          ln_qdq_pool_one,
        ln_qdq_add_one,     ln_qdq_gap_one, ln_qdq_concat_one, ln_qdq_lut_one,
        ln_qdq_softmax_one};
    int ret;

    /* the Qs move first: u8_one puts a new zero point's create op right
     * before its Q, which must not move above it afterwards */
    if ((ret = ln_pass_fold_all(ctx, "relu_cpu", ln_qdq_act_one)) ||
        (ret = ln_pass_fold_all(ctx, "clip_cpu", ln_qdq_act_one)) ||
        (ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", ln_qdq_hoist_one)) ||
        (ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", ln_qdq_u8_one)))
        return ret;
    for (int i = 0; views[i]; i++)
        if ((ret = ln_pass_fold_all(ctx, views[i], ln_qdq_sink_one)))
            return ret;
    if ((ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", note_one)) ||
        (ret = ln_pass_fold_all(ctx, "dequantize_linear_cpu", note_one)))
        return ret;
    for (size_t i = 0; i < sizeof fuse / sizeof fuse[0]; i++)
        if ((ret = ln_pass_fold_all(ctx, "quantize_linear_cpu", fuse[i])))
            return ret;
    /* a concat's requantized inputs have its output's parameters */
    ln_context_apply_quant(ctx);
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ln_tensor_entry *y = ln_qdq_tout(ctx, op, "dst");
        if (!ln_streq(op->op_arg->optype, "concat_cpu") || !y || y->tensor->quant_count != 1)
            continue;
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
            ln_tensor_entry *x = ln_tensor_table_find(ctx->tensor_table, tl->name);
            if (x && x->tensor->dtype == y->tensor->dtype && x->tensor->quant_count == 0 &&
                ln_context_set_quant(ctx, x->name, 1, 0, y->tensor->scales,
                                     y->tensor->zero_points))
                ln_error_clear();
        }
    }
    /* the DQs the fusions left unread go now: the folds that follow look
     * for sole readers */
    return ln_pass_remove_dead(ctx);
}
