/*
 * m4_tests.c -- the libln_rt kernel-test subset that runs on a Cortex-M4
 * under qemu-system-arm -M mps2-an386 -semihosting. It checks the portable
 * kernels as built for the M4 (hard float, -O2) against naive references
 * written here: conv2d (stride 2 + asymmetric padding, dilation 2 +
 * groups 3, 1x1, depthwise, block edges), gemm (and its M = 1 path),
 * batched matmul, pooling, broadcast add, relu, sigmoid, exp, softmax,
 * concat and transpose.
 * Tolerance: max |got - ref| / max(|ref|, 1) <= 1e-4 (float accumulation
 * on the M4 against double references; conv sums <= 400 terms).
 * Exit status 0 (via semihosting) only when every check passes.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "ln_rt.h"
#include "m4_semihost.h"
#include "s8_cases.h"

#define BUF 40000
static float X[BUF], W[BUF], B[1024], Y[BUF];
static double R[BUF];
/* scratch for the largest case below; conv_test checks the kernel's
 * ..._scratch_size() against it */
static float SCR[(144 + 208) * 256 + 64] __attribute__((aligned(16)));
static uint32_t seed;
static int failures, checks;

static void fill(float *p, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static void put_uint(unsigned v)
{
    char b[12];
    int i = 11;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    sh_puts(b + i);
}

static void check(const char *name, const float *got, const double *ref,
                  int n)
{
    double m = 0;
    int i;
    for (i = 0; i < n; i++) {
        double r = ref[i], e = fabs((double)got[i] - r);
        e /= fabs(r) > 1.0 ? fabs(r) : 1.0;
        if (!(e <= m))
            m = e;
    }
    checks++;
    if (m <= 1e-4) {
        sh_puts("PASS ");
    } else {
        sh_puts("FAIL ");
        failures++;
    }
    sh_puts(name);
    sh_puts("  max err x1e9 = ");
    put_uint(m < 4.0 ? (unsigned)(m * 1e9) : 4000000000u);
    sh_puts("\n");
}

static double act(double v, ln_rt_act a)
{
    if (a == LN_RT_ACT_RELU)
        return v > 0 ? v : 0;
    if (a == LN_RT_ACT_RELU6)
        return v < 0 ? 0 : v > 6 ? 6 : v;
    return v;
}

static void conv_test(const char *name, int32_t n, int32_t c, int32_t h,
                      int32_t w, int32_t oc, int32_t k, int32_t s,
                      int32_t pt, int32_t pl, int32_t pb, int32_t pr,
                      int32_t d, int32_t g, ln_rt_act ac)
{
    ln_rt_conv2d_args a;
    int32_t oh, ow, cg = c / g, mg = oc / g, bi, o, y, x, ci, ky, kx;
    int ny;
    memset(&a, 0, sizeof(a));
    a.n = n; a.c = c; a.h = h; a.w = w; a.oc = oc; a.kh = k; a.kw = k;
    a.stride_h = s; a.stride_w = s; a.pad_top = pt; a.pad_left = pl;
    a.pad_bottom = pb; a.pad_right = pr; a.dil_h = d; a.dil_w = d;
    a.group = g; a.act = ac;
    oh = ln_rt_conv_out_size(h, k, s, pt, pb, d);
    ow = ln_rt_conv_out_size(w, k, s, pl, pr, d);
    ny = n * oc * oh * ow;
    fill(X, n * c * h * w);
    fill(W, oc * cg * k * k);
    fill(B, oc);
    for (bi = 0; bi < n; bi++)
        for (o = 0; o < oc; o++)
            for (y = 0; y < oh; y++)
                for (x = 0; x < ow; x++) {
                    double sum = B[o];
                    for (ci = 0; ci < cg; ci++)
                        for (ky = 0; ky < k; ky++)
                            for (kx = 0; kx < k; kx++) {
                                int32_t iy = y * s - pt + ky * d;
                                int32_t ix = x * s - pl + kx * d;
                                if (iy < 0 || iy >= h || ix < 0 || ix >= w)
                                    continue;
                                sum += (double)X[((bi * c + (o / mg) * cg +
                                                   ci) * h + iy) * w + ix] *
                                       W[((o * cg + ci) * k + ky) * k + kx];
                            }
                    R[((bi * oc + o) * oh + y) * ow + x] = act(sum, ac);
                }
    if (ln_rt_conv2d_f32_scratch_size(&a) > sizeof(SCR) ||
        ln_rt_conv2d_f32(&a, X, W, B, Y, SCR) != LN_RT_OK) {
        sh_puts("FAIL ");
        sh_puts(name);
        sh_puts(" (returned an error or needs more scratch)\n");
        failures++;
        checks++;
        return;
    }
    check(name, Y, R, ny);
}

static void gemm_test(void)
{
    ln_rt_gemm_args a;
    int32_t m = 13, n = 9, k = 21, i, j, p;
    memset(&a, 0, sizeof(a));
    a.m = m; a.n = n; a.k = k; a.trans_b = 1; a.alpha = 0.5f; a.beta = 1.0f;
    a.c_rows = 1; a.c_cols = n; a.act = LN_RT_ACT_RELU;
    fill(X, m * k); fill(W, n * k); fill(B, n);
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            double s = 0;
            for (p = 0; p < k; p++)
                s += (double)X[i * k + p] * W[j * k + p];
            R[i * n + j] = act(0.5 * s + B[j], LN_RT_ACT_RELU);
        }
    ln_rt_gemm_f32(&a, X, W, B, Y, SCR);
    check("gemm transB alpha bias relu", Y, R, m * n);
}

/* batch-1 fully connected layer (the gemv path: on the M4 eight rows, then
 * four, then one at a time), as in keyword spotting */
static void fc_test(const char *name, int32_t n, int32_t k, float alpha)
{
    ln_rt_gemm_args a;
    int32_t j, p;
    memset(&a, 0, sizeof(a));
    a.m = 1; a.n = n; a.k = k; a.trans_b = 1; a.alpha = alpha; a.beta = 1.0f;
    a.c_rows = 1; a.c_cols = n;
    fill(X, k); fill(W, n * k); fill(B, n);
    for (j = 0; j < n; j++) {
        double s = B[j];
        for (p = 0; p < k; p++)
            s += (double)alpha * X[p] * W[j * k + p];
        R[j] = s;
    }
    ln_rt_gemm_f32(&a, X, W, B, Y, SCR);
    check(name, Y, R, n);
}

static void transcendental_test(void)
{
    int i;
    fill(X, 200);
    for (i = 0; i < 200; i++)
        X[i] *= 20.0f;
    for (i = 0; i < 200; i++)
        R[i] = 1.0 / (1.0 + exp(-(double)X[i]));
    ln_rt_sigmoid_f32(X, Y, 200);
    check("sigmoid", Y, R, 200);
    for (i = 0; i < 200; i++)
        R[i] = exp((double)X[i] * 0.25);
    for (i = 0; i < 200; i++)
        X[i] *= 0.25f;
    ln_rt_exp_f32(X, Y, 200);
    check("exp", Y, R, 200);
}

static void matmul_test(void)
{
    ln_rt_matmul_args a;
    int32_t bt, i, j, p;
    memset(&a, 0, sizeof(a));
    a.ndim = 3;
    a.a_dims[0] = 3; a.a_dims[1] = 5; a.a_dims[2] = 7;
    a.b_dims[0] = 1; a.b_dims[1] = 7; a.b_dims[2] = 6;
    a.y_dims[0] = 3; a.y_dims[1] = 5; a.y_dims[2] = 6;
    fill(X, 105); fill(W, 42);
    for (bt = 0; bt < 3; bt++)
        for (i = 0; i < 5; i++)
            for (j = 0; j < 6; j++) {
                double s = 0;
                for (p = 0; p < 7; p++)
                    s += (double)X[(bt * 5 + i) * 7 + p] * W[p * 6 + j];
                R[(bt * 5 + i) * 6 + j] = s;
            }
    ln_rt_matmul_f32(&a, X, W, Y, SCR);
    check("matmul batched broadcast", Y, R, 90);
}

static void pool_test(void)
{
    ln_rt_pool2d_args a;
    int32_t q, y, x, ky, kx;
    memset(&a, 0, sizeof(a));
    a.n = 1; a.c = 3; a.h = 7; a.w = 5; a.oh = 4; a.ow = 3; a.kh = 3;
    a.kw = 3; a.stride_h = 2; a.stride_w = 2; a.pad_top = 1; a.pad_left = 1;
    a.pad_bottom = 1; a.pad_right = 1; a.dil_h = 1; a.dil_w = 1;
    fill(X, 105);
    for (q = 0; q < 3; q++)
        for (y = 0; y < 4; y++)
            for (x = 0; x < 3; x++) {
                double m = -1e30, s = 0;
                int cnt = 0;
                for (ky = 0; ky < 3; ky++)
                    for (kx = 0; kx < 3; kx++) {
                        int32_t iy = y * 2 - 1 + ky, ix = x * 2 - 1 + kx;
                        if (iy < 0 || iy >= 7 || ix < 0 || ix >= 5)
                            continue;
                        s += X[(q * 7 + iy) * 5 + ix];
                        cnt++;
                        if (X[(q * 7 + iy) * 5 + ix] > m)
                            m = X[(q * 7 + iy) * 5 + ix];
                    }
                R[(q * 4 + y) * 3 + x] = m;
                R[36 + (q * 4 + y) * 3 + x] = s / cnt;
            }
    ln_rt_maxpool2d_f32(&a, X, Y);
    ln_rt_avgpool2d_f32(&a, X, Y + 36);
    check("maxpool + avgpool 3x3 s2 p1", Y, R, 72);
}

static void misc_test(void)
{
    ln_rt_bcast_args ba;
    ln_rt_transpose_args ta;
    const float *srcs[2];
    int32_t ax[2] = { 2, 3 }, i, j, c;
    memset(&ba, 0, sizeof(ba));
    ba.ndim = 4;
    ba.a_dims[0] = 2; ba.a_dims[1] = 3; ba.a_dims[2] = 7; ba.a_dims[3] = 5;
    ba.b_dims[0] = 1; ba.b_dims[1] = 3; ba.b_dims[2] = 1; ba.b_dims[3] = 1;
    memcpy(ba.y_dims, ba.a_dims, sizeof(ba.y_dims));
    fill(X, 210); fill(W, 3);
    for (i = 0; i < 210; i++)
        R[i] = (double)X[i] + W[(i / 35) % 3];
    ln_rt_add_f32(&ba, X, W, Y);
    check("add per-channel broadcast", Y, R, 210);

    for (i = 0; i < 210; i++)
        R[i] = X[i] > 0 ? X[i] : 0;
    ln_rt_relu_f32(X, Y, 210);
    check("relu", Y, R, 210);

    for (i = 0; i < 3; i++) {
        double m = -1e30, s = 0;
        for (j = 0; j < 10; j++)
            m = X[i * 10 + j] > m ? X[i * 10 + j] : m;
        for (j = 0; j < 10; j++)
            s += exp(X[i * 10 + j] - m);
        for (j = 0; j < 10; j++)
            R[i * 10 + j] = exp(X[i * 10 + j] - m) / s;
    }
    ln_rt_softmax_f32(3, 10, 1, X, Y);
    check("softmax", Y, R, 30);

    srcs[0] = X; srcs[1] = W;
    fill(W, 12);
    for (i = 0; i < 2; i++)
        for (c = 0; c < 5; c++)
            for (j = 0; j < 2; j++)
                R[(i * 5 + c) * 2 + j] = c < 2 ? X[(i * 2 + c) * 2 + j]
                                               : W[(i * 3 + c - 2) * 2 + j];
    ln_rt_concat_f32(2, srcs, ax, 2, 2, Y);
    check("concat axis 1", Y, R, 20);

    memset(&ta, 0, sizeof(ta));
    ta.ndim = 3;
    ta.src_dims[0] = 3; ta.src_dims[1] = 4; ta.src_dims[2] = 5;
    ta.perm[0] = 2; ta.perm[1] = 0; ta.perm[2] = 1;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 3; j++)
            for (c = 0; c < 4; c++)
                R[(i * 3 + j) * 4 + c] = X[(j * 4 + c) * 5 + i];
    ln_rt_transpose_f32(&ta, X, Y);
    check("transpose 2,0,1", Y, R, 60);
}

int main(void)
{
    seed = 12345u;
    sh_puts("libln_rt Cortex-M4 kernel tests\n");
    conv_test("conv2d 3x3 s1 p1 relu, batch 2", 2, 3, 7, 5, 4, 3, 1, 1, 1,
              1, 1, 1, 1, LN_RT_ACT_RELU);
    conv_test("conv2d 3x3 s2 asym pads", 1, 3, 7, 5, 5, 3, 2, 1, 0, 2, 1, 1,
              1, LN_RT_ACT_NONE);
    conv_test("conv2d dil 2 groups 3", 2, 6, 9, 7, 6, 3, 1, 2, 2, 2, 2, 2, 3,
              LN_RT_ACT_NONE);
    conv_test("conv2d 1x1", 1, 16, 7, 5, 24, 1, 1, 0, 0, 0, 0, 1, 1,
              LN_RT_ACT_RELU6);
    conv_test("conv2d depthwise 3x3 s2", 1, 8, 9, 11, 8, 3, 2, 1, 1, 1, 1, 1,
              8, LN_RT_ACT_RELU6);
    conv_test("conv2d block edges K>256 N>192 M>120", 1, 40, 13, 17, 130, 3,
              1, 1, 1, 1, 1, 1, 1, LN_RT_ACT_NONE);
    conv_test("conv2d depthwise 3x3 s1 dil 2", 2, 4, 10, 13, 4, 3, 1, 2, 2,
              2, 2, 2, 4, LN_RT_ACT_NONE);
    gemm_test();
    fc_test("gemm M=1 (fully connected) transB bias", 12, 250, 1.0f);
    fc_test("gemm M=1, 15 outputs (8 + 4 + 3 rows), alpha 0.5", 15, 97, 0.5f);
    transcendental_test();
    matmul_test();
    pool_test();
    misc_test();
    {
        /* the int8 kernels against TensorFlow Lite, bit for bit */
        int n, f = s8_check_all(sh_puts, &n);
        checks++;
        if (f)
            failures++;
        sh_puts("int8: ");
        put_uint((unsigned)(n - f));
        sh_puts(" of ");
        put_uint((unsigned)n);
        sh_puts(" TensorFlow Lite reference cases bit-exact\n");
    }
    {
        int n, f = s8_check_nchw_random(400, 12345u, sh_puts, &n);
        checks++;
        if (f)
            failures++;
        sh_puts("int8 NCHW conv (DSP kernels): ");
        put_uint((unsigned)(n - f));
        sh_puts(" of ");
        put_uint((unsigned)n);
        sh_puts(" random geometries bit-exact with the definition\n");
    }
    {
        int n, f = s8_check_add_equal_scales(6, 4242u, sh_puts, &n);
        checks++;
        if (f)
            failures++;
        sh_puts("int8 add (fast paths of equal scales): ");
        put_uint((unsigned)(n - f));
        sh_puts(" of ");
        put_uint((unsigned)n);
        sh_puts(" runs of all 65,536 pairs bit-exact with TFLite's ADD\n");
    }
    {
        int n, f = s8_check_fc_random(200, 4242u, sh_puts, &n);
        checks++;
        if (f)
            failures++;
        sh_puts("int8 fully connected (DSP kernel): ");
        put_uint((unsigned)(n - f));
        sh_puts(" of ");
        put_uint((unsigned)n);
        sh_puts(" random shapes bit-exact with the definition\n");
    }
    {
        int n, f = s8_check_fixed_point(sh_puts, &n);
        checks++;
        if (f)
            failures++;
        sh_puts("requantization (double rounding): ");
        put_uint((unsigned)(n - f));
        sh_puts(" of ");
        put_uint((unsigned)n);
        sh_puts(" as TFLite's definitions\n");
    }
    {
        int n, f = s8_check_quantize(sh_puts, &n);
        checks++;
        if (f)
            failures++;
        sh_puts("quantize (ties to even, saturation, NaN): ");
        put_uint((unsigned)(n - f));
        sh_puts(" of ");
        put_uint((unsigned)n);
        sh_puts(" as rintf\n");
    }
    put_uint((unsigned)(checks - failures));
    sh_puts("/");
    put_uint((unsigned)checks);
    sh_puts(failures ? " checks passed: FAILED\n" : " checks passed: OK\n");
    return failures ? 1 : 0;
}
