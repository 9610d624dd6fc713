/*
 * ln_pass_qdq_ops.c -- the QDQ rewrites beside the conv/gemm chains
 * (ln_pass_qdq.c has the overview): requantization, pools, pads, add and
 * mul, global average pooling, concat, functions by table, softmax,
 * uint8 activations, and the moves of DQ / Q / relu across views.  Each
 * is a fold for ln_pass_fold_all.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ln_pass.h"
#include "ln_pass_impl.h"
#include "ln_pass_qdq_impl.h"

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

int ln_qdq_sink_one(ln_context *ctx, ln_op *view, ln_bool *done)
{
    ln_op *dq = ln_qdq_producer_of(ctx, view, "src", "dequantize_linear_cpu"), *v2, *dq2;
    ln_bool is_pad = ln_streq(view->op_arg->optype, "pad_cpu");
    ln_tensor_entry *x;
    ln_list *ins = NULL;
    double scale;
    int zp;
    char buf[256], *tq, *dqname;
    const char *zn;

    ln_list *vparams = NULL;

    *done = LN_FALSE;
    if (!dq || !ln_qdq_per_tensor_s8(ctx, dq, &scale, &zp) || !(x = ln_pass_tin(ctx, dq, "src")) ||
        x->isstatic || x->tensor->dtype != LN_DTYPE_INT8)
        return 0;
    if (is_pad && ln_pass_tname_in(view, "value_t"))
        return 0;           /* its constant comes at run time, in float */
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
    v2 = ln_qdq_new_op(ctx, is_pad ? "identity_cpu" : view->op_arg->optype, view->op_arg->name,
                       ln_tensor_list_append(NULL, "src", x->name),
                       ln_tensor_list_append(NULL, "dst", tq),
                       vparams);
    ins = ln_tensor_list_append(ln_tensor_list_append(ins, "src", tq), "scale",
                                ln_pass_tname_in(dq, "scale"));
    if ((zn = ln_pass_tname_in(dq, "zero_point")))
        ins = ln_tensor_list_append(ins, "zero_point", zn);
    dq2 = ln_qdq_new_op(ctx, "dequantize_linear_cpu", dqname, ins,
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

/* Q(DQ(x)) with the same parameters is x: its readers read x; with other
 * parameters a requantize_s8. */
int ln_qdq_requant_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    ln_op *dq = ln_qdq_producer_of(ctx, q, "src", "dequantize_linear_cpu"), *op;
    ln_tensor_entry *x = dq ? ln_pass_tin(ctx, dq, "src") : NULL, *y;
    double sx, sy;
    int zx, zy;

    *done = LN_FALSE;
    y = ln_qdq_tout(ctx, q, "dst");
    if (!x || !y || x->tensor->dtype != LN_DTYPE_INT8 || y->tensor->dtype != LN_DTYPE_INT8 ||
        !ln_qdq_per_tensor_s8(ctx, dq, &sx, &zx) || !ln_qdq_per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    if (ln_qdq_same_qparams(ctx, dq, q) && !y->is_io) {
        *done = LN_TRUE;
        return ln_pass_bypass(ctx, q, y->name, x->name);
    }
    if (ln_qdq_same_qparams(ctx, dq, q) ||
        !(op = ln_qdq_requant_op(ctx, "requantize_s8_cpu", q->op_arg->name, x->name, y->name,
                                 sx / sy, 255.0, zx, zy)))
        return 0;
    *done = LN_TRUE;
    return ln_pass_replace_with(ctx, q, NULL, op);
}

/* Q(GlobalAveragePool(DQ(x))) -> global_avgpool_s8: the plane's sum at
 * real multiplier sx / (sy * plane size). */
int ln_qdq_gap_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *pool = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *op;
    ln_tensor_entry *x;
    double sx, sy, hw;
    int zx, zy, ret;

    *done = LN_FALSE;
    if (!pool || ln_pass_sole_reader(ctx, y) != q ||
        !ln_streq(pool->op_arg->optype, "globalavgpool_cpu") ||
        !(dq = ln_qdq_producer_of(ctx, pool, "src", "dequantize_linear_cpu")) ||
        !(x = ln_pass_tin(ctx, dq, "src")) || x->tensor->dtype != LN_DTYPE_INT8 ||
        x->tensor->ndim < 3 || ln_qdq_tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        !ln_qdq_per_tensor_s8(ctx, dq, &sx, &zx) || !ln_qdq_per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    hw = (double)x->tensor->len / ((double)x->tensor->dims[0] * x->tensor->dims[1]);
    if (!(hw >= 1) || hw * 255.0 > 2147483647.0 ||
        !(op = ln_qdq_requant_op(ctx, "global_avgpool_s8_cpu", pool->op_arg->name, x->name,
                                 ln_pass_tname_out(q, "dst"), sx / (sy * hw), hw * 255.0, zx,
                                 zy)))
        return 0;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, pool, NULL, op);
}

/* Q(Concat(DQ(a), DQ(b), ...)) -> Concat on int8, an input of other
 * parameters than the output's requantized first. */
int ln_qdq_concat_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *cat = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *op;
    ln_list *ins = NULL, *before = NULL;
    double sy;
    int zy, ret;

    *done = LN_FALSE;
    if (!cat || ln_pass_sole_reader(ctx, y) != q || !ln_streq(cat->op_arg->optype, "concat_cpu") ||
        ln_qdq_tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        !ln_qdq_per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, cat->op_arg->tensors_in) {
        ln_op *dq = ln_qdq_producer_of(ctx, cat, tl->arg_name, "dequantize_linear_cpu");
        ln_tensor_entry *x = dq ? ln_pass_tin(ctx, dq, "src") : NULL;
        double sx;
        int zx;
        if (!x || x->tensor->dtype != LN_DTYPE_INT8 || !ln_qdq_per_tensor_s8(ctx, dq, &sx, &zx))
            goto refuse;
        if (ln_qdq_same_qparams(ctx, dq, q)) {
            ins = ln_tensor_list_append(ins, tl->arg_name, x->name);
        } else {
            char buf[256], *t, *n;
            ln_op *rq;
            snprintf(buf, sizeof buf, "%s__requant", x->name);
            t = ln_pass_unique(ctx, buf);
            snprintf(buf, sizeof buf, "%s_requant", dq->op_arg->name);
            n = ln_pass_unique(ctx, buf);
            rq = ln_qdq_requant_op(ctx, "requantize_s8_cpu", n, x->name, t, sx / sy, 255.0, zx, zy);
            ins = ln_tensor_list_append(ins, tl->arg_name, t);
            ln_free(t);
            ln_free(n);
            if (!rq)
                goto refuse;
            before = ln_list_append(before, rq);
        }
    }
    op = ln_qdq_new_op(ctx, "concat_cpu", cat->op_arg->name, ins,
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
int ln_qdq_pool_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *pool = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *np;
    double scale;
    int zp, ret;

    *done = LN_FALSE;
    if (!pool || ln_pass_sole_reader(ctx, y) != q ||
        !(ln_streq(pool->op_arg->optype, "maxpool2d_cpu") ||
          ln_streq(pool->op_arg->optype, "avgpool2d_cpu")) ||
        !(dq = ln_qdq_producer_of(ctx, pool, "src", "dequantize_linear_cpu")) ||
        ln_pass_tin(ctx, dq, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_qdq_tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        !ln_qdq_same_qparams(ctx, dq, q) ||
        !ln_qdq_per_tensor_s8(ctx, q, &scale, &zp))
        return 0;
    if (ln_streq(pool->op_arg->optype, "avgpool2d_cpu") && zp != 0 &&
        ln_pass_num_param(pool, "count_include_pad", 0) != 0)
        return 0;
    np = ln_qdq_new_op(ctx, pool->op_arg->optype, pool->op_arg->name,
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
int ln_qdq_pad_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *pad = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *np;
    ln_param_entry *pe;
    ln_list *params;
    double scale, v;
    int zp, ret;

    *done = LN_FALSE;
    if (!pad || ln_pass_sole_reader(ctx, y) != q || !ln_streq(pad->op_arg->optype, "pad_cpu") ||
        ln_pass_tname_in(pad, "value_t") ||
        !(dq = ln_qdq_producer_of(ctx, pad, "src", "dequantize_linear_cpu")) ||
        ln_pass_tin(ctx, dq, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_qdq_tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        !ln_qdq_same_qparams(ctx, dq, q) ||
        !ln_qdq_per_tensor_s8(ctx, q, &scale, &zp))
        return 0;
    v = ln_qdq_round_even(ln_pass_num_param(pad, "value", 0.0) / scale) + zp;
    v = v < -128 ? -128 : v > 127 ? 127 : v;
    params = ln_param_list_copy(pad->op_arg->params);
    params = ln_param_list_remove(params, "value");
    pe = ln_param_entry_create("value", LN_PARAM_NUMBER);
    ln_param_set_satu_number(pe, v);
    params = ln_param_list_append_entry(params, pe);
    np = ln_qdq_new_op(ctx, "pad_cpu", pad->op_arg->name,
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

    double in = 255.0 * (1 << 20);     /* an offset input shifted left by 20 */

    return ln_qdq_quantize_multiplier(s1 / twice, in, &m[0], &m[1]) &&
           ln_qdq_quantize_multiplier(s2 / twice, in, &m[2], &m[3]) &&
           ln_qdq_quantize_multiplier(twice / ((double)(1 << 20) * so), in, &m[4], &m[5]) &&
           m[1] <= 0 && m[3] <= 0;
}

/* Q(add(DQ(a), DQ(b)) [-> relu/clip]) -> add_s8 (TFLite's ADD), with mul
 * mul_s8 (MUL); numpy broadcasting. */
int ln_qdq_add_one(ln_context *ctx, ln_op *q, ln_bool *done)
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
    if (!p || ln_pass_sole_reader(ctx, y) != q ||
        !ln_qdq_per_tensor_s8(ctx, q, &c.y_scale, &c.y_zp) ||
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
        !ln_qdq_clamp_of(&c, &c.act_min, &c.act_max) ||
        !(dqa = ln_qdq_producer_of(ctx, p, "src1", "dequantize_linear_cpu")) ||
        !(dqb = ln_qdq_producer_of(ctx, p, "src2", "dequantize_linear_cpu")) ||
        !ln_qdq_per_tensor_s8(ctx, dqa, &sa, &za) || !ln_qdq_per_tensor_s8(ctx, dqb, &sb, &zb) ||
        ln_pass_tin(ctx, dqa, "src")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_pass_tin(ctx, dqb, "src")->tensor->dtype != LN_DTYPE_INT8)
        return 0;
    if (is_mul ? !ln_qdq_quantize_multiplier(sa * sb / c.y_scale, 255.0 * 255.0, &m[4], &m[5])
               : !add_multipliers(sa, sb, c.y_scale, m))
        return 0;
    params = ln_param_list_append_int(params, "src1_zero_point", za);
    params = ln_param_list_append_int(params, "src2_zero_point", zb);
    params = ln_param_list_append_int(params, "dst_zero_point", c.y_zp);
    for (int i = is_mul ? 4 : 0; i < 6; i++)
        params = ln_param_list_append_int(params, pn[i], m[i]);
    params = ln_param_list_append_int(params, "act_min", c.act_min);
    params = ln_param_list_append_int(params, "act_max", c.act_max);
    op = ln_qdq_new_op(ctx, is_mul ? "mul_s8_cpu" : "add_s8_cpu", p->op_arg->name,
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
        "leakyrelu", "selu", "shrink", "thresholdedrelu", "clip", "silu", NULL};
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
int ln_qdq_lut_one(ln_context *ctx, ln_op *q, ln_bool *done)
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
        !(dq = ln_qdq_producer_of(ctx, f, "src", "dequantize_linear_cpu")) ||
        !(x = ln_pass_tin(ctx, dq, "src")) || x->tensor->dtype != LN_DTYPE_INT8 ||
        ln_qdq_tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
        ln_pass_tin(ctx, f, "src")->tensor->dtype != LN_DTYPE_FLOAT32 ||
        !ln_qdq_per_tensor_s8(ctx, dq, &sx, &zx) || !ln_qdq_per_tensor_s8(ctx, q, &sy, &zy))
        return 0;
    for (int i = 0; i < 256; i++)   /* as ln_rt_dequantize_s8 computes them */
        vals[i] = (float)((int64_t)(i - 128) - zx) * (float)sx;
    snprintf(buf, sizeof buf, "%s__lut_in", f->op_arg->name);
    fin = ln_qdq_add_const(ctx, buf, LN_DTYPE_FLOAT32, 1, dims, vals, &before);
    snprintf(buf, sizeof buf, "%s__lut_f", f->op_arg->name);
    fout = ln_pass_unique(ctx, buf);
    snprintf(buf, sizeof buf, "%s__lut", f->op_arg->name);
    tab = ln_pass_unique(ctx, buf);
    f2 = ln_qdq_new_op(ctx, f->op_arg->optype, fout, ln_tensor_list_append(NULL, "src", fin),
                       ln_tensor_list_append(NULL, "dst", fout),
                       ln_param_list_copy(f->op_arg->params));
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, q->op_arg->tensors_in)
        ins = ln_tensor_list_append(ins, tl->arg_name,
                                    ln_streq(tl->arg_name, "src") ? fout : tl->name);
    q2 = ln_qdq_new_op(ctx, "quantize_linear_cpu", tab, ins,
                       ln_tensor_list_append(NULL, "dst", tab),
                       ln_param_list_copy(q->op_arg->params));
    lut = ln_qdq_new_op(ctx, "lut_s8_cpu", f->op_arg->name,
                        ln_tensor_list_append(ln_tensor_list_append(NULL, "src", x->name),
                                              "table", tab),
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
    return ln_qdq_new_op(ctx, op->op_arg->optype, op->op_arg->name, ins, outs,
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

/* The DQs of the same parameters as uint8 Q q that read y directly or
 * through views (ONNX Runtime's QOperator models flatten the uint8 tensor
 * before a QGemm) into *dqs, the views into *views; LN_FALSE when another
 * op reads them. */
static ln_bool u8_readers(ln_context *ctx, ln_op *q, const char *y, int zp, int depth,
                          ln_list **dqs, ln_list **views)
{
    ln_list *readers = ln_dfg_nexts(ctx->dfg, ln_dfg_producer(ctx->dfg, y), y);
    ln_bool ok = readers != NULL;

    LN_LIST_FOREACH(ln_op, r, readers) {
        ln_tensor_entry *v;
        if (ln_streq(r->op_arg->optype, "dequantize_linear_cpu") &&
            zero_point_u8(ctx, r) == zp && ln_qdq_same_scale(ctx, q, r)) {
            *dqs = ln_list_append(*dqs, r);
        } else if (depth < 4 && ln_qdq_is_view(r) && (v = ln_qdq_tout(ctx, r, "dst")) &&
                   !v->is_io && ln_tensor_list_length(r->op_arg->tensors_in) == 1) {
            *views = ln_list_append(*views, r);
            ok = ok && u8_readers(ctx, q, v->name, zp, depth + 1, dqs, views);
        } else {
            ok = LN_FALSE;
        }
        if (!ok)
            break;
    }
    ln_list_free(readers);
    return ok;
}

/* A uint8 activation (ONNX Runtime's default) whose Q is read only by DQs
 * of the same parameters (directly or through views) becomes int8:
 * Q_s8(x) with zero point z - 128 is Q_u8(x) - 128 element for element, a
 * view moves the same elements, and DQ_s8 of them with z - 128 gives the
 * same real values; then the int8 fusions apply.  A graph input or output
 * keeps its type. */
int ln_qdq_u8_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    ln_tensor_entry *y = ln_qdq_tout(ctx, q, "dst");
    ln_list *dqs = NULL, *views = NULL, *before = NULL;
    int zp = zero_point_u8(ctx, q), ret = 0;
    int8_t z8 = (int8_t)(zp - 128);
    int dims[1] = {1};
    char buf[256], *zname;
    ln_op *nq;

    *done = LN_FALSE;
    if (zp < 0 || !y || y->is_io || !ln_qdq_per_tensor_s8_scale(ctx, q) ||
        !u8_readers(ctx, q, y->name, zp, 0, &dqs, &views)) {
        ln_list_free(dqs);
        ln_list_free(views);
        return 0;
    }
    snprintf(buf, sizeof buf, "%s__zero_point_s8", y->name);
    zname = ln_qdq_add_const(ctx, buf, LN_DTYPE_INT8, 0, dims, &z8, &before);
    nq = with_zero_point(ctx, q, zname);
    if (!nq || (ret = ln_pass_replace_with(ctx, q, before, nq))) {
        ln_list_free(dqs);
        ln_list_free(views);
        ln_free(zname);
        return nq ? ret : 0;
    }
    *done = LN_TRUE;
    /* the views again, in order: their outputs become int8 */
    LN_LIST_FOREACH(ln_op, v, views) {
        ln_op *nv = ln_qdq_new_op(ctx, v->op_arg->optype, v->op_arg->name,
                                  ln_tensor_list_copy(v->op_arg->tensors_in),
                                  ln_tensor_list_copy(v->op_arg->tensors_out),
                                  ln_param_list_copy(v->op_arg->params));
        if (!nv) {
            ret = ln_error(LN_EINTERNAL, "%s: cannot make its int8 copy", v->op_arg->name);
            break;
        }
        if ((ret = ln_pass_replace_with(ctx, v, NULL, nv)))
            break;
    }
    LN_LIST_FOREACH(ln_op, r, dqs) {
        ln_op *nr;
        if (ret)
            break;
        if (!(nr = with_zero_point(ctx, r, zname))) {
            ret = ln_error(LN_EINTERNAL, "%s: cannot make its int8 copy", r->op_arg->name);
            break;
        }
        if ((ret = ln_pass_replace_with(ctx, r, NULL, nr)))
            break;
    }
    ln_list_free(dqs);
    ln_list_free(views);
    ln_free(zname);
    return ret;
}

/* act(view(y)) -> view(act(y)) for a relu or clip (elementwise, so it
 * commutes with a view) that alone reads the view and is read by a Q
 * alone: a 1-D conv's squeeze then stands between the relu and the Q,
 * where hoist_one moves it. */
int ln_qdq_act_one(ln_context *ctx, ln_op *act, ln_bool *done)
{
    const char *v = ln_pass_tname_in(act, "src");
    ln_op *view = v ? ln_dfg_producer(ctx->dfg, v) : NULL, *a2, *v2;
    char buf[256], *t;
    ln_list *ins = NULL;

    ln_op *r = ln_pass_sole_reader(ctx, ln_pass_tname_out(act, "dst"));

    *done = LN_FALSE;
    if (!ln_qdq_is_view(view) || ln_pass_sole_reader(ctx, v) != act ||
        ln_tensor_list_length(act->op_arg->tensors_in) != 1 || !r ||
        !ln_streq(r->op_arg->optype, "quantize_linear_cpu"))
        return 0;
    snprintf(buf, sizeof buf, "%s__act", ln_pass_tname_in(view, "src"));
    t = ln_pass_unique(ctx, buf);
    ins = ln_tensor_list_append(ins, "src", ln_pass_tname_in(view, "src"));
    a2 = ln_qdq_new_op(ctx, act->op_arg->optype, act->op_arg->name, ins,
                       ln_tensor_list_append(NULL, "dst", t),
                       ln_param_list_copy(act->op_arg->params));
    v2 = ln_qdq_new_op(ctx, view->op_arg->optype, view->op_arg->name,
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
int ln_qdq_hoist_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *view = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *q2, *v2;
    ln_list *ins = NULL;
    double scale;
    int zp;
    char buf[256], *tq, *qname;

    *done = LN_FALSE;
    if (!ln_qdq_is_view(view) || ln_pass_sole_reader(ctx, y) != q ||
        !ln_qdq_per_tensor_s8(ctx, q, &scale, &zp) ||
        ln_qdq_tout(ctx, q, "dst")->tensor->dtype != LN_DTYPE_INT8 ||
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
    q2 = ln_qdq_new_op(ctx, "quantize_linear_cpu", qname, ins,
                       ln_tensor_list_append(NULL, "dst", tq),
                       ln_param_list_copy(q->op_arg->params));
    v2 = ln_qdq_new_op(ctx, view->op_arg->optype, view->op_arg->name,
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

/* TensorFlow Lite's int8 softmax parameters for beta 1 and input scale
 * sx, with 5 integer bits for the rescaled differences: the real
 * multiplier beta * sx * 2^26 (capped at 2^31 - 1, and more than 1) as a
 * Q31 multiplier and a left shift (frexp, rounded to 31 bits), and
 * diff_min, minus the largest difference that rescales into Q5.26:
 * floor((2^5 - 1) * 2^26 / 2^shift).  LN_FALSE when the scale is out of
 * the kernel's range (below 2^-26, or 2^4 and more: refused rather than
 * saturated). */
ln_bool ln_qdq_softmax_params(double sx, int32_t *mult, int32_t *shift, int32_t *diff_min)
{
    double real = sx * 67108864.0, f;   /* beta 1 times 2^(31 - 5) */
    long long q;
    int e;

    if (!(real > 1.0) || !(real < 1073741824.0))
        return LN_FALSE;
    f = frexp(real, &e);
    q = llround(f * 2147483648.0);
    if (q == 2147483648LL) {
        q /= 2;
        e++;
    }
    if (e < 1 || e > 30)
        return LN_FALSE;
    *mult = (int32_t)q;
    *shift = e;
    *diff_min = -(int32_t)floor(31.0 * 67108864.0 / ldexp(1.0, e));
    return LN_TRUE;
}

/* Q(Softmax(DQ(x))) -> softmax_s8 (TFLite's int8 softmax) when the
 * softmax's rows are the last axis (ONNX 13's axis -1, or before 13 the
 * 2-D coercion when it comes to that), x and the output int8 per tensor,
 * and the output at TFLite's fixed parameters, scale 1/256 and zero point
 * -128 (ONNX Runtime's quantizer gives a softmax these; a uint8 output's
 * 1/256 and 0 has become them by u8_one).  Anything else stays float. */
int ln_qdq_softmax_one(ln_context *ctx, ln_op *q, ln_bool *done)
{
    const char *y = ln_pass_tname_in(q, "src");
    ln_op *sm = y ? ln_dfg_producer(ctx->dfg, y) : NULL, *dq, *op;
    ln_tensor_entry *x, *yq;
    ln_param_entry *co;
    const ln_tensor *t;
    double sx, sy;
    int zx, zy, axis, ret;
    size_t row = 1, inner = 1;
    int32_t mult, shift, diff_min;
    ln_list *params = NULL;

    *done = LN_FALSE;
    if (!sm || ln_pass_sole_reader(ctx, y) != q || !ln_streq(sm->op_arg->optype, "softmax_cpu") ||
        !(dq = ln_qdq_producer_of(ctx, sm, "src", "dequantize_linear_cpu")) ||
        !(x = ln_pass_tin(ctx, dq, "src")) || x->isstatic || x->tensor->dtype != LN_DTYPE_INT8 ||
        !(yq = ln_qdq_tout(ctx, q, "dst")) || yq->tensor->dtype != LN_DTYPE_INT8 ||
        !ln_qdq_per_tensor_s8(ctx, dq, &sx, &zx) || !ln_qdq_per_tensor_s8(ctx, q, &sy, &zy) ||
        zy != -128 || fabs(sy * 256.0 - 1.0) > 1e-6 || x->tensor->ndim < 1)
        return 0;
    /* the float op's rows, contiguous: [outer][row][inner] with inner 1 */
    t = x->tensor;
    axis = (int)ln_pass_num_param(sm, "axis", -1);
    if (axis < 0)
        axis += t->ndim;
    if (axis < 0 || axis >= t->ndim)
        return 0;
    co = ln_op_param(sm->op_arg, "coerce_2d");
    for (int i = axis; i < t->ndim; i++) {
        if (i == axis || (co && co->type == LN_PARAM_BOOL && co->value_bool))
            row *= (size_t)t->dims[i];
        else
            inner *= (size_t)t->dims[i];
    }
    if (inner != 1 || row != (size_t)t->dims[t->ndim - 1] || row > 4095 ||
        !ln_qdq_softmax_params(sx, &mult, &shift, &diff_min))
        return 0;
    params = ln_param_list_append_int(params, "input_mult", mult);
    params = ln_param_list_append_int(params, "input_left_shift", shift);
    params = ln_param_list_append_int(params, "diff_min", diff_min);
    op = ln_qdq_new_op(ctx, "softmax_s8_cpu", sm->op_arg->name,
                       ln_tensor_list_append(NULL, "src", x->name),
                       ln_tensor_list_append(NULL, "dst", yq->name), params);
    if (!op)
        return 0;
    *done = LN_TRUE;
    if ((ret = ln_context_remove_op(ctx, q->op_arg->name)))
        return ret;
    return ln_pass_replace_with(ctx, sm, NULL, op);
}
