/*
 * ln_onnx_ctrl.c -- the importer's control flow: If, Loop and Scan.
 *
 * A subgraph (a branch, a loop body) is imported like the main graph, node
 * by node through ln_onnx_import_node, on copies of its nodes whose tensor
 * names are renamed: a name the subgraph defines (its inputs, initializers
 * and node outputs) becomes "<node>/<branch or iteration>/<name>", made
 * unique; any other name is read from the enclosing scope (the main graph,
 * or the subgraph being imported around this one), so nested subgraphs
 * read outer tensors by name.
 *
 *   If, condition known at import   the taken branch is inlined, the other
 *                                    dropped
 *   If, condition known at run time  both branches are inlined, their ops
 *                                    guarded ("guard": [{tensor, value}, ...]
 *                                    in the IR, outermost first); each output
 *                                    is one if_merge op after both branches
 *   Loop, trip count and condition   the body inlined once per iteration,
 *   known at import                  loop-carried values threaded through,
 *                                    the iteration number a constant per
 *                                    copy; scan outputs stacked by Unsqueeze
 *                                    and Concat
 *   Scan, sequence length known      unrolled the same way; each iteration
 *                                    reads a Gather of its scan inputs
 *
 * Everything else (a trip count or loop condition computed at run time,
 * sequences, optionals) is refused by name.
 */
#include <string.h>
#include <cjson/cJSON.h>
#include "ln_onnx.h"
#include "ln_onnx_impl.h"

#ifdef LN_HAVE_ONNX

/* At most this many nodes are inlined by unrolling one Loop or Scan. */
#define MAX_UNROLLED_NODES 100000

/* The renames of one subgraph being imported. */
typedef struct ln_onnx_scope {
    ln_hash *names;                 /* local name -> imported name (im owns it, or the
                                     * model: it outlives the scope) */
    struct ln_onnx_scope *parent;
} scope;

ln_bool ln_onnx_is_ctrl(const char *op_type)
{
    return ln_streq(op_type, "If") || ln_streq(op_type, "Loop") || ln_streq(op_type, "Scan");
}

/* The imported name of a name read in the current scope. */
static const char *resolve(const imp *im, const char *name)
{
    for (const scope *s = im->scope; s; s = s->parent) {
        const char *n = ln_hash_find(s->names, name);
        if (n)
            return n;
    }
    return name;
}

/* A new name the importer owns (freed with im). */
static const char *own(imp *im, char *s)
{
    im->names = ln_list_append(im->names, s);
    return s;
}

/* A tensor name from base that no tensor has yet. */
static const char *fresh(imp *im, const char *base)
{
    char *n = ln_strdup(base);

    for (int i = 1; ln_onnx_set_has(im->defined, n) || ln_onnx_set_has(im->consumed, n); i++) {
        ln_free(n);
        n = ln_sprintf("%s_%d", base, i);
    }
    ln_onnx_set_add(im->consumed, n);       /* taken from now on */
    return own(im, n);
}

const char *ln_onnx_fresh_name(imp *im, const char *base)
{
    return fresh(im, base);
}

static void bind(scope *s, const char *local, const char *name)
{
    ln_hash_insert(s->names, ln_strdup(local), (void *)name);
}

static scope *scope_push(imp *im)
{
    scope *s = ln_alloc(sizeof *s);
    s->names = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
    s->parent = im->scope;
    im->scope = s;
    return s;
}

static void scope_pop(imp *im)
{
    scope *s = im->scope;
    im->scope = s->parent;
    ln_hash_free(s->names);
    ln_free(s);
}

/* Every attribute of node is in list (","-separated); a problem for each
 * that is not. */
static ln_bool attrs_known(imp *im, const Onnx__NodeProto *node, const char *list,
                           const char *where)
{
    ln_bool ok = LN_TRUE;
    for (size_t i = 0; i < node->n_attribute; i++)
        if (!ln_onnx_attr_listed(list, node->attribute[i]->name)) {
            ln_onnx_problem(im, "%s: attribute '%s' is not supported", where,
                            node->attribute[i]->name);
            ok = LN_FALSE;
        }
    return ok;
}

static const Onnx__GraphProto *graph_attr(imp *im, const Onnx__NodeProto *node, const char *name,
                                          const char *where)
{
    const Onnx__AttributeProto *a = ln_onnx_node_attr(node, name);
    if (!a || !a->g) {
        ln_onnx_problem_c(im, LN_EPARSE, "%s: the graph attribute '%s' is missing", where, name);
        return NULL;
    }
    return a->g;
}

/* The names a subgraph's nodes use are there (a fuzzed model may leave
 * any optional string out). */
static ln_bool graph_names_ok(imp *im, const Onnx__GraphProto *g, const char *where)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (!g->input[i]->name || !*g->input[i]->name)
            goto bad;
    for (size_t i = 0; i < g->n_output; i++)
        if (!g->output[i]->name || !*g->output[i]->name)
            goto bad;
    for (size_t i = 0; i < g->n_initializer; i++)
        if (!g->initializer[i]->name || !*g->initializer[i]->name)
            goto bad;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *n = g->node[i];
        if (!n->op_type || !*n->op_type)
            goto bad;
        for (size_t j = 0; j < n->n_input; j++)
            if (!n->input[j])
                goto bad;
        for (size_t j = 0; j < n->n_output; j++)
            if (!n->output[j])
                goto bad;
        for (size_t j = 0; j < n->n_attribute; j++)
            if (!n->attribute[j]->name || !*n->attribute[j]->name)
                goto bad;
    }
    if (g->n_sparse_initializer) {
        ln_onnx_problem(im, "%s: sparse initializers are not supported", where);
        return LN_FALSE;
    }
    return LN_TRUE;
bad:
    ln_onnx_problem_c(im, LN_EPARSE, "%s: subgraph '%s' has a nameless input, output, "
                      "initializer, node type or attribute", where, ln_onnx_str_or_empty(g->name));
    return LN_FALSE;
}

/*
 * Import subgraph g in a new scope whose inputs are bound to ins (imported
 * names; NULL entries leave an input unbound) and whose outputs are
 * returned in outs (imported names, which outlive the call).  Output k may be given
 * its imported name in want[k] (NULL: a fresh one); want[k] is set to NULL
 * when it cannot have it (no node of g writes it, or it is listed twice).
 */
static void inline_graph(imp *im, const Onnx__GraphProto *g, const char *prefix,
                         const char *const *ins, const char **want, const char **outs)
{
    scope *s = scope_push(im);
    size_t total = g->n_node;

    for (size_t i = 0; i < g->n_input && ins; i++)
        if (ins[i])
            bind(s, g->input[i]->name, ins[i]);
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        char *what = ln_sprintf("initializer '%s' of subgraph '%s'", tp->name, prefix);
        char *base = ln_sprintf("%s%s", prefix, tp->name);
        const char *name = fresh(im, base);
        ln_tensor *t;
        ln_free(base);
        if (ln_onnx_tensor_from_proto(tp, what, &t))
            ln_onnx_problem_c(im, ln_error_code(), "%s", ln_error_message());
        else
            ln_onnx_add_const(im, name, t);
        ln_onnx_set_add(im->defined, name);
        bind(s, tp->name, name);
        ln_free(what);
    }
    /* outputs that may keep the name the caller wants: written by a node of
     * g, listed once, not an input or initializer */
    for (size_t k = 0; want && k < g->n_output; k++) {
        const char *o = g->output[k]->name;
        ln_bool by_node = LN_FALSE, once = LN_TRUE;
        if (!want[k] || ln_hash_find(s->names, o))
            continue;
        for (size_t j = 0; j < g->n_output; j++)
            once = once && (j == k || !ln_streq(g->output[j]->name, o));
        for (size_t i = 0; i < g->n_node && !by_node; i++)
            for (size_t j = 0; j < g->node[i]->n_output; j++)
                by_node = by_node || ln_streq(g->node[i]->output[j], o);
        if (by_node && once)
            bind(s, o, want[k]);
        else
            want[k] = NULL;
    }
    for (size_t i = 0; i < total; i++) {
        const Onnx__NodeProto *n = g->node[i];
        Onnx__NodeProto c = *n;
        char **in = ln_alloc(sizeof(char *) * (n->n_input + 1));
        char **out = ln_alloc(sizeof(char *) * (n->n_output + 1));
        char *name = n->name && *n->name ? ln_sprintf("%s%s", prefix, n->name)
                                         : ln_sprintf("%s%s_%zu", prefix, n->op_type, i);
        for (size_t j = 0; j < n->n_input; j++) {
            in[j] = (char *)(*n->input[j] ? resolve(im, n->input[j]) : "");
            ln_onnx_set_add(im->consumed, in[j]);
        }
        for (size_t j = 0; j < n->n_output; j++) {
            const char *o = n->output[j], *have;
            if (!*o) {
                out[j] = (char *)"";
                continue;
            }
            have = ln_hash_find(s->names, o);
            if (!have || ln_onnx_set_has(im->defined, have)) {   /* not a wanted name */
                char *b = ln_sprintf("%s%s", prefix, o);
                bind(s, o, fresh(im, b));
                ln_free(b);
            }
            out[j] = (char *)resolve(im, o);
        }
        c.input = in;
        c.output = out;
        c.name = name;
        ln_onnx_import_node(im, &c, (int)i);
        ln_free(in);
        ln_free(out);
        ln_free(name);
    }
    for (size_t k = 0; k < g->n_output; k++) {
        outs[k] = resolve(im, g->output[k]->name);
        if (!ln_onnx_set_has(im->defined, outs[k])) {
            ln_onnx_problem_c(im, LN_EPARSE, "subgraph '%s' (%.*s): output '%s' is not defined "
                              "(no input, initializer or node of it, or outer tensor, has that "
                              "name)", ln_onnx_str_or_empty(g->name), (int)strlen(prefix) - 1,
                              prefix, g->output[k]->name);
            ln_onnx_set_add(im->defined, outs[k]);
            ln_onnx_set_add(im->unknown, outs[k]);
        }
    }
    scope_pop(im);
}

/* ---- synthetic nodes ----------------------------------------------------- */

/* A node the importer makes (Identity, Unsqueeze, Concat, Gather), imported
 * like any other: evaluated when its inputs are constants, an op if not. */
typedef struct synth {
    Onnx__NodeProto n;
    char *in[2], *out[1];
    Onnx__AttributeProto a, *ap[1];
    int64_t ints[1];
} synth;

static void synth_init(synth *s, const char *op_type, const char *name)
{
    Onnx__NodeProto n0 = ONNX__NODE_PROTO__INIT;
    Onnx__AttributeProto a0 = ONNX__ATTRIBUTE_PROTO__INIT;
    memset(s, 0, sizeof *s);
    s->n = n0;
    s->a = a0;
    s->n.op_type = (char *)op_type;
    s->n.name = (char *)name;
    s->n.input = s->in;
    s->n.output = s->out;
    s->n.n_output = 1;
}

static void synth_int_attr(synth *s, const char *name, int64_t v, ln_bool list)
{
    s->a.name = (char *)name;
    s->a.has_type = 1;
    if (list) {
        s->a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
        s->ints[0] = v;
        s->a.n_ints = 1;
        s->a.ints = s->ints;
    } else {
        s->a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        s->a.has_i = 1;
        s->a.i = v;
    }
    s->ap[0] = &s->a;
    s->n.attribute = s->ap;
    s->n.n_attribute = 1;
}

/* An int64 constant of rank 0 (or 1 with one element) named from base. */
const char *ln_onnx_int_const(imp *im, const char *base, int64_t v, int rank)
{
    int one = 1;
    const char *name = fresh(im, base);
    ln_tensor *t = ln_tensor_create_alloc(LN_DTYPE_INT64, rank, &one);
    ((int64_t *)t->data)[0] = v;
    ln_onnx_add_const(im, name, t);
    return name;
}

static void synth_node(imp *im, synth *s)
{
    ln_onnx_import_node(im, &s->n, 0);
}

/* dst = src (both imported names): a constant copy, or an identity op. */
static void copy_to(imp *im, const char *src, const char *dst, const char *opname)
{
    synth s;
    synth_init(&s, "Identity", opname);
    s.in[0] = (char *)src;
    s.n.n_input = 1;
    s.out[0] = (char *)dst;
    synth_node(im, &s);
}

/* dst = Unsqueeze(src, axis) at the model's opset. */
static void unsqueeze_to(imp *im, const char *src, int axis, const char *dst, const char *opname)
{
    synth s;
    synth_init(&s, "Unsqueeze", opname);
    s.in[0] = (char *)src;
    s.n.n_input = 1;
    s.out[0] = (char *)dst;
    if (im->opset >= 13) {
        char *b = ln_sprintf("%s/axes", opname);
        s.in[1] = (char *)ln_onnx_int_const(im, b, axis, 1);
        s.n.n_input = 2;
        ln_free(b);
    } else {
        synth_int_attr(&s, "axes", axis, LN_TRUE);
    }
    synth_node(im, &s);
}

/* dst = Gather(src, index, axis): the slice at index, without the axis. */
static void gather_to(imp *im, const char *src, int64_t index, int axis, const char *dst,
                      const char *opname)
{
    synth s;
    char *b = ln_sprintf("%s/index", opname);
    synth_init(&s, "Gather", opname);
    s.in[0] = (char *)src;
    s.in[1] = (char *)ln_onnx_int_const(im, b, index, 0);
    s.n.n_input = 2;
    s.out[0] = (char *)dst;
    synth_int_attr(&s, "axis", axis, LN_FALSE);
    synth_node(im, &s);
    ln_free(b);
}

/* dst = the n tensors srcs stacked along a new axis (in order; reversed
 * when rev). */
static void stack_to(imp *im, const char *const *srcs, int n, int axis, ln_bool rev,
                     const char *dst, const char *opname)
{
    Onnx__NodeProto c = ONNX__NODE_PROTO__INIT;
    Onnx__AttributeProto a = ONNX__ATTRIBUTE_PROTO__INIT, *ap[1] = {&a};
    char **ins = ln_alloc(sizeof(char *) * (size_t)n), *out[1] = {(char *)dst};

    if (n == 1) {
        unsqueeze_to(im, srcs[0], axis, dst, opname);
        ln_free(ins);
        return;
    }
    for (int i = 0; i < n; i++) {
        char *b = ln_sprintf("%s/%d", dst, i), *on = ln_sprintf("%s/unsqueeze%d", opname, i);
        ins[i] = (char *)fresh(im, b);
        unsqueeze_to(im, srcs[rev ? n - 1 - i : i], axis, ins[i], on);
        ln_free(b);
        ln_free(on);
    }
    c.op_type = (char *)"Concat";
    c.name = (char *)opname;
    c.input = ins;
    c.n_input = (size_t)n;
    c.output = out;
    c.n_output = 1;
    a.name = (char *)"axis";
    a.has_type = 1;
    a.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    a.has_i = 1;
    a.i = axis;
    c.attribute = ap;
    c.n_attribute = 1;
    ln_onnx_import_node(im, &c, 0);
    ln_free(ins);
}

static ln_bool dims_of(imp *im, const char *t, int *ndim, int *dims);

/* "[d0, d1, ...]" into buf. */
static const char *dims_text(int ndim, const int *dims, char *buf, size_t n)
{
    size_t len = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ndim && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%d", i ? ", " : "", dims[i]);
    if (len < n)
        snprintf(buf + len, n - len, "]");
    return buf;
}

/* Do the branches' output k have the same shape (when known here)? */
static ln_bool same_branch_shapes(imp *im, const char *const *outs[2], size_t k,
                                  const char *where)
{
    int nd[2], d[2][LN_MAXDIM];
    char a[128], b[128];

    if (!dims_of(im, outs[0][k], &nd[0], d[0]) || !dims_of(im, outs[1][k], &nd[1], d[1]))
        return LN_TRUE;                     /* the merge's checks will say */
    if (nd[0] == nd[1] && !memcmp(d[0], d[1], sizeof(int) * (size_t)nd[0]))
        return LN_TRUE;
    ln_onnx_problem_c(im, LN_EOP, "%s: output %zu is '%s' of shape %s in the then branch and "
                      "'%s' of shape %s in the else branch (they must agree)", where, k,
                      outs[0][k], dims_text(nd[0], d[0], a, sizeof a), outs[1][k],
                      dims_text(nd[1], d[1], b, sizeof b));
    return LN_FALSE;
}

/* ---- If ------------------------------------------------------------------ */

/* The guard of the ops being imported, with (cond, value) appended. */
static cJSON *guard_with(const cJSON *outer, const char *cond, ln_bool value)
{
    cJSON *g = outer ? cJSON_Duplicate(outer, 1) : cJSON_CreateArray(), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "tensor", cond);
    cJSON_AddBoolToObject(e, "value", value);
    cJSON_AddItemToArray(g, e);
    return g;
}

/* Ops from index `from` of the node ops on without a guard get one. */
static void guard_ops(imp *im, int from, const cJSON *guard)
{
    for (int i = from; i < cJSON_GetArraySize(im->node_ops); i++) {
        cJSON *op = cJSON_GetArrayItem(im->node_ops, i);
        if (!cJSON_GetObjectItemCaseSensitive(op, "guard"))
            cJSON_AddItemToObject(op, "guard", cJSON_Duplicate(guard, 1));
    }
}

static void mark_unknown(imp *im, const Onnx__NodeProto *node)
{
    for (size_t j = 0; j < node->n_output; j++)
        if (*node->output[j]) {
            ln_onnx_set_add(im->unknown, node->output[j]);
            ln_onnx_set_add(im->defined, node->output[j]);
        }
}

static void import_if(imp *im, const Onnx__NodeProto *node, const char *name, const char *where)
{
    const Onnx__GraphProto *br[2];
    const char *cond = node->n_input ? node->input[0] : "";
    const ln_tensor *c;
    size_t nout = node->n_output;
    const char **outs[2];
    cJSON *outer = im->guard;

    if (!attrs_known(im, node, "then_branch,else_branch", where) ||
        !(br[0] = graph_attr(im, node, "then_branch", where)) ||
        !(br[1] = graph_attr(im, node, "else_branch", where)) ||
        !graph_names_ok(im, br[0], where) || !graph_names_ok(im, br[1], where)) {
        mark_unknown(im, node);
        return;
    }
    if (node->n_input != 1 || !*cond) {
        ln_onnx_problem_c(im, LN_EPARSE, "%s: If takes one input (the condition), not %zu",
                          where, node->n_input);
        mark_unknown(im, node);
        return;
    }
    for (int b = 0; b < 2; b++)
        if (br[b]->n_output != nout || br[b]->n_input) {
            ln_onnx_problem_c(im, LN_EPARSE, "%s: the %s branch has %zu inputs and %zu outputs; "
                              "If has %zu outputs (a branch takes no inputs)", where,
                              b ? "else" : "then", br[b]->n_input, br[b]->n_output, nout);
            mark_unknown(im, node);
            return;
        }
    if (!ln_onnx_set_has(im->defined, cond)) {
        ln_onnx_problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                          "initializer, Constant or earlier node output has that name)", where,
                          cond);
        mark_unknown(im, node);
        return;
    }
    c = ln_hash_find(im->consts, cond);
    if (c) {
        /* known at import: the taken branch only, its outputs named as If's */
        int b = c->len >= 1 && ln_onnx_tensor_get(c, 0) != 0 ? 0 : 1;
        const char **want = ln_alloc(sizeof(char *) * (nout + 1));
        const char **got = ln_alloc(sizeof(char *) * (nout + 1));
        char *prefix = ln_sprintf("%s/%s/", name, b ? "else" : "then");
        if (c->len != 1)
            ln_onnx_problem(im, "%s: the condition '%s' has %zu elements, not 1", where, cond,
                            c->len);
        for (size_t k = 0; k < nout; k++)
            want[k] = *node->output[k] ? node->output[k] : NULL;
        inline_graph(im, br[b], prefix, NULL, want, got);
        for (size_t k = 0; k < nout; k++) {
            char *on;
            if (!*node->output[k] || want[k])
                continue;           /* unused, or written under its name */
            on = ln_sprintf("%s/out%zu", name, k);
            if (ln_onnx_set_has(im->unknown, got[k]))
                ln_onnx_set_add(im->unknown, node->output[k]);
            copy_to(im, got[k], node->output[k], on);
            ln_free(on);
        }
        ln_free(prefix);
        ln_free(want);
        ln_free(got);
        return;
    }
    /* known at run time: both branches, guarded, then one merge per output */
    for (int b = 0; b < 2; b++) {
        char *prefix = ln_sprintf("%s/%s/", name, b ? "else" : "then");
        int from = cJSON_GetArraySize(im->node_ops);
        cJSON *g = guard_with(outer, cond, b == 0);
        outs[b] = ln_alloc(sizeof(char *) * (nout + 1));
        im->guard = g;
        inline_graph(im, br[b], prefix, NULL, NULL, outs[b]);
        guard_ops(im, from, g);
        im->guard = outer;
        cJSON_Delete(g);
        ln_free(prefix);
    }
    ln_onnx_set_add(im->as_tensor, cond);     /* (a constant here is folded above) */
    for (size_t k = 0; k < nout; k++) {
        const char *o = node->output[k];
        char *base = k ? ln_sprintf("%s_%zu", name, k) : ln_strdup(name), *opname;
        cJSON *op;
        ln_onnx_set_add(im->defined, o);
        if (!*o || ln_onnx_set_has(im->unknown, outs[0][k]) ||
            ln_onnx_set_has(im->unknown, outs[1][k]) ||
            !same_branch_shapes(im, (const char *const **)outs, k, where)) {
            if (*o)
                ln_onnx_set_add(im->unknown, o);
            ln_free(base);
            continue;
        }
        opname = k ? ln_onnx_op_name(im, base) : ln_strdup(name);   /* name is the node's */
        for (int b = 0; b < 2; b++)
            if (ln_hash_find(im->consts, outs[b][k]))
                ln_onnx_set_add(im->as_tensor, outs[b][k]);
        op = ln_onnx_json_op(opname, "if_merge");
        ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("cond", cond));
        ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("on_true", outs[0][k]));
        ln_onnx_op_add(op, "tensors_in", ln_onnx_json_tensor_ref("on_false", outs[1][k]));
        ln_onnx_op_add(op, "tensors_out", ln_onnx_json_tensor_ref("dst", o));
        cJSON_AddItemToArray(im->node_ops, op);
        ln_free(opname);
        ln_free(base);
    }
    ln_free(outs[0]);
    ln_free(outs[1]);
}

/* ---- Loop ---------------------------------------------------------------- */

/* A scalar input that must be known at import: its value, or a problem. */
static ln_bool known_scalar(imp *im, const char *in, const char *what, const char *where,
                            int64_t *v)
{
    const ln_tensor *t = ln_hash_find(im->consts, in);
    if (!t) {
        if (!ln_onnx_set_has(im->unknown, in))
            ln_onnx_problem(im, "%s: input '%s' (%s, which LightNet needs at import time to "
                            "unroll the loop) must be a constant (an initializer, a Constant node, "
                            "or computed from those and known shapes)", where, in, what);
        return LN_FALSE;
    }
    if (t->len != 1) {
        ln_onnx_problem(im, "%s: input '%s' (%s) has %zu elements, not 1", where, in, what,
                        t->len);
        return LN_FALSE;
    }
    *v = ln_onnx_geti(t, 0);
    return LN_TRUE;
}

/* The bool constant for a loop condition named from base. */
static const char *bool_const(imp *im, const char *base, ln_bool v)
{
    const char *name = fresh(im, base);
    ln_tensor *t = ln_tensor_create_alloc(LN_DTYPE_BOOL, 0, NULL);
    ((unsigned char *)t->data)[0] = v ? 1 : 0;
    ln_onnx_add_const(im, name, t);
    return name;
}

/* The final values: out[k] = cur[k] for the n loop-carried values, and
 * the scan outputs stacked. */
static void loop_results(imp *im, const Onnx__NodeProto *node, const char *name,
                         const char **cur, size_t n, const char ***scans, size_t k_scans,
                         int iters, const int *axes, const ln_bool *rev)
{
    for (size_t j = 0; j < n; j++) {
        const char *o = node->output[j];
        char *on;
        if (!*o)
            continue;
        on = ln_sprintf("%s/out%zu", name, j);
        copy_to(im, cur[j], o, on);
        ln_free(on);
    }
    for (size_t k = 0; k < k_scans; k++) {
        const char *o = node->output[n + k];
        const char **srcs = ln_alloc(sizeof(char *) * (size_t)(iters + 1));
        char *on;
        if (!*o)
            continue;
        for (int i = 0; i < iters; i++)
            srcs[i] = scans[i][1 + n + k];
        on = ln_sprintf("%s/scan%zu", name, k);
        stack_to(im, srcs, iters, axes ? axes[k] : 0, rev ? rev[k] : LN_FALSE, o, on);
        ln_free(on);
        ln_free(srcs);
    }
}

static void import_loop(imp *im, const Onnx__NodeProto *node, const char *name, const char *where)
{
    const Onnx__GraphProto *body;
    int64_t m = -1, cond = 1;
    size_t n, k_scans;
    const char **cur = NULL, ***scans = NULL, **ins;
    int iters = 0;
    ln_bool ok = LN_TRUE;

    if (!attrs_known(im, node, "body", where) || !(body = graph_attr(im, node, "body", where)) ||
        !graph_names_ok(im, body, where)) {
        mark_unknown(im, node);
        return;
    }
    if (node->n_input < 2 || body->n_input != node->n_input || body->n_output < 1 ||
        body->n_output < node->n_input - 1 ||
        node->n_output != body->n_output - 1) {
        ln_onnx_problem_c(im, LN_EPARSE, "%s: Loop has %zu inputs and %zu outputs, its body %zu "
                          "and %zu (want M, cond, N values in; cond, N values, K scans out)",
                          where, node->n_input, node->n_output, body->n_input, body->n_output);
        mark_unknown(im, node);
        return;
    }
    n = node->n_input - 2;
    k_scans = body->n_output - 1 - n;
    if (*node->input[0])
        ok = known_scalar(im, node->input[0], "the trip count M", where, &m) && ok;
    if (*node->input[1])
        ok = known_scalar(im, node->input[1], "the loop condition", where, &cond) && ok;
    if (ok && !*node->input[0] && !*node->input[1]) {
        ln_onnx_problem(im, "%s: a Loop without a trip count and condition does not end", where);
        ok = LN_FALSE;
    }
    if (ok && m >= 0 && (double)m * (double)(body->n_node + 1) > MAX_UNROLLED_NODES) {
        ln_onnx_problem(im, "%s: a trip count of %lld unrolls to more than %d nodes", where,
                        (long long)m, MAX_UNROLLED_NODES);
        ok = LN_FALSE;
    }
    if (!ok) {
        mark_unknown(im, node);
        return;
    }
    cur = ln_alloc(sizeof(char *) * (n + 1));
    for (size_t j = 0; j < n; j++)
        cur[j] = node->input[2 + j];
    ins = ln_alloc(sizeof(char *) * (body->n_input + 1));
    while ((m < 0 || iters < m) && cond) {
        const char **outs = ln_alloc(sizeof(char *) * (body->n_output + 1));
        char *prefix = ln_sprintf("%s/%d/", name, iters), *b;
        const ln_tensor *c;
        if ((double)(iters + 1) * (double)(body->n_node + 1) > MAX_UNROLLED_NODES) {
            ln_onnx_problem(im, "%s: the loop runs past %d unrolled nodes (its condition stays "
                            "true)", where, MAX_UNROLLED_NODES);
            ln_free(outs);
            ln_free(prefix);
            ok = LN_FALSE;
            break;
        }
        b = ln_sprintf("%siter", prefix);
        ins[0] = ln_onnx_int_const(im, b, iters, 0);
        ln_free(b);
        b = ln_sprintf("%scond", prefix);
        ins[1] = bool_const(im, b, LN_TRUE);
        ln_free(b);
        for (size_t j = 0; j < n; j++)
            ins[2 + j] = cur[j];
        inline_graph(im, body, prefix, ins, NULL, outs);
        ln_free(prefix);
        for (size_t j = 0; j < n; j++)
            cur[j] = outs[1 + j];
        scans = ln_realloc(scans, sizeof(char **) * (size_t)(iters + 1));
        scans[iters] = outs;
        iters++;
        c = ln_hash_find(im->consts, outs[0]);
        if (!c || c->len != 1) {
            if (!ln_onnx_set_has(im->unknown, outs[0]))
                ln_onnx_problem(im, "%s: the body's condition output '%s' is computed at run "
                                "time (LightNet unrolls loops, so it must be known at import)",
                                where, body->output[0]->name);
            ok = LN_FALSE;
            break;
        }
        cond = ln_onnx_geti(c, 0) != 0;
    }
    if (ok && k_scans && iters == 0) {
        ln_onnx_problem(im, "%s: the loop runs 0 times, so its scan outputs are empty tensors "
                        "(not supported)", where);
        ok = LN_FALSE;
    }
    if (ok)
        loop_results(im, node, name, cur, n, scans, k_scans, iters, NULL, NULL);
    else
        mark_unknown(im, node);
    for (int i = 0; i < iters; i++)
        ln_free(scans[i]);
    ln_free(scans);
    ln_free(ins);
    ln_free(cur);
}

/* ---- Scan ---------------------------------------------------------------- */

/* ints attribute a of length n into v (default def), NULL-safe. */
static ln_bool ints_attr(imp *im, const Onnx__NodeProto *node, const char *aname, size_t n,
                         int64_t def, int64_t *v, const char *where)
{
    const Onnx__AttributeProto *a = ln_onnx_node_attr(node, aname);
    for (size_t i = 0; i < n; i++)
        v[i] = def;
    if (!a)
        return LN_TRUE;
    if (a->n_ints != n) {
        ln_onnx_problem_c(im, LN_EPARSE, "%s: '%s' has %zu values, want %zu", where, aname,
                          a->n_ints, n);
        return LN_FALSE;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = a->ints[i];
    return LN_TRUE;
}

/* The dims of an imported tensor: a constant's, or from the ops so far. */
static ln_bool dims_of(imp *im, const char *t, int *ndim, int *dims)
{
    const ln_tensor *c = ln_hash_find(im->consts, t);
    if (c) {
        *ndim = c->ndim;
        memcpy(dims, c->dims, sizeof(int) * LN_MAXDIM);
        return LN_TRUE;
    }
    return ln_onnx_known_dims(im, t, ndim, dims);
}

/*
 * The Scan of opset 9 on states[0..n) and scan inputs xs[0..m): the body
 * once per step, the states threaded through; the final states and the
 * stacked scan outputs into outs (imported names wanted for them).
 */
static ln_bool scan9(imp *im, const Onnx__NodeProto *node, const Onnx__GraphProto *body,
                     const char *name, const char *const *states, size_t n,
                     const char *const *xs, size_t m, const int64_t *in_axes,
                     const int64_t *in_dirs, const int64_t *out_axes, const int64_t *out_dirs,
                     const char *const *outs, const char *where)
{
    size_t k_scans = body->n_output - n;
    int len = -1, steps;
    const char **cur = ln_alloc(sizeof(char *) * (n + 1)), ***scans, **ins;
    ln_bool ok = LN_TRUE;

    for (size_t j = 0; j < m; j++) {
        int ndim, dims[LN_MAXDIM], ax = (int)in_axes[j];
        if (!dims_of(im, xs[j], &ndim, dims)) {
            ln_onnx_problem(im, "%s: the shape of scan input '%s' is not known at import time",
                            where, xs[j]);
            ok = LN_FALSE;
            continue;
        }
        if (ax < 0)
            ax += ndim;
        if (ax < 0 || ax >= ndim) {
            ln_onnx_problem_c(im, LN_EPARSE, "%s: scan input axis %lld is out of range for "
                              "'%s' of %d dims", where, (long long)in_axes[j], xs[j], ndim);
            ok = LN_FALSE;
        } else if (len >= 0 && dims[ax] != len) {
            ln_onnx_problem_c(im, LN_EPARSE, "%s: scan inputs have sequence lengths %d and %d",
                              where, len, dims[ax]);
            ok = LN_FALSE;
        } else {
            len = dims[ax];
        }
    }
    if (ok && (len <= 0 || (double)len * (double)(body->n_node + 1) > MAX_UNROLLED_NODES)) {
        ln_onnx_problem(im, "%s: a sequence of %d steps is not unrolled (1 to %d nodes)", where,
                        len, MAX_UNROLLED_NODES);
        ok = LN_FALSE;
    }
    if (!ok) {
        ln_free(cur);
        return LN_FALSE;
    }
    steps = len;
    for (size_t j = 0; j < n; j++)
        cur[j] = states[j];
    scans = ln_alloc(sizeof(char **) * (size_t)steps);
    ins = ln_alloc(sizeof(char *) * (n + m + 1));
    for (int t = 0; t < steps; t++) {
        char *prefix = ln_sprintf("%s/%d/", name, t);
        scans[t] = ln_alloc(sizeof(char *) * (body->n_output + 1));
        for (size_t j = 0; j < n; j++)
            ins[j] = cur[j];
        for (size_t j = 0; j < m; j++) {
            char *b = ln_sprintf("%sx%zu", prefix, j), *on = ln_sprintf("%sslice%zu", prefix, j);
            int ax = (int)in_axes[j];
            ins[n + j] = fresh(im, b);
            gather_to(im, xs[j], in_dirs[j] ? steps - 1 - t : t, ax, ins[n + j], on);
            ln_free(b);
            ln_free(on);
        }
        inline_graph(im, body, prefix, ins, NULL, scans[t]);
        for (size_t j = 0; j < n; j++)
            cur[j] = scans[t][j];
        ln_free(prefix);
    }
    for (size_t j = 0; j < n; j++) {
        char *on = ln_sprintf("%s/out%zu", name, j);
        if (*outs[j])
            copy_to(im, cur[j], outs[j], on);
        ln_free(on);
    }
    for (size_t k = 0; k < k_scans; k++) {
        const char **srcs = ln_alloc(sizeof(char *) * (size_t)steps);
        char *on = ln_sprintf("%s/scan%zu", name, k);
        int ax = (int)out_axes[k];
        for (int t = 0; t < steps; t++)
            srcs[t] = scans[t][n + k];
        if (ax < 0) {
            int ndim, dims[LN_MAXDIM];
            if (dims_of(im, srcs[0], &ndim, dims))
                ax += ndim + 1;
        }
        if (*outs[n + k])
            stack_to(im, srcs, steps, ax, out_dirs[k] != 0, outs[n + k], on);
        ln_free(srcs);
        ln_free(on);
    }
    for (int t = 0; t < steps; t++)
        ln_free(scans[t]);
    ln_free(scans);
    ln_free(ins);
    ln_free(cur);
    (void)node;
    return LN_TRUE;
}

static void import_scan(imp *im, const Onnx__NodeProto *node, const char *name, const char *where)
{
    const Onnx__GraphProto *body;
    const Onnx__AttributeProto *nsi = ln_onnx_node_attr(node, "num_scan_inputs");
    ln_bool v8 = im->opset < 9;
    size_t first = v8 ? 1 : 0, m, n, k_scans;
    int64_t *in_axes, *in_dirs, *out_axes, *out_dirs;
    ln_bool ok;

    if (!attrs_known(im, node, v8 ? "body,num_scan_inputs,directions"
                                  : "body,num_scan_inputs,scan_input_axes,scan_input_directions,"
                                    "scan_output_axes,scan_output_directions", where) ||
        !(body = graph_attr(im, node, "body", where)) || !graph_names_ok(im, body, where)) {
        mark_unknown(im, node);
        return;
    }
    if (!nsi || nsi->i < 1 || node->n_input < first + (size_t)nsi->i ||
        body->n_input != node->n_input - first || body->n_output < node->n_input - first - (size_t)nsi->i ||
        node->n_output != body->n_output) {
        ln_onnx_problem_c(im, LN_EPARSE, "%s: Scan's inputs (%zu), outputs (%zu), "
                          "num_scan_inputs and its body's inputs (%zu) and outputs (%zu) do not "
                          "agree", where, node->n_input, node->n_output, body->n_input,
                          body->n_output);
        mark_unknown(im, node);
        return;
    }
    m = (size_t)nsi->i;
    n = node->n_input - first - m;
    k_scans = body->n_output - n;
    in_axes = ln_alloc(sizeof(int64_t) * (m + 1));
    in_dirs = ln_alloc(sizeof(int64_t) * (m + 1));
    out_axes = ln_alloc(sizeof(int64_t) * (k_scans + 1));
    out_dirs = ln_alloc(sizeof(int64_t) * (k_scans + 1));
    if (v8) {
        ok = ints_attr(im, node, "directions", m, 0, in_dirs, where);
        for (size_t k = 0; k < k_scans; k++)
            out_dirs[k] = 0;
    } else {
        ok = ints_attr(im, node, "scan_input_axes", m, 0, in_axes, where) &&
             ints_attr(im, node, "scan_input_directions", m, 0, in_dirs, where) &&
             ints_attr(im, node, "scan_output_axes", k_scans, 0, out_axes, where) &&
             ints_attr(im, node, "scan_output_directions", k_scans, 0, out_dirs, where);
    }
    for (size_t i = first; i < node->n_input && ok; i++)
        if (!*node->input[i]) {
            ln_onnx_problem_c(im, LN_EPARSE, "%s: input %zu is empty", where, i);
            ok = LN_FALSE;
        }
    if (ok && v8 && *node->input[0]) {
        ln_onnx_problem(im, "%s: sequence_lens ('%s') is not supported (every sequence has the "
                        "scan inputs' full length)", where, node->input[0]);
        ok = LN_FALSE;
    }
    if (ok && !v8) {
        ok = scan9(im, node, body, name, (const char *const *)node->input + first, n,
                   (const char *const *)node->input + first + n, m, in_axes, in_dirs, out_axes,
                   out_dirs, (const char *const *)node->output, where);
    } else if (ok) {
        /* opset 8: axis 0 of every input and output is a batch; each batch
         * entry is a Scan of opset 9 on sequence axis 0, the results
         * stacked again on axis 0 */
        int ndim, dims[LN_MAXDIM], batch;
        const char *x0 = node->input[first + n];
        if (!dims_of(im, x0, &ndim, dims) || ndim < 2) {
            ln_onnx_problem(im, "%s: the shape of scan input '%s' is not known at import time "
                            "(or it has no batch and sequence axes)", where, x0);
            ok = LN_FALSE;
        } else {
            const char **st = ln_alloc(sizeof(char *) * (n + m + 1));
            const char ***res = ln_alloc(sizeof(char **) * (size_t)dims[0]);
            batch = dims[0];
            for (size_t k = 0; k < m; k++)
                in_axes[k] = 0;
            for (size_t k = 0; k < k_scans; k++)
                out_axes[k] = 0;
            for (int b = 0; b < batch && ok; b++) {
                char *bname = ln_sprintf("%s/b%d", name, b);
                res[b] = ln_alloc(sizeof(char *) * (node->n_output + 1));
                for (size_t j = 0; j < n + m; j++) {
                    char *t = ln_sprintf("%s/in%zu", bname, j), *on = ln_sprintf("%s/batch%zu", bname, j);
                    st[j] = fresh(im, t);
                    gather_to(im, node->input[first + j], b, 0, st[j], on);
                    ln_free(t);
                    ln_free(on);
                }
                for (size_t j = 0; j < node->n_output; j++) {
                    char *t = ln_sprintf("%s/out%zu", bname, j);
                    res[b][j] = fresh(im, t);
                    ln_free(t);
                }
                ok = scan9(im, node, body, bname, st, n, st + n, m, in_axes, in_dirs, out_axes,
                           out_dirs, res[b], where);
                ln_free(bname);
            }
            for (size_t j = 0; j < node->n_output && ok; j++) {
                const char **srcs = ln_alloc(sizeof(char *) * (size_t)batch);
                char *on = ln_sprintf("%s/stack%zu", name, j);
                for (int b = 0; b < batch; b++)
                    srcs[b] = res[b][j];
                if (*node->output[j])
                    stack_to(im, srcs, batch, 0, LN_FALSE, node->output[j], on);
                ln_free(srcs);
                ln_free(on);
            }
            for (int b = 0; b < batch; b++)
                ln_free(res[b]);
            ln_free(res);
            ln_free(st);
        }
    }
    if (!ok)
        mark_unknown(im, node);
    ln_free(in_axes);
    ln_free(in_dirs);
    ln_free(out_axes);
    ln_free(out_dirs);
}

void ln_onnx_import_ctrl(imp *im, const Onnx__NodeProto *node, const char *name,
                         const char *where)
{
    if (ln_streq(node->op_type, "If"))
        import_if(im, node, name, where);
    else if (ln_streq(node->op_type, "Loop"))
        import_loop(im, node, name, where);
    else
        import_scan(im, node, name, where);
}

/* The names subgraphs read from outside themselves count as read, so that
 * an output they alone read is not dropped. */
void ln_onnx_ctrl_consumed(imp *im, const Onnx__GraphProto *g)
{
    for (size_t i = 0; i < g->n_node; i++)
        for (size_t j = 0; j < g->node[i]->n_attribute; j++) {
            const Onnx__AttributeProto *a = g->node[i]->attribute[j];
            const Onnx__GraphProto *sub = a->g;
            if (!sub)
                continue;
            for (size_t k = 0; k < sub->n_node; k++)
                for (size_t l = 0; l < sub->node[k]->n_input; l++)
                    if (sub->node[k]->input[l])
                        ln_onnx_set_add(im->consumed, sub->node[k]->input[l]);
            for (size_t k = 0; k < sub->n_output; k++)
                if (sub->output[k]->name)
                    ln_onnx_set_add(im->consumed, sub->output[k]->name);
            ln_onnx_ctrl_consumed(im, sub);
        }
}

#endif /* LN_HAVE_ONNX */
