/*
 * ln_ophook_create.c -- create's static_run: the inline data of the
 * description (numbers, kept as double by the params) converted into the
 * tensor's dtype.  The context has allocated dst->data already.
 */
#include <assert.h>
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
