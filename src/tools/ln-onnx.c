/*
 * ln-onnx -- import an ONNX model: LightNet IR (JSON) plus its weights.
 *
 *   ln-onnx model.onnx                       model.json + model.params beside it
 *   ln-onnx model.onnx -o out/net.json --data out/net.params
 *   ln-onnx model.onnx --shape input=1x3x224x224
 *   ln-onnx --ops                            the ONNX ops and opsets LightNet maps
 *
 * The IR's "data" names the weights file relative to the JSON (absolute when
 * they are in different directories).  Both files are written to temporary
 * names and renamed, the weights first; on any error neither is left.
 * Errors print one line "ln-onnx: <message>" and exit 1.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "ln_onnx.h"
#include "ln_datafile.h"
#include "ln_outfile.h"
#include "ln_arch.h"
#include "op/auto/ln_opregistry.h"

static void usage(FILE *fp)
{
    fputs("usage: ln-onnx MODEL.onnx [-o OUT.json] [--data OUT.params] [--shape NAME=DIMS]...\n"
          "       ln-onnx --ops\n"
          "\n"
          "  -o OUT.json        the IR (default: MODEL with .json, beside it)\n"
          "  --data OUT.params  the weights (default: OUT with .params, beside it)\n"
          "  --shape NAME=DIMS  fix graph input NAME's shape, e.g. input=1x3x224x224\n"
          "                     (symbolic batch dims are 1 without it)\n"
          "  --ops              list the ONNX op types and opsets LightNet imports\n"
          "  -h                 this help\n", fp);
}

static int fail_msg(const char *msg)
{
    fprintf(stderr, "ln-onnx: %s\n", msg);
    ln_arch_cleanup();
    return EXIT_FAILURE;
}

/* path with its extension ext (".onnx") replaced by repl. */
static char *swap_ext(const char *path, const char *ext, const char *repl)
{
    size_t n = strlen(path), e = strlen(ext);
    if (n > e && ln_streq(path + n - e, ext))
        n -= e;
    return ln_sprintf("%.*s%s", (int)n, path, repl);
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? ln_sprintf("%.*s", (int)(slash - path), path) : ln_strdup(".");
}

/* How the JSON at json names the weights at params. */
static char *data_ref(const char *json, const char *params)
{
    char *dj = dir_of(json), *dp = dir_of(params), *rj = realpath(dj, NULL),
         *rp = realpath(dp, NULL), *ref;
    const char *base = strrchr(params, '/');

    base = base ? base + 1 : params;
    if (rj && rp && ln_streq(rj, rp))
        ref = ln_strdup(base);
    else if (rp)
        ref = ln_sprintf("%s/%s", rp, base);
    else
        ref = ln_strdup(params);
    free(rj);
    free(rp);
    ln_free(dj);
    ln_free(dp);
    return ref;
}

static int write_text(const char *path, const char *text)
{
    ln_outfile *o = ln_outfile_open(path);

    if (!o)
        return ln_error_code();
    if (fputs(text, ln_outfile_fp(o)) < 0 || fputc('\n', ln_outfile_fp(o)) == EOF) {
        ln_outfile_abort(o);
        return ln_error(LN_EIO, "cannot write '%s': %s", path, strerror(errno));
    }
    return ln_outfile_commit(o);
}

static void list_ops(void)
{
    printf("# ONNX op_type\topsets\tLightNet optype\n");
    printf("Constant\t1-\tcreate\n");          /* the importer's own */
    for (const ln_opregistry_onnx_entry *e = ln_opregistry_onnx; e->op_type; e++) {
        ln_bool stripped = ln_arch_op_stripped(e->optype);
        if (e->until)
            printf("%s\t%d-%d\t%s%s\n", e->op_type, e->since, e->until, e->optype,
                   stripped ? " (stripped)" : "");
        else
            printf("%s\t%d-\t%s%s\n", e->op_type, e->since, e->optype,
                   stripped ? " (stripped)" : "");
    }
    printf("If\t1-\tif_merge (guarded branches; inlined when the condition is known)\n");
    printf("Loop\t1-\t(unrolled at import: trip count known)\n");
    printf("Scan\t8-\t(unrolled at import: sequence length known)\n");
    printf("QLinearConv\t10-\t(as DequantizeLinear -> Conv -> QuantizeLinear)\n");
    printf("QLinearMatMul\t10-\t(as DequantizeLinear -> MatMul -> QuantizeLinear)\n");
    printf("SplitToSequence\t11-\t(as Slices, read by SequenceAt at constant positions)\n");
    printf("SequenceAt\t11-\t(a Slice of the split input)\n");
    printf("NonZero\t9-\t(evaluated at import: constant input)\n");
    printf("NonMaxSuppression\t10-\t(evaluated at import: constant boxes and scores)\n");
}

int main(int argc, char **argv)
{
    const char *model = NULL, *out = NULL, *data = NULL;
    const char **shapes = ln_alloc(sizeof(char *) * (size_t)argc);
    int n_shapes = 0, ret = EXIT_FAILURE;
    const ln_serializer *ser;
    ln_serializer_opts opts;
    char *buf = NULL, *json_path = NULL, *params_path = NULL, *ref = NULL, *text = NULL;
    size_t len = 0;
    cJSON *ir = NULL;
    ln_hash *consts = NULL;

    ln_tool_alloc_setup("ln-onnx");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (ln_streq(a, "-h") || ln_streq(a, "--help")) {
            usage(stdout);
            ln_free(shapes);
            return EXIT_SUCCESS;
        } else if (ln_streq(a, "--ops")) {
            list_ops();
            ln_free(shapes);
            return EXIT_SUCCESS;
        } else if (ln_streq(a, "-o") || ln_streq(a, "--data") || ln_streq(a, "--shape")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ln-onnx: option %s needs an argument\n", a);
                ln_free(shapes);
                return EXIT_FAILURE;
            }
            if (a[1] == 'o')
                out = argv[++i];
            else if (a[2] == 'd')
                data = argv[++i];
            else
                shapes[n_shapes++] = argv[++i];
        } else if (!strncmp(a, "--shape=", 8)) {
            shapes[n_shapes++] = a + 8;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "ln-onnx: unknown option '%s' (see ln-onnx -h)\n", a);
            ln_free(shapes);
            return EXIT_FAILURE;
        } else if (model) {
            fprintf(stderr, "ln-onnx: more than one model given ('%s', '%s')\n", model, a);
            ln_free(shapes);
            return EXIT_FAILURE;
        } else {
            model = a;
        }
    }
    shapes[n_shapes] = NULL;
    if (!model) {
        usage(stderr);
        ln_free(shapes);
        return EXIT_FAILURE;
    }
    if (!(ser = ln_serializer_find("onnx"))) {
        ln_free(shapes);
        return fail_msg("this LightNet was built without ONNX support (needs "
                        "protobuf-c-compiler, libprotobuf-c-dev and libonnx-dev at build time)");
    }
    opts.shapes = shapes;
    opts.target = NULL;
    json_path = out ? ln_strdup(out) : swap_ext(model, ".onnx", ".json");
    params_path = data ? ln_strdup(data) : swap_ext(json_path, ".json", ".params");
    if (!data && !ln_outfile_is_regular(json_path)) {
        ln_error(LN_EINVAL, "'%s' is not a regular file, so the weights cannot go beside it: "
                 "give --data FILE", json_path);
        goto out;
    }
    if (ln_streq(json_path, model) || ln_streq(params_path, model) ||
        ln_streq(json_path, params_path)) {
        ln_error(LN_EINVAL, "the model, the IR and the weights need three different files");
        goto out;
    }
    if (!(buf = ln_read_text(model, &len)))
        goto out;
    if (ser->load(buf, len, model, &opts, &ir, &consts))
        goto out;
    if (consts && ln_hash_size(consts) > 0) {
        ref = data_ref(json_path, params_path);
        cJSON_AddStringToObject(ir, "data", ref);
        if (ln_datafile_write_params_dict(params_path, consts))
            goto out;
    }
    text = cJSON_Print(ir);
    if (write_text(json_path, text)) {
        if (ref)
            remove(params_path);
        goto out;
    }
    ret = EXIT_SUCCESS;
out:
    if (ret != EXIT_SUCCESS)
        fprintf(stderr, "ln-onnx: %s\n", ln_error_message());
    free(text);
    cJSON_Delete(ir);
    ln_hash_free(consts);
    ln_free(buf);
    ln_free(ref);
    ln_free(json_path);
    ln_free(params_path);
    ln_free(shapes);
    ln_arch_cleanup();
    return ret;
}
