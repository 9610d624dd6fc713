/*
 * interp_driver.c -- times a model in LightNet's interpreter (the ln_context
 * API), the same way bench/driver.c times the emitted C:
 *
 *   interp_driver MODEL(.onnx|.json) INPUT.bin OUTPUT.bin RUNS WARMUP [TIMES_FILE]
 *   interp_driver MODEL(.onnx|.json) INPUT.bin OUTPUT.bin --serve WARMUP
 *
 * Compiles the model for "cpu" with the graph inputs and outputs as caller
 * buffers (as `lightnet` and the emitted C do), loads it, sets the first
 * graph input from INPUT.bin, runs WARMUP untimed runs and RUNS timed ones
 * (ln_context_run alone, CLOCK_MONOTONIC), writes the first graph output to
 * OUTPUT.bin and prints one JSON line: {"median_ms","min_ms","mean_ms",
 * "runs","arena","lower_bound","lower_bound_noalias","noreuse","io","ops"}.
 * --serve: after loading, prints the same JSON memory fields (no times) on
 * one line, then serves "run K" / "quit" (bench_serve in bench_common.h).
 * Built by mk/bench.mk against build/liblightnet.a and the runtime.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"
#include "ln_interp.h"

static void fail(const char *what)
{
    fprintf(stderr, "interp_driver: %s: %s\n", what, ln_error_message());
    exit(1);
}

static int run_ctx(void *p)
{
    return ln_context_run(p);
}

int main(int argc, char **argv)
{
    ln_context *ctx;
    ln_list *ins, *outs;
    const char *in_name, *out_name;
    size_t in_bytes, out_bytes;
    void *in, *out;
    double *t;
    int runs, warmup, i;

    if (argc < 6 || argc > 7) {
        fputs("usage: interp_driver MODEL INPUT.bin OUTPUT.bin RUNS WARMUP [TIMES_FILE]\n",
              stderr);
        return 2;
    }
    runs = strcmp(argv[4], "--serve") ? atoi(argv[4]) : -1;
    warmup = atoi(argv[5]);
    if (!runs || warmup < 0)
        bench_die("interp_driver", "bad RUNS or WARMUP");
    in = bench_read(argv[2], &in_bytes);

    ctx = ln_context_create();
    if (ln_context_init(ctx, argv[1]))
        fail("init");
    ctx->io_in_arena = 0;
    if (ln_context_compile(ctx, "cpu"))
        fail("compile");
    if (!ctx->planned && ln_context_plan(ctx))
        fail("plan");
    if (ln_context_load(ctx, NULL))
        fail("load");
    ins = ln_context_inputs(ctx);
    outs = ln_context_outputs(ctx);
    if (!ins || !outs)
        bench_die("interp_driver", "the model has no graph input or output");
    in_name = ins->data;
    out_name = outs->data;
    if (ln_context_data_size(ctx, in_name) != in_bytes) {
        fprintf(stderr, "interp_driver: %s has %zu bytes, input '%s' needs %zu\n", argv[2],
                in_bytes, in_name, ln_context_data_size(ctx, in_name));
        return 1;
    }
    if (ln_context_set_data(ctx, in_name, in, in_bytes))
        fail("set input");
    out_bytes = ln_context_data_size(ctx, out_name);
    out = bench_alloc(out_bytes);
    if (runs < 0) {
        printf("{\"arena\":%zu,\"lower_bound\":%zu,\"lower_bound_noalias\":%zu,\"noreuse\":%zu,"
               "\"io\":%zu,\"ops\":%d}\n",
               ctx->arena_size, ctx->lower_bound, ctx->lower_bound_noalias, ctx->noreuse_size,
               ctx->io_size, ln_list_length(ctx->ops));
        if (bench_serve(run_ctx, ctx, warmup) != 0)
            fail("run");
        if (ln_context_get_data(ctx, out_name, out, out_bytes))
            fail("get output");
        bench_write(argv[3], out, out_bytes);
        ln_list_free(ins);
        ln_list_free(outs);
        ln_context_free(ctx);
        ln_arch_cleanup();
        free(out);
        free(in);
        return 0;
    }
    t = bench_alloc(sizeof *t * (size_t)runs);

    for (i = 0; i < warmup; i++)
        if (ln_context_run(ctx))
            fail("run");
    for (i = 0; i < runs; i++) {
        double t0 = bench_now_ms();
        int ret = ln_context_run(ctx);
        t[i] = bench_now_ms() - t0;
        if (ret)
            fail("run");
    }
    if (ln_context_get_data(ctx, out_name, out, out_bytes))
        fail("get output");
    bench_write(argv[3], out, out_bytes);
    bench_report(t, runs, argc > 6 ? argv[6] : NULL);
    printf(",\"arena\":%zu,\"lower_bound\":%zu,\"lower_bound_noalias\":%zu,\"noreuse\":%zu,"
           "\"io\":%zu,\"ops\":%d}\n",
           ctx->arena_size, ctx->lower_bound, ctx->lower_bound_noalias, ctx->noreuse_size,
           ctx->io_size, ln_list_length(ctx->ops));
    ln_list_free(ins);
    ln_list_free(outs);
    ln_context_free(ctx);
    ln_arch_cleanup();
    free(t);
    free(out);
    free(in);
    return 0;
}
