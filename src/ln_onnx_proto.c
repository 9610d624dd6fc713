/*
 * ln_onnx_proto.c -- from protobuf to LightNet for the ONNX importer:
 * tensors (TensorProto to ln_tensor), attributes (to JSON param values),
 * the JSON IR's pieces, and the list of problems an import collects.
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

ln_hash *ln_onnx_str_set(void)
{
    return ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
}

void ln_onnx_set_add(ln_hash *set, const char *s)
{
    if (!ln_hash_find_extended(set, s, NULL, NULL))
        ln_hash_insert(set, ln_strdup(s), NULL);
}

ln_bool ln_onnx_set_has(const ln_hash *set, const char *s)
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

void ln_onnx_problem(imp *im, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(im, LN_EUNSUPPORTED, fmt, ap);
    va_end(ap);
}

void ln_onnx_problem_c(imp *im, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vproblem(im, code, fmt, ap);
    va_end(ap);
}

void ln_onnx_unsupported_op(imp *im, const char *op_type, const char *node)
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
char *ln_onnx_op_name(imp *im, const char *base)
{
    char *name = ln_strdup(base);

    for (int i = 1; ln_onnx_set_has(im->opnames, name); i++) {
        ln_free(name);
        name = ln_sprintf("%s_%d", base, i);
    }
    ln_onnx_set_add(im->opnames, name);
    return name;
}

const char *ln_onnx_str_or_empty(const char *s)
{
    return s ? s : "";
}

/* ---- tensors ------------------------------------------------------------ */

ln_dtype ln_onnx_dtype(int32_t t)
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

const char *ln_onnx_type_name(int32_t t)
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
void ln_onnx_put_int(ln_tensor *t, size_t i, int64_t v)
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
int ln_onnx_tensor_from_proto(const Onnx__TensorProto *tp, const char *what, ln_tensor **out)
{
    ln_dtype dtype = ln_onnx_dtype(tp->data_type);
    int dims[LN_MAXDIM];
    size_t len, esize, n = 0;
    ln_tensor *t;

    if (dtype == LN_DTYPE_UNKNOWN)
        return ln_error(LN_EUNSUPPORTED, "%s has data type %s, which LightNet does not support",
                        what, ln_onnx_type_name(tp->data_type));
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
            ln_onnx_put_int(t, i, (int64_t)tp->uint64_data[i]);
        break;
    default:
        for (size_t i = 0; i < len; i++)
            ln_onnx_put_int(t, i, tp->int32_data[i]);
        break;
    }
    *out = t;
    return 0;
}

/* Element i of t as a double (for a constant read into a param). */
double ln_onnx_tensor_get(const ln_tensor *t, size_t i)
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

/* Element i as a 64-bit integer (floats truncated toward zero, NaN 0,
 * saturated beyond int64), for the integer operands the importer reads
 * (a Loop's trip count, an If's condition, NMS's box count). */
int64_t ln_onnx_geti(const ln_tensor *t, size_t i)
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
        double d = ln_onnx_tensor_get(t, i);
        return d != d ? 0 : d >= 9.2e18 ? INT64_MAX : d <= -9.2e18 ? INT64_MIN : (int64_t)d;
    }
    }
}

/* name is an entry of list ("a,b,c") */
ln_bool ln_onnx_attr_listed(const char *list, const char *name)
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

/* JSON cannot hold inf (cJSON writes null): the largest double stands in,
 * which the params saturate back to +-inf / INT_MAX. */
static cJSON *json_number(double v)
{
    if (isinf(v))
        v = v > 0 ? DBL_MAX : -DBL_MAX;
    return cJSON_CreateNumber(v);
}

cJSON *ln_onnx_json_param(const char *arg_name, cJSON *value)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "arg_name", arg_name);
    cJSON_AddItemToObject(p, "value", value);
    return p;
}

cJSON *ln_onnx_json_tensor_ref(const char *arg_name, const char *name)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "arg_name", arg_name);
    cJSON_AddStringToObject(p, "name", name);
    return p;
}

cJSON *ln_onnx_json_op(const char *name, const char *optype)
{
    cJSON *op = cJSON_CreateObject();
    cJSON_AddStringToObject(op, "name", name);
    cJSON_AddStringToObject(op, "optype", optype);
    cJSON_AddItemToObject(op, "tensors_in", cJSON_CreateArray());
    cJSON_AddItemToObject(op, "tensors_out", cJSON_CreateArray());
    cJSON_AddItemToObject(op, "params", cJSON_CreateArray());
    return op;
}

void ln_onnx_op_add(cJSON *op, const char *field, cJSON *item)
{
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(op, field), item);
}

cJSON *ln_onnx_json_dims(int ndim, const int *dims)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < ndim; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber(dims[i]));
    return a;
}

/* A constant's values as a param: a number for a scalar, else an array. */
cJSON *ln_onnx_json_const_value(const ln_tensor *t)
{
    ln_bool b = t->dtype == LN_DTYPE_BOOL;
    cJSON *a;

    if (t->ndim == 0)
        return b ? cJSON_CreateBool(ln_onnx_tensor_get(t, 0) != 0) : json_number(ln_onnx_tensor_get(t, 0));
    a = cJSON_CreateArray();
    for (size_t i = 0; i < t->len; i++)
        cJSON_AddItemToArray(a, b ? cJSON_CreateBool(ln_onnx_tensor_get(t, i) != 0)
                                  : json_number(ln_onnx_tensor_get(t, i)));
    return a;
}

void ln_onnx_add_const(imp *im, const char *name, ln_tensor *t)
{
    if (!ln_hash_find(im->consts, name))
        im->const_order = ln_list_append(im->const_order, (void *)name);
    ln_hash_insert(im->consts, ln_strdup(name), t);
    ln_onnx_set_add(im->defined, name);
}

/* ---- attributes --------------------------------------------------------- */

const Onnx__AttributeProto *ln_onnx_node_attr(const Onnx__NodeProto *n, const char *name)
{
    for (size_t i = 0; i < n->n_attribute; i++)
        if (n->attribute[i]->name && ln_streq(n->attribute[i]->name, name))
            return n->attribute[i];
    return NULL;
}

int64_t ln_onnx_node_attr_i(const Onnx__NodeProto *n, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = ln_onnx_node_attr(n, name);
    return a && a->has_i ? a->i : def;
}

int ln_onnx_attr_type(const Onnx__AttributeProto *a)
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
cJSON *ln_onnx_attr_json(imp *im, const char *where, const Onnx__AttributeProto *a)
{
    cJSON *v;

    switch (ln_onnx_attr_type(a)) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        return json_number(a->f);
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        /* Cast's "to" (and "dtype" elsewhere) is a TensorProto type number:
         * LightNet's dtype params take the name */
        if (ln_streq(a->name, "to") || ln_streq(a->name, "dtype")) {
            ln_dtype d = ln_onnx_dtype((int32_t)a->i);
            if (d == LN_DTYPE_UNKNOWN) {
                ln_onnx_problem(im, "%s: attribute '%s' is data type %s, which LightNet does not "
                        "support", where, a->name, ln_onnx_type_name((int32_t)a->i));
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
        ln_onnx_problem(im, "%s: attribute '%s' is a tensor, graph or type, which LightNet params "
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

ln_bool ln_onnx_attr_ignorable(const char *op_type, const char *attr, const cJSON *value)
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

#endif /* LN_HAVE_ONNX */
