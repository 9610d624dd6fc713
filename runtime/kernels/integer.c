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
static inline int32_t zero_point(const void *zp, int32_t len, int32_t is_signed, size_t i)
{
    if (!zp || len == 0)
        return 0;
    return load(zp, is_signed, len == 1 ? 0 : i);
}

int ln_rt_conv3d_integer(const ln_rt_conv3d_args *a, const ln_rt_integer_args *t,
                         const void *x, const void *w, const void *x_zero_point,
                         const void *w_zero_point, int32_t *y)
{
    int32_t icg, ocg, xz;
    size_t in_plane, out_plane, k_vol;

    if (!a || !t || !x || !w || !y || a->n < 0 || a->c < 1 || a->oc < 1 || a->group < 1 ||
        a->c % a->group || a->oc % a->group || (x_zero_point && t->x_zp_len > 1) ||
        (w_zero_point && t->w_zp_len > 1 && t->w_zp_len != a->oc))
        return LN_RT_ARG_ERROR;
    for (int i = 0; i < 3; i++)
        if (a->in[i] < 1 || a->k[i] < 1 || a->stride[i] < 1 || a->dil[i] < 1 ||
            a->pad[i] < 0 || a->pad[i + 3] < 0 ||
            a->out[i] < 1 || a->out[i] != ln_rt_conv_out_size(a->in[i], a->k[i], a->stride[i],
                                                              a->pad[i], a->pad[i + 3],
                                                              a->dil[i]))
            return LN_RT_ARG_ERROR;
    icg = a->c / a->group;
    ocg = a->oc / a->group;
    in_plane = (size_t)a->in[0] * a->in[1] * a->in[2];
    out_plane = (size_t)a->out[0] * a->out[1] * a->out[2];
    k_vol = (size_t)a->k[0] * a->k[1] * a->k[2];
    xz = zero_point(x_zero_point, t->x_zp_len, t->x_signed, 0);
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++) {
            int32_t wz = zero_point(w_zero_point, t->w_zp_len, t->w_signed, (size_t)o);
            size_t xbase = ((size_t)n * a->c + (size_t)(o / ocg) * icg) * in_plane;
            size_t wbase = (size_t)o * icg * k_vol;
            int32_t *yo = y + ((size_t)n * a->oc + o) * out_plane;

            for (int32_t od = 0; od < a->out[0]; od++)
                for (int32_t oi = 0; oi < a->out[1]; oi++)
                    for (int32_t oj = 0; oj < a->out[2]; oj++) {
                        uint32_t acc = 0;

                        for (int32_t c = 0; c < icg; c++)
                            for (int32_t kd = 0; kd < a->k[0]; kd++) {
                                int32_t p = od * a->stride[0] - a->pad[0] + kd * a->dil[0];

                                if (p < 0 || p >= a->in[0])   /* padding: 0 after the zero point */
                                    continue;
                                for (int32_t u = 0; u < a->k[1]; u++) {
                                    int32_t r = oi * a->stride[1] - a->pad[1] + u * a->dil[1];

                                    if (r < 0 || r >= a->in[1])
                                        continue;
                                    for (int32_t v = 0; v < a->k[2]; v++) {
                                        int32_t s = oj * a->stride[2] - a->pad[2] + v * a->dil[2];
                                        int32_t xv, wv;

                                        if (s < 0 || s >= a->in[2])
                                            continue;
                                        xv = load(x, t->x_signed,
                                                  xbase + (size_t)c * in_plane +
                                                  ((size_t)p * a->in[1] + r) * a->in[2] + s) - xz;
                                        wv = load(w, t->w_signed,
                                                  wbase + (size_t)c * k_vol +
                                                  ((size_t)kd * a->k[1] + u) * a->k[2] + v) - wz;
                                        acc += (uint32_t)(xv * wv);
                                    }
                                }
                            }
                        yo[((size_t)od * a->out[1] + oi) * a->out[2] + oj] = (int32_t)acc;
                    }
        }
    return LN_RT_OK;
}

int ln_rt_conv2d_integer(const ln_rt_conv2d_args *a, const ln_rt_integer_args *t,
                         const void *x, const void *w, const void *x_zero_point,
                         const void *w_zero_point, int32_t *y)
{
    ln_rt_conv3d_args b;

    if (!a)
        return LN_RT_ARG_ERROR;
    /* the 3-D kernel with a depth of 1 */
    b.n = a->n;
    b.c = a->c;
    b.oc = a->oc;
    b.group = a->group;
    b.in[0] = 1;
    b.in[1] = a->h;
    b.in[2] = a->w;
    b.k[0] = 1;
    b.k[1] = a->kh;
    b.k[2] = a->kw;
    b.stride[0] = 1;
    b.stride[1] = a->stride_h;
    b.stride[2] = a->stride_w;
    b.dil[0] = 1;
    b.dil[1] = a->dil_h;
    b.dil[2] = a->dil_w;
    b.pad[0] = 0;
    b.pad[1] = a->pad_top;
    b.pad[2] = a->pad_left;
    b.pad[3] = 0;
    b.pad[4] = a->pad_bottom;
    b.pad[5] = a->pad_right;
    for (int i = 0; i < 3; i++)
        b.out[i] = ln_rt_conv_out_size(b.in[i], b.k[i], b.stride[i], b.pad[i], b.pad[i + 3],
                                       b.dil[i]);
    b.act = LN_RT_ACT_NONE;
    b.alpha = 0.0f;
    b.beta = 0.0f;
    return ln_rt_conv3d_integer(&b, t, x, w, x_zero_point, w_zero_point, y);
}

int ln_rt_matmul_integer(const ln_rt_matmul_args *a, const ln_rt_integer_args *t,
                         const void *A, const void *B, const void *a_zero_point,
                         const void *b_zero_point, int32_t *Y)
{
    int32_t nd, M, K, N, idx[LN_RT_MAX_DIMS];
    size_t batches = 1, a_batches = 1, b_batches = 1;

    if (!a || !t || !A || !B || !Y || a->ndim < 2 || a->ndim > LN_RT_MAX_DIMS)
        return LN_RT_ARG_ERROR;
    nd = a->ndim;
    M = a->a_dims[nd - 2];
    K = a->a_dims[nd - 1];
    N = a->b_dims[nd - 1];
    if (a->b_dims[nd - 2] != K || a->y_dims[nd - 2] != M || a->y_dims[nd - 1] != N)
        return LN_RT_ARG_ERROR;
    for (int32_t d = 0; d < nd - 2; d++) {
        if ((a->a_dims[d] != a->y_dims[d] && a->a_dims[d] != 1) ||
            (a->b_dims[d] != a->y_dims[d] && a->b_dims[d] != 1))
            return LN_RT_ARG_ERROR;
        batches *= (size_t)a->y_dims[d];
        a_batches *= (size_t)a->a_dims[d];
        b_batches *= (size_t)a->b_dims[d];
        idx[d] = 0;
    }
    /* zero points: one, or one per row of each matrix of A (a_batches * M,
     * [..., M, 1]) and per column of each matrix of B (b_batches * N,
     * [..., 1, N]) */
    if ((a_zero_point && t->x_zp_len > 1 && (size_t)t->x_zp_len != a_batches * (size_t)M) ||
        (b_zero_point && t->w_zp_len > 1 && (size_t)t->w_zp_len != b_batches * (size_t)N))
        return LN_RT_ARG_ERROR;
    for (size_t bt = 0; bt < batches; bt++) {
        size_t ao = 0, bo = 0;
        int32_t *yb = Y + bt * (size_t)M * N;

        /* the batch indices of A and B, broadcast dims read at index 0 */
        for (int32_t d = 0; d < nd - 2; d++) {
            ao = ao * (size_t)a->a_dims[d] + (a->a_dims[d] == 1 ? 0 : (size_t)idx[d]);
            bo = bo * (size_t)a->b_dims[d] + (a->b_dims[d] == 1 ? 0 : (size_t)idx[d]);
        }
        for (int32_t m = 0; m < M; m++) {
            int32_t az = zero_point(a_zero_point, t->x_zp_len, t->x_signed, ao * M + m);
            const size_t arow = (ao * M + m) * (size_t)K;

            for (int32_t n = 0; n < N; n++) {
                int32_t bz = zero_point(b_zero_point, t->w_zp_len, t->w_signed, bo * N + n);
                const size_t bcol = bo * (size_t)K * N + n;
                uint32_t acc = 0;

                for (int32_t k = 0; k < K; k++)
                    acc += (uint32_t)((load(A, t->x_signed, arow + k) - az) *
                                      (load(B, t->w_signed, bcol + (size_t)k * N) - bz));
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
