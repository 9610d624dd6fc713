/*
 * lightnet -- the LightNet command line: compile an IR for a target, print
 * it, and run it in the interpreter.
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
#include "ln_context.h"

static void usage(FILE *fp)
{
    fputs("usage: lightnet [-t ARCH] [-c] [-r] [-o OUT] [-f DATAFILE] MODEL.json|-\n"
          "\n"
          "  -t ARCH      target architecture (default cpu)\n"
          "  -c           compile only: write the compiled, planned IR (to -o or stdout)\n"
          "  -r           run the IR as it is (it must be compiled already)\n"
          "  -o OUT       output file for -c (default stdout)\n"
          "  -f DATAFILE  weights file (.params or .wts); default: the IR's \"data\"\n"
          "  -h           this help\n"
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

int main(int argc, char **argv)
{
    const char *target = "cpu", *out = NULL, *datafile = NULL, *model = NULL;
    int compile_only = 0, run_only = 0;
    ln_context *ctx;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (ln_streq(a, "-h") || ln_streq(a, "--help")) {
            usage(stdout);
            return EXIT_SUCCESS;
        } else if (ln_streq(a, "-c")) {
            compile_only = 1;
        } else if (ln_streq(a, "-r")) {
            run_only = 1;
        } else if ((ln_streq(a, "-t") || ln_streq(a, "-o") || ln_streq(a, "-f"))) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lightnet: option %s needs an argument\n", a);
                return EXIT_FAILURE;
            }
            if (a[1] == 't')
                target = argv[++i];
            else if (a[1] == 'o')
                out = argv[++i];
            else
                datafile = argv[++i];
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

    ctx = ln_context_create();
    if (ln_context_init(ctx, model))
        return fail(ctx);
    if (datafile)
        ln_context_set_data_file(ctx, datafile);
    if (!run_only && ln_context_compile(ctx, target))
        return fail(ctx);
    if (compile_only) {
        if (ln_context_print(ctx, out ? out : "-"))
            return fail(ctx);
    } else {
        if (ln_context_load(ctx, NULL) || ln_context_run(ctx))
            return fail(ctx);
        if (out && ln_context_print(ctx, out))
            return fail(ctx);
    }
    ln_context_free(ctx);
    ln_arch_cleanup();
    return EXIT_SUCCESS;
}
