/*
 * ln_onnx_eval.c -- the ONNX importer's import-time evaluation of shape
 * computations (what each evaluator does, and when: ln_onnx_impl.h).
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
        v[i] = ln_onnx_geti(t, i);
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
        int64_t k = ln_onnx_geti(ind, j);
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
    ln_dtype to = a ? ln_onnx_dtype((int32_t)a->i) : LN_DTYPE_UNKNOWN;
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
            double x = ln_onnx_tensor_get(a, ia), y = ln_onnx_tensor_get(b, ib), r = 0;
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
            int64_t x = ln_onnx_geti(a, ia), y = ln_onnx_geti(b, ib), r = 0;
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
            ln_onnx_put_int(e->out, i, r);
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
            double v = ln_onnx_tensor_get(x, i);
            v = ln_streq(t, "Neg") ? -v : ln_streq(t, "Abs") ? fabs(v)
                : ln_streq(t, "Floor") ? floor(v) : ln_streq(t, "Ceil") ? ceil(v)
                : ln_streq(t, "Sqrt") ? sqrt(v) : v;
            set_f(e->out, i, v);
        } else {
            int64_t v = ln_onnx_geti(x, i);
            if (ln_streq(t, "Sqrt"))
                return ln_error(LN_EINVAL, "Sqrt wants floats");
            v = ln_streq(t, "Neg") ? (int64_t)(0 - (uint64_t)v) : ln_streq(t, "Abs") && v < 0
                ? (int64_t)(0 - (uint64_t)v) : ln_streq(t, "Not") ? !v : v;
            ln_onnx_put_int(e->out, i, v);
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
        if ((ret = ln_onnx_tensor_from_proto(a->t, "value", &val)))
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
        double a = ln_onnx_tensor_get(s, 0), l = ln_onnx_tensor_get(e->in[1], 0), d = ln_onnx_tensor_get(e->in[2], 0);
        double c = d != 0 ? ceil((l - a) / d) : -1;
        if (d == 0 || c > (double)EVAL_MAX_ELEMS)
            return ln_error(LN_EINVAL, "bad delta");
        n = c > 0 ? (int)c : 0;
        e->out = new_tensor(s->dtype, 1, &n);
        for (int i = 0; i < n; i++)
            set_f(e->out, (size_t)i, a + i * d);
    } else {
        int64_t a = ln_onnx_geti(s, 0), l = ln_onnx_geti(e->in[1], 0), d = ln_onnx_geti(e->in[2], 0), c;
        if (d == 0)
            return ln_error(LN_EINVAL, "delta 0");
        c = d > 0 ? (l - a + d - 1) / d : (a - l - d - 1) / -d;
        if (c > (int64_t)EVAL_MAX_ELEMS)
            return ln_error(LN_EINVAL, "too large");
        n = c > 0 ? (int)c : 0;
        e->out = new_tensor(s->dtype, 1, &n);
        for (int i = 0; i < n; i++)
            ln_onnx_put_int(e->out, (size_t)i, a + i * d);
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
        const ln_tensor *s = ln_onnx_geti(c, bcast_index(c, ndim, dims, i)) ? x : y;
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

/* NonZero: the int64 indices [ndim][n] of the n nonzero elements, in
 * row-major order.  None at all would be an empty tensor, which LightNet
 * has not. */
static int ev_nonzero(ev *e)
{
    const ln_tensor *x = e->in[0];
    size_t n = 0, k = 0;
    int dims[2];

    if (x->dtype == LN_DTYPE_FLOAT16)
        return ln_error(LN_EINVAL, "float16 is not supported");
    if (x->ndim < 1)
        return ln_error(LN_EINVAL, "a scalar input is not supported");
    for (size_t i = 0; i < x->len; i++)
        n += ln_onnx_tensor_get(x, i) != 0;
    if (!n)
        return ln_error(LN_EINVAL, "no element is nonzero (the result would be empty)");
    dims[0] = x->ndim;
    dims[1] = (int)n;
    e->out = new_tensor(LN_DTYPE_INT64, 2, dims);
    for (size_t i = 0; i < x->len; i++) {
        size_t r = i;
        if (ln_onnx_tensor_get(x, i) == 0)
            continue;
        for (int d = x->ndim - 1; d >= 0; d--) {
            ((int64_t *)e->out->data)[(size_t)d * n + k] = (int64_t)(r % (size_t)x->dims[d]);
            r /= (size_t)x->dims[d];
        }
        k++;
    }
    return 0;
}

/*
 * NonMaxSuppression: how many boxes it selects depends on their values,
 * and LightNet's shapes are static, so it is evaluated here, on constant
 * boxes and scores, by the runtime's ln_rt_nms_f32: the output is ONNX's,
 * [selected][3] int64 (batch, class, box).  A padded fixed-size output
 * would not be ONNX's; a model whose boxes are computed at run time is
 * refused (its inputs must be constants).
 */
static int ev_nms(ev *e)
{
    const ln_tensor *bx = e->in[0], *sc = e->in[1];
    ln_rt_nms_args a;
    float *fb, *fs;
    int32_t *order;
    int64_t *sel, n;
    size_t cap;
    int dims[2];

    if (!bx || !sc || bx->ndim != 3 || bx->dims[2] != 4 || sc->ndim != 3 ||
        sc->dims[0] != bx->dims[0] || sc->dims[2] != bx->dims[1])
        return ln_error(LN_EINVAL, "boxes must be [batches][boxes][4] and scores "
                        "[batches][classes][boxes]");
    for (int i = 2; i < 5; i++)
        if (e->n_in > i && e->in[i] && e->in[i]->len != 1)
            return ln_error(LN_EINVAL, "input %d must hold one value", i + 1);
    memset(&a, 0, sizeof a);
    a.batches = bx->dims[0];
    a.boxes = bx->dims[1];
    a.classes = sc->dims[1];
    a.center_point_box = (int32_t)attr_int(e->node, "center_point_box", 0);
    if (a.center_point_box != 0 && a.center_point_box != 1)
        return ln_error(LN_EINVAL, "center_point_box must be 0 or 1");
    a.max_per_class = e->n_in > 2 && e->in[2] ? ln_onnx_geti(e->in[2], 0) : 0;
    a.max_per_class = a.max_per_class < 0 ? 0 : a.max_per_class;
    a.iou_threshold = e->n_in > 3 && e->in[3] ? (float)ln_onnx_tensor_get(e->in[3], 0) : 0.0f;
    a.has_score_threshold = e->n_in > 4 && e->in[4];
    a.score_threshold = a.has_score_threshold ? (float)ln_onnx_tensor_get(e->in[4], 0) : 0.0f;
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
    e->out = new_tensor(LN_DTYPE_INT64, 2, dims);
    memcpy(e->out->data, sel, sizeof(int64_t) * 3 * (size_t)n);
    ln_free(sel);
    return 0;
}

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
    {"NonZero", ev_nonzero, "", LN_FALSE},
    {"NonMaxSuppression", ev_nms, "center_point_box", LN_FALSE},
    {NULL, NULL, NULL, LN_FALSE},
};

const char *ln_onnx_evaluated_op(int i)
{
    return i >= 0 && i < (int)(sizeof evaluators / sizeof evaluators[0]) ? evaluators[i].op_type
                                                                         : NULL;
}

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

const evaluator *ln_onnx_find_evaluator(const char *op_type)
{
    for (const evaluator *v = evaluators; v->op_type; v++)
        if (ln_streq(v->op_type, op_type))
            return v;
    return NULL;
}

#endif /* LN_HAVE_ONNX */
