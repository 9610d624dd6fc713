/*
 * ln_onnx_seq.c -- ONNX sequences as far as exporters use them for a split:
 * torch.tensor_split exports SplitToSequence -> SequenceAt.  A sequence is
 * never a run-time value here: SplitToSequence of an input of known shape
 * with a constant split (or none) records where each element lies, and each
 * SequenceAt with a constant position becomes a Slice of the input (and a
 * Squeeze when the split is absent and keepdims is 0), imported as nodes
 * like any other (folded when the input is a constant).  Any other reader
 * of a sequence is refused by name.
 */
#include <string.h>
#include "ln_onnx.h"
#include "ln_onnx_impl.h"

#ifdef LN_HAVE_ONNX

typedef struct ln_onnx_seq {
    char *input;             /* the split tensor (imported name) */
    int axis, rank, n;       /* axis normalized; n elements */
    int *start, *len;        /* element i: [start, start + len) along axis */
    ln_bool squeeze;         /* no split and keepdims 0: the axis goes */
    char *node;              /* the SplitToSequence node, for messages */
} ln_onnx_seq;

void ln_onnx_seq_free(void *p)
{
    ln_onnx_seq *q = p;
    if (!q)
        return;
    ln_free(q->input);
    ln_free(q->start);
    ln_free(q->len);
    ln_free(q->node);
    ln_free(q);
}

ln_bool ln_onnx_is_seq_op(const char *op_type)
{
    return ln_streq(op_type, "SplitToSequence") || ln_streq(op_type, "SequenceAt");
}

ln_bool ln_onnx_reads_seq(imp *im, const Onnx__NodeProto *node, const char *where)
{
    for (size_t i = 0; i < node->n_input; i++) {
        const ln_onnx_seq *q = *node->input[i] ? ln_hash_find(im->seqs, node->input[i]) : NULL;
        if (!q)
            continue;
        ln_onnx_problem(im, "%s: input '%s' is a sequence (from SplitToSequence '%s'); "
                        "LightNet reads a sequence only through SequenceAt with a constant "
                        "position", where, node->input[i], q->node);
        for (size_t j = 0; j < node->n_output; j++)
            if (*node->output[j])
                ln_onnx_set_add(im->unknown, node->output[j]);
        return LN_TRUE;
    }
    return LN_FALSE;
}

static void split_to_sequence(imp *im, const Onnx__NodeProto *node, const char *name,
                              const char *where)
{
    const char *x = node->n_input > 0 ? node->input[0] : "";
    const ln_tensor *sp = node->n_input > 1 && *node->input[1]
                              ? ln_hash_find(im->consts, node->input[1]) : NULL;
    const ln_tensor *xc = ln_hash_find(im->consts, x);
    int ndim, dims[LN_MAXDIM], axis, size, n;
    int64_t keepdims = ln_onnx_node_attr_i(node, "keepdims", 1);
    ln_onnx_seq *q;

    if (node->n_output != 1 || !*node->output[0] || !*x) {
        ln_onnx_problem(im, "%s: wants an input and one output", where);
        return;
    }
    if (node->n_input > 1 && *node->input[1] && !sp) {
        ln_onnx_problem(im, "%s: input '%s' (split) must be a constant: the elements' "
                        "shapes are static", where, node->input[1]);
        return;
    }
    if (xc) {
        ndim = xc->ndim;
        memcpy(dims, xc->dims, sizeof dims);
    } else if (!ln_onnx_known_dims(im, x, &ndim, dims)) {
        ln_onnx_problem(im, "%s: the shape of input '%s' is not known", where, x);
        return;
    }
    axis = (int)ln_onnx_node_attr_i(node, "axis", 0);
    axis = axis < 0 ? axis + ndim : axis;
    if (axis < 0 || axis >= ndim) {
        ln_onnx_problem(im, "%s: axis %d is outside the input's %d dims", where,
                        (int)ln_onnx_node_attr_i(node, "axis", 0), ndim);
        return;
    }
    size = dims[axis];
    q = ln_alloc(sizeof *q);
    memset(q, 0, sizeof *q);
    q->input = ln_strdup(x);
    q->node = ln_strdup(name);
    q->axis = axis;
    q->rank = ndim;
    if (!sp) {                                   /* chunks of 1 */
        n = size;
        q->squeeze = keepdims == 0;
    } else if (sp->ndim == 0) {                  /* chunks of that size */
        int64_t c = ln_onnx_geti(sp, 0);
        if (c <= 0) {
            ln_onnx_problem(im, "%s: split %lld must be positive", where, (long long)c);
            ln_onnx_seq_free(q);
            return;
        }
        n = (int)((size + c - 1) / c);
    } else {
        n = (int)sp->len;
    }
    q->n = n;
    q->start = ln_alloc(sizeof(int) * (size_t)(n ? n : 1));
    q->len = ln_alloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0, at = 0; i < n; i++) {
        int l;
        if (!sp)
            l = 1;
        else if (sp->ndim == 0)
            l = (int)ln_onnx_geti(sp, 0) < size - at ? (int)ln_onnx_geti(sp, 0) : size - at;
        else
            l = (int)ln_onnx_geti(sp, (size_t)i);
        if (l <= 0 || at + l > size) {
            ln_onnx_problem(im, "%s: the split does not cover the %d elements of axis %d "
                            "(element %d of %d)", where, size, axis, i, n);
            ln_onnx_seq_free(q);
            return;
        }
        q->start[i] = at;
        q->len[i] = l;
        at += l;
        if (i == n - 1 && at != size) {
            ln_onnx_problem(im, "%s: the split sums to %d, not %d (axis %d)", where, at,
                            size, axis);
            ln_onnx_seq_free(q);
            return;
        }
    }
    ln_hash_insert(im->seqs, ln_strdup(node->output[0]), q);
    ln_onnx_set_add(im->defined, node->output[0]);
}

static void sequence_at(imp *im, const Onnx__NodeProto *node, const char *name,
                        const char *where)
{
    const char *sq = node->n_input > 0 ? node->input[0] : "";
    const ln_onnx_seq *q = ln_hash_find(im->seqs, sq);
    const ln_tensor *pos = node->n_input > 1 ? ln_hash_find(im->consts, node->input[1]) : NULL;
    Onnx__NodeProto n = ONNX__NODE_PROTO__INIT;
    char *in[5], *out[1], *b;
    int64_t p;

    if (node->n_input != 2 || node->n_output != 1 || !*node->output[0]) {
        ln_onnx_problem(im, "%s: wants a sequence, a position and one output", where);
        return;
    }
    if (!q) {
        ln_onnx_problem(im, "%s: input '%s' is not a sequence LightNet knows (only "
                        "SplitToSequence makes one)", where, sq);
        return;
    }
    if (!pos || pos->len != 1) {
        ln_onnx_problem(im, "%s: input '%s' (position) must be a constant scalar", where,
                        node->input[1]);
        return;
    }
    p = ln_onnx_geti(pos, 0);
    p = p < 0 ? p + q->n : p;
    if (p < 0 || p >= q->n) {
        ln_onnx_problem(im, "%s: position %lld is outside the sequence's %d elements", where,
                        (long long)ln_onnx_geti(pos, 0), q->n);
        return;
    }
    /* y = Slice(input, [start], [start + len], [axis]) (and Squeeze) */
    b = ln_sprintf("%s/slice", name);
    n.op_type = "Slice";
    n.name = b;
    in[0] = q->input;
    {
        char *s0 = ln_sprintf("%s/starts", name), *s1 = ln_sprintf("%s/ends", name);
        char *s2 = ln_sprintf("%s/axes", name);
        in[1] = (char *)ln_onnx_int_const(im, s0, q->start[p], 1);
        in[2] = (char *)ln_onnx_int_const(im, s1, q->start[p] + q->len[p], 1);
        in[3] = (char *)ln_onnx_int_const(im, s2, q->axis, 1);
        ln_free(s0);
        ln_free(s1);
        ln_free(s2);
    }
    n.input = in;
    n.n_input = 4;
    out[0] = q->squeeze ? (char *)ln_onnx_fresh_name(im, b) : node->output[0];
    n.output = out;
    n.n_output = 1;
    ln_onnx_import_node(im, &n, 0);
    if (q->squeeze) {
        Onnx__NodeProto s2 = ONNX__NODE_PROTO__INIT;
        Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT, *ap[1];
        int64_t ax = q->axis;
        char *sin[2], *sout[1], *sn = ln_sprintf("%s/squeeze", name);
        s2.op_type = "Squeeze";
        s2.name = sn;
        sin[0] = out[0];
        s2.input = sin;
        s2.n_input = 1;
        if (im->opset >= 13) {
            char *an = ln_sprintf("%s/squeeze_axes", name);
            sin[1] = (char *)ln_onnx_int_const(im, an, ax, 1);
            s2.n_input = 2;
            ln_free(an);
        } else {
            a.name = "axes";
            a.has_type = 1;
            a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
            a.n_ints = 1;
            a.ints = &ax;
            ap[0] = &a;
            s2.attribute = ap;
            s2.n_attribute = 1;
        }
        sout[0] = node->output[0];
        s2.output = sout;
        s2.n_output = 1;
        ln_onnx_import_node(im, &s2, 0);
        ln_free(sn);
    }
    ln_free(b);
}

void ln_onnx_import_seq(imp *im, const Onnx__NodeProto *node, const char *name,
                        const char *where)
{
    if (ln_streq(node->op_type, "SplitToSequence"))
        split_to_sequence(im, node, name, where);
    else
        sequence_at(im, node, name, where);
}

#endif /* LN_HAVE_ONNX */
