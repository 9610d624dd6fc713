/*
 * runner.c -- the interpreter side of the differential tester.
 *
 *   runner DIR...
 *
 * Each DIR holds model.onnx, in_<name>.bin per graph input (raw float32)
 * and outs.txt (the graph outputs, one name a line).  The model is
 * compiled and run three ways, each from a fresh context:
 *   plan     the default compile (folding, fusion, planned arena)
 *   noreuse  the same compile with a debug plan: no tensor shares bytes
 *   O0       the expander only: no folding, no fusion
 * and output <name> of config <cfg> is written to DIR/<cfg>_<name>.bin.
 * A config that fails writes DIR/<cfg>.err (the message) instead.  The
 * memory plan's invariant is checked after every plan by the library.
 * Exit status 0 unless the command line is wrong: the Python side
 * compares.  One process for many graphs keeps the tester fast.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln_arch.h"
#include "ln_context.h"
#include "ln_util.h"

static const char *const cfgs[] = {"plan", "noreuse", "O0"};

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

/* 0, or -1 with the message in DIR/<cfg>.err */
static int run_one(const char *dir, int cfg)
{
    char path[4096], line[1024];
    ln_context *ctx = ln_context_create();
    ln_list *ins;
    FILE *fp;
    int ret = -1;

    ctx->plan_noreuse = cfg == 1;
    ctx->no_opt = cfg == 2;
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if (ln_context_init(ctx, path) || ln_context_compile(ctx, "cpu") ||
        (!ctx->planned && ln_context_plan(ctx)) || ln_context_load(ctx, NULL))
        goto fail;
    ins = ln_context_inputs(ctx);
    LN_LIST_FOREACH(char, name, ins) {
        size_t len = 0, want = ln_context_data_size(ctx, name);
        void *buf;
        snprintf(path, sizeof path, "%s/in_%s.bin", dir, name);
        if (!(buf = slurp(path, &len)) || len != want) {
            free(buf);
            ln_list_free(ins);
            ln_error(LN_EIO, "%s: missing or %zu bytes, want %zu", path, len, want);
            goto fail;
        }
        if (ln_context_set_data(ctx, name, buf, len)) {
            free(buf);
            ln_list_free(ins);
            goto fail;
        }
        free(buf);
    }
    ln_list_free(ins);
    if (ln_context_run(ctx))
        goto fail;
    snprintf(path, sizeof path, "%s/outs.txt", dir);
    if (!(fp = fopen(path, "r"))) {
        ln_error(LN_EIO, "%s: cannot open", path);
        goto fail;
    }
    while (fgets(line, sizeof line, fp)) {
        size_t n;
        void *buf;
        FILE *out;
        line[strcspn(line, "\n")] = '\0';
        if (!*line)
            continue;
        if (!(n = ln_context_data_size(ctx, line))) {
            ln_error(LN_ENOTFOUND, "output '%s' not found", line);
            fclose(fp);
            goto fail;
        }
        buf = malloc(n);
        if (ln_context_get_data(ctx, line, buf, n)) {
            free(buf);
            fclose(fp);
            goto fail;
        }
        snprintf(path, sizeof path, "%s/%s_%s.bin", dir, cfgs[cfg], line);
        if ((out = fopen(path, "wb"))) {
            fwrite(buf, 1, n, out);
            fclose(out);
        }
        free(buf);
    }
    fclose(fp);
    ret = 0;
    ln_context_unload(ctx);
    ln_context_free(ctx);
    return ret;
fail:
    put_err(dir, cfgs[cfg], ln_error_message());
    ln_context_free(ctx);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: runner DIR...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        for (int c = 0; c < 3; c++)
            run_one(argv[i], c);
    ln_arch_cleanup();
    return 0;
}
