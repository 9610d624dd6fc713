/*
 * test_rt_dtypes.c -- the elementwise kernels of the integer, float64 and
 * float16 types (binary_f32.c's typed macros) against a per-type reference
 * written out here: random operands that include each type's extremes, 0,
 * 1 and -1, over a broadcast shape and a same-shape one, so wrapping, sign
 * and division-by-zero cases are all hit.  Wrapping is checked against
 * arithmetic in a wider type (int64, or exact for 64-bit types through the
 * two's complement identity spelled out per case).
 */
#include "rt_test.h"

/* a broadcast [3, 1, 5] op [1, 4, 5] and a flat 61 */
typedef struct {
    int nd;
    int32_t ad[3], bd[3];
} dt_case;

static const dt_case dcases[] = {
    { 3, { 3, 1, 5 }, { 1, 4, 5 } },
    { 1, { 61 }, { 61 } },
    { 2, { 7, 1 }, { 1, 1 } },
};

static size_t dt_args(const dt_case *c, ln_rt_bcast_args *a, size_t *na, size_t *nb)
{
    size_t ny = 1;
    int d;
    memset(a, 0, sizeof(*a));
    a->ndim = c->nd;
    *na = *nb = 1;
    for (d = 0; d < c->nd; d++) {
        a->a_dims[d] = c->ad[d];
        a->b_dims[d] = c->bd[d];
        a->y_dims[d] = c->ad[d] > c->bd[d] ? c->ad[d] : c->bd[d];
        *na *= (size_t)c->ad[d];
        *nb *= (size_t)c->bd[d];
        ny *= (size_t)a->y_dims[d];
    }
    return ny;
}

/* the operand indices of output i */
static void dt_index(const dt_case *c, const ln_rt_bcast_args *a, size_t i, size_t *ia,
                     size_t *ib)
{
    size_t rem = i, sa = 1, sb = 1;
    int d;
    *ia = *ib = 0;
    for (d = c->nd - 1; d >= 0; d--) {
        size_t idx = rem % (size_t)a->y_dims[d];
        rem /= (size_t)a->y_dims[d];
        *ia += (c->ad[d] == 1 ? 0 : idx) * sa;
        *ib += (c->bd[d] == 1 ? 0 : idx) * sb;
        sa *= (size_t)c->ad[d];
        sb *= (size_t)c->bd[d];
    }
}

/* a 64-bit pattern: one of the special values or random bits */
static uint64_t dt_bits(uint32_t *s)
{
    static const uint64_t special[] = { 0, 1, UINT64_MAX /* -1 */, 2, 3, 7 };
    uint32_t r = rt_rand(s);
    if (r % 4 == 0)
        return special[(r >> 4) % 6];
    return ((uint64_t)rt_rand(s) << 40) ^ ((uint64_t)rt_rand(s) << 16) ^ rt_rand(s);
}

/* the reference of op on operands widened to int64 (signed types) or
 * uint64 (unsigned), reduced to bits wide, two's complement */
static int64_t wrap_s(int64_t v, int bits)
{
    uint64_t m = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    uint64_t u = (uint64_t)v & m, sign = (uint64_t)1 << (bits - 1);
    return (u & sign) ? (int64_t)(u | ~m) : (int64_t)u;
}

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MIN, OP_MAX, OP_MOD, OP_FMOD };

static int64_t ref_s(int op, int64_t u, int64_t v, int bits)
{
    int64_t r;
    int64_t mn = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    switch (op) {
    case OP_ADD: return wrap_s((int64_t)((uint64_t)u + (uint64_t)v), bits);
    case OP_SUB: return wrap_s((int64_t)((uint64_t)u - (uint64_t)v), bits);
    case OP_MUL: return wrap_s((int64_t)((uint64_t)u * (uint64_t)v), bits);
    case OP_DIV:
        if (v == 0)
            return 0;
        if (u == mn && v == -1)
            return mn;                      /* -MIN wraps to MIN */
        return u / v;
    case OP_MIN: return u < v ? u : v;
    case OP_MAX: return u > v ? u : v;
    case OP_FMOD:
        return v == 0 || v == -1 ? 0 : u % v;
    default:                                /* Python's %: the divisor's sign */
        if (v == 0 || v == -1)
            return 0;
        r = u % v;
        if (r != 0 && ((r < 0) != (v < 0)))
            r += v;
        return r;
    }
}

static uint64_t ref_u(int op, uint64_t u, uint64_t v, int bits)
{
    uint64_t m = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    switch (op) {
    case OP_ADD: return (u + v) & m;
    case OP_SUB: return (u - v) & m;
    case OP_MUL: return (u * v) & m;
    case OP_DIV: return v == 0 ? 0 : u / v;
    case OP_MIN: return u < v ? u : v;
    case OP_MAX: return u > v ? u : v;
    default: return v == 0 ? 0 : u % v;     /* both Mod modes */
    }
}

typedef void (*dt_fn)(const ln_rt_bcast_args *, const void *, const void *, void *);

/* one kernel of type T (bits wide, signed or not) against the reference */
#define DT_CHECK(T, BITS, SIGNED)                                                       \
static void check_##T(int op, const char *name, dt_fn f, int fmod_arg,                  \
                      void (*fm)(const ln_rt_bcast_args *, int32_t, const T *,          \
                                 const T *, T *))                                        \
{                                                                                       \
    size_t k;                                                                           \
    for (k = 0; k < sizeof(dcases) / sizeof(dcases[0]); k++) {                          \
        const dt_case *c = &dcases[k];                                                  \
        ln_rt_bcast_args a;                                                             \
        size_t na, nb, ny = dt_args(c, &a, &na, &nb), i;                                \
        T x0[64], x1[64], y[64];                                                        \
        uint32_t s = (uint32_t)(BITS * 131 + op * 7 + (int)k);                          \
        for (i = 0; i < na; i++)                                                        \
            x0[i] = (T)dt_bits(&s);                                                     \
        for (i = 0; i < nb; i++)                                                        \
            x1[i] = (T)dt_bits(&s);                                                     \
        x0[0] = (T)(SIGNED ? ((uint64_t)1 << (BITS - 1)) : ~(uint64_t)0); /* extreme */  \
        x1[0] = (T)(SIGNED ? ~(uint64_t)0 : 0);      /* -1 (MIN / -1) or 0 */            \
        if (fm)                                                                         \
            fm(&a, fmod_arg, x0, x1, y);                                                \
        else                                                                            \
            f(&a, x0, x1, y);                                                           \
        for (i = 0; i < ny; i++) {                                                      \
            size_t ia, ib;                                                              \
            int64_t want, got;                                                          \
            dt_index(c, &a, i, &ia, &ib);                                               \
            want = SIGNED ? ref_s(op, (int64_t)x0[ia], (int64_t)x1[ib], BITS)           \
                          : (int64_t)ref_u(op, (uint64_t)x0[ia], (uint64_t)x1[ib], BITS); \
            got = SIGNED ? (int64_t)y[i] : (int64_t)(uint64_t)y[i];                     \
            ck_assert_msg(want == got, "%s %s case %zu [%zu]: %lld op %lld = %lld, want %lld", \
                          name, #T, k, i, (long long)x0[ia], (long long)x1[ib],         \
                          (long long)got, (long long)want);                             \
        }                                                                               \
    }                                                                                   \
}
DT_CHECK(int8_t, 8, 1)
DT_CHECK(int16_t, 16, 1)
DT_CHECK(int32_t, 32, 1)
DT_CHECK(int64_t, 64, 1)
DT_CHECK(uint8_t, 8, 0)
DT_CHECK(uint16_t, 16, 0)
DT_CHECK(uint32_t, 32, 0)
DT_CHECK(uint64_t, 64, 0)

/* calling through a cast function pointer of another type is not
 * portable: each kernel is wrapped in a function of the common type */
#define DT_WRAP(OP, T, S)                                                             \
    static void w_##OP##_##S(const ln_rt_bcast_args *a, const void *x0,               \
                             const void *x1, void *y)                                 \
    {                                                                                 \
        ln_rt_##OP##_##S(a, (const T *)x0, (const T *)x1, (T *)y);                    \
    }
#define DT_WRAPS(T, S)                                                                \
    DT_WRAP(add, T, S) DT_WRAP(sub, T, S) DT_WRAP(mul, T, S)                          \
    DT_WRAP(div, T, S) DT_WRAP(min, T, S) DT_WRAP(max, T, S)
DT_WRAP(div, int8_t, s8)
DT_WRAP(min, int8_t, s8)
DT_WRAP(max, int8_t, s8)
DT_WRAPS(int16_t, s16)
DT_WRAPS(int32_t, s32)
DT_WRAPS(int64_t, s64)
DT_WRAPS(uint8_t, u8)
DT_WRAPS(uint16_t, u16)
DT_WRAPS(uint32_t, u32)
DT_WRAPS(uint64_t, u64)
#define DT_ALLW(T, S, ARITH)                                                          \
    if (ARITH) {                                                                      \
        check_##T(OP_ADD, "add", w_add_##S, 0, NULL);                                 \
        check_##T(OP_SUB, "sub", w_sub_##S, 0, NULL);                                 \
        check_##T(OP_MUL, "mul", w_mul_##S, 0, NULL);                                 \
    }                                                                                 \
    check_##T(OP_DIV, "div", w_div_##S, 0, NULL);                                     \
    check_##T(OP_MIN, "min", w_min_##S, 0, NULL);                                     \
    check_##T(OP_MAX, "max", w_max_##S, 0, NULL);                                     \
    check_##T(OP_MOD, "mod", NULL, 0, ln_rt_mod_##S);                                 \
    check_##T(OP_FMOD, "fmod", NULL, 1, ln_rt_mod_##S);

START_TEST(test_int_binary)
{
    check_int8_t(OP_DIV, "div", w_div_s8, 0, NULL);
    check_int8_t(OP_MIN, "min", w_min_s8, 0, NULL);
    check_int8_t(OP_MAX, "max", w_max_s8, 0, NULL);
    check_int8_t(OP_MOD, "mod", NULL, 0, ln_rt_mod_s8);
    check_int8_t(OP_FMOD, "fmod", NULL, 1, ln_rt_mod_s8);
    DT_ALLW(int16_t, s16, 1)
    DT_ALLW(int32_t, s32, 1)
    DT_ALLW(int64_t, s64, 1)
    DT_ALLW(uint8_t, u8, 1)
    DT_ALLW(uint16_t, u16, 1)
    DT_ALLW(uint32_t, u32, 1)
    DT_ALLW(uint64_t, u64, 1)
}
END_TEST

/* the hand cases the wrapping must give (independent of the reference) */
START_TEST(test_int_wrap_cases)
{
    ln_rt_bcast_args a;
    int8_t s8a[2] = { -128, 100 }, s8b[2] = { -1, 0 }, s8y[2];
    uint8_t u8a[2] = { 250, 3 }, u8b[2] = { 10, 5 }, u8y[2];
    uint16_t u16a[1] = { 65535 }, u16y[1];
    int32_t s32a[2] = { -7, 7 }, s32b[2] = { 2, -2 }, s32y[2];

    memset(&a, 0, sizeof(a));
    a.ndim = 1;
    a.a_dims[0] = a.b_dims[0] = a.y_dims[0] = 2;
    ln_rt_div_s8(&a, s8a, s8b, s8y);
    ck_assert_int_eq(s8y[0], -128);          /* -128 / -1 wraps */
    ck_assert_int_eq(s8y[1], 0);             /* x / 0 is 0 */
    ln_rt_add_u8(&a, u8a, u8b, u8y);
    ck_assert_int_eq(u8y[0], 4);             /* 260 mod 256 */
    ln_rt_sub_u8(&a, u8b, u8a, u8y);
    ck_assert_int_eq(u8y[0], 16);            /* 10 - 250 + 256 */
    ck_assert_int_eq(u8y[1], 2);
    ln_rt_mod_s32(&a, 0, s32a, s32b, s32y);
    ck_assert_int_eq(s32y[0], 1);            /* -7 mod 2, Python's */
    ck_assert_int_eq(s32y[1], -1);           /* 7 mod -2 */
    ln_rt_mod_s32(&a, 1, s32a, s32b, s32y);
    ck_assert_int_eq(s32y[0], -1);           /* C's */
    ck_assert_int_eq(s32y[1], 1);
    ln_rt_div_s32(&a, s32a, s32b, s32y);
    ck_assert_int_eq(s32y[0], -3);           /* toward zero */
    a.a_dims[0] = a.b_dims[0] = a.y_dims[0] = 1;
    ln_rt_mul_u16(&a, u16a, u16a, u16y);     /* 65535^2 would overflow int */
    ck_assert_int_eq(u16y[0], 1);
}
END_TEST

/* float64 against the same ops in double; float16 min, max and fmod
 * against float arithmetic on the decoded values */
START_TEST(test_float_types)
{
    const dt_case *c = &dcases[0];
    ln_rt_bcast_args a;
    size_t na, nb, ny = dt_args(c, &a, &na, &nb), i, ia, ib;
    double x0[64], x1[64], y[64];
    uint16_t h0[64], h1[64], hy[64];
    float f0[64], f1[64];
    uint32_t s = 5;

    rt_fill(f0, na, -8, 8, 11);
    rt_fill(f1, nb, 0.5f, 3, 12);
    for (i = 0; i < na; i++)
        x0[i] = (double)f0[i] * (1.0 + 1e-9);       /* not a float value */
    for (i = 0; i < nb; i++)
        x1[i] = (double)f1[i] * (rt_rand(&s) & 1 ? -1 : 1);
    ln_rt_add_f64(&a, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == x0[ia] + x1[ib]); }
    ln_rt_sub_f64(&a, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == x0[ia] - x1[ib]); }
    ln_rt_mul_f64(&a, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == x0[ia] * x1[ib]); }
    ln_rt_div_f64(&a, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == x0[ia] / x1[ib]); }
    ln_rt_min_f64(&a, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == fmin(x0[ia], x1[ib])); }
    ln_rt_max_f64(&a, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == fmax(x0[ia], x1[ib])); }
    ln_rt_mod_f64(&a, 1, x0, x1, y);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(y[i] == fmod(x0[ia], x1[ib])); }

    /* float16: values exactly representable (multiples of 1/16 below 64) */
    for (i = 0; i < na; i++) {
        f0[i] = (float)((int)(rt_rand(&s) % 1024) - 512) / 16.0f;
        h0[i] = ln_rt__f32_to_f16(f0[i]);
    }
    for (i = 0; i < nb; i++) {
        f1[i] = (float)((int)(rt_rand(&s) % 200) + 1) / 16.0f * (rt_rand(&s) & 1 ? -1 : 1);
        h1[i] = ln_rt__f32_to_f16(f1[i]);
    }
    ln_rt_min_f16(&a, h0, h1, hy);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(ln_rt__f16_to_f32(hy[i]) == fminf(f0[ia], f1[ib])); }
    ln_rt_max_f16(&a, h0, h1, hy);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(ln_rt__f16_to_f32(hy[i]) == fmaxf(f0[ia], f1[ib])); }
    ln_rt_mod_f16(&a, 1, h0, h1, hy);
    for (i = 0; i < ny; i++) { dt_index(c, &a, i, &ia, &ib); ck_assert(ln_rt__f16_to_f32(hy[i]) == fmodf(f0[ia], f1[ib])); }
}
END_TEST

/* Pow: the base's type; integer powers exact and wrapping, float
 * exponents truncated and saturated */
START_TEST(test_pow_types)
{
    ln_rt_bcast_args a;
    int32_t b32[6] = { 2, -3, 7, 1, -1, 0 }, e32[6] = { 10, 3, 20, -2, -3, 5 }, y32[6];
    int64_t b64[6] = { 3, -2, 10, 2, 5, -1 }, e64[6] = { 40, 63, 19, 64, 0, 1000001 }, y64[6];
    float f[6] = { 1.5f, 2, -2, 0.5f, 4, 10 }, ef[6] = { 2, 0.5f, 3, -1, 0.5f, 40 }, yf[6];
    uint64_t eu[6] = { 2, 3, 1, 0, 4, 5 };
    int32_t want32[6] = { 1024, -27, (int32_t)0xB87E16E1u /* 7^20 mod 2^32 */, 1, -1, 0 };
    uint64_t p3_40 = 1;
    int i;

    memset(&a, 0, sizeof(a));
    a.ndim = 1;
    a.a_dims[0] = a.b_dims[0] = a.y_dims[0] = 6;
    ln_rt_pow_s32_s32(&a, b32, e32, y32);
    for (i = 0; i < 6; i++)
        ck_assert_msg(y32[i] == want32[i], "pow_s32_s32 [%d] = %d, want %d", i, y32[i], want32[i]);
    for (i = 0; i < 40; i++)
        p3_40 *= 3u;
    ln_rt_pow_s64_s64(&a, b64, e64, y64);
    ck_assert(y64[0] == (int64_t)p3_40);
    ck_assert(y64[1] == INT64_MIN);             /* (-2)^63 */
    ck_assert((uint64_t)y64[2] == 0x8AC7230489E80000ULL);   /* 10^19 wraps */
    ck_assert(y64[3] == 0);                     /* 2^64 wraps to 0 */
    ck_assert(y64[4] == 1 && y64[5] == -1);
    ln_rt_pow_s32_f32(&a, b32, ef, y32);
    ck_assert_int_eq(y32[0], 4);                /* 2^2 */
    ck_assert_int_eq(y32[1], 0);                /* (-3)^0.5 is NaN: 0 */
    ck_assert_int_eq(y32[2], 343);
    ck_assert_int_eq(y32[3], 1);
    ck_assert_int_eq(y32[4], 0);                /* (-1)^0.5: NaN */
    ln_rt_pow_s32_f32(&a, b32, f, y32);         /* 2^1.5 = 2.83 -> 2 */
    ck_assert_int_eq(y32[0], 2);
    b32[5] = 10;
    ln_rt_pow_s32_f32(&a, b32, ef, y32);
    ck_assert_int_eq(y32[5], INT32_MAX);        /* 10^40 saturates */
    b64[5] = 10;
    ln_rt_pow_s64_f32(&a, b64, ef, y64);
    ck_assert(y64[0] == 9 && y64[1] == 0 && y64[2] == 1000 && y64[3] == 0 && y64[4] == 2);
    ck_assert(y64[5] == INT64_MAX);             /* 10^40 saturates */
    ln_rt_pow_f32_u64(&a, f, eu, yf);
    for (i = 0; i < 6; i++)
        ck_assert(yf[i] == (float)pow(f[i], (double)eu[i]));
    ln_rt_pow_f32_s32(&a, f, e32, yf);
    for (i = 0; i < 6; i++)
        ck_assert(yf[i] == (float)pow(f[i], (double)e32[i]));
}
END_TEST


/* CumSum per type against running sums written out per (outer, inner)
 * column: x [2][5][3], every flag combination; int32 wraps */
#define DT_CUMSUM_CHECK(T, A, S, FILL)                                                \
static void cumsum_check_##S(void)                                                    \
{                                                                                     \
    T x[30], y[30];                                                                   \
    uint32_t s = 77;                                                                  \
    int ex, rev, o, q, j, i;                                                          \
    for (i = 0; i < 30; i++)                                                          \
        x[i] = FILL;                                                                  \
    for (ex = 0; ex < 2; ex++)                                                        \
        for (rev = 0; rev < 2; rev++) {                                               \
            ln_rt_cumsum_##S(2, 5, 3, ex, rev, x, y);                                 \
            for (o = 0; o < 2; o++)                                                   \
                for (q = 0; q < 3; q++)                                               \
                    for (j = 0; j < 5; j++) {                                         \
                        A want = 0;                                                   \
                        int k;                                                        \
                        for (k = 0; k < 5; k++) {                                     \
                            int before = rev ? k > j : k < j;                         \
                            if (before || (!ex && k == j))                            \
                                want += (A)x[(o * 5 + k) * 3 + q];                    \
                        }                                                             \
                        ck_assert_msg((T)want == y[(o * 5 + j) * 3 + q],              \
                                      "cumsum_%s ex %d rev %d [%d][%d][%d]", #S, ex,   \
                                      rev, o, j, q);                                  \
                    }                                                                 \
        }                                                                             \
}
DT_CUMSUM_CHECK(double, double, f64, (double)((int32_t)(rt_rand(&s) % 2001) - 1000) / 4.0) /* exact sums */
DT_CUMSUM_CHECK(int32_t, uint32_t, s32, (int32_t)(rt_rand(&s) << 9))   /* sums wrap */
DT_CUMSUM_CHECK(int64_t, uint64_t, s64, (int64_t)dt_bits(&s))
DT_CUMSUM_CHECK(uint32_t, uint32_t, u32, (uint32_t)(rt_rand(&s) << 9))
DT_CUMSUM_CHECK(uint64_t, uint64_t, u64, dt_bits(&s))

START_TEST(test_cumsum_types)
{
    int32_t x[3] = { INT32_MAX, 1, -5 }, y[3];
    cumsum_check_f64();
    cumsum_check_s32();
    cumsum_check_s64();
    cumsum_check_u32();
    cumsum_check_u64();
    ln_rt_cumsum_s32(1, 3, 1, 0, 0, x, y);
    ck_assert_int_eq(y[1], INT32_MIN);          /* MAX + 1 wraps */
    ck_assert_int_eq(y[2], INT32_MAX - 4);      /* MIN - 5 wraps */
}
END_TEST

/* float64 reductions over axes {0, 2} of [3][4][5] against sums in long
 * double written out here */
START_TEST(test_reduce_f64)
{
    ln_rt_reduce_args a;
    double x[60], y[4];
    uint32_t s = 9;
    int i, j, k, op;

    memset(&a, 0, sizeof(a));
    a.ndim = 3;
    a.dims[0] = 3; a.dims[1] = 4; a.dims[2] = 5;
    a.axes_mask = 5u;
    for (i = 0; i < 60; i++)
        x[i] = ((double)(rt_rand(&s) % 20001) - 10000.0) / 2500.0 + 1e-10;
    for (op = 0; op < 6; op++) {
        switch (op) {
        case 0: ln_rt_reduce_l1_f64(&a, x, y); break;
        case 1: ln_rt_reduce_l2_f64(&a, x, y); break;
        case 2: ln_rt_reduce_logsumexp_f64(&a, x, y); break;
        case 3: ln_rt_reduce_prod_f64(&a, x, y); break;
        case 4: ln_rt_reduce_sumsquare_f64(&a, x, y); break;
        default: ln_rt_reduce_logsum_f64(&a, x, y); break;
        }
        for (j = 0; j < 4; j++) {
            long double acc = op == 3 ? 1.0L : 0.0L, want;
            for (i = 0; i < 3; i++)
                for (k = 0; k < 5; k++) {
                    long double v = x[(i * 4 + j) * 5 + k];
                    switch (op) {
                    case 0: acc += fabsl(v); break;
                    case 1: case 4: acc += v * v; break;
                    case 2: acc += expl(v); break;
                    case 3: acc *= v; break;
                    default: acc += fabsl(v); break;    /* logsum of positives */
                    }
                }
            want = op == 1 ? sqrtl(acc) : op == 2 ? logl(acc) : acc;
            if (op == 5)
                continue;
            ck_assert_msg(fabsl((long double)y[j] - want) <= 1e-13L * fabsl(want) + 1e-15L,
                          "reduce op %d [%d]: %.17g, want %.17Lg", op, j, y[j], want);
        }
    }
    /* logsum: log of the sum, on positive values */
    for (i = 0; i < 60; i++)
        x[i] = fabs(x[i]) + 0.25;
    ln_rt_reduce_logsum_f64(&a, x, y);
    for (j = 0; j < 4; j++) {
        long double acc = 0;
        for (i = 0; i < 3; i++)
            for (k = 0; k < 5; k++)
                acc += x[(i * 4 + j) * 5 + k];
        ck_assert(fabsl((long double)y[j] - logl(acc)) <= 1e-14L);
    }
}
END_TEST

/* Clip per integer type: param bounds (fractional ones round inward, the
 * float defaults are no bound) and run-time ones, against a clamp written
 * out with the expected integer bounds */
#define DT_CLIP_CHECK(T, S, TMIN, TMAX)                                               \
static void clip_check_##S(void)                                                      \
{                                                                                     \
    T x[37], y[37], lt = (T)3, ht = (T)5;                                             \
    uint32_t s = 3;                                                                   \
    size_t i;                                                                         \
    for (i = 0; i < 37; i++)                                                          \
        x[i] = (T)dt_bits(&s);                                                        \
    x[1] = TMIN;                                                                      \
    x[2] = TMAX;                                                                      \
    ln_rt_clip_t_##S(x, y, 37, -3.4028234e+38, 3.4028234e+38, NULL, NULL);            \
    for (i = 0; i < 37; i++)                                                          \
        ck_assert(y[i] == x[i]);                                                      \
    ln_rt_clip_t_##S(x, y, 37, 1.5, 100.9, NULL, NULL);   /* [2, 100] */              \
    for (i = 0; i < 37; i++)                                                          \
        ck_assert_msg(y[i] == (x[i] < 2 ? 2 : x[i] > 100 ? 100 : x[i]), "clip_%s [%zu]", \
                      #S, i);                                                         \
    ln_rt_clip_t_##S(x, y, 37, 1.5, 100.9, &lt, &ht);     /* [3, 5] */                \
    for (i = 0; i < 37; i++)                                                          \
        ck_assert(y[i] == (x[i] < 3 ? 3 : x[i] > 5 ? 5 : x[i]));                      \
    ln_rt_clip_t_##S(x, y, 37, 7, 1e30, NULL, &ht);        /* min > max: max */        \
    for (i = 0; i < 37; i++)                                                          \
        ck_assert(y[i] == 5);                                                         \
}
DT_CLIP_CHECK(int8_t, s8, INT8_MIN, INT8_MAX)
DT_CLIP_CHECK(int16_t, s16, INT16_MIN, INT16_MAX)
DT_CLIP_CHECK(int32_t, s32, INT32_MIN, INT32_MAX)
DT_CLIP_CHECK(int64_t, s64, INT64_MIN, INT64_MAX)
DT_CLIP_CHECK(uint8_t, u8, 0, UINT8_MAX)
DT_CLIP_CHECK(uint16_t, u16, 0, UINT16_MAX)
DT_CLIP_CHECK(uint32_t, u32, 0, UINT32_MAX)
DT_CLIP_CHECK(uint64_t, u64, 0, UINT64_MAX)

START_TEST(test_clip_types)
{
    double x[5] = { -2.5, 0.1, 1e300, -1e300, 0.75 }, y[5], lo = -1;
    int32_t big[2] = { 16777217, 16777219 }, yb[2];
    int i;
    clip_check_s8(); clip_check_s16(); clip_check_s32(); clip_check_s64();
    clip_check_u8(); clip_check_u16(); clip_check_u32(); clip_check_u64();
    ln_rt_clip_t_f64(x, y, 5, -3.4028234e+38, 0.5, &lo, NULL);
    for (i = 0; i < 5; i++)
        ck_assert(y[i] == (x[i] < -1 ? -1 : x[i] > 0.5 ? 0.5 : x[i]));
    ln_rt_clip_t_s32(big, yb, 2, 16777218, 16777218, NULL, NULL);  /* past float's 2^24 */
    ck_assert_int_eq(yb[0], 16777218);
    ck_assert_int_eq(yb[1], 16777218);
}
END_TEST

/* uint8 max pooling against a window scan written out: 2x3 images of
 * 7x5, 3x2 kernel, stride 2x1, pads 1/0/1/1, dilation 1 and 2 */
START_TEST(test_maxpool_u8)
{
    ln_rt_pool2d_args a;
    uint8_t x[2 * 3 * 7 * 5], y[2 * 3 * 8 * 6];
    uint32_t s = 21;
    int32_t q, oy, ox, ky, kx, dil;
    size_t i;

    for (i = 0; i < sizeof(x); i++)
        x[i] = (uint8_t)rt_rand(&s);
    for (dil = 1; dil <= 2; dil++) {
        memset(&a, 0, sizeof(a));
        a.n = 2; a.c = 3; a.h = 7; a.w = 5;
        a.kh = 3; a.kw = 2; a.stride_h = 2; a.stride_w = 1;
        a.pad_top = 1; a.pad_left = 0; a.pad_bottom = 1; a.pad_right = 1;
        a.dil_h = dil; a.dil_w = dil;
        a.oh = (a.h + 2 - dil * 2 - 1) / 2 + 1;
        a.ow = (a.w + 1 - dil * 1 - 1) / 1 + 1;
        ck_assert_int_eq(ln_rt_maxpool2d_u8(&a, x, y), LN_RT_OK);
        for (q = 0; q < a.n * a.c; q++)
            for (oy = 0; oy < a.oh; oy++)
                for (ox = 0; ox < a.ow; ox++) {
                    int m = 0;
                    for (ky = 0; ky < a.kh; ky++)
                        for (kx = 0; kx < a.kw; kx++) {
                            int32_t iy = oy * a.stride_h - a.pad_top + ky * dil;
                            int32_t ix = ox * a.stride_w - a.pad_left + kx * dil;
                            if (iy >= 0 && iy < a.h && ix >= 0 && ix < a.w &&
                                x[(q * a.h + iy) * a.w + ix] > m)
                                m = x[(q * a.h + iy) * a.w + ix];
                        }
                    ck_assert_int_eq(y[(q * a.oh + oy) * a.ow + ox], m);
                }
    }
}
END_TEST

/* ln_rt_pad on 2- and 8-byte elements, every mode, the constant from the
 * args' fill or a run-time value, a crop at the start of the last axis and
 * growth at its end: 3x5 -> begin {2, -1}, end {1, 3} -> 6x7 */
#define DT_PAD_CHECK(T, S)                                                             \
static void pad_check_##S(void)                                                        \
{                                                                                      \
    const int32_t dims[2] = { 3, 5 }, pb[2] = { 2, -1 }, pe[2] = { 1, 3 };             \
    ln_rt_pad_args a;                                                                  \
    T x[15], y[42], want, fillv = (T)77, rt = (T)-5;                                   \
    uint32_t s = 8;                                                                    \
    int mode, use_rt, r, c, d;                                                         \
    for (r = 0; r < 15; r++)                                                           \
        x[r] = (T)dt_bits(&s);                                                         \
    for (mode = 0; mode < 3; mode++)                                                   \
        for (use_rt = 0; use_rt < 2; use_rt++) {                                       \
            memset(&a, 0, sizeof(a));                                                  \
            a.ndim = 2;                                                                \
            a.mode = (ln_rt_pad_mode)mode;                                             \
            memcpy(a.fill, &fillv, sizeof(T));                                         \
            for (d = 0; d < 2; d++) {                                                  \
                a.src_dims[d] = dims[d];                                               \
                a.pads_begin[d] = pb[d];                                               \
                a.pads_end[d] = pe[d];                                                 \
            }                                                                          \
            if (mode == LN_RT_PAD_REFLECT)                                             \
                a.pads_begin[0] = 1;   /* < 3 */                                       \
            ck_assert_int_eq(ln_rt_pad(&a, sizeof(T), x, use_rt ? &rt : NULL, y),       \
                             LN_RT_OK);                                                \
            for (r = 0; r < 3 + a.pads_begin[0] + 1; r++)                              \
                for (c = 0; c < 7; c++) {                                              \
                    int32_t v[2];                                                      \
                    int outside = 0;                                                   \
                    v[0] = r - a.pads_begin[0];                                        \
                    v[1] = c - pb[1];                                                  \
                    for (d = 0; d < 2; d++) {                                          \
                        if (v[d] >= 0 && v[d] < dims[d])                               \
                            continue;                                                  \
                        if (mode == LN_RT_PAD_CONSTANT)                                \
                            outside = 1;                                               \
                        else if (mode == LN_RT_PAD_EDGE)                               \
                            v[d] = v[d] < 0 ? 0 : dims[d] - 1;                         \
                        else                                                           \
                            v[d] = v[d] < 0 ? -v[d] : 2 * (dims[d] - 1) - v[d];        \
                    }                                                                  \
                    want = outside ? (use_rt ? rt : fillv) : x[v[0] * 5 + v[1]];       \
                    ck_assert_msg(y[r * 7 + c] == want, "pad_%s mode %d rt %d [%d][%d]", \
                                  #S, mode, use_rt, r, c);                             \
                }                                                                      \
        }                                                                              \
}
DT_PAD_CHECK(uint16_t, u16)
DT_PAD_CHECK(int64_t, s64)

START_TEST(test_pad_any_type)
{
    ln_rt_pad_args a;
    uint8_t big[16] = { 0 }, out[32];
    pad_check_u16();
    pad_check_s64();
    memset(&a, 0, sizeof(a));
    a.ndim = 1;
    a.src_dims[0] = 1;
    a.pads_end[0] = 1;
    /* 16-byte elements: only with a run-time value (fill holds 8 bytes) */
    ck_assert_int_eq(ln_rt_pad(&a, 16, big, NULL, out), LN_RT_ARG_ERROR);
    ck_assert_int_eq(ln_rt_pad(&a, 16, big, big, out), LN_RT_OK);
}
END_TEST

/* BitShift per unsigned type: shifts 0 .. width + 2 (width and more give
 * 0) against multiplication / division by 2^v in uint64, truncated */
#define DT_SHIFT_CHECK(T, S, BITS)                                                     \
static void shift_check_##S(void)                                                      \
{                                                                                      \
    ln_rt_bcast_args a;                                                                \
    T x[3], v[BITS + 3], y[3 * (BITS + 3)];                                            \
    uint32_t s = 31;                                                                   \
    int i, j, right;                                                                   \
    memset(&a, 0, sizeof(a));                                                          \
    a.ndim = 2;                                                                        \
    a.a_dims[0] = 3; a.a_dims[1] = 1;                                                  \
    a.b_dims[0] = 1; a.b_dims[1] = BITS + 3;                                           \
    a.y_dims[0] = 3; a.y_dims[1] = BITS + 3;                                           \
    for (i = 0; i < 3; i++)                                                            \
        x[i] = (T)dt_bits(&s);                                                         \
    x[0] = (T)~(T)0;                                                                   \
    for (j = 0; j < BITS + 3; j++)                                                     \
        v[j] = (T)j;                                                                   \
    for (right = 0; right < 2; right++) {                                              \
        ln_rt_bitshift_##S(&a, right, x, v, y);                                        \
        for (i = 0; i < 3; i++)                                                        \
            for (j = 0; j < BITS + 3; j++) {                                           \
                uint64_t p2 = j < 64 ? (uint64_t)1 << j : 0, want;                     \
                if (j >= BITS)                                                         \
                    want = 0;                                                          \
                else if (right)                                                        \
                    want = (uint64_t)x[i] / p2;                                        \
                else                                                                   \
                    want = (T)((uint64_t)x[i] * p2);                                   \
                ck_assert_msg((uint64_t)y[i * (BITS + 3) + j] == want,                 \
                              "bitshift_%s %s %d by %d", #S, right ? "right" : "left", \
                              i, j);                                                   \
            }                                                                          \
    }                                                                                  \
}
DT_SHIFT_CHECK(uint8_t, u8, 8)
DT_SHIFT_CHECK(uint16_t, u16, 16)
DT_SHIFT_CHECK(uint32_t, u32, 32)
DT_SHIFT_CHECK(uint64_t, u64, 64)

START_TEST(test_bitshift)
{
    shift_check_u8();
    shift_check_u16();
    shift_check_u32();
    shift_check_u64();
}
END_TEST

Suite *rt_dtypes_suite(void)
{
    Suite *s = suite_create("rt_dtypes");
    TCase *tc = tcase_create("dtypes");
    tcase_add_test(tc, test_int_binary);
    tcase_add_test(tc, test_int_wrap_cases);
    tcase_add_test(tc, test_float_types);
    tcase_add_test(tc, test_pow_types);
    tcase_add_test(tc, test_cumsum_types);
    tcase_add_test(tc, test_reduce_f64);
    tcase_add_test(tc, test_clip_types);
    tcase_add_test(tc, test_maxpool_u8);
    tcase_add_test(tc, test_pad_any_type);
    tcase_add_test(tc, test_bitshift);
    suite_add_tcase(s, tc);
    return s;
}
