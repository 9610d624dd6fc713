/*
 * loss.c -- ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss,
 * float32 and float64: one body (LOSS_BODY) per dtype, and the two entry
 * points over it (NLL_KERNEL, SCE_KERNEL).
 *
 * x is viewed as [n][c][d] and target as [n][d].  Each target element is
 * visited once: its class t picks x[i][t][j] (NLL) or the log-softmax of
 * column (i, j) at t (SCE).  The softmax needs no scratch: the column's
 * maximum, then the sum of exp(x - max), then log_prob = (x - max) -
 * log(sum), which is ln_rt_logsoftmax_f32's formula (so SCE's log_prob
 * output equals LogSoftmax's bit for bit in float32).  Without a log_prob
 * output only the target's entry of it is computed.
 *
 * A target outside [0, c) that is not ignore_index reads nothing: the
 * element gets loss 0 and no weight (as an ignored one), every output is
 * still written, and the kernel returns LN_RT_ARG_ERROR.  Sums are kept in
 * the kernel's dtype (as the reductions do), the count of an unweighted
 * mean in a size_t.
 */
#include <math.h>
#include "ln_rt_internal.h"

/* Element k's class, or -1 when it is ignored, -2 when its target is
 * outside [0, c). */
static int32_t loss_class(const ln_rt_loss_args *a, size_t target_size,
                          const void *target, size_t k)
{
    int64_t t = target_size == 8 ? ((const int64_t *)target)[k]
                                 : (int64_t)((const int32_t *)target)[k];

    if (a->has_ignore && t == a->ignore_index)
        return -1;
    return t >= 0 && t < a->c ? (int32_t)t : -2;
}

#define LOSS_BODY(SFX, T, EXP, LOG)                                             \
static int loss_##SFX(const ln_rt_loss_args *a, size_t target_size,            \
                      const T *x, const void *target, const T *weight,         \
                      T *loss, T *log_prob, int softmax)                       \
{                                                                               \
    size_t cd = (size_t)a->c * (size_t)a->d, count = 0;                        \
    T sum = 0, wsum = 0;                                                        \
    int bad = 0;                                                                \
                                                                                \
    for (int32_t i = 0; i < a->n; i++)                                          \
        for (int32_t j = 0; j < a->d; j++) {                                    \
            const T *xc = x + (size_t)i * cd + (size_t)j;  /* stride d */      \
            size_t k = (size_t)i * (size_t)a->d + (size_t)j;                   \
            int32_t t = loss_class(a, target_size, target, k);                 \
            T m = 0, ls = 0, v = 0, w = 0;                                      \
                                                                                \
            if (softmax) {                                                      \
                T s = 0;                                                        \
                m = -(T)INFINITY;                                               \
                for (int32_t c = 0; c < a->c; c++) {                            \
                    T e = xc[(size_t)c * a->d];                                 \
                    m = e > m ? e : m;                                          \
                }                                                               \
                for (int32_t c = 0; c < a->c; c++)                              \
                    s += EXP(xc[(size_t)c * a->d] - m);                         \
                ls = LOG(s);                                                    \
                if (log_prob)                                                   \
                    for (int32_t c = 0; c < a->c; c++)                          \
                        log_prob[(size_t)i * cd + (size_t)c * a->d + j] =       \
                            (xc[(size_t)c * a->d] - m) - ls;                    \
            }                                                                   \
            if (t >= 0) {                                                       \
                w = weight ? weight[t] : 1;                                     \
                v = xc[(size_t)t * a->d];                                       \
                v = softmax ? (v - m) - ls : v;                                 \
                v = -(v * w);                                                   \
                count++;                                                        \
            } else if (t == -2) {                                               \
                bad = 1;                                                        \
            }                                                                   \
            if (a->reduction == LN_RT_LOSS_NONE) {                              \
                loss[k] = v;                                                    \
            } else {                                                            \
                sum += v;                                                       \
                wsum += w;                                                      \
            }                                                                   \
        }                                                                       \
    if (a->reduction == LN_RT_LOSS_SUM)                                         \
        loss[0] = sum;                                                          \
    else if (a->reduction == LN_RT_LOSS_MEAN)                                   \
        loss[0] = sum / (weight ? wsum : (T)count);                             \
    return bad ? LN_RT_ARG_ERROR : LN_RT_OK;                                    \
}

#define NLL_KERNEL(SFX, T)                                                      \
int ln_rt_nll_loss_##SFX(const ln_rt_loss_args *a, size_t target_size,         \
                         const T *x, const void *target, const T *weight,      \
                         T *loss)                                               \
{                                                                               \
    return loss_##SFX(a, target_size, x, target, weight, loss, NULL, 0);       \
}

#define SCE_KERNEL(SFX, T)                                                      \
int ln_rt_softmax_cross_entropy_##SFX(const ln_rt_loss_args *a,                \
                                      size_t target_size, const T *x,           \
                                      const void *target, const T *weight,     \
                                      T *loss, T *log_prob)                     \
{                                                                               \
    return loss_##SFX(a, target_size, x, target, weight, loss, log_prob, 1);   \
}

LOSS_BODY(f32, float, ln_rt__expf, logf)
NLL_KERNEL(f32, float)
SCE_KERNEL(f32, float)

LOSS_BODY(f64, double, exp, log)
NLL_KERNEL(f64, double)
SCE_KERNEL(f64, double)
