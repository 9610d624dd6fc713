/*
 * ln_onnx_qop.c -- ONNX's QOperator nodes imported as the QDQ nodes that
 * define them:
 *
 *   QLinearConv(x, xs, xz, w, ws, wz, ys, yz[, B])
 *     = Q(Conv(DQ(x, xs, xz), DQ(w, ws, wz, axis 0)[, DQ(B, xs * ws, axis 0)]), ys, yz)
 *   QLinearMatMul(a, as, az, b, bs, bz, ys, yz)
 *     = Q(MatMul(DQ(a, as, az, axis -2), DQ(b, bs, bz, axis -1)), ys, yz)
 *
 * (per-row / per-column scales of QLinearMatMul on the last two axes).
 * The QDQ fusion (ln_pass_qdq.c) then makes int8 ops of them where the
 * kernels take them; elsewhere the float ops compute them.  The nodes are
 * imported at opset 13 at least, whose DequantizeLinear has the axis.
 */
#include <string.h>
#include "ln_onnx_impl.h"

#define QOP_MAX_IN 9

typedef struct qop {
    imp *im;
    const Onnx__NodeProto *node;
    int index;
} qop;

/* A tensor name nothing in the model has, from the node's output. */
static const char *temp(qop *q, const char *what)
{
    char *n = ln_sprintf("%s__%s", q->node->output[0], what);
    for (int k = 2; ln_onnx_set_has(q->im->defined, n) || ln_onnx_set_has(q->im->consumed, n);
         k++) {
        ln_free(n);
        n = ln_sprintf("%s__%s%d", q->node->output[0], what, k);
    }
    q->im->names = ln_list_prepend(q->im->names, n);  /* constants keep pointing at it */
    return n;
}

/* Import one node op_type(ins) -> out with attrs. */
static void emit(qop *q, const char *op_type, const char *what, const char *const *ins,
                 size_t nin, const char *out, Onnx__AttributeProto **attrs, size_t nattr)
{
    Onnx__NodeProto n = ONNX__NODE_PROTO__INIT;
    char *in[QOP_MAX_IN], *name;
    char *outs[1];

    for (size_t i = 0; i < nin; i++)
        in[i] = (char *)ins[i];
    outs[0] = (char *)out;
    name = ln_sprintf("%s_%s", q->node->name && *q->node->name ? q->node->name :
                      ln_onnx_str_or_empty(q->node->op_type), what);
    n.name = name;
    n.op_type = (char *)op_type;
    n.n_input = nin;
    n.input = in;
    n.n_output = 1;
    n.output = outs;
    n.n_attribute = nattr;
    n.attribute = attrs;
    ln_onnx_import_node(q->im, &n, q->index);
    ln_free(name);
}

/* DequantizeLinear(x, s, z) along axis. */
static const char *dq(qop *q, const char *what, const char *x, const char *s, const char *z,
                      int axis)
{
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT, *attrs[1];
    const char *ins[3] = {x, s, z}, *out = temp(q, what);

    a.name = "axis";
    a.has_type = 1;
    a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a.has_i = 1;
    a.i = axis;
    attrs[0] = &a;
    emit(q, "DequantizeLinear", what, ins, z && *z ? 3 : 2, out, attrs, 1);
    return out;
}

static const char *in(const Onnx__NodeProto *node, size_t i)
{
    return i < node->n_input ? node->input[i] : "";
}

ln_bool ln_onnx_is_qop(const char *op_type)
{
    return ln_streq(op_type, "QLinearConv") || ln_streq(op_type, "QLinearMatMul");
}

void ln_onnx_import_qop(imp *im, const Onnx__NodeProto *node, int index, const char *where)
{
    qop q;
    int opset = im->opset;
    ln_bool conv = ln_streq(node->op_type, "QLinearConv");
    const char *x, *w, *y, *ins[3];

    memset(&q, 0, sizeof q);
    q.im = im;
    q.node = node;
    q.index = index;
    if (node->n_output != 1 || !*node->output[0] || node->n_input < 8 ||
        node->n_input > (conv ? 9u : 8u)) {
        ln_onnx_problem(im, "%s: %d inputs and %d outputs, ONNX says %s and 1", where,
                        (int)node->n_input, (int)node->n_output, conv ? "8 or 9" : "8");
        return;
    }
    for (size_t i = 0; i < 8; i++)
        if (!*node->input[i] && i != 2 && i != 5 && i != 7) {
            ln_onnx_problem(im, "%s: input %d is empty", where, (int)i);
            return;
        }
    if (!conv && node->n_attribute) {
        ln_onnx_problem(im, "%s: attribute '%s' is not supported", where,
                        node->attribute[0]->name);
        return;
    }
    if (im->opset < 13)
        im->opset = 13;
    x = dq(&q, "x", in(node, 0), in(node, 1), in(node, 2), conv ? 1 : -2);
    w = dq(&q, "w", in(node, 3), in(node, 4), in(node, 5), conv ? 0 : -1);
    if (conv) {
        const char *b = NULL;
        if (*in(node, 8)) {
            const char *mul_in[2] = {in(node, 1), in(node, 4)};
            const char *bs = temp(&q, "bias_scale");
            emit(&q, "Mul", "bias_scale", mul_in, 2, bs, NULL, 0);
            b = dq(&q, "bias", in(node, 8), bs, NULL, 0);
        }
        ins[0] = x;
        ins[1] = w;
        ins[2] = b;
        y = temp(&q, "conv");
        emit(&q, "Conv", "conv", ins, b ? 3 : 2, y, node->attribute, node->n_attribute);
    } else {
        ins[0] = x;
        ins[1] = w;
        y = temp(&q, "matmul");
        emit(&q, "MatMul", "matmul", ins, 2, y, NULL, 0);
    }
    ins[0] = y;
    ins[1] = in(node, 6);
    ins[2] = in(node, 7);
    emit(&q, "QuantizeLinear", "q", ins, *ins[2] ? 3 : 2, node->output[0], NULL, 0);
    im->opset = opset;
}

/* ---- ONNX Runtime's QOperator nodes (domain com.microsoft) ----
 *
 * What ONNX Runtime's quantizer writes in its QOperator format beside
 * QLinearConv / QLinearMatMul, each imported as the DQ -> op -> Q it
 * computes (ONNX Runtime's ContribOperators.md gives the inputs):
 *
 *   QLinearAdd / QLinearMul(A, As, Az, B, Bs, Bz, Cs, Cz)  Add / Mul
 *   QLinearSigmoid / QLinearLeakyRelu / QLinearGlobalAveragePool /
 *   QLinearAveragePool / QLinearSoftmax(X, Xs, Xz, Ys, Yz)  the float op
 *   QLinearConcat(Ys, Yz, X1, X1s, X1z, X2, ...)           Concat
 *   QGemm(A, As, Az, B, Bs, Bz[, C, Ys, Yz])               Gemm (C int32 at
 *                                                          As * Bs; no Ys:
 *                                                          a float output)
 *   QuantizeLinear / DequantizeLinear                      the ONNX ones
 *
 * channels_last (NHWC pools) is refused; QLinearSoftmax's "opset" gives
 * the Softmax semantics (the 2-D coercion before 13). */

static const char *const MS_QOPS[][2] = {
    {"QLinearAdd", "Add"},           {"QLinearMul", "Mul"},
    {"QLinearSigmoid", "Sigmoid"},   {"QLinearLeakyRelu", "LeakyRelu"},
    {"QLinearGlobalAveragePool", "GlobalAveragePool"},
    {"QLinearAveragePool", "AveragePool"}, {"QLinearSoftmax", "Softmax"},
    {"QLinearConcat", "Concat"},     {"QGemm", "Gemm"},
    {"QuantizeLinear", "QuantizeLinear"}, {"DequantizeLinear", "DequantizeLinear"},
};

static const char *ms_float_op(const char *op_type)
{
    for (size_t i = 0; i < sizeof MS_QOPS / sizeof MS_QOPS[0]; i++)
        if (ln_streq(op_type, MS_QOPS[i][0]))
            return MS_QOPS[i][1];
    return NULL;
}

ln_bool ln_onnx_is_ms_qop(const char *domain, const char *op_type)
{
    return domain && ln_streq(domain, "com.microsoft") && ms_float_op(op_type);
}

/* Q(y) into the node's output with scale / zero point inputs s, z. */
static void quantize_out(qop *q, const char *y, const char *s, const char *z)
{
    const char *ins[3] = {y, s, z};
    emit(q, "QuantizeLinear", "q", ins, z && *z ? 3 : 2, q->node->output[0], NULL, 0);
}

void ln_onnx_import_ms_qop(imp *im, const Onnx__NodeProto *node, int index, const char *where)
{
    const char *fop = ms_float_op(node->op_type);
    Onnx__AttributeProto *attrs[16];
    size_t nattr = 0, nin = node->n_input;
    const char *ins[QOP_MAX_IN], *y;
    int opset = im->opset, fop_opset = opset < 13 ? 13 : opset;
    qop q;

    memset(&q, 0, sizeof q);
    q.im = im;
    q.node = node;
    q.index = index;
    if (node->n_output != 1 || !*node->output[0]) {
        ln_onnx_problem(im, "%s: %d outputs, ONNX Runtime says 1", where, (int)node->n_output);
        return;
    }
    for (size_t i = 0; i < node->n_attribute; i++) {
        Onnx__AttributeProto *a = node->attribute[i];
        if (ln_streq(a->name, "channels_last")) {
            if (a->has_i && a->i != 0) {
                ln_onnx_problem(im, "%s: channels_last 1 (NHWC) is not supported", where);
                return;
            }
        } else if (ln_streq(a->name, "opset") && ln_streq(fop, "Softmax")) {
            fop_opset = (int)a->i;
        } else if (nattr < sizeof attrs / sizeof attrs[0]) {
            attrs[nattr++] = a;
        }
    }
    im->opset = opset < 13 ? 13 : opset;    /* DequantizeLinear with an axis */
    if (ln_streq(fop, "QuantizeLinear") || ln_streq(fop, "DequantizeLinear")) {
        for (size_t i = 0; i < nin && i < 3; i++)
            ins[i] = node->input[i];
        emit(&q, fop, "op", ins, nin < 3 ? nin : 3, node->output[0], attrs, nattr);
    } else if (ln_streq(fop, "Add") || ln_streq(fop, "Mul")) {
        if (nin < 7 || nin > 8) {
            ln_onnx_problem(im, "%s: %d inputs, ONNX Runtime says 7 or 8", where, (int)nin);
        } else {
            ins[0] = dq(&q, "a", in(node, 0), in(node, 1), in(node, 2), 1);
            ins[1] = dq(&q, "b", in(node, 3), in(node, 4), in(node, 5), 1);
            y = temp(&q, "y");
            emit(&q, fop, "op", ins, 2, y, attrs, nattr);
            quantize_out(&q, y, in(node, 6), in(node, 7));
        }
    } else if (ln_streq(fop, "Concat")) {
        size_t n = 0;
        if (nin < 5 || (nin - 2) % 3 != 0 || (nin - 2) / 3 > QOP_MAX_IN) {
            ln_onnx_problem(im, "%s: %d inputs, ONNX Runtime says 2 + 3 per input", where,
                            (int)nin);
        } else {
            char what[16];
            for (size_t i = 2; i + 2 < nin; i += 3, n++) {
                snprintf(what, sizeof what, "x%d", (int)n);
                ins[n] = dq(&q, what, in(node, i), in(node, i + 1), in(node, i + 2), 1);
            }
            y = temp(&q, "y");
            emit(&q, fop, "op", ins, n, y, attrs, nattr);
            quantize_out(&q, y, in(node, 0), in(node, 1));
        }
    } else if (ln_streq(fop, "Gemm")) {
        int trans_b = 0;
        for (size_t i = 0; i < nattr; i++)
            if (ln_streq(attrs[i]->name, "transB"))
                trans_b = (int)attrs[i]->i;
        if (nin < 6 || nin > 9) {
            ln_onnx_problem(im, "%s: %d inputs, ONNX Runtime says 6 to 9", where, (int)nin);
        } else {
            size_t n = 2;
            ins[0] = dq(&q, "a", in(node, 0), in(node, 1), in(node, 2), 1);
            ins[1] = dq(&q, "b", in(node, 3), in(node, 4), in(node, 5), trans_b ? 0 : 1);
            if (*in(node, 6)) {
                const char *mul_in[2] = {in(node, 1), in(node, 4)};
                const char *bs = temp(&q, "bias_scale");
                emit(&q, "Mul", "bias_scale", mul_in, 2, bs, NULL, 0);
                ins[n++] = dq(&q, "bias", in(node, 6), bs, NULL, 0);
            }
            if (*in(node, 7)) {
                y = temp(&q, "y");
                emit(&q, fop, "op", ins, n, y, attrs, nattr);
                quantize_out(&q, y, in(node, 7), in(node, 8));
            } else {        /* no output scale: the float result */
                emit(&q, fop, "op", ins, n, node->output[0], attrs, nattr);
            }
        }
    } else if (nin < 4 || nin > 5) {
        ln_onnx_problem(im, "%s: %d inputs, ONNX Runtime says 4 or 5", where, (int)nin);
    } else {                /* one quantized input: X, Xs, Xz, Ys, Yz */
        ins[0] = dq(&q, "x", in(node, 0), in(node, 1), in(node, 2), 1);
        y = temp(&q, "y");
        im->opset = fop_opset;
        emit(&q, fop, "op", ins, 1, y, attrs, nattr);
        im->opset = opset < 13 ? 13 : opset;
        quantize_out(&q, y, in(node, 3), in(node, 4));
    }
    im->opset = opset;
}
