/*
 * reduce_s64.c -- ReduceSum and ReduceProd of int64 tensors.
 *
 * PyTorch exports torch.std, torch.var (unbiased) and size arithmetic as
 * Shape -> Gather -> ReduceProd on int64, and int64 sums (token counts,
 * lengths) as ReduceSum.  Each output element walks its reduced elements
 * (as reduce_ext in reduce_f32.c does).  The arithmetic is unsigned, so an
 * overflow wraps modulo 2^64 as ONNX Runtime's does instead of being
 * undefined; the result is stored back as two's complement.  An empty
 * reduction gives 0 for the sum, 1 for the product.
 */
#include <string.h>
#include "ln_rt_internal.h"

static void reduce_s64(const ln_rt_reduce_args *a, const int64_t *x, int64_t *y, int prod)
{
    /* kept axes (outer walk) and reduced axes (inner walk), innermost first */
    int32_t kd[LN_RT_MAX_DIMS], rd[LN_RT_MAX_DIMS];
    ptrdiff_t ks[LN_RT_MAX_DIMS], rs[LN_RT_MAX_DIMS], st = 1, base = 0;
    int32_t kc[LN_RT_MAX_DIMS] = {0}, rc[LN_RT_MAX_DIMS];
    int nk = 0, nr = 0, d;
    size_t ny = 1, nred = 1, q, r;

    for (d = a->ndim - 1; d >= 0; d--) {
        if (a->axes_mask & (1u << d)) {
            rd[nr] = a->dims[d];
            rs[nr++] = st;
            nred *= (size_t)a->dims[d];
        } else {
            kd[nk] = a->dims[d];
            ks[nk++] = st;
            ny *= (size_t)a->dims[d];
        }
        st *= a->dims[d];
    }
    for (q = 0; q < ny; q++) {
        uint64_t acc = prod ? 1u : 0u;
        ptrdiff_t off = base;
        int64_t out;
        for (d = 0; d < nr; d++)
            rc[d] = 0;
        for (r = 0; r < nred; r++) {
            uint64_t v = (uint64_t)x[off];
            acc = prod ? acc * v : acc + v;
            for (d = 0; d < nr; d++) {
                off += rs[d];
                if (++rc[d] < rd[d])
                    break;
                off -= rs[d] * rd[d];
                rc[d] = 0;
            }
        }
        memcpy(&out, &acc, sizeof out);   /* two's complement, no conversion */
        y[q] = out;
        for (d = 0; d < nk; d++) {
            base += ks[d];
            if (++kc[d] < kd[d])
                break;
            base -= ks[d] * kd[d];
            kc[d] = 0;
        }
    }
}

void ln_rt_reduce_sum_s64(const ln_rt_reduce_args *a, const int64_t *x, int64_t *y)
{
    reduce_s64(a, x, y, 0);
}

void ln_rt_reduce_prod_s64(const ln_rt_reduce_args *a, const int64_t *x, int64_t *y)
{
    reduce_s64(a, x, y, 1);
}
