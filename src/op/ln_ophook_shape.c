/*
 * ln_ophook_shape.c -- the ops whose output is a constant that only shapes
 * and params decide (ONNX Shape, Size, ConstantOfShape, Range): their
 * shape inference, their checks, and the static_run that fills the output
 * (the context has allocated dst->data).  Shapes are static in LightNet,
 * so these outputs are constants in every model, run at compile time.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include "ln_ophook.h"

/* Shape's [start, end) of src's axes, clamped as ONNX says (negative:
 * from the end). */
static void shape_range(const ln_op_arg *op_arg, int rank, int *start, int *end)
{
    const ln_param_entry *s = ln_op_param(op_arg, "start"), *e = ln_op_param(op_arg, "end");
    double a = s ? s->value_double : 0, b = e ? e->value_double : rank;

    a = a < 0 ? a + rank : a;
    b = b < 0 ? b + rank : b;
    *start = a < 0 ? 0 : a > rank ? rank : (int)a;
    *end = b < 0 ? 0 : b > rank ? rank : (int)b;
}

int ln_ophook_shape_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *src = ln_op_tensor_in(op_arg, "src")->tensor;
    int start, end;

    shape_range(op_arg, src->ndim, &start, &end);
    LN_OPCK(ln_opck(op_arg, end > start, "'start' %d and 'end' %d select no axis of 'src' "
                    "(rank %d): the result would be empty", start, end, src->ndim));
    *ndim = 1;
    dims[0] = end - start;
    return 0;
}

void ln_ophook_shape_fill(ln_tensor *dst, const ln_tensor *src, int start)
{
    assert(dst->data && dst->dtype == LN_DTYPE_INT64);
    start = start < 0 ? start + src->ndim : start;
    start = start < 0 ? 0 : start;
    for (size_t i = 0; i < dst->len; i++)
        ((int64_t *)dst->data)[i] = src->dims[(size_t)start + i];
}

void ln_ophook_size_fill(ln_tensor *dst, const ln_tensor *src)
{
    assert(dst->data && dst->dtype == LN_DTYPE_INT64 && dst->len == 1);
    ((int64_t *)dst->data)[0] = (int64_t)src->len;
}

/* v converts to dtype without undefined behavior: finite and inside an
 * integer dtype's range (float16 has no conversion here). */
int ln_ophook_value_fits(ln_dtype dtype, double v)
{
    double lo, hi;

    switch (dtype) {
    case LN_DTYPE_FLOAT32: case LN_DTYPE_FLOAT64: case LN_DTYPE_BOOL: return 1;
    case LN_DTYPE_INT8:   lo = INT8_MIN;  hi = INT8_MAX; break;
    case LN_DTYPE_INT16:  lo = INT16_MIN; hi = INT16_MAX; break;
    case LN_DTYPE_INT32:  lo = INT32_MIN; hi = INT32_MAX; break;
    case LN_DTYPE_INT64:  lo = -9223372036854775808.0; hi = 9223372036854774784.0; break;
    case LN_DTYPE_UINT8:  lo = 0; hi = UINT8_MAX; break;
    case LN_DTYPE_UINT16: lo = 0; hi = UINT16_MAX; break;
    case LN_DTYPE_UINT32: lo = 0; hi = UINT32_MAX; break;
    case LN_DTYPE_UINT64: lo = 0; hi = 18446744073709549568.0; break;
    default: return 0;
    }
    return v >= lo && v <= hi;          /* NaN fails */
}

/* element i of dst set to v, converted (v fits: checked before) */
static void put_value(ln_tensor *dst, size_t i, double v)
{
    switch (dst->dtype) {
    case LN_DTYPE_FLOAT32: ((float *)dst->data)[i] = (float)v; break;
    case LN_DTYPE_FLOAT64: ((double *)dst->data)[i] = v; break;
    case LN_DTYPE_INT8:    ((int8_t *)dst->data)[i] = (int8_t)v; break;
    case LN_DTYPE_INT16:   ((int16_t *)dst->data)[i] = (int16_t)v; break;
    case LN_DTYPE_INT32:   ((int32_t *)dst->data)[i] = (int32_t)v; break;
    case LN_DTYPE_INT64:   ((int64_t *)dst->data)[i] = (int64_t)v; break;
    case LN_DTYPE_UINT8:   ((uint8_t *)dst->data)[i] = (uint8_t)v; break;
    case LN_DTYPE_UINT16:  ((uint16_t *)dst->data)[i] = (uint16_t)v; break;
    case LN_DTYPE_UINT32:  ((uint32_t *)dst->data)[i] = (uint32_t)v; break;
    case LN_DTYPE_UINT64:  ((uint64_t *)dst->data)[i] = (uint64_t)v; break;
    case LN_DTYPE_BOOL:    ((uint8_t *)dst->data)[i] = v != 0; break;
    default: assert(!"no conversion for this dtype");     /* float16 */
    }
}

void ln_ophook_constant_fill(ln_tensor *dst, double value)
{
    for (size_t i = 0; i < dst->len; i++)
        put_value(dst, i, value);
}

/* Range: the element count, max(ceil((limit - start) / delta), 0); -1 when
 * it is not a count (delta 0, or too large for an int). */
double ln_ophook_range_count(double start, double limit, double delta)
{
    double n;

    if (delta == 0 || !isfinite(start) || !isfinite(limit) || !isfinite(delta))
        return -1;
    n = ceil((limit - start) / delta);
    return n < 0 ? 0 : n > INT32_MAX ? -1 : n;
}

/* float32 and float64 any values; int16, int32, int64 whole ones in range */
int ln_ophook_range_ok(ln_dtype dtype, double start, double limit, double delta)
{
    if (dtype == LN_DTYPE_FLOAT32 || dtype == LN_DTYPE_FLOAT64)
        return 1;
    return (dtype == LN_DTYPE_INT16 || dtype == LN_DTYPE_INT32 || dtype == LN_DTYPE_INT64) &&
           start == floor(start) && delta == floor(delta) && ln_ophook_value_fits(dtype, start) &&
           ln_ophook_value_fits(dtype, limit) && ln_ophook_value_fits(dtype, delta);
}

int ln_ophook_range_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    double start = ln_op_param(op_arg, "start")->value_double;
    double limit = ln_op_param(op_arg, "limit")->value_double;
    double delta = ln_op_param(op_arg, "delta")->value_double;
    double n = ln_ophook_range_count(start, limit, delta);

    LN_OPCK(ln_opck(op_arg, n >= 0, "'start' %g, 'limit' %g and 'delta' %g do not make a "
                    "count of elements (delta 0, not finite, or too many)", start, limit, delta));
    LN_OPCK(ln_opck(op_arg, n >= 1, "'start' %g, 'limit' %g and 'delta' %g make an empty "
                    "range (empty tensors are not supported)", start, limit, delta));
    *ndim = 1;
    dims[0] = (int)n;
    return 0;
}

/* start + i * delta in dst's dtype: exact in integers (the values are
 * whole numbers then: the importer gives an integer Range integer
 * params), in double for floats and converted once, as ONNX computes in
 * the input type. */
void ln_ophook_range_fill(ln_tensor *dst, double start, double delta)
{
    for (size_t i = 0; i < dst->len; i++) {
        if (dst->dtype == LN_DTYPE_FLOAT32) {
            /* float arithmetic, as onnxruntime accumulates in the type */
            ((float *)dst->data)[i] = (float)start + (float)i * (float)delta;
        } else if (dst->dtype == LN_DTYPE_FLOAT64) {
            ((double *)dst->data)[i] = start + (double)i * delta;
        } else {
            int64_t v = (int64_t)start + (int64_t)i * (int64_t)delta;
            put_value(dst, i, (double)v);
        }
    }
}
