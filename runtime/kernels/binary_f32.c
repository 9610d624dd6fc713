/*
 * binary_f32.c -- elementwise binary ops with numpy broadcasting, float32.
 *
 * The shapes are first reduced to a few "runs": adjacent axes are merged
 * when both operands step through them contiguously (or both stay put), so
 * same-shape operands become one flat loop and a per-channel bias becomes
 * [outer][C][HW] with a scalar inner run. The innermost run is a plain loop
 * with operand strides 0 or 1; outer axes are walked with a counter.
 * y may alias x0 or x1 when that operand has y's shape: every y[i] is
 * written after the inputs at the same position are read.  Mean, the one
 * n-ary op, takes count same-shape tensors.  And int8 add and mul with
 * TFLite's arithmetic, broadcasting the same way.
 */
#include <math.h>
#include "ln_rt_internal.h"

typedef struct {
    int nd;
    int32_t dims[LN_RT_MAX_DIMS];
    ptrdiff_t sa[LN_RT_MAX_DIMS], sb[LN_RT_MAX_DIMS];
} bc_plan;

/* Returns 0 when y is empty. */
static int bc_make(const ln_rt_bcast_args *a, bc_plan *p)
{
    ptrdiff_t sa = 1, sb = 1;
    ptrdiff_t as[LN_RT_MAX_DIMS], bs[LN_RT_MAX_DIMS];
    int d, nd = 0;

    for (d = a->ndim - 1; d >= 0; d--) {
        if (a->y_dims[d] == 0)
            return 0;
        as[d] = a->a_dims[d] == 1 ? 0 : sa;
        bs[d] = a->b_dims[d] == 1 ? 0 : sb;
        sa *= a->a_dims[d];
        sb *= a->b_dims[d];
    }
    /* merge from the innermost axis outwards; skip size-1 axes */
    for (d = a->ndim - 1; d >= 0; d--) {
        int32_t yd = a->y_dims[d];
        if (yd == 1)
            continue;
        if (nd > 0 && as[d] == p->sa[nd - 1] * p->dims[nd - 1] &&
            bs[d] == p->sb[nd - 1] * p->dims[nd - 1]) {
            p->dims[nd - 1] *= yd;
            continue;
        }
        p->dims[nd] = yd;
        p->sa[nd] = as[d];
        p->sb[nd] = bs[d];
        nd++;
    }
    if (nd == 0) {
        p->dims[0] = 1;
        p->sa[0] = p->sb[0] = 0;
        nd = 1;
    }
    p->nd = nd; /* p->dims[0] is the innermost run */
    return 1;
}

#define LN_RT_BINARY_T(FN, TI, TO, EXPR) LN_RT_BINARY_AB(FN, TI, TI, TO, , EXPR)
/* x0's elements (u) of type TI, x1's (v) of type TB; EXTRA: more parameters
 * after a (", const T *q"), for EXPR to use */
#define LN_RT_BINARY_AB(FN, TI, TB, TO, EXTRA, EXPR)                         \
void FN(const ln_rt_bcast_args *a EXTRA, const TI *x0, const TB *x1, TO *y)  \
{                                                                            \
    bc_plan p;                                                               \
    int32_t cnt[LN_RT_MAX_DIMS] = {0};                                       \
    int32_t i, len;                                                          \
    ptrdiff_t ia = 0, ib = 0;                                                \
    int d;                                                                   \
    if (!bc_make(a, &p))                                                     \
        return;                                                              \
    len = p.dims[0];                                                         \
    for (;;) {                                                               \
        const TI *pa = x0 + ia;                                              \
        const TB *pb = x1 + ib;                                              \
        if (p.sa[0] && p.sb[0]) {                                            \
            for (i = 0; i < len; i++) {                                      \
                TI u = pa[i];                                                \
                TB v = pb[i];                                                \
                y[i] = (EXPR);                                               \
            }                                                                \
        } else if (p.sa[0]) {                                                \
            TB v = pb[0];                                                    \
            for (i = 0; i < len; i++) {                                      \
                TI u = pa[i];                                                \
                y[i] = (EXPR);                                               \
            }                                                                \
        } else if (p.sb[0]) {                                                \
            TI u = pa[0];                                                    \
            for (i = 0; i < len; i++) {                                      \
                TB v = pb[i];                                                \
                y[i] = (EXPR);                                               \
            }                                                                \
        } else {                                                             \
            TI u = pa[0];                                                    \
            TB v = pb[0];                                                    \
            TO r = (EXPR);                                                   \
            for (i = 0; i < len; i++)                                        \
                y[i] = r;                                                    \
        }                                                                    \
        y += len;                                                            \
        for (d = 1; d < p.nd; d++) {                                         \
            ia += p.sa[d];                                                   \
            ib += p.sb[d];                                                   \
            if (++cnt[d] < p.dims[d])                                        \
                break;                                                       \
            ia -= p.sa[d] * p.dims[d];                                       \
            ib -= p.sb[d] * p.dims[d];                                       \
            cnt[d] = 0;                                                      \
        }                                                                    \
        if (d == p.nd)                                                       \
            return;                                                          \
    }                                                                        \
}

#define LN_RT_BINARY(NAME, EXPR) LN_RT_BINARY_T(ln_rt_##NAME##_f32, float, float, EXPR)

LN_RT_BINARY(add, u + v)
LN_RT_BINARY(sub, u - v)
LN_RT_BINARY(mul, u * v)
LN_RT_BINARY(div, u / v)
LN_RT_BINARY(min, u < v ? u : v)
LN_RT_BINARY(max, u > v ? u : v)
LN_RT_BINARY(prelu, u < 0.0f ? u * v : u)

/* int8 with TFLite's ADD and MUL arithmetic (ln_rt_s8_binary_args) */
static LN_RT_BINARY_AB(add_bcast_s8, int8_t, int8_t, int8_t, LN_RT_COMMA const ln_rt_s8_binary_args *q,
                      ln_rt__add_s8(q, u, v))

/* Same shapes (a residual connection): ln_rt_add_s8, which has the fast
 * paths of equal scales (elementwise_s8.c). */
void ln_rt_add_bcast_s8(const ln_rt_bcast_args *a, const ln_rt_s8_binary_args *q,
                        const int8_t *x0, const int8_t *x1, int8_t *y)
{
    size_t n = 1;

    for (int d = 0; d < a->ndim; d++) {
        if (a->a_dims[d] != a->y_dims[d] || a->b_dims[d] != a->y_dims[d]) {
            add_bcast_s8(a, q, x0, x1, y);
            return;
        }
        n *= (size_t)a->y_dims[d];
    }
    ln_rt_add_s8(q, x0, x1, y, n);
}
LN_RT_BINARY_AB(ln_rt_mul_bcast_s8, int8_t, int8_t, int8_t, LN_RT_COMMA const ln_rt_s8_binary_args *q,
               ln_rt__mul_s8(q, u, v))

/* Integer arithmetic, wrapping: computed in U, an unsigned type at least as
 * wide as int and as T (so that no promotion to int can overflow), and
 * converted back. Division truncates toward zero (ONNX Div: numpy's true
 * division cast back to the type); a divisor of 0 gives 0 (ONNX leaves it
 * undefined) and the most negative value divided by -1 wraps to itself. */
#define LN_RT_INT_ARITH(T, U, S)                                                 \
    LN_RT_BINARY_T(ln_rt_add_##S, T, T, (T)((U)u + (U)v))                        \
    LN_RT_BINARY_T(ln_rt_sub_##S, T, T, (T)((U)u - (U)v))                        \
    LN_RT_BINARY_T(ln_rt_mul_##S, T, T, (T)((U)u * (U)v))
#define LN_RT_INT_DIVMINMAX(T, S, DIV)                                           \
    LN_RT_BINARY_T(ln_rt_div_##S, T, T, DIV)                                     \
    LN_RT_BINARY_T(ln_rt_min_##S, T, T, u < v ? u : v)                           \
    LN_RT_BINARY_T(ln_rt_max_##S, T, T, u > v ? u : v)
#define LN_RT_SDIV(T, U) v == 0 ? (T)0 : v == -1 ? (T)(0u - (U)u) : (T)(u / v)
#define LN_RT_UDIV(T) v == 0 ? (T)0 : (T)(u / v)
/* int8 add and mul are TFLite's (quantized, elementwise_s8.c) */
LN_RT_INT_ARITH(int16_t, uint32_t, s16)
LN_RT_INT_ARITH(int32_t, uint32_t, s32)
LN_RT_INT_ARITH(int64_t, uint64_t, s64)
LN_RT_INT_ARITH(uint8_t, uint32_t, u8)
LN_RT_INT_ARITH(uint16_t, uint32_t, u16)
LN_RT_INT_ARITH(uint32_t, uint32_t, u32)
LN_RT_INT_ARITH(uint64_t, uint64_t, u64)
LN_RT_INT_DIVMINMAX(int8_t, s8, LN_RT_SDIV(int8_t, uint32_t))
LN_RT_INT_DIVMINMAX(int16_t, s16, LN_RT_SDIV(int16_t, uint32_t))
LN_RT_INT_DIVMINMAX(int32_t, s32, LN_RT_SDIV(int32_t, uint32_t))
LN_RT_INT_DIVMINMAX(int64_t, s64, LN_RT_SDIV(int64_t, uint64_t))
LN_RT_INT_DIVMINMAX(uint8_t, u8, LN_RT_UDIV(uint8_t))
LN_RT_INT_DIVMINMAX(uint16_t, u16, LN_RT_UDIV(uint16_t))
LN_RT_INT_DIVMINMAX(uint32_t, u32, LN_RT_UDIV(uint32_t))
LN_RT_INT_DIVMINMAX(uint64_t, u64, LN_RT_UDIV(uint64_t))

/* float64 as float32 does, in double */
LN_RT_BINARY_T(ln_rt_add_f64, double, double, u + v)
LN_RT_BINARY_T(ln_rt_sub_f64, double, double, u - v)
LN_RT_BINARY_T(ln_rt_mul_f64, double, double, u * v)
LN_RT_BINARY_T(ln_rt_div_f64, double, double, u / v)
LN_RT_BINARY_T(ln_rt_min_f64, double, double, u < v ? u : v)
LN_RT_BINARY_T(ln_rt_max_f64, double, double, u > v ? u : v)

/* float16 (binary16 bits): min and max pick one operand, compared as float */
LN_RT_BINARY_T(ln_rt_min_f16, uint16_t, uint16_t,
               ln_rt__f16_to_f32(u) < ln_rt__f16_to_f32(v) ? u : v)
LN_RT_BINARY_T(ln_rt_max_f16, uint16_t, uint16_t,
               ln_rt__f16_to_f32(u) > ln_rt__f16_to_f32(v) ? u : v)

/* ONNX Pow: the result has the base's type. A float base: pow in double
 * (powf for float32 ^ float32). An integer base: an integer exponent is
 * exact repeated multiplication, wrapping; a negative one gives the
 * truncated 1 / u^|v| (1 for u = 1, +-1 for u = -1, else 0, also for 0);
 * a float exponent is pow in double truncated toward zero and saturated at
 * the type's limits (NaN gives 0). */
static uint64_t ipow_u64(uint64_t b, uint64_t e)
{
    uint64_t r = 1;
    while (e) {
        if (e & 1u)
            r *= b;
        b *= b;
        e >>= 1;
    }
    return r;
}

static uint64_t ipow_signed(int64_t b, int64_t e)
{
    if (e >= 0)
        return ipow_u64((uint64_t)b, (uint64_t)e);
    if (b == 1)
        return 1;
    if (b == -1)
        return (e & 1) ? UINT64_MAX : 1u;   /* -1 as the unsigned pattern */
    return 0;
}

static int64_t sat_s64(double d, double lo, double hi)
{
    if (d != d)
        return 0;
    if (d <= lo)
        return (int64_t)lo;
    if (d >= hi)        /* 2^63 (int64's hi as a double) is out of range */
        return hi >= 9223372036854775807.0 ? INT64_MAX : (int64_t)hi;
    return (int64_t)d;
}

#define LN_RT_POW_FLOAT(T, S)                                                    \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_f64, T, double, T, , (T)pow(u, v))          \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_s32, T, int32_t, T, , (T)pow(u, (double)v))  \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_s64, T, int64_t, T, , (T)pow(u, (double)v))  \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_u32, T, uint32_t, T, , (T)pow(u, (double)v)) \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_u64, T, uint64_t, T, , (T)pow(u, (double)v))
LN_RT_BINARY_AB(ln_rt_pow_f32_f32, float, float, float, , powf(u, v))
LN_RT_POW_FLOAT(float, f32)
LN_RT_BINARY_AB(ln_rt_pow_f64_f32, double, float, double, , pow(u, (double)v))
LN_RT_POW_FLOAT(double, f64)

#define LN_RT_POW_INT(T, S, LO, HI)                                              \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_s32, T, int32_t, T, , (T)ipow_signed(u, v))  \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_s64, T, int64_t, T, , (T)ipow_signed(u, v))  \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_u32, T, uint32_t, T, , (T)ipow_u64((uint64_t)u, (uint64_t)v)) \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_u64, T, uint64_t, T, , (T)ipow_u64((uint64_t)u, (uint64_t)v)) \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_f32, T, float, T, ,                          \
                    (T)sat_s64(pow((double)u, (double)v), LO, HI))                \
    LN_RT_BINARY_AB(ln_rt_pow_##S##_f64, T, double, T, ,                         \
                    (T)sat_s64(pow((double)u, v), LO, HI))
LN_RT_POW_INT(int32_t, s32, -2147483648.0, 2147483647.0)
LN_RT_POW_INT(int64_t, s64, -9223372036854775808.0, 9223372036854775807.0)

/* comparisons: bool (uint8 0/1) out */
#define LN_RT_COMPARE(T, S)                                                      \
    LN_RT_BINARY_T(ln_rt_equal_##S, T, uint8_t, (uint8_t)(u == v))               \
    LN_RT_BINARY_T(ln_rt_greater_##S, T, uint8_t, (uint8_t)(u > v))              \
    LN_RT_BINARY_T(ln_rt_less_##S, T, uint8_t, (uint8_t)(u < v))                 \
    LN_RT_BINARY_T(ln_rt_greater_or_equal_##S, T, uint8_t, (uint8_t)(u >= v))    \
    LN_RT_BINARY_T(ln_rt_less_or_equal_##S, T, uint8_t, (uint8_t)(u <= v))
LN_RT_COMPARE(float, f32)
LN_RT_COMPARE(int32_t, s32)
LN_RT_COMPARE(int64_t, s64)
LN_RT_BINARY_T(ln_rt_equal_b8, uint8_t, uint8_t, (uint8_t)(u == v))

/* logic on bool */
LN_RT_BINARY_T(ln_rt_and_b8, uint8_t, uint8_t, (uint8_t)(u && v))
LN_RT_BINARY_T(ln_rt_or_b8, uint8_t, uint8_t, (uint8_t)(u || v))
LN_RT_BINARY_T(ln_rt_xor_b8, uint8_t, uint8_t, (uint8_t)(!u != !v))

/* integer negation and absolute value wrap (MIN stays MIN), as two's
 * complement hardware and onnxruntime do */
#define LN_RT_INT_UNARY(T, U, S)                                                 \
    void ln_rt_neg_##S(const T *x, T *y, size_t n)                               \
    {                                                                            \
        for (size_t i = 0; i < n; i++)                                           \
            y[i] = (T)(0 - (U)x[i]);                                             \
    }                                                                            \
    void ln_rt_abs_##S(const T *x, T *y, size_t n)                               \
    {                                                                            \
        for (size_t i = 0; i < n; i++)                                           \
            y[i] = x[i] < 0 ? (T)(0 - (U)x[i]) : x[i];                           \
    }
LN_RT_INT_UNARY(int32_t, uint32_t, s32)
LN_RT_INT_UNARY(int64_t, uint64_t, s64)

void ln_rt_not_b8(const uint8_t *x, uint8_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = (uint8_t)!x[i];
}

/* y = the mean of count tensors of n elements each (ONNX Mean, equal shapes) */
void ln_rt_mean_f32(const void *const *x, size_t count, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float s = 0.0f;
        for (size_t k = 0; k < count; k++)
            s += ((const float *)x[k])[i];
        y[i] = s / (float)count;
    }
}

/* ONNX Mod: fmod 0 gives the divisor's sign (Python's %), fmod 1 the
 * dividend's (C's % and fmodf); a zero divisor gives 0 (ONNX leaves it
 * undefined), and so does -1 (x % -1 is 0, and INT_MIN % -1 would trap).
 * Unsigned types have one sign: both modes are C's %. */
#define LN_RT_MOD_INT(T, S)                                                      \
    static T pymod_##S(T u, T v)                                                 \
    {                                                                            \
        T r;                                                                     \
        if (v == 0 || v == -1)                                                   \
            return 0;                                                            \
        r = (T)(u % v);                                                          \
        return r != 0 && ((r < 0) != (v < 0)) ? (T)(r + v) : r;                  \
    }                                                                            \
    static LN_RT_BINARY_T(mod_##S, T, T, pymod_##S(u, v))                        \
    static LN_RT_BINARY_T(fmod_##S, T, T, v == 0 || v == -1 ? (T)0 : (T)(u % v)) \
    void ln_rt_mod_##S(const ln_rt_bcast_args *a, int32_t fmod, const T *x0,      \
                       const T *x1, T *y)                                        \
    {                                                                            \
        if (fmod)                                                                \
            fmod_##S(a, x0, x1, y);                                              \
        else                                                                     \
            mod_##S(a, x0, x1, y);                                               \
    }
LN_RT_MOD_INT(int8_t, s8)
LN_RT_MOD_INT(int16_t, s16)
LN_RT_MOD_INT(int32_t, s32)
LN_RT_MOD_INT(int64_t, s64)

#define LN_RT_MOD_UINT(T, S)                                                     \
    static LN_RT_BINARY_T(umod_##S, T, T, v == 0 ? (T)0 : (T)(u % v))            \
    void ln_rt_mod_##S(const ln_rt_bcast_args *a, int32_t fmod, const T *x0,      \
                       const T *x1, T *y)                                        \
    {                                                                            \
        (void)fmod;                                                              \
        umod_##S(a, x0, x1, y);                                                  \
    }
LN_RT_MOD_UINT(uint8_t, u8)
LN_RT_MOD_UINT(uint16_t, u16)
LN_RT_MOD_UINT(uint32_t, u32)
LN_RT_MOD_UINT(uint64_t, u64)

/* float Mod is fmod (the op's check) */
static LN_RT_BINARY_T(fmod_f32, float, float, fmodf(u, v))
static LN_RT_BINARY_T(fmod_f64, double, double, fmod(u, v))
/* exact in float, so exact once rounded back */
static LN_RT_BINARY_T(fmod_f16, uint16_t, uint16_t,
                      ln_rt__f32_to_f16(fmodf(ln_rt__f16_to_f32(u), ln_rt__f16_to_f32(v))))

void ln_rt_mod_f32(const ln_rt_bcast_args *a, int32_t fmod, const float *x0, const float *x1,
                   float *y)
{
    (void)fmod;
    fmod_f32(a, x0, x1, y);
}

void ln_rt_mod_f64(const ln_rt_bcast_args *a, int32_t fmod, const double *x0, const double *x1,
                   double *y)
{
    (void)fmod;
    fmod_f64(a, x0, x1, y);
}

void ln_rt_mod_f16(const ln_rt_bcast_args *a, int32_t fmod, const uint16_t *x0,
                   const uint16_t *x1, uint16_t *y)
{
    (void)fmod;
    fmod_f16(a, x0, x1, y);
}

/* ONNX BitShift on unsigned integers: right != 0 shifts right; a shift by
 * the width or more gives 0 (C leaves it undefined, ONNX does not say) */
#define LN_RT_BITSHIFT(T, S, BITS)                                                \
    static LN_RT_BINARY_T(shl_##S, T, T, v >= BITS ? (T)0 : (T)(u << v))         \
    static LN_RT_BINARY_T(shr_##S, T, T, v >= BITS ? (T)0 : (T)(u >> v))         \
    void ln_rt_bitshift_##S(const ln_rt_bcast_args *a, int right, const T *x0,    \
                            const T *x1, T *y)                                    \
    {                                                                             \
        if (right)                                                                \
            shr_##S(a, x0, x1, y);                                                \
        else                                                                      \
            shl_##S(a, x0, x1, y);                                                \
    }
LN_RT_BITSHIFT(uint8_t, u8, 8u)
LN_RT_BITSHIFT(uint16_t, u16, 16u)
LN_RT_BITSHIFT(uint32_t, u32, 32u)
LN_RT_BITSHIFT(uint64_t, u64, 64u)
