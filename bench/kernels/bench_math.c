/*
 * bench_math.c -- elements per nanosecond of libln_rt's transcendental
 * array kernels (exp, sigmoid, SiLU, tanh, erf, log, softplus) at each
 * instruction-set level the CPU has (ln_rt_isa_limit), beside the C
 * library's scalar functions (expf, 1 / (1 + expf(-x)), tanhf, erff,
 * logf, log1pf(expf(x))) in a plain loop compiled with the same flags, on
 * the same data. Two sizes: 4096 floats (16 KiB, in L1) and 1M (4 MiB,
 * beyond L2 on most parts: what a network's big activations see). Each
 * figure is the best of repeated timed passes (the machine may be
 * shared); the libm and LightNet rows of one function are timed
 * alternately. Not part of `make test`: `make -C runtime bench-math`.
 */
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ln_rt.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* y[i] = expr of x[i] (v) through libm */
#define LIBM_MAP(name, expr)                                                  \
    static void name(const float *x, float *y, size_t n)                      \
    {                                                                         \
        size_t i;                                                             \
        for (i = 0; i < n; i++) {                                             \
            const float v = x[i];                                             \
            y[i] = (expr);                                                    \
        }                                                                     \
    }
LIBM_MAP(libm_exp, expf(v))
LIBM_MAP(libm_sigmoid, 1.0f / (1.0f + expf(-v)))
LIBM_MAP(libm_silu, v / (1.0f + expf(-v)))
LIBM_MAP(libm_tanh, tanhf(v))
LIBM_MAP(libm_erf, erff(v))
LIBM_MAP(libm_log, logf(v))
LIBM_MAP(libm_softplus, v > 0.0f ? v + log1pf(expf(-v)) : log1pf(expf(v)))
#undef LIBM_MAP

typedef void (*arr_fn)(const float *, float *, size_t);

static const struct {
    const char *name;
    arr_fn lib, ln;
    float lo, hi; /* input range */
} fns[] = {
    { "exp", libm_exp, ln_rt_exp_f32, -10.0f, 10.0f },
    { "sigmoid", libm_sigmoid, ln_rt_sigmoid_f32, -10.0f, 10.0f },
    { "silu", libm_silu, ln_rt_silu_f32, -10.0f, 10.0f },
    { "tanh", libm_tanh, ln_rt_tanh_f32, -5.0f, 5.0f },
    { "erf", libm_erf, ln_rt_erf_f32, -4.0f, 4.0f },
    { "log", libm_log, ln_rt_log_f32, 0.001f, 1000.0f },
    { "softplus", libm_softplus, ln_rt_softplus_f32, -10.0f, 10.0f },
};

/* best seconds per pass of f over n elements */
static double best_pass(arr_fn f, const float *x, float *y, size_t n, int level)
{
    double best = 1e30, t;
    int r, reps = n > 100000 ? 15 : 2000;
    if (level >= 0)
        ln_rt_isa_limit(level);
    f(x, y, n);
    for (r = 0; r < reps; r++) {
        t = now();
        f(x, y, n);
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}

int main(void)
{
    static const size_t sizes[] = { 4096, 1u << 20 };
    const char *lvl_name[] = { "portable", "AVX2", "AVX-512" };
    const int top = ln_rt_isa_limit(-1);
    size_t k, si, i;
    float *x = malloc(sizeof(float) << 20), *y = malloc(sizeof(float) << 20);
    uint32_t s = 12345;

    if (!x || !y)
        return 1;
    printf("libln_rt transcendental kernels, elements per ns (best of repeated "
           "passes, one thread); levels up to %s; libm: the C library's scalar "
           "functions in a loop\n\n", lvl_name[top]);
    printf("%-9s %8s %8s", "function", "n", "libm");
    for (k = 0; k <= (size_t)top; k++)
        printf(" %9s", lvl_name[k]);
    printf("  best/libm\n");
    for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        for (k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
            double tl, t[3], best;
            int lv;
            for (i = 0; i < n; i++) {
                s = s * 1664525u + 1013904223u;
                x[i] = fns[k].lo + (fns[k].hi - fns[k].lo) *
                                       ((float)(s >> 8) / 16777216.0f);
            }
            tl = best_pass(fns[k].lib, x, y, n, -1);
            best = 1e30;
            for (lv = 0; lv <= top; lv++) {
                t[lv] = best_pass(fns[k].ln, x, y, n, lv);
                best = t[lv] < best ? t[lv] : best;
            }
            /* a second libm pass after them: the best of both */
            {
                double t2 = best_pass(fns[k].lib, x, y, n, -1);
                tl = t2 < tl ? t2 : tl;
            }
            printf("%-9s %8zu %8.3f", fns[k].name, n, (double)n / tl * 1e-9);
            for (lv = 0; lv <= top; lv++)
                printf(" %9.3f", (double)n / t[lv] * 1e-9);
            printf("  %8.1fx\n", tl / best);
        }
    }
    ln_rt_isa_limit(top);
    free(x);
    free(y);
    return 0;
}
