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

#define LN_RT_BINARY_T(FN, TI, TO, EXPR) LN_RT_BINARY_X(FN, TI, TO, , EXPR)
/* EXTRA: more parameters after a (", const T *q"), for EXPR to use */
#define LN_RT_BINARY_X(FN, TI, TO, EXTRA, EXPR)                              \
void FN(const ln_rt_bcast_args *a EXTRA, const TI *x0, const TI *x1, TO *y)  \
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
        const TI *pa = x0 + ia, *pb = x1 + ib;                               \
        if (p.sa[0] && p.sb[0]) {                                            \
            for (i = 0; i < len; i++) {                                      \
                TI u = pa[i], v = pb[i];                                     \
                y[i] = (EXPR);                                               \
            }                                                                \
        } else if (p.sa[0]) {                                                \
            TI v = pb[0];                                                    \
            for (i = 0; i < len; i++) {                                      \
                TI u = pa[i];                                                \
                y[i] = (EXPR);                                               \
            }                                                                \
        } else if (p.sb[0]) {                                                \
            TI u = pa[0];                                                    \
            for (i = 0; i < len; i++) {                                      \
                TI v = pb[i];                                                \
                y[i] = (EXPR);                                               \
            }                                                                \
        } else {                                                             \
            TI u = pa[0], v = pb[0];                                         \
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
LN_RT_BINARY(pow, powf(u, v))
LN_RT_BINARY(prelu, u < 0.0f ? u * v : u)

/* int8 with TFLite's ADD and MUL arithmetic (ln_rt_s8_binary_args) */
LN_RT_BINARY_X(ln_rt_add_bcast_s8, int8_t, int8_t, LN_RT_COMMA const ln_rt_s8_binary_args *q,
               ln_rt__add_s8(q, u, v))
LN_RT_BINARY_X(ln_rt_mul_bcast_s8, int8_t, int8_t, LN_RT_COMMA const ln_rt_s8_binary_args *q,
               ln_rt__mul_s8(q, u, v))

/* integer arithmetic (wrapping as the unsigned types do: no UB) */
#define LN_RT_INT_ARITH(T, U, S)                                                 \
    LN_RT_BINARY_T(ln_rt_add_##S, T, T, (T)((U)u + (U)v))                        \
    LN_RT_BINARY_T(ln_rt_sub_##S, T, T, (T)((U)u - (U)v))                        \
    LN_RT_BINARY_T(ln_rt_mul_##S, T, T, (T)((U)u * (U)v))                        \
    LN_RT_BINARY_T(ln_rt_min_##S, T, T, u < v ? u : v)                           \
    LN_RT_BINARY_T(ln_rt_max_##S, T, T, u > v ? u : v)
LN_RT_INT_ARITH(int32_t, uint32_t, s32)
LN_RT_INT_ARITH(int64_t, uint64_t, s64)

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
 * undefined), and so does -1 (x % -1 is 0, and INT_MIN % -1 would trap). */
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
LN_RT_MOD_INT(int32_t, s32)
LN_RT_MOD_INT(int64_t, s64)

static LN_RT_BINARY_T(fmod_f32, float, float, fmodf(u, v))

void ln_rt_mod_f32(const ln_rt_bcast_args *a, int32_t fmod, const float *x0, const float *x1,
                   float *y)
{
    (void)fmod;     /* the op's check: float Mod is fmod */
    fmod_f32(a, x0, x1, y);
}
