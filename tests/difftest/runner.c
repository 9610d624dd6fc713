/*
 * runner.c -- the interpreter side of the differential tester.
 *
 *   runner DIR...
 *
 * Each DIR holds model.onnx, inputs.txt and outs.txt (the graph inputs and
 * outputs, one name a line) and in_<k>.bin, the k-th input as raw float32.
 * The model is compiled and run in four configs, each from a fresh context:
 *   plan     the default compile (folding, fusion, planned arena)
 *   noreuse  the same compile with a debug plan: no tensor shares bytes
 *   O0       the expander only: no folding, no fusion
 *   io       the default compile with graph inputs and outputs in the arena
 * Each config runs twice, the arena and the output buffers filled first with
 * 0xff bytes (NaN) and then with 0x42 bytes (48.56), and the two runs must
 * give the same bits: a kernel that reads memory nothing wrote, or a plan
 * that lets one tensor clobber another, shows up here even when the value
 * happens to be right.  Output k of config CFG goes to DIR/CFG_<k>.bin.  A
 * config the library refuses writes DIR/CFG.err (the message); a difference
 * between the two runs writes DIR/CFG.err starting with "BUG:".  The memory
 * plan's invariant is checked after every plan by the library.
 *
 * "BEGIN DIR" goes to stderr before each model, so that the Python side can
 * name the model of a crash.  Exit status 0 unless the command line is
 * wrong: the Python side compares.  One process for many graphs keeps the
 * tester fast.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln_arch.h"
#include "ln_interp.h"
#include "ln_util.h"

#define NCFG 4
static const char *const cfgs[NCFG] = {"plan", "noreuse", "O0", "io"};

static void put_err(const char *dir, const char *cfg, const char *msg)
{
    char path[4096];
    FILE *fp;

    snprintf(path, sizeof path, "%s/%s.err", dir, cfg);
    if ((fp = fopen(path, "w"))) {
        fprintf(fp, "%s\n", msg);
        fclose(fp);
    }
}

static void *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    void *buf;
    long n;

    *len = 0;
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    rewind(fp);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (n > 0 && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    *len = n > 0 ? (size_t)n : 0;
    return buf;
}

/* The lines of DIR/FILE (at most 64), a NULL after the last. */
static int read_names(const char *dir, const char *file, char names[64][512], int *n)
{
    char path[4096];
    FILE *fp;

    *n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (!(fp = fopen(path, "r")))
        return ln_error(LN_EIO, "%s: cannot open", path);
    while (*n < 64 && fgets(names[*n], 512, fp)) {
        names[*n][strcspn(names[*n], "\n")] = '\0';
        if (names[*n][0])
            (*n)++;
    }
    fclose(fp);
    return 0;
}

/* One run on an arena and output buffers full of `fill`; the outputs into
 * outs[k] (malloc'ed here). */
static int run_filled(ln_context *ctx, const char *dir, char in[64][512], int nin,
                      char out[64][512], int nout, int fill, void **outs, size_t *sizes)
{
    char path[4096];
    int k;

    if (ctx->arena_size)
        memset(ctx->arena, fill, ctx->arena_size);
    for (k = 0; k < nout; k++) {
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, out[k]);
        if (!te)
            return ln_error(LN_ENOTFOUND, "output '%s' not found", out[k]);
        /* a constant output (folded) is the constants' own memory */
        if (!te->isstatic && te->tensor->data && te->tensor->owns_data)
            memset(te->tensor->data, fill, ln_tensor_size(te->tensor));
    }
    for (k = 0; k < nin; k++) {
        size_t len = 0, want = ln_context_data_size(ctx, in[k]);
        void *buf;
        int ret;
        snprintf(path, sizeof path, "%s/in_%d.bin", dir, k);
        if (!(buf = slurp(path, &len)) || len != want) {
            free(buf);
            return ln_error(LN_EIO, "%s: missing or %zu bytes, want %zu", path, len, want);
        }
        ret = ln_context_set_data(ctx, in[k], buf, len);
        free(buf);
        if (ret)
            return ret;
    }
    if ((k = ln_context_run(ctx)))
        return k;
    for (k = 0; k < nout; k++) {
        int ret;
        sizes[k] = ln_context_data_size(ctx, out[k]);
        outs[k] = malloc(sizes[k] ? sizes[k] : 1);
        if ((ret = ln_context_get_data(ctx, out[k], outs[k], sizes[k])))
            return ret;
    }
    return 0;
}

static void run_one(const char *dir, int cfg)
{
    char path[4096], msg[2048];
    static char in[64][512], out[64][512];
    void *o1[64] = {0}, *o2[64] = {0};
    size_t s1[64], s2[64];
    ln_context *ctx = ln_context_create();
    int nin, nout, k;

    ctx->plan_noreuse = cfg == 1;
    ctx->no_opt = cfg == 2;
    ctx->io_in_arena = cfg == 3;
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if (read_names(dir, "inputs.txt", in, &nin) || read_names(dir, "outs.txt", out, &nout) ||
        ln_context_init(ctx, path) || ln_context_compile(ctx, "cpu") ||
        (!ctx->planned && ln_context_plan(ctx)) || ln_context_load(ctx, NULL) ||
        run_filled(ctx, dir, in, nin, out, nout, 0xff, o1, s1) ||
        run_filled(ctx, dir, in, nin, out, nout, 0x42, o2, s2)) {
        put_err(dir, cfgs[cfg], ln_error_message());
        goto done;
    }
    for (k = 0; k < nout; k++)
        if (s1[k] != s2[k] || memcmp(o1[k], o2[k], s1[k])) {
            snprintf(msg, sizeof msg, "BUG: output '%s' differs between two runs on arenas "
                     "filled with different bytes (a read of memory nothing wrote, or a "
                     "tensor overwritten while still needed)", out[k]);
            put_err(dir, cfgs[cfg], msg);
            goto done;
        }
    for (k = 0; k < nout; k++) {
        FILE *fp;
        snprintf(path, sizeof path, "%s/%s_%d.bin", dir, cfgs[cfg], k);
        if (!(fp = fopen(path, "wb")) || fwrite(o1[k], 1, s1[k], fp) != s1[k]) {
            if (fp)
                fclose(fp);
            put_err(dir, cfgs[cfg], "cannot write the output file");
            goto done;
        }
        fclose(fp);
    }
done:
    for (k = 0; k < 64; k++) {
        free(o1[k]);
        free(o2[k]);
    }
    ln_context_unload(ctx);
    ln_context_free(ctx);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: runner DIR...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        fprintf(stderr, "BEGIN %s\n", argv[i]);
        fflush(stderr);
        for (int c = 0; c < NCFG; c++)
            run_one(argv[i], c);
    }
    ln_arch_cleanup();
    return 0;
}
