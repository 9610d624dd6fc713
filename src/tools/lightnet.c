/*
 * lightnet -- the LightNet command line: compile a model for a target,
 * print it, look at it, and run it in the interpreter.
 *
 *   lightnet model.json                 compile for cpu, load, run
 *   lightnet -t cpu -c -o planned.json model.json     compile only
 *   lightnet -r -f model.params planned.json          run a compiled IR
 *
 * Errors print one line "lightnet: <message>" and exit 1; an output file
 * is written whole or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include "ln_budget.h"
#include "ln_interp.h"
#include "ln_outfile.h"
#include "ln_quant.h"
#include "ln_report.h"
#include "ln_serializer.h"

#define MAX_IO 64

static void usage(FILE *fp)
{
    fputs("usage: lightnet [options] MODEL.json|MODEL.onnx|-\n"
          "\n"
          "  -t ARCH          target: cpu (the host, default) or cortex-m4\n"
          "  -c               compile only: write the compiled, planned IR (-o or stdout)\n"
          "  -r               run the IR as it is (it must be compiled already)\n"
          "  -o OUT           output file for the IR (default stdout with -c)\n"
          "  -f DATAFILE      weights file (.params or .wts); default: the IR's \"data\"\n"
          "  -i NAME=FILE     fill tensor NAME from FILE (raw little-endian data)\n"
          "  --save NAME=FILE write tensor NAME to FILE (raw) after the run (the plan\n"
          "                   then shares no buffer, so any tensor keeps its value)\n"
          "  --shape NAME=DIMS  fix a graph input's shape when importing (1x3x224x224)\n"
          "  --io-in-arena    plan graph inputs/outputs inside the arena\n"
          "  -O0              no folding or fusion (the expander only)\n"
          "  --mem-report     print arena, lower bound and buffers after compiling\n"
          "  --budget ram=SIZE,flash=SIZE  with -t cortex-m4: RAM and flash of the model\n"
          "                   as ln-aot would emit it, against the budget (K/M suffixes,\n"
          "                   1024-based); exit 1 naming the largest item when it does\n"
          "                   not fit (docs/firmware.md)\n"
          "  --dot FILE       write the data-flow graph (Graphviz dot; constants hidden,\n"
          "                   long graphs in clusters side by side)\n"
          "  --dot-weights    draw the constants (weights) in the --dot graph too\n"
          "  --mem-svg FILE   write the memory plan as an SVG picture (buffers named,\n"
          "                   or numbered and listed; lower bound, arena, peak marked)\n"
          "  --compare REF    run REF (a model, e.g. the float one, with the same -i\n"
          "                   inputs) too and print per tensor both have the SQNR (dB),\n"
          "                   max error and range, worst first; int8 tensors compare\n"
          "                   dequantized with the float tensor they quantize; REF may be\n"
          "                   a directory of NAME.bin raw float32 tensors (e.g. ONNX\n"
          "                   Runtime's outputs)\n"
          "  --profile[=N]    run N times (default 20) and print time per op\n"
          "  --long           full names in the tables and the SVG legend (else names\n"
          "                   longer than 40 characters are cut in the middle: a...z)\n"
          "  -h               this help\n"
          "\n"
          "Without -c or -r, the model is compiled for ARCH and run.\n", fp);
}

static int fail(ln_context *ctx)
{
    fprintf(stderr, "lightnet: %s\n", ln_error_message());
    ln_context_free(ctx);
    ln_arch_cleanup();
    return EXIT_FAILURE;
}

/* NAME=FILE -> name (in buf) and file */
static int split_pair(const char *arg, const char *opt, char *name, size_t n,
                      const char **file)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= n)
        return ln_error(LN_EINVAL, "%s wants NAME=FILE, got '%s'", opt, arg);
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    *file = eq + 1;
    return 0;
}

static int load_input(ln_context *ctx, const char *arg)
{
    char name[256], *buf;
    const char *file;
    size_t len = 0;
    int ret;

    if ((ret = split_pair(arg, "-i", name, sizeof name, &file)))
        return ret;
    if (!ln_context_tensor(ctx, name))
        return ln_error(LN_ENOTFOUND, "-i: the model has no tensor '%s'", name);
    if (!(buf = ln_read_text(file, &len)))
        return ln_error_code();
    if (len != ln_context_data_size(ctx, name)) {
        ret = ln_error(LN_EINVAL, "-i: '%s' has %zu bytes, tensor '%s' needs %zu", file, len,
                       name, ln_context_data_size(ctx, name));
    } else {
        ret = ln_context_set_data(ctx, name, buf, len);
    }
    ln_free(buf);
    return ret;
}

static int save_output(const ln_context *ctx, const char *arg)
{
    char name[256];
    const char *file;
    size_t n;
    void *buf;
    int ret;

    if ((ret = split_pair(arg, "--save", name, sizeof name, &file)))
        return ret;
    if (!(n = ln_context_data_size(ctx, name)))
        return ln_error(LN_ENOTFOUND, "--save: the model has no tensor '%s'", name);
    if (!ctx->plan_noreuse) {   /* -r: the IR's own plan may reuse its bytes */
        ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, name);
        if (te && !te->is_io && !te->isstatic)
            return ln_error(LN_EINVAL, "--save: '%s' is not a graph output, and the plan of a "
                            "compiled IR (-r) may reuse its bytes; run the model without -r",
                            name);
    }
    buf = ln_alloc(n);
    if ((ret = ln_context_get_data(ctx, name, buf, n))) {
        ln_free(buf);
        return ret;
    }
    ret = ln_outfile_write(file, buf, n);
    ln_free(buf);
    return ret;
}

/* ---- --compare REF: the model against a reference run, tensor by tensor ---- */

static ln_context *compare_ctx(const char *path, const ln_serializer_opts *opts, ln_bool fuse)
{
    ln_context *c = ln_context_create();
    ln_serializer_opts host = *opts;
    host.target = "cpu";
    c->no_opt = !fuse;
    c->plan_noreuse = LN_TRUE;
    if (ln_context_init_opts(c, path, &host) || ln_context_compile(c, "cpu")) {
        ln_context_free(c);
        return NULL;
    }
    return c;
}

static int run_compare(const ln_context *ctx, const char *model, const char *ref,
                       const char *const *inputs, int ninputs, const ln_serializer_opts *opts)
{
    ln_compare *c = ln_compare_create();
    ln_context *unfused = NULL, *rc = NULL;
    struct stat st;
    int ret = LN_EINVAL;

    /* the model's QuantizeLinear outputs and their parameters, before fusion */
    if (!(unfused = compare_ctx(model, opts, LN_FALSE)) || ln_compare_set_qparams(c, unfused))
        goto out;
    if (!stat(ref, &st) && S_ISDIR(st.st_mode)) {
        if ((ret = ln_compare_add_dir(c, ctx, ref)))
            goto out;
    } else {
        if (!(rc = compare_ctx(ref, opts, LN_FALSE)) || ln_context_load(rc, NULL))
            goto out;
        for (int i = 0; i < ninputs; i++)
            if (load_input(rc, inputs[i]))
                goto out;
        if (ln_context_run(rc) || ln_compare_add_run(c, ctx, rc))
            goto out;
    }
    if (!ln_compare_worst(c)) {
        ln_error(LN_ENOTFOUND, "--compare: '%s' and '%s' have no tensor in common", model, ref);
        goto out;
    }
    printf("%s against %s:\n", model, ref);
    ln_compare_print(stdout, c, 0);
    printf("worst: %s\n", ln_compare_worst(c));
    ret = 0;
out:
    ln_context_free(unfused);
    ln_context_free(rc);
    ln_compare_free(c);
    return ret ? ln_error_code() ? ln_error_code() : ret : 0;
}

int main(int argc, char **argv)
{
    const char *target = "cpu", *out = NULL, *datafile = NULL, *model = NULL;
    const char *dot = NULL, *svg = NULL, *budget = NULL, *compare = NULL;
    const char *inputs[MAX_IO], *saves[MAX_IO], *shapes[MAX_IO + 1];
    int ninputs = 0, nsaves = 0, nshapes = 0, profile = 0;
    int compile_only = 0, run_only = 0, mem_report = 0, io_in_arena = 0, no_opt = 0;
    int rflags = 0;
    ln_serializer_opts opts;
    ln_context *ctx;

    ln_tool_alloc_setup("lightnet");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (ln_streq(a, "-h") || ln_streq(a, "--help")) {
            usage(stdout);
            return EXIT_SUCCESS;
        } else if (ln_streq(a, "-c")) {
            compile_only = 1;
        } else if (ln_streq(a, "-r")) {
            run_only = 1;
        } else if (ln_streq(a, "--mem-report")) {
            mem_report = 1;
        } else if (ln_streq(a, "--long")) {
            rflags |= LN_REPORT_LONG_NAMES;
        } else if (ln_streq(a, "--dot-weights")) {
            rflags |= LN_REPORT_DOT_WEIGHTS;
        } else if (ln_streq(a, "--io-in-arena")) {
            io_in_arena = 1;
        } else if (ln_streq(a, "-O0")) {
            no_opt = 1;
        } else if (ln_streq(a, "--profile")) {
            profile = 20;
        } else if (!strncmp(a, "--profile=", 10)) {
            profile = atoi(a + 10);
            if (profile <= 0) {
                fprintf(stderr, "lightnet: --profile wants a positive count, got '%s'\n", a + 10);
                return EXIT_FAILURE;
            }
        } else if (ln_streq(a, "-t") || ln_streq(a, "-o") || ln_streq(a, "-f") ||
                   ln_streq(a, "-i") || ln_streq(a, "--save") || ln_streq(a, "--dot") ||
                   ln_streq(a, "--mem-svg") || ln_streq(a, "--shape") ||
                   ln_streq(a, "--budget") || ln_streq(a, "--compare")) {
            const char *v;
            if (i + 1 >= argc) {
                fprintf(stderr, "lightnet: option %s needs an argument\n", a);
                return EXIT_FAILURE;
            }
            v = argv[++i];
            if (ln_streq(a, "-t")) target = v;
            else if (ln_streq(a, "-o")) out = v;
            else if (ln_streq(a, "-f")) datafile = v;
            else if (ln_streq(a, "--dot")) dot = v;
            else if (ln_streq(a, "--mem-svg")) svg = v;
            else if (ln_streq(a, "--budget")) budget = v;
            else if (ln_streq(a, "--compare")) compare = v;
            else if (ninputs + nsaves + nshapes >= MAX_IO) {
                fprintf(stderr, "lightnet: too many -i/--save/--shape options\n");
                return EXIT_FAILURE;
            } else if (ln_streq(a, "-i")) inputs[ninputs++] = v;
            else if (ln_streq(a, "--save")) saves[nsaves++] = v;
            else shapes[nshapes++] = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "lightnet: unknown option '%s' (see lightnet -h)\n", a);
            return EXIT_FAILURE;
        } else if (model) {
            fprintf(stderr, "lightnet: more than one model given ('%s', '%s')\n", model, a);
            return EXIT_FAILURE;
        } else {
            model = a;
        }
    }
    if (!model) {
        usage(stderr);
        return EXIT_FAILURE;
    }
    if (compile_only && run_only) {
        fputs("lightnet: -c and -r exclude each other\n", stderr);
        return EXIT_FAILURE;
    }
    shapes[nshapes] = NULL;
    opts.shapes = shapes;
    opts.target = run_only ? NULL : target;
    if (budget) {   /* before the model is read: no partial output */
        ln_budget b;
        if (ln_budget_parse(budget, &b)) {
            fprintf(stderr, "lightnet: %s\n", ln_error_message());
            return EXIT_FAILURE;
        }
    }

    ctx = ln_context_create();
    if (ln_context_init_opts(ctx, model, &opts))
        return fail(ctx);
    if (datafile)
        ln_context_set_data_file(ctx, datafile);
    ctx->io_in_arena = io_in_arena;
    ctx->no_opt = no_opt;
    ctx->plan_noreuse = (nsaves > 0 || compare) && !run_only;
    if (compare && (compile_only || run_only)) {
        fputs("lightnet: --compare runs the model: not with -c or -r\n", stderr);
        ln_context_free(ctx);
        return EXIT_FAILURE;
    }
    if (!run_only && ln_context_compile(ctx, target))
        return fail(ctx);
    if (!ctx->planned && ln_context_plan(ctx))
        return fail(ctx);
    if (budget) {   /* the whole table, then the verdict */
        ln_budget b;
        ln_budget_parse(budget, &b);
        if (ln_budget_estimate(ctx, ctx->arch ? ctx->arch : target, "model", &b))
            return fail(ctx);
        if (mem_report && ln_report_mem(stdout, ctx, rflags))
            return fail(ctx);
        ln_budget_print(stdout, &b, "");
        fflush(stdout);
        if (ln_budget_verdict(&b, model))
            return fail(ctx);
    } else if (mem_report && ln_report_mem(stdout, ctx, rflags))
        return fail(ctx);
    if (dot && ln_report_to_file(dot, ctx, rflags, ln_report_dot))
        return fail(ctx);
    if (svg && ln_report_to_file(svg, ctx, rflags, ln_report_mem_svg))
        return fail(ctx);
    if (compile_only) {
        if (ln_context_print(ctx, out ? out : "-"))
            return fail(ctx);
    } else {
        if (ln_context_load(ctx, NULL))
            return fail(ctx);
        for (int i = 0; i < ninputs; i++)
            if (load_input(ctx, inputs[i]))
                return fail(ctx);
        if (ln_context_run(ctx))
            return fail(ctx);
        for (int i = 0; i < nsaves; i++)
            if (save_output(ctx, saves[i]))
                return fail(ctx);
        if (compare && run_compare(ctx, model, compare, inputs, ninputs, &opts))
            return fail(ctx);
        if (profile && ln_report_profile(stdout, ctx, profile, rflags))
            return fail(ctx);
        if (out && ln_context_print(ctx, out))
            return fail(ctx);
    }
    ln_context_free(ctx);
    ln_arch_cleanup();
    return EXIT_SUCCESS;
}
