/*
 * test_ln_onnx.c -- the ONNX importer (ln_onnx.c), the ln-onnx tool, a
 * committed subset of the ONNX backend node tests and the test models.
 *
 * Inputs: tests/onnx/ .onnx files (made by tests/onnx/make_models.py, which says
 * what each holds), tests/conformance/node/ (node tests copied from those
 * Debian's python3-onnx 1.12 defines, by tests/conformance/run.py
 * --update-subset; see tests/conformance/README.md) and tests/models/
 * (docs/test-models.md).  Run from tests/ (make test-unit does).
 *
 * A test model whose op types are not imported yet is reported and
 * skipped; once it imports, it must match its PyTorch output.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include <cjson/cJSON.h>

#include "ln_onnx.h"
#include "ln_interp.h"
#include "onnx_nodetest.h"

static char *slurp(const char *path, size_t *len)
{
    char *buf = ln_read_text(path, len);
    ck_assert_msg(buf != NULL, "%s", ln_error_message());
    return buf;
}

/* Import path with opts; returns the error code, *ir and *consts on success. */
static int import(const char *path, const char *const *shapes, cJSON **ir, ln_hash **consts)
{
    const ln_serializer *ser = ln_serializer_find("onnx");
    ln_serializer_opts opts = {shapes, NULL};
    size_t len;
    char *buf = slurp(path, &len);
    int ret;

    ck_assert_ptr_nonnull(ser);
    ret = ser->load(buf, len, path, &opts, ir, consts);
    ln_free(buf);
    return ret;
}

static const cJSON *op_at(const cJSON *ir, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ir, "ops"), i);
}

static const char *op_str(const cJSON *op, const char *field)
{
    return cJSON_GetObjectItemCaseSensitive(op, field)->valuestring;
}

START_TEST(test_basic_ir)
{
    static const char *const want[][2] = {
        {"x", "input"}, {"w", "create"}, {"c", "create"}, {"add", "add"},
        {"Relu_2", "relu"}, {"add_1", "mul"}, {"Identity_4", "identity"},
        {"y_output", "output"}};
    cJSON *ir = NULL;
    ln_hash *consts = NULL;
    ln_tensor *w;

    ck_assert_int_eq(import("onnx/basic.onnx", NULL, &ir, &consts), 0);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ir, "ops")), 8);
    for (int i = 0; i < 8; i++) {
        ck_assert_str_eq(op_str(op_at(ir, i), "name"), want[i][0]);
        ck_assert_str_eq(op_str(op_at(ir, i), "optype"), want[i][1]);
    }
    /* the symbolic batch became 1; only constants read as tensors are kept */
    ck_assert_int_eq(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(op_at(ir, 0), "params"), 1),
        "value"), 0)->valueint, 1);
    ck_assert_int_eq(ln_hash_size(consts), 2);
    ck_assert_ptr_null(ln_hash_find(consts, "unused"));
    w = ln_hash_find(consts, "w");
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(w->dtype, LN_DTYPE_FLOAT32);
    ck_assert_int_eq(w->ndim, 1);
    ck_assert(((float *)w->data)[1] == -1.0f);
    cJSON_Delete(ir);
    ln_hash_free(consts);
}
END_TEST

START_TEST(test_basic_run)
{
    const float x[6] = {1, 2, 3, -9, 0, 1}, want[6] = {4.5f, 3, 15, 0, 0, 9};
    const char *shapes[] = {"x=2x3", NULL};
    ln_serializer_opts opts = {shapes, NULL};
    ln_context *ctx = ln_context_create();
    size_t len;
    char *buf = slurp("onnx/basic.onnx", &len);
    float y[6];

    /* --shape sets the symbolic batch */
    ck_assert_msg(ln_context_init_mem(ctx, buf, len, "basic.onnx", NULL, &opts) == 0, "%s",
                  ln_error_message());
    ck_assert_int_eq(ln_context_tensor(ctx, "x")->dims[0], 2);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 6; i++)
        ck_assert_msg(y[i] == want[i], "y[%d] = %g, want %g", i, y[i], want[i]);
    ln_context_free(ctx);
    ln_free(buf);
}
END_TEST

START_TEST(test_probe)
{
    size_t len;
    char *buf = slurp("onnx/basic.onnx", &len);

    ck_assert_str_eq(ln_serializer_for("model.bin", buf, len)->name, "onnx");
    ck_assert_str_eq(ln_serializer_for("-", "{\"ops\": []}", 11)->name, "json");
    ck_assert_ptr_null(ln_serializer_for("x", "garbage!", 8));
    ln_free(buf);
}
END_TEST

/* The error and its code for an import that must fail. */
static int import_error(const char *path, const char *const *shapes, const char **msg)
{
    cJSON *ir = NULL;
    ln_hash *consts = NULL;
    int ret = import(path, shapes, &ir, &consts);

    ck_assert_msg(ret != 0, "%s imported", path);
    ck_assert_ptr_null(ir);
    ck_assert_ptr_null(consts);
    *msg = ln_error_message();
    return ret;
}

#define ck_assert_has(msg, part) \
    ck_assert_msg(strstr((msg), (part)) != NULL, "'%s' lacks '%s'", (msg), (part))

START_TEST(test_bad_files)
{
    const char *m;
    ln_context *ctx = ln_context_create();

    ck_assert_int_eq(import_error("onnx/truncated.onnx", NULL, &m), LN_EPARSE);
    ck_assert_has(m, "onnx/truncated.onnx: not an ONNX model");
    ck_assert_int_eq(import_error("onnx/not_onnx.onnx", NULL, &m), LN_EPARSE);
    ck_assert_has(m, "not an ONNX model");
    ck_assert_int_eq(import_error("onnx/unknown_op.onnx", NULL, &m), LN_EUNSUPPORTED);
    ck_assert_has(m, "unknown_op.onnx: unsupported at opset 13: FooBar (node 'foo1')");
    ck_assert_int_eq(import_error("onnx/missing_initializer.onnx", NULL, &m), LN_EPARSE);
    ck_assert_has(m, "node 'add1' (Add): input 'w' is not defined");
    /* through the context: the extension picks the importer */
    ck_assert_int_eq(ln_context_init(ctx, "onnx/not_onnx.onnx"), LN_EPARSE);
    ck_assert_int_eq(ln_context_init(ctx, "onnx/unknown_op.onnx"), LN_EUNSUPPORTED);
    ln_context_free(ctx);
}
END_TEST

START_TEST(test_all_at_once)
{
    const char *m;

    ck_assert_int_eq(import_error("onnx/many_problems.onnx", NULL, &m), LN_EUNSUPPORTED);
    ck_assert_has(m, "FooBar (nodes 'foo1', 'foo2'), Bazz (node 'baz1')");
    ck_assert_has(m, "initializer 'ext' is stored as external data");
    ck_assert_has(m, "node 'add1' (Add): input 'nowhere' is not defined");
    /* mul1 reads the bad initializer: not reported twice */
    ck_assert_ptr_null(strstr(m, "mul1"));
}
END_TEST

START_TEST(test_shapes)
{
    const char *ok[] = {"b=1x4", NULL}, *rank[] = {"b=1x4x1", NULL},
               *fixed[] = {"a=2x4", "b=1x4", NULL}, *junk[] = {"b=1xq", NULL},
               *none[] = {"zz=1", "b=1x4", NULL};
    const char *m;
    cJSON *ir = NULL;
    ln_hash *consts = NULL;

    import_error("onnx/two_inputs.onnx", NULL, &m);
    ck_assert_has(m, "graph input 'b' dim 1 is symbolic ('H'): give --shape b=");
    ck_assert_int_eq(import("onnx/two_inputs.onnx", ok, &ir, &consts), 0);
    ck_assert_ptr_null(consts);
    cJSON_Delete(ir);
    import_error("onnx/two_inputs.onnx", rank, &m);
    ck_assert_has(m, "--shape b has 3 dims, the model's input has 2");
    import_error("onnx/two_inputs.onnx", fixed, &m);
    ck_assert_has(m, "--shape a: dim 0 is 2, the model fixes it at 1");
    import_error("onnx/two_inputs.onnx", junk, &m);
    ck_assert_has(m, "--shape 'b=1xq'");
    import_error("onnx/two_inputs.onnx", none, &m);
    ck_assert_has(m, "--shape 'zz=1' names no graph input");
}
END_TEST

/* An input mapped to "@param": the constant becomes the param and its
 * create op is dropped.  Runs once the table maps Reshape at opset 13. */
START_TEST(test_const_param)
{
    const float x[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    const char *optype;
    cJSON *ir = NULL, *params;
    ln_hash *consts = NULL;
    ln_context *ctx;
    float y[12];

    if (!ln_onnx_op_supported("Reshape", 13, &optype)) {
        fprintf(stderr, "test_ln_onnx: Reshape-13 not mapped yet, '@param' import not checked\n");
        return;
    }
    ck_assert_msg(import("onnx/reshape13.onnx", NULL, &ir, &consts) == 0, "%s",
                  ln_error_message());
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ir, "ops")), 3);
    ck_assert_str_eq(op_str(op_at(ir, 1), "optype"), optype);
    params = cJSON_GetObjectItemCaseSensitive(op_at(ir, 1), "params");
    ck_assert_int_eq(cJSON_GetArraySize(params), 1);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(params, 0), "value")), 2);
    ck_assert(consts == NULL || ln_hash_size(consts) == 0);
    cJSON_Delete(ir);
    ln_hash_free(consts);

    ctx = ln_context_create();
    ck_assert_msg(ln_context_init(ctx, "onnx/reshape13.onnx") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_tensor(ctx, "y")->dims[0], 3);
    ck_assert_int_eq(ln_context_tensor(ctx, "y")->dims[1], 4);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    ck_assert(memcmp(x, y, sizeof x) == 0);
    ln_context_free(ctx);
}
END_TEST

/* Issue 16: PyTorch's F.pad chain at opset 13 (tests/onnx/make_chain_models.py)
 * folds at import into Pad's pads, in ONNX's order; when a node of the
 * chain cannot be evaluated, the error names it and says why. */
START_TEST(test_pad_chain)
{
    static const double want[8] = {0, 0, 0, 0, 0, 0, 1, 1};
    const char *m;
    cJSON *ir = NULL, *op, *p, *pads = NULL;
    ln_hash *consts = NULL;
    int n_ops = 0;

    ck_assert_msg(import("onnx/chains/zeropad_chain/model.onnx", NULL, &ir, &consts) == 0, "%s",
                  ln_error_message());
    /* input, pad, output: the chain left no op and no constant */
    cJSON_ArrayForEach(op, cJSON_GetObjectItemCaseSensitive(ir, "ops")) {
        n_ops++;
        if (!ln_streq(op_str(op, "optype"), "pad"))
            continue;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(op, "params")) {
            if (ln_streq(op_str(p, "arg_name"), "pads"))
                pads = cJSON_GetObjectItemCaseSensitive(p, "value");
        }
    }
    ck_assert_int_eq(n_ops, 3);
    ck_assert_ptr_null(consts);
    ck_assert_ptr_nonnull(pads);
    ck_assert_int_eq(cJSON_GetArraySize(pads), 8);
    for (int i = 0; i < 8; i++)
        ck_assert_msg(cJSON_GetArrayItem(pads, i)->valuedouble == want[i], "pads[%d] = %g",
                      i, cJSON_GetArrayItem(pads, i)->valuedouble);
    cJSON_Delete(ir);

    ck_assert_int_eq(import_error("onnx/pad_chain_runtime.onnx", NULL, &m), LN_EUNSUPPORTED);
    ck_assert_has(m, "node 'Pad_7' (Pad): input 'pads' (pads) must be a constant");
    ck_assert_has(m, "node 'Concat_1' (Concat) could not be evaluated at import: its input "
                     "'torch_pads' is a graph input, known only at run time");
    ck_assert_int_eq(import_error("onnx/pad_chain_bad_perm.onnx", NULL, &m), LN_EUNSUPPORTED);
    ck_assert_has(m, "node 'T' (Transpose) could not be evaluated at import: T (transpose): "
                     "'perm' is not a permutation");
    /* named once: the Reshape and Cast after it only pass the reason on */
    ck_assert_ptr_null(strstr(strstr(m, "node 'T'") + 1, "node 'T'"));
}
END_TEST

/* A single ONNX input of a variadic arg is <arg>_0, as with several
 * (test_mean_one_input: Mean of one input is mean's src_0). */
START_TEST(test_variadic_one)
{
    cJSON *ir = NULL, *tin;
    ln_hash *consts = NULL;

    ck_assert_msg(import("conformance/node/test_mean_one_input/model.onnx", NULL, &ir,
                         &consts) == 0, "%s", ln_error_message());
    ck_assert_str_eq(op_str(op_at(ir, 1), "optype"), "mean");
    tin = cJSON_GetObjectItemCaseSensitive(op_at(ir, 1), "tensors_in");
    ck_assert_int_eq(cJSON_GetArraySize(tin), 1);
    ck_assert_str_eq(op_str(cJSON_GetArrayItem(tin, 0), "arg_name"), "src_0");
    cJSON_Delete(ir);
    ln_hash_free(consts);
}
END_TEST

/* Known failures of the node tests: "name reason" lines. */
static ln_bool known_failure(const char *name)
{
    char line[1024];
    FILE *fp = fopen("conformance/known_failures.txt", "r");
    ln_bool found = LN_FALSE;

    while (fp && !found && fgets(line, sizeof line, fp)) {
        size_t n = strcspn(line, " \t\n");
        found = line[0] != '#' && n == strlen(name) && !strncmp(line, name, n);
    }
    if (fp)
        fclose(fp);
    return found;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Subdirectories of dir, sorted; NULL-terminated, free with free_names. */
static char **list_dirs(const char *dir, int *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = ln_alloc(sizeof(char *));

    *n = 0;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
            continue;
        names = ln_realloc(names, sizeof(char *) * (size_t)(*n + 2));
        names[(*n)++] = ln_sprintf("%s/%s", dir, e->d_name);
    }
    if (d)
        closedir(d);
    names[*n] = NULL;
    qsort(names, (size_t)*n, sizeof(char *), cmp_names);
    return names;
}

START_TEST(test_node_subset)
{
    int n, passed = 0;
    char **dirs = list_dirs("conformance/node", &n);
    char msg[1200];

    ck_assert_msg(n > 0, "no node tests under tests/conformance/node");
    for (int i = 0; i < n; i++) {
        int st = nt_run_node_test(dirs[i], msg, sizeof msg);
        if (st == NT_PASS)
            passed++;
        else
            ck_assert_msg(known_failure(strrchr(dirs[i], '/') + 1), "%s %s: %s",
                          nt_status_names[st], dirs[i], msg);
        ln_free(dirs[i]);
    }
    ln_free(dirs);
    ck_assert_int_gt(passed, 0);
}
END_TEST

/* The op types of a compiled stream besides input/output/create, each cut
 * at its first '_' ("conv2d_cpu" -> "conv2d"), space-separated. */
static void stream_ops(const ln_context *ctx, char *buf, size_t n)
{
    size_t len = 0;

    buf[0] = '\0';
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        const char *t = op->op_arg->optype;
        size_t k = strcspn(t, "_");
        if (!strncmp(t, "input", k) || !strncmp(t, "output", k) || !strncmp(t, "create", k))
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%.*s", len ? " " : "", (int)k, t);
        if (len >= n)
            break;
    }
}

/* Shape chains (tests/onnx/chains, made by tests/onnx/make_chain_models.py):
 * evaluated at import, they leave only the ops of stream.txt, and the
 * model matches its reference output. */
START_TEST(test_shape_chains)
{
    int n;
    char **dirs = list_dirs("onnx/chains", &n);
    char msg[1200], got[256], want[256];

    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++) {
        char *path = ln_sprintf("%s/stream.txt", dirs[i]);
        char *text = slurp(path, NULL);
        ln_context *ctx = ln_context_create();
        int st = nt_run_node_test(dirs[i], msg, sizeof msg);

        ck_assert_msg(st == NT_PASS, "%s %s: %s", nt_status_names[st], dirs[i], msg);
        snprintf(want, sizeof want, "%.*s", (int)strcspn(text, "\n"), text);
        ln_free(path);
        ln_free(text);
        path = ln_sprintf("%s/model.onnx", dirs[i]);
        ck_assert_msg(ln_context_init(ctx, path) == 0, "%s", ln_error_message());
        ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
        stream_ops(ctx, got, sizeof got);
        ck_assert_msg(ln_streq(got, want), "%s: stream '%s', want '%s'", dirs[i], got, want);
        ln_context_free(ctx);
        ln_free(path);
        ln_free(dirs[i]);
    }
    ln_free(dirs);
}
END_TEST

/* The export patterns of tests/onnx/patterns compile to the ops they
 * should (their outputs are checked by make test-aot): a 1-D conv is a
 * conv2d on a view, its batchnorm (behind the squeeze, not folded) and
 * relu one batchnorm_relu; opset 13's x * HardSigmoid(x) is one hardswish;
 * x * Sigmoid(x) in either order is one silu; each of them the conv before
 * it takes as its activation (host target); but not when the Sigmoid is
 * read elsewhere too, nor a squeeze-excitation gate. */
START_TEST(test_patterns_stream)
{
    static const char *const cases[][2] = {
        {"onnx/patterns/conv1d_audio.onnx",
         "unsqueeze conv2d squeeze batchnorm unsqueeze maxpool2d squeeze unsqueeze conv2d "
         "squeeze unsqueeze avgpool2d squeeze unsqueeze conv squeeze unsqueeze conv2d squeeze "
         "globalavgpool"},
        {"onnx/patterns/hardswish_opset13.onnx",
         "conv2d conv2d hardsigmoid mul"},
        {"onnx/patterns/silu_swish.onnx",
         "conv2d conv2d sigmoid mul add globalavgpool sigmoid mul"},
    };
    char got[512];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ln_context *ctx = ln_context_create();
        ck_assert_msg(ln_context_init(ctx, cases[i][0]) == 0, "%s", ln_error_message());
        ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
        stream_ops(ctx, got, sizeof got);
        ck_assert_msg(ln_streq(got, cases[i][1]), "%s: stream '%s', want '%s'",
                      cases[i][0], got, cases[i][1]);
        ln_context_free(ctx);
    }
}
END_TEST

START_TEST(test_models)
{
    int n;
    char **dirs = list_dirs("models", &n);
    char msg[1200];

    ck_assert_int_gt(n, 0);
    for (int i = 0; i < n; i++) {
        double rel;
        int st = nt_run_model(dirs[i], msg, sizeof msg, &rel);
        if (st == NT_UNSUPPORTED)
            fprintf(stderr, "test_ln_onnx: %s skipped: %s\n", dirs[i], msg);
        else
            ck_assert_msg(st == NT_PASS, "%s %s: %s", nt_status_names[st], dirs[i], msg);
        ln_free(dirs[i]);
    }
    ln_free(dirs);
}
END_TEST

START_TEST(test_tool)
{
    const char *bin = getenv("LN_BIN");
    char *cmd = ln_sprintf("LN_BIN='%s' sh onnx/run.sh", bin ? bin : "../build/bin");

    ck_assert_int_eq(system(cmd), 0);
    ln_free(cmd);
}
END_TEST

Suite *test_ln_onnx_suite(void); /* run by tests/test_main.c */

Suite *test_ln_onnx_suite(void)
{
    Suite *s = suite_create("ln_onnx");
    TCase *tc = tcase_create("core");

    if (!ln_onnx_enabled()) {
        fprintf(stderr, "test_ln_onnx: built without ONNX support, nothing to test\n");
        suite_add_tcase(s, tc);
        return s;
    }
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_basic_ir);
    tcase_add_test(tc, test_basic_run);
    tcase_add_test(tc, test_probe);
    tcase_add_test(tc, test_bad_files);
    tcase_add_test(tc, test_all_at_once);
    tcase_add_test(tc, test_shapes);
    tcase_add_test(tc, test_const_param);
    tcase_add_test(tc, test_variadic_one);
    tcase_add_test(tc, test_node_subset);
    tcase_add_test(tc, test_shape_chains);
    tcase_add_test(tc, test_pad_chain);
    tcase_add_test(tc, test_patterns_stream);
    tcase_add_test(tc, test_models);
    tcase_add_test(tc, test_tool);
    suite_add_tcase(s, tc);
    return s;
}
