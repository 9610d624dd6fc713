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
 *   a node of a shape computation (Shape,     -> a constant, no op
 *   Gather, Concat, Range, ...) whose inputs     (evaluators[], "import-time
 *   are known at import time                     evaluation" below)
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
#include "ln_rt.h"
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
    cJSON *input_ops;        /* the graph inputs' ops */
    cJSON *node_ops;         /* the nodes' ops, in order */
    ln_hash *unknown;        /* outputs not evaluated because of a problem */
    ln_hash *shapes;         /* tensor name -> dims_entry, from pre_runs */
    int shapes_ops;          /* 1 + the node ops the last pre_run saw; 0: none */
    char *shape_err;         /* the first op check that failed in it */
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
    /* the element count the dims claim is checked against the values the
     * file holds before anything is allocated: a few bytes claiming
     * gigabytes are refused at once */
    len = 1;
    for (size_t i = 0; i < tp->n_dims; i++)
        if (!dims[i])
            len = 0;
    for (size_t i = 0; len && i < tp->n_dims; i++)
        if (!ln_size_mul(len, (size_t)dims[i], &len) || len > LN_MAX_ELEMS)
            return ln_error(LN_EPARSE, "%s: its dims make more than %d elements", what,
                            LN_MAX_ELEMS);
    esize = ln_dtype_size(dtype);
    if (tp->has_raw_data) {
        if (tp->raw_data.len != len * esize)
            return ln_error(LN_EPARSE, "%s: raw_data has %zu bytes, its %zu %s elements need %zu",
                            what, tp->raw_data.len, len, ln_dtype_name(dtype), len * esize);
    } else {
        switch (dtype) {
        case LN_DTYPE_FLOAT32: n = tp->n_float_data; break;
        case LN_DTYPE_FLOAT64: n = tp->n_double_data; break;
        case LN_DTYPE_INT64: n = tp->n_int64_data; break;
        case LN_DTYPE_UINT32:
        case LN_DTYPE_UINT64: n = tp->n_uint64_data; break;
        default: n = tp->n_int32_data; break;
        }
        if (n != len)
            return ln_error(LN_EPARSE, "%s has %zu values, its dims make %zu", what, n, len);
    }
    t = ln_tensor_create_alloc(dtype, (int)tp->n_dims, dims);
    if (tp->has_raw_data) {
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
        if (len)
            memcpy(t->data, tp->float_data, len * sizeof(float));
        break;
    case LN_DTYPE_FLOAT64:
        if (len)
            memcpy(t->data, tp->double_data, len * sizeof(double));
        break;
    case LN_DTYPE_INT64:
        if (len)
            memcpy(t->data, tp->int64_data, len * sizeof(int64_t));
        break;
    case LN_DTYPE_UINT32:
    case LN_DTYPE_UINT64:
        for (size_t i = 0; i < len; i++)
            put_int(t, i, (int64_t)tp->uint64_data[i]);
        break;
    default:
        for (size_t i = 0; i < len; i++)
            put_int(t, i, tp->int32_data[i]);
        break;
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
    return ln_arch_op_stripped(optype);
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

/* ---- import-time evaluation --------------------------------------------- */

/*
 * Shape computations (PyTorch's x.view(x.size(0), -1), interpolate with
 * computed sizes, ...) are evaluated here, so that the "@param" inputs they
 * feed (Reshape's shape, Resize's sizes) are constants.  A node of a type
 * in evaluators[] whose inputs are all known -- constants, or for Shape and
 * Size a tensor whose shape is known -- becomes a constant and no op; its
 * inputs' create ops go only where a real op reads them.  Shapes of
 * computed tensors come from pre_running the ops imported so far (the ops'
 * own shape inference, so every op LightNet has is covered); the dims of
 * every tensor are cached and the run repeats only for a tensor not seen
 * yet.  An op type with a LightNet op (Gather, Concat, Add, ...) is
 * imported as that op when its inputs are not all known; one without
 * (Shape, ConstantOfShape, Range, Equal, Where, ...) is an error then.
 */

typedef struct dims_entry {
    int ndim;
    int dims[LN_MAXDIM];
} dims_entry;

typedef struct ev {
    imp *im;
    const Onnx__NodeProto *node;
    ln_tensor *in[8];         /* NULL for an input left out */
    int n_in;
    int ndim0;                /* Shape, Size: the dims of input 0 */
    int dims0[LN_MAXDIM];
    ln_tensor *out;
} ev;

/* Tensors larger than this are left to the compiler (folded at compile
 * time when their op has a kernel). */
#define EVAL_MAX_ELEMS ((size_t)1 << 24)

static const Onnx__AttributeProto *find_attr(const Onnx__NodeProto *node, const char *name)
{
    for (size_t j = 0; j < node->n_attribute; j++)
        if (ln_streq(node->attribute[j]->name, name))
            return node->attribute[j];
    return NULL;
}

static int64_t attr_int(const Onnx__NodeProto *node, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = find_attr(node, name);
    return a ? a->i : def;
}

static ln_bool is_float_dtype(ln_dtype d)
{
    return d == LN_DTYPE_FLOAT32 || d == LN_DTYPE_FLOAT64 || d == LN_DTYPE_FLOAT16;
}

/* Element i as a 64-bit integer (floats truncated) / as a double. */
static int64_t geti(const ln_tensor *t, size_t i)
{
    switch (t->dtype) {
    case LN_DTYPE_INT8: return ((const int8_t *)t->data)[i];
    case LN_DTYPE_UINT8:
    case LN_DTYPE_BOOL: return ((const uint8_t *)t->data)[i];
    case LN_DTYPE_INT16: return ((const int16_t *)t->data)[i];
    case LN_DTYPE_UINT16: return ((const uint16_t *)t->data)[i];
    case LN_DTYPE_INT32: return ((const int32_t *)t->data)[i];
    case LN_DTYPE_UINT32: return ((const uint32_t *)t->data)[i];
    case LN_DTYPE_INT64: return ((const int64_t *)t->data)[i];
    case LN_DTYPE_UINT64: return (int64_t)((const uint64_t *)t->data)[i];
    default: {
        double d = tensor_get(t, i);
        return d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
    }
    }
}

static void set_f(ln_tensor *t, size_t i, double v)
{
    if (t->dtype == LN_DTYPE_FLOAT32)
        ((float *)t->data)[i] = (float)v;
    else
        ((double *)t->data)[i] = v;
}

/* An input's values as int64s (axes, starts, shapes): n values. */
static int64_t *int_values(const ln_tensor *t, size_t *n)
{
    int64_t *v = ln_alloc(sizeof(int64_t) * (t->len ? t->len : 1));
    for (size_t i = 0; i < t->len; i++)
        v[i] = geti(t, i);
    *n = t->len;
    return v;
}

static ln_tensor *new_tensor(ln_dtype dtype, int ndim, const int *dims)
{
    return ln_tensor_create_alloc(dtype, ndim, dims);
}

static size_t prod(const int *dims, int a, int b)
{
    size_t p = 1;
    for (int i = a; i < b; i++)
        p *= (size_t)dims[i];
    return p;
}

/* Broadcast (numpy rules) the dims of ts[0..n) into ndim/dims. */
static int bcast_dims(ln_tensor *const *ts, int n, int *ndim, int *dims)
{
    *ndim = 0;
    for (int k = 0; k < n; k++)
        if (ts[k]->ndim > *ndim)
            *ndim = ts[k]->ndim;
    for (int d = 0; d < *ndim; d++)
        dims[d] = 1;
    for (int k = 0; k < n; k++)
        for (int d = 0; d < ts[k]->ndim; d++) {
            int od = *ndim - ts[k]->ndim + d, v = ts[k]->dims[d];
            if (dims[od] == 1)
                dims[od] = v;
            else if (v != 1 && v != dims[od])
                return ln_error(LN_EINVAL, "shapes do not broadcast");
        }
    return 0;
}

/* The element of t that output element i of dims (rank ndim) reads. */
static size_t bcast_index(const ln_tensor *t, int ndim, const int *dims, size_t i)
{
    size_t idx = 0, stride = 1;

    for (int d = ndim - 1; d >= 0; d--) {
        size_t c = i % (size_t)dims[d];
        int td = d - (ndim - t->ndim);
        i /= (size_t)dims[d];
        if (td < 0)
            break;
        if (t->dims[td] != 1)
            idx += c * stride;
        stride *= (size_t)t->dims[td];
    }
    return idx;
}

static int norm_axis(int64_t axis, int rank, int *out)
{
    if (axis < -rank || axis >= rank)
        return ln_error(LN_EINVAL, "axis %lld is out of range for rank %d", (long long)axis,
                        rank);
    *out = (int)(axis < 0 ? axis + rank : axis);
    return 0;
}

static int ev_shape(ev *e)
{
    int64_t r = e->ndim0, start = attr_int(e->node, "start", 0),
            end = attr_int(e->node, "end", r);
    int n;

    start = start < 0 ? start + r : start;
    end = end < 0 ? end + r : end;
    start = start < 0 ? 0 : start > r ? r : start;
    end = end < 0 ? 0 : end > r ? r : end;
    n = end > start ? (int)(end - start) : 0;
    e->out = new_tensor(LN_DTYPE_INT64, 1, &n);
    for (int i = 0; i < n; i++)
        ((int64_t *)e->out->data)[i] = e->dims0[start + i];
    return 0;
}

static int ev_size(ev *e)
{
    e->out = new_tensor(LN_DTYPE_INT64, 0, NULL);
    ((int64_t *)e->out->data)[0] = (int64_t)prod(e->dims0, 0, e->ndim0);
    return 0;
}

/* The output's dims given to a view of input 0 (Reshape, Squeeze, ...). */
static int ev_view(ev *e, int ndim, const int *dims)
{
    const ln_tensor *x = e->in[0];
    if (prod(dims, 0, ndim) != x->len)
        return ln_error(LN_EINVAL, "cannot view %zu elements as %d dims", x->len, ndim);
    e->out = new_tensor(x->dtype, ndim, dims);
    if (x->len)
        memcpy(e->out->data, x->data, x->len * ln_dtype_size(x->dtype));
    return 0;
}

static int ev_reshape(ev *e)
{
    const ln_tensor *x = e->in[0];
    int64_t *s;
    size_t n, known = 1;
    int dims[LN_MAXDIM], infer = -1, ret;
    ln_bool allowzero = attr_int(e->node, "allowzero", 0) != 0;

    if (!e->in[1])
        return ln_error(LN_EINVAL, "no shape input");
    s = int_values(e->in[1], &n);
    if (n > LN_MAXDIM) {
        ln_free(s);
        return ln_error(LN_EINVAL, "too many dims");
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] == -1 && infer < 0) {
            infer = (int)i;
            dims[i] = 1;
            continue;
        }
        if (s[i] == 0 && !allowzero) {
            if ((int)i >= x->ndim) {
                ln_free(s);
                return ln_error(LN_EINVAL, "shape copies a dim the input lacks");
            }
            dims[i] = x->dims[i];
        } else if (s[i] < 0 || s[i] > INT32_MAX) {
            long long bad = (long long)s[i];
            ln_free(s);
            return ln_error(LN_EINVAL, "bad dim %lld", bad);
        } else {
            dims[i] = (int)s[i];
        }
        known *= (size_t)dims[i];
    }
    ln_free(s);
    if (infer >= 0) {
        if (!known || x->len % known)
            return ln_error(LN_EINVAL, "cannot infer the -1 dim");
        dims[infer] = (int)(x->len / known);
    }
    ret = ev_view(e, (int)n, dims);
    return ret;
}

static int ev_flatten(ev *e)
{
    int axis = 0, dims[2];
    int ret = norm_axis(attr_int(e->node, "axis", 1), e->in[0]->ndim + 1, &axis);
    if (ret)
        return ret;
    dims[0] = (int)prod(e->in[0]->dims, 0, axis);
    dims[1] = (int)prod(e->in[0]->dims, axis, e->in[0]->ndim);
    return ev_view(e, 2, dims);
}

static int ev_identity(ev *e)
{
    return ev_view(e, e->in[0]->ndim, e->in[0]->dims);
}

/* Axes of Squeeze / Unsqueeze: the input (opset 13) or the attribute. */
static int64_t *axes_of(ev *e, int input, size_t *n)
{
    const Onnx__AttributeProto *a = find_attr(e->node, "axes");
    int64_t *v;

    if (e->n_in > input && e->in[input])
        return int_values(e->in[input], n);
    *n = a ? a->n_ints : 0;
    v = ln_alloc(sizeof(int64_t) * (*n ? *n : 1));
    for (size_t i = 0; i < *n; i++)
        v[i] = a->ints[i];
    return v;
}

static int ev_unsqueeze(ev *e)
{
    const ln_tensor *x = e->in[0];
    size_t n;
    int64_t *axes = axes_of(e, 1, &n);
    int rank = x->ndim + (int)n, dims[LN_MAXDIM], k = 0, ret = 0;
    ln_bool ins[LN_MAXDIM] = {0};

    if (rank > LN_MAXDIM || !n)
        ret = ln_error(LN_EINVAL, "bad axes");
    for (size_t i = 0; !ret && i < n; i++) {
        int a = 0;
        if (!(ret = norm_axis(axes[i], rank, &a))) {
            if (ins[a])
                ret = ln_error(LN_EINVAL, "repeated axis");
            ins[a] = LN_TRUE;
        }
    }
    ln_free(axes);
    if (ret)
        return ret;
    for (int d = 0; d < rank; d++)
        dims[d] = ins[d] ? 1 : x->dims[k++];
    return ev_view(e, rank, dims);
}

static int ev_squeeze(ev *e)
{
    const ln_tensor *x = e->in[0];
    size_t n;
    int64_t *axes = axes_of(e, 1, &n);
    int dims[LN_MAXDIM], nd = 0, ret = 0;
    ln_bool drop[LN_MAXDIM] = {0};

    for (size_t i = 0; !ret && i < n; i++) {
        int a = 0;
        if (!(ret = norm_axis(axes[i], x->ndim, &a))) {
            if (x->dims[a] != 1)
                ret = ln_error(LN_EINVAL, "squeezed dim %d is not 1", a);
            drop[a] = LN_TRUE;
        }
    }
    ln_free(axes);
    if (ret)
        return ret;
    for (int d = 0; d < x->ndim; d++)
        if (!(n ? drop[d] : x->dims[d] == 1))
            dims[nd++] = x->dims[d];
    return ev_view(e, nd, dims);
}

static int ev_gather(ev *e)
{
    const ln_tensor *x = e->in[0], *ind = e->in[1];
    int axis = 0, dims[LN_MAXDIM], nd = 0, ret;
    size_t outer, inner, es = ln_dtype_size(x->dtype);

    if (!ind || (ret = norm_axis(attr_int(e->node, "axis", 0), x->ndim, &axis)))
        return ind ? ret : ln_error(LN_EINVAL, "no indices");
    if (x->ndim - 1 + ind->ndim > LN_MAXDIM)
        return ln_error(LN_EINVAL, "too many dims");
    for (int d = 0; d < axis; d++)
        dims[nd++] = x->dims[d];
    for (int d = 0; d < ind->ndim; d++)
        dims[nd++] = ind->dims[d];
    for (int d = axis + 1; d < x->ndim; d++)
        dims[nd++] = x->dims[d];
    outer = prod(x->dims, 0, axis);
    inner = prod(x->dims, axis + 1, x->ndim);
    e->out = new_tensor(x->dtype, nd, dims);
    for (size_t j = 0; j < ind->len; j++) {
        int64_t k = geti(ind, j);
        if (k < -x->dims[axis] || k >= x->dims[axis])
            return ln_error(LN_EINVAL, "index %lld is out of range", (long long)k);
        if (k < 0)
            k += x->dims[axis];
        for (size_t o = 0; o < outer; o++)
            memcpy((char *)e->out->data + ((o * ind->len + j) * inner) * es,
                   (const char *)x->data + ((o * (size_t)x->dims[axis] + (size_t)k) * inner) * es,
                   inner * es);
    }
    return 0;
}

static int ev_concat(ev *e)
{
    const ln_tensor *x0 = NULL;
    int axis = 0, dims[LN_MAXDIM], ret;
    size_t outer, off = 0, es, total;

    for (int k = 0; k < e->n_in; k++)
        if (e->in[k] && !x0)
            x0 = e->in[k];
    if (!x0)
        return ln_error(LN_EINVAL, "no inputs");
    if ((ret = norm_axis(attr_int(e->node, "axis", 0), x0->ndim, &axis)))
        return ret;
    memcpy(dims, x0->dims, sizeof dims);
    dims[axis] = 0;
    for (int k = 0; k < e->n_in; k++) {
        const ln_tensor *x = e->in[k];
        if (!x)
            continue;
        if (x->ndim != x0->ndim || x->dtype != x0->dtype)
            return ln_error(LN_EINVAL, "inputs differ in rank or dtype");
        for (int d = 0; d < x->ndim; d++)
            if (d != axis && x->dims[d] != x0->dims[d])
                return ln_error(LN_EINVAL, "inputs differ in dim %d", d);
        dims[axis] += x->dims[axis];
    }
    es = ln_dtype_size(x0->dtype);
    outer = prod(dims, 0, axis);
    total = prod(dims, axis, x0->ndim);
    e->out = new_tensor(x0->dtype, x0->ndim, dims);
    for (int k = 0; k < e->n_in; k++) {
        const ln_tensor *x = e->in[k];
        size_t chunk;
        if (!x)
            continue;
        chunk = prod(x->dims, axis, x->ndim);
        for (size_t o = 0; o < outer; o++)
            memcpy((char *)e->out->data + (o * total + off) * es,
                   (const char *)x->data + o * chunk * es, chunk * es);
        off += chunk;
    }
    return 0;
}

/* Slice: starts/ends/axes/steps from inputs 1..4 (opset 10) or the
 * attributes (opset < 10). */
static int ev_slice(ev *e)
{
    const ln_tensor *x = e->in[0];
    int64_t *v[4] = {NULL, NULL, NULL, NULL};
    size_t n[4] = {0, 0, 0, 0};
    int64_t start[LN_MAXDIM], step[LN_MAXDIM];
    int dims[LN_MAXDIM], ret = 0;
    size_t es = ln_dtype_size(x->dtype);
    static const char *const names[] = {"starts", "ends", "axes", "steps"};

    for (int k = 0; k < 4; k++) {
        if (e->n_in > 1) {
            if (k + 1 < e->n_in && e->in[k + 1])
                v[k] = int_values(e->in[k + 1], &n[k]);
        } else if (find_attr(e->node, names[k])) {
            const Onnx__AttributeProto *a = find_attr(e->node, names[k]);
            n[k] = a->n_ints;
            v[k] = ln_alloc(sizeof(int64_t) * (n[k] ? n[k] : 1));
            for (size_t i = 0; i < n[k]; i++)
                v[k][i] = a->ints[i];
        }
    }
    for (int d = 0; d < x->ndim; d++) {
        dims[d] = x->dims[d];
        start[d] = 0;
        step[d] = 1;
    }
    if (!v[0] || !v[1] || n[0] != n[1] || (v[2] && n[2] != n[0]) || (v[3] && n[3] != n[0]))
        ret = ln_error(LN_EINVAL, "bad starts/ends/axes/steps");
    for (size_t i = 0; !ret && i < n[0]; i++) {
        int a = 0;
        int64_t dim, s, en, st = v[3] ? v[3][i] : 1;
        if ((ret = norm_axis(v[2] ? v[2][i] : (int64_t)i, x->ndim, &a)))
            break;
        if (st == 0) {
            ret = ln_error(LN_EINVAL, "step 0");
            break;
        }
        dim = x->dims[a];
        s = v[0][i] < 0 ? v[0][i] + dim : v[0][i];
        en = v[1][i] < 0 ? v[1][i] + dim : v[1][i];
        if (st > 0) {
            s = s < 0 ? 0 : s > dim ? dim : s;
            en = en < 0 ? 0 : en > dim ? dim : en;
            dims[a] = en > s ? (int)((en - s + st - 1) / st) : 0;
        } else {
            s = s < 0 ? -1 : s > dim - 1 ? dim - 1 : s;
            en = en < -1 ? -1 : en > dim - 1 ? dim - 1 : en;
            dims[a] = s > en ? (int)((s - en - st - 1) / -st) : 0;
        }
        start[a] = s;
        step[a] = st;
    }
    for (int k = 0; k < 4; k++)
        ln_free(v[k]);
    if (ret)
        return ret;
    e->out = new_tensor(x->dtype, x->ndim, dims);
    for (size_t i = 0; i < e->out->len; i++) {
        size_t r = i, idx = 0, stride = 1;
        for (int d = x->ndim - 1; d >= 0; d--) {
            size_t c = r % (size_t)dims[d];
            r /= (size_t)dims[d];
            idx += (size_t)(start[d] + (int64_t)c * step[d]) * stride;
            stride *= (size_t)x->dims[d];
        }
        memcpy((char *)e->out->data + i * es, (const char *)x->data + idx * es, es);
    }
    return 0;
}

static int ev_cast(ev *e)
{
    const Onnx__AttributeProto *a = find_attr(e->node, "to");
    ln_dtype to = a ? dtype_from_onnx((int32_t)a->i) : LN_DTYPE_UNKNOWN;
    const ln_tensor *x = e->in[0];

    if (to == LN_DTYPE_UNKNOWN)
        return ln_error(LN_EINVAL, "bad 'to'");
    e->out = new_tensor(to, x->ndim, x->dims);
    if (ln_rt_cast((ln_rt_dtype)x->dtype, x->data, (ln_rt_dtype)to, e->out->data, x->len))
        return ln_error(LN_EINVAL, "cannot cast %s", ln_dtype_name(x->dtype));
    return 0;
}

enum { B_ADD, B_SUB, B_MUL, B_DIV, B_EQ, B_LT, B_GT, B_LE, B_GE, B_AND, B_OR };

static const struct {
    const char *op_type;
    int op;
} binary_ops[] = {
    {"Add", B_ADD}, {"Sub", B_SUB}, {"Mul", B_MUL}, {"Div", B_DIV}, {"Equal", B_EQ},
    {"Less", B_LT}, {"Greater", B_GT}, {"LessOrEqual", B_LE}, {"GreaterOrEqual", B_GE},
    {"And", B_AND}, {"Or", B_OR}, {NULL, 0},
};

static int ev_binary(ev *e)
{
    ln_tensor *a = e->in[0], *b = e->in[1];
    int op = -1, ndim, dims[LN_MAXDIM], ret;
    ln_bool fl, cmp;

    for (int i = 0; binary_ops[i].op_type; i++)
        if (ln_streq(binary_ops[i].op_type, e->node->op_type))
            op = binary_ops[i].op;
    if (!a || !b || a->dtype != b->dtype)
        return ln_error(LN_EINVAL, "inputs differ in dtype");
    if (a->dtype == LN_DTYPE_FLOAT16)
        return ln_error(LN_EINVAL, "float16 is not evaluated");
    if ((ret = bcast_dims(e->in, 2, &ndim, dims)))
        return ret;
    fl = is_float_dtype(a->dtype);
    cmp = op >= B_EQ;
    e->out = new_tensor(cmp ? LN_DTYPE_BOOL : a->dtype, ndim, dims);
    for (size_t i = 0; i < e->out->len; i++) {
        size_t ia = bcast_index(a, ndim, dims, i), ib = bcast_index(b, ndim, dims, i);
        if (fl) {
            double x = tensor_get(a, ia), y = tensor_get(b, ib), r = 0;
            switch (op) {
            case B_ADD: r = x + y; break;
            case B_SUB: r = x - y; break;
            case B_MUL: r = x * y; break;
            case B_DIV: r = x / y; break;
            case B_EQ: r = x == y; break;
            case B_LT: r = x < y; break;
            case B_GT: r = x > y; break;
            case B_LE: r = x <= y; break;
            case B_GE: r = x >= y; break;
            default: return ln_error(LN_EINVAL, "not for floats");
            }
            if (cmp)
                ((uint8_t *)e->out->data)[i] = r != 0;
            else
                set_f(e->out, i, r);
        } else {
            int64_t x = geti(a, ia), y = geti(b, ib), r = 0;
            switch (op) {
            case B_ADD: r = (int64_t)((uint64_t)x + (uint64_t)y); break;
            case B_SUB: r = (int64_t)((uint64_t)x - (uint64_t)y); break;
            case B_MUL: r = (int64_t)((uint64_t)x * (uint64_t)y); break;
            case B_DIV:
                if (y == 0 || (x == INT64_MIN && y == -1))
                    return ln_error(LN_EINVAL, "integer division by zero");
                r = x / y;           /* truncated, as onnxruntime does */
                break;
            case B_EQ: r = x == y; break;
            case B_LT: r = x < y; break;
            case B_GT: r = x > y; break;
            case B_LE: r = x <= y; break;
            case B_GE: r = x >= y; break;
            case B_AND: r = x && y; break;
            case B_OR: r = x || y; break;
            default: break;
            }
            put_int(e->out, i, r);
        }
    }
    return 0;
}

static int ev_unary(ev *e)
{
    const ln_tensor *x = e->in[0];
    const char *t = e->node->op_type;

    if (x->dtype == LN_DTYPE_FLOAT16)
        return ln_error(LN_EINVAL, "float16 is not evaluated");
    if (ln_streq(t, "Not") && x->dtype != LN_DTYPE_BOOL)
        return ln_error(LN_EINVAL, "Not wants bool");
    e->out = new_tensor(x->dtype, x->ndim, x->dims);
    for (size_t i = 0; i < x->len; i++) {
        if (is_float_dtype(x->dtype)) {
            double v = tensor_get(x, i);
            v = ln_streq(t, "Neg") ? -v : ln_streq(t, "Abs") ? fabs(v)
                : ln_streq(t, "Floor") ? floor(v) : ln_streq(t, "Ceil") ? ceil(v)
                : ln_streq(t, "Sqrt") ? sqrt(v) : v;
            set_f(e->out, i, v);
        } else {
            int64_t v = geti(x, i);
            if (ln_streq(t, "Sqrt"))
                return ln_error(LN_EINVAL, "Sqrt wants floats");
            v = ln_streq(t, "Neg") ? (int64_t)(0 - (uint64_t)v) : ln_streq(t, "Abs") && v < 0
                ? (int64_t)(0 - (uint64_t)v) : ln_streq(t, "Not") ? !v : v;
            put_int(e->out, i, v);
        }
    }
    return 0;
}

/* An output of a given shape (input 1 of Expand, input 0 of
 * ConstantOfShape) as dims. */
static int shape_input(const ln_tensor *s, int *ndim, int *dims)
{
    size_t n;
    int64_t *v;

    if (s->ndim != 1 || s->len > LN_MAXDIM)
        return ln_error(LN_EINVAL, "bad shape input");
    v = int_values(s, &n);
    for (size_t i = 0; i < n; i++) {
        if (v[i] < 0 || v[i] > INT32_MAX) {
            ln_free(v);
            return ln_error(LN_EINVAL, "bad dim");
        }
        dims[i] = (int)v[i];
    }
    *ndim = (int)n;
    ln_free(v);
    return prod(dims, 0, *ndim) > EVAL_MAX_ELEMS ? ln_error(LN_EINVAL, "too large") : 0;
}

static int ev_constantofshape(ev *e)
{
    const Onnx__AttributeProto *a = find_attr(e->node, "value");
    ln_tensor *val = NULL;
    int ndim, dims[LN_MAXDIM], ret;
    size_t es;

    if ((ret = shape_input(e->in[0], &ndim, dims)))
        return ret;
    if (a && a->t) {
        if ((ret = tensor_from_proto(a->t, "value", &val)))
            return ret;
        if (val->len != 1) {
            ln_tensor_free(val);
            return ln_error(LN_EINVAL, "value must hold one element");
        }
    } else {
        val = new_tensor(LN_DTYPE_FLOAT32, 1, (int[]){1});
        ((float *)val->data)[0] = 0;
    }
    es = ln_dtype_size(val->dtype);
    e->out = new_tensor(val->dtype, ndim, dims);
    for (size_t i = 0; i < e->out->len; i++)
        memcpy((char *)e->out->data + i * es, val->data, es);
    ln_tensor_free(val);
    return 0;
}

static int ev_range(ev *e)
{
    const ln_tensor *s = e->in[0];
    int n;

    if (!e->in[1] || !e->in[2] || s->len != 1 || e->in[1]->len != 1 || e->in[2]->len != 1 ||
        s->dtype == LN_DTYPE_FLOAT16)
        return ln_error(LN_EINVAL, "start, limit and delta must be scalars");
    if (is_float_dtype(s->dtype)) {
        double a = tensor_get(s, 0), l = tensor_get(e->in[1], 0), d = tensor_get(e->in[2], 0);
        double c = d != 0 ? ceil((l - a) / d) : -1;
        if (d == 0 || c > (double)EVAL_MAX_ELEMS)
            return ln_error(LN_EINVAL, "bad delta");
        n = c > 0 ? (int)c : 0;
        e->out = new_tensor(s->dtype, 1, &n);
        for (int i = 0; i < n; i++)
            set_f(e->out, (size_t)i, a + i * d);
    } else {
        int64_t a = geti(s, 0), l = geti(e->in[1], 0), d = geti(e->in[2], 0), c;
        if (d == 0)
            return ln_error(LN_EINVAL, "delta 0");
        c = d > 0 ? (l - a + d - 1) / d : (a - l - d - 1) / -d;
        if (c > (int64_t)EVAL_MAX_ELEMS)
            return ln_error(LN_EINVAL, "too large");
        n = c > 0 ? (int)c : 0;
        e->out = new_tensor(s->dtype, 1, &n);
        for (int i = 0; i < n; i++)
            put_int(e->out, (size_t)i, a + i * d);
    }
    return 0;
}

/* Where (3 inputs, cond first) and Expand (input 1 a shape) broadcast. */
static int ev_where(ev *e)
{
    ln_tensor *c = e->in[0], *x = e->in[1], *y = e->in[2];
    int ndim, dims[LN_MAXDIM], ret;
    size_t es;

    if (!x || !y || x->dtype != y->dtype)
        return ln_error(LN_EINVAL, "x and y differ in dtype");
    if ((ret = bcast_dims(e->in, 3, &ndim, dims)))
        return ret;
    es = ln_dtype_size(x->dtype);
    e->out = new_tensor(x->dtype, ndim, dims);
    for (size_t i = 0; i < e->out->len; i++) {
        const ln_tensor *s = geti(c, bcast_index(c, ndim, dims, i)) ? x : y;
        memcpy((char *)e->out->data + i * es,
               (const char *)s->data + bcast_index(s, ndim, dims, i) * es, es);
    }
    return 0;
}

static int ev_expand(ev *e)
{
    ln_tensor *x = e->in[0], *ts[2], shape;
    int ndim, dims[LN_MAXDIM], ret;
    size_t es = ln_dtype_size(x->dtype);

    if (!e->in[1] || (ret = shape_input(e->in[1], &shape.ndim, shape.dims)))
        return e->in[1] ? ret : ln_error(LN_EINVAL, "no shape");
    ts[0] = x;
    ts[1] = &shape;
    if ((ret = bcast_dims(ts, 2, &ndim, dims)))
        return ret;
    if (prod(dims, 0, ndim) > EVAL_MAX_ELEMS)
        return ln_error(LN_EINVAL, "too large");
    e->out = new_tensor(x->dtype, ndim, dims);
    for (size_t i = 0; i < e->out->len; i++)
        memcpy((char *)e->out->data + i * es,
               (const char *)x->data + bcast_index(x, ndim, dims, i) * es, es);
    return 0;
}

typedef struct evaluator {
    const char *op_type;
    int (*fn)(ev *e);
    const char *attrs;        /* the attributes it reads, ","-separated */
    ln_bool dims_only;        /* input 0 only by its shape (Shape, Size) */
} evaluator;

static const evaluator evaluators[] = {
    {"Shape", ev_shape, "start,end", LN_TRUE},
    {"Size", ev_size, "", LN_TRUE},
    {"Gather", ev_gather, "axis", LN_FALSE},
    {"Unsqueeze", ev_unsqueeze, "axes", LN_FALSE},
    {"Squeeze", ev_squeeze, "axes", LN_FALSE},
    {"Concat", ev_concat, "axis", LN_FALSE},
    {"Slice", ev_slice, "starts,ends,axes", LN_FALSE},
    {"Cast", ev_cast, "to", LN_FALSE},
    {"Reshape", ev_reshape, "allowzero", LN_FALSE},
    {"Flatten", ev_flatten, "axis", LN_FALSE},
    {"Identity", ev_identity, "", LN_FALSE},
    {"Expand", ev_expand, "", LN_FALSE},
    {"Add", ev_binary, "", LN_FALSE},
    {"Sub", ev_binary, "", LN_FALSE},
    {"Mul", ev_binary, "", LN_FALSE},
    {"Div", ev_binary, "", LN_FALSE},
    {"Equal", ev_binary, "", LN_FALSE},
    {"Less", ev_binary, "", LN_FALSE},
    {"Greater", ev_binary, "", LN_FALSE},
    {"LessOrEqual", ev_binary, "", LN_FALSE},
    {"GreaterOrEqual", ev_binary, "", LN_FALSE},
    {"And", ev_binary, "", LN_FALSE},
    {"Or", ev_binary, "", LN_FALSE},
    {"Not", ev_unary, "", LN_FALSE},
    {"Neg", ev_unary, "", LN_FALSE},
    {"Abs", ev_unary, "", LN_FALSE},
    {"Floor", ev_unary, "", LN_FALSE},
    {"Ceil", ev_unary, "", LN_FALSE},
    {"Sqrt", ev_unary, "", LN_FALSE},
    {"Where", ev_where, "", LN_FALSE},
    {"ConstantOfShape", ev_constantofshape, "value", LN_FALSE},
    {"Range", ev_range, "", LN_FALSE},
    {NULL, NULL, NULL, LN_FALSE},
};

const char *ln_onnx_evaluated_op(int i)
{
    return i >= 0 && i < (int)(sizeof evaluators / sizeof evaluators[0]) ? evaluators[i].op_type
                                                                         : NULL;
}

static ln_bool attr_listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p; p += *p == ',') {
        if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
            return LN_TRUE;
        while (*p && *p != ',')
            p++;
    }
    return LN_FALSE;
}

static void pre_run_ir(imp *im, const cJSON *root, ln_bool report);
static cJSON *ir_so_far(imp *im);

/* The dims of tensor name (not a constant), from pre_running the ops
 * imported so far; LN_FALSE when they are not known. */
static ln_bool known_dims(imp *im, const char *name, int *ndim, int *dims)
{
    const dims_entry *d = ln_hash_find(im->shapes, name);

    if (!d && im->shapes_ops != cJSON_GetArraySize(im->node_ops) + 1) {
        cJSON *root = ir_so_far(im);
        pre_run_ir(im, root, LN_FALSE);
        cJSON_Delete(root);
        im->shapes_ops = cJSON_GetArraySize(im->node_ops) + 1;
        d = ln_hash_find(im->shapes, name);
    }
    if (!d)
        return LN_FALSE;
    *ndim = d->ndim;
    memcpy(dims, d->dims, sizeof d->dims);
    return LN_TRUE;
}

static const evaluator *find_evaluator(const char *op_type)
{
    for (const evaluator *v = evaluators; v->op_type; v++)
        if (ln_streq(v->op_type, op_type))
            return v;
    return NULL;
}

/*
 * Evaluate node when it is of a type in evaluators[] and its inputs are
 * known: its output becomes a constant.  LN_TRUE when the node is dealt
 * with (evaluated, or a problem recorded), LN_FALSE when it is to be
 * imported as an op.
 */
static ln_bool try_eval(imp *im, const Onnx__NodeProto *node, const char *where)
{
    const evaluator *v = find_evaluator(node->op_type);
    ln_bool mapped = find_entry(node->op_type, im->opset) != NULL, quiet = LN_FALSE;
    const char *out, *missing = NULL;
    ev e;
    int ret;

    if (!v || node->n_output != 1 || !*node->output[0] || node->n_input > 8)
        return LN_FALSE;
    if (mapped && ((ln_streq(node->op_type, "Reshape") && im->opset < 5) ||
                   (ln_streq(node->op_type, "Cast") && im->opset < 6)))
        return LN_FALSE;                    /* attribute forms of old opsets */
    out = node->output[0];
    memset(&e, 0, sizeof e);
    e.im = im;
    e.node = node;
    e.n_in = (int)node->n_input;
    for (int i = 0; i < e.n_in; i++) {
        const char *in = node->input[i];
        if (!*in)
            continue;
        if (set_has(im->unknown, in))
            quiet = LN_TRUE;                /* an earlier problem explains it */
        if (i == 0 && v->dims_only) {
            const ln_tensor *t = ln_hash_find(im->consts, in);
            if (t) {
                e.ndim0 = t->ndim;
                memcpy(e.dims0, t->dims, sizeof e.dims0);
            } else if (!set_has(im->defined, in) ||
                       !known_dims(im, in, &e.ndim0, e.dims0)) {
                missing = missing ? missing : in;
                quiet = quiet || im->n_unsup || im->n_problems || !set_has(im->defined, in);
            }
            continue;
        }
        if (!(e.in[i] = ln_hash_find(im->consts, in)))
            missing = missing ? missing : in;
    }
    if (v->dims_only && !node->n_input)
        missing = "";
    for (size_t j = 0; !missing && j < node->n_attribute; j++)
        if (!attr_listed(v->attrs, node->attribute[j]->name)) {
            if (mapped)
                return LN_FALSE;
            problem(im, "%s: attribute '%s' is not supported", where, node->attribute[j]->name);
            goto unknown;
        }
    if (missing && mapped && !quiet)
        return LN_FALSE;                    /* computed at run time by the op */
    if (missing) {
        if (quiet)
            goto unknown;
        if (!set_has(im->defined, missing))
            problem_c(im, LN_EPARSE, "%s: input '%s' is not defined (no graph input, "
                      "initializer, Constant or earlier node output has that name)", where,
                      missing);
        else if (v->dims_only)
            problem(im, "%s: the shape of '%s' is not known at import time%s%s%s", where,
                    missing, im->shape_err ? " (" : "", im->shape_err ? im->shape_err : "",
                    im->shape_err ? ")" : "");
        else
            for (int i = 0; i < e.n_in; i++)   /* every one, so all can be fixed */
                if (*node->input[i] && !(i == 0 && v->dims_only) &&
                    !ln_hash_find(im->consts, node->input[i]))
                    problem(im, "%s: input '%s' (of %s, which LightNet evaluates at import "
                            "time) must be a constant (an initializer, a Constant node, or "
                            "computed from those and known shapes), not a graph input or "
                            "computed at run time", where, node->input[i], node->op_type);
        goto unknown;
    }
    if (!v->dims_only && !e.in[0] && !ln_streq(node->op_type, "Concat")) {
        problem_c(im, LN_EPARSE, "%s: input 1 is missing", where);
        goto unknown;
    }
    ret = v->fn(&e);
    if (!ret && e.out->len > EVAL_MAX_ELEMS)
        ret = ln_error(LN_EINVAL, "the result has %zu elements", e.out->len);
    if (ret) {
        if (e.out)
            ln_tensor_free(e.out);
        if (mapped)
            return LN_FALSE;                /* the op's own checks will say */
        problem_c(im, LN_EOP, "%s: %s", where, ln_error_message());
        goto unknown;
    }
    add_const(im, out, e.out);
    return LN_TRUE;

unknown:
    set_add(im->unknown, out);
    set_add(im->defined, out);
    return LN_TRUE;
}

/* Dropout's mask in inference (all true, the input's shape): a constant.
 * A problem when training_mode is not a constant false; LN_FALSE when the
 * input's shape is not known. */
static ln_bool dropout_mask(imp *im, const Onnx__NodeProto *node, const char *o,
                            const char *where)
{
    const ln_tensor *x = ln_hash_find(im->consts, node->input[0]), *tm;
    int ndim, dims[LN_MAXDIM];
    ln_tensor *m;

    set_add(im->defined, o);
    if (node->n_input > 2 && *node->input[2]) {
        tm = ln_hash_find(im->consts, node->input[2]);
        if (!tm || !tm->len || geti(tm, 0)) {
            problem(im, "%s: output 2 ('%s', the mask) is used, and LightNet makes it only "
                    "in inference (training_mode a constant false)", where, o);
            return LN_TRUE;
        }
    }
    if (x) {
        ndim = x->ndim;
        memcpy(dims, x->dims, sizeof dims);
    } else if (!known_dims(im, node->input[0], &ndim, dims)) {
        return LN_FALSE;
    }
    m = ln_tensor_create_alloc(LN_DTYPE_BOOL, ndim, dims);
    memset(m->data, 1, m->len);
    add_const(im, o, m);
    return LN_TRUE;
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
    if (try_eval(im, node, where))
        goto out;
    for (size_t i = 0; i < node->n_input; i++)
        if (set_has(im->unknown, node->input[i])) {
            /* its value or shape is unknown because of an earlier problem:
             * no op, so that no echo of that problem follows */
            for (size_t j = 0; j < node->n_output; j++)
                if (*node->output[j])
                    set_add(im->unknown, node->output[j]);
            goto define_outputs;
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
    /* more ONNX inputs than args, or exactly as many with a variadic last
     * arg: src_0, src_1, ... (a single Mean or Concat input is src_0) */
    var_in = n_in > 0 && is_plain_arg(e->inputs[n_in - 1]) &&
             ((int)node->n_input > n_in ||
              ((int)node->n_input == n_in && is_variadic_arg(e->optype, e->inputs[n_in - 1])));
    /* Dropout's mask is not a variadic dst: dropout_mask() makes it */
    var_out = n_out > 0 && is_plain_arg(e->outputs[n_out - 1]) &&
              ((int)node->n_output > n_out ||
               ((int)node->n_output == n_out && is_variadic_arg(e->optype, e->outputs[n_out - 1])))
              && !ln_streq(op_type, "Dropout");
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
                problem(im, "%s: input '%s' (%s) must be a constant (an initializer, a "
                        "Constant node, or computed from those and known shapes), not a "
                        "graph input or computed at run time", where, in, arg + 1);
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
        if (i == 1 && ln_streq(op_type, "Dropout") && set_has(im->consumed, o) &&
            dropout_mask(im, node, o, where))
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
 * root's ops pre_run in order on a scratch tensor table.  With report
 * (the finished IR), every op whose own checks fail is a problem (ops
 * that read a failed op's output are skipped, their errors would only echo
 * it).  Without (the ops so far, for known_dims), the dims of every
 * tensor an op produced go into im->shapes.
 */
static void pre_run_ir(imp *im, const cJSON *root, ln_bool report)
{
    ln_hash *table = ln_tensor_table_create(), *failed = str_set();
    ln_list *ops = NULL, *done = NULL;

    ln_arch_init();
    if (ln_json_parse_ops(root, im->source, table, &ops)) {
        if (report)
            problem_c(im, ln_error_code(), "%s", ln_error_message());
        goto out;
    }
    LN_LIST_FOREACH(ln_op, op, ops) {
        ln_bool skip = LN_FALSE;
        LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_in) {
            skip = skip || set_has(failed, tle->name);
        }
        if (!skip && !ln_op_pre_run(op)) {
            done = ln_list_prepend(done, op);
            LN_LIST_FOREACH(ln_tensor_list_entry, tle, op->op_arg->tensors_out) {
                ln_tensor_entry *te = ln_tensor_table_find(table, tle->name);
                dims_entry *d;
                if (report || !te || ln_hash_find(im->shapes, tle->name))
                    continue;
                d = ln_alloc(sizeof *d);
                d->ndim = te->tensor->ndim;
                memcpy(d->dims, te->tensor->dims, sizeof d->dims);
                ln_hash_insert(im->shapes, ln_strdup(tle->name), d);
            }
            continue;
        }
        if (!skip && report)
            problem_c(im, ln_error_code(), "%s", ln_error_message());
        else if (!skip && !im->shape_err)
            im->shape_err = ln_strdup(ln_error_message());
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

/* A create op (from_file) for every constant an op reads as a tensor. */
static void add_create_ops(imp *im, cJSON *ops)
{
    LN_LIST_FOREACH(const char, cname, im->const_order) {
        const ln_tensor *t = ln_hash_find(im->consts, cname);
        char *name;
        cJSON *op;
        if (!set_has(im->as_tensor, cname))
            continue;
        name = op_name(im, cname);
        op = json_op(name, "create");
        ln_free(name);
        op_add(op, "tensors_out", json_tensor_ref("dst", cname));
        op_add(op, "params", json_param("dtype", cJSON_CreateString(ln_dtype_name(t->dtype))));
        op_add(op, "params", json_param("dims", json_dims(t->ndim, t->dims)));
        op_add(op, "params", json_param("from_file", cJSON_CreateTrue()));
        cJSON_AddItemToArray(ops, op);
    }
}

/* The IR of the ops imported so far (inputs, constants, nodes). */
static cJSON *ir_so_far(imp *im)
{
    cJSON *root = cJSON_CreateObject(), *ops = cJSON_AddArrayToObject(root, "ops"), *op;
    ln_hash *taken = im->opnames;

    cJSON_ArrayForEach(op, im->input_ops) {
        cJSON_AddItemToArray(ops, cJSON_Duplicate(op, 1));
    }
    im->opnames = str_set();               /* names here need not be kept */
    cJSON_ArrayForEach(op, im->node_ops) {
        set_add(im->opnames, cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring);
    }
    cJSON_ArrayForEach(op, im->input_ops) {
        set_add(im->opnames, cJSON_GetObjectItemCaseSensitive(op, "name")->valuestring);
    }
    add_create_ops(im, ops);
    ln_hash_free(im->opnames);
    im->opnames = taken;
    cJSON_ArrayForEach(op, im->node_ops) {
        cJSON_AddItemToArray(ops, cJSON_Duplicate(op, 1));
    }
    return root;
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
    if ((ret = check_names(model->graph, source))) {
        onnx__model_proto__free_unpacked(model, NULL);
        return ret;
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
    im.input_ops = cJSON_CreateArray();
    im.unknown = str_set();
    im.shapes = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, ln_free);

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
    /* the inputs first: the shapes of the nodes' tensors build on them */
    for (size_t i = 0; i < g->n_input; i++) {
        cJSON *op;
        if (ln_hash_find(im.consts, g->input[i]->name))
            continue;                       /* an initializer listed as input */
        if ((op = import_input(&im, g->input[i])))
            cJSON_AddItemToArray(im.input_ops, op);
    }
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
    while (cJSON_GetArraySize(im.input_ops))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(im.input_ops, 0));
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
    add_create_ops(&im, ops);
    while (cJSON_GetArraySize(im.node_ops))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(im.node_ops, 0));
    while (cJSON_GetArraySize(outputs))
        cJSON_AddItemToArray(ops, cJSON_DetachItemFromArray(outputs, 0));
    cJSON_Delete(outputs);

    if (!im.n_unsup && !im.n_problems)
        pre_run_ir(&im, root, LN_TRUE);
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
    cJSON_Delete(im.input_ops);
    ln_hash_free(im.unknown);
    ln_hash_free(im.shapes);
    ln_free(im.shape_err);
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

const char *ln_onnx_evaluated_op(int i)
{
    (void)i;
    return NULL;
}

ln_bool ln_onnx_op_supported(const char *op_type, int opset, const char **optype)
{
    (void)op_type;
    (void)opset;
    (void)optype;
    return LN_FALSE;
}

#endif
