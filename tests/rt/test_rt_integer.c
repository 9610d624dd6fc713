/*
 * test_rt_integer.c -- ln_rt_conv2d_integer, ln_rt_conv3d_integer and
 * ln_rt_matmul_integer (ONNX ConvInteger on 1-D as 2-D with a height of 1,
 * 2-D and 3-D; MatMulInteger) against naive references: the operands less
 * their zero points are widened to int64 first, convolution reads a
 * zero-padded copy of the image, and the sums are wrapped to int32 at the
 * end.  Random int8 / uint8 mixes, per-tensor and per-channel zero points,
 * per-row / per-column zero points of each matrix of a batch, groups,
 * pads, strides, dilations, batch broadcasting; ONNX's own examples; a sum
 * past 2^31; zero point counts that fit no layout refused.
 */
#include "rt_test.h"

/* n random bytes: int8 or uint8 values */
static void *rand_bytes(size_t n, uint32_t *s)
{
    uint8_t *p = rt_scratch(n);

    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(rt_rand(s) & 0xff);    /* the same bytes read either way */
    return p;
}

static int64_t byte_at(const void *p, int is_signed, size_t i)
{
    return is_signed ? ((const int8_t *)p)[i] : ((const uint8_t *)p)[i];
}

static int32_t wrap32(int64_t v)
{
    return (int32_t)(uint32_t)(uint64_t)v;
}

/* reference conv: x, w as given, zero points NULL or scalar / per oc */
static void ref_conv(const ln_rt_conv2d_args *a, const ln_rt_integer_args *t, const void *x,
                     const void *w, const void *xz, const void *wz, int32_t oh, int32_t ow,
                     int32_t *y)
{
    int32_t ph = a->h + a->pad_top + a->pad_bottom, pw = a->w + a->pad_left + a->pad_right;
    int32_t icg = a->c / a->group, ocg = a->oc / a->group;
    int64_t *xp = calloc((size_t)a->n * a->c * ph * pw, sizeof *xp);
    int64_t xzv = xz ? byte_at(xz, t->x_signed, 0) : 0;

    ck_assert_ptr_nonnull(xp);
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t c = 0; c < a->c; c++)
            for (int32_t i = 0; i < a->h; i++)
                for (int32_t j = 0; j < a->w; j++)
                    xp[(((size_t)n * a->c + c) * ph + i + a->pad_top) * pw + j + a->pad_left] =
                        byte_at(x, t->x_signed, (((size_t)n * a->c + c) * a->h + i) * a->w + j)
                        - xzv;
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++) {
            int32_t g = o / ocg;
            int64_t wzv = !wz ? 0 : byte_at(wz, t->w_signed, t->w_zp_len == 1 ? 0 : (size_t)o);

            for (int32_t i = 0; i < oh; i++)
                for (int32_t j = 0; j < ow; j++) {
                    int64_t sum = 0;

                    for (int32_t c = 0; c < icg; c++)
                        for (int32_t u = 0; u < a->kh; u++)
                            for (int32_t v = 0; v < a->kw; v++) {
                                int32_t r = i * a->stride_h + u * a->dil_h;
                                int32_t s = j * a->stride_w + v * a->dil_w;
                                int64_t wv = byte_at(w, t->w_signed,
                                                     (((size_t)o * icg + c) * a->kh + u) * a->kw + v);

                                sum += xp[(((size_t)n * a->c + g * icg + c) * ph + r) * pw + s] *
                                       (wv - wzv);
                            }
                    y[(((size_t)n * a->oc + o) * oh + i) * ow + j] = wrap32(sum);
                }
        }
    free(xp);
}

START_TEST(test_conv_integer_random)
{
    uint32_t s = 12345u;
    int cases = 0;

    for (int it = 0; it < 300; it++) {
        ln_rt_conv2d_args a;
        ln_rt_integer_args t;
        int32_t oh, ow, icg, ocg;
        size_t nx, nw, ny;
        void *x, *w, *xz, *wz;
        int32_t *y, *ref;
        int zmode;

        memset(&a, 0, sizeof a);
        a.n = 1 + (int32_t)(rt_rand(&s) % 2);
        a.group = 1 + (int32_t)(rt_rand(&s) % 3);
        icg = 1 + (int32_t)(rt_rand(&s) % 3);
        ocg = 1 + (int32_t)(rt_rand(&s) % 3);
        a.c = icg * a.group;
        a.oc = ocg * a.group;
        a.h = 1 + (int32_t)(rt_rand(&s) % 8);
        a.w = 1 + (int32_t)(rt_rand(&s) % 8);
        a.kh = 1 + (int32_t)(rt_rand(&s) % 3);
        a.kw = 1 + (int32_t)(rt_rand(&s) % 3);
        a.stride_h = 1 + (int32_t)(rt_rand(&s) % 2);
        a.stride_w = 1 + (int32_t)(rt_rand(&s) % 2);
        a.dil_h = 1 + (int32_t)(rt_rand(&s) % 2);
        a.dil_w = 1 + (int32_t)(rt_rand(&s) % 2);
        a.pad_top = (int32_t)(rt_rand(&s) % 3);
        a.pad_left = (int32_t)(rt_rand(&s) % 3);
        a.pad_bottom = (int32_t)(rt_rand(&s) % 3);
        a.pad_right = (int32_t)(rt_rand(&s) % 3);
        if (rt_rand(&s) % 4 == 0) {     /* 1-D, as the importer views it: height 1 */
            a.h = a.kh = a.stride_h = a.dil_h = 1;
            a.pad_top = a.pad_bottom = 0;
        }
        oh = ln_rt_conv_out_size(a.h, a.kh, a.stride_h, a.pad_top, a.pad_bottom, a.dil_h);
        ow = ln_rt_conv_out_size(a.w, a.kw, a.stride_w, a.pad_left, a.pad_right, a.dil_w);
        if (oh < 1 || ow < 1)
            continue;
        memset(&t, 0, sizeof t);
        t.x_signed = (int32_t)(rt_rand(&s) & 1);
        t.w_signed = (int32_t)(rt_rand(&s) & 1);
        nx = (size_t)a.n * a.c * a.h * a.w;
        nw = (size_t)a.oc * icg * a.kh * a.kw;
        ny = (size_t)a.n * a.oc * oh * ow;
        x = rand_bytes(nx, &s);
        w = rand_bytes(nw, &s);
        zmode = (int)(rt_rand(&s) % 3);      /* w: none, per tensor, per output channel */
        t.x_zp_len = (int32_t)(rt_rand(&s) % 2);
        t.w_zp_len = zmode == 0 ? 0 : zmode == 1 ? 1 : a.oc;
        xz = t.x_zp_len ? rand_bytes(1, &s) : NULL;
        wz = t.w_zp_len ? rand_bytes((size_t)t.w_zp_len, &s) : NULL;
        y = (int32_t *)rt_scratch(ny * sizeof *y);
        ref = (int32_t *)rt_scratch(ny * sizeof *ref);
        ck_assert_int_eq(ln_rt_conv2d_integer(&a, &t, x, w, xz, wz, y), LN_RT_OK);
        ref_conv(&a, &t, x, w, xz, wz, oh, ow, ref);
        for (size_t i = 0; i < ny; i++)
            ck_assert_msg(y[i] == ref[i],
                          "case %d (x %s, w %s, zp %d/%d, group %d, %dx%d k %dx%d s %d,%d "
                          "d %d,%d pads %d,%d,%d,%d): y[%zu] = %d, reference %d", it,
                          t.x_signed ? "int8" : "uint8", t.w_signed ? "int8" : "uint8",
                          (int)t.x_zp_len, (int)t.w_zp_len, (int)a.group, (int)a.h, (int)a.w,
                          (int)a.kh, (int)a.kw, (int)a.stride_h, (int)a.stride_w,
                          (int)a.dil_h, (int)a.dil_w, (int)a.pad_top, (int)a.pad_left,
                          (int)a.pad_bottom, (int)a.pad_right, i, (int)y[i], (int)ref[i]);
        cases++;
        free(x);
        free(w);
        free(xz);
        free(wz);
        free(y);
        free(ref);
    }
    ck_assert_msg(cases >= 100, "only %d conv cases ran", cases);
}
END_TEST

/* ONNX's ConvInteger example (test_convinteger_with_padding): x 2..10 less
 * 1, a 2x2 kernel of ones, pads 1: the padding counts 0, not -1. */
START_TEST(test_conv_integer_onnx_example)
{
    const uint8_t x[9] = {2, 3, 4, 5, 6, 7, 8, 9, 10}, w[4] = {1, 1, 1, 1}, xz = 1;
    const int32_t want[16] = {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9};
    ln_rt_conv2d_args a;
    ln_rt_integer_args t = {0, 0, 1, 0};
    int32_t y[16];

    memset(&a, 0, sizeof a);
    a.n = a.c = a.oc = a.group = 1;
    a.h = a.w = 3;
    a.kh = a.kw = 2;
    a.stride_h = a.stride_w = a.dil_h = a.dil_w = 1;
    a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
    ck_assert_int_eq(ln_rt_conv2d_integer(&a, &t, x, w, &xz, NULL, y), LN_RT_OK);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(y[i], want[i]);
    t.x_zp_len = 2;                     /* x's zero point is per tensor only */
    ck_assert_int_eq(ln_rt_conv2d_integer(&a, &t, x, w, &xz, NULL, y), LN_RT_ARG_ERROR);
}
END_TEST

/* reference 3-D conv: a zero-padded copy of x less its zero point */
static void ref_conv3d(const ln_rt_conv3d_args *a, const ln_rt_integer_args *t, const void *x,
                       const void *w, const void *xz, const void *wz, int32_t *y)
{
    int32_t pd = a->in[0] + a->pad[0] + a->pad[3], ph = a->in[1] + a->pad[1] + a->pad[4];
    int32_t pw = a->in[2] + a->pad[2] + a->pad[5];
    int32_t icg = a->c / a->group, ocg = a->oc / a->group;
    int64_t *xp = calloc((size_t)a->n * a->c * pd * ph * pw, sizeof *xp);
    int64_t xzv = xz ? byte_at(xz, t->x_signed, 0) : 0;
    size_t src = 0;

    ck_assert_ptr_nonnull(xp);
    for (int32_t nc = 0; nc < a->n * a->c; nc++)
        for (int32_t d = 0; d < a->in[0]; d++)
            for (int32_t i = 0; i < a->in[1]; i++)
                for (int32_t j = 0; j < a->in[2]; j++)
                    xp[(((size_t)nc * pd + d + a->pad[0]) * ph + i + a->pad[1]) * pw + j +
                       a->pad[2]] = byte_at(x, t->x_signed, src++) - xzv;
    for (int32_t n = 0; n < a->n; n++)
        for (int32_t o = 0; o < a->oc; o++) {
            int32_t g = o / ocg;
            int64_t wzv = !wz ? 0 : byte_at(wz, t->w_signed, t->w_zp_len == 1 ? 0 : (size_t)o);

            for (int32_t od = 0; od < a->out[0]; od++)
                for (int32_t i = 0; i < a->out[1]; i++)
                    for (int32_t j = 0; j < a->out[2]; j++) {
                        int64_t sum = 0;

                        for (int32_t c = 0; c < icg; c++)
                            for (int32_t kd = 0; kd < a->k[0]; kd++)
                                for (int32_t u = 0; u < a->k[1]; u++)
                                    for (int32_t v = 0; v < a->k[2]; v++) {
                                        int32_t p = od * a->stride[0] + kd * a->dil[0];
                                        int32_t r = i * a->stride[1] + u * a->dil[1];
                                        int32_t q = j * a->stride[2] + v * a->dil[2];
                                        int64_t wv = byte_at(w, t->w_signed,
                                            ((((size_t)o * icg + c) * a->k[0] + kd) * a->k[1] + u) *
                                            a->k[2] + v);

                                        sum += xp[((((size_t)n * a->c + g * icg + c) * pd + p) *
                                                   ph + r) * pw + q] * (wv - wzv);
                                    }
                        y[((((size_t)n * a->oc + o) * a->out[0] + od) * a->out[1] + i) *
                          a->out[2] + j] = wrap32(sum);
                    }
        }
    free(xp);
}

START_TEST(test_conv3d_integer_random)
{
    uint32_t s = 4242u;
    int cases = 0;

    for (int it = 0; it < 200; it++) {
        ln_rt_conv3d_args a;
        ln_rt_integer_args t;
        int32_t icg, ocg;
        size_t nx, nw, ny;
        void *x, *w, *xz, *wz;
        int32_t *y, *ref;
        int zmode, fits = 1;

        memset(&a, 0, sizeof a);
        a.n = 1 + (int32_t)(rt_rand(&s) % 2);
        a.group = 1 + (int32_t)(rt_rand(&s) % 3);
        icg = 1 + (int32_t)(rt_rand(&s) % 2);
        ocg = 1 + (int32_t)(rt_rand(&s) % 3);
        a.c = icg * a.group;
        a.oc = ocg * a.group;
        for (int i = 0; i < 3; i++) {
            a.in[i] = 1 + (int32_t)(rt_rand(&s) % 6);
            a.k[i] = 1 + (int32_t)(rt_rand(&s) % 3);
            a.stride[i] = 1 + (int32_t)(rt_rand(&s) % 2);
            a.dil[i] = 1 + (int32_t)(rt_rand(&s) % 2);
            a.pad[i] = (int32_t)(rt_rand(&s) % 3);
            a.pad[i + 3] = (int32_t)(rt_rand(&s) % 3);
            a.out[i] = ln_rt_conv_out_size(a.in[i], a.k[i], a.stride[i], a.pad[i], a.pad[i + 3],
                                           a.dil[i]);
            fits = fits && a.out[i] >= 1;
        }
        if (!fits)
            continue;
        memset(&t, 0, sizeof t);
        t.x_signed = (int32_t)(rt_rand(&s) & 1);
        t.w_signed = (int32_t)(rt_rand(&s) & 1);
        nx = (size_t)a.n * a.c * a.in[0] * a.in[1] * a.in[2];
        nw = (size_t)a.oc * icg * a.k[0] * a.k[1] * a.k[2];
        ny = (size_t)a.n * a.oc * a.out[0] * a.out[1] * a.out[2];
        x = rand_bytes(nx, &s);
        w = rand_bytes(nw, &s);
        zmode = (int)(rt_rand(&s) % 3);      /* w: none, per tensor, per output channel */
        t.x_zp_len = (int32_t)(rt_rand(&s) % 2);
        t.w_zp_len = zmode == 0 ? 0 : zmode == 1 ? 1 : a.oc;
        xz = t.x_zp_len ? rand_bytes(1, &s) : NULL;
        wz = t.w_zp_len ? rand_bytes((size_t)t.w_zp_len, &s) : NULL;
        y = (int32_t *)rt_scratch(ny * sizeof *y);
        ref = (int32_t *)rt_scratch(ny * sizeof *ref);
        ck_assert_int_eq(ln_rt_conv3d_integer(&a, &t, x, w, xz, wz, y), LN_RT_OK);
        ref_conv3d(&a, &t, x, w, xz, wz, ref);
        for (size_t i = 0; i < ny; i++)
            ck_assert_msg(y[i] == ref[i],
                          "case %d (x %s, w %s, zp %d/%d, group %d, in %dx%dx%d k %dx%dx%d "
                          "s %d,%d,%d d %d,%d,%d pads %d,%d,%d,%d,%d,%d): y[%zu] = %d, "
                          "reference %d", it, t.x_signed ? "int8" : "uint8",
                          t.w_signed ? "int8" : "uint8", (int)t.x_zp_len, (int)t.w_zp_len,
                          (int)a.group, (int)a.in[0], (int)a.in[1], (int)a.in[2], (int)a.k[0],
                          (int)a.k[1], (int)a.k[2], (int)a.stride[0], (int)a.stride[1],
                          (int)a.stride[2], (int)a.dil[0], (int)a.dil[1], (int)a.dil[2],
                          (int)a.pad[0], (int)a.pad[1], (int)a.pad[2], (int)a.pad[3],
                          (int)a.pad[4], (int)a.pad[5], i, (int)y[i], (int)ref[i]);
        cases++;
        /* a wrong output extent, or an x zero point per channel: refused */
        a.out[1]++;
        ck_assert_int_eq(ln_rt_conv3d_integer(&a, &t, x, w, xz, wz, y), LN_RT_ARG_ERROR);
        a.out[1]--;
        if (xz) {
            t.x_zp_len = 2;
            ck_assert_int_eq(ln_rt_conv3d_integer(&a, &t, x, w, xz, wz, y), LN_RT_ARG_ERROR);
        }
        free(x);
        free(w);
        free(xz);
        free(wz);
        free(y);
        free(ref);
    }
    ck_assert_msg(cases >= 60, "only %d conv3d cases ran", cases);
}
END_TEST

/* reference matmul on [ndim] shapes already right-aligned */
static void ref_matmul(const ln_rt_matmul_args *a, const ln_rt_integer_args *t, const void *A,
                       const void *B, const void *az, const void *bz, int32_t *Y)
{
    int nd = a->ndim;
    int32_t M = a->a_dims[nd - 2], K = a->a_dims[nd - 1], N = a->b_dims[nd - 1];
    size_t batches = 1;

    for (int d = 0; d < nd - 2; d++)
        batches *= (size_t)a->y_dims[d];
    for (size_t b = 0; b < batches; b++) {
        size_t rem = b, ab = 0, bb = 0, am = 1, bm = 1;

        /* batch index -> coordinates, last batch dim fastest */
        for (int d = nd - 3; d >= 0; d--) {
            size_t c = rem % (size_t)a->y_dims[d];

            rem /= (size_t)a->y_dims[d];
            ab += (a->a_dims[d] == 1 ? 0 : c) * am;
            bb += (a->b_dims[d] == 1 ? 0 : c) * bm;
            am *= (size_t)a->a_dims[d];
            bm *= (size_t)a->b_dims[d];
        }
        for (int32_t m = 0; m < M; m++)
            for (int32_t n = 0; n < N; n++) {
                int64_t sum = 0, azv, bzv;

                /* per row / column of A's or B's own matrix ab / bb */
                azv = !az ? 0 : byte_at(az, t->x_signed, t->x_zp_len == 1 ? 0 : ab * M + m);
                bzv = !bz ? 0 : byte_at(bz, t->w_signed, t->w_zp_len == 1 ? 0 : bb * N + n);
                for (int32_t k = 0; k < K; k++)
                    sum += (byte_at(A, t->x_signed, (ab * M + m) * K + k) - azv) *
                           (byte_at(B, t->w_signed, (bb * K + k) * N + n) - bzv);
                Y[(b * M + m) * N + n] = wrap32(sum);
            }
    }
}

START_TEST(test_matmul_integer_random)
{
    uint32_t s = 777u;

    for (int it = 0; it < 300; it++) {
        ln_rt_matmul_args a;
        ln_rt_integer_args t;
        size_t na = 1, nb = 1, ny = 1, abt = 1, bbt = 1;
        void *A, *B, *az, *bz;
        int32_t *y, *ref, M, K, N;
        int nd = 2 + (int)(rt_rand(&s) % 3);

        memset(&a, 0, sizeof a);
        a.ndim = nd;
        for (int d = 0; d < nd - 2; d++) {
            int32_t v = 1 + (int32_t)(rt_rand(&s) % 3);
            uint32_t r = rt_rand(&s) % 4;   /* broadcast A's dim, B's, or neither */

            a.y_dims[d] = v;
            a.a_dims[d] = r == 0 ? 1 : v;
            a.b_dims[d] = r == 1 ? 1 : v;
        }
        M = 1 + (int32_t)(rt_rand(&s) % 7);
        K = 1 + (int32_t)(rt_rand(&s) % 9);
        N = 1 + (int32_t)(rt_rand(&s) % 7);
        a.a_dims[nd - 2] = a.y_dims[nd - 2] = M;
        a.a_dims[nd - 1] = a.b_dims[nd - 2] = K;
        a.b_dims[nd - 1] = a.y_dims[nd - 1] = N;
        for (int d = 0; d < nd; d++) {
            na *= (size_t)a.a_dims[d];
            nb *= (size_t)a.b_dims[d];
            ny *= (size_t)a.y_dims[d];
        }
        for (int d = 0; d < nd - 2; d++) {
            abt *= (size_t)a.a_dims[d];
            bbt *= (size_t)a.b_dims[d];
        }
        memset(&t, 0, sizeof t);
        t.x_signed = (int32_t)(rt_rand(&s) & 1);
        t.w_signed = (int32_t)(rt_rand(&s) & 1);
        A = rand_bytes(na, &s);
        B = rand_bytes(nb, &s);
        /* none, per tensor, per row of each of A's matrices ([..., M, 1]) */
        t.x_zp_len = (int32_t[]){0, 1, (int32_t)abt * M}[rt_rand(&s) % 3];
        /* ..., per column of each of B's ([..., 1, N]) */
        t.w_zp_len = (int32_t[]){0, 1, (int32_t)bbt * N}[rt_rand(&s) % 3];
        az = t.x_zp_len ? rand_bytes((size_t)t.x_zp_len, &s) : NULL;
        bz = t.w_zp_len ? rand_bytes((size_t)t.w_zp_len, &s) : NULL;
        y = (int32_t *)rt_scratch(ny * sizeof *y);
        ref = (int32_t *)rt_scratch(ny * sizeof *ref);
        ck_assert_int_eq(ln_rt_matmul_integer(&a, &t, A, B, az, bz, y), LN_RT_OK);
        ref_matmul(&a, &t, A, B, az, bz, ref);
        /* per row of one matrix only when A has several: no layout, refused */
        if (az && abt > 1 && M > 1) {
            int32_t keep = t.x_zp_len;
            t.x_zp_len = M;
            ck_assert_int_eq(ln_rt_matmul_integer(&a, &t, A, B, az, bz, y), LN_RT_ARG_ERROR);
            t.x_zp_len = keep;
        }
        if (bz && bbt > 1 && N > 1) {
            int32_t keep = t.w_zp_len;
            t.w_zp_len = N;
            ck_assert_int_eq(ln_rt_matmul_integer(&a, &t, A, B, az, bz, y), LN_RT_ARG_ERROR);
            t.w_zp_len = keep;
        }
        for (size_t i = 0; i < ny; i++)
            ck_assert_msg(y[i] == ref[i],
                          "case %d (A %s, B %s, zp %d/%d, ndim %d, M %d K %d N %d): y[%zu] = %d, "
                          "reference %d", it, t.x_signed ? "int8" : "uint8",
                          t.w_signed ? "int8" : "uint8", (int)t.x_zp_len, (int)t.w_zp_len, nd,
                          (int)M, (int)K, (int)N, i, (int)y[i], (int)ref[i]);
        free(A);
        free(B);
        free(az);
        free(bz);
        free(y);
        free(ref);
    }
}
END_TEST

/* ONNX's MatMulInteger example; then a uint8 dot product of 40000 terms
 * (0 - 255) * (255 - 0) = -65025 each, -2601000000 in all: wraps to int32. */
START_TEST(test_matmul_integer_onnx_example_and_wrap)
{
    const uint8_t A[12] = {11, 7, 3, 10, 6, 2, 9, 5, 1, 8, 4, 0}, az = 12;
    const uint8_t B[6] = {1, 4, 2, 5, 3, 6}, bz = 0;
    const int32_t want[8] = {-38, -83, -44, -98, -50, -113, -56, -128};
    ln_rt_matmul_args a;
    ln_rt_integer_args t = {0, 0, 1, 1};
    int32_t y[8];
    enum { K = 40000 };
    static uint8_t a0[K], b255[K];
    const uint8_t z255 = 255;

    memset(&a, 0, sizeof a);
    a.ndim = 2;
    a.a_dims[0] = a.y_dims[0] = 4;
    a.a_dims[1] = a.b_dims[0] = 3;
    a.b_dims[1] = a.y_dims[1] = 2;
    ck_assert_int_eq(ln_rt_matmul_integer(&a, &t, A, B, &az, &bz, y), LN_RT_OK);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(y[i], want[i]);

    memset(a0, 0, sizeof a0);
    memset(b255, 255, sizeof b255);
    a.a_dims[0] = a.y_dims[0] = 1;
    a.a_dims[1] = a.b_dims[0] = K;
    a.b_dims[1] = a.y_dims[1] = 1;
    t.x_zp_len = 1;
    t.w_zp_len = 0;
    ck_assert_int_eq(ln_rt_matmul_integer(&a, &t, a0, b255, &z255, NULL, y), LN_RT_OK);
    ck_assert_int_eq(y[0], wrap32(-65025LL * K));
    ck_assert_int_eq(y[0], 1693967296);
}
END_TEST

Suite *rt_integer_suite(void)
{
    Suite *s = suite_create("rt_integer");
    TCase *tc = tcase_create("integer");

    tcase_add_test(tc, test_conv_integer_random);
    tcase_add_test(tc, test_conv_integer_onnx_example);
    tcase_add_test(tc, test_conv3d_integer_random);
    tcase_add_test(tc, test_matmul_integer_random);
    tcase_add_test(tc, test_matmul_integer_onnx_example_and_wrap);
    suite_add_tcase(s, tc);
    return s;
}
