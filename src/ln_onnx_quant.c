/*
 * ln_onnx_quant.c -- ln-quant's quantizer: a float ONNX model and
 * calibration inputs to a QDQ ONNX model (ln_quant.h).
 *
 * The model is read with protobuf-c's generated ONNX structs (the ones the
 * importer links) and written with them.  Steps:
 *
 * 1. Batch norms after a conv (or a gemm of transB=1) whose output they
 *    alone read are folded into its weights and bias.
 * 2. The tensors to quantize: the data input and output of each op with an
 *    int8 kernel (Conv, Gemm, MatMul of a constant weight, Add, Mul, pools,
 *    Concat, elementwise functions by table, Softmax); a Relu / Clip that alone
 *    reads such an output moves the quantization to its output (its range
 *    is the clamp); views and pools share their input's parameters, and
 *    so do a concat's inputs and output (one union-find over tensors),
 *    and with --add-scales a residual add's inputs (and output).
 *    A Softmax's output has fixed parameters, scale 1/256 and zero point
 *    -128, as ONNX Runtime's quantizer gives it (TensorFlow Lite's int8
 *    softmax output, which the compiler's softmax_s8 needs).
 * 3. Calibration: the folded float model is imported and compiled with the
 *    expander only (no fusion renames or removes a tensor, every node's
 *    output keeps its ONNX name) and planned with no buffer shared, so
 *    after each run every tensor still holds its value; no hook in the
 *    interpreter's loop is needed.  Each tracked tensor's min and max over
 *    all inferences; for percentile and MSE a second pass fills a
 *    2048-bin histogram over that range.
 * 4. The QDQ graph, as ONNX Runtime's quantizer writes it: Q -> DQ after
 *    every quantized activation (named <t>_QuantizeLinear, <t>_scale,
 *    <t>_zero_point, outputs <t>_q and <t>_dq), weights int8 per output
 *    channel (symmetric, +-127) behind a DQ of axis 0 (Gemm of transB=0
 *    and MatMul: axis 1), biases int32 at x_scale * w_scale[o]; a graph
 *    output keeps its name on the DQ (the producer writes <o>_float).
 *
 * Everything is computed in a fixed order from the inputs' bytes, so the
 * same inputs give the same model byte for byte.
 */
#include <math.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ln_quant.h"
#include "ln_interp.h"
#include "ln_serializer.h"
#include "ln_onnx.h"

#ifdef LN_HAVE_ONNX
#include "onnx.pb-c.h"
#include "ln_onnx_impl.h"

#define NBINS 2048

/* ---- a pool: everything this file allocates, freed at once ---- */
typedef struct {
    void **p;
    size_t n, cap;
} pool;

static void *palloc(pool *pl, size_t size)
{
    void *p = ln_alloc(size ? size : 1);
    memset(p, 0, size ? size : 1);
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? 2 * pl->cap : 256;
        pl->p = ln_realloc(pl->p, pl->cap * sizeof(void *));
    }
    pl->p[pl->n++] = p;
    return p;
}

static char *pstrdup(pool *pl, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = palloc(pl, n);
    memcpy(d, s, n);
    return d;
}

static char *pcat(pool *pl, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    char *d = palloc(pl, na + nb + 1);
    memcpy(d, a, na);
    memcpy(d + na, b, nb + 1);
    return d;
}

static void pool_free(pool *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        ln_free(pl->p[i]);
    ln_free(pl->p);
}

/* ---- a float constant (initializer) ---- */
typedef struct {
    char *name;
    int ndim;
    int64_t dims[8];
    float *v;
    size_t len;
} fconst;

/* ---- a tracked tensor ---- */
typedef struct {
    char *name;
    int parent;                 /* union-find */
    double lo, hi;              /* observed */
    double clo, chi;            /* chosen (calibrated) */
    uint64_t *hist;             /* NBINS, method != minmax */
    uint64_t count;
    float scale;
    int8_t zp;
    ln_bool has_params;
    ln_bool softmax_out;        /* a Softmax's output: 1/256, -128 */
} track;

typedef struct {
    pool pl;
    Onnx__ModelProto *m;        /* as unpacked (freed at the end) */
    Onnx__GraphProto *g;
    int opset;
    /* the working graph */
    Onnx__NodeProto **nodes;
    size_t n_nodes;
    ln_bool *dropped;
    ln_hash *inits;             /* name -> Onnx__TensorProto * (original or new) */
    ln_hash *fconsts;           /* name -> fconst * (weights read as float) */
    ln_hash *names;             /* every tensor name in the model -> 1 */
    ln_hash *readers;           /* name -> count + 1 */
    ln_hash *producer;          /* name -> node index + 1 */
    ln_hash *track_idx;         /* name -> track index + 1 */
    track *tr;
    int n_tr, cap_tr;
    /* the new graph */
    Onnx__NodeProto **out_nodes;
    size_t n_out, cap_out;
    Onnx__TensorProto **new_inits;
    size_t n_new_inits, cap_new_inits;
    const ln_quant_opts *opts;
    /* bias correction: per node, its data input's mean per channel */
    double **xmean;
    int64_t *xlen;              /* its channel count */
    int (*xsp)[4];              /* a conv input's spatial dims: count, then sizes */
    float *delta;               /* the last qweight's output shift */
} qz;

static ln_hash *str_hash(void)
{
    return ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
}

static intptr_t hget(const ln_hash *h, const char *k)
{
    return (intptr_t)ln_hash_find(h, k);
}

static void hset(ln_hash *h, const char *k, intptr_t v)
{
    ln_hash_remove(h, k);
    ln_hash_insert(h, (void *)k, (void *)v);
}

static const char *op_of(const Onnx__NodeProto *n)
{
    return n->op_type ? n->op_type : "";
}

static const char *node_name(const Onnx__NodeProto *n)
{
    if (n->name && n->name[0])
        return n->name;
    return n->n_output ? n->output[0] : "(unnamed)";
}

static ln_bool is_one_of(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (ln_streq(s, list[i]))
            return LN_TRUE;
    return LN_FALSE;
}

static const char *const WEIGHTED[] = {"Conv", "Gemm", "MatMul", NULL};
static const char *const BINARY[] = {"Add", "Mul", NULL};
static const char *const POOLS[] = {"MaxPool", "AveragePool", NULL};
static const char *const ACTS[] = {"Relu", "Clip", NULL};
static const char *const VIEWS[] = {"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose",
                                    "Pad", NULL};
static const char *const LUT[] = {"Sigmoid", "Tanh", "HardSwish", "HardSigmoid", "LeakyRelu",
                                  "Elu", NULL};
/* ops that need no int8 kernel: they leave quantization as it is */
static const char *const NEUTRAL[] = {"Constant", "Identity", "Dropout", NULL};

static double attr_f(const Onnx__NodeProto *n, const char *name, double def)
{
    const Onnx__AttributeProto *a = ln_onnx_node_attr(n, name);
    return a && a->has_f ? a->f : def;
}

static ln_bool keep_float(const qz *q, const Onnx__NodeProto *n)
{
    const char *list = q->opts ? q->opts->keep_float : NULL, *p;
    const char *nm = node_name(n);
    size_t len = strlen(nm);

    for (p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && !strncmp(p, nm, l))
            return LN_TRUE;
        p = e ? e + 1 : NULL;
    }
    return LN_FALSE;
}

/* ---- constants ---- */

static fconst *get_fconst(qz *q, const char *name)
{
    Onnx__TensorProto *tp;
    fconst *c = ln_hash_find(q->fconsts, name);
    ln_tensor *t;

    if (c)
        return c;
    tp = ln_hash_find(q->inits, name);
    if (!tp || tp->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || tp->n_dims > 8)
        return NULL;
    if (ln_onnx_tensor_from_proto(tp, name, &t))
        return NULL;
    c = palloc(&q->pl, sizeof *c);
    c->name = pstrdup(&q->pl, name);
    c->ndim = (int)tp->n_dims;
    for (int i = 0; i < c->ndim; i++)
        c->dims[i] = tp->dims[i];
    c->len = t->len;
    c->v = palloc(&q->pl, c->len * sizeof(float));
    memcpy(c->v, t->data, c->len * sizeof(float));
    ln_tensor_free(t);
    ln_hash_insert(q->fconsts, c->name, c);
    return c;
}

static void put_le(unsigned char *p, uint64_t v, int size)
{
    for (int i = 0; i < size; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* A new initializer (raw little-endian data) replacing any of that name. */
static Onnx__TensorProto *new_init(qz *q, const char *name, int32_t dtype, int ndim,
                                   const int64_t *dims, const void *data, size_t len, int esize)
{
    Onnx__TensorProto init = ONNX__TENSOR_PROTO__INIT;
    Onnx__TensorProto *t = palloc(&q->pl, sizeof *t);
    unsigned char *raw;

    *t = init;
    t->name = pstrdup(&q->pl, name);
    t->has_data_type = 1;
    t->data_type = dtype;
    t->n_dims = (size_t)ndim;
    t->dims = palloc(&q->pl, sizeof(int64_t) * (size_t)(ndim ? ndim : 1));
    for (int i = 0; i < ndim; i++)
        t->dims[i] = dims[i];
    raw = palloc(&q->pl, len * (size_t)esize);
    for (size_t i = 0; i < len; i++) {
        uint64_t v = 0;
        if (esize == 1)
            v = *((const uint8_t *)data + i);
        else if (esize == 4)
            memcpy(&v, (const char *)data + 4 * i, 4), v &= 0xffffffffu;
        put_le(raw + i * (size_t)esize, v, esize);
    }
    t->has_raw_data = 1;
    t->raw_data.len = len * (size_t)esize;
    t->raw_data.data = raw;
    hset(q->inits, t->name, (intptr_t)t);
    hset(q->names, t->name, 1);
    ln_hash_remove(q->fconsts, t->name);
    if (q->n_new_inits == q->cap_new_inits) {
        q->cap_new_inits = q->cap_new_inits ? 2 * q->cap_new_inits : 64;
        q->new_inits = ln_realloc(q->new_inits, q->cap_new_inits * sizeof(void *));
    }
    q->new_inits[q->n_new_inits++] = t;
    return t;
}

static void set_fconst(qz *q, fconst *c)
{
    new_init(q, c->name, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, c->ndim, c->dims, c->v, c->len, 4);
    ln_hash_insert(q->fconsts, c->name, c);
}

/* ---- the working graph ---- */

static Onnx__NodeProto *copy_node(qz *q, const Onnx__NodeProto *n)
{
    Onnx__NodeProto *c = palloc(&q->pl, sizeof *c);
    *c = *n;
    c->input = palloc(&q->pl, sizeof(char *) * (n->n_input + 1));
    c->output = palloc(&q->pl, sizeof(char *) * (n->n_output + 1));
    for (size_t i = 0; i < n->n_input; i++)
        c->input[i] = pstrdup(&q->pl, n->input[i]);
    for (size_t i = 0; i < n->n_output; i++)
        c->output[i] = pstrdup(&q->pl, n->output[i]);
    return c;
}

static void index_graph(qz *q)
{
    if (q->readers)
        ln_hash_free(q->readers);
    if (q->producer)
        ln_hash_free(q->producer);
    q->readers = str_hash();
    q->producer = str_hash();
    for (size_t k = 0; k < q->n_nodes; k++) {
        Onnx__NodeProto *n = q->nodes[k];
        if (q->dropped[k])
            continue;
        for (size_t i = 0; i < n->n_input; i++)
            if (n->input[i][0])
                hset(q->readers, n->input[i], hget(q->readers, n->input[i]) + 1);
        for (size_t i = 0; i < n->n_output; i++)
            hset(q->producer, n->output[i], (intptr_t)k + 1);
    }
    for (size_t i = 0; i < q->g->n_output; i++)   /* a graph output counts as a reader */
        hset(q->readers, q->g->output[i]->name, hget(q->readers, q->g->output[i]->name) + 1);
}

static ln_bool is_graph_output(const qz *q, const char *t)
{
    for (size_t i = 0; i < q->g->n_output; i++)
        if (ln_streq(q->g->output[i]->name, t))
            return LN_TRUE;
    return LN_FALSE;
}

/* The only node reading t (NULL: none, several, or a graph output). */
static Onnx__NodeProto *sole_reader(const qz *q, const char *t, size_t *idx)
{
    Onnx__NodeProto *r = NULL;
    if (hget(q->readers, t) != 1 || is_graph_output(q, t))
        return NULL;
    for (size_t k = 0; k < q->n_nodes; k++) {
        if (q->dropped[k])
            continue;
        for (size_t i = 0; i < q->nodes[k]->n_input; i++)
            if (ln_streq(q->nodes[k]->input[i], t)) {
                r = q->nodes[k];
                if (idx)
                    *idx = k;
            }
    }
    return r;
}

/* BatchNormalization after a Conv / Gemm(transB=1) it alone reads. */
static void fold_bn(qz *q)
{
    for (size_t k = 0; k < q->n_nodes; k++) {
        Onnx__NodeProto *bn = q->nodes[k], *p;
        fconst *sc, *b, *mu, *var, *w, *bias;
        intptr_t pi;
        int64_t c;
        double eps;

        if (q->dropped[k] || !ln_streq(op_of(bn), "BatchNormalization") || bn->n_input < 5 ||
            bn->n_output < 1 || keep_float(q, bn))
            continue;
        index_graph(q);
        pi = hget(q->producer, bn->input[0]);
        if (!pi)
            continue;
        p = q->nodes[pi - 1];
        if (!(ln_streq(op_of(p), "Conv") ||
              (ln_streq(op_of(p), "Gemm") && ln_onnx_node_attr_i(p, "transB", 0) == 1 &&
               attr_f(p, "alpha", 1.0) == 1.0 && attr_f(p, "beta", 1.0) == 1.0)))
            continue;
        if (hget(q->readers, bn->input[0]) != 1 || is_graph_output(q, bn->input[0]) ||
            p->n_input < 2)
            continue;
        sc = get_fconst(q, bn->input[1]);
        b = get_fconst(q, bn->input[2]);
        mu = get_fconst(q, bn->input[3]);
        var = get_fconst(q, bn->input[4]);
        w = get_fconst(q, p->input[1]);
        if (!sc || !b || !mu || !var || !w || w->ndim < 2)
            continue;
        c = w->dims[0];
        if ((int64_t)sc->len != c || (int64_t)b->len != c || (int64_t)mu->len != c ||
            (int64_t)var->len != c)
            continue;
        bias = p->n_input > 2 && p->input[2][0] ? get_fconst(q, p->input[2]) : NULL;
        if (p->n_input > 2 && p->input[2][0] && (!bias || (int64_t)bias->len != c))
            continue;
        if (hget(q->readers, p->input[1]) != 1 || (bias && hget(q->readers, bias->name) != 1))
            continue;   /* a weight shared with another node stays as it is */
        eps = attr_f(bn, "epsilon", 1e-5);
        {
            fconst *nw = palloc(&q->pl, sizeof *nw), *nb = palloc(&q->pl, sizeof *nb);
            size_t per = w->len / (size_t)c;
            *nw = *w;
            nw->v = palloc(&q->pl, w->len * sizeof(float));
            *nb = (fconst){0};
            nb->name = bias ? bias->name : pcat(&q->pl, node_name(p), "_bias");
            nb->ndim = 1;
            nb->dims[0] = c;
            nb->len = (size_t)c;
            nb->v = palloc(&q->pl, (size_t)c * sizeof(float));
            for (int64_t o = 0; o < c; o++) {
                float s = (float)(sc->v[o] / sqrt((double)var->v[o] + eps));
                for (size_t j = 0; j < per; j++)
                    nw->v[(size_t)o * per + j] = w->v[(size_t)o * per + j] * s;
                nb->v[o] = ((bias ? bias->v[o] : 0.0f) - mu->v[o]) * s + b->v[o];
            }
            ln_hash_remove(q->fconsts, w->name);
            set_fconst(q, nw);
            ln_hash_remove(q->fconsts, nb->name);
            set_fconst(q, nb);
            if (p->n_input < 3) {
                char **in = palloc(&q->pl, sizeof(char *) * 3);
                in[0] = p->input[0];
                in[1] = p->input[1];
                in[2] = nb->name;
                p->input = in;
                p->n_input = 3;
            } else {
                p->input[2] = nb->name;
            }
            p->output[0] = bn->output[0];
            q->dropped[k] = LN_TRUE;
        }
    }
    index_graph(q);
}

/* ---- tracked tensors (union-find) ---- */

static int track_of(qz *q, const char *name)
{
    intptr_t i = hget(q->track_idx, name);
    track *t;

    if (i)
        return (int)i - 1;
    if (q->n_tr == q->cap_tr) {
        q->cap_tr = q->cap_tr ? 2 * q->cap_tr : 64;
        q->tr = ln_realloc(q->tr, (size_t)q->cap_tr * sizeof(track));
    }
    t = &q->tr[q->n_tr];
    memset(t, 0, sizeof *t);
    t->name = pstrdup(&q->pl, name);
    t->parent = q->n_tr;
    t->lo = DBL_MAX;
    t->hi = -DBL_MAX;
    hset(q->track_idx, t->name, q->n_tr + 1);
    return q->n_tr++;
}

static int find(qz *q, int i)
{
    while (q->tr[i].parent != i)
        i = q->tr[i].parent = q->tr[q->tr[i].parent].parent;
    return i;
}

static void unite(qz *q, int a, int b)
{
    a = find(q, a);
    b = find(q, b);
    if (a != b) {   /* the smaller index leads: deterministic */
        if (a < b)
            q->tr[b].parent = a;
        else
            q->tr[a].parent = b;
    }
}

static ln_bool is_quantized(const qz *q, const char *name)
{
    return hget(q->track_idx, name) != 0;
}

static ln_bool is_const(const qz *q, const char *name)
{
    intptr_t p;
    if (ln_hash_find(q->inits, name))
        return LN_TRUE;
    p = hget(q->producer, name);
    return p && ln_streq(op_of(q->nodes[p - 1]), "Constant");
}

static ln_bool is_float_input(const qz *q, const char *name)
{
    for (size_t i = 0; i < q->g->n_input; i++) {
        Onnx__ValueInfoProto *v = q->g->input[i];
        if (ln_streq(v->name, name))
            return !(v->type && v->type->tensor_type && v->type->tensor_type->has_elem_type &&
                     v->type->tensor_type->elem_type != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
    }
    return LN_TRUE;
}

/* A weighted node whose weight is a float constant, the data input not. */
static ln_bool weighted_ok(qz *q, const Onnx__NodeProto *n)
{
    fconst *w;
    if (!is_one_of(op_of(n), WEIGHTED) || n->n_input < 2 || is_const(q, n->input[0]))
        return LN_FALSE;
    w = get_fconst(q, n->input[1]);
    if (!w || w->ndim != (ln_streq(op_of(n), "Conv") ? w->ndim : 2) || w->ndim < 2)
        return LN_FALSE;
    if (ln_streq(op_of(n), "Gemm") && ln_onnx_node_attr_i(n, "transA", 0))
        return LN_FALSE;
    return LN_TRUE;
}

/* The output an int8 op writes for node n: its own, or that of the Relu /
 * Clip folded into it (choose_set tracks the one it quantizes). */
static const char *quantized_output(const qz *q, const Onnx__NodeProto *n)
{
    Onnx__NodeProto *r = sole_reader(q, n->output[0], NULL);
    if (is_quantized(q, n->output[0]) || !r || !is_one_of(op_of(r), ACTS))
        return n->output[0];
    return r->output[0];
}

/* A residual add (two quantized activations, not kept float): its inputs
 * share one range (--add-scales inputs), and its output too (all). */
static void unite_add(qz *q, const Onnx__NodeProto *n)
{
    const ln_quant_add_scales how = q->opts ? q->opts->add_scales : LN_QUANT_ADD_SEPARATE;
    const char *o;

    if (how == LN_QUANT_ADD_SEPARATE || n->n_input != 2 || keep_float(q, n) ||
        !is_quantized(q, n->input[0]) || !is_quantized(q, n->input[1]))
        return;
    unite(q, track_of(q, n->input[0]), track_of(q, n->input[1]));
    o = quantized_output(q, n);
    if (how == LN_QUANT_ADD_ALL && is_quantized(q, o))
        unite(q, track_of(q, n->input[0]), track_of(q, o));
}

static void choose_set(qz *q, FILE *log)
{
    for (size_t k = 0; k < q->n_nodes; k++) {
        Onnx__NodeProto *n = q->nodes[k], *r;
        const char *op = op_of(n), *o;
        ln_bool quant = LN_FALSE;
        int k2;

        if (q->dropped[k] || is_one_of(op, NEUTRAL))
            continue;
        if (n->domain && n->domain[0] && !ln_streq(n->domain, "ai.onnx")) {
            /* another domain: left as it is */
        } else if (keep_float(q, n)) {
            if (log)
                fprintf(log, "ln-quant: %s (%s) stays float (--keep-float)\n", node_name(n), op);
            continue;
        } else if (weighted_ok(q, n)) {
            track_of(q, n->input[0]);
            quant = LN_TRUE;
        } else if (is_one_of(op, BINARY) || ln_streq(op, "Concat")) {
            ln_bool ok = n->n_input >= 2;
            for (size_t i = 0; i < n->n_input && ok; i++)
                if (!n->input[i][0] || is_const(q, n->input[i]))
                    ok = LN_FALSE;
            if (ok) {
                for (size_t i = 0; i < n->n_input; i++)
                    track_of(q, n->input[i]);
                quant = LN_TRUE;
            }
        } else if (is_one_of(op, POOLS) || ln_streq(op, "GlobalAveragePool") ||
                   is_one_of(op, LUT) || ln_streq(op, "Softmax")) {
            if (n->n_input >= 1 && !is_const(q, n->input[0])) {
                track_of(q, n->input[0]);
                quant = LN_TRUE;
            }
        }
        if (!quant) {
            if (log && !is_one_of(op, VIEWS) && !is_one_of(op, ACTS))
                fprintf(log, "ln-quant: %s (%s) has no int8 kernel: stays float between "
                        "DequantizeLinear and QuantizeLinear\n", node_name(n), op);
            continue;
        }
        o = n->output[0];
        r = sole_reader(q, o, NULL);
        if (r && is_one_of(op_of(r), ACTS) && !keep_float(q, r) && !is_one_of(op, LUT) &&
            !ln_streq(op, "Softmax") &&
            !(ln_streq(op_of(r), "Clip") && ((r->n_input > 1 && r->input[1][0] &&
                                              !is_const(q, r->input[1])) ||
                                             (r->n_input > 2 && r->input[2][0] &&
                                              !is_const(q, r->input[2])))))
            o = r->output[0];
        k2 = track_of(q, o);
        if (ln_streq(op, "Softmax"))
            q->tr[k2].softmax_out = LN_TRUE;
    }
    /* views and pools share their input's parameters; a concat's inputs and output one */
    for (size_t k = 0; k < q->n_nodes; k++) {
        Onnx__NodeProto *n = q->nodes[k];
        const char *op = op_of(n);
        if (q->dropped[k] || !n->n_input || !n->n_output)
            continue;
        if ((is_one_of(op, VIEWS) || is_one_of(op, POOLS)) && is_quantized(q, n->output[0]) &&
            is_quantized(q, n->input[0]) && !keep_float(q, n))
            unite(q, track_of(q, n->input[0]), track_of(q, n->output[0]));
        if (ln_streq(op, "Concat") && is_quantized(q, n->output[0]))
            for (size_t i = 0; i < n->n_input; i++)
                if (is_quantized(q, n->input[i]))
                    unite(q, track_of(q, n->input[i]), track_of(q, n->output[0]));
        if (ln_streq(op, "Add"))
            unite_add(q, n);
    }
    /* graph inputs that are not float stay as they are */
    for (int i = 0; i < q->n_tr; i++)
        if (!is_float_input(q, q->tr[i].name))
            ln_hash_remove(q->track_idx, q->tr[i].name);
}

/* ---- calibration ---- */

static Onnx__ModelProto *model_with(qz *q, Onnx__NodeProto **nodes, size_t n_nodes)
{
    Onnx__ModelProto *m = palloc(&q->pl, sizeof *m);
    Onnx__GraphProto *g = palloc(&q->pl, sizeof *g);
    size_t ni = 0;
    ln_hash *used = str_hash();

    *m = *q->m;
    *g = *q->g;
    m->graph = g;
    g->node = nodes;
    g->n_node = n_nodes;
    for (size_t k = 0; k < n_nodes; k++)
        for (size_t i = 0; i < nodes[k]->n_input; i++)
            hset(used, nodes[k]->input[i], 1);
    for (size_t i = 0; i < q->g->n_output; i++)
        hset(used, q->g->output[i]->name, 1);
    g->initializer = palloc(&q->pl, sizeof(void *) * (q->g->n_initializer + q->n_new_inits + 1));
    /* the original order, then the new ones; each name once (its latest) */
    for (size_t i = 0; i < q->g->n_initializer + q->n_new_inits; i++) {
        Onnx__TensorProto *t = i < q->g->n_initializer ? q->g->initializer[i]
                                                       : q->new_inits[i - q->g->n_initializer];
        if (ln_hash_find(q->inits, t->name) != t || !hget(used, t->name))
            continue;
        g->initializer[ni++] = t;
        hset(used, t->name, 0);
    }
    g->n_initializer = ni;
    /* inputs listed as initializers too (old exporters) keep only the real ones */
    {
        Onnx__ValueInfoProto **in = palloc(&q->pl, sizeof(void *) * (q->g->n_input + 1));
        size_t nin = 0;
        for (size_t i = 0; i < q->g->n_input; i++)
            if (!ln_hash_find(q->inits, q->g->input[i]->name))
                in[nin++] = q->g->input[i];
        g->input = in;
        g->n_input = nin;
    }
    ln_hash_free(used);
    return m;
}

static int pack(const Onnx__ModelProto *m, void **buf, size_t *len)
{
    size_t n = onnx__model_proto__get_packed_size(m);
    *buf = ln_alloc(n ? n : 1);
    *len = onnx__model_proto__pack(m, *buf);
    return 0;
}

static void observe(track *t, const float *v, size_t n, int pass)
{
    if (pass == 0) {
        for (size_t i = 0; i < n; i++) {
            if (v[i] < t->lo)
                t->lo = v[i];
            if (v[i] > t->hi)
                t->hi = v[i];
        }
        t->count += n;
        return;
    }
    {
        double w = t->hi - t->lo;
        for (size_t i = 0; i < n; i++) {
            long b = w > 0 ? (long)((v[i] - t->lo) / w * NBINS) : 0;
            if (b < 0)
                b = 0;
            if (b >= NBINS)
                b = NBINS - 1;
            t->hist[b]++;
        }
    }
}

/* The channel of a weighted node's data input: NCHW's 1 for a conv, the last
 * dim for a gemm or matmul; 0 when the shape does not fit. */
static int64_t channels(const Onnx__NodeProto *n, const ln_tensor *t, size_t *inner)
{
    if (ln_streq(op_of(n), "Conv")) {
        if (t->ndim < 3)
            return 0;
        *inner = t->len / (size_t)t->dims[0] / (size_t)t->dims[1];
        return t->dims[1];
    }
    if (t->ndim < 1)
        return 0;
    *inner = 1;
    return t->dims[t->ndim - 1];
}

/* sums of each weighted node's input per channel, divided by the count at
 * the end (runs of the same size: each run adds its mean / n) */
static void channel_means(qz *q, const ln_context *ctx, int runs)
{
    for (size_t k = 0; k < q->n_nodes; k++) {
        Onnx__NodeProto *n = q->nodes[k];
        const ln_tensor *t;
        size_t inner = 1;
        int64_t c;
        if (q->dropped[k] || !weighted_ok(q, n) || keep_float(q, n) ||
            !is_quantized(q, n->input[0]))
            continue;
        t = ln_context_tensor(ctx, n->input[0]);
        if (!t || !t->data || t->dtype != LN_DTYPE_FLOAT32 || !(c = channels(n, t, &inner)))
            continue;
        if (!q->xmean[k]) {
            q->xmean[k] = palloc(&q->pl, (size_t)c * sizeof(double));
            q->xlen[k] = c;
            if (ln_streq(op_of(n), "Conv") && t->ndim - 2 <= 3) {
                q->xsp[k][0] = t->ndim - 2;
                for (int d = 2; d < t->ndim; d++)
                    q->xsp[k][d - 1] = t->dims[d];
            }
        }
        {
            const float *v = t->data;
            size_t per = t->len / (size_t)c;   /* elements of one channel */
            for (size_t i = 0; i < t->len; i++) {
                size_t ch = (i / inner) % (size_t)c;
                q->xmean[k][ch] += v[i] / (double)per / runs;
            }
        }
    }
}

static int calibrate(qz *q, const void *buf, size_t len, const ln_quant_inputs *calib)
{
    ln_context *ctx = ln_context_create();
    int ret, passes = q->opts && q->opts->method != LN_QUANT_MINMAX ? 2 : 1;

    ctx->no_opt = LN_TRUE;
    ctx->plan_noreuse = LN_TRUE;
    if ((ret = ln_context_init_mem(ctx, buf, len, "model (batch norms folded)", "onnx", NULL)) ||
        (ret = ln_context_compile(ctx, "cpu")) || (ret = ln_context_load(ctx, NULL)))
        goto out;
    for (int i = 0; i < q->n_tr; i++) {
        ln_tensor *t;
        if (!is_quantized(q, q->tr[i].name))
            continue;
        t = ln_context_tensor(ctx, q->tr[i].name);
        if (!t || !t->data) {
            ret = ln_error(LN_ENOTFOUND, "calibration: tensor '%s' is not in the imported graph",
                           q->tr[i].name);
            goto out;
        }
        if (t->dtype != LN_DTYPE_FLOAT32) {
            ret = ln_error(LN_EUNSUPPORTED, "calibration: tensor '%s' is %s, not float32",
                           q->tr[i].name, ln_dtype_name(t->dtype));
            goto out;
        }
    }
    for (int pass = 0; pass < passes; pass++) {
        if (pass == 1)
            for (int i = 0; i < q->n_tr; i++)
                q->tr[i].hist = palloc(&q->pl, NBINS * sizeof(uint64_t));
        for (int r = 0; r < calib->n; r++) {
            if ((ret = ln_quant_inputs_set(calib, r, ctx)) || (ret = ln_context_run(ctx)))
                goto out;
            for (int i = 0; i < q->n_tr; i++) {
                ln_tensor *t;
                if (!is_quantized(q, q->tr[i].name))
                    continue;
                t = ln_context_tensor(ctx, q->tr[i].name);
                observe(&q->tr[i], t->data, t->len, pass);
            }
            if (pass == 0)
                channel_means(q, ctx, calib->n);
        }
    }
out:
    ln_context_free(ctx);
    return ret;
}

/* squared error of quantizing the histogram to [lo, hi] with 256 levels */
static double hist_mse(const track *t, double lo, double hi)
{
    double s = (hi - lo) / 255.0, err = 0, w = (t->hi - t->lo) / NBINS;
    if (s <= 0)
        return 0;
    for (int b = 0; b < NBINS; b++) {
        double c, qv;
        if (!t->hist[b])
            continue;
        c = t->lo + (b + 0.5) * w;
        qv = nearbyint((c - lo) / s);
        if (qv < 0)
            qv = 0;
        if (qv > 255)
            qv = 255;
        qv = lo + qv * s;
        err += (double)t->hist[b] * (c - qv) * (c - qv);
    }
    return err;
}

static void choose_range(const qz *q, track *t)
{
    double lo = t->lo, hi = t->hi;
    const ln_quant_opts *o = q->opts;

    if (t->count == 0)
        lo = hi = 0;
    else if (o && o->method == LN_QUANT_PERCENTILE && t->hist) {
        /* the P-th percentile above, the (100 - P)-th below */
        double tail = (100.0 - o->percentile) / 100.0 * (double)t->count;
        double w = (t->hi - t->lo) / NBINS, acc = 0;
        int b;
        for (b = NBINS - 1; b > 0 && acc + (double)t->hist[b] <= tail; b--)
            acc += (double)t->hist[b];
        hi = t->lo + (b + 1) * w;
        acc = 0;
        for (b = 0; b < NBINS - 1 && acc + (double)t->hist[b] <= tail; b++)
            acc += (double)t->hist[b];
        lo = t->lo + b * w;
        if (hi > t->hi)
            hi = t->hi;
        if (lo < t->lo)
            lo = t->lo;
    } else if (o && o->method == LN_QUANT_MSE && t->hist) {
        /* the range [a lo, a hi] of least squared error, a = 1, 0.99, .. 0.2 */
        double blo = fmin(lo, 0), bhi = fmax(hi, 0), best = hist_mse(t, blo, bhi);
        for (int k = 99; k >= 20; k--) {
            double a = k / 100.0, e = hist_mse(t, a * fmin(lo, 0), a * fmax(hi, 0));
            if (e < best) {
                best = e;
                blo = a * fmin(lo, 0);
                bhi = a * fmax(hi, 0);
            }
        }
        lo = blo;
        hi = bhi;
    }
    t->clo = fmin(lo, 0);
    t->chi = fmax(hi, 0);
}

static int forced_range(qz *q)
{
    const char *s = q->opts ? q->opts->bad_range : NULL, *eq;
    char name[512];
    double lo, hi;
    int i;

    if (!s)
        return 0;
    eq = strrchr(s, '=');
    if (!eq || (size_t)(eq - s) >= sizeof name || sscanf(eq + 1, "%lf,%lf", &lo, &hi) != 2 ||
        !(lo < hi))
        return ln_error(LN_EINVAL, "--force-range wants TENSOR=LO,HI (LO < HI), got '%s'", s);
    memcpy(name, s, (size_t)(eq - s));
    name[eq - s] = '\0';
    if (!is_quantized(q, name))
        return ln_error(LN_ENOTFOUND, "--force-range: '%s' is not a quantized tensor", name);
    i = find(q, track_of(q, name));
    q->tr[i].clo = fmin(lo, 0);
    q->tr[i].chi = fmax(hi, 0);
    q->tr[i].has_params = LN_TRUE;   /* marks it forced */
    return 0;
}

/* Does root's group hold the output of an op whose values are bounded by
 * definition (a Clip, whose clamp the fusion takes from the range; a
 * sigmoid, tanh or softmax)?  --headroom leaves such a group's range as it is. */
static ln_bool group_bounded(qz *q, int root)
{
    static const char *const bounded[] = {"Clip", "Sigmoid", "HardSigmoid", "Tanh", "Softmax",
                                          NULL};
    for (int j = 0; j < q->n_tr; j++) {
        intptr_t p;
        if (find(q, j) != root)
            continue;
        p = hget(q->producer, q->tr[j].name);
        if (q->tr[j].softmax_out || (p && is_one_of(op_of(q->nodes[p - 1]), bounded)))
            return LN_TRUE;
    }
    return LN_FALSE;
}

static void compute_params(qz *q)
{
    double h = q->opts && q->opts->headroom > 1 ? q->opts->headroom : 1;

    for (int i = 0; i < q->n_tr; i++)
        if (is_quantized(q, q->tr[i].name))
            choose_range(q, &q->tr[i]);
    /* the group's range: the union of its members' */
    for (int i = 0; i < q->n_tr; i++) {
        int r = find(q, i);
        if (r == i || !is_quantized(q, q->tr[i].name))
            continue;
        q->tr[r].clo = fmin(q->tr[r].clo, q->tr[i].clo);
        q->tr[r].chi = fmax(q->tr[r].chi, q->tr[i].chi);
    }
    /* --headroom: room for inputs beyond what the calibration inputs reached */
    for (int i = 0; h > 1 && i < q->n_tr; i++)
        if (find(q, i) == i && is_quantized(q, q->tr[i].name) && !group_bounded(q, i)) {
            q->tr[i].clo *= h;
            q->tr[i].chi *= h;
        }
}

/* Does root's group hold a softmax's output? */
static ln_bool holds_softmax_out(qz *q, int root)
{
    for (int j = 0; j < q->n_tr; j++)
        if (q->tr[j].softmax_out && find(q, j) == root)
            return LN_TRUE;
    return LN_FALSE;
}

static int finish_params(qz *q)
{
    int ret;
    for (int i = 0; i < q->n_tr; i++)
        q->tr[i].has_params = LN_FALSE;
    compute_params(q);
    if ((ret = forced_range(q)))
        return ret;
    for (int i = 0; i < q->n_tr; i++) {
        track *t = &q->tr[i];
        double lo = t->clo, hi = t->chi, z;
        float s;
        if (find(q, i) != i)
            continue;
        s = (float)(fmax(hi - lo, 1e-8) / 255.0);
        z = nearbyint(-128.0 - lo / (double)s);
        /* a softmax's output (and what shares its parameters: a view of
         * it) at 1/256, -128, unless its range was forced or the group
         * holds values outside [0, 1] (a concat with other tensors) */
        if (!t->has_params && lo >= 0 && hi <= 1 && holds_softmax_out(q, i)) {
            s = 1.0f / 256.0f;
            z = -128;
        }
        t->scale = s;
        t->zp = (int8_t)(z < -128 ? -128 : z > 127 ? 127 : z);
        t->has_params = LN_TRUE;
    }
    for (int i = 0; i < q->n_tr; i++) {
        int r = find(q, i);
        q->tr[i].scale = q->tr[r].scale;
        q->tr[i].zp = q->tr[r].zp;
        q->tr[i].has_params = LN_TRUE;
    }
    return 0;
}

/* ---- the QDQ graph ---- */

static void emit(qz *q, Onnx__NodeProto *n)
{
    if (q->n_out == q->cap_out) {
        q->cap_out = q->cap_out ? 2 * q->cap_out : 128;
        q->out_nodes = ln_realloc(q->out_nodes, q->cap_out * sizeof(void *));
    }
    q->out_nodes[q->n_out++] = n;
}

static Onnx__NodeProto *new_node(qz *q, const char *op, const char *name, int nin,
                                 const char *const *ins, const char *out, int axis)
{
    Onnx__NodeProto init = ONNX__NODE_PROTO__INIT;
    Onnx__NodeProto *n = palloc(&q->pl, sizeof *n);
    *n = init;
    n->op_type = pstrdup(&q->pl, op);
    n->name = pstrdup(&q->pl, name);
    n->n_input = (size_t)nin;
    n->input = palloc(&q->pl, sizeof(char *) * (size_t)nin);
    for (int i = 0; i < nin; i++)
        n->input[i] = pstrdup(&q->pl, ins[i]);
    n->n_output = 1;
    n->output = palloc(&q->pl, sizeof(char *));
    n->output[0] = pstrdup(&q->pl, out);
    if (axis >= 0) {
        Onnx__AttributeProto ainit = ONNX__ATTRIBUTE_PROTO__INIT;
        Onnx__AttributeProto *a = palloc(&q->pl, sizeof *a);
        *a = ainit;
        a->name = pstrdup(&q->pl, "axis");
        a->has_type = 1;
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        a->has_i = 1;
        a->i = axis;
        n->n_attribute = 1;
        n->attribute = palloc(&q->pl, sizeof(void *));
        n->attribute[0] = a;
    }
    emit(q, n);
    return n;
}

static int fresh(qz *q, const char *name)
{
    if (hget(q->names, name))
        return ln_error(LN_EINVAL, "the model already has a tensor '%s', a name ln-quant "
                        "would give to a new one", name);
    hset(q->names, pstrdup(&q->pl, name), 1);
    return 0;
}

/* Q -> DQ of tensor t with the parameters of track tr; DQ output dq_out. */
static int qdq(qz *q, const char *t, const track *tr, const char *dq_out, const char *base)
{
    int64_t none[1] = {0};
    const char *sn = pcat(&q->pl, base, "_scale"), *zn = pcat(&q->pl, base, "_zero_point");
    const char *qn = pcat(&q->pl, base, "_q");
    const char *ins[3];
    int ret;

    if ((ret = fresh(q, sn)) || (ret = fresh(q, zn)) || (ret = fresh(q, qn)) ||
        (ret = fresh(q, pcat(&q->pl, base, "_QuantizeLinear"))) ||
        (ret = fresh(q, pcat(&q->pl, base, "_DequantizeLinear"))))
        return ret;
    new_init(q, sn, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0, none, &tr->scale, 1, 4);
    new_init(q, zn, ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 0, none, &tr->zp, 1, 1);
    ins[0] = t, ins[1] = sn, ins[2] = zn;
    new_node(q, "QuantizeLinear", pcat(&q->pl, base, "_QuantizeLinear"), 3, ins, qn, -1);
    ins[0] = qn;
    new_node(q, "DequantizeLinear", pcat(&q->pl, base, "_DequantizeLinear"), 3, ins, dq_out, -1);
    return 0;
}

/* weight input of n -> DQ(int8 per channel); *ws gets the scales */
static int64_t attr_ints(const Onnx__NodeProto *n, const char *name, int i, int64_t def)
{
    const Onnx__AttributeProto *a = ln_onnx_node_attr(n, name);
    return a && (size_t)i < a->n_ints ? a->ints[i] : def;
}

/* Of a conv's output positions, the fraction where kernel tap j (of the
 * flattened spatial window) reads inside the input rather than padding:
 * cov[j] for the kernel's spatial dims ks (nsp of them, input sizes in). */
static void tap_coverage(const Onnx__NodeProto *n, int nsp, const int *in, const int64_t *ks,
                         double *cov)
{
    const Onnx__AttributeProto *ap = ln_onnx_node_attr(n, "auto_pad");
    const char *pad = ap && ap->has_s ? (const char *)ap->s.data : "NOTSET";
    size_t plen = ap && ap->has_s ? ap->s.len : 6;
    double f[3][64];
    int64_t taps = 1;

    for (int d = 0; d < nsp; d++) {
        int64_t I = in[d], K = ks[d], S = attr_ints(n, "strides", d, 1);
        int64_t D = attr_ints(n, "dilations", d, 1), pb = attr_ints(n, "pads", d, 0);
        int64_t pe = attr_ints(n, "pads", d + nsp, 0), O;
        if (plen >= 4 && !strncmp(pad, "SAME", 4)) {
            int64_t tot = ((I + S - 1) / S - 1) * S + (K - 1) * D + 1 - I;
            tot = tot < 0 ? 0 : tot;
            pb = plen >= 10 && !strncmp(pad, "SAME_LOWER", 10) ? (tot + 1) / 2 : tot / 2;
            pe = tot - pb;
        } else if (plen >= 5 && !strncmp(pad, "VALID", 5)) {
            pb = pe = 0;
        }
        O = S > 0 ? (I + pb + pe - D * (K - 1) - 1) / S + 1 : 0;
        for (int64_t k = 0; k < K && k < 64; k++) {
            int64_t cnt = 0;
            for (int64_t o = 0; o < O; o++) {
                int64_t x = o * S - pb + k * D;
                cnt += x >= 0 && x < I;
            }
            f[d][k] = O > 0 ? (double)cnt / (double)O : 1.0;
        }
        taps *= K;
    }
    for (int64_t j = 0; j < taps; j++) {
        int64_t r = j;
        cov[j] = 1.0;
        for (int d = nsp - 1; d >= 0; d--) {
            cov[j] *= f[d][r % ks[d] < 64 ? r % ks[d] : 63];
            r /= ks[d];
        }
    }
}

static int qweight(qz *q, Onnx__NodeProto *n, const double *mean, int64_t mean_len,
                   const int *sp, float **ws, int64_t *nch)
{
    fconst *w = get_fconst(q, n->input[1]);
    int axis = ln_streq(op_of(n), "Conv") || ln_onnx_node_attr_i(n, "transB", 0) ? 0 : 1;
    int64_t c = w->dims[axis], inner = 1, outer = 1;
    float *s;
    int8_t *qv, *zp;
    const char *ins[3], *nm = n->input[1];
    int ret;

    for (int i = axis + 1; i < w->ndim; i++)
        inner *= w->dims[i];
    for (int i = 0; i < axis; i++)
        outer *= w->dims[i];
    s = palloc(&q->pl, (size_t)c * sizeof(float));
    qv = palloc(&q->pl, w->len);
    zp = palloc(&q->pl, (size_t)c);
    for (int64_t o = 0; o < c; o++) {
        float m = 0;
        for (int64_t a = 0; a < outer; a++)
            for (int64_t j = 0; j < inner; j++) {
                float v = fabsf(w->v[(a * c + o) * inner + j]);
                if (v > m)
                    m = v;
            }
        s[o] = m / 127.0f;
        if (s[o] < 1e-12f)
            s[o] = 1e-12f;
    }
    for (size_t i = 0; i < w->len; i++) {
        int64_t o = ((int64_t)i / inner) % c;
        float r = nearbyintf(w->v[i] / s[o]);
        qv[i] = (int8_t)(r < -127 ? -127 : r > 127 ? 127 : r);
    }
    q->delta = NULL;
    if (mean && mean_len != (axis == 0 ? (w->ndim > 1 ? w->dims[1] : 1) *
                             (ln_streq(op_of(n), "Conv") ? ln_onnx_node_attr_i(n, "group", 1) : 1) : outer))
        mean = NULL;   /* a shape the correction does not cover */
    if (mean && !(q->opts && q->opts->no_bias_correction)) {
        /* the output's shift the weights' rounding makes on the input's
         * mean: sum over the window of (w_q s - w) E[x_channel] (padding
         * aside), removed from the bias */
        int64_t group = ln_streq(op_of(n), "Conv") ? ln_onnx_node_attr_i(n, "group", 1) : 1;
        q->delta = palloc(&q->pl, (size_t)c * sizeof(float));
        if (axis == 0) {   /* [O][C/g][...] (conv, gemm of transB=1) */
            int64_t cg = w->ndim > 1 ? w->dims[1] : 1, kk = inner / (cg ? cg : 1);
            double *cov = palloc(&q->pl, (size_t)kk * sizeof(double));
            for (int64_t j = 0; j < kk; j++)
                cov[j] = 1.0;
            if (sp && sp[0] == w->ndim - 2 && sp[0] > 0)
                tap_coverage(n, sp[0], sp + 1, w->dims + 2, cov);
            for (int64_t o = 0; o < c; o++) {
                double d = 0;
                int64_t g0 = group > 0 && c % group == 0 ? o / (c / group) * cg : 0;
                for (int64_t j = 0; j < inner; j++) {
                    size_t i = (size_t)(o * inner + j);
                    d += ((double)qv[i] * s[o] - w->v[i]) * mean[g0 + j / kk] * cov[j % kk];
                }
                q->delta[o] = (float)d;
            }
        } else {           /* [K][N] (gemm of transB=0, matmul) */
            for (int64_t o = 0; o < c; o++) {
                double d = 0;
                for (int64_t kx = 0; kx < outer; kx++) {
                    size_t i = (size_t)(kx * c + o);
                    d += ((double)qv[i] * s[o] - w->v[i]) * mean[kx];
                }
                q->delta[o] = (float)d;
            }
        }
    }
    if ((ret = fresh(q, pcat(&q->pl, nm, "_q"))) || (ret = fresh(q, pcat(&q->pl, nm, "_dq"))) ||
        (ret = fresh(q, pcat(&q->pl, nm, "_scale"))) ||
        (ret = fresh(q, pcat(&q->pl, nm, "_zero_point"))))
        return ret;
    new_init(q, pcat(&q->pl, nm, "_q"), ONNX__TENSOR_PROTO__DATA_TYPE__INT8, w->ndim, w->dims,
             qv, w->len, 1);
    new_init(q, pcat(&q->pl, nm, "_scale"), ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, &c, s,
             (size_t)c, 4);
    new_init(q, pcat(&q->pl, nm, "_zero_point"), ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, &c, zp,
             (size_t)c, 1);
    ins[0] = pcat(&q->pl, nm, "_q");
    ins[1] = pcat(&q->pl, nm, "_scale");
    ins[2] = pcat(&q->pl, nm, "_zero_point");
    new_node(q, "DequantizeLinear", pcat(&q->pl, nm, "_DequantizeLinear"), 3, ins,
             pcat(&q->pl, nm, "_dq"), axis);
    n->input[1] = pcat(&q->pl, nm, "_dq");
    *ws = s;
    *nch = c;
    return 0;
}

static int qbias(qz *q, Onnx__NodeProto *n, float x_scale, const float *ws, int64_t c)
{
    fconst *b = get_fconst(q, n->input[2]);
    const char *nm = n->input[2], *ins[3];
    float *s;
    int32_t *qv, *zp;
    int ret;

    if (!b || b->ndim != 1 || b->dims[0] != c || hget(q->readers, nm) != 1)
        return 0;   /* stays a float constant (the fusion quantizes it) */
    s = palloc(&q->pl, (size_t)c * sizeof(float));
    qv = palloc(&q->pl, (size_t)c * sizeof(int32_t));
    zp = palloc(&q->pl, (size_t)c * sizeof(int32_t));
    for (int64_t o = 0; o < c; o++) {
        double r;
        s[o] = x_scale * ws[o];
        r = nearbyint((double)((b->v[o] - (q->delta ? q->delta[o] : 0.0f)) / s[o]));
        qv[o] = (int32_t)(r < -2147483648.0 ? -2147483648.0 : r > 2147483647.0 ? 2147483647.0 : r);
    }
    if ((ret = fresh(q, pcat(&q->pl, nm, "_q"))) || (ret = fresh(q, pcat(&q->pl, nm, "_dq"))) ||
        (ret = fresh(q, pcat(&q->pl, nm, "_scale"))) ||
        (ret = fresh(q, pcat(&q->pl, nm, "_zero_point"))))
        return ret;
    new_init(q, pcat(&q->pl, nm, "_q"), ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, &c, qv,
             (size_t)c, 4);
    new_init(q, pcat(&q->pl, nm, "_scale"), ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, &c, s,
             (size_t)c, 4);
    new_init(q, pcat(&q->pl, nm, "_zero_point"), ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, &c, zp,
             (size_t)c, 4);
    ins[0] = pcat(&q->pl, nm, "_q");
    ins[1] = pcat(&q->pl, nm, "_scale");
    ins[2] = pcat(&q->pl, nm, "_zero_point");
    new_node(q, "DequantizeLinear", pcat(&q->pl, nm, "_DequantizeLinear"), 3, ins,
             pcat(&q->pl, nm, "_dq"), 0);
    n->input[2] = pcat(&q->pl, nm, "_dq");
    return 0;
}

static int build_qdq(qz *q)
{
    ln_hash *renamed = str_hash();   /* quantized tensor -> its DQ output */
    int ret = 0;

    for (size_t i = 0; i < q->g->n_input && !ret; i++) {
        const char *x = q->g->input[i]->name;
        if (is_quantized(q, x)) {
            const char *dq = pcat(&q->pl, x, "_dq");
            if (!(ret = fresh(q, dq)))
                ret = qdq(q, x, &q->tr[track_of(q, x)], dq, x);
            hset(renamed, x, (intptr_t)dq);
        }
    }
    for (size_t k = 0; k < q->n_nodes && !ret; k++) {
        Onnx__NodeProto *n = q->nodes[k];
        const char *x_orig = n->n_input ? n->input[0] : NULL;
        if (q->dropped[k])
            continue;
        for (size_t i = 0; i < n->n_input; i++) {
            const char *r = (const char *)hget(renamed, n->input[i]);
            if (r)
                n->input[i] = (char *)r;
        }
        if (weighted_ok(q, n) && !keep_float(q, n) && is_quantized(q, x_orig) &&
            hget(q->readers, n->input[1]) == 1) {
            float *ws;
            int64_t c;
            if ((ret = qweight(q, n, q->xmean[k], q->xlen[k], q->xsp[k], &ws, &c)))
                break;
            if (!ln_streq(op_of(n), "MatMul") && n->n_input > 2 && n->input[2][0] &&
                (!ln_streq(op_of(n), "Gemm") ||
                 (attr_f(n, "alpha", 1.0) == 1.0 && attr_f(n, "beta", 1.0) == 1.0)) &&
                (ret = qbias(q, n, q->tr[track_of(q, x_orig)].scale, ws, c)))
                break;
        }
        emit(q, n);
        for (size_t i = 0; i < n->n_output && !ret; i++) {
            const char *o = n->output[i];
            const track *tr;
            if (!o[0] || !is_quantized(q, o))
                continue;
            tr = &q->tr[track_of(q, o)];
            if (is_graph_output(q, o)) {
                const char *f = pcat(&q->pl, o, "_float");
                if ((ret = fresh(q, f)))
                    break;
                n->output[i] = (char *)f;
                ret = qdq(q, f, tr, o, f);
            } else {
                const char *dq = pcat(&q->pl, o, "_dq");
                if (!(ret = fresh(q, dq)))
                    ret = qdq(q, o, tr, dq, o);
                hset(renamed, o, (intptr_t)dq);
            }
        }
    }
    ln_hash_free(renamed);
    return ret;
}

static int read_model(qz *q, const char *path)
{
    size_t len;
    char *buf = ln_read_text(path, &len);

    if (!buf)
        return ln_error_code();
    q->m = onnx__model_proto__unpack(NULL, len, (const uint8_t *)buf);
    ln_free(buf);
    if (!q->m || !q->m->graph)
        return ln_error(LN_EPARSE, "%s: not an ONNX model (protobuf ModelProto)", path);
    q->g = q->m->graph;
    q->opset = 0;
    for (size_t i = 0; i < q->m->n_opset_import; i++)
        if (!q->m->opset_import[i]->domain || !q->m->opset_import[i]->domain[0] ||
            ln_streq(q->m->opset_import[i]->domain, "ai.onnx"))
            q->opset = (int)q->m->opset_import[i]->version;
    if (q->opset < 13)
        return ln_error(LN_EUNSUPPORTED, "%s: opset %d; ln-quant writes per-channel "
                        "QuantizeLinear/DequantizeLinear (opset 13): export the model with "
                        "opset 13 or later", path, q->opset);
    if (q->g->n_sparse_initializer)
        return ln_error(LN_EUNSUPPORTED, "%s: sparse initializers are not supported", path);
    return 0;
}

int ln_quant_model(const char *model, const ln_quant_inputs *calib, const ln_quant_opts *opts,
                   void **out, size_t *out_len, void **folded, size_t *folded_len)
{
    qz q;
    int ret;
    void *fbuf = NULL;
    size_t flen = 0;

    memset(&q, 0, sizeof q);
    q.opts = opts;
    *out = NULL;
    *out_len = 0;
    if (!calib || calib->n < 1)
        return ln_error(LN_EINVAL, "no calibration inputs (--calib)");
    if (opts && opts->method == LN_QUANT_PERCENTILE &&
        !(opts->percentile > 50 && opts->percentile <= 100))
        return ln_error(LN_EINVAL, "--percentile wants a value in (50, 100], got %g",
                        opts->percentile);
    if (opts && opts->headroom != 0 && !(opts->headroom >= 1 && opts->headroom <= 16))
        return ln_error(LN_EINVAL, "--headroom wants a factor in [1, 16], got %g", opts->headroom);
    q.inits = str_hash();
    q.fconsts = str_hash();
    q.names = str_hash();
    q.track_idx = str_hash();
    if ((ret = read_model(&q, model)))
        goto out;
    for (size_t i = 0; i < q.g->n_initializer; i++) {
        hset(q.inits, q.g->initializer[i]->name, (intptr_t)q.g->initializer[i]);
        hset(q.names, q.g->initializer[i]->name, 1);
    }
    for (size_t i = 0; i < q.g->n_input; i++)
        hset(q.names, q.g->input[i]->name, 1);
    q.n_nodes = q.g->n_node;
    q.nodes = palloc(&q.pl, sizeof(void *) * (q.n_nodes + 1));
    q.dropped = palloc(&q.pl, sizeof(ln_bool) * (q.n_nodes + 1));
    q.xmean = palloc(&q.pl, sizeof(double *) * (q.n_nodes + 1));
    q.xlen = palloc(&q.pl, sizeof(int64_t) * (q.n_nodes + 1));
    q.xsp = palloc(&q.pl, sizeof(int[4]) * (q.n_nodes + 1));
    for (size_t k = 0; k < q.n_nodes; k++) {
        q.nodes[k] = copy_node(&q, q.g->node[k]);
        if (q.nodes[k]->n_output == 0 || !q.nodes[k]->op_type) {
            ret = ln_error(LN_EPARSE, "%s: node %zu has no op type or output", model, k);
            goto out;
        }
        for (size_t i = 0; i < q.nodes[k]->n_output; i++)
            hset(q.names, q.nodes[k]->output[i], 1);
        if (q.nodes[k]->name)
            hset(q.names, q.nodes[k]->name, 1);
    }
    index_graph(&q);
    fold_bn(&q);
    choose_set(&q, opts ? opts->log : NULL);
    {   /* the folded float model, for calibration (and the report) */
        Onnx__NodeProto **nodes = palloc(&q.pl, sizeof(void *) * (q.n_nodes + 1));
        size_t nn = 0;
        for (size_t k = 0; k < q.n_nodes; k++)
            if (!q.dropped[k])
                nodes[nn++] = copy_node(&q, q.nodes[k]);
        pack(model_with(&q, nodes, nn), &fbuf, &flen);
    }
    if ((ret = calibrate(&q, fbuf, flen, calib)) || (ret = finish_params(&q)) ||
        (ret = build_qdq(&q)))
        goto out;
    {
        Onnx__ModelProto *m = model_with(&q, q.out_nodes, q.n_out);
        m->producer_name = (char *)"ln-quant";
        m->producer_version = (char *)LN_VERSION;
        pack(m, out, out_len);
    }
out:
    if (folded && !ret) {
        *folded = fbuf;
        *folded_len = flen;
    } else {
        ln_free(fbuf);
    }
    if (q.m)
        onnx__model_proto__free_unpacked(q.m, NULL);
    ln_hash_free(q.inits);
    ln_hash_free(q.fconsts);
    ln_hash_free(q.names);
    ln_hash_free(q.track_idx);
    if (q.readers)
        ln_hash_free(q.readers);
    if (q.producer)
        ln_hash_free(q.producer);
    ln_free(q.tr);
    ln_free(q.out_nodes);
    ln_free(q.new_inits);
    pool_free(&q.pl);
    return ret;
}

#else /* !LN_HAVE_ONNX */

int ln_quant_model(const char *model, const ln_quant_inputs *calib, const ln_quant_opts *opts,
                   void **out, size_t *out_len, void **folded, size_t *folded_len)
{
    (void)calib, (void)opts, (void)folded, (void)folded_len;
    *out = NULL;
    *out_len = 0;
    return ln_error(LN_EUNSUPPORTED, "%s: this LightNet was built without ONNX support "
                    "(mk/onnx.mk names what is missing)", model);
}

#endif
