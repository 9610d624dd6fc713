/*
 * ln_onnx.c -- the ONNX importer: ModelProto -> JSON IR + constants.
 *
 * protobuf-c parses the model with the C generated at build time from the
 * system's onnx.proto (mk/onnx.mk).  The import is one pass over the graph
 * in its (topological) order:
 *
 *   graph inputs that are not initializers   -> `input` ops
 *   initializers, Constant nodes              -> constants; a `create` op
 *                                                (from_file) for each one
 *                                                some op reads as a tensor
 *   each node, by ln_opregistry_onnx[]        -> one abstract op; an input
 *                                                mapped to "@param" must be
 *                                                a constant and becomes the
 *                                                param; "" is ignored
 *   a node whose inputs are known at import   -> its op runs now (the
 *   (Shape, Gather, Concat, Range, ...)          interpreter's path), its
 *                                                outputs are constants and
 *                                                no op is left
 *                                                (ln_onnx_fold.c)
 *   graph outputs                             -> `output` ops
 *
 * Tensor names are the ONNX names; op names are the node names, or
 * "<op_type>_<index>" when empty, made unique.  The import does not stop at
 * the first thing it cannot do: every unsupported op type (with its nodes
 * and the opset), attribute, dynamic shape and undefined tensor is
 * collected, and the finished IR is pre_run op by op so the ops' own
 * checks (an unsupported mode, a bad shape) are collected too.  One error
 * then names them all.  Not supported: other domains than ai.onnx (but
 * ONNX Runtime's com.microsoft QOperator nodes, ln_onnx_qop.c),
 * external data, sparse initializers, sequence/map types.  If, Loop and
 * Scan (subgraphs) are inlined by ln_onnx_ctrl.c.
 */
#include <math.h>
#include <float.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "ln_onnx.h"
#include "ln_json.h"
#include "ln_arch.h"
#include "ln_datafile.h"
#include "ln_rt.h"
#include "op/auto/ln_opregistry.h"
#include "ln_onnx_impl.h"

#ifdef LN_HAVE_ONNX

ln_bool ln_onnx_enabled(void)
{
    return LN_TRUE;
}

/* ---- the graph ---------------------------------------------------------- */

static const ln_opregistry_onnx_entry *find_entry(const char *op_type, int opset)
{
    for (const ln_opregistry_onnx_entry *e = ln_opregistry_onnx; e->op_type; e++)
        if (ln_streq(e->op_type, op_type) && e->since <= opset &&
            (e->until == 0 || opset <= e->until))
            return e;
    return NULL;
}

static ln_bool optype_stripped(const char *optype)
{
    return ln_arch_op_stripped(optype);
}

ln_bool ln_onnx_op_supported(const char *op_type, int opset, const char **optype)
{
    const ln_opregistry_onnx_entry *e = find_entry(op_type, opset);

    if (ln_onnx_is_qop(op_type) && opset >= 10) {
        if (optype)
            *optype = "(as DequantizeLinear -> op -> QuantizeLinear)";
        return LN_TRUE;
    }
    if (!e || optype_stripped(e->optype))
        return LN_FALSE;
    if (optype)
        *optype = e->optype;
    return LN_TRUE;
}

static int count_names(const char *const *names)
{
    int n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* A tensor arg (not "@param", not ignored): may be variadic. */
static ln_bool is_plain_arg(const char *arg)
{
    return *arg && arg[0] != '@';
}

/* Whether the arg of optype is variadic (<arg>_0, <arg>_1, ...) even when one
 * ONNX input (output) maps to it.  The ONNX table does not say, but
 * opgen.pl allows "${<arg>.count}" in an aot template only for a variadic
 * tensor, and every variadic op's cpu kernel takes that count: look for it
 * in the template of <optype>_cpu. */
static ln_bool is_variadic_arg(const char *optype, const char *arg)
{
    char *arch_optype = ln_sprintf("%s_cpu", optype);
    char *ph = ln_sprintf("${%s.count}", arg);
    ln_bool found = LN_FALSE;

    for (const ln_opregistry_aot_entry *a = ln_opregistry_aot; a->optype; a++)
        if (ln_streq(a->optype, arch_optype)) {
            found = a->call && strstr(a->call, ph) != NULL;
            break;
        }
    ln_free(ph);
    ln_free(arch_optype);
    return found;
}

static ln_bool is_default_domain(const char *d)
{
    return !d || !*d || ln_streq(d, "ai.onnx");
}

/* A Constant node: its value into the constants. */
static void import_constant(imp *im, const Onnx__NodeProto *node, const char *where)
{
    const Onnx__AttributeProto *a = node->n_attribute == 1 ? node->attribute[0] : NULL;
    const char *name = node->n_output ? node->output[0] : NULL;
    ln_tensor *t = NULL;

    if (!name || !*name) {
        ln_onnx_problem(im, "%s: Constant without an output", where);
        return;
    }
    if (!a) {
        ln_onnx_problem(im, "%s: Constant needs exactly one value attribute", where);
        ln_onnx_set_add(im->defined, name);
        return;
    }
    if (ln_streq(a->name, "value") && a->t) {
        char *what = ln_sprintf("%s: value", where);
        if (ln_onnx_tensor_from_proto(a->t, what, &t))
            ln_onnx_problem_c(im, ln_error_code(), "%s", ln_error_message());
        ln_free(what);
    } else if (ln_streq(a->name, "value_float") || ln_streq(a->name, "value_floats")) {
        int scalar = ln_streq(a->name, "value_float"), n = scalar ? 1 : (int)a->n_floats;
        t = ln_tensor_create_alloc(LN_DTYPE_FLOAT32, scalar ? 0 : 1, &n);
        for (int i = 0; i < n; i++)
            ((float *)t->data)[i] = scalar ? a->f : a->floats[i];
    } else if (ln_streq(a->name, "value_int") || ln_streq(a->name, "value_ints")) {
        int scalar = ln_streq(a->name, "value_int"), n = scalar ? 1 : (int)a->n_ints;
        t = ln_tensor_create_alloc(LN_DTYPE_INT64, scalar ? 0 : 1, &n);
        for (int i = 0; i < n; i++)
            ((int64_t *)t->data)[i] = scalar ? a->i : a->ints[i];
    } else {
        ln_onnx_problem(im, "%s: Constant attribute '%s' is not supported", where, a->name);
    }
    if (t)
        ln_onnx_add_const(im, name, t);
    else
        ln_onnx_set_add(im->defined, name);
}

/* ONNX ops that take any number of inputs where LightNet's op takes two
 * and is associative: one input becomes an identity, n > 2 a chain of n - 1
 * binary ops through tensors "<output>__<k>" (ops "<name>_<k>"). */
static const char *const chained_ops[] = {"Max", "Min", "Sum", NULL};

static ln_bool is_chained(const char *op_type)
{
    for (int i = 0; chained_ops[i]; i++)
        if (ln_streq(chained_ops[i], op_type))
            return LN_TRUE;
    return LN_FALSE;
}

static void import_chain(imp *im, const Onnx__NodeProto *node,
                         const ln_opregistry_onnx_entry *e, const char *name,
                         const char *where)
{
    const char *out = node->output[0], *prev = NULL;
    char *prev_own = NULL;
    int n = 0, k = 0;

    for (size_t j = 0; j < node->n_attribute; j++)
        ln_onnx_problem(im, "%s: attribute '%s' is not supported at opset %d", where,
                node->attribute[j]->name, im->opset);
    for (size_t i = 0; i < node->n_input; i++) {
        const char *in = node->input[i];
        if (!*in)
            continue;
        if (!ln_onnx_set_has(im->defined, in))
            ln_onnx_problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                      "initializer, Constant or earlier node output has that name)", where, in);
        if (ln_hash_find(im->consts, in))
            ln_onnx_set_add(im->as_tensor, in);
        n++;
    }
    ln_onnx_set_add(im->defined, out);
    if (n == 0) {
        ln_onnx_problem(im, "%s: no inputs", where);
        return;
    }
    for (size_t i = 0; i < node->n_input; i++) {
        const char *in = node->input[i];
        char *dst, *opname;
        cJSON *op;
        if (!*in)
            continue;
        if (!prev && n > 1) {
            prev = in;
            continue;
        }
        k++;
        dst = k == (n > 1 ? n - 1 : 1) ? ln_strdup(out) : ln_sprintf("%s__%d", out, k);
        if (k == 1) {
            opname = ln_strdup(name);
        } else {
            char *b = ln_sprintf("%s_%d", name, k);
            opname = ln_onnx_op_name(im, b);
            ln_free(b);
        }
        if (n == 1) {
            op = ln_onnx_json_op(opname, "identity");
            ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("src", in));
            ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref("dst", dst));
        } else {
            op = ln_onnx_json_op(opname, e->optype);
            ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref(e->inputs[0], prev));
            ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref(e->inputs[1], in));
            ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref(e->outputs[0], dst));
        }
        cJSON_AddItemToArray(im->node_ops, op);
        ln_free(opname);
        ln_free(prev_own);
        prev = prev_own = dst;              /* the next op reads it */
    }
    ln_free(prev_own);
}

/* Dropout's mask in inference (all true, the input's shape): a constant,
 * also in training with a constant ratio of 0 (nothing dropped).  A problem
 * otherwise; LN_FALSE when the input's shape is not known. */
static ln_bool dropout_mask(imp *im, const Onnx__NodeProto *node, const char *o,
                            const char *where)
{
    const ln_tensor *x = ln_hash_find(im->consts, node->input[0]), *tm;
    int ndim, dims[LN_MAXDIM];
    ln_tensor *m;

    ln_onnx_set_add(im->defined, o);
    if (node->n_input > 2 && *node->input[2]) {
        const ln_tensor *r = node->n_input > 1 && *node->input[1]
                             ? ln_hash_find(im->consts, node->input[1]) : NULL;
        tm = ln_hash_find(im->consts, node->input[2]);
        if (!tm || !tm->len ||
            (ln_onnx_tensor_get(tm, 0) != 0 && !(r && r->len == 1 && ln_onnx_tensor_get(r, 0) == 0))) {
            ln_onnx_problem(im, "%s: output 2 ('%s', the mask) is used, and LightNet makes it only "
                    "in inference (training_mode a constant false, or a constant ratio of 0)",
                    where, o);
            return LN_TRUE;
        }
    }
    if (x) {
        ndim = x->ndim;
        memcpy(dims, x->dims, sizeof dims);
    } else if (!ln_onnx_known_dims(im, node->input[0], &ndim, dims)) {
        return LN_FALSE;
    }
    m = ln_tensor_create_alloc(LN_DTYPE_BOOL, ndim, dims);
    memset(m->data, 1, m->len);
    ln_onnx_add_const(im, o, m);
    return LN_TRUE;
}

/* A node mapped to an op: what the mapping says, and the op being built. */
typedef struct nodemap {
    imp *im;
    const Onnx__NodeProto *node;
    const ln_opregistry_onnx_entry *e;
    const char *where;
    cJSON *op;
    int n_in, n_out;             /* the mapping's inputs and outputs */
    ln_bool var_in, var_out;     /* the last of them is variadic here */
    ln_bool nd3;                 /* retargeted to a 3-D op */
} nodemap;

/* The node's inputs: tensors_in, or params ("@param", a constant). */
static void map_inputs(nodemap *m)
{
    imp *im = m->im;
    const ln_opregistry_onnx_entry *e = m->e;
    int n_empty = 0;

    for (size_t i = 0; i < m->node->n_input; i++) {
        const char *in = m->node->input[i], *arg;
        if (!*in)
            continue;                       /* optional input left out */
        if (m->var_in && (int)i >= m->n_in - 1) {
            const ln_tensor *c = ln_hash_find(im->consts, in);
            char *vname;
            if (c && !c->len && ln_streq(e->optype, "concat")) {
                n_empty++;                  /* Concat's empty constant (a Shape's empty
                                             * Slice): it adds nothing */
                continue;
            }
            vname = ln_sprintf("%s_%d", e->inputs[m->n_in - 1], (int)i - (m->n_in - 1) - n_empty);
            if (!ln_onnx_set_has(im->defined, in))
                ln_onnx_problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                                  "initializer, Constant or earlier node output has that name)",
                                  m->where, in);
            else
                ln_onnx_op_add(m->op, "tensors_in", ln_onnx_json_tensor_ref(vname, in));
            if (ln_hash_find(im->consts, in))
                ln_onnx_set_add(im->as_tensor, in);
            ln_free(vname);
            continue;
        }
        if ((int)i >= m->n_in) {
            ln_onnx_problem(im, "%s: input %zu ('%s') is not supported (LightNet's %s takes %d)",
                            m->where, i + 1, in, e->optype, m->n_in);
            continue;
        }
        arg = e->inputs[i];
        if (!*arg)
            continue;                       /* ignored by the mapping */
        if (arg[0] == '@') {
            /* "@param" or "@param|tensor": a constant is the param, else the
             * input is that tensor when the mapping names one; "@param:dt":
             * and the constant's dtype name is the param dt */
            ln_tensor *t = ln_hash_find(im->consts, in);
            const char *bar = strchr(arg, '|');
            char *param = ln_strdup(arg + 1), *colon;
            if (bar)
                param[bar - arg - 1] = '\0';
            if ((colon = strchr(param, ':')))
                *colon++ = '\0';
            if (t && colon)
                ln_onnx_op_add(m->op, "params", ln_onnx_json_param(colon,
                               cJSON_CreateString(ln_dtype_name(t->dtype))));
            if (!t && bar && ln_onnx_set_has(im->defined, in)) {
                ln_onnx_op_add(m->op, "tensors_in", ln_onnx_json_tensor_ref(bar + 1, in));
            } else if (!t && ln_onnx_set_has(im->defined, in)) {
                ln_onnx_problem(im, "%s: input '%s' (%s) must be a constant (an initializer, a "
                                "Constant node, or computed from those and known shapes), not a "
                                "graph input or computed at run time: %s", m->where, in, param,
                                ln_onnx_why_not_const(im, in));
            } else if (!t) {
                ln_onnx_problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                                  "initializer, Constant or earlier node output has that name)",
                                  m->where, in);
            } else {
                ln_onnx_op_add(m->op, "params", ln_onnx_json_param(param, ln_onnx_json_const_value(t)));
            }
            ln_free(param);
            continue;
        }
        if (!ln_onnx_set_has(im->defined, in)) {
            ln_onnx_problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                              "initializer, Constant or earlier node output has that name)",
                              m->where, in);
            continue;
        }
        if (ln_hash_find(im->consts, in))
            ln_onnx_set_add(im->as_tensor, in);
        ln_onnx_op_add(m->op, "tensors_in", ln_onnx_json_tensor_ref(arg, in));
    }
}

/* A one-element TENSOR attribute mapped to "value:dt": its value (returned)
 * and its dtype's name as the param dt. */
static cJSON *tensor_attr(nodemap *m, const Onnx__AttributeProto *a, const char *params)
{
    char *what = ln_sprintf("%s: attribute '%s'", m->where, a->name);
    ln_tensor *t = NULL;
    cJSON *v = NULL;

    if (ln_onnx_attr_type(a) != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !a->t)
        ln_onnx_problem(m->im, "%s must be a tensor", what);
    else if (ln_onnx_tensor_from_proto(a->t, what, &t))
        ln_onnx_problem_c(m->im, ln_error_code(), "%s", ln_error_message());
    else if (t->len != 1)
        ln_onnx_problem(m->im, "%s must hold one element, not %zu", what, t->len);
    else if (t->dtype == LN_DTYPE_BOOL)
        v = cJSON_CreateNumber(ln_onnx_tensor_get(t, 0) != 0);
    else
        v = cJSON_CreateNumber(ln_onnx_tensor_get(t, 0));
    if (v)
        ln_onnx_op_add(m->op, "params", ln_onnx_json_param(strchr(params, ':') + 1,
                       cJSON_CreateString(ln_dtype_name(t->dtype))));
    if (t)
        ln_tensor_free(t);
    ln_free(what);
    return v;
}

/* The node's attributes: the mapped ones become params (a required one
 * missing is a problem), the others must be harmless. */
static void map_attrs(nodemap *m, const char *op_type)
{
    imp *im = m->im;
    const Onnx__NodeProto *node = m->node;

    for (int k = 0; m->e->attrs[k].attr; k++) {
        const ln_opregistry_onnx_attr *ma = &m->e->attrs[k];
        const Onnx__AttributeProto *a = NULL;
        cJSON *v = NULL;
        for (size_t j = 0; j < node->n_attribute; j++)
            if (ln_streq(node->attribute[j]->name, ma->attr))
                a = node->attribute[j];
        if (!*ma->attr)
            v = cJSON_Parse(ma->def);       /* no attribute: a fixed param */
        else if (a && strchr(ma->param, ':'))
            v = tensor_attr(m, a, ma->param);
        else if (a)
            v = ln_onnx_attr_json(im, m->where, a);
        else if (ma->def && ln_streq(ma->def, "null"))
            v = NULL;                       /* absent: the op's own default */
        else if (ma->def)
            v = cJSON_Parse(ma->def);
        else
            ln_onnx_problem_c(im, LN_EPARSE, "%s: required attribute '%s' is missing", m->where,
                              ma->attr);
        if (v) {
            char *param = ln_strdup(ma->param), *colon = strchr(param, ':');
            if (colon)
                *colon = '\0';
            ln_onnx_op_add(m->op, "params", ln_onnx_json_param(param, v));
            ln_free(param);
        }
    }
    for (size_t j = 0; j < node->n_attribute; j++) {
        const Onnx__AttributeProto *a = node->attribute[j];
        ln_bool mapped = LN_FALSE;
        cJSON *v;
        for (int k = 0; m->e->attrs[k].attr; k++)
            mapped = mapped || ln_streq(m->e->attrs[k].attr, a->name);
        if (mapped)
            continue;
        v = ln_onnx_attr_type(a) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH
                ? NULL : ln_onnx_attr_json(im, m->where, a);
        if (!ln_onnx_attr_ignorable(op_type, a->name, v)) {
            char *s = v ? cJSON_PrintUnformatted(v) : NULL;
            ln_onnx_problem(im, "%s: attribute '%s'%s%s is not supported at opset %d", m->where,
                            a->name, s ? " = " : "", s ? s : "", im->opset);
            free(s);
        }
        cJSON_Delete(v);
    }
}

/* The node's outputs: tensors_out (Dropout's mask a constant). */
static void map_outputs(nodemap *m, const char *op_type)
{
    imp *im = m->im;
    const ln_opregistry_onnx_entry *e = m->e;

    for (size_t i = 0; i < m->node->n_output; i++) {
        const char *o = m->node->output[i];
        if (!*o)
            continue;
        if (i == 1 && ln_streq(op_type, "Dropout") && ln_onnx_set_has(im->consumed, o) &&
            dropout_mask(im, m->node, o, m->where))
            continue;
        if (i == 1 && m->nd3 && ln_streq(op_type, "MaxPool")) {
            ln_onnx_op_add(m->op, "tensors_out", ln_onnx_json_tensor_ref("indices", o));
            ln_onnx_set_add(im->defined, o);
            continue;
        }
        if (m->var_out && (int)i >= m->n_out - 1) {
            char *vname = ln_sprintf("%s_%d", e->outputs[m->n_out - 1], (int)i - (m->n_out - 1));
            ln_onnx_op_add(m->op, "tensors_out", ln_onnx_json_tensor_ref(vname, o));
            ln_onnx_set_add(im->defined, o);
            ln_free(vname);
            continue;
        }
        if ((int)i >= m->n_out) {
            ln_onnx_set_add(im->defined, o);        /* reported here, not again */
            if (ln_onnx_set_has(im->consumed, o))
                ln_onnx_problem(im, "%s: output %zu ('%s') is used, but LightNet's %s has %d "
                                "output%s", m->where, i + 1, o, e->optype, m->n_out,
                                m->n_out == 1 ? "" : "s");
            continue;
        }
        ln_onnx_op_add(m->op, "tensors_out", ln_onnx_json_tensor_ref(e->outputs[i], o));
        ln_onnx_set_add(im->defined, o);
    }
}

/* The op of a node its mapping e describes, added to the node ops. */
static void map_node(imp *im, const Onnx__NodeProto *node, const ln_opregistry_onnx_entry *e,
                     const char *name, const char *where)
{
    const char *op_type = ln_onnx_str_or_empty(node->op_type);
    nodemap m = {im, node, e, where, NULL, 0, 0, LN_FALSE, LN_FALSE, LN_FALSE};

    m.op = ln_onnx_json_op(name, e->optype);
    m.n_in = count_names(e->inputs);
    m.n_out = count_names(e->outputs);
    /* more ONNX inputs than args, or exactly as many with a variadic last
     * arg: src_0, src_1, ... (a single Mean or Concat input is src_0) */
    m.var_in = m.n_in > 0 && is_plain_arg(e->inputs[m.n_in - 1]) &&
               ((int)node->n_input > m.n_in ||
                ((int)node->n_input == m.n_in && is_variadic_arg(e->optype, e->inputs[m.n_in - 1])));
    /* Dropout's mask is not a variadic dst: dropout_mask() makes it */
    m.var_out = m.n_out > 0 && is_plain_arg(e->outputs[m.n_out - 1]) &&
                ((int)node->n_output > m.n_out ||
                 ((int)node->n_output == m.n_out &&
                  is_variadic_arg(e->optype, e->outputs[m.n_out - 1]))) &&
                !ln_streq(op_type, "Dropout");
    map_inputs(&m);
    map_attrs(&m, op_type);
    /* 3-D, or MaxPool's Indices: the 3-D ops (which have that output) */
    m.nd3 = ln_onnx_retarget_3d(im, op_type, m.op, node, e, where);
    if (m.nd3 && ln_streq(op_type, "MaxPool"))
        m.var_out = LN_FALSE;
    map_outputs(&m, op_type);
    if (!m.nd3 && ln_onnx_is_1d(im, op_type, m.op, node))
        ln_onnx_view_1d_as_2d(im, m.op, name);
    cJSON_AddItemToArray(im->node_ops, m.op);
    if (im->pending) {
        cJSON_AddItemToArray(im->node_ops, im->pending);
        im->pending = NULL;
    }
}

/* Does an input of node have a value or shape unknown because of an earlier
 * problem?  Then its outputs are unknown too, and no op (no echo of that
 * problem follows). */
static ln_bool reads_unknown(imp *im, const Onnx__NodeProto *node)
{
    for (size_t i = 0; i < node->n_input; i++)
        if (ln_onnx_set_has(im->unknown, node->input[i])) {
            for (size_t j = 0; j < node->n_output; j++)
                if (*node->output[j])
                    ln_onnx_set_add(im->unknown, node->output[j]);
            return LN_TRUE;
        }
    return LN_FALSE;
}

void ln_onnx_import_node(imp *im, const Onnx__NodeProto *node, int index)
{
    const char *op_type = ln_onnx_str_or_empty(node->op_type);
    const ln_opregistry_onnx_entry *e = NULL;
    char *base, *name, *where;
    ln_bool done = LN_FALSE;

    base = node->name && *node->name ? ln_strdup(node->name)
                                     : ln_sprintf("%s_%d", op_type, index);
    name = ln_onnx_op_name(im, base);
    ln_free(base);
    where = ln_sprintf("node '%s' (%s)", name, op_type);

    if (ln_onnx_is_ms_qop(node->domain, op_type)) {
        int n_problems = im->n_problems;
        ln_onnx_import_ms_qop(im, node, index, where);
        done = im->n_problems == n_problems;    /* else its output is not another problem */
    } else if (!is_default_domain(node->domain)) {
        char *t = ln_sprintf("%s:%s", node->domain, op_type);
        ln_onnx_unsupported_op(im, t, name);
        ln_free(t);
    } else if (ln_streq(op_type, "Constant")) {
        import_constant(im, node, where);
        done = LN_TRUE;
    } else if (reads_unknown(im, node)) {
        ;
    } else if (ln_onnx_empty_constant_of_shape(im, node)) {
        done = LN_TRUE;                         /* ln_onnx_empty.c */
    } else if (ln_onnx_is_seq_op(op_type)) {
        ln_onnx_import_seq(im, node, name, where);
        done = LN_TRUE;
    } else if (ln_onnx_reads_seq(im, node, where)) {
        ;
    } else if (ln_onnx_is_qop(op_type)) {
        ln_onnx_import_qop(im, node, index, where);
        done = LN_TRUE;
    } else if (ln_onnx_is_datashape(op_type)) {
        ln_onnx_eval_datashape(im, node, where);
        done = LN_TRUE;
    } else if (ln_onnx_is_ctrl(op_type)) {
        ln_onnx_import_ctrl(im, node, name, where);     /* ln_onnx_ctrl.c */
        done = LN_TRUE;
    } else if (!(e = find_entry(op_type, im->opset))) {
        ln_onnx_unsupported_op(im, op_type, name);
    } else if (optype_stripped(e->optype)) {
        ln_onnx_problem(im, "%s: optype '%s' was stripped from this build (LN_OPS)", where,
                        e->optype);
    } else {
        /* its op(s), run now when the inputs are known (ln_onnx_fold.c) */
        ln_onnx_fold_state *f = ln_onnx_fold_start(im, node);
        int n_problems = im->n_problems;
        if (is_chained(op_type) && node->n_input != 2 && node->n_output == 1 && *node->output[0])
            import_chain(im, node, e, name, where);
        else
            map_node(im, node, e, name, where);
        ln_onnx_fold_finish(im, f, node, n_problems, where);
        done = LN_TRUE;
    }
    if (!done) {
        /* later nodes may read its outputs: do not report those as undefined */
        for (size_t i = 0; i < node->n_output; i++)
            if (*node->output[i])
                ln_onnx_set_add(im->defined, node->output[i]);
    }
    ln_free(name);
    ln_free(where);
}

static ln_bool onnx_probe(const void *buf, size_t len)
{
    Onnx__ModelProto *m;
    ln_bool ok;

    /* a ModelProto starts with a small field tag: ir_version (0x08),
     * opset_import (0x42), producer (0x12), graph (0x3a) ... */
    if (len < 2 || ((const unsigned char *)buf)[0] > 0x80)
        return LN_FALSE;
    m = onnx__model_proto__unpack(NULL, len, buf);
    ok = m && m->graph && m->has_ir_version;
    if (m)
        onnx__model_proto__free_unpacked(m, NULL);
    return ok;
}

/* Fields the importer hashes or prints must be there: a fuzzed or hand-made
 * model may leave any optional string out (protobuf-c leaves it NULL). */
static int check_names(const Onnx__GraphProto *g, const char *source)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (!g->input[i]->name || !*g->input[i]->name)
            return ln_error(LN_EPARSE, "%s: graph input %zu has no name", source, i);
    for (size_t i = 0; i < g->n_output; i++)
        if (!g->output[i]->name || !*g->output[i]->name)
            return ln_error(LN_EPARSE, "%s: graph output %zu has no name", source, i);
    for (size_t i = 0; i < g->n_value_info; i++)
        if (!g->value_info[i]->name)
            return ln_error(LN_EPARSE, "%s: value_info %zu has no name", source, i);
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        const char *nn = n->name && *n->name ? n->name : "";
        if (!n->op_type || !*n->op_type)
            return ln_error(LN_EPARSE, "%s: node %zu%s%s%s has no op_type", source, i,
                            *nn ? " ('" : "", nn, *nn ? "')" : "");
        for (size_t j = 0; j < n->n_input; j++)
            if (!n->input[j])
                return ln_error(LN_EPARSE, "%s: node %zu (%s): input %zu has no name",
                                source, i, n->op_type, j);
        for (size_t j = 0; j < n->n_output; j++)
            if (!n->output[j])
                return ln_error(LN_EPARSE, "%s: node %zu (%s): output %zu has no name",
                                source, i, n->op_type, j);
        for (size_t j = 0; j < n->n_attribute; j++)
            if (!n->attribute[j]->name || !*n->attribute[j]->name)
                return ln_error(LN_EPARSE, "%s: node %zu (%s): attribute %zu has no name",
                                source, i, n->op_type, j);
    }
    return 0;
}

static void imp_init(imp *im, const Onnx__ModelProto *model, const char *source,
                     const ln_serializer_opts *opts)
{
    memset(im, 0, sizeof *im);
    im->source = source;
    im->opts = opts;
    im->graph = model->graph;
    im->opset = 1;
    for (size_t i = 0; i < model->n_opset_import; i++)
        if (is_default_domain(model->opset_import[i]->domain))
            im->opset = (int)model->opset_import[i]->version;
    im->consts = ln_datafile_create_dict();
    im->defined = ln_onnx_str_set();
    im->as_tensor = ln_onnx_str_set();
    im->consumed = ln_onnx_str_set();
    im->opnames = ln_onnx_str_set();
    im->node_ops = cJSON_CreateArray();
    im->input_ops = cJSON_CreateArray();
    im->unknown = ln_onnx_str_set();
    im->why = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, ln_free);
    im->seqs = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, ln_onnx_seq_free);
    im->shapes = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, ln_free);
}

static void imp_free(imp *im)
{
    for (int i = 0; i < im->n_unsup; i++) {
        ln_free(im->unsup[i].op_type);
        ln_free(im->unsup[i].nodes);
    }
    ln_free(im->unsup);
    for (int i = 0; i < im->n_problems; i++)
        ln_free(im->problems[i]);
    ln_free(im->problems);
    cJSON_Delete(im->node_ops);
    cJSON_Delete(im->input_ops);
    ln_hash_free(im->unknown);
    ln_hash_free(im->why);
    ln_hash_free(im->seqs);
    ln_hash_free(im->shapes);
    ln_free(im->shape_err);
    ln_list_free(im->const_order);
    ln_list_free_deep(im->names, ln_free);
    ln_hash_free(im->consts);
    ln_hash_free(im->defined);
    ln_hash_free(im->as_tensor);
    ln_hash_free(im->consumed);
    ln_hash_free(im->opnames);
}

/* The graph's names read by some node or output, and its initializers as
 * constants. */
static void import_initializers(imp *im, const Onnx__GraphProto *g)
{
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t j = 0; j < g->node[i]->n_input; j++)
            ln_onnx_set_add(im->consumed, g->node[i]->input[j]);
    for (size_t i = 0; i < g->n_output; i++)
        ln_onnx_set_add(im->consumed, g->output[i]->name);
    ln_onnx_ctrl_consumed(im, g);           /* outer names read by subgraphs */
    if (g->n_sparse_initializer)
        ln_onnx_problem(im, "sparse initializers are not supported");
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        char *what = ln_sprintf("initializer '%s'", ln_onnx_str_or_empty(tp->name));
        ln_tensor *t;
        if (!tp->name || !*tp->name)
            ln_onnx_problem(im, "an initializer has no name");
        else if (ln_onnx_tensor_from_proto(tp, what, &t))
            ln_onnx_problem_c(im, ln_error_code(), "%s", ln_error_message());
        else
            ln_onnx_add_const(im, tp->name, t);
        if (tp->name && *tp->name)
            ln_onnx_set_add(im->defined, tp->name);
        ln_free(what);
    }
}

/* The graph inputs (those that are not initializers), to input ops; and
 * each --shape must name one. */
static void import_inputs(imp *im, const Onnx__GraphProto *g)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (!ln_hash_find(im->consts, g->input[i]->name))
            ln_onnx_set_add(im->defined, g->input[i]->name);
    for (size_t i = 0; i < g->n_input; i++) {
        cJSON *op;
        if (ln_hash_find(im->consts, g->input[i]->name))
            continue;                       /* an initializer listed as input */
        if ((op = ln_onnx_import_input(im, g->input[i])))
            cJSON_AddItemToArray(im->input_ops, op);
    }
    for (int i = 0; im->opts && im->opts->shapes && im->opts->shapes[i]; i++) {
        const char *s = im->opts->shapes[i], *eq = strchr(s, '=');
        ln_bool found = LN_FALSE;
        for (size_t j = 0; eq && j < g->n_input; j++)
            found = found || (strlen(g->input[j]->name) == (size_t)(eq - s) &&
                              !strncmp(g->input[j]->name, s, (size_t)(eq - s)) &&
                              !ln_hash_find(im->consts, g->input[j]->name));
        if (!found)
            ln_onnx_problem_c(im, LN_EINVAL, "--shape '%s' names no graph input", s);
    }
}

/* The IR: the inputs, the constants read as tensors, the nodes, the
 * outputs. */
static cJSON *assemble(imp *im, const Onnx__GraphProto *g)
{
    cJSON *root = cJSON_CreateObject(), *ops, *outputs;

    ops = cJSON_AddArrayToObject(root, "ops");
    while (cJSON_GetArraySize(im->input_ops))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(im->input_ops, 0));
    outputs = cJSON_CreateArray();
    for (size_t i = 0; i < g->n_output; i++) {
        const char *o = g->output[i]->name;
        char *base, *name;
        cJSON *op;
        if (!ln_onnx_set_has(im->defined, o)) {
            ln_onnx_problem_c(im, LN_EPARSE, "graph output '%s' is not produced by any node", o);
            continue;
        }
        if (ln_hash_find(im->consts, o))
            ln_onnx_set_add(im->as_tensor, o);
        base = ln_sprintf("%s_output", o);
        name = ln_onnx_op_name(im, base);
        op = ln_onnx_json_op(name, "output");
        ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("src", o));
        cJSON_AddItemToArray(outputs, op);
        ln_free(base);
        ln_free(name);
    }
    ln_onnx_add_create_ops(im, ops);
    while (cJSON_GetArraySize(im->node_ops))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(im->node_ops, 0));
    while (cJSON_GetArraySize(outputs))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(outputs, 0));
    cJSON_Delete(outputs);
    return root;
}

/* Only the constants an op reads as a tensor go to the weights (NULL when
 * none does). */
static ln_hash *used_consts(imp *im)
{
    ln_hash *used = ln_datafile_create_dict();

    LN_LIST_FOREACH(const char, cname, im->const_order) {
        if (ln_onnx_set_has(im->as_tensor, cname))
            ln_hash_insert(used, ln_strdup(cname), ln_tensor_copy(ln_hash_find(im->consts, cname)));
    }
    if (!ln_hash_size(used)) {
        ln_hash_free(used);
        return NULL;
    }
    return used;
}

static int onnx_load(const void *buf, size_t len, const char *source,
                     const ln_serializer_opts *opts, cJSON **ir, ln_hash **consts)
{
    Onnx__ModelProto *model;
    imp im;
    cJSON *root;
    int ret = 0;

    *ir = NULL;
    *consts = NULL;
    model = onnx__model_proto__unpack(NULL, len, buf);
    if (!model)
        return ln_error(LN_EPARSE, "%s: not an ONNX model (%zu bytes that do not parse as a "
                        "ModelProto: truncated or another format)", source, len);
    if (!model->graph) {
        onnx__model_proto__free_unpacked(model, NULL);
        return ln_error(LN_EPARSE, "%s: ONNX model without a graph", source);
    }
    if ((ret = check_names(model->graph, source))) {
        onnx__model_proto__free_unpacked(model, NULL);
        return ret;
    }
    imp_init(&im, model, source, opts);
    import_initializers(&im, model->graph);
    /* the inputs first: the shapes of the nodes' tensors build on them */
    import_inputs(&im, model->graph);
    for (size_t i = 0; i < model->graph->n_node; i++)
        ln_onnx_import_node(&im, model->graph->node[i], (int)i);
    root = assemble(&im, model->graph);
    if (!im.n_unsup && !im.n_problems)
        ln_onnx_pre_run_ir(&im, root, LN_TRUE);
    if (im.n_unsup || im.n_problems) {
        ret = ln_onnx_report(&im);
        cJSON_Delete(root);
    } else {
        *ir = root;
        *consts = used_consts(&im);
    }
    imp_free(&im);
    onnx__model_proto__free_unpacked(model, NULL);
    return ret;
}

int ln_onnx_read_tensor(const void *buf, size_t len, const char *source, ln_tensor **t)
{
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
    char *what;
    int ret;

    if (!tp)
        return ln_error(LN_EPARSE, "%s: not a serialized ONNX TensorProto", source);
    what = ln_sprintf("%s: tensor '%s'", source, ln_onnx_str_or_empty(tp->name));
    ret = ln_onnx_tensor_from_proto(tp, what, t);
    ln_free(what);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return ret;
}

const ln_serializer ln_serializer_onnx = {"onnx", ".onnx", onnx_probe, onnx_load};

#else /* !LN_HAVE_ONNX */

ln_bool ln_onnx_enabled(void)
{
    return LN_FALSE;
}

int ln_onnx_read_tensor(const void *buf, size_t len, const char *source, ln_tensor **t)
{
    (void)buf;
    (void)len;
    (void)t;
    return ln_error(LN_EUNSUPPORTED, "%s: this LightNet was built without ONNX support "
                    "(needs protobuf-c-compiler, libprotobuf-c-dev, libonnx-dev)", source);
}

ln_bool ln_onnx_op_supported(const char *op_type, int opset, const char **optype)
{
    (void)op_type;
    (void)opset;
    (void)optype;
    return LN_FALSE;
}

#endif
