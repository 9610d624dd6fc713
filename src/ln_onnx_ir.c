/*
 * ln_onnx_ir.c -- the ONNX importer's IR: graph inputs to input ops,
 * pre_running the ops imported so far (their shapes, their checks), the
 * create ops of the constants ops read, and the one error naming every
 * problem collected.
 */
#include <math.h>
#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "ln_json.h"
#include "ln_arch.h"
#include "ln_datafile.h"
#include "ln_rt.h"
#include "op/auto/ln_opregistry.h"
#include "ln_onnx.h"
#include "ln_onnx_impl.h"

#ifdef LN_HAVE_ONNX

/* opts->shapes entry for name: dims into dims, rank returned; -1 when none,
 * -2 when malformed (a problem is recorded). */
static int opt_shape(imp *im, const char *name, int *dims)
{
    size_t n = strlen(name);

    if (!im->opts || !im->opts->shapes)
        return -1;
    for (int i = 0; im->opts->shapes[i]; i++) {
        const char *s = im->opts->shapes[i], *p;
        int nd = 0;
        if (strncmp(s, name, n) != 0 || s[n] != '=')
            continue;
        p = s + n + 1;
        while (*p) {
            char *end;
            long v = strtol(p, &end, 10);
            if (end == p || v < 1 || v > INT32_MAX || nd == LN_MAXDIM ||
                (*end && *end != 'x' && *end != 'X' && *end != ',')) {
                ln_onnx_problem(im, "--shape '%s': want name=D1xD2x... with dims >= 1", s);
                return -2;
            }
            dims[nd++] = (int)v;
            p = *end ? end + 1 : end;
        }
        return nd;
    }
    return -1;
}

/* A graph input: its dtype and dims, symbolic dims resolved. */
cJSON *ln_onnx_import_input(imp *im, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto__Tensor *tt;
    int dims[LN_MAXDIM], odims[LN_MAXDIM], ondim, ndim;
    ln_dtype dtype;
    cJSON *op;
    char *name;

    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
        ln_onnx_problem(im, "graph input '%s' is not a tensor (sequences, maps and optionals are not "
                "supported)", vi->name);
        return NULL;
    }
    tt = vi->type->tensor_type;
    dtype = ln_onnx_dtype(tt->elem_type);
    if (dtype == LN_DTYPE_UNKNOWN) {
        ln_onnx_problem(im, "graph input '%s' has type %s, which LightNet does not support", vi->name,
                ln_onnx_type_name(tt->elem_type));
        return NULL;
    }
    ondim = opt_shape(im, vi->name, odims);
    if (ondim == -2)
        return NULL;
    if (!tt->shape) {
        if (ondim < 0) {
            ln_onnx_problem(im, "graph input '%s' has no shape: give --shape %s=D1xD2x...", vi->name,
                    vi->name);
            return NULL;
        }
        ndim = ondim;
        memcpy(dims, odims, sizeof dims);
    } else {
        ndim = (int)tt->shape->n_dim;
        if (ndim > LN_MAXDIM) {
            ln_onnx_problem(im, "graph input '%s' has %d dims; LightNet allows %d", vi->name, ndim,
                    LN_MAXDIM);
            return NULL;
        }
        if (ondim >= 0 && ondim != ndim) {
            ln_onnx_problem(im, "--shape %s has %d dims, the model's input has %d", vi->name, ondim,
                    ndim);
            return NULL;
        }
        for (int i = 0; i < ndim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            ln_bool known = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                            && d->dim_value > 0;
            if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                d->dim_value == 0) {    /* (a negative one is taken as unknown) */
                ln_onnx_problem(im, "graph input '%s' dim %d is 0: empty tensors are not "
                                "supported", vi->name, i);
                return NULL;
            }
            if (known && d->dim_value > INT32_MAX) {
                ln_onnx_problem(im, "graph input '%s' dim %d is too large", vi->name, i);
                return NULL;
            }
            if (known && ondim >= 0 && odims[i] != d->dim_value) {
                ln_onnx_problem(im, "--shape %s: dim %d is %d, the model fixes it at %lld", vi->name,
                        i, odims[i], (long long)d->dim_value);
                return NULL;
            }
            if (known)
                dims[i] = (int)d->dim_value;
            else if (ondim >= 0)
                dims[i] = odims[i];
            else if (i == 0)
                dims[i] = 1;                /* a symbolic batch: 1 */
            else {
                const char *sym = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                                  ? d->dim_param : "?";
                ln_onnx_problem(im, "graph input '%s' dim %d is symbolic ('%s'): give --shape %s=...",
                        vi->name, i, sym, vi->name);
                return NULL;
            }
        }
    }
    name = ln_onnx_op_name(im, vi->name);
    op = ln_onnx_json_op(name, "input");
    ln_free(name);
    ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref("dst", vi->name));
    ln_onnx_op_add(op, "params", ln_onnx_json_param("dtype", cJSON_CreateString(ln_dtype_name(dtype))));
    ln_onnx_op_add(op, "params", ln_onnx_json_param("dims", ln_onnx_json_dims(ndim, dims)));
    return op;
}

/*
 * root's ops pre_run in order on a scratch tensor table.  With report
 * (the finished IR), every op whose own checks fail is a ln_onnx_problem (ops
 * that read a failed op's output are skipped, their errors would only echo
 * it).  Without (the ops so far, for known_dims), the dims of every
 * tensor an op produced go into im->shapes.
 */
void ln_onnx_pre_run_ir(imp *im, const cJSON *root, ln_bool report)
{
    ln_hash *table = ln_tensor_table_create(), *failed = ln_onnx_str_set();
    ln_list *ops = NULL, *done = NULL;

    ln_arch_init();
    if (ln_json_parse_ops(root, im->source, table, &ops)) {
        if (report)
            ln_onnx_problem_c(im, ln_error_code(), "%s", ln_error_message());
        goto out;
    }
    LN_LIST_FOREACH(ln_op, op, ops) {
        ln_bool skip = LN_FALSE;
        LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_in) {
            skip = skip || ln_onnx_set_has(failed, tle->name);
        }
        if (!skip && !ln_op_pre_run(op)) {
            done = ln_list_prepend(done, op);
            LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_out) {
                ln_tensor_entry *te = ln_tensor_table_find(table, tle->name);
                dims_entry *d;
                if (report || !te || ln_hash_find(im->shapes, tle->name))
                    continue;
                d = ln_alloc(sizeof *d);
                d->dtype = te->tensor->dtype;
                d->ndim = te->tensor->ndim;
                memcpy(d->dims, te->tensor->dims, sizeof d->dims);
                ln_hash_insert(im->shapes, ln_strdup(tle->name), d);
            }
            continue;
        }
        if (!skip && report)
            ln_onnx_problem_c(im, ln_error_code(), "%s", ln_error_message());
        else if (!skip && !im->shape_err)
            im->shape_err = ln_strdup(ln_error_message());
        LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_out) {
            ln_onnx_set_add(failed, tle->name);
        }
    }
    LN_LIST_FOREACH(ln_op, op, done) {
        if (op->post_run)
            op->post_run(op->op_arg);
    }
out:
    ln_list_free(done);
    ln_op_list_free_deep(ops);
    ln_tensor_table_free(table);
    ln_hash_free(failed);
}

/* A create op (from_file) for every constant an op reads as a tensor. */
void ln_onnx_add_create_ops(imp *im, cJSON *ops)
{
    LN_LIST_FOREACH(const char, cname, im->const_order) {
        const ln_tensor *t = ln_hash_find(im->consts, cname);
        char *name;
        cJSON *op;
        if (!ln_onnx_set_has(im->as_tensor, cname))
            continue;
        name = ln_onnx_op_name(im, cname);
        op = ln_onnx_json_op(name, "create");
        ln_free(name);
        ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref("dst", cname));
        ln_onnx_op_add(op, "params", ln_onnx_json_param("dtype", cJSON_CreateString(ln_dtype_name(t->dtype))));
        ln_onnx_op_add(op, "params", ln_onnx_json_param("dims", ln_onnx_json_dims(t->ndim, t->dims)));
        ln_onnx_op_add(op, "params", ln_onnx_json_param("from_file", cJSON_CreateTrue()));
        cJSON_AddItemToArray(ops, op);
    }
}

/* The IR of the ops imported so far (inputs, constants, nodes). */
cJSON *ln_onnx_ir_so_far(imp *im)
{
    cJSON *root = cJSON_CreateObject(), *ops = cJSON_AddArrayToObject(root, "ops"), *op;
    ln_hash *taken = im->opnames;

    cJSON_ArrayForEach(op, im->input_ops) {
        cJSON_AddItemToArray(ops, cJSON_Duplicate(op, 1));
    }
    im->opnames = ln_onnx_str_set();               /* names here need not be kept */
    cJSON_ArrayForEach(op, im->node_ops) {
        ln_onnx_set_add(im->opnames, cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring);
    }
    cJSON_ArrayForEach(op, im->input_ops) {
        ln_onnx_set_add(im->opnames, cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring);
    }
    ln_onnx_add_create_ops(im, ops);
    ln_hash_free(im->opnames);
    im->opnames = taken;
    cJSON_ArrayForEach(op, im->node_ops) {
        cJSON_AddItemToArray(ops, cJSON_Duplicate(op, 1));
    }
    return root;
}

/* The one error naming everything collected (it must fit 1 KB): the
 * unsupported op types first, then whole problems while they fit. */
int ln_onnx_report(imp *im)
{
    size_t cap = 940, len = 0;
    char *msg = ln_alloc(cap + 64);
    int shown = 0;

    msg[0] = '\0';
    if (im->n_unsup) {
        len += (size_t)snprintf(msg + len, cap - len, "unsupported at opset %d:", im->opset);
        for (int i = 0; i < im->n_unsup && len < cap; i++) {
            const unsup_op *u = &im->unsup[i];
            len += (size_t)snprintf(msg + len, cap - len, "%s %s (node%s %s%s)",
                                    i ? "," : "", u->op_type, u->count > 1 ? "s" : "",
                                    u->nodes, u->count > MAX_NODES_NAMED ? ", ..." : "");
        }
        if (len >= cap)
            len = strlen(msg);
    }
    for (; shown < im->n_problems && shown < MAX_PROBLEMS; shown++) {
        size_t before = len;
        len += (size_t)snprintf(msg + len, cap - len, "%s%s", len ? "; " : "",
                                im->problems[shown]);
        if (len >= cap) {
            len = before;
            msg[len] = '\0';
            break;
        }
    }
    if (shown < im->n_problems)
        snprintf(msg + len, 64, "%sand %d more", len ? "; " : "", im->n_problems - shown);
    ln_error(im->n_unsup ? LN_EUNSUPPORTED : im->code, "%s: %s", im->source, msg);
    ln_free(msg);
    return ln_error_code();
}

/* The dims of tensor name (not a constant), from pre_running the ops
 * imported so far; LN_FALSE when they are not known. */
ln_bool ln_onnx_known_dims(imp *im, const char *name, int *ndim, int *dims)
{
    ln_dtype dtype;
    return ln_onnx_known_tensor(im, name, &dtype, ndim, dims);
}

ln_bool ln_onnx_known_tensor(imp *im, const char *name, ln_dtype *dtype, int *ndim, int *dims)
{
    const dims_entry *d = ln_hash_find(im->shapes, name);

    if (!d && im->shapes_ops != cJSON_GetArraySize(im->node_ops) + 1) {
        cJSON *root = ln_onnx_ir_so_far(im);
        ln_onnx_pre_run_ir(im, root, LN_FALSE);
        cJSON_Delete(root);
        im->shapes_ops = cJSON_GetArraySize(im->node_ops) + 1;
        d = ln_hash_find(im->shapes, name);
    }
    if (!d)
        return LN_FALSE;
    *dtype = d->dtype;
    *ndim = d->ndim;
    memcpy(dims, d->dims, sizeof d->dims);
    return LN_TRUE;
}

/* A tensor name no graph tensor has, from base. */
static char *fresh_tensor(imp *im, const char *base)
{
    char *n = ln_strdup(base);

    for (int i = 1; ln_onnx_set_has(im->defined, n) || ln_onnx_set_has(im->consumed, n); i++) {
        ln_free(n);
        n = ln_sprintf("%s_%d", base, i);
    }
    ln_onnx_set_add(im->defined, n);
    return n;
}

static cJSON *find_item(cJSON *list, const char *arg_name)
{
    cJSON *x;

    cJSON_ArrayForEach(x, list) {
        cJSON *a = cJSON_GetObjectItemCaseSensitive(x, "arg_name");
        if (cJSON_IsString(a) && ln_streq(a->valuestring, arg_name))
            return x;
    }
    return NULL;
}

/* A view op (unsqueeze or squeeze of axis 2) from tensor src to dst. */
static cJSON *axis2_view(imp *im, const char *optype, const char *opname, const char *src,
                         const char *dst)
{
    char *base = ln_sprintf("%s_%s", opname, optype), *n = ln_onnx_op_name(im, base);
    cJSON *op = ln_onnx_json_op(n, optype), *axes = cJSON_CreateArray();

    cJSON_AddItemToArray(axes, cJSON_CreateNumber(2));
    ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("src", src));
    ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref("dst", dst));
    ln_onnx_op_add(op, "params", ln_onnx_json_param("axes", axes));
    ln_free(base);
    ln_free(n);
    return op;
}

/* Is this Conv, ConvTranspose, ConvInteger, MaxPool or AveragePool 1-D (a
 * kernel of one axis, or a rank-3 weight or input)? */
ln_bool ln_onnx_is_1d(imp *im, const char *op_type, cJSON *op, const Onnx__NodeProto *node)
{
    cJSON *ks = find_item(cJSON_GetObjectItemCaseSensitive(op, "params"), "kernel_shape");
    const ln_tensor *w;
    int ndim, dims[LN_MAXDIM];

    if (ln_streq(op_type, "Resize") || ln_streq(op_type, "Upsample"))   /* F.interpolate on [n, c, l] */
        return node->n_input > 0 && ln_onnx_known_dims(im, node->input[0], &ndim, dims) && ndim == 3;
    if (!ln_streq(op_type, "Conv") && !ln_streq(op_type, "ConvTranspose") &&
        !ln_streq(op_type, "ConvInteger") && !ln_streq(op_type, "MaxPool") &&
        !ln_streq(op_type, "AveragePool"))
        return LN_FALSE;
    if (ks && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ks, "value")) > 0)
        return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ks, "value")) == 1;
    if (node->n_input > 1 && (w = ln_hash_find(im->consts, node->input[1])))
        return w->ndim == 3;
    return node->n_input > 0 && ln_onnx_known_dims(im, node->input[0], &ndim, dims) && ndim == 3;
}

/*
 * A 1-D convolution or pooling viewed as 2-D, which is exact: the input
 * (and a conv's weight) gets a size-1 axis 2, the op a kernel of height 1
 * (kernel_shape, strides, dilations [v] -> [1, v], output_padding [v] ->
 * [0, v], pads [b, e] -> [0, b, 0, e], output_shape [l] -> [1, l]), and its output
 * loses the axis again.  The same for a 1-D Resize (F.interpolate on [n, c, l],
 * nearest or linear): scales [a, b, s] -> [a, b, 1, s], sizes [n, c, l] ->
 * [n, c, 1, l]; a height of 1 kept at 1 is exact in every coordinate mode.
 * The unsqueeze and squeeze are views (no copy).
 */
void ln_onnx_view_1d_as_2d(imp *im, cJSON *op, const char *opname)
{
    static const char *const pair[] = {"kernel_shape", "stride", "dilation", "output_padding",
                                       "output_shape", NULL};
    cJSON *params = cJSON_GetObjectItemCaseSensitive(op, "params"), *x;
    cJSON *tin = cJSON_GetObjectItemCaseSensitive(op, "tensors_in");
    cJSON *tout = cJSON_GetObjectItemCaseSensitive(op, "tensors_out");

    for (int i = 0; pair[i]; i++) {
        cJSON *p = find_item(params, pair[i]), *v;
        if (p && cJSON_IsArray(v = cJSON_GetObjectItemCaseSensitive(p, "value")) &&
            cJSON_GetArraySize(v) == 1) {
            /* a height-1 axis: no padding added to it, everything else 1 */
            double d[2] = {ln_streq(pair[i], "output_padding") ? 0 : 1,
                           cJSON_GetArrayItem(v, 0)->valuedouble};
            cJSON_ReplaceItemInObjectCaseSensitive(p, "value", cJSON_CreateDoubleArray(d, 2));
        }
    }
    for (int i = 0; i < 2; i++) {   /* Resize: a 1 at axis 2 */
        cJSON *p = find_item(params, i ? "sizes" : "scales"), *v;
        if (p && cJSON_IsArray(v = cJSON_GetObjectItemCaseSensitive(p, "value")) &&
            cJSON_GetArraySize(v) == 3) {
            double d[4] = {cJSON_GetArrayItem(v, 0)->valuedouble,
                           cJSON_GetArrayItem(v, 1)->valuedouble, 1,
                           cJSON_GetArrayItem(v, 2)->valuedouble};
            cJSON_ReplaceItemInObjectCaseSensitive(p, "value", cJSON_CreateDoubleArray(d, 4));
        }
    }
    if ((x = find_item(params, "pads"))) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(x, "value");
        if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2) {
            double d[4] = {0, cJSON_GetArrayItem(v, 0)->valuedouble, 0,
                           cJSON_GetArrayItem(v, 1)->valuedouble};
            cJSON_ReplaceItemInObjectCaseSensitive(x, "value", cJSON_CreateDoubleArray(d, 4));
        }
    }
    /* src, weight: through an unsqueeze; dst: from a squeeze */
    cJSON_ArrayForEach(x, tin) {
        const char *arg = cJSON_GetObjectItemCaseSensitive(x, "arg_name")->valuestring;
        cJSON *nm = cJSON_GetObjectItemCaseSensitive(x, "name");
        char *base, *t;
        if (!ln_streq(arg, "src") && !ln_streq(arg, "weight"))
            continue;
        base = ln_sprintf("%s_2d", nm->valuestring);
        t = fresh_tensor(im, base);
        cJSON_AddItemToArray(im->node_ops, axis2_view(im, "unsqueeze", opname, nm->valuestring, t));
        cJSON_ReplaceItemInObjectCaseSensitive(x, "name", cJSON_CreateString(t));
        ln_free(base);
        ln_free(t);
    }
    cJSON_ArrayForEach(x, tout) {
        cJSON *nm = cJSON_GetObjectItemCaseSensitive(x, "name");
        char *base = ln_sprintf("%s_2d", nm->valuestring), *t = fresh_tensor(im, base);
        char *y = ln_strdup(nm->valuestring);
        cJSON_ReplaceItemInObjectCaseSensitive(x, "name", cJSON_CreateString(t));
        /* the op goes first, then the squeeze (map_node adds it after) */
        im->pending = axis2_view(im, "squeeze", opname, t, y);
        ln_free(base);
        ln_free(t);
        ln_free(y);
    }
}

/* The spatial axes of a Conv, ConvTranspose, ConvInteger, MaxPool or
 * AveragePool: the
 * kernel_shape's entries, else the constant weight's rank or the input's
 * less 2; 0 when unknown or another op type. */
static int spatial_axes(imp *im, const char *op_type, cJSON *op, const Onnx__NodeProto *node)
{
    cJSON *ks = find_item(cJSON_GetObjectItemCaseSensitive(op, "params"), "kernel_shape");
    const ln_tensor *w;
    int ndim, dims[LN_MAXDIM];

    if (!ln_streq(op_type, "Conv") && !ln_streq(op_type, "ConvTranspose") &&
        !ln_streq(op_type, "ConvInteger") && !ln_streq(op_type, "MaxPool") &&
        !ln_streq(op_type, "AveragePool"))
        return 0;
    if (ks && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ks, "value")) > 0)
        return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ks, "value"));
    if (!ln_streq(op_type, "MaxPool") && !ln_streq(op_type, "AveragePool") &&
        node->n_input > 1 && (w = ln_hash_find(im->consts, node->input[1])))
        return w->ndim - 2;
    if (node->n_input > 0 && ln_onnx_known_dims(im, node->input[0], &ndim, dims))
        return ndim - 2;
    return 0;
}

/*
 * 3-D convolution and pooling, and MaxPool with its Indices output: the
 * 2-D op the mapping chose becomes conv3d, conv_transpose3d,
 * conv3d_integer, maxpool3d or avgpool3d (maxpool3d also takes the 4-D input of a 2-D MaxPool whose
 * Indices are used).  The params the mapping filled from 2-D defaults
 * (attributes the node does not have) are dropped: the 3-D ops default
 * them per axis.  Returns LN_TRUE when it retargeted op.
 */
ln_bool ln_onnx_retarget_3d(imp *im, const char *op_type, cJSON *op,
                            const Onnx__NodeProto *node, const ln_opregistry_onnx_entry *e,
                            const char *where)
{
    static const char *const map[][2] = {{"Conv", "conv3d"},
                                         {"ConvTranspose", "conv_transpose3d"},
                                         {"ConvInteger", "conv3d_integer"},
                                         {"MaxPool", "maxpool3d"},
                                         {"AveragePool", "avgpool3d"}};
    int nsp = spatial_axes(im, op_type, op, node);
    ln_bool indices = ln_streq(op_type, "MaxPool") && node->n_output > 1 && *node->output[1];
    cJSON *params = cJSON_GetObjectItemCaseSensitive(op, "params");
    const char *optype = NULL;

    if (indices && nsp == 1) {
        ln_onnx_problem(im, "%s: the Indices output of a 1-D MaxPool is not supported "
                        "(2-D and 3-D are)", where);
        return LN_FALSE;
    }
    if (nsp != 3 && !(indices && nsp == 2))
        return LN_FALSE;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (ln_streq(op_type, map[i][0]))
            optype = map[i][1];
    cJSON_ReplaceItemInObjectCaseSensitive(op, "optype", cJSON_CreateString(optype));
    for (int k = 0; e->attrs[k].attr; k++) {
        ln_bool given = LN_FALSE;
        cJSON *p;
        for (size_t j = 0; j < node->n_attribute; j++)
            given = given || ln_streq(node->attribute[j]->name, e->attrs[k].attr);
        if (!given && *e->attrs[k].attr && (p = find_item(params, e->attrs[k].param))) {
            cJSON *x;
            int idx = 0;
            cJSON_ArrayForEach(x, params) {
                if (x == p)
                    break;
                idx++;
            }
            cJSON_DeleteItemFromArray(params, idx);
        }
    }
    return LN_TRUE;
}

#endif /* LN_HAVE_ONNX */
