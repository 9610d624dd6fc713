/*
 * ln_ophook_create.c -- create's static_run: the inline data of the
 * description (numbers, kept as double by the params) converted into the
 * tensor's dtype.  The context has allocated dst->data already.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include "ln_ophook.h"

void ln_ophook_create_fill(ln_tensor *dst, const double *data, int n)
{
    assert(dst->data && (size_t)n == dst->len);
    for (int i = 0; i < n; i++) {
        double v = data[i];

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
        default:
            assert(!"create: dtype without a conversion");   /* float16 */
        }
    }
}

/* Whether every inline value converts to dtype without undefined behavior
 * (an integer dtype takes only finite values inside its range) and dtype
 * has a conversion at all (float16 inline data has none). */
int ln_ophook_create_data_ok(const ln_op_arg *op_arg, ln_dtype dtype)
{
    const ln_param_entry *pe = ln_op_param(op_arg, "data");
    double lo, hi;

    if (!pe || pe->type != LN_PARAM_ARRAY_NUMBER || !pe->array_len)
        return 1;
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
    for (int i = 0; i < pe->array_len; i++) {
        double v = pe->value_array_double[i];
        if (!(v >= lo && v <= hi))      /* NaN too */
            return 0;
    }
    return 1;
}
