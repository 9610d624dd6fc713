/*
 * reduce_f32.c -- the ONNX reductions, arg-extrema, TopK and CumSum, float32.
 *
 * Sum, mean, max and min stream x once, adding each row into its output
 * row (reduce).  L1, L2, LogSum, LogSumExp, Prod and SumSquare walk each
 * output element's reduced elements, so per-output state stays in
 * registers: LogSumExp takes the maximum first and sums exp(x - max),
 * which cannot overflow (reduce_ext).  An empty reduction gives the
 * identity (0 for the sums, 1 for the product, log(0) = -inf for the
 * logs).  Accumulation is in float.  argmax and argmin view x as
 * [outer][len][inner].
 */
#include <math.h>
#include "ln_rt_internal.h"

/* ---- sum, mean, max, min ---------------------------------------------- */
enum { RED_SUM, RED_MEAN, RED_MAX, RED_MIN };

/* the sum of a reduced row into acc: eight partial sums (independent
 * chains the compiler can put in one vector) from 16 elements on, a plain
 * walk below. MnasNet's closing mean over 1280 planes of 7x7 took 3x ONNX
 * Runtime's time with one chain of 7-element rows (before the merge of
 * the reduced axes: reduce) */
static float row_sum(const float *x, int32_t len, float acc)
{
    int32_t i = 0;
    if (len >= 16) {
        float p[8];
        int j;
        for (j = 0; j < 8; j++)
            p[j] = x[j];
        for (i = 8; i + 8 <= len; i += 8)
            for (j = 0; j < 8; j++)
                p[j] += x[i + j];
        acc += ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
    }
    for (; i < len; i++)
        acc += x[i];
    return acc;
}

static void reduce(const ln_rt_reduce_args *a, const float *x, float *y,
                   int op)
{
    ptrdiff_t yst[LN_RT_MAX_DIMS], s = 1, yi = 0;
    int32_t cnt[LN_RT_MAX_DIMS] = {0}, dims[LN_RT_MAX_DIMS], len, i;
    uint32_t mask = 0;
    size_t ny = 1, nred = 1, q;
    int nd = 0, d;
    float init = op == RED_MAX ? -INFINITY : op == RED_MIN ? INFINITY : 0.0f;

    /* adjacent axes both reduced or both kept become one (a [n][c][h][w]
     * mean over h and w walks rows of h * w) */
    for (d = 0; d < a->ndim; d++) {
        const uint32_t r = (a->axes_mask >> d) & 1u;
        if (a->dims[d] == 0)
            return;
        if (nd > 0 && ((mask >> (nd - 1)) & 1u) == r) {
            dims[nd - 1] *= a->dims[d];
        } else {
            dims[nd] = a->dims[d];
            mask |= r << nd;
            nd++;
        }
    }
    for (d = nd - 1; d >= 0; d--) {
        if (mask & (1u << d)) {
            yst[d] = 0;
            nred *= (size_t)dims[d];
        } else {
            yst[d] = s;
            s *= dims[d];
            ny *= (size_t)dims[d];
        }
    }
    for (q = 0; q < ny; q++)
        y[q] = init;
    if (nd == 0) {
        y[0] = x[0];
        return;
    }
    len = dims[nd - 1];
    for (;;) {
        float *yp = y + yi;
        if (yst[nd - 1] == 0 && op != RED_MAX && op != RED_MIN) {
            *yp = row_sum(x, len, *yp);
        } else if (yst[nd - 1] == 0) {
            float acc = *yp;
            for (i = 0; i < len; i++) {
                float v = x[i];
                if (op == RED_MAX)
                    acc = v > acc ? v : acc;
                else if (op == RED_MIN)
                    acc = v < acc ? v : acc;
                else
                    acc += v;
            }
            *yp = acc;
        } else {
            for (i = 0; i < len; i++) {
                float v = x[i];
                if (op == RED_MAX)
                    yp[i] = v > yp[i] ? v : yp[i];
                else if (op == RED_MIN)
                    yp[i] = v < yp[i] ? v : yp[i];
                else
                    yp[i] += v;
            }
        }
        x += len;
        for (d = nd - 2; d >= 0; d--) {
            yi += yst[d];
            if (++cnt[d] < dims[d])
                break;
            yi -= yst[d] * dims[d];
            cnt[d] = 0;
        }
        if (d < 0)
            break;
    }
    if (op == RED_MEAN)
        for (q = 0; q < ny; q++)
            y[q] /= (float)nred;
}

void ln_rt_reduce_sum_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y)
{
    reduce(a, x, y, RED_SUM);
}

void ln_rt_reduce_mean_f32(const ln_rt_reduce_args *a, const float *x,
                           float *y)
{
    reduce(a, x, y, RED_MEAN);
}

void ln_rt_reduce_max_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y)
{
    reduce(a, x, y, RED_MAX);
}

void ln_rt_reduce_min_f32(const ln_rt_reduce_args *a, const float *x,
                          float *y)
{
    reduce(a, x, y, RED_MIN);
}

/* ---- L1, L2, LogSum, LogSumExp, Prod, SumSquare ----------------------- */
enum { RX_L1, RX_L2, RX_LOGSUM, RX_LOGSUMEXP, RX_PROD, RX_SUMSQUARE };

/* one walk per type (float32, float64) */
#define LN_RT_REDUCE_EXT(T, S, FABS, SQRT, LOG, EXP)                          \
static void reduce_ext_##S(const ln_rt_reduce_args *a, const T *x, T *y, int op)\
{                                                                             \
    /* kept axes (outer walk) and reduced axes (inner walk), x strides */     \
    int32_t kd[LN_RT_MAX_DIMS], rd[LN_RT_MAX_DIMS];                           \
    ptrdiff_t ks[LN_RT_MAX_DIMS], rs[LN_RT_MAX_DIMS], st = 1;                 \
    int32_t kc[LN_RT_MAX_DIMS] = {0}, rc[LN_RT_MAX_DIMS];                     \
    int nk = 0, nr = 0, d, pass;                                              \
    size_t ny = 1, nred = 1, q, r;                                            \
    ptrdiff_t base = 0;                                                       \
                                                                              \
    for (d = a->ndim - 1; d >= 0; d--) {                                      \
        if (a->axes_mask & (1u << d)) {                                       \
            rd[nr] = a->dims[d];                                              \
            rs[nr++] = st;                                                    \
            nred *= (size_t)a->dims[d];                                       \
        } else {                                                              \
            kd[nk] = a->dims[d];                                              \
            ks[nk++] = st;                                                    \
            ny *= (size_t)a->dims[d];                                         \
        }                                                                     \
        st *= a->dims[d];                                                     \
    }                                                                         \
    /* kd/rd are innermost first */                                           \
    for (q = 0; q < ny; q++) {                                                \
        T m = (T)-INFINITY, acc = op == RX_PROD ? (T)1 : (T)0;                \
        for (pass = op == RX_LOGSUMEXP ? 0 : 1; pass < 2; pass++) {           \
            ptrdiff_t off = base;                                             \
            for (d = 0; d < nr; d++)                                          \
                rc[d] = 0;                                                    \
            for (r = 0; r < nred; r++) {                                      \
                T v = x[off];                                                 \
                if (pass == 0) {                                              \
                    m = v > m ? v : m;                                        \
                } else {                                                      \
                    switch (op) {                                             \
                    case RX_L1: acc += FABS(v); break;                        \
                    case RX_L2: case RX_SUMSQUARE: acc += v * v; break;       \
                    case RX_LOGSUM: acc += v; break;                          \
                    case RX_LOGSUMEXP: acc += EXP(v - m); break;              \
                    default: acc *= v; break;                                 \
                    }                                                         \
                }                                                             \
                for (d = 0; d < nr; d++) {                                    \
                    off += rs[d];                                             \
                    if (++rc[d] < rd[d])                                      \
                        break;                                                \
                    off -= rs[d] * rd[d];                                     \
                    rc[d] = 0;                                                \
                }                                                             \
            }                                                                 \
        }                                                                     \
        switch (op) {                                                         \
        case RX_L2: acc = SQRT(acc); break;                                   \
        case RX_LOGSUM: acc = LOG(acc); break;                                \
        case RX_LOGSUMEXP:                                                    \
            acc = isinf(m) ? m : m + LOG(acc);                                \
            if (nred == 0)                                                    \
                acc = (T)-INFINITY;                                           \
            break;                                                            \
        default: break;                                                       \
        }                                                                     \
        y[q] = acc;                                                           \
        for (d = 0; d < nk; d++) {                                            \
            base += ks[d];                                                    \
            if (++kc[d] < kd[d])                                              \
                break;                                                        \
            base -= ks[d] * kd[d];                                            \
            kc[d] = 0;                                                        \
        }                                                                     \
    }                                                                         \
}
LN_RT_REDUCE_EXT(float, f32, fabsf, sqrtf, logf, expf)
LN_RT_REDUCE_EXT(double, f64, fabs, sqrt, log, exp)

#define LN_RT_REDUCE_EXT_OPS(T, S)                                                \
    void ln_rt_reduce_l1_##S(const ln_rt_reduce_args *a, const T *x, T *y)        \
    {                                                                             \
        reduce_ext_##S(a, x, y, RX_L1);                                           \
    }                                                                             \
    void ln_rt_reduce_l2_##S(const ln_rt_reduce_args *a, const T *x, T *y)        \
    {                                                                             \
        reduce_ext_##S(a, x, y, RX_L2);                                           \
    }                                                                             \
    void ln_rt_reduce_logsum_##S(const ln_rt_reduce_args *a, const T *x, T *y)    \
    {                                                                             \
        reduce_ext_##S(a, x, y, RX_LOGSUM);                                       \
    }                                                                             \
    void ln_rt_reduce_logsumexp_##S(const ln_rt_reduce_args *a, const T *x, T *y) \
    {                                                                             \
        reduce_ext_##S(a, x, y, RX_LOGSUMEXP);                                    \
    }                                                                             \
    void ln_rt_reduce_prod_##S(const ln_rt_reduce_args *a, const T *x, T *y)      \
    {                                                                             \
        reduce_ext_##S(a, x, y, RX_PROD);                                         \
    }                                                                             \
    void ln_rt_reduce_sumsquare_##S(const ln_rt_reduce_args *a, const T *x, T *y) \
    {                                                                             \
        reduce_ext_##S(a, x, y, RX_SUMSQUARE);                                    \
    }
LN_RT_REDUCE_EXT_OPS(float, f32)
LN_RT_REDUCE_EXT_OPS(double, f64)

/* ---- argmax, argmin ---------------------------------------------------- */
/* The index of the largest (sign 1) or smallest (sign -1) element along
 * len, the first of equal ones or the last with select_last_index. */
static void arg_best(int32_t outer, int32_t len, int32_t inner, int select_last_index,
                     const float *x, int64_t *y, float sign)
{
    int32_t o, j, i;
    for (o = 0; o < outer; o++)
        for (j = 0; j < inner; j++) {
            const float *xb = x + (size_t)o * len * inner + j;
            int32_t best = 0;
            for (i = 1; i < len; i++) {
                float v = sign * xb[(size_t)i * inner], b = sign * xb[(size_t)best * inner];
                if (v > b || (select_last_index && v == b))
                    best = i;
            }
            y[(size_t)o * inner + j] = best;
        }
}

void ln_rt_argmax_f32(int32_t outer, int32_t len, int32_t inner,
                      int select_last_index, const float *x, int64_t *y)
{
    arg_best(outer, len, inner, select_last_index, x, y, 1.0f);
}

void ln_rt_argmin_f32(int32_t outer, int32_t len, int32_t inner,
                      int select_last_index, const float *x, int64_t *y)
{
    arg_best(outer, len, inner, select_last_index, x, y, -1.0f);
}

/* Does (v, i) come before (w, j) in a largest- (smallest-) first order?
 * NaN is the largest; equal values keep index order. */
static int topk_before(float v, int64_t i, float w, int64_t j, int32_t largest)
{
    int vn = v != v, wn = w != w;

    if (vn || wn) {
        if (vn && wn)
            return i < j;
        return largest ? vn : wn;
    }
    if (v != w)
        return largest ? v > w : v < w;
    return i < j;
}

void ln_rt_topk_f32(int32_t outer, int32_t len, int32_t inner, int32_t k, int32_t largest,
                    const float *x, float *values, int64_t *indices)
{
    for (int32_t o = 0; o < outer; o++)
        for (int32_t q = 0; q < inner; q++) {
            const float *in = x + (size_t)o * len * inner + q;
            float *vs = values + (size_t)o * k * inner + q;
            int64_t *is = indices + (size_t)o * k * inner + q;
            int32_t n = 0;
            for (int32_t j = 0; j < len; j++) {
                float v = in[(size_t)j * inner];
                int32_t p = n < k ? n : k;
                /* insertion into the sorted first n (at most k) */
                while (p > 0 && topk_before(v, j, vs[(size_t)(p - 1) * inner],
                                            is[(size_t)(p - 1) * inner], largest)) {
                    if (p < k) {
                        vs[(size_t)p * inner] = vs[(size_t)(p - 1) * inner];
                        is[(size_t)p * inner] = is[(size_t)(p - 1) * inner];
                    }
                    p--;
                }
                if (p < k) {
                    vs[(size_t)p * inner] = v;
                    is[(size_t)p * inner] = j;
                }
                if (n < k)
                    n++;
            }
        }
}

/* CumSum per type; integers sum in the unsigned type of their width
 * (wrapping) */
#define LN_RT_CUMSUM(T, A, S)                                                      \
void ln_rt_cumsum_##S(int32_t outer, int32_t len, int32_t inner, int32_t exclusive, \
                      int32_t reverse, const T *x, T *y)                           \
{                                                                                  \
    for (int32_t o = 0; o < outer; o++)                                            \
        for (int32_t q = 0; q < inner; q++) {                                      \
            size_t base = (size_t)o * len * inner + q;                             \
            A s = 0;                                                               \
            for (int32_t j = 0; j < len; j++) {                                    \
                size_t i = base + (size_t)(reverse ? len - 1 - j : j) * inner;     \
                A v = (A)x[i];                                                     \
                if (exclusive) {                                                   \
                    y[i] = (T)s;                                                   \
                    s += v;                                                        \
                } else {                                                           \
                    s += v;                                                        \
                    y[i] = (T)s;                                                   \
                }                                                                  \
            }                                                                      \
        }                                                                          \
}
LN_RT_CUMSUM(float, float, f32)
LN_RT_CUMSUM(double, double, f64)
LN_RT_CUMSUM(int32_t, uint32_t, s32)
LN_RT_CUMSUM(int64_t, uint64_t, s64)
LN_RT_CUMSUM(uint32_t, uint32_t, u32)
LN_RT_CUMSUM(uint64_t, uint64_t, u64)
