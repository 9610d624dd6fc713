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
 *   graph outputs                             -> `output` ops
 *
 * Tensor names are the ONNX names; op names are the node names, or
 * "<op_type>_<index>" when empty, made unique.  The import does not stop at
 * the first thing it cannot do: every unsupported op type (with its nodes
 * and the opset), attribute, dynamic shape and undefined tensor is
 * collected, and the finished IR is pre_run op by op so the ops' own
 * checks (an unsupported mode, a bad shape) are collected too.  One error
 * then names them all.  Not supported: other domains than ai.onnx,
 * external data, sparse initializers, sequence/map types, subgraphs.
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
#include "op/auto/ln_opregistry.h"

#ifdef LN_HAVE_ONNX
#include "onnx.pb-c.h"

ln_bool ln_onnx_enabled(void)
{
    return LN_TRUE;
}

/* ---- small helpers ------------------------------------------------------ */

/* The message fits the error buffer (1 KB): this many problems at most. */
#define MAX_PROBLEMS 12
#define MAX_NODES_NAMED 3

typedef struct unsup_op {
    char *op_type;           /* "Foo", or "domain:Foo" */
    char *nodes;             /* first MAX_NODES_NAMED node names, ", "-joined */
    int count;
} unsup_op;

typedef struct imp {
    const char *source;
    const ln_serializer_opts *opts;
    Onnx__GraphProto *graph;
    int opset;
    ln_hash *consts;         /* every constant: name -> ln_tensor (owned) */
    ln_list *const_order;    /* constant names in definition order (borrowed) */
    ln_hash *defined;        /* tensor names defined so far (value unused) */
    ln_hash *as_tensor;      /* constants some op reads as a tensor */
    ln_hash *consumed;       /* names any node or graph output reads */
    ln_hash *opnames;        /* op names taken */
    cJSON *node_ops;         /* the nodes' ops, in order */
    unsup_op *unsup;
    int n_unsup;
    char **problems;
    int n_problems;
    int code;                /* of the first problem */
} imp;

static ln_hash *str_set(void)
{
    return ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
}

static void set_add(ln_hash *set, const char *s)
{
    if (!ln_hash_find_extended(set, s, NULL, NULL))
        ln_hash_insert(set, ln_strdup(s), NULL);
}

static ln_bool set_has(const ln_hash *set, const char *s)
{
    return ln_hash_find_extended(set, s, NULL, NULL);
}

static void vproblem(imp *im, int code, const char *fmt, va_list ap)
{
    char buf[600];

    vsnprintf(buf, sizeof buf, fmt, ap);
    im->problems = ln_realloc(im->problems, sizeof(char *) * (size_t)(im->n_problems + 1));
    im->problems[im->n_problems++] = ln_strdup(buf);
    if (!im->code)
        im->code = code;
}

/* Something LightNet cannot do (LN_EUNSUPPORTED)... */
static void problem(imp *im, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* ... or something wrong with the model (LN_EPARSE, LN_EOP). */
static void problem_c(imp *im, int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void problem(imp *im, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(im, LN_EUNSUPPORTED, fmt, ap);
    va_end(ap);
}

static void problem_c(imp *im, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(im, code, fmt, ap);
    va_end(ap);
}

static void unsupported_op(imp *im, const char *op_type, const char *node)
{
    unsup_op *u = NULL;

    for (int i = 0; i < im->n_unsup; i++)
        if (ln_streq(im->unsup[i].op_type, op_type))
            u = &im->unsup[i];
    if (!u) {
        im->unsup = ln_realloc(im->unsup, sizeof(unsup_op) * (size_t)(im->n_unsup + 1));
        u = &im->unsup[im->n_unsup++];
        u->op_type = ln_strdup(op_type);
        u->nodes = ln_strdup("");
        u->count = 0;
    }
    if (u->count < MAX_NODES_NAMED) {
        char *s = ln_sprintf("%s%s'%s'", u->nodes, u->count ? ", " : "", node);
        ln_free(u->nodes);
        u->nodes = s;
    }
    u->count++;
}

/* A unique op name from base (kept as is when free). */
static char *op_name(imp *im, const char *base)
{
    char *name = ln_strdup(base);

    for (int i = 1; set_has(im->opnames, name); i++) {
        ln_free(name);
        name = ln_sprintf("%s_%d", base, i);
    }
    set_add(im->opnames, name);
    return name;
}

static const char *str_or_empty(const char *s)
{
    return s ? s : "";
}

/* ---- tensors ------------------------------------------------------------ */

static ln_dtype dtype_from_onnx(int32_t t)
{
    switch (t) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return LN_DTYPE_FLOAT32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return LN_DTYPE_FLOAT64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return LN_DTYPE_FLOAT16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: return LN_DTYPE_INT8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: return LN_DTYPE_INT16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: return LN_DTYPE_INT32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return LN_DTYPE_INT64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: return LN_DTYPE_UINT8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: return LN_DTYPE_UINT16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: return LN_DTYPE_UINT32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return LN_DTYPE_UINT64;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return LN_DTYPE_BOOL;
    default: return LN_DTYPE_UNKNOWN;
    }
}

static const char *onnx_type_name(int32_t t)
{
    static const char *const names[] = {
        "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64",
        "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64",
        "COMPLEX128", "BFLOAT16"};
    return t >= 0 && t < (int32_t)(sizeof names / sizeof names[0]) ? names[t] : "unknown";
}

static ln_bool host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

/* Store value v (from a typed field) as element i of t. */
static void put_int(ln_tensor *t, size_t i, int64_t v)
{
    switch (t->dtype) {
    case LN_DTYPE_INT8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case LN_DTYPE_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case LN_DTYPE_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
    case LN_DTYPE_INT16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    case LN_DTYPE_UINT16:
    case LN_DTYPE_FLOAT16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
    case LN_DTYPE_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    case LN_DTYPE_UINT32: ((uint32_t *)t->data)[i] = (uint32_t)v; break;
    case LN_DTYPE_INT64: ((int64_t *)t->data)[i] = v; break;
    case LN_DTYPE_UINT64: ((uint64_t *)t->data)[i] = (uint64_t)v; break;
    default: break;
    }
}

/*
 * A TensorProto into a new tensor with its own data (raw_data or the typed
 * field the type uses).  what names it in errors ("initializer 'w'").
 */
static int tensor_from_proto(const Onnx__TensorProto *tp, const char *what, ln_tensor **out)
{
    ln_dtype dtype = dtype_from_onnx(tp->data_type);
    int dims[LN_MAXDIM];
    size_t len, esize, n = 0;
    ln_tensor *t;

    if (dtype == LN_DTYPE_UNKNOWN)
        return ln_error(LN_EUNSUPPORTED, "%s has data type %s, which LightNet does not support",
                        what, onnx_type_name(tp->data_type));
    if (tp->n_dims > LN_MAXDIM)
        return ln_error(LN_EUNSUPPORTED, "%s has %zu dims; LightNet allows %d", what,
                        tp->n_dims, LN_MAXDIM);
    for (size_t i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0 || tp->dims[i] > INT32_MAX)
            return ln_error(LN_EPARSE, "%s has a bad dim %lld", what, (long long)tp->dims[i]);
        dims[i] = (int)tp->dims[i];
    }
    if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        || tp->n_external_data)
        return ln_error(LN_EUNSUPPORTED, "%s is stored as external data; LightNet reads only "
                        "weights inside the .onnx file (save the model without "
                        "save_as_external_data)", what);
    if (tp->segment)
        return ln_error(LN_EUNSUPPORTED, "%s is a segment of a tensor, which LightNet does not "
                        "support", what);
    t = ln_tensor_create_alloc(dtype, (int)tp->n_dims, dims);
    len = t->len;
    esize = ln_dtype_size(dtype);
    if (tp->has_raw_data) {
        if (tp->raw_data.len != len * esize) {
            ln_tensor_free(t);
            return ln_error(LN_EPARSE, "%s: raw_data has %zu bytes, its %zu %s elements need %zu",
                            what, tp->raw_data.len, len, ln_dtype_name(dtype), len * esize);
        }
        if (len)
            memcpy(t->data, tp->raw_data.data, len * esize);
        if (host_big_endian() && esize > 1) {
            unsigned char *p = t->data;
            for (size_t i = 0; i < len; i++, p += esize)
                for (size_t a = 0, b = esize - 1; a < b; a++, b--) {
                    unsigned char c = p[a];
                    p[a] = p[b];
                    p[b] = c;
                }
        }
        *out = t;
        return 0;
    }
    switch (dtype) {
    case LN_DTYPE_FLOAT32:
        n = tp->n_float_data;
        if (n == len && len)
            memcpy(t->data, tp->float_data, len * sizeof(float));
        break;
    case LN_DTYPE_FLOAT64:
        n = tp->n_double_data;
        if (n == len && len)
            memcpy(t->data, tp->double_data, len * sizeof(double));
        break;
    case LN_DTYPE_INT64:
        n = tp->n_int64_data;
        if (n == len && len)
            memcpy(t->data, tp->int64_data, len * sizeof(int64_t));
        break;
    case LN_DTYPE_UINT32:
    case LN_DTYPE_UINT64:
        n = tp->n_uint64_data;
        for (size_t i = 0; n == len && i < len; i++)
            put_int(t, i, (int64_t)tp->uint64_data[i]);
        break;
    default:
        n = tp->n_int32_data;
        for (size_t i = 0; n == len && i < len; i++)
            put_int(t, i, tp->int32_data[i]);
        break;
    }
    if (n != len) {
        ln_tensor_free(t);
        return ln_error(LN_EPARSE, "%s has %zu values, its dims make %zu", what, n, len);
    }
    *out = t;
    return 0;
}

/* Element i of t as a double (for a constant read into a param). */
static double tensor_get(const ln_tensor *t, size_t i)
{
    switch (t->dtype) {
    case LN_DTYPE_FLOAT32: return ((const float *)t->data)[i];
    case LN_DTYPE_FLOAT64: return ((const double *)t->data)[i];
    case LN_DTYPE_INT8: return ((const int8_t *)t->data)[i];
    case LN_DTYPE_UINT8:
    case LN_DTYPE_BOOL: return ((const uint8_t *)t->data)[i];
    case LN_DTYPE_INT16: return ((const int16_t *)t->data)[i];
    case LN_DTYPE_UINT16: return ((const uint16_t *)t->data)[i];
    case LN_DTYPE_INT32: return ((const int32_t *)t->data)[i];
    case LN_DTYPE_UINT32: return ((const uint32_t *)t->data)[i];
    case LN_DTYPE_INT64: return (double)((const int64_t *)t->data)[i];
    case LN_DTYPE_UINT64: return (double)((const uint64_t *)t->data)[i];
    default: return 0;   /* float16 params: not met */
    }
}

/* JSON cannot hold inf (cJSON writes null): the largest double stands in,
 * which the params saturate back to +-inf / INT_MAX. */
static cJSON *json_number(double v)
{
    if (isinf(v))
        v = v > 0 ? DBL_MAX : -DBL_MAX;
    return cJSON_CreateNumber(v);
}

static cJSON *json_param(const char *arg_name, cJSON *value)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "arg_name", arg_name);
    cJSON_AddItemToObject(p, "value", value);
    return p;
}

static cJSON *json_tensor_ref(const char *arg_name, const char *name)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "arg_name", arg_name);
    cJSON_AddStringToObject(p, "name", name);
    return p;
}

static cJSON *json_op(const char *name, const char *optype)
{
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "name", name);
    cJSON_AddStringToObject(op, "optype", optype);
    cJSON_AddItemToObject(op, "tensors_in", cJSON_CreateArray());
    cJSON_AddItemToObject(op, "tensors_out", cJSON_CreateArray());
    cJSON_AddItemToObject(op, "params", cJSON_CreateArray());
    return op;
}

static void op_add(cJSON *op, const char *field, cJSON *item)
{
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(op, field), item);
}

static cJSON *json_dims(int ndim, const int *dims)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < ndim; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(dims[i]));
    return a;
}

/* A constant's values as a param: a number for a scalar, else an array. */
static cJSON *json_const_value(const ln_tensor *t)
{
    ln_bool b = t->dtype == LN_DTYPE_BOOL;
    cJSON *a;

    if (t->ndim == 0)
        return b ? cJSON_CreateBool(tensor_get(t, 0) != 0) : json_number(tensor_get(t, 0));
    a = cJSON_CreateArray();
    for (size_t i = 0; i < t->len; i++)
        cJSON_AddItemToArray(a, b ? cJSON_CreateBool(tensor_get(t, i) != 0)
                                  : json_number(tensor_get(t, i)));
    return a;
}

static void add_const(imp *im, const char *name, ln_tensor *t)
{
    if (!ln_hash_find(im->consts, name))
        im->const_order = ln_list_append(im->const_order, (void *)name);
    ln_hash_insert(im->consts, ln_strdup(name), t);
    set_add(im->defined, name);
}

/* ---- attributes --------------------------------------------------------- */

static int attr_type(const Onnx__AttributeProto *a)
{
    if (a->has_type)
        return a->type;
    /* IR version 1 files may leave type out: infer it from the field set */
    if (a->n_floats) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (a->n_ints) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    if (a->n_strings) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    if (a->has_f) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    if (a->has_i) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (a->has_s) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (a->t) return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static cJSON *json_bytes(ProtobufCBinaryData s)
{
    char *c = ln_alloc(s.len + 1);
    cJSON *j;

    if (s.len)
        memcpy(c, s.data, s.len);
    c[s.len] = '\0';
    j = cJSON_CreateString(c);
    ln_free(c);
    return j;
}

/* An attribute's value as JSON, NULL (and a problem) for a type params
 * cannot hold. */
static cJSON *attr_json(imp *im, const char *where, const Onnx__AttributeProto *a)
{
    cJSON *v;

    switch (attr_type(a)) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        return json_number(a->f);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        /* Cast's "to" (and "dtype" elsewhere) is a TensorProto type number:
         * LightNet's dtype params take the name */
        if (ln_streq(a->name, "to") || ln_streq(a->name, "dtype")) {
            ln_dtype d = dtype_from_onnx((int32_t)a->i);
            if (d == LN_DTYPE_UNKNOWN) {
                problem(im, "%s: attribute '%s' is data type %s, which LightNet does not "
                        "support", where, a->name, onnx_type_name((int32_t)a->i));
                return NULL;
            }
            return cJSON_CreateString(ln_dtype_name(d));
        }
        return json_number((double)a->i);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        return json_bytes(a->s);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        v = cJSON_CreateArray();
        for (size_t i = 0; i < a->n_floats; i++)
            cJSON_AddItemToArray(v, json_number(a->floats[i]));
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        v = cJSON_CreateArray();
        for (size_t i = 0; i < a->n_ints; i++)
            cJSON_AddItemToArray(v, json_number((double)a->ints[i]));
        return v;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
        v = cJSON_CreateArray();
        for (size_t i = 0; i < a->n_strings; i++)
            cJSON_AddItemToArray(v, json_bytes(a->strings[i]));
        return v;
    default:
        problem(im, "%s: attribute '%s' is a tensor, graph or type, which LightNet params "
                "cannot hold", where, a->name);
        return NULL;
    }
}

/*
 * Attributes LightNet's mappings leave out on purpose: ignored when absent
 * or at the value given (as JSON text; NULL: any value).
 */
static const struct {
    const char *op_type, *attr, *value;
} ignorable_attrs[] = {
    {"Dropout", "seed", NULL},          /* inference: no randomness */
    {"Dropout", "is_test", NULL},
    {"Conv", "auto_pad", "\"NOTSET\""},
    {"ConvTranspose", "auto_pad", "\"NOTSET\""},
    {"MaxPool", "auto_pad", "\"NOTSET\""},
    {"MaxPool", "storage_order", "0"},
    {"AveragePool", "auto_pad", "\"NOTSET\""},
    {"LpPool", "auto_pad", "\"NOTSET\""},
    {"BatchNormalization", "spatial", "1"},
    {"BatchNormalization", "is_test", NULL},
    {"BatchNormalization", "consumed_inputs", NULL},
    {"BatchNormalization", "training_mode", "0"},
    {NULL, NULL, NULL},
};

static ln_bool attr_ignorable(const char *op_type, const char *attr, const cJSON *value)
{
    for (int i = 0; ignorable_attrs[i].op_type; i++) {
        cJSON *want;
        ln_bool same;
        if (!ln_streq(ignorable_attrs[i].op_type, op_type) ||
            !ln_streq(ignorable_attrs[i].attr, attr))
            continue;
        if (!ignorable_attrs[i].value)
            return LN_TRUE;
        want = cJSON_Parse(ignorable_attrs[i].value);
        same = value && cJSON_Compare(want, value, 1);
        cJSON_Delete(want);
        return same;
    }
    /* consumed_inputs (opsets <= 5): bookkeeping only */
    return ln_streq(attr, "consumed_inputs");
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
    for (int i = 0; ln_opregistry_stripped[i]; i++)
        if (ln_streq(ln_opregistry_stripped[i], optype))
            return LN_TRUE;
    return LN_FALSE;
}

ln_bool ln_onnx_op_supported(const char *op_type, int opset, const char **optype)
{
    const ln_opregistry_onnx_entry *e = find_entry(op_type, opset);

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
        problem(im, "%s: Constant without an output", where);
        return;
    }
    if (!a) {
        problem(im, "%s: Constant needs exactly one value attribute", where);
        set_add(im->defined, name);
        return;
    }
    if (ln_streq(a->name, "value") && a->t) {
        char *what = ln_sprintf("%s: value", where);
        if (tensor_from_proto(a->t, what, &t))
            problem_c(im, ln_error_code(), "%s", ln_error_message());
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
        problem(im, "%s: Constant attribute '%s' is not supported", where, a->name);
    }
    if (t)
        add_const(im, name, t);
    else
        set_add(im->defined, name);
}

/* ONNX ops that take any number of inputs where LightNet's op takes two
 * and is associative: one input becomes an identity, n > 2 a chain of n - 1
 * binary ops through tensors "<output>__<k>" (ops "<name>_<k>"). */
static const char *const chained_ops[] = {"Max", "Min", NULL};

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
        problem(im, "%s: attribute '%s' is not supported at opset %d", where,
                node->attribute[j]->name, im->opset);
    for (size_t i = 0; i < node->n_input; i++) {
        const char *in = node->input[i];
        if (!*in)
            continue;
        if (!set_has(im->defined, in))
            problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                      "initializer, Constant or earlier node output has that name)", where, in);
        if (ln_hash_find(im->consts, in))
            set_add(im->as_tensor, in);
        n++;
    }
    set_add(im->defined, out);
    if (n == 0) {
        problem(im, "%s: no inputs", where);
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
            opname = op_name(im, b);
            ln_free(b);
        }
        if (n == 1) {
            op = json_op(opname, "identity");
            op_add(op, "tensors_in", json_tensor_ref("src", in));
            op_add(op, "tensors_out", json_tensor_ref("dst", dst));
        } else {
            op = json_op(opname, e->optype);
            op_add(op, "tensors_in", json_tensor_ref(e->inputs[0], prev));
            op_add(op, "tensors_in", json_tensor_ref(e->inputs[1], in));
            op_add(op, "tensors_out", json_tensor_ref(e->outputs[0], dst));
        }
        cJSON_AddItemToArray(im->node_ops, op);
        ln_free(opname);
        ln_free(prev_own);
        prev = prev_own = dst;              /* the next op reads it */
    }
    ln_free(prev_own);
}

static void import_node(imp *im, const Onnx__NodeProto *node, int index)
{
    const char *op_type = str_or_empty(node->op_type);
    const ln_opregistry_onnx_entry *e;
    char *base, *name, *where;
    int n_in, n_out;
    ln_bool var_in, var_out;
    cJSON *op;

    base = node->name && *node->name ? ln_strdup(node->name)
                                     : ln_sprintf("%s_%d", op_type, index);
    name = op_name(im, base);
    ln_free(base);
    where = ln_sprintf("node '%s' (%s)", name, op_type);

    if (!is_default_domain(node->domain)) {
        char *t = ln_sprintf("%s:%s", node->domain, op_type);
        unsupported_op(im, t, name);
        ln_free(t);
        goto define_outputs;
    }
    if (ln_streq(op_type, "Constant")) {
        import_constant(im, node, where);
        goto out;
    }
    if (!(e = find_entry(op_type, im->opset))) {
        unsupported_op(im, op_type, name);
        goto define_outputs;
    }
    if (optype_stripped(e->optype)) {
        problem(im, "%s: optype '%s' was stripped from this build (LN_OPS)", where, e->optype);
        goto define_outputs;
    }

    if (is_chained(op_type) && node->n_input != 2 && node->n_output == 1 &&
        *node->output[0]) {
        import_chain(im, node, e, name, where);
        goto out;
    }
    op = json_op(name, e->optype);
    n_in = count_names(e->inputs);
    n_out = count_names(e->outputs);
    var_in = n_in > 0 && (int)node->n_input > n_in && is_plain_arg(e->inputs[n_in - 1]);
    var_out = n_out > 0 && (int)node->n_output > n_out && is_plain_arg(e->outputs[n_out - 1]);
    for (size_t i = 0; i < node->n_input; i++) {
        const char *in = node->input[i], *arg;
        if (!*in)
            continue;                       /* optional input left out */
        if (var_in && (int)i >= n_in - 1) {
            char *vname = ln_sprintf("%s_%d", e->inputs[n_in - 1], (int)i - (n_in - 1));
            if (!set_has(im->defined, in))
                problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                          "initializer, Constant or earlier node output has that name)",
                          where, in);
            else
                op_add(op, "tensors_in", json_tensor_ref(vname, in));
            if (ln_hash_find(im->consts, in))
                set_add(im->as_tensor, in);
            ln_free(vname);
            continue;
        }
        if ((int)i >= n_in) {
            problem(im, "%s: input %zu ('%s') is not supported (LightNet's %s takes %d)",
                    where, i + 1, in, e->optype, n_in);
            continue;
        }
        arg = e->inputs[i];
        if (!*arg)
            continue;                       /* ignored by the mapping */
        if (arg[0] == '@') {
            ln_tensor *t = ln_hash_find(im->consts, in);
            if (!t) {
                problem(im, "%s: input '%s' (%s) must be a constant (an initializer or a "
                        "Constant node), not a graph input or computed", where, in, arg + 1);
                continue;
            }
            op_add(op, "params", json_param(arg + 1, json_const_value(t)));
            continue;
        }
        if (!set_has(im->defined, in)) {
            problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, initializer, "
                    "Constant or earlier node output has that name)", where, in);
            continue;
        }
        if (ln_hash_find(im->consts, in))
            set_add(im->as_tensor, in);
        op_add(op, "tensors_in", json_tensor_ref(arg, in));
    }
    for (int k = 0; e->attrs[k].attr; k++) {
        const ln_opregistry_onnx_attr *ma = &e->attrs[k];
        const Onnx__AttributeProto *a = NULL;
        cJSON *v = NULL;
        for (size_t j = 0; j < node->n_attribute; j++)
            if (ln_streq(node->attribute[j]->name, ma->attr))
                a = node->attribute[j];
        if (!*ma->attr)
            v = cJSON_Parse(ma->def);       /* no attribute: a fixed param */
        else if (a)
            v = attr_json(im, where, a);
        else if (ma->def)
            v = cJSON_Parse(ma->def);
        else
            problem_c(im, LN_EPARSE, "%s: required attribute '%s' is missing", where, ma->attr);
        if (v)
            op_add(op, "params", json_param(ma->param, v));
    }
    for (size_t j = 0; j < node->n_attribute; j++) {
        const Onnx__AttributeProto *a = node->attribute[j];
        ln_bool mapped = LN_FALSE;
        cJSON *v;
        for (int k = 0; e->attrs[k].attr; k++)
            mapped = mapped || ln_streq(e->attrs[k].attr, a->name);
        if (mapped)
            continue;
        v = attr_type(a) == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH ? NULL
                                                                        : attr_json(im, where, a);
        if (!attr_ignorable(op_type, a->name, v)) {
            char *s = v ? cJSON_PrintUnformatted(v) : NULL;
            problem(im, "%s: attribute '%s'%s%s is not supported at opset %d", where, a->name,
                    s ? " = " : "", s ? s : "", im->opset);
            free(s);
        }
        cJSON_Delete(v);
    }
    for (size_t i = 0; i < node->n_output; i++) {
        const char *o = node->output[i];
        if (!*o)
            continue;
        if (var_out && (int)i >= n_out - 1) {
            char *vname = ln_sprintf("%s_%d", e->outputs[n_out - 1], (int)i - (n_out - 1));
            op_add(op, "tensors_out", json_tensor_ref(vname, o));
            set_add(im->defined, o);
            ln_free(vname);
            continue;
        }
        if ((int)i >= n_out) {
            set_add(im->defined, o);        /* reported here, not again */
            if (set_has(im->consumed, o))
                problem(im, "%s: output %zu ('%s') is used, but LightNet's %s has %d output%s",
                        where, i + 1, o, e->optype, n_out, n_out == 1 ? "" : "s");
            continue;
        }
        op_add(op, "tensors_out", json_tensor_ref(e->outputs[i], o));
        set_add(im->defined, o);
    }
    cJSON_AddItemToArray(im->node_ops, op);
    goto out;

define_outputs:
    /* later nodes may read them: do not report those as undefined */
    for (size_t i = 0; i < node->n_output; i++)
        if (*node->output[i])
            set_add(im->defined, node->output[i]);
out:
    ln_free(name);
    ln_free(where);
}

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
                problem(im, "--shape '%s': want name=D1xD2x... with dims >= 1", s);
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
static cJSON *import_input(imp *im, const Onnx__ValueInfoProto *vi)
{
    const Onnx__TypeProto__Tensor *tt;
    int dims[LN_MAXDIM], odims[LN_MAXDIM], ondim, ndim;
    ln_dtype dtype;
    cJSON *op;
    char *name;

    if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE) {
        problem(im, "graph input '%s' is not a tensor (sequences, maps and optionals are not "
                "supported)", vi->name);
        return NULL;
    }
    tt = vi->type->tensor_type;
    dtype = dtype_from_onnx(tt->elem_type);
    if (dtype == LN_DTYPE_UNKNOWN) {
        problem(im, "graph input '%s' has type %s, which LightNet does not support", vi->name,
                onnx_type_name(tt->elem_type));
        return NULL;
    }
    ondim = opt_shape(im, vi->name, odims);
    if (ondim == -2)
        return NULL;
    if (!tt->shape) {
        if (ondim < 0) {
            problem(im, "graph input '%s' has no shape: give --shape %s=D1xD2x...", vi->name,
                    vi->name);
            return NULL;
        }
        ndim = ondim;
        memcpy(dims, odims, sizeof dims);
    } else {
        ndim = (int)tt->shape->n_dim;
        if (ndim > LN_MAXDIM) {
            problem(im, "graph input '%s' has %d dims; LightNet allows %d", vi->name, ndim,
                    LN_MAXDIM);
            return NULL;
        }
        if (ondim >= 0 && ondim != ndim) {
            problem(im, "--shape %s has %d dims, the model's input has %d", vi->name, ondim,
                    ndim);
            return NULL;
        }
        for (int i = 0; i < ndim; i++) {
            const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
            ln_bool known = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE
                            && d->dim_value > 0;
            if (known && d->dim_value > INT32_MAX) {
                problem(im, "graph input '%s' dim %d is too large", vi->name, i);
                return NULL;
            }
            if (known && ondim >= 0 && odims[i] != d->dim_value) {
                problem(im, "--shape %s: dim %d is %d, the model fixes it at %lld", vi->name,
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
                problem(im, "graph input '%s' dim %d is symbolic ('%s'): give --shape %s=...",
                        vi->name, i, sym, vi->name);
                return NULL;
            }
        }
    }
    name = op_name(im, vi->name);
    op = json_op(name, "input");
    ln_free(name);
    op_add(op, "tensors_out", json_tensor_ref("dst", vi->name));
    op_add(op, "params", json_param("dtype", cJSON_CreateString(ln_dtype_name(dtype))));
    op_add(op, "params", json_param("dims", json_dims(ndim, dims)));
    return op;
}

/*
 * The finished IR, pre_run op by op on a scratch tensor table: every op
 * whose own checks fail is a problem (ops that read a failed op's output
 * are skipped, their errors would only echo it).
 */
static void trial_pre_run(imp *im, const cJSON *root)
{
    ln_hash *table = ln_tensor_table_create(), *failed = str_set();
    ln_list *ops = NULL, *done = NULL;

    ln_arch_init();
    if (ln_json_parse_ops(root, im->source, table, &ops)) {
        problem_c(im, ln_error_code(), "%s", ln_error_message());
        goto out;
    }
    LN_LIST_FOREACH(ln_op, op, ops) {
        ln_bool skip = LN_FALSE;
        LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_in) {
            skip = skip || set_has(failed, tle->name);
        }
        if (!skip && !ln_op_check(op) && (!op->pre_run || !op->pre_run(op->op_arg))) {
            done = ln_list_prepend(done, op);
            continue;
        }
        if (!skip)
            problem_c(im, ln_error_code(), "%s", ln_error_message());
        LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_out) {
            set_add(failed, tle->name);
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

/* The one error naming everything collected (it must fit 1 KB): the
 * unsupported op types first, then whole problems while they fit. */
static int report(imp *im)
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

static int onnx_load(const void *buf, size_t len, const char *source,
                     const ln_serializer_opts *opts, cJSON **ir, ln_hash **consts)
{
    Onnx__ModelProto *model;
    Onnx__GraphProto *g;
    imp im;
    cJSON *root = NULL, *ops, *outputs;
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
    memset(&im, 0, sizeof im);
    im.source = source;
    im.opts = opts;
    im.graph = g = model->graph;
    im.opset = 1;
    for (size_t i = 0; i < model->n_opset_import; i++)
        if (is_default_domain(model->opset_import[i]->domain))
            im.opset = (int)model->opset_import[i]->version;
    im.consts = ln_datafile_create_dict();
    im.defined = str_set();
    im.as_tensor = str_set();
    im.consumed = str_set();
    im.opnames = str_set();
    im.node_ops = cJSON_CreateArray();

    for (size_t i = 0; i < g->n_node; i++)
        for (size_t j = 0; j < g->node[i]->n_input; j++)
            set_add(im.consumed, g->node[i]->input[j]);
    for (size_t i = 0; i < g->n_output; i++)
        set_add(im.consumed, g->output[i]->name);
    if (g->n_sparse_initializer)
        problem(&im, "sparse initializers are not supported");
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *tp = g->initializer[i];
        char *what = ln_sprintf("initializer '%s'", str_or_empty(tp->name));
        ln_tensor *t;
        if (!tp->name || !*tp->name)
            problem(&im, "an initializer has no name");
        else if (tensor_from_proto(tp, what, &t))
            problem_c(&im, ln_error_code(), "%s", ln_error_message());
        else
            add_const(&im, tp->name, t);
        if (tp->name && *tp->name)
            set_add(im.defined, tp->name);
        ln_free(what);
    }
    for (size_t i = 0; i < g->n_input; i++)
        if (!ln_hash_find(im.consts, g->input[i]->name))
            set_add(im.defined, g->input[i]->name);
    for (size_t i = 0; i < g->n_node; i++)
        import_node(&im, g->node[i], (int)i);
    for (int i = 0; opts && opts->shapes && opts->shapes[i]; i++) {
        const char *s = opts->shapes[i], *eq = strchr(s, '=');
        ln_bool found = LN_FALSE;
        for (size_t j = 0; eq && j < g->n_input; j++)
            found = found || (strlen(g->input[j]->name) == (size_t)(eq - s) &&
                              !strncmp(g->input[j]->name, s, (size_t)(eq - s)) &&
                              !ln_hash_find(im.consts, g->input[j]->name));
        if (!found)
            problem_c(&im, LN_EINVAL, "--shape '%s' names no graph input", s);
    }

    /* ops: inputs, the constants read as tensors, the nodes, the outputs */
    root = cJSON_CreateObject();
    ops = cJSON_AddArrayToObject(root, "ops");
    for (size_t i = 0; i < g->n_input; i++) {
        cJSON *op;
        if (ln_hash_find(im.consts, g->input[i]->name))
            continue;                       /* an initializer listed as input */
        if ((op = import_input(&im, g->input[i])))
            cJSON_AddItemToArray(ops, op);
    }
    outputs = cJSON_CreateArray();
    for (size_t i = 0; i < g->n_output; i++) {
        const char *o = g->output[i]->name;
        char *base, *name;
        cJSON *op;
        if (!set_has(im.defined, o)) {
            problem_c(&im, LN_EPARSE, "graph output '%s' is not produced by any node", o);
            continue;
        }
        if (ln_hash_find(im.consts, o))
            set_add(im.as_tensor, o);
        base = ln_sprintf("%s_output", o);
        name = op_name(&im, base);
        op = json_op(name, "output");
        op_add(op, "tensors_in", json_tensor_ref("src", o));
        cJSON_AddItemToArray(outputs, op);
        ln_free(base);
        ln_free(name);
    }
    LN_LIST_FOREACH(const char, cname, im.const_order) {
        const ln_tensor *t = ln_hash_find(im.consts, cname);
        char *name;
        cJSON *op;
        if (!set_has(im.as_tensor, cname))
            continue;
        name = op_name(&im, cname);
        op = json_op(name, "create");
        ln_free(name);
        op_add(op, "tensors_out", json_tensor_ref("dst", cname));
        op_add(op, "params", json_param("dtype", cJSON_CreateString(ln_dtype_name(t->dtype))));
        op_add(op, "params", json_param("dims", json_dims(t->ndim, t->dims)));
        op_add(op, "params", json_param("from_file", cJSON_CreateTrue()));
        cJSON_AddItemToArray(ops, op);
    }
    while (cJSON_GetArraySize(im.node_ops))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(im.node_ops, 0));
    while (cJSON_GetArraySize(outputs))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(outputs, 0));
    cJSON_Delete(outputs);

    if (!im.n_unsup && !im.n_problems)
        trial_pre_run(&im, root);
    if (im.n_unsup || im.n_problems) {
        ret = report(&im);
        cJSON_Delete(root);
    } else {
        /* only the constants an op reads as a tensor go to the weights */
        ln_hash *used = ln_datafile_create_dict();
        LN_LIST_FOREACH(const char, cname, im.const_order) {
            if (set_has(im.as_tensor, cname))
                ln_hash_insert(used, ln_strdup(cname),
                               ln_tensor_copy(ln_hash_find(im.consts, cname)));
        }
        *ir = root;
        *consts = used;
        if (!ln_hash_size(used)) {
            ln_hash_free(used);
            *consts = NULL;
        }
    }

    for (int i = 0; i < im.n_unsup; i++) {
        ln_free(im.unsup[i].op_type);
        ln_free(im.unsup[i].nodes);
    }
    ln_free(im.unsup);
    for (int i = 0; i < im.n_problems; i++)
        ln_free(im.problems[i]);
    ln_free(im.problems);
    cJSON_Delete(im.node_ops);
    ln_list_free(im.const_order);
    ln_hash_free(im.consts);
    ln_hash_free(im.defined);
    ln_hash_free(im.as_tensor);
    ln_hash_free(im.consumed);
    ln_hash_free(im.opnames);
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
    what = ln_sprintf("%s: tensor '%s'", source, str_or_empty(tp->name));
    ret = tensor_from_proto(tp, what, t);
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
