/*
 * bench_common.h -- what bench/driver.c (emitted C) and bench/interp_driver.c
 * (the interpreter) share: reading a raw float file, the clock, the median,
 * writing the output and the one-line JSON result that bench/run.js reads.
 *
 * Timing: CLOCK_MONOTONIC around each run alone, W warm-up runs first, the
 * median over N; bench/ort_bench.js times ONNX Runtime the same way.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bench_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void bench_die(const char *what, const char *msg)
{
    fprintf(stderr, "%s: %s\n", what, msg);
    exit(1);
}

/* n bytes (rounded up to 64), 64-byte aligned, zeroed; exits when out of memory. */
static void *bench_alloc(size_t n)
{
    void *p = NULL;
    n = (n + 64) / 64 * 64;
    if (posix_memalign(&p, 64, n) != 0 || !p)
        bench_die("bench", "out of memory");
    memset(p, 0, n);
    return p;
}

/* The whole file, 64-byte aligned; *n gets its byte count. */
static void *bench_read(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    long len;
    void *buf;

    if (!fp)
        bench_die(path, "cannot open");
    if (fseek(fp, 0, SEEK_END) != 0 || (len = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0)
        bench_die(path, "cannot size");
    buf = bench_alloc((size_t)len);
    if (len && fread(buf, 1, (size_t)len, fp) != (size_t)len)
        bench_die(path, "short read");
    fclose(fp);
    *n = (size_t)len;
    return buf;
}

static void bench_write(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp) != 0)
        bench_die(path, "cannot write");
}

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts t. */
static double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Writes the times (unsorted, before bench_report sorts them) when path is
 * set, then prints {"median_ms", "min_ms", "mean_ms", "runs"} without the
 * closing brace so the caller can add fields. */
static void bench_report(double *t, int n, const char *times_path)
{
    double sum = 0, med;
    int i;

    if (times_path) {
        FILE *fp = fopen(times_path, "w");
        if (!fp)
            bench_die(times_path, "cannot write");
        for (i = 0; i < n; i++)
            fprintf(fp, "%.6f\n", t[i]);
        fclose(fp);
    }
    for (i = 0; i < n; i++)
        sum += t[i];
    med = bench_median(t, n);
    printf("{\"median_ms\":%.6f,\"min_ms\":%.6f,\"mean_ms\":%.6f,\"runs\":%d", med, t[0],
           sum / n, n);
}

/*
 * Serve mode, for bench/run.js to interleave engines finely: after WARMUP
 * untimed runs, read commands from stdin, one a line:
 *   run K     K timed runs; answers one line with the K times in ms
 *   quit      return (the caller then writes its output)
 * Answers "error CODE" and returns it when a run fails.
 */
typedef int (*bench_run_fn)(void *arg);

static int bench_serve(bench_run_fn run, void *arg, int warmup)
{
    char line[128];
    int i, ret;

    for (i = 0; i < warmup; i++)
        if ((ret = run(arg)) != 0) {
            printf("error %d\n", ret);
            fflush(stdout);
            return ret;
        }
    printf("ready\n");
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        int k;
        if (!strncmp(line, "quit", 4))
            break;
        if (sscanf(line, "run %d", &k) != 1 || k <= 0) {
            printf("error bad command\n");
            fflush(stdout);
            continue;
        }
        for (i = 0; i < k; i++) {
            double t0 = bench_now_ms();
            ret = run(arg);
            t0 = bench_now_ms() - t0;
            if (ret) {
                printf("error %d\n", ret);
                fflush(stdout);
                return ret;
            }
            printf(i ? " %.6f" : "%.6f", t0);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

#endif
