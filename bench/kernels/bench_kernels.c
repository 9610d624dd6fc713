/*
 * bench_kernels.c -- single-threaded GFLOP/s of libln_rt's conv2d (ResNet-18
 * 3x3 layers, MobileNetV2 1x1 and depthwise layers) and gemm, beside the
 * machine's measured peak FMA rate, plus the layers of the MLPerf Tiny
 * models (DS-CNN, MobileNetV1 0.25 at 96x96, ResNet-8, the FC autoencoder)
 * and LeNet-5, and batch-1 fully connected layers (gemm M = 1). Arguments
 * select rows by name substring. Not part of `make test`.
 *
 * Peak: a tight loop of 12 independent FMA chains on 8-float (AVX2) vectors
 * -- 12 chains cover the 4-cycle FMA latency on 2 FMA ports -- timed over
 * 2^18 iterations (~1 ms), best of 200 (like the layers' best-of times: one
 * long loop on a shared machine reads the other tenants' load, and came out
 * below what the GEMM kernel reaches); that is what the AVX2 micro-kernel
 * could reach on this core at its current clock. If the CPU has AVX-512 the
 * same loop on 16-float vectors is also reported (the AVX-512 kernels'
 * ceiling) and "of peak" is against it, else against the AVX2 figure. Depthwise rows
 * run ln_rt_conv2d_depthwise_f32 (what the compiler picks for them); they
 * are memory-bound, 9 FMAs per output, so their "of peak" is low by
 * nature. Each layer's time is the best of at least
 * 3-20 runs and ~30 ms of runs after a warm-up.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ln_rt.h"
#include "ln_rt_internal.h"
#include "x86/conv2d_s2few_avx512.h"
#ifndef LN_RT_ISA_NAME /* older runtimes */
#define LN_RT_ISA_NAME (LN_RT_HAVE_AVX2 ? "AVX2+FMA" : "portable C")
#endif
#if LN_RT_HAVE_AVX2 && defined(__AVX2__)
#include <immintrin.h>
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fill(float *p, size_t n)
{
    uint32_t s = 1;
    size_t i;
    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
    }
}

static volatile float sink;

/* 12 independent FMA chains held in named registers (an array could be
 * spilled to memory); 2^25 iterations ~ 0.1-0.2 s. */
#define FMA12(F, a0, m, c)                                                    \
    do {                                                                      \
        a0 = F(a0, m, c); a1 = F(a1, m, c); a2 = F(a2, m, c);                 \
        a3 = F(a3, m, c); a4 = F(a4, m, c); a5 = F(a5, m, c);                 \
        a6 = F(a6, m, c); a7 = F(a7, m, c); a8 = F(a8, m, c);                 \
        a9 = F(a9, m, c); a10 = F(a10, m, c); a11 = F(a11, m, c);             \
    } while (0)

#if LN_RT_HAVE_AVX2 && defined(__AVX2__)
static double peak_avx2(long iters)
{
    __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    __m256 a0 = _mm256_set1_ps(0.f), a1 = _mm256_set1_ps(1.f),
           a2 = _mm256_set1_ps(2.f), a3 = _mm256_set1_ps(3.f),
           a4 = _mm256_set1_ps(4.f), a5 = _mm256_set1_ps(5.f),
           a6 = _mm256_set1_ps(6.f), a7 = _mm256_set1_ps(7.f),
           a8 = _mm256_set1_ps(8.f), a9 = _mm256_set1_ps(9.f),
           a10 = _mm256_set1_ps(10.f), a11 = _mm256_set1_ps(11.f);
    long it;
    double t0, t1;
    t0 = now();
    for (it = 0; it < iters; it++)
        FMA12(_mm256_fmadd_ps, a0, m, c);
    t1 = now();
    a0 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                       _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    a0 = _mm256_add_ps(a0, _mm256_add_ps(_mm256_add_ps(a8, a9),
                                         _mm256_add_ps(a10, a11)));
    sink = _mm256_cvtss_f32(a0);
    return (double)iters * 12 * 8 * 2 / (t1 - t0) * 1e-9;
}
#endif

#if defined(__AVX512F__)
static double peak_avx512(long iters)
{
    __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    __m512 a0 = _mm512_set1_ps(0.f), a1 = _mm512_set1_ps(1.f),
           a2 = _mm512_set1_ps(2.f), a3 = _mm512_set1_ps(3.f),
           a4 = _mm512_set1_ps(4.f), a5 = _mm512_set1_ps(5.f),
           a6 = _mm512_set1_ps(6.f), a7 = _mm512_set1_ps(7.f),
           a8 = _mm512_set1_ps(8.f), a9 = _mm512_set1_ps(9.f),
           a10 = _mm512_set1_ps(10.f), a11 = _mm512_set1_ps(11.f);
    long it;
    double t0, t1;
    t0 = now();
    for (it = 0; it < iters; it++)
        FMA12(_mm512_fmadd_ps, a0, m, c);
    t1 = now();
    a0 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                       _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    a0 = _mm512_add_ps(a0, _mm512_add_ps(_mm512_add_ps(a8, a9),
                                         _mm512_add_ps(a10, a11)));
    sink = _mm512_reduce_add_ps(a0);
    return (double)iters * 12 * 16 * 2 / (t1 - t0) * 1e-9;
}
#endif

typedef struct {
    const char *name;
    int32_t c, h, w, oc, kh, kw, s, pt, pl, pb, pr, g;
} layer;

/* square kernel k, stride s, symmetric padding k / 2 */
#define SQ(name, c, hw, oc, k, s, g)                                          \
    { name, c, hw, hw, oc, k, k, s, k / 2, k / 2, k / 2, k / 2, g }

static const layer layers[] = {
    SQ("resnet18 conv2_x 3x3", 64, 56, 64, 3, 1, 1),
    SQ("resnet18 conv3_x 3x3", 128, 28, 128, 3, 1, 1),
    SQ("resnet18 conv4_x 3x3", 256, 14, 256, 3, 1, 1),
    SQ("resnet18 conv5_x 3x3", 512, 7, 512, 3, 1, 1),
    SQ("resnet18 conv5_1 3x3 s2 256->512", 256, 14, 512, 3, 2, 1),
    { "resnet18 down 1x1 s2 256->512", 256, 14, 14, 512, 1, 1, 2, 0, 0, 0, 0,
      1 },
    SQ("resnet18 conv1 7x7 s2", 3, 224, 64, 7, 2, 1),
    SQ("mbv2 conv1 3x3 s2 3->32", 3, 224, 32, 3, 2, 1),
    { "sqz conv1 3x3 s2 3->64", 3, 224, 224, 64, 3, 3, 2, 0, 0, 0, 0, 1 },
    SQ("mbv2 1x1 expand 16->96 @112", 16, 112, 96, 1, 1, 1),
    SQ("mbv2 1x1 expand 24->144", 24, 56, 144, 1, 1, 1),
    SQ("mbv2 1x1 project 144->24", 144, 56, 24, 1, 1, 1),
    SQ("mbv2 1x1 expand 32->192", 32, 28, 192, 1, 1, 1),
    SQ("mbv2 1x1 project 192->32", 192, 28, 32, 1, 1, 1),
    SQ("mbv2 1x1 expand 64->384", 64, 14, 384, 1, 1, 1),
    SQ("mbv2 1x1 project 384->64", 384, 14, 64, 1, 1, 1),
    SQ("mbv2 1x1 expand 160->960", 160, 7, 960, 1, 1, 1),
    SQ("mbv2 1x1 project 960->320", 960, 7, 320, 1, 1, 1),
    SQ("mbv2 1x1 320->1280 @7", 320, 7, 1280, 1, 1, 1),
    SQ("mbv2 dw 3x3 s2 96 @112", 96, 112, 96, 3, 2, 96),
    SQ("mbv2 dw 3x3 144 @56", 144, 56, 144, 3, 1, 144),
    SQ("mbv2 dw 3x3 s2 144 @56", 144, 56, 144, 3, 2, 144),
    SQ("mbv2 dw 3x3 192 @28", 192, 28, 192, 3, 1, 192),
    SQ("mbv2 dw 3x3 384 @14", 384, 14, 384, 3, 1, 384),
    SQ("mbv2 dw 3x3 960 @7", 960, 7, 960, 3, 1, 960),
    /* MLPerf Tiny KWS DS-CNN: 49x10 MFCC, conv 10x4 s2 'same' -> 25x5 */
    { "dscnn conv1 10x4 s2", 1, 49, 10, 64, 10, 4, 2, 4, 1, 5, 1, 1 },
    { "dscnn dw 3x3 64 @25x5", 64, 25, 5, 64, 3, 3, 1, 1, 1, 1, 1, 64 },
    { "dscnn pw 64->64 @25x5", 64, 25, 5, 64, 1, 1, 1, 0, 0, 0, 0, 1 },
    /* MLPerf Tiny VWW MobileNetV1 0.25 at 96x96 */
    SQ("mbv1 conv1 3x3 s2 3->8", 3, 96, 8, 3, 2, 1),
    SQ("mbv1 dw 8 @48", 8, 48, 8, 3, 1, 8),
    SQ("mbv1 pw 8->16 @48", 8, 48, 16, 1, 1, 1),
    SQ("mbv1 dw s2 16 @48", 16, 48, 16, 3, 2, 16),
    SQ("mbv1 pw 16->32 @24", 16, 24, 32, 1, 1, 1),
    SQ("mbv1 dw 32 @24", 32, 24, 32, 3, 1, 32),
    SQ("mbv1 pw 32->32 @24", 32, 24, 32, 1, 1, 1),
    SQ("mbv1 dw s2 32 @24", 32, 24, 32, 3, 2, 32),
    SQ("mbv1 pw 32->64 @12", 32, 12, 64, 1, 1, 1),
    SQ("mbv1 dw 64 @12", 64, 12, 64, 3, 1, 64),
    SQ("mbv1 pw 64->64 @12", 64, 12, 64, 1, 1, 1),
    SQ("mbv1 pw 64->128 @6", 64, 6, 128, 1, 1, 1),
    SQ("mbv1 dw 128 @6", 128, 6, 128, 3, 1, 128),
    SQ("mbv1 pw 128->128 @6", 128, 6, 128, 1, 1, 1),
    SQ("mbv1 pw 128->256 @3", 128, 3, 256, 1, 1, 1),
    SQ("mbv1 dw 256 @3", 256, 3, 256, 3, 1, 256),
    SQ("mbv1 pw 256->256 @3", 256, 3, 256, 1, 1, 1),
    /* MLPerf Tiny IC ResNet-8 (32x32 CIFAR) */
    SQ("resnet8 conv1 3x3 3->16", 3, 32, 16, 3, 1, 1),
    SQ("resnet8 3x3 16->16 @32", 16, 32, 16, 3, 1, 1),
    SQ("resnet8 3x3 s2 16->32", 16, 32, 32, 3, 2, 1),
    SQ("resnet8 3x3 32->32 @16", 32, 16, 32, 3, 1, 1),
    { "resnet8 1x1 s2 16->32", 16, 32, 32, 32, 1, 1, 2, 0, 0, 0, 0, 1 },
    SQ("resnet8 3x3 s2 32->64", 32, 16, 64, 3, 2, 1),
    SQ("resnet8 3x3 64->64 @8", 64, 8, 64, 3, 1, 1),
    /* LeNet-5 */
    SQ("lenet conv1 5x5 1->6 @28", 1, 28, 6, 5, 1, 1),
    { "lenet conv2 5x5 6->16 @14", 6, 14, 14, 16, 5, 5, 1, 0, 0, 0, 0, 1 },
    /* DenseNet-121 (dense block 1 at 56x56: six 3x3 128->32 convs, 1x1
     * convs from the growing concat to 128) and SqueezeNet 1.1 (fire
     * expand3x3 16..64 -> 64..256, classifier 1x1 512 -> 1000 at 13x13) */
    SQ("densenet 3x3 128->32 @56", 128, 56, 32, 3, 1, 1),
    SQ("densenet 3x3 128->32 @28", 128, 28, 32, 3, 1, 1),
    SQ("densenet 3x3 128->32 @14", 128, 14, 32, 3, 1, 1),
    SQ("densenet 1x1 256->128 @56", 256, 56, 128, 1, 1, 1),
    SQ("densenet 1x1 128->128 @56", 128, 56, 128, 1, 1, 1),
    SQ("densenet 1x1 64->128 @56", 64, 56, 128, 1, 1, 1),
    SQ("densenet 1x1 512->128 @28", 512, 28, 128, 1, 1, 1),
    SQ("densenet 1x1 1024->128 @14", 1024, 14, 128, 1, 1, 1),
    SQ("sqz expand3x3 16->64 @55", 16, 55, 64, 3, 1, 1),
    SQ("sqz expand3x3 64->256 @13", 64, 13, 256, 3, 1, 1),
    SQ("sqz classifier 512->1000", 512, 13, 1000, 1, 1, 1),
};

static double best_time(int (*run)(const void *), const void *ctx,
                        double flops)
{
    double best = 1e30, t, t0;
    int r, reps = flops > 1e9 ? 3 : flops > 1e8 ? 6 : 20;
    run(ctx); /* warm-up */
    t0 = now();
    /* at least reps runs and ~30 ms, so microsecond layers get thousands */
    for (r = 0; r < reps || (now() - t0 < 0.03 && r < 100000); r++) {
        t = now();
        run(ctx);
        t = now() - t;
        best = t < best ? t : best;
    }
    (void)flops;
    return best;
}

typedef struct {
    ln_rt_conv2d_args a;
    const float *x, *w, *b;
    float *y;
    void *scr;
} conv_ctx;

static int run_conv(const void *p)
{
    const conv_ctx *c = p;
    /* depthwise layers: the kernel the compiler gives them
     * (conv2d_dw_cpu), not the grouped GEMM path */
    if (c->a.group > 1 && c->a.group == c->a.c && c->a.oc == c->a.c)
        return ln_rt_conv2d_depthwise_f32(&c->a, c->x, c->w, c->b, c->y,
                                          c->scr);
    return ln_rt_conv2d_f32(&c->a, c->x, c->w, c->b, c->y, c->scr);
}

#if LN_RT_HAVE_AVX512
/* the AVX-512 direct kernel alone, beside layers the GEMM path takes
 * (rows "(same, direct)" when LN_BENCH_DIRECT is set in the environment) */
static int run_conv_direct(const void *p)
{
    const conv_ctx *c = p;
    return ln_rt__conv2d_direct_f32_avx512(&c->a, c->x, c->w, c->b, c->y)
               ? 0 : 1;
}
#endif

/* the GEMM path alone, beside layers the direct kernel takes */
static int run_conv_gemm(const void *p)
{
    const conv_ctx *c = p;
    return ln_rt__conv2d_gemm_f32_isa(ln_rt__gemm_isa_default(), &c->a, c->x,
                                      c->w, c->b, c->y, c->scr);
}

/* what ran before x86/conv2d_s2few_avx512.c took the stride-2 convs of
 * 1-4 input channels: the other direct kernel or the GEMM path */
static int run_conv_pre_s2few(const void *p)
{
    const conv_ctx *c = p;
#if LN_RT_HAVE_AVX512
    if (ln_rt__gemm_isa_default() == &ln_rt__gemm_isa_avx512 &&
        ln_rt__conv2d_direct_ok(&c->a))
        return ln_rt__conv2d_direct_f32_avx512(&c->a, c->x, c->w, c->b, c->y)
                   ? 0 : 1;
#endif
    return run_conv_gemm(p);
}

/* a MobileNetV2 expand as the networks run it, fused with the 3x3
 * depthwise conv after it (stride dws, pads 1) in ln_rt_conv2d_pwdw_f32,
 * the depthwise half not run: in bands of the depthwise conv's output
 * rows (every channel over a band's input rows, the rows two bands share
 * computed once), or in blocks of output channels over the whole map,
 * into the same scratch planes (they stay in L2) */
typedef struct {
    conv_ctx c;
    ln_rt_conv2d_args d; /* the depthwise conv */
} pw_ctx;

static void pw_dw_args(const ln_rt_conv2d_args *pw, int32_t s,
                       ln_rt_conv2d_args *d)
{
    *d = *pw;
    d->c = d->oc = d->group = pw->oc;
    d->kh = d->kw = 3;
    d->stride_h = d->stride_w = s;
    d->pad_top = d->pad_left = d->pad_bottom = d->pad_right = 1;
}

static int run_conv_pw_fused(const void *p)
{
    const pw_ctx *q = p;
    const conv_ctx *c = &q->c;
    const ln_rt_conv2d_args d = q->d;
    int32_t rows, oh, oy0, b1 = 0, m0;
    int ret = 0;
    oh = ln_rt_conv_out_size(d.h, 3, d.stride_h, 1, 1, 1);
    if (!ln_rt__conv2d_pwdw_plan(&c->a, &d, &rows)) {
        for (m0 = 0; m0 < c->a.oc && !ret; m0 += rows) {
            ln_rt_conv2d_args b = c->a;
            b.oc = c->a.oc - m0 < rows ? c->a.oc - m0 : rows;
            ret = ln_rt_conv2d_f32(&b, c->x, c->w + (size_t)m0 * c->a.c,
                                   c->b + m0, c->y, c->scr);
        }
        return ret;
    }
    for (oy0 = 0; oy0 < oh; oy0 += rows) {
        const int32_t oy1 = oh - oy0 < rows ? oh : oy0 + rows;
        int32_t r0 = oy0 * d.stride_h - 1, r1 = (oy1 - 1) * d.stride_h + 2;
        int32_t k0;
        r0 = r0 < 0 ? 0 : r0;
        r1 = r1 > d.h ? d.h : r1;
        k0 = r0 < b1 ? b1 : r0;
        if (r1 > k0)
            ln_rt__conv2d_gemm_rows_f32(
                &c->a, c->x, c->w, c->b, c->y + (size_t)(k0 - r0) * d.w,
                (size_t)(r1 - r0) * d.w, k0, r1, c->scr);
        b1 = r1;
    }
    return 0;
}

/* the Winograd kernel on weights transformed beforehand (c->w) */
static int run_conv_wino(const void *p)
{
    const conv_ctx *c = p;
    return ln_rt_conv2d_wino_f32(&c->a, c->x, c->w, c->b, c->y, c->scr);
}

/* the packed small-map kernel on weights packed beforehand (c->w) */
static int run_conv_packed(const void *p)
{
    const conv_ctx *c = p;
    return ln_rt_conv2d_packed_f32(&c->a, c->x, c->w, c->b, c->y, c->scr);
}

/* the same with input and output channels-last (a channels-last edge) */
static int run_conv_packed_nhwc(const void *p)
{
    const conv_ctx *c = p;
    return ln_rt_conv2d_packed_nhwc_f32(&c->a, LN_RT_NHWC_SRC | LN_RT_NHWC_DST,
                                        c->x, c->w, c->b, c->y, c->scr);
}

/* the channels-last depthwise conv */
static int run_conv_dw_nhwc(const void *p)
{
    const conv_ctx *c = p;
    return ln_rt_conv2d_depthwise_nhwc_f32(&c->a, c->x, c->w, c->b, c->y,
                                           c->scr);
}

typedef struct {
    ln_rt_gemm_args a;
    const float *A, *B;
    float *Y;
    void *scr;
} gemm_ctx;

static int run_gemm(const void *p)
{
    const gemm_ctx *g = p;
    return ln_rt_gemm_f32(&g->a, g->A, g->B, NULL, g->Y, g->scr);
}

typedef struct {
    ln_rt_pool2d_args a;
    const float *x;
    float *y;
    int is_max;
} pool_ctx;

static int run_pool(const void *p)
{
    const pool_ctx *c = p;
    return c->is_max ? ln_rt_maxpool2d_f32(&c->a, c->x, c->y)
                     : ln_rt_avgpool2d_f32(&c->a, c->x, c->y);
}

/* n floats at a 64-byte boundary (never freed: the process ends) */
static float *aligned_floats(size_t n)
{
    char *p = malloc(n * sizeof(float) + 64);
    return p ? (float *)(((uintptr_t)p + 63) & ~(uintptr_t)63) : NULL;
}

static int selected(int argc, char **argv, const char *name)
{
    int i;
    if (argc < 2)
        return 1;
    for (i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return 1;
    return 0;
}

static void row(const char *name, const char *shape, double t, double flops,
                double peak)
{
    printf("%-28s %-18s %9.4f %9.1f %7.0f%%\n", name, shape, t * 1e3,
           flops / t * 1e-9, peak > 0 ? 100.0 * flops / t * 1e-9 / peak : 0.0);
}

/* usage: bench_kernels [name-substring ...] -- only the matching rows */
int main(int argc, char **argv)
{
    double peak = 0.0, peak512 = 0.0;
    size_t i;
    float *x, *w, *wp, *b, *y;
    void *scr;
    size_t big = (size_t)16 << 20;
    /* LN_RT_ISA_LIMIT=0|1|2 caps a dispatching build's kernels (as in
     * runtime/Makefile's test-dispatch): make CFLAGS_ARCH=
     * BUILD=build-portable build-portable/bench_kernels */
    const char *cap = getenv("LN_RT_ISA_LIMIT");

    if (cap && *cap)
        ln_rt_isa_limit(atoi(cap));

#if LN_RT_HAVE_AVX2 && defined(__AVX2__)
    {
        int r;
        for (r = 0; r < 200; r++) {
            double p = peak_avx2(1L << 18);
            peak = p > peak ? p : peak;
        }
    }
#endif
#if defined(__AVX512F__)
    {
        int r;
        for (r = 0; r < 200; r++) {
            double p = peak_avx512(1L << 17);
            peak512 = p > peak512 ? p : peak512;
        }
    }
#endif
    /* 64-byte aligned, as the networks' tensors of whole vectors lie in
     * their arena (malloc's 16 split every channels-last vector load
     * over two cache lines: DS-CNN's depthwise 1.5 us instead of 0.9) */
    x = aligned_floats(big); w = aligned_floats(big); wp = aligned_floats(big);
    b = aligned_floats(4096); y = aligned_floats(big);
    scr = aligned_floats((8 << 20) / sizeof(float));
    if (!x || !w || !wp || !b || !y || !scr)
        return 1;
    fill(x, big); fill(w, big); fill(b, 4096);

    printf("libln_rt kernel bench, 1 thread, ISA: %s\n", LN_RT_ISA_NAME);
    if (peak > 0)
        printf("peak (AVX2 FMA loop, 12 chains x 8 lanes): %.1f GFLOP/s\n",
               peak);
    if (peak512 > 0)
        printf("peak (AVX-512 FMA loop, 12 chains x 16 lanes): %.1f GFLOP/s"
               "\n", peak512);
    /* the kernels that run are the widest the CPU has: "of peak" is
     * against that ISA's FMA loop */
    if (peak512 > 0 && LN_RT_CPU_AVX512)
        peak = peak512;
    printf("(\"of peak\" is against the %s figure)\n",
           peak == peak512 ? "AVX-512" : "AVX2");
    printf("\n%-28s %-18s %9s %9s %8s\n", "layer", "CxHxW->OC", "ms",
           "GFLOP/s", "of peak");
    for (i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        const layer *l = &layers[i];
        conv_ctx c;
        int32_t oh, ow;
        double flops, t;
        char shape[40];
        if (!selected(argc, argv, l->name))
            continue;
        memset(&c.a, 0, sizeof(c.a));
        c.a.n = 1; c.a.c = l->c; c.a.h = l->h; c.a.w = l->w;
        c.a.oc = l->oc; c.a.kh = l->kh; c.a.kw = l->kw;
        c.a.stride_h = l->s; c.a.stride_w = l->s;
        c.a.pad_top = l->pt; c.a.pad_left = l->pl;
        c.a.pad_bottom = l->pb; c.a.pad_right = l->pr;
        c.a.dil_h = c.a.dil_w = 1; c.a.group = l->g;
        /* each layer's activation as in its network: MobileNetV2's
         * convs end in ReLU6 (its Clip 0..6) but for the projects, which
         * have none; the others in ReLU */
        c.a.act = !strstr(l->name, "mbv2") ? LN_RT_ACT_RELU
                  : strstr(l->name, "project") ? LN_RT_ACT_NONE
                                               : LN_RT_ACT_RELU6;
        oh = ln_rt_conv_out_size(l->h, l->kh, l->s, l->pt, l->pb, 1);
        ow = ln_rt_conv_out_size(l->w, l->kw, l->s, l->pl, l->pr, 1);
        if (ln_rt_conv2d_f32_scratch_size(&c.a) > (8u << 20) ||
            ln_rt_conv2d_depthwise_f32_scratch_size(&c.a) > (8u << 20))
            return 1;
        c.x = x; c.w = w; c.b = b; c.y = y; c.scr = scr;
        flops = 2.0 * l->oc * oh * ow * (l->c / l->g) * l->kh * l->kw;
        snprintf(shape, sizeof(shape), "%dx%dx%d->%d", l->c, l->h, l->w,
                 l->oc);
        if (LN_RT_HAVE_AVX512 && LN_RT_CPU_AVX512 &&
            ln_rt__conv2d_s2few_ok(&c.a)) {
            /* the stride-2 few-channel kernel against what ran before it,
             * alternated over 5 rounds: the best time of each */
            double to = 1e30, tt;
            int rd;
            t = 1e30;
            for (rd = 0; rd < 5; rd++) {
                tt = best_time(run_conv, &c, flops);
                t = tt < t ? tt : t;
                tt = best_time(run_conv_pre_s2few, &c, flops);
                to = tt < to ? tt : to;
            }
            row(l->name, shape, t, flops, peak);
            row(ln_rt__conv2d_direct_ok(&c.a) ? "  (before: direct)"
                                              : "  (before: GEMM path)",
                "", to, flops, peak);
            continue;
        }
        t = best_time(run_conv, &c, flops);
        row(l->name, shape, t, flops, peak);
        if (LN_RT_HAVE_AVX512 && l->g == 1 && ln_rt__conv2d_direct_ok(&c.a)) {
            t = best_time(run_conv_gemm, &c, flops);
            row("  (same, GEMM path)", "", t, flops, peak);
        }
#if LN_RT_HAVE_AVX512
        else if (LN_RT_CPU_AVX512 && l->g == 1 && getenv("LN_BENCH_DIRECT") &&
                 run_conv_direct(&c) == 0) {
            t = best_time(run_conv_direct, &c, flops);
            row("  (same, direct)", "", t, flops, peak);
        }
#endif
        if (strstr(l->name, "mbv2 1x1 expand") && l->h >= 28) {
            /* as fused with the depthwise conv after it: MobileNetV2's
             * features.2 (stride 2 after the 112x112 expand), 3 and 5
             * (stride 1) */
            pw_ctx q;
            int32_t rows;
            q.c = c;
            pw_dw_args(&c.a, l->h == 112 ? 2 : 1, &q.d);
            t = best_time(run_conv_pw_fused, &q, flops);
            row(ln_rt__conv2d_pwdw_plan(&c.a, &q.d, &rows)
                    ? "  (same, in pwdw's bands)"
                    : "  (same, in pwdw's blocks)",
                "", t, flops, peak);
        }
        if (ln_rt_conv2d_packed_ok(&c.a) &&
            ln_rt_conv2d_packed_f32_scratch_size(&c.a) <= (8u << 20)) {
            ln_rt_conv2d_f32_pack(&c.a, w, wp);
            c.w = wp;
            t = best_time(run_conv_packed, &c, flops);
            row("  (same, packed weights)", "", t, flops, peak);
            t = best_time(run_conv_packed_nhwc, &c, flops);
            row("  (same, packed, NHWC)", "", t, flops, peak);
            c.w = w;
        }
        if (l->g == l->c && l->oc == l->c && ln_rt_conv2d_depthwise_nhwc_ok(&c.a) &&
            ln_rt_conv2d_depthwise_nhwc_f32_scratch_size(&c.a) <= (8u << 20)) {
            t = best_time(run_conv_dw_nhwc, &c, flops);
            row("  (same, NHWC)", "", t, flops, peak);
        }
        /* what ln-aot picks for 3x3 stride 1 where it takes it: GFLOP/s
         * counts the direct conv's products, 2.25x the ones it does */
        if (ln_rt_conv2d_wino_ok(&c.a) &&
            ln_rt_conv2d_wino_f32_scratch_size(&c.a) <= (8u << 20) &&
            (size_t)16 * l->oc * l->c <= big) {
            ln_rt_conv2d_wino_f32_pack(&c.a, w, wp);
            c.w = wp;
            t = best_time(run_conv_wino, &c, flops);
            row("  (same, Winograd F(2,3))", "", t, flops, peak);
            c.w = w;
        }
    }
    {
        /* m, n, k, transB; M = 1 rows are batch-1 fully connected layers
         * with PyTorch Linear weights [N][K] (transB) */
        static const struct { const char *name; int32_t m, n, k, tb; } g[] = {
            { "gemm (FC 512->1000, transB)", 1, 1000, 512, 1 },
            { "ae FC 640->128 transB", 1, 128, 640, 1 },
            { "ae FC 128->128 transB", 1, 128, 128, 1 },
            { "ae FC 128->8 transB", 1, 8, 128, 1 },
            { "ae FC 128->640 transB", 1, 640, 128, 1 },
            { "lenet FC 400->120 transB", 1, 120, 400, 1 },
            { "dscnn FC 64->12 transB", 1, 12, 64, 1 },
            { "gemm M=1 4096x4096 (mem)", 1, 4096, 4096, 1 },
            { "gemm M=1 noT 1024x1024", 1, 1024, 1024, 0 },
            { "gemm MxNxK", 256, 256, 256, 0 },
            { "gemm MxNxK", 512, 512, 512, 0 },
            { "gemm MxNxK", 1024, 1024, 1024, 0 },
        };
        for (i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
            gemm_ctx c;
            double flops, t;
            char shape[40];
            if (!selected(argc, argv, g[i].name))
                continue;
            memset(&c.a, 0, sizeof(c.a));
            c.a.m = g[i].m; c.a.n = g[i].n; c.a.k = g[i].k;
            c.a.alpha = 1.0f; c.a.trans_b = g[i].tb;
            c.A = x; c.B = w; c.Y = y; c.scr = scr;
            flops = 2.0 * c.a.m * c.a.n * c.a.k;
            t = best_time(run_gemm, &c, flops);
            snprintf(shape, sizeof(shape), "%dx%dx%d", c.a.m, c.a.n, c.a.k);
            row(g[i].name, shape, t, flops, peak);
        }
    }
    {
        /* 2-D pooling of the benchmark models: the portable kernel
         * (ln_rt_isa_limit(0), what ran before the x86 ones) and the one
         * this CPU picks, alternated over 5 rounds; the best time of each */
        static const struct {
            const char *name;
            int32_t c, hw, k, s, pad, ceil_mode, is_max;
        } pl[] = {
            { "sqz maxpool 3x3 s2 ceil @111", 64, 111, 3, 2, 0, 1, 1 },
            { "sqz maxpool 3x3 s2 ceil @55", 128, 55, 3, 2, 0, 1, 1 },
            { "sqz maxpool 3x3 s2 ceil @27", 256, 27, 3, 2, 0, 1, 1 },
            { "resnet18 maxpool 3x3 s2 p1", 64, 112, 3, 2, 1, 0, 1 },
            { "densenet avgpool 2x2 s2 @56", 256, 56, 2, 2, 0, 0, 0 },
            { "densenet avgpool 2x2 s2 @28", 512, 28, 2, 2, 0, 0, 0 },
            { "densenet avgpool 2x2 s2 @14", 1024, 14, 2, 2, 0, 0, 0 },
        };
        const int top = ln_rt_isa_limit(-1);
        int hdr = 0;
        for (i = 0; i < sizeof(pl) / sizeof(pl[0]); i++) {
            pool_ctx c;
            double t0 = 1e30, t1 = 1e30, t;
            int32_t o = pl[i].hw + 2 * pl[i].pad - pl[i].k;
            int r;
            char shape[40];
            if (!selected(argc, argv, pl[i].name))
                continue;
            o = (pl[i].ceil_mode ? (o + pl[i].s - 1) / pl[i].s
                                 : o / pl[i].s) + 1;
            memset(&c.a, 0, sizeof(c.a));
            c.a.n = 1; c.a.c = pl[i].c; c.a.h = c.a.w = pl[i].hw;
            c.a.oh = c.a.ow = o; c.a.kh = c.a.kw = pl[i].k;
            c.a.stride_h = c.a.stride_w = pl[i].s;
            c.a.pad_top = c.a.pad_left = pl[i].pad;
            c.a.pad_bottom = c.a.pad_right = pl[i].pad;
            c.a.dil_h = c.a.dil_w = 1;
            c.x = x; c.y = y; c.is_max = pl[i].is_max;
            for (r = 0; r < 5; r++) {
                ln_rt_isa_limit(0);
                t = best_time(run_pool, &c, 0.0);
                t0 = t < t0 ? t : t0;
                ln_rt_isa_limit(top);
                t = best_time(run_pool, &c, 0.0);
                t1 = t < t1 ? t : t1;
            }
            if (!hdr++)
                printf("\n%-28s %-18s %9s %9s %7s\n", "pooling (best of 5)",
                       "CxHxW->OHxOW", "C ms", "ISA ms", "C/ISA");
            snprintf(shape, sizeof(shape), "%dx%dx%d->%dx%d", pl[i].c,
                     pl[i].hw, pl[i].hw, o, o);
            printf("%-28s %-18s %9.4f %9.4f %7.2f\n", pl[i].name, shape,
                   t0 * 1e3, t1 * 1e3, t0 / t1);
        }
    }
    /* the aligned buffers are not freed: the process ends */
    return 0;
}
