/*
 * einsum.c -- ONNX Einsum of one or two operands as one loop nest over all
 * the equation's indices.  The compiler resolves the equation (explicit or
 * implicit output, ellipsis, repeated indices) into a stride table per
 * operand (ln_rt_einsum_args); here an odometer walks the output indices
 * in row-major order and, for each output element, a second one walks the
 * summed indices, moving each operand's offset by the index's stride.  No
 * blocking: a matmul-shaped equation runs at naive-loop speed (the
 * compiler keeps MatMul for MatMul).
 */
#include "ln_rt_internal.h"

static double load_f(ln_rt_dtype t, const void *p, int64_t i)
{
    return t == LN_RT_FLOAT64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static int64_t load_i(ln_rt_dtype t, const void *p, int64_t i)
{
    return t == LN_RT_INT64 ? ((const int64_t *)p)[i] : (int64_t)((const int32_t *)p)[i];
}

int ln_rt_einsum(const ln_rt_einsum_args *a, const void *x0, const void *x1, void *y)
{
    enum { M = LN_RT_EINSUM_MAX_INDICES };
    const int64_t *s0 = a->stride_a, *s1 = a->stride_b;
    int32_t ix[M];
    int64_t o0 = 0, o1 = 0;            /* the operands' offsets */
    size_t nout = 1, nsum = 1;
    int isf = a->dtype == LN_RT_FLOAT32 || a->dtype == LN_RT_FLOAT64;

    if (a->nin < 1 || a->nin > 2 || a->nidx < 0 || a->nidx > M || a->nout < 0 ||
        a->nout > a->nidx || (a->nin == 2 && !x1) ||
        !(isf || a->dtype == LN_RT_INT32 || a->dtype == LN_RT_INT64))
        return LN_RT_ARG_ERROR;
    for (int i = 0; i < a->nidx; i++) {
        if (a->extent[i] < 0)
            return LN_RT_ARG_ERROR;
        ix[i] = 0;
        if (i < a->nout)
            nout *= (size_t)a->extent[i];
        else
            nsum *= (size_t)a->extent[i];
    }
    for (size_t e = 0; e < nout; e++) {
        double accf = 0.0;
        int64_t acci = 0;
        for (size_t r = 0; r < nsum; r++) {
            if (isf) {
                double v = load_f(a->dtype, x0, o0);
                accf += a->nin == 2 ? v * load_f(a->dtype, x1, o1) : v;
            } else {
                int64_t v = load_i(a->dtype, x0, o0);
                /* wraps as int64, through unsigned (no signed overflow) */
                acci = (int64_t)((uint64_t)acci + (a->nin == 2
                        ? (uint64_t)v * (uint64_t)load_i(a->dtype, x1, o1) : (uint64_t)v));
            }
            /* next summed index combination; the last one varies fastest */
            for (int i = a->nidx - 1; i >= a->nout; i--) {
                o0 += s0[i];
                o1 += s1[i];
                if (++ix[i] < a->extent[i])
                    break;
                ix[i] = 0;
                o0 -= s0[i] * a->extent[i];
                o1 -= s1[i] * a->extent[i];
            }
        }
        switch (a->dtype) {
        case LN_RT_FLOAT32: ((float *)y)[e] = (float)accf; break;
        case LN_RT_FLOAT64: ((double *)y)[e] = accf; break;
        case LN_RT_INT32: ((int32_t *)y)[e] = (int32_t)(uint32_t)(uint64_t)acci; break;
        default: ((int64_t *)y)[e] = acci; break;
        }
        /* next output element */
        for (int i = a->nout - 1; i >= 0; i--) {
            o0 += s0[i];
            o1 += s1[i];
            if (++ix[i] < a->extent[i])
                break;
            ix[i] = 0;
            o0 -= s0[i] * a->extent[i];
            o1 -= s1[i] * a->extent[i];
        }
    }
    return LN_RT_OK;
}
