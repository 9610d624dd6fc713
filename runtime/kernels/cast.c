/*
 * cast.c -- ln_rt_cast: one kernel for every pair of element types, so an
 * op's emitted code is a single call whatever the dtypes (the type-pair
 * kernels ln_rt_cast_f32_i32 ... in movement.c stay for direct callers).
 * Each element goes through double (floats) or a 64-bit integer (ints),
 * which is exact for every source type but int64/uint64 (rounded to
 * double first, so int64 -> float32 and float64 -> float16 may round
 * twice: off by one unit in the last place in rare ties). float16 is
 * converted bit by bit with round-to-nearest-even.
 */
#include <math.h>
#include <string.h>
#include "ln_rt_internal.h"

/* float -> IEEE binary16, round to nearest even */
uint16_t ln_rt__f32_to_f16(float f)
{
    uint32_t x, ax, sign, h, rem;

    memcpy(&x, &f, 4);
    sign = (x >> 16) & 0x8000u;
    ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u)
        return (uint16_t)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));   /* NaN, quiet */
    if (ax >= 0x47800000u)
        return (uint16_t)(sign | 0x7c00u);          /* >= 2^16 or inf: inf */
    if (ax < 0x38800000u) {                         /* < 2^-14: subnormal or 0 */
        float v;
        memcpy(&v, &ax, 4);
        return (uint16_t)(sign | (uint32_t)rintf(v * 16777216.0f));   /* units of 2^-24 */
    }
    h = ((((ax >> 23) - 127u + 15u)) << 10) | ((ax & 0x7fffffu) >> 13);
    rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++;                                        /* a carry may make it inf */
    return (uint16_t)(sign | h);
}

float ln_rt__f16_to_f32(uint16_t h)
{
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    float f;

    if (e == 0) {
        f = (float)m * 5.9604644775390625e-8f;      /* m * 2^-24 */
        return sign ? -f : f;
    }
    x = sign | (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
    memcpy(&f, &x, 4);
    return f;
}

static int is_float(ln_rt_dtype t)
{
    return t == LN_RT_FLOAT32 || t == LN_RT_FLOAT64 || t == LN_RT_FLOAT16;
}

/* element i of x as a double (float types) or a 64-bit integer pattern */
static double load_f(ln_rt_dtype t, const void *x, size_t i)
{
    switch (t) {
    case LN_RT_FLOAT32: return ((const float *)x)[i];
    case LN_RT_FLOAT64: return ((const double *)x)[i];
    default: return ln_rt__f16_to_f32(((const uint16_t *)x)[i]);
    }
}

static uint64_t load_i(ln_rt_dtype t, const void *x, size_t i, int *is_signed)
{
    *is_signed = 1;
    switch (t) {
    case LN_RT_INT8: return (uint64_t)(int64_t)((const int8_t *)x)[i];
    case LN_RT_INT16: return (uint64_t)(int64_t)((const int16_t *)x)[i];
    case LN_RT_INT32: return (uint64_t)(int64_t)((const int32_t *)x)[i];
    case LN_RT_INT64: return (uint64_t)((const int64_t *)x)[i];
    default: break;
    }
    *is_signed = 0;
    switch (t) {
    case LN_RT_UINT8: return ((const uint8_t *)x)[i];
    case LN_RT_UINT16: return ((const uint16_t *)x)[i];
    case LN_RT_UINT32: return ((const uint32_t *)x)[i];
    case LN_RT_BOOL: return ((const uint8_t *)x)[i] != 0;
    default: return ((const uint64_t *)x)[i];
    }
}

/* double -> integer type t, truncated and saturated; the result's bits */
static uint64_t f_to_i(ln_rt_dtype t, double d)
{
    static const double lo[] = {-128.0, -32768.0, -2147483648.0, -9223372036854775808.0};
    static const double hi[] = {127.0, 32767.0, 2147483647.0, 9223372036854775807.0};
    static const double uhi[] = {255.0, 65535.0, 4294967295.0, 18446744073709551615.0};
    int k;

    if (d != d)
        return 0;
    d = d < 0 ? ceil(d) : floor(d);
    switch (t) {
    case LN_RT_INT8: case LN_RT_INT16: case LN_RT_INT32: case LN_RT_INT64:
        k = t == LN_RT_INT8 ? 0 : t == LN_RT_INT16 ? 1 : t == LN_RT_INT32 ? 2 : 3;
        if (d <= lo[k])
            return (uint64_t)(int64_t)lo[k];
        if (d >= hi[k])   /* 2^63 - 1 is not a double: hi[3] is 2^63 */
            return k == 3 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)hi[k];
        return (uint64_t)(int64_t)d;
    default:
        k = t == LN_RT_UINT8 ? 0 : t == LN_RT_UINT16 ? 1 : t == LN_RT_UINT32 ? 2 : 3;
        if (d <= 0)
            return 0;
        if (d >= uhi[k])
            return k == 3 ? UINT64_MAX : (uint64_t)uhi[k];
        return (uint64_t)d;
    }
}

static void store_f(ln_rt_dtype t, void *y, size_t i, double d)
{
    switch (t) {
    case LN_RT_FLOAT32: ((float *)y)[i] = (float)d; break;
    case LN_RT_FLOAT64: ((double *)y)[i] = d; break;
    default: ((uint16_t *)y)[i] = ln_rt__f32_to_f16((float)d); break;
    }
}

static void store_i(ln_rt_dtype t, void *y, size_t i, uint64_t v)
{
    switch (t) {
    case LN_RT_INT8: ((int8_t *)y)[i] = (int8_t)(uint8_t)v; break;
    case LN_RT_INT16: ((int16_t *)y)[i] = (int16_t)(uint16_t)v; break;
    case LN_RT_INT32: ((int32_t *)y)[i] = (int32_t)(uint32_t)v; break;
    case LN_RT_INT64: ((int64_t *)y)[i] = (int64_t)v; break;
    case LN_RT_UINT8: ((uint8_t *)y)[i] = (uint8_t)v; break;
    case LN_RT_UINT16: ((uint16_t *)y)[i] = (uint16_t)v; break;
    case LN_RT_UINT32: ((uint32_t *)y)[i] = (uint32_t)v; break;
    default: ((uint64_t *)y)[i] = v; break;
    }
}

int ln_rt_cast(ln_rt_dtype from, const void *x, ln_rt_dtype to, void *y, size_t n)
{
    size_t i;

    if ((unsigned)from > LN_RT_BOOL || (unsigned)to > LN_RT_BOOL)
        return LN_RT_ARG_ERROR;
    for (i = 0; i < n; i++) {
        if (is_float(from)) {
            double d = load_f(from, x, i);
            if (to == LN_RT_BOOL)
                ((uint8_t *)y)[i] = d != 0;
            else if (is_float(to))
                store_f(to, y, i, d);
            else
                store_i(to, y, i, f_to_i(to, d));
        } else {
            int sg;
            uint64_t v = load_i(from, x, i, &sg);
            if (to == LN_RT_BOOL)
                ((uint8_t *)y)[i] = v != 0;
            else if (is_float(to))
                store_f(to, y, i, sg ? (double)(int64_t)v : (double)v);
            else
                store_i(to, y, i, v);
        }
    }
    return LN_RT_OK;
}
