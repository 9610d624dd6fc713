/*
 * ln_onnx_datashape.c -- the ONNX op types whose output shape depends on
 * their data (NonZero, NonMaxSuppression).  LightNet's shapes are static,
 * so they have no op: on constant inputs they are evaluated at import by
 * their runtime kernels (ln_rt_nonzero, ln_rt_nms_f32), the way
 * ln_onnx_fold.c runs the other ops, and their outputs become constants;
 * an input known only at run time is refused, named.  An output padded to
 * a fixed bound would not be ONNX's, so none is offered.
 */
#include <string.h>
#include "ln_onnx.h"
#include "ln_onnx_impl.h"
#include "ln_rt.h"

#ifdef LN_HAVE_ONNX

ln_bool ln_onnx_is_datashape(const char *op_type)
{
    return ln_streq(op_type, "NonZero") || ln_streq(op_type, "NonMaxSuppression");
}

/* NonZero: the int64 indices [ndim][n] of the n nonzero elements,
 * row-major; none would be an empty tensor, which LightNet has not. */
static int eval_nonzero(ln_tensor *const *in, ln_tensor **out)
{
    const ln_tensor *x = in[0];
    size_t n;
    int dims[2];

    if (x->dtype == LN_DTYPE_FLOAT16)
        return ln_error(LN_EINVAL, "float16 is not supported");
    if (x->ndim < 1)
        return ln_error(LN_EINVAL, "a scalar input is not supported");
    n = ln_rt_nonzero(x->ndim, (const int32_t *)x->dims, ln_dtype_size(x->dtype),
                      x->dtype == LN_DTYPE_FLOAT32 || x->dtype == LN_DTYPE_FLOAT64, x->data, NULL);
    if (!n)
        return ln_error(LN_EINVAL, "no element is nonzero (the result would be empty)");
    dims[0] = x->ndim;
    dims[1] = (int)n;
    *out = ln_tensor_create_alloc(LN_DTYPE_INT64, 2, dims);
    ln_rt_nonzero(x->ndim, (const int32_t *)x->dims, ln_dtype_size(x->dtype),
                  x->dtype == LN_DTYPE_FLOAT32 || x->dtype == LN_DTYPE_FLOAT64, x->data,
                  (*out)->data);
    return 0;
}

/* NonMaxSuppression: ONNX's [selected][3] int64 (batch, class, box) */
static int eval_nms(const Onnx__NodeProto *node, ln_tensor *const *in, size_t n_in,
                    ln_tensor **out)
{
    const ln_tensor *bx = in[0], *sc = in[1];
    ln_rt_nms_args a;
    float *fb, *fs;
    int32_t *order;
    int64_t *sel, n;
    size_t cap;
    int dims[2];

    if (bx->ndim != 3 || bx->dims[2] != 4 || sc->ndim != 3 || sc->dims[0] != bx->dims[0] ||
        sc->dims[2] != bx->dims[1])
        return ln_error(LN_EINVAL, "boxes must be [batches][boxes][4] and scores "
                        "[batches][classes][boxes]");
    for (size_t i = 2; i < n_in; i++)
        if (in[i] && in[i]->len != 1)
            return ln_error(LN_EINVAL, "input %d must hold one value", (int)i + 1);
    memset(&a, 0, sizeof a);
    a.batches = bx->dims[0];
    a.boxes = bx->dims[1];
    a.classes = sc->dims[1];
    a.center_point_box = (int32_t)ln_onnx_node_attr_i(node, "center_point_box", 0);
    if (a.center_point_box != 0 && a.center_point_box != 1)
        return ln_error(LN_EINVAL, "center_point_box must be 0 or 1");
    a.max_per_class = n_in > 2 && in[2] ? (int64_t)ln_onnx_tensor_get(in[2], 0) : 0;
    a.max_per_class = a.max_per_class < 0 ? 0 : a.max_per_class;
    a.iou_threshold = n_in > 3 && in[3] ? (float)ln_onnx_tensor_get(in[3], 0) : 0.0f;
    a.has_score_threshold = n_in > 4 && in[4];
    a.score_threshold = a.has_score_threshold ? (float)ln_onnx_tensor_get(in[4], 0) : 0.0f;
    fb = ln_alloc(sizeof(float) * (bx->len ? bx->len : 1));
    fs = ln_alloc(sizeof(float) * (sc->len ? sc->len : 1));
    for (size_t i = 0; i < bx->len; i++)
        fb[i] = (float)ln_onnx_tensor_get(bx, i);
    for (size_t i = 0; i < sc->len; i++)
        fs[i] = (float)ln_onnx_tensor_get(sc, i);
    cap = (size_t)a.batches * a.classes *
          (size_t)(a.max_per_class < a.boxes ? a.max_per_class : a.boxes);
    order = ln_alloc(sizeof(int32_t) * (a.boxes ? (size_t)a.boxes : 1));
    sel = ln_alloc(sizeof(int64_t) * 3 * (cap ? cap : 1));
    n = ln_rt_nms_f32(&a, fb, fs, order, sel);
    ln_free(fb);
    ln_free(fs);
    ln_free(order);
    if (n == 0) {
        ln_free(sel);
        return ln_error(LN_EINVAL, "no box is selected: an empty output ([0, 3]) is not "
                        "supported");
    }
    dims[0] = (int)n;
    dims[1] = 3;
    *out = ln_tensor_create_alloc(LN_DTYPE_INT64, 2, dims);
    memcpy((*out)->data, sel, sizeof(int64_t) * 3 * (size_t)n);
    ln_free(sel);
    return 0;
}

void ln_onnx_eval_datashape(imp *im, const Onnx__NodeProto *node, const char *where)
{
    ln_tensor *in[5] = {NULL, NULL, NULL, NULL, NULL}, *out = NULL;
    size_t n_in = node->n_input < 5 ? node->n_input : 5;
    size_t need = ln_streq(node->op_type, "NonZero") ? 1 : 2;
    ln_bool missing = LN_FALSE;
    int ret;

    if (node->n_output != 1 || !*node->output[0] || node->n_input < need ||
        node->n_input > (need == 1 ? 1u : 5u)) {
        ln_onnx_problem(im, "%s: wants %s input%s and one output", where,
                        need == 1 ? "one" : "two to five", need == 1 ? "" : "s");
        goto unknown;
    }
    for (size_t i = 0; i < n_in; i++) {
        const char *t = node->input[i];
        if (!*t)
            continue;
        if ((in[i] = ln_hash_find(im->consts, t)))
            continue;
        if (!ln_onnx_set_has(im->defined, t)) {
            ln_onnx_problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                              "initializer, Constant or earlier node output has that name)",
                              where, t);
        } else if (!missing) {
            /* the conformance runner reads "input 'x' (...) must be a constant" */
            ln_onnx_problem(im, "%s: input '%s' (of %s, whose output's shape depends on its "
                            "data, and LightNet's shapes are static) must be a constant (an "
                            "initializer, a Constant node, or computed from those and known "
                            "shapes), not a graph input or computed at run time: %s", where, t,
                            node->op_type, ln_onnx_why_not_const(im, t));
        } else {
            ln_onnx_problem(im, "%s: input '%s' (of %s) must be a constant too", where, t,
                            node->op_type);
        }
        missing = LN_TRUE;
    }
    if (missing)
        goto unknown;
    if (need == 2 && (!in[0] || !in[1])) {
        ln_onnx_problem(im, "%s: boxes and scores are required", where);
        goto unknown;
    }
    ret = need == 1 ? eval_nonzero(in, &out) : eval_nms(node, in, n_in, &out);
    if (ret) {
        ln_onnx_problem(im, "%s: %s", where, ln_error_message());
        goto unknown;
    }
    ln_onnx_add_const(im, node->output[0], out);
    return;
unknown:
    ln_onnx_set_add(im->unknown, node->output[0]);
}

#endif /* LN_HAVE_ONNX */
