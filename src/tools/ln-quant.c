/*
 * ln-quant -- post-training quantization: a float ONNX model and sample
 * inputs to an int8 QDQ ONNX model (docs/quantization-flow.md).
 *
 *   ln-quant model.onnx -o model.int8.onnx --calib calib/
 *   ln-quant model.onnx -o q.onnx --calib a.bin b.bin --mse --report
 *   ln-quant model.onnx -o q.onnx --calib x=xs/,y=ys/ --percentile 99.99
 *
 * Errors print one line "ln-quant: <message>" and exit 1; the output file
 * is written whole or not at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ln_interp.h"
#include "ln_outfile.h"
#include "ln_quant.h"

static void usage(FILE *fp)
{
    fputs("usage: ln-quant MODEL.onnx -o OUT.onnx --calib INPUT... [options]\n"
          "\n"
          "  -o OUT.onnx        the QDQ model (opset 13, ONNX Runtime's quantizer layout)\n"
          "  -f json            write LightNet's IR instead: OUT.json and OUT.params beside\n"
          "                     it (the QDQ model imported, as ln-onnx writes it)\n"
          "  --calib INPUT...   calibration inputs, one inference each: a raw little-endian\n"
          "                     float32 file (as lightnet -i reads), a directory of them\n"
          "                     (sorted by name), or NAME=PATH[,NAME=PATH...] for models\n"
          "                     of several graph inputs; every argument up to the next\n"
          "                     option\n"
          "  --minmax           ranges from the smallest and largest values\n"
          "  --percentile P     ranges clipped at the P-th percentile (e.g. 99.99) above\n"
          "                     and the (100-P)-th below\n"
          "  --mse              ranges of least squared quantization error (histogram;\n"
          "                     the default; within 1 dB of --minmax on the trained\n"
          "                     test networks, docs/quantization-flow.md)\n"
          "  --headroom F       every range F times wider than the method chose (F in\n"
          "                     [1, 16]; default 1): room for inputs beyond the\n"
          "                     calibration inputs' extremes (data with long tails);\n"
          "                     not the ranges of Clip, Sigmoid, Tanh or Softmax outputs\n"
          "  --keep-float N,... nodes (ONNX names) kept float\n"
          "  --add-scales HOW   a residual add's scales (an Add of two activations):\n"
          "                     separate (each tensor its own range), inputs (both\n"
          "                     inputs one range: one rescale less) or all (inputs and\n"
          "                     output one range: an integer add) (default separate)\n"
          "  --no-bias-correction  keep the biases (by default each conv / gemm bias\n"
          "                     absorbs the shift its rounded weights make on the mean\n"
          "                     calibration input)\n"
          "  --report           run the float model (batch norms folded) and the int8\n"
          "                     model in LightNet on the same inputs and print per tensor\n"
          "                     SQNR (dB), max error and range, worst first\n"
          "  --eval INPUT...    inputs for --report (default: the calibration inputs)\n"
          "  --rows N           at most N rows in the report (default all)\n"
          "  --force-range T=LO,HI  give tensor T that range (to test the report)\n"
          "  -q                 do not list the nodes that stay float\n"
          "  -h                 this help\n", fp);
}

static int fail(void)
{
    fprintf(stderr, "ln-quant: %s\n", ln_error_message());
    return EXIT_FAILURE;
}

static ln_context *load(const void *buf, size_t len, const char *source, ln_bool fuse)
{
    ln_context *ctx = ln_context_create();
    ctx->no_opt = !fuse;
    ctx->plan_noreuse = LN_TRUE;
    if (ln_context_init_mem(ctx, buf, len, source, "onnx", NULL) ||
        ln_context_compile(ctx, "cpu") || ln_context_load(ctx, NULL)) {
        ln_context_free(ctx);
        return NULL;
    }
    return ctx;
}

/* the int8 model (fused, its int8 ops) against the float one, per tensor */
static int report(const void *q, size_t qlen, const void *f, size_t flen,
                  const ln_quant_inputs *in, int rows)
{
    ln_context *fc = NULL, *qc = NULL, *qu = NULL;
    ln_compare *c = ln_compare_create();
    int ret = 1;

    if (!(fc = load(f, flen, "float model", LN_FALSE)) ||
        !(qc = load(q, qlen, "int8 model", LN_TRUE)) ||
        !(qu = load(q, qlen, "int8 model (unfused)", LN_FALSE)) ||
        ln_compare_set_qparams(c, qu))
        goto out;
    for (int r = 0; r < in->n; r++)
        if (ln_quant_inputs_set(in, r, fc) || ln_quant_inputs_set(in, r, qc) ||
            ln_context_run(fc) || ln_context_run(qc) || ln_compare_add_run(c, qc, fc))
            goto out;
    printf("int8 against float, %d input%s:\n", in->n, in->n == 1 ? "" : "s");
    ln_compare_print(stdout, c, rows);
    if (ln_compare_worst(c))
        printf("worst: %s\n", ln_compare_worst(c));
    ret = 0;
out:
    ln_compare_free(c);
    ln_context_free(fc);
    ln_context_free(qc);
    ln_context_free(qu);
    return ret;
}

/* the QDQ model as LightNet's IR: OUT.json and its weights OUT.params */
static int write_json(const void *q, size_t len, const char *out)
{
    ln_context *ctx = ln_context_create();
    int ret = ln_context_init_mem(ctx, q, len, "quantized model", "onnx", NULL);
    if (!ret)
        ret = ln_context_print(ctx, out);
    ln_context_free(ctx);
    return ret;
}

int main(int argc, char **argv)
{
    const char *model = NULL, *out = NULL;
    ln_quant_inputs calib, eval;
    ln_quant_opts opts;
    ln_quant_inputs *list = NULL;
    int do_report = 0, rows = 0, json = 0, ret = EXIT_FAILURE;
    void *q = NULL, *f = NULL;
    size_t qlen = 0, flen = 0;

    ln_tool_alloc_setup("ln-quant");
    memset(&calib, 0, sizeof calib);
    memset(&eval, 0, sizeof eval);
    memset(&opts, 0, sizeof opts);
    opts.method = LN_QUANT_MSE;
    opts.log = stderr;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (ln_streq(a, "-h") || ln_streq(a, "--help")) {
            usage(stdout);
            return EXIT_SUCCESS;
        }
        if (a[0] != '-' || !a[1]) {
            if (list) {
                if (ln_quant_inputs_add(list, a))
                    goto err;
            } else if (model) {
                fprintf(stderr, "ln-quant: more than one model given ('%s', '%s')\n", model, a);
                goto done;
            } else {
                model = a;
            }
            continue;
        }
        list = NULL;
        if (ln_streq(a, "--calib")) {
            list = &calib;
        } else if (ln_streq(a, "--eval")) {
            list = &eval;
        } else if (ln_streq(a, "--report")) {
            do_report = 1;
        } else if (ln_streq(a, "--minmax")) {
            opts.method = LN_QUANT_MINMAX;
        } else if (ln_streq(a, "--mse")) {
            opts.method = LN_QUANT_MSE;
        } else if (ln_streq(a, "--no-bias-correction")) {
            opts.no_bias_correction = LN_TRUE;
        } else if (ln_streq(a, "-q")) {
            opts.log = NULL;
        } else if (ln_streq(a, "-f")) {
            if (i + 1 >= argc || !(ln_streq(argv[i + 1], "json") || ln_streq(argv[i + 1], "onnx"))) {
                fprintf(stderr, "ln-quant: -f wants onnx or json\n");
                goto done;
            }
            json = ln_streq(argv[++i], "json");
        } else if (ln_streq(a, "-o") || ln_streq(a, "--percentile") ||
                   ln_streq(a, "--keep-float") || ln_streq(a, "--rows") ||
                   ln_streq(a, "--force-range") || ln_streq(a, "--add-scales") ||
                   ln_streq(a, "--headroom")) {
            const char *v;
            char *end;
            if (i + 1 >= argc) {
                fprintf(stderr, "ln-quant: option %s needs an argument\n", a);
                goto done;
            }
            v = argv[++i];
            if (ln_streq(a, "-o")) {
                out = v;
            } else if (ln_streq(a, "--keep-float")) {
                opts.keep_float = v;
            } else if (ln_streq(a, "--force-range")) {
                opts.bad_range = v;
            } else if (ln_streq(a, "--add-scales")) {
                if (ln_streq(v, "separate")) {
                    opts.add_scales = LN_QUANT_ADD_SEPARATE;
                } else if (ln_streq(v, "inputs")) {
                    opts.add_scales = LN_QUANT_ADD_INPUTS;
                } else if (ln_streq(v, "all")) {
                    opts.add_scales = LN_QUANT_ADD_ALL;
                } else {
                    fprintf(stderr, "ln-quant: --add-scales wants separate, inputs or all, "
                            "got '%s'\n", v);
                    goto done;
                }
            } else if (ln_streq(a, "--headroom")) {
                opts.headroom = strtod(v, &end);
                if (*end || !(opts.headroom >= 1 && opts.headroom <= 16)) {
                    fprintf(stderr, "ln-quant: --headroom wants a factor in [1, 16], got '%s'\n",
                            v);
                    goto done;
                }
            } else if (ln_streq(a, "--rows")) {
                rows = (int)strtol(v, &end, 10);
                if (*end || rows <= 0) {
                    fprintf(stderr, "ln-quant: --rows wants a positive count, got '%s'\n", v);
                    goto done;
                }
            } else {
                opts.method = LN_QUANT_PERCENTILE;
                opts.percentile = strtod(v, &end);
                if (*end || !(opts.percentile > 50 && opts.percentile <= 100)) {
                    fprintf(stderr, "ln-quant: --percentile wants a number in (50, 100], "
                            "got '%s'\n", v);
                    goto done;
                }
            }
        } else {
            fprintf(stderr, "ln-quant: unknown option '%s' (see ln-quant -h)\n", a);
            goto done;
        }
    }
    if (!model || !out) {
        usage(stderr);
        goto done;
    }
    if (!calib.n) {
        fputs("ln-quant: no calibration inputs (--calib FILE|DIR...)\n", stderr);
        goto done;
    }
    if (ln_quant_model(model, &calib, &opts, &q, &qlen, do_report ? &f : NULL, &flen) ||
        (json ? write_json(q, qlen, out) : ln_outfile_write(out, q, qlen)))
        goto err;
    if (do_report && report(q, qlen, f, flen, eval.n ? &eval : &calib, rows))
        goto err;
    ret = EXIT_SUCCESS;
    goto done;
err:
    ret = fail();
done:
    ln_free(q);
    ln_free(f);
    ln_quant_inputs_clear(&calib);
    ln_quant_inputs_clear(&eval);
    ln_arch_cleanup();
    return ret;
}
