/*
 * ln_onnx_fold.c -- import-time folding (what, when and why: ln_onnx_impl.h,
 * "Folding at import").  No evaluator of its own: the node's op, as the
 * mapping made it, runs in a context of its own on its known inputs
 * through the interpreter's path (init with the op's checks and shape
 * inference, compile for cpu, load, run the runtime kernels), and what it
 * computed becomes constants.
 */
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ln_json.h"
#include "ln_context.h"
#include "ln_interp.h"
#include "ln_onnx.h"
#include "ln_onnx_impl.h"

#ifdef LN_HAVE_ONNX

/* Optypes left as ops even on constants: the int8 pass (before the
 * compiler's folding) needs DequantizeLinear of int8 weights as it is. */
static const char *const kept_optypes[] = {"dequantize_linear", NULL};

/* ONNX op types that read input 0 only by its dtype and shape. */
static ln_bool reads_shape_only(const char *op_type, size_t input)
{
    return input == 0 && (ln_streq(op_type, "Shape") || ln_streq(op_type, "Size"));
}

struct ln_onnx_fold_state {
    int first_op;            /* node_ops index of the node's first op */
    ln_bool *marked;         /* input i was read as a tensor before */
};

ln_onnx_fold_state *ln_onnx_fold_start(imp *im, const Onnx__NodeProto *node)
{
    ln_onnx_fold_state *f = ln_alloc(sizeof *f);

    f->first_op = cJSON_GetArraySize(im->node_ops);
    f->marked = ln_alloc(sizeof(ln_bool) * (node->n_input + 1));
    for (size_t i = 0; i < node->n_input; i++)
        f->marked[i] = ln_onnx_set_has(im->as_tensor, node->input[i]);
    return f;
}

static ln_bool is_graph_input(imp *im, const char *t);

/* Why tensor t is not a constant: a reason stored before, or (stored now)
 * t is a graph input or an output of an op that is not folded. */
const char *ln_onnx_why_not_const(imp *im, const char *t)
{
    const char *w = ln_hash_find(im->why, t);
    ln_bool input = is_graph_input(im, t);

    if (w)
        return w;
    ln_hash_insert(im->why, ln_strdup(t),
                   ln_sprintf(input ? "'%s' is a graph input, known only at run time"
                                    : "'%s' is computed at run time", t));
    return ln_hash_find(im->why, t);
}

static ln_bool is_graph_input(imp *im, const char *t)
{
    for (size_t i = 0; i < im->graph->n_input; i++)
        if (ln_streq(im->graph->input[i]->name, t))
            return LN_TRUE;
    return LN_FALSE;
}

/* The node's outputs are not constants, because of why (taken). */
static void set_why(imp *im, const Onnx__NodeProto *node, char *why)
{
    for (size_t j = 0; j < node->n_output; j++)
        if (*node->output[j] && !ln_hash_find(im->consts, node->output[j]))
            ln_hash_insert(im->why, ln_strdup(node->output[j]), ln_strdup(why));
    ln_free(why);
}

static void add_op_json(cJSON *ops, const char *name, const char *optype, const char *t,
                        const ln_tensor *tensor, ln_bool from_file)
{
    cJSON *op = ln_onnx_json_op(name, optype);

    ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref("dst", t));
    ln_onnx_op_add(op, "params", ln_onnx_json_param("dtype",
                   cJSON_CreateString(ln_dtype_name(tensor->dtype))));
    ln_onnx_op_add(op, "params", ln_onnx_json_param("dims",
                   ln_onnx_json_dims(tensor->ndim, tensor->dims)));
    if (from_file)
        ln_onnx_op_add(op, "params", ln_onnx_json_param("from_file", cJSON_CreateTrue()));
    cJSON_AddItemToArray(ops, op);
}

/* Run the node's ops (node_ops[first..]) on their known inputs: its outputs
 * into outs[j] (NULL for an output it does not make), or an error. */
static int run_ops(imp *im, const Onnx__NodeProto *node, int first, ln_tensor **outs)
{
    cJSON *root = cJSON_CreateObject(), *ops = cJSON_AddArrayToObject(root, "ops"), *op;
    ln_hash *made = ln_onnx_str_set(), *seen = ln_onnx_str_set(), *consts = ln_onnx_str_set();
    ln_list *const_names = NULL;
    ln_context *ctx = ln_context_create();
    char *text;
    int k = 0, ret = 0;

    /* the inputs: constants as create ops, shape-only inputs as input ops */
    for (int i = first; i < cJSON_GetArraySize(im->node_ops); i++) {
        cJSON *tin = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(im->node_ops, i),
                                                      "tensors_in"), *x;
        cJSON_ArrayForEach(x, tin) {
            const char *t = cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring;
            const ln_tensor *c = ln_hash_find(im->consts, t);
            char *name;
            if (ln_onnx_set_has(made, t) || ln_onnx_set_has(seen, t))
                continue;
            ln_onnx_set_add(seen, t);
            name = ln_sprintf("__fold_in_%d", k++);
            if (c) {
                add_op_json(ops, name, "create", t, c, LN_TRUE);
                ln_onnx_set_add(consts, t);
                const_names = ln_list_prepend(const_names, (void *)t);
            } else {
                ln_tensor shape;
                memset(&shape, 0, sizeof shape);
                ln_onnx_known_tensor(im, t, &shape.dtype, &shape.ndim, shape.dims);
                add_op_json(ops, name, "input", t, &shape, LN_FALSE);
            }
            ln_free(name);
        }
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(im->node_ops, i),
                                                                "tensors_out")) {
            ln_onnx_set_add(made, cJSON_GetObjectItemCaseSensitive(x, "name")->valuestring);
        }
    }
    for (int i = first; i < cJSON_GetArraySize(im->node_ops); i++)
        cJSON_AddItemToArray(ops, cJSON_Duplicate(cJSON_GetArrayItem(im->node_ops, i), 1));
    for (size_t j = 0; j < node->n_output; j++) {
        char *name;
        if (!*node->output[j] || !ln_onnx_set_has(made, node->output[j]))
            continue;
        name = ln_sprintf("__fold_out_%zu", j);
        op = ln_onnx_json_op(name, "output");
        ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("src", node->output[j]));
        cJSON_AddItemToArray(ops, op);
        ln_free(name);
    }
    text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    if ((ret = ln_context_init_str(ctx, text, "fold")))
        goto out;
    LN_LIST_FOREACH(const char, t, const_names) {
        ln_context_const_set(ctx, t, ln_tensor_copy(ln_hash_find(im->consts, t)));
    }
    for (size_t j = 0; j < node->n_output; j++) {
        const ln_tensor *t;
        if (!*node->output[j] || !ln_onnx_set_has(made, node->output[j]))
            continue;
        t = ln_context_tensor(ctx, node->output[j]);
        if (t && t->len > EVAL_MAX_ELEMS) {
            ret = ln_error(LN_EINVAL, "its output '%s' has %zu elements (results of more than "
                           "2^24 are left to the compiler)", node->output[j], t->len);
            goto out;
        }
    }
    ctx->no_opt = LN_TRUE;
    if ((ret = ln_context_compile(ctx, "cpu")) || (ret = ln_context_load(ctx, NULL)) ||
        (ret = ln_context_run(ctx)))
        goto out;
    for (size_t j = 0; j < node->n_output; j++)
        if (*node->output[j] && ln_onnx_set_has(made, node->output[j]))
            outs[j] = ln_tensor_copy(ln_context_tensor(ctx, node->output[j]));
out:
    free(text);
    ln_context_free(ctx);
    ln_list_free(const_names);
    ln_hash_free(made);
    ln_hash_free(seen);
    ln_hash_free(consts);
    return ret;
}

/* The message of the last error without the "fold: " of the context. */
static const char *error_text(void)
{
    const char *m = ln_error_message();
    return strncmp(m, "fold: ", 6) ? m : m + 6;
}

void ln_onnx_fold_finish(imp *im, ln_onnx_fold_state *f, const Onnx__NodeProto *node,
                         int n_problems, const char *where)
{
    int n_ops = cJSON_GetArraySize(im->node_ops) - f->first_op;
    ln_tensor **outs = NULL;
    ln_bool ok = LN_TRUE;

    if (n_ops <= 0 || im->n_problems != n_problems)
        goto done;                          /* nothing to run, or the mapping failed */
    for (int i = f->first_op; i < f->first_op + n_ops; i++) {
        const char *optype = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(im->node_ops, i),
                                                              "optype")->valuestring;
        for (int k = 0; kept_optypes[k]; k++)
            if (ln_streq(optype, kept_optypes[k])) {
                set_why(im, node, ln_sprintf("%s is kept as an op (the int8 pass reads it)",
                                             where));
                goto done;
            }
    }
    /* every input known: a constant, or by its shape where only that is read */
    for (size_t i = 0; i < node->n_input; i++) {
        const char *in = node->input[i];
        int ndim, dims[LN_MAXDIM];
        if (!*in || ln_hash_find(im->consts, in))
            continue;
        if (reads_shape_only(node->op_type, i)) {
            if (ln_onnx_known_dims(im, in, &ndim, dims))
                continue;
            set_why(im, node, ln_sprintf("%s could not be evaluated at import: the shape of '%s' "
                                         "is not known%s%s%s", where, in,
                                         im->shape_err ? " (" : "",
                                         im->shape_err ? im->shape_err : "",
                                         im->shape_err ? ")" : ""));
            goto done;
        }
        /* the first node that cannot be evaluated is the one named */
        if (ln_hash_find(im->why, in))
            set_why(im, node, ln_strdup(ln_hash_find(im->why, in)));
        else
            set_why(im, node, ln_sprintf("%s could not be evaluated at import: its input '%s' "
                                         "is %s", where, in, is_graph_input(im, in)
                                         ? "a graph input, known only at run time"
                                         : "computed at run time"));
        goto done;
    }
    outs = ln_alloc(sizeof(ln_tensor *) * (node->n_output + 1));
    memset(outs, 0, sizeof(ln_tensor *) * (node->n_output + 1));
    if (run_ops(im, node, f->first_op, outs)) {
        set_why(im, node, ln_sprintf("%s could not be evaluated at import: %s", where,
                                     error_text()));
        ok = LN_FALSE;
    }
    for (size_t j = 0; ok && j < node->n_output; j++)     /* (an output nothing reads may be
                                                          * one the mapping drops) */
        ok = !*node->output[j] || outs[j] || ln_hash_find(im->consts, node->output[j]) ||
             !ln_onnx_set_has(im->consumed, node->output[j]);
    if (!ok) {
        for (size_t j = 0; j < node->n_output; j++)
            if (outs[j])
                ln_tensor_free(outs[j]);
        goto done;
    }
    /* folded: the outputs are constants, the node's ops go */
    for (size_t j = 0; j < node->n_output; j++)
        if (outs[j])
            ln_onnx_add_const(im, node->output[j], outs[j]);
    while (cJSON_GetArraySize(im->node_ops) > f->first_op)
        cJSON_DeleteItemFromArray(im->node_ops, f->first_op);
    for (size_t i = 0; i < node->n_input; i++)
        if (!f->marked[i] && *node->input[i])
            ln_hash_remove(im->as_tensor, node->input[i]);
done:
    ln_free(outs);
    ln_free(f->marked);
    ln_free(f);
}

#endif /* LN_HAVE_ONNX */
