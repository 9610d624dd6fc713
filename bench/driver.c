/*
 * driver.c -- times a model emitted by ln-aot.  bench/run.js compiles it per
 * model together with the emitted model.c (-O3 -march=native) and links
 * runtime/build/libln_rt.a:
 *
 *   cc -O3 -march=native -DBM_NAME=bm -DBM_UNAME=BM -DBM_HEADER='"bm.h"' \
 *      -I<dir> driver.c <dir>/bm.c runtime/build/libln_rt.a -lm
 *
 *   driver INPUT.bin OUTPUT.bin OUT_ELEMS RUNS WARMUP [TIMES_FILE]
 *   driver INPUT.bin OUTPUT.bin OUT_ELEMS --serve WARMUP
 *
 * The model has one float input and one float output (all the benchmark
 * models do).  The arena is allocated once, 64-byte aligned; each run is
 * timed alone with CLOCK_MONOTONIC after WARMUP untimed runs.  Prints one
 * JSON line {"median_ms","min_ms","mean_ms","runs","arena"}; the output of
 * the last run goes to OUTPUT.bin.  With --serve it runs WARMUP times, then
 * takes "run K" / "quit" commands on stdin (bench_serve in bench_common.h),
 * so bench/run.js can interleave it finely with the other engines.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#ifndef BM_NAME
#define BM_NAME bm
#define BM_UNAME BM
#endif
#ifndef BM_HEADER
#define BM_HEADER "bm.h"
#endif
#include BM_HEADER

#define BM_CAT_(a, b) a##b
#define BM_CAT(a, b) BM_CAT_(a, b)
#define BM_RUN BM_CAT(BM_NAME, _run)
#define BM_ARENA BM_CAT(BM_UNAME, _ARENA_SIZE)

typedef struct bm_call {
    void *arena;
    const float *in;
    float *out;
} bm_call;

static int bm_call_run(void *p)
{
    bm_call *c = p;
    return BM_RUN(c->arena, c->in, c->out);
}

int main(int argc, char **argv)
{
    size_t in_bytes, out_elems, arena_bytes = (size_t)(BM_ARENA);
    float *in, *out;
    void *arena;
    double *t;
    int runs, warmup, i, ret;

    if (argc < 6 || argc > 7) {
        fputs("usage: driver INPUT.bin OUTPUT.bin OUT_ELEMS RUNS WARMUP [TIMES_FILE]\n", stderr);
        return 2;
    }
    in = bench_read(argv[1], &in_bytes);
    out_elems = (size_t)strtoul(argv[3], NULL, 10);
    runs = strcmp(argv[4], "--serve") ? atoi(argv[4]) : -1;
    warmup = atoi(argv[5]);
    if (!out_elems || !runs || warmup < 0)
        bench_die("driver", "bad OUT_ELEMS, RUNS or WARMUP");
    out = bench_alloc(out_elems * sizeof(float));
    arena = bench_alloc(arena_bytes);
    if (runs < 0) {
        bm_call c;
        c.arena = arena;
        c.in = in;
        c.out = out;
        if ((ret = bench_serve(bm_call_run, &c, warmup)) != 0)
            return 1;
        bench_write(argv[2], out, out_elems * sizeof(float));
        return 0;
    }
    t = bench_alloc(sizeof *t * (size_t)runs);

    for (i = 0; i < warmup; i++)
        if ((ret = BM_RUN(arena, in, out)) != 0) {
            fprintf(stderr, "driver: run returned %d\n", ret);
            return 1;
        }
    for (i = 0; i < runs; i++) {
        double t0 = bench_now_ms();
        ret = BM_RUN(arena, in, out);
        t[i] = bench_now_ms() - t0;
        if (ret != 0) {
            fprintf(stderr, "driver: run returned %d\n", ret);
            return 1;
        }
    }
    bench_write(argv[2], out, out_elems * sizeof(float));
    bench_report(t, runs, argc > 6 ? argv[6] : NULL);
    printf(",\"arena\":%zu,\"input_bytes\":%zu}\n", arena_bytes, in_bytes);
    free(t);
    free(arena);
    free(out);
    free(in);
    return 0;
}
