/*
 * integer.c -- ONNX ConvInteger and MatMulInteger: int32 results of int8
 * or uint8 operands less their zero points (ln_rt.h).  Plain loops, no
 * packing and no scratch: these ops come from dynamically quantized
 * models, where the float work around them dominates.  Sums are kept in
 * uint32_t so that they wrap as int32 without undefined behaviour.
 */
#include "ln_rt_internal.h"

/* Element i of an int8 (is_signed) or uint8 array. */
static inline int32_t load(const void *p, int32_t is_signed, size_t i)
{
    return is_signed ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
}

/* Zero point i of len (0: none; 1: per tensor). */
static inline int32_t zero_point(const void *zp, int32_t len, int32_t is_signed, int32_t i)
{
    if (!zp || len == 0)
        return 0;
    return load(zp, is_signed, len == 1 ? 0 : (size_t)i);
}

int ln_rt_conv2d_integer(const ln_rt_conv2d_args *a, const ln_rt_integer_args *t,
                         const void *x, const void *w, const void *x_zero_point,
                         const void *w_zero_point, int32_t *y)
{
    int32_t oh, ow, icg, ocg, xz;

    if (!a || !t || !x || !w || !y || a->group < 1 || a->c % a->group ||
        a->oc % a->group || a->stride_h < 1 || a->stride_w < 1 || a->dil_h < 1 ||
        a->dil_w < 1 || (x_zero_point && t->x_zp_len > 1) ||
        (w_zero_point && t->w_zp_len > 1 && t->w_zp_len != a->oc))
        return LN_RT_ARG_ERROR;
    oh = ln_rt_conv_out_size(a->h, a->kh, a->stride_h, a->pad_top, a->pad_bottom, a->dil_h);
    ow = ln_rt_conv_out_size(a->w, a->kw, a->stride_w, a->pad_left, a->pad_right, a->dil_w);
    if (oh < 1 || ow < 1)
        return LN_RT_ARG_ERROR;
    icg = a->c / a->group;
    ocg = a->oc / a->group;
    xz = zero_point(x_zero_point, t->x_zp_len, t->x_signed, 0);
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++) {
            int32_t wz = zero_point(w_zero_point, t->w_zp_len, t->w_signed, o);
            size_t xbase = ((size_t)n * a->c + (size_t)(o / ocg) * icg) * a->h * a->w;
            size_t wbase = (size_t)o * icg * a->kh * a->kw;
            int32_t *yo = y + ((size_t)n * a->oc + o) * oh * ow;

            for (int32_t i = 0; i < oh; i++)
                for (int32_t j = 0; j < ow; j++) {
                    uint32_t acc = 0;

                    for (int32_t c = 0; c < icg; c++)
                        for (int32_t u = 0; u < a->kh; u++) {
                            int32_t r = i * a->stride_h - a->pad_top + u * a->dil_h;

                            if (r < 0 || r >= a->h)     /* padding: 0 after the zero point */
                                continue;
                            for (int32_t v = 0; v < a->kw; v++) {
                                int32_t s = j * a->stride_w - a->pad_left + v * a->dil_w;
                                int32_t xv, wv;

                                if (s < 0 || s >= a->w)
                                    continue;
                                xv = load(x, t->x_signed,
                                          xbase + ((size_t)c * a->h + r) * a->w + s) - xz;
                                wv = load(w, t->w_signed,
                                          wbase + ((size_t)c * a->kh + u) * a->kw + v) - wz;
                                acc += (uint32_t)(xv * wv);
                            }
                        }
                    yo[(size_t)i * ow + j] = (int32_t)acc;
                }
        }
    return LN_RT_OK;
}

int ln_rt_matmul_integer(const ln_rt_matmul_args *a, const ln_rt_integer_args *t,
                         const void *A, const void *B, const void *a_zero_point,
                         const void *b_zero_point, int32_t *Y)
{
    int32_t nd, M, K, N, idx[LN_RT_MAX_DIMS];
    size_t batches = 1;

    if (!a || !t || !A || !B || !Y || a->ndim < 2 || a->ndim > LN_RT_MAX_DIMS)
        return LN_RT_ARG_ERROR;
    nd = a->ndim;
    M = a->a_dims[nd - 2];
    K = a->a_dims[nd - 1];
    N = a->b_dims[nd - 1];
    if (a->b_dims[nd - 2] != K || a->y_dims[nd - 2] != M || a->y_dims[nd - 1] != N ||
        (a_zero_point && t->x_zp_len > 1 && t->x_zp_len != M) ||
        (b_zero_point && t->w_zp_len > 1 && t->w_zp_len != N))
        return LN_RT_ARG_ERROR;
    for (int32_t d = 0; d < nd - 2; d++) {
        if ((a->a_dims[d] != a->y_dims[d] && a->a_dims[d] != 1) ||
            (a->b_dims[d] != a->y_dims[d] && a->b_dims[d] != 1))
            return LN_RT_ARG_ERROR;
        batches *= (size_t)a->y_dims[d];
        idx[d] = 0;
    }
    for (size_t bt = 0; bt < batches; bt++) {
        size_t ao = 0, bo = 0;
        int32_t *yb = Y + bt * (size_t)M * N;

        /* the batch offsets of A and B, broadcast dims read at index 0 */
        for (int32_t d = 0; d < nd - 2; d++) {
            ao = ao * (size_t)a->a_dims[d] + (a->a_dims[d] == 1 ? 0 : (size_t)idx[d]);
            bo = bo * (size_t)a->b_dims[d] + (a->b_dims[d] == 1 ? 0 : (size_t)idx[d]);
        }
        ao *= (size_t)M * K;
        bo *= (size_t)K * N;
        for (int32_t m = 0; m < M; m++) {
            int32_t az = zero_point(a_zero_point, t->x_zp_len, t->x_signed, m);

            for (int32_t n = 0; n < N; n++) {
                int32_t bz = zero_point(b_zero_point, t->w_zp_len, t->w_signed, n);
                uint32_t acc = 0;

                for (int32_t k = 0; k < K; k++)
                    acc += (uint32_t)((load(A, t->x_signed, ao + (size_t)m * K + k) - az) *
                                      (load(B, t->w_signed, bo + (size_t)k * N + n) - bz));
                yb[(size_t)m * N + n] = (int32_t)acc;
            }
        }
        for (int32_t d = nd - 3; d >= 0; d--) {     /* next batch index */
            if (++idx[d] < a->y_dims[d])
                break;
            idx[d] = 0;
        }
    }
    return LN_RT_OK;
}
