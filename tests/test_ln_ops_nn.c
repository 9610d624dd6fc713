/*
 * test_ln_ops_nn.c -- the neural-network ops described in gen/op_descs
 * (conv2d, gemm, pools, concat, transpose, softmax, slice in its ONNX
 * form, ...) end to end: IR string -> pre_run -> compile for cpu -> load
 * -> run, compared with naive references written here on odd shapes
 * (7x9 images, 6 channels in 3 groups, stride 2 with asymmetric pads,
 * dilation 2, batch 2), plus kernel scratch in the plan and the shape
 * inference errors, which must name the op and the field.
 *
 * Tolerance: |got - ref| <= 1e-4 * max(1, |ref|) (float kernels that sum
 * in blocked order against a double reference).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"
#include "ln_rt.h"

#define TOL 1e-4

/* A growing JSON string: the IR of one test. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        ck_assert_ptr_nonnull(b->s);
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void sb_dims(sbuf *b, int ndim, const int *dims)
{
    sb_add(b, "[");
    for (int i = 0; i < ndim; i++)
        sb_add(b, "%s%d", i ? "," : "", dims[i]);
    sb_add(b, "]");
}

/* An input op for float32 tensor name. */
static void ir_input(sbuf *b, const char *name, int ndim, const int *dims)
{
    sb_add(b, "{\"name\":\"in_%s\",\"optype\":\"input\",\"tensors_in\":[],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"%s\"}],"
           "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},"
           "{\"arg_name\":\"dims\",\"value\":", name, name);
    sb_dims(b, ndim, dims);
    sb_add(b, "}]},");
}

/* A constant float32 tensor with inline data. */
static void ir_const(sbuf *b, const char *name, int ndim, const int *dims, const float *data)
{
    size_t n = 1;

    for (int i = 0; i < ndim; i++)
        n *= (size_t)dims[i];
    sb_add(b, "{\"name\":\"c_%s\",\"optype\":\"create\",\"tensors_in\":[],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"%s\"}],"
           "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},"
           "{\"arg_name\":\"dims\",\"value\":", name, name);
    sb_dims(b, ndim, dims);
    sb_add(b, "},{\"arg_name\":\"data\",\"value\":[");
    for (size_t i = 0; i < n; i++)
        sb_add(b, "%s%.9g", i ? "," : "", (double)data[i]);
    sb_add(b, "]}]},");
}

static void ir_output(sbuf *b, const char *name)
{
    sb_add(b, "{\"name\":\"out_%s\",\"optype\":\"output\",\"tensors_in\":"
           "[{\"arg_name\":\"src\",\"name\":\"%s\"}],\"tensors_out\":[],\"params\":[]}", name, name);
}

/* Deterministic values in [-1, 1). */
static void fill(float *x, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        x[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static void assert_close(const float *got, const double *ref, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        double tol = TOL * (fabs(ref[i]) > 1 ? fabs(ref[i]) : 1);

        ck_assert_msg(fabs(got[i] - ref[i]) <= tol, "%s[%zu]: got %.7g, want %.7g",
                      what, i, (double)got[i], ref[i]);
    }
}

static ln_context *compile_load(const char *ir)
{
    ln_context *ctx = ln_context_create();

    ck_assert_msg(ln_context_init_str(ctx, ir, "test") == 0, "init: %s", ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "compile: %s", ln_error_message());
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "load: %s", ln_error_message());
    return ctx;
}

static void run_get(ln_context *ctx, const char *in, const float *x, size_t nx,
                    const char *out, float *y, size_t ny)
{
    ck_assert_int_eq(ln_context_set_data(ctx, in, x, nx * sizeof *x), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, out, y, ny * sizeof *y), 0);
}

static void done(ln_context *ctx)
{
    ln_context_unload(ctx);
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
}

static void init_fails(const char *ir, const char *want)
{
    ln_context *ctx = ln_context_create();

    ck_assert_msg(ln_context_init_str(ctx, ir, "test") != 0, "init accepted:\n%s", ir);
    ck_assert_msg(strstr(ln_error_message(), want), "message '%s' lacks '%s'",
                  ln_error_message(), want);
    ln_context_free(ctx);
}

static void assert_dims(const ln_context *ctx, const char *name, int ndim, const int *dims)
{
    const ln_tensor *t = ln_context_tensor(ctx, name);

    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->ndim, ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_int_eq(t->dims[i], dims[i]);
}

/* ---- conv2d ------------------------------------------------------------ */

enum { CN = 2, CC = 6, CH = 7, CW = 9, COC = 9, CG = 3, CK = 3 };

static void conv_ir(sbuf *b, const float *w, const float *bias)
{
    static const int xd[] = {CN, CC, CH, CW}, wd[] = {COC, CC / CG, CK, CK}, bd[] = {COC};

    sb_add(b, "{\"ops\":[");
    ir_input(b, "x", 4, xd);
    ir_const(b, "w", 4, wd, w);
    ir_const(b, "b", 1, bd, bias);
    sb_add(b, "{\"name\":\"conv1\",\"optype\":\"conv2d\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"x\"},{\"arg_name\":\"weight\",\"name\":\"w\"},"
           "{\"arg_name\":\"bias\",\"name\":\"b\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":["
           "{\"arg_name\":\"group\",\"value\":%d},{\"arg_name\":\"stride\",\"value\":[2,2]},"
           "{\"arg_name\":\"dilation\",\"value\":[2,2]},"
           "{\"arg_name\":\"pads\",\"value\":[1,0,2,1]},"
           "{\"arg_name\":\"activation\",\"value\":\"relu\"}]},", CG);
    ir_output(b, "y");
    sb_add(b, "]}");
}

START_TEST(test_conv2d)
{
    enum { OH = (CH + 1 + 2 - 2 * (CK - 1) - 1) / 2 + 1, OW = (CW + 0 + 1 - 2 * (CK - 1) - 1) / 2 + 1 };
    static const int want[] = {CN, COC, OH, OW};
    static float x[CN * CC * CH * CW], w[COC * (CC / CG) * CK * CK], bias[COC];
    static float y[CN * COC * OH * OW], y2[CN * COC * OH * OW];
    static double ref[CN * COC * OH * OW];
    const int cg = CC / CG, og = COC / CG;
    sbuf b = {0};
    ln_context *ctx;
    const ln_tensor_entry *te;
    char *planned;

    fill(x, sizeof x / sizeof *x, 1);
    fill(w, sizeof w / sizeof *w, 2);
    fill(bias, COC, 3);
    for (int n = 0; n < CN; n++)
        for (int oc = 0; oc < COC; oc++)
            for (int oh = 0; oh < OH; oh++)
                for (int ow = 0; ow < OW; ow++) {
                    double s = bias[oc];
                    int g = oc / og;

                    for (int ic = 0; ic < cg; ic++)
                        for (int kh = 0; kh < CK; kh++)
                            for (int kw = 0; kw < CK; kw++) {
                                int ih = oh * 2 - 1 + kh * 2, iw = ow * 2 - 0 + kw * 2;

                                if (ih < 0 || ih >= CH || iw < 0 || iw >= CW)
                                    continue;
                                s += (double)x[((n * CC + g * cg + ic) * CH + ih) * CW + iw] *
                                     w[((oc * cg + ic) * CK + kh) * CK + kw];
                            }
                    ref[((n * COC + oc) * OH + oh) * OW + ow] = s > 0 ? s : 0;
                }
    conv_ir(&b, w, bias);
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 4, want);
    run_get(ctx, "x", x, sizeof x / sizeof *x, "y", y, sizeof y / sizeof *y);
    assert_close(y, ref, sizeof y / sizeof *y, "conv2d");

    /* the kernel's scratch is a planned tensor of the op, and a re-read
     * planned IR reuses its name */
    te = ln_tensor_table_find(ctx->tensor_table, "conv1__scratch");
    {
        ln_rt_conv2d_args a = {CN, CC, CH, CW, COC, CK, CK, 2, 2, 1, 0, 2, 1, 2, 2, CG,
                               LN_RT_ACT_RELU, 0.01f, 6.0f};
        size_t bytes = ln_rt_conv2d_f32_scratch_size(&a);

        ck_assert_msg((te != NULL) == (bytes > 0), "scratch of %zu bytes, tensor %s", bytes,
                      te ? "present" : "absent");
        if (te)
            ck_assert_uint_eq(te->tensor->len, bytes);
    }
    if (te) {
        ck_assert_int_eq(te->tensor->dtype, LN_DTYPE_UINT8);
        ck_assert_int_eq(te->tensor->ndim, 1);
        ck_assert(te->planned);
        ck_assert_str_eq(te->creater, "conv1");
    }
    planned = ln_context_print_str(ctx);
    done(ctx);
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, planned, "planned") == 0, "re-init: %s",
                  ln_error_message());
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "load: %s", ln_error_message());
    if (te)
        ck_assert_ptr_nonnull(ln_context_tensor(ctx, "conv1__scratch"));
    run_get(ctx, "x", x, sizeof x / sizeof *x, "y", y2, sizeof y2 / sizeof *y2);
    ck_assert_int_eq(memcmp(y, y2, sizeof y), 0);
    done(ctx);
    free(planned);
    free(b.s);
}
END_TEST

/* ---- gemm ---------------------------------------------------------------- */

START_TEST(test_gemm)
{
    enum { M = 3, K = 7, N = 5 };
    static const int ad[] = {M, K}, bd[] = {N, K}, cd[] = {N}, want[] = {M, N};
    float a[M * K], w[N * K], c[N], y[M * N];
    double ref[M * N];
    sbuf b = {0};
    ln_context *ctx;

    fill(a, M * K, 4);
    fill(w, N * K, 5);
    fill(c, N, 6);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;

            for (int k = 0; k < K; k++)
                s += (double)a[i * K + k] * w[j * K + k];
            ref[i * N + j] = 0.5 * s + 2.0 * c[j];
        }
    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "a", 2, ad);
    ir_const(&b, "w", 2, bd, w);
    ir_const(&b, "c", 1, cd, c);
    sb_add(&b, "{\"name\":\"fc\",\"optype\":\"gemm\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"a\"},{\"arg_name\":\"weight\",\"name\":\"w\"},"
           "{\"arg_name\":\"bias\",\"name\":\"c\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":["
           "{\"arg_name\":\"trans_b\",\"value\":1},{\"arg_name\":\"alpha\",\"value\":0.5},"
           "{\"arg_name\":\"beta\",\"value\":2}]},");
    ir_output(&b, "y");
    sb_add(&b, "]}");
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 2, want);
    run_get(ctx, "a", a, M * K, "y", y, M * N);
    assert_close(y, ref, M * N, "gemm");
    done(ctx);
    free(b.s);
}
END_TEST

/* ---- pools ---------------------------------------------------------------- */

/* Naive 2-D pooling with ONNX semantics: ceil mode output sizes, windows
 * clipped to the padded input; average over the window inside the input,
 * or inside the padded input with count_include_pad. */
static void pool_ref(const float *x, int n, int c, int h, int w, int k, int s,
                     const int *pads, int oh, int ow, int max, int cip, double *y)
{
    for (int i = 0; i < n * c; i++)
        for (int r = 0; r < oh; r++)
            for (int q = 0; q < ow; q++) {
                double acc = max ? -INFINITY : 0;
                int cnt = 0, cntp = 0;

                for (int a = 0; a < k; a++)
                    for (int bb = 0; bb < k; bb++) {
                        int ih = r * s - pads[0] + a, iw = q * s - pads[1] + bb;

                        if (ih >= h + pads[2] || iw >= w + pads[3])
                            continue;
                        cntp++;
                        if (ih < 0 || iw < 0 || ih >= h || iw >= w)
                            continue;
                        cnt++;
                        if (max)
                            acc = fmax(acc, x[(i * h + ih) * w + iw]);
                        else
                            acc += x[(i * h + ih) * w + iw];
                    }
                y[(i * oh + r) * ow + q] = max ? acc : acc / (cip ? cntp : cnt);
            }
}

static void pool_case(const char *optype, int cip)
{
    enum { N = 1, C = 2, H = 6, W = 7, K = 3, S = 2 };
    /* ceil((6 + 1 - 3) / 2) + 1 = 3; ceil((7 + 1 - 3) / 2) + 1 = 4 */
    enum { OH = 3, OW = 4 };
    static const int xd[] = {N, C, H, W}, want[] = {N, C, OH, OW}, pads[] = {1, 1, 0, 0};
    float x[N * C * H * W], y[N * C * OH * OW];
    double ref[N * C * OH * OW];
    sbuf b = {0};
    ln_context *ctx;

    fill(x, sizeof x / sizeof *x, 7);
    pool_ref(x, N, C, H, W, K, S, pads, OH, OW, optype[0] == 'm', cip, ref);
    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "x", 4, xd);
    sb_add(&b, "{\"name\":\"pool\",\"optype\":\"%s\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"x\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":["
           "{\"arg_name\":\"kernel_shape\",\"value\":[3,3]},{\"arg_name\":\"stride\",\"value\":[2,2]},"
           "{\"arg_name\":\"pads\",\"value\":[1,1,0,0]},{\"arg_name\":\"ceil_mode\",\"value\":1}%s]},",
           optype, cip ? ",{\"arg_name\":\"count_include_pad\",\"value\":1}" : "");
    ir_output(&b, "y");
    sb_add(&b, "]}");
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 4, want);
    run_get(ctx, "x", x, sizeof x / sizeof *x, "y", y, sizeof y / sizeof *y);
    assert_close(y, ref, sizeof y / sizeof *y, optype);
    done(ctx);
    free(b.s);
}

START_TEST(test_pools_ceil)
{
    pool_case("maxpool2d", 0);
    pool_case("avgpool2d", 0);
    pool_case("avgpool2d", 1);
}
END_TEST

/* ---- concat, transpose, softmax, slice --------------------------------- */

START_TEST(test_concat)
{
    static const int d0[] = {2, 1, 3}, d1[] = {2, 3, 3}, d2[] = {2, 2, 3}, want[] = {2, 6, 3};
    float a[6], c1[18], c2[12], y[36];
    double ref[36];
    sbuf b = {0};
    ln_context *ctx;

    fill(a, 6, 8);
    fill(c1, 18, 9);
    fill(c2, 12, 10);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 3; k++)
                ref[(i * 6 + j) * 3 + k] = j < 1 ? a[(i * 1 + j) * 3 + k]
                                         : j < 4 ? c1[(i * 3 + j - 1) * 3 + k]
                                                 : c2[(i * 2 + j - 4) * 3 + k];
    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "a", 3, d0);
    ir_const(&b, "k1", 3, d1, c1);
    ir_const(&b, "k2", 3, d2, c2);
    sb_add(&b, "{\"name\":\"cat\",\"optype\":\"concat\",\"tensors_in\":["
           "{\"arg_name\":\"src_0\",\"name\":\"a\"},{\"arg_name\":\"src_1\",\"name\":\"k1\"},"
           "{\"arg_name\":\"src_2\",\"name\":\"k2\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
           "\"params\":[{\"arg_name\":\"axis\",\"value\":-2}]},");
    ir_output(&b, "y");
    sb_add(&b, "]}");
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 3, want);
    run_get(ctx, "a", a, 6, "y", y, 36);
    assert_close(y, ref, 36, "concat");
    done(ctx);
    free(b.s);
}
END_TEST

START_TEST(test_transpose)
{
    static const int xd[] = {2, 3, 5}, want[] = {5, 2, 3};
    float x[30], y[30];
    double ref[30];
    sbuf b = {0};
    ln_context *ctx;

    fill(x, 30, 11);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 2; j++)
            for (int k = 0; k < 3; k++)
                ref[(i * 2 + j) * 3 + k] = x[(j * 3 + k) * 5 + i];
    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "x", 3, xd);
    sb_add(&b, "{\"name\":\"t\",\"optype\":\"transpose\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"x\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
           "\"params\":[{\"arg_name\":\"perm\",\"value\":[2,0,1]}]},");
    ir_output(&b, "y");
    sb_add(&b, "]}");
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 3, want);
    run_get(ctx, "x", x, 30, "y", y, 30);
    assert_close(y, ref, 30, "transpose");
    done(ctx);
    free(b.s);
}
END_TEST

static void softmax_case(const char *params, int outer, int len, int inner)
{
    static const int xd[] = {2, 3, 4};
    float x[24], y[24];
    double ref[24];
    sbuf b = {0};
    ln_context *ctx;

    fill(x, 24, 12);
    for (int o = 0; o < outer; o++)
        for (int i = 0; i < inner; i++) {
            double m = -INFINITY, s = 0;

            for (int l = 0; l < len; l++)
                m = fmax(m, x[(o * len + l) * inner + i]);
            for (int l = 0; l < len; l++)
                s += exp(x[(o * len + l) * inner + i] - m);
            for (int l = 0; l < len; l++)
                ref[(o * len + l) * inner + i] = exp(x[(o * len + l) * inner + i] - m) / s;
        }
    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "x", 3, xd);
    sb_add(&b, "{\"name\":\"sm\",\"optype\":\"softmax\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"x\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":[%s]},", params);
    ir_output(&b, "y");
    sb_add(&b, "]}");
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 3, xd);
    run_get(ctx, "x", x, 24, "y", y, 24);
    assert_close(y, ref, 24, params);
    done(ctx);
    free(b.s);
}

START_TEST(test_softmax)
{
    softmax_case("{\"arg_name\":\"axis\",\"value\":1}", 2, 3, 4);
    softmax_case("", 6, 4, 1);          /* axis -1 */
    /* ONNX Softmax before opset 13: axis 1 and everything after it */
    softmax_case("{\"arg_name\":\"axis\",\"value\":1},{\"arg_name\":\"coerce_2d\",\"value\":true}",
                 2, 12, 1);
}
END_TEST

START_TEST(test_slice_onnx)
{
    /* rows 3, 1 (start -1, step -2, end far below); columns 5, 4, 3, 2
     * (start 100 clamps to 5, end 1 exclusive, step -1) */
    static const int xd[] = {4, 6}, want[] = {2, 4};
    float x[24], y[8];
    double ref[8];
    sbuf b = {0};
    ln_context *ctx;

    fill(x, 24, 13);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            ref[i * 4 + j] = x[(3 - 2 * i) * 6 + (5 - j)];
    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "x", 2, xd);
    sb_add(&b, "{\"name\":\"sl\",\"optype\":\"slice\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"x\"}],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":["
           "{\"arg_name\":\"starts\",\"value\":[100,-1]},{\"arg_name\":\"ends\",\"value\":[1,-1000]},"
           "{\"arg_name\":\"axes\",\"value\":[-1,0]},{\"arg_name\":\"steps\",\"value\":[-1,-2]}]},");
    ir_output(&b, "y");
    sb_add(&b, "]}");
    ctx = compile_load(b.s);
    assert_dims(ctx, "y", 2, want);
    run_get(ctx, "x", x, 24, "y", y, 8);
    assert_close(y, ref, 8, "slice");
    done(ctx);
    free(b.s);
}
END_TEST

/* ---- shape inference errors name op and field ---------------------------- */

/* One op over a constant 'x' of xd dims (and 'w' of wd dims when given). */
static char *one_op(const char *optype, int xn, const int *xd, int wn, const int *wd,
                    const char *params)
{
    static float zeros[16384];
    sbuf b = {0};

    sb_add(&b, "{\"ops\":[");
    ir_input(&b, "x", xn, xd);
    if (wn)
        ir_const(&b, "w", wn, wd, zeros);
    sb_add(&b, "{\"name\":\"%s1\",\"optype\":\"%s\",\"tensors_in\":["
           "{\"arg_name\":\"src\",\"name\":\"x\"}%s],"
           "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":[%s]},",
           !strcmp(optype, "conv2d") ? "conv" : optype, optype,
           wn ? ",{\"arg_name\":\"weight\",\"name\":\"w\"}" : "", params);
    ir_output(&b, "y");
    sb_add(&b, "]}");
    return b.s;
}

START_TEST(test_shape_errors)
{
    static const int x4[] = {1, 32, 8, 8}, w48[] = {16, 48, 1, 1}, w3[] = {4, 32, 9, 9};
    static const int a2[] = {3, 4}, b2[] = {5, 6}, x2[] = {4, 6};
    char *ir;

    ir = one_op("conv2d", 4, x4, 4, w48, "");
    init_fails(ir, "conv1 (conv2d): 'weight' dims[1]*group (48) != 'src' dims[1] (32)");
    free(ir);
    ir = one_op("conv2d", 4, x4, 4, w3, "");
    init_fails(ir, "conv1 (conv2d): kernel 9x9");
    free(ir);
    ir = one_op("conv2d", 4, x4, 4, w48, "{\"arg_name\":\"group\",\"value\":0}");
    init_fails(ir, "conv1 (conv2d): param 'group' should be >= 1, got 0");
    free(ir);
    ir = one_op("gemm", 2, a2, 2, b2, "");
    init_fails(ir, "gemm1 (gemm): inner dims differ: 'src' gives K = 4, 'weight' K = 5");
    free(ir);
    ir = one_op("maxpool2d", 4, x4, 0, NULL, "{\"arg_name\":\"kernel_shape\",\"value\":[9,9]}");
    init_fails(ir, "maxpool2d1 (maxpool2d): window 9x9 does not fit 'src' 8x8");
    free(ir);
    ir = one_op("maxpool2d", 4, x4, 0, NULL, "");
    init_fails(ir, "maxpool2d1 (maxpool2d): missing param 'kernel_shape'");
    free(ir);
    ir = one_op("slice", 2, x2, 0, NULL, "{\"arg_name\":\"starts\",\"value\":[0]},"
                "{\"arg_name\":\"ends\",\"value\":[2]},{\"arg_name\":\"steps\",\"value\":[0]}");
    init_fails(ir, "slice1 (slice): 'steps'[0] is 0");
    free(ir);
    ir = one_op("transpose", 2, x2, 0, NULL, "{\"arg_name\":\"perm\",\"value\":[0,0]}");
    init_fails(ir, "transpose1 (transpose): 'perm' is not a permutation");
    free(ir);
    ir = one_op("softmax", 2, x2, 0, NULL, "{\"arg_name\":\"axis\",\"value\":2}");
    init_fails(ir, "softmax1 (softmax): 'axis' (2) is out of range");
    free(ir);
}
END_TEST

Suite *test_ln_ops_nn_suite(void);
Suite *test_ln_ops_nn_suite(void)
{
    Suite *s = suite_create("ln_ops_nn");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_conv2d);
    tcase_add_test(tc, test_gemm);
    tcase_add_test(tc, test_pools_ceil);
    tcase_add_test(tc, test_concat);
    tcase_add_test(tc, test_transpose);
    tcase_add_test(tc, test_softmax);
    tcase_add_test(tc, test_slice_onnx);
    tcase_add_test(tc, test_shape_errors);
    suite_add_tcase(s, tc);
    return s;
}
