/*
 * test_ln_ctrl.c -- control flow: ONNX If, Loop and Scan (tests/onnx/ctrl,
 * made by tests/onnx/ctrl/make_ctrl.py with ONNX Runtime and PyTorch
 * references), and guards in the IR: the interpreter runs the taken branch
 * only, passes do not fuse across a guard, the planner lets the branches
 * share memory.  make test-aot runs the same models through ln-aot + cc.
 */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"
#include "ln_onnx.h"
#include "ln_pass.h"

extern ln_expander_func ln_expander_funcs_cpu[];
extern const ln_expand_default ln_expand_defaults_cpu[];
extern ln_combiner_func ln_combiner_funcs_cpu[];

static void *read_bin(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    void *buf;
    long len;

    ck_assert_msg(fp != NULL, "cannot open %s", path);
    fseek(fp, 0, SEEK_END);
    len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    buf = ln_alloc((size_t)len + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return buf;
}

static ln_context *compiled(const char *path)
{
    ln_context *ctx = ln_context_create();
    ck_assert_msg(ln_context_init(ctx, path) == 0, "%s: %s", path, ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s: %s", path, ln_error_message());
    return ctx;
}

/* Run the model at path (one input, one output) on <base>.in.bin against
 * <base>.ref.bin: max |diff| <= 1e-5 max |ref| + 1e-6. */
static void run_model(const char *path)
{
    size_t len = strlen(path) - strlen(".onnx"), nin, nref;
    char *in = ln_sprintf("%.*s.in.bin", (int)len, path), *rf = ln_sprintf("%.*s.ref.bin", (int)len, path);
    float *x = read_bin(in, &nin), *ref = read_bin(rf, &nref), *y = ln_alloc(nref);
    ln_context *ctx = compiled(path);
    ln_list *ins = ln_context_inputs(ctx), *outs = ln_context_outputs(ctx);
    float maxref = 0, maxdiff = 0;

    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_set_data(ctx, ins->data, x, nin) == 0, "%s: %s", path, ln_error_message());
    ck_assert_msg(ln_context_run(ctx) == 0, "%s: %s", path, ln_error_message());
    ck_assert_msg(ln_context_get_data(ctx, outs->data, y, nref) == 0, "%s: %s", path, ln_error_message());
    for (size_t i = 0; i < nref / sizeof(float); i++) {
        maxref = fmaxf(maxref, fabsf(ref[i]));
        maxdiff = fmaxf(maxdiff, fabsf(y[i] - ref[i]));
    }
    ck_assert_msg(maxref > 0, "%s: the reference is all zeros", path);
    ck_assert_msg(maxdiff <= 1e-5f * maxref + 1e-6f, "%s: max |diff| %g, max |ref| %g", path,
                  maxdiff, maxref);
    ln_list_free(ins);
    ln_list_free(outs);
    ln_context_free(ctx);
    ln_free(x);
    ln_free(ref);
    ln_free(y);
    ln_free(in);
    ln_free(rf);
}

/* Every model of tests/onnx/ctrl through the interpreter. */
START_TEST(test_ctrl_models)
{
    DIR *d = opendir("onnx/ctrl");
    struct dirent *de;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        char *p;
        if (l < 6 || strcmp(de->d_name + l - 5, ".onnx"))
            continue;
        p = ln_sprintf("onnx/ctrl/%s", de->d_name);
        run_model(p);
        ln_free(p);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 11);
}
END_TEST

static ln_op *find_op(const ln_context *ctx, const char *optype)
{
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (ln_streq(op->op_arg->optype, optype))
            return op;
    }
    return NULL;
}

static const char *guard_str(const ln_op *op, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    LN_LIST_FOREACH(ln_tensor_list_entry, g, op->op_arg->guard) {
        len += (size_t)snprintf(buf + len, n - len, "%s%s=%s", len ? "," : "", g->name, g->arg_name);
    }
    return buf;
}

/* The run-time If of if_score: each branch's ops under its guard, the
 * conv + relu of the then branch fused inside it, the relu after the If
 * not fused into either branch's last conv, the merge copying nothing
 * (both branch outputs planned at its output); the same If with a
 * constant condition leaves one branch and no guard. */
START_TEST(test_if_stream)
{
    ln_context *ctx = compiled("onnx/ctrl/if_score_then.onnx");
    ln_op *merge = find_op(ctx, "if_merge_cpu"), *relu = NULL;
    int then_ops = 0, else_ops = 0, fused = 0, after = 0;
    char g[256];

    ck_assert_ptr_nonnull(merge);
    ck_assert_ptr_null(merge->op_arg->guard);
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        guard_str(op, g, sizeof g);
        if (ln_streq(g, "cond=true"))
            then_ops++;
        else if (ln_streq(g, "cond=false"))
            else_ops++;
        else
            ck_assert_msg(!*g, "%s: guard %s", op->op_arg->name, g);
        if (ln_streq(op->op_arg->optype, "conv2d_cpu") && *g) {
            ln_param_entry *a = ln_op_param(op->op_arg, "activation");
            if (a && ln_streq(a->value_string, "relu")) {
                ck_assert_str_eq(g, "cond=true");
                fused++;
            }
        }
        if (after && ln_streq(op->op_arg->optype, "relu_cpu"))
            relu = op;
        after = after || op == merge;
    }
    ck_assert_int_eq(fused, 1);             /* If/then: conv + relu */
    ck_assert_int_ge(then_ops, 3);
    ck_assert_int_ge(else_ops, 3);
    ck_assert_msg(relu && !relu->op_arg->guard, "the relu after the If was fused or lost");
    {
        /* the branch outputs live at the merge's output: no copy */
        ln_tensor_entry *t = ln_op_tensor_in(merge->op_arg, "on_true");
        ln_tensor_entry *e = ln_op_tensor_in(merge->op_arg, "on_false");
        ln_tensor_entry *o = ln_op_tensor_out(merge->op_arg, "dst");
        ck_assert(t->planned && e->planned && o->planned);
        ck_assert_int_eq(t->offset, o->offset);
        ck_assert_int_eq(e->offset, o->offset);
        ck_assert(ln_streq(t->owner ? t->owner : t->name, o->owner ? o->owner : o->name));
    }
    ln_context_free(ctx);

    ctx = compiled("onnx/ctrl/if_fold_else_x.onnx");
    ck_assert_ptr_null(find_op(ctx, "if_merge_cpu"));
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ck_assert_ptr_null(op->op_arg->guard);
        ck_assert_msg(!strstr(op->op_arg->name, "/then/"), "%s of the branch not taken",
                      op->op_arg->name);
    }
    ln_context_free(ctx);
}
END_TEST

/* The arena of the run-time If is no larger than the larger branch needs
 * (the If folded either way: that branch alone) plus what is live across
 * the If (its one-byte condition, one aligned block). */
START_TEST(test_if_arena)
{
    ln_context *c = compiled("onnx/ctrl/if_score_then.onnx");
    ln_context *t = compiled("onnx/ctrl/if_fold_then_x.onnx");
    ln_context *e = compiled("onnx/ctrl/if_fold_else_x.onnx");
    size_t branch = t->arena_size > e->arena_size ? t->arena_size : e->arena_size;

    ck_assert_msg(c->arena_size <= branch + LN_MEM_ALIGN,
                  "If arena %zu, branches %zu and %zu", c->arena_size, t->arena_size,
                  e->arena_size);
    ck_assert_int_eq(c->arena_size, c->lower_bound);
    ck_assert_int_gt(c->arena_size, 0);
    ln_context_free(c);
    ln_context_free(t);
    ln_context_free(e);
}
END_TEST

/* A conv under guard c, a relu reading it; the else branch a second conv;
 * a merge.  GUARD is the relu's guard text. */
static char *guard_ir(const char *relu_guard)
{
    return ln_sprintf(
        "{\"ops\": ["
        "{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        " \"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,2,4,4]}]},"
        "{\"name\":\"c\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],"
        " \"params\":[{\"arg_name\":\"dtype\",\"value\":\"bool\"},{\"arg_name\":\"dims\",\"value\":[]}]},"
        "{\"name\":\"w\",\"optype\":\"create\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"w\"}],"
        " \"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[3,2,1,1]},"
        "  {\"arg_name\":\"data\",\"value\":[1,-2,0.5,1.5,-1,2]}]},"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "  {\"arg_name\":\"weight\",\"name\":\"w\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"t\"}],"
        " \"guard\":[{\"tensor\":\"c\",\"value\":true}]},"
        "{\"name\":\"relu\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"t\"}],"
        " \"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"r\"}]%s},"
        "{\"name\":\"conv2\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "  {\"arg_name\":\"weight\",\"name\":\"w\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"e\"}],"
        " \"params\":[{\"arg_name\":\"pads\",\"value\":[0,0,0,0]}],"
        " \"guard\":[{\"tensor\":\"c\",\"value\":false}]},"
        "{\"name\":\"merge\",\"optype\":\"if_merge\",\"tensors_in\":[{\"arg_name\":\"cond\",\"name\":\"c\"},"
        "  {\"arg_name\":\"on_true\",\"name\":\"r\"},{\"arg_name\":\"on_false\",\"name\":\"e\"}],"
        " \"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"y_output\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}"
        "]}", relu_guard);
}

/* y for cond, by the compiled ir (opt) or at -O0. */
static void run_guard_ir(const char *ir, ln_bool cond, ln_bool opt, float *y)
{
    ln_context *ctx = ln_context_create();
    unsigned char c = cond ? 1 : 0;
    float x[32];

    for (int i = 0; i < 32; i++)
        x[i] = (float)((i * 7) % 11) - 5.0f;
    ck_assert_msg(ln_context_init_str(ctx, ir, "guard.json") == 0, "%s", ln_error_message());
    ctx->no_opt = !opt;
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "c", &c, 1), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof(float) * 48), 0);
    ln_context_free(ctx);
}

/* Within one guard conv + relu fuse, and both condition values give what
 * -O0 gives (the interpreter runs only the taken branch: the relu shows);
 * an unguarded relu reading the guarded conv is refused at init; and the
 * combiner itself does not fuse it (the relu's guard removed after init). */
START_TEST(test_guard_fusion)
{
    char *ir = guard_ir(",\"guard\":[{\"tensor\":\"c\",\"value\":true}]");
    char *bad = guard_ir("");
    ln_context *ctx = ln_context_create();
    float a[48], b[48];
    ln_op *conv, *relu;
    int neg = 0;

    for (int k = 0; k < 2; k++) {
        run_guard_ir(ir, k == 0, LN_TRUE, a);
        run_guard_ir(ir, k == 0, LN_FALSE, b);
        for (int i = 0; i < 48; i++) {
            ck_assert_msg(a[i] == b[i], "cond %d: y[%d] %g, -O0 %g", k == 0, i, a[i], b[i]);
            neg += a[i] < 0;
        }
        ck_assert_int_eq(neg > 0, k == 1);  /* only the else branch has no relu */
    }

    ck_assert_int_ne(ln_context_init_str(ctx, bad, "bad.json"), 0);
    ck_assert_msg(strstr(ln_error_message(), "relu (relu): reads 't', which op 'conv' computes "
                                             "only where 'c' is true"), "%s", ln_error_message());
    ln_context_free(ctx);

    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, ir, "guard.json") == 0, "%s", ln_error_message());
    ln_op_set_guard(ln_op_list_find_by_name(ctx->ops, "relu"), NULL);
    ck_assert_int_eq(ln_pass_expander(ctx, ln_expander_funcs_cpu, ln_expand_defaults_cpu), 0);
    ck_assert_int_eq(ln_pass_combiner(ctx, 2, ln_combiner_funcs_cpu), 0);
    conv = ln_op_list_find_by_name(ctx->ops, "conv");
    relu = ln_op_list_find_by_name(ctx->ops, "relu");
    ck_assert_ptr_nonnull(conv);
    ck_assert_msg(relu != NULL, "the unguarded relu was fused into the guarded conv");
    {
        ln_param_entry *act = ln_op_param(conv->op_arg, "activation");
        ck_assert_msg(!act || ln_streq(act->value_string, "none"), "conv got activation %s",
                      act->value_string);
    }
    ln_context_free(ctx);
    ln_free(ir);
    ln_free(bad);
}
END_TEST

/* A malformed guard, and a guard on a float tensor, are refused by name. */
START_TEST(test_guard_bad)
{
    char *ir = guard_ir(",\"guard\":[{\"tensor\":\"c\"}]");
    char *ir2 = guard_ir(",\"guard\":[{\"tensor\":\"c\",\"value\":true},{\"tensor\":\"x\",\"value\":true}]");
    ln_context *ctx = ln_context_create();

    ck_assert_int_eq(ln_context_init_str(ctx, ir, "g.json"), LN_EPARSE);
    ck_assert_msg(strstr(ln_error_message(), "op 'relu': a guard entry"), "%s", ln_error_message());
    ln_context_free(ctx);
    ctx = ln_context_create();
    ck_assert_int_ne(ln_context_init_str(ctx, ir2, "g.json"), 0);
    ck_assert_msg(strstr(ln_error_message(), "guard tensor 'x' is not a bool of one element"), "%s",
                  ln_error_message());
    ln_context_free(ctx);
    ln_free(ir);
    ln_free(ir2);
}
END_TEST

/* What LightNet cannot do is refused naming the node or input. */
START_TEST(test_ctrl_refused)
{
    static const char *const cases[][2] = {
        {"onnx/ctrl/bad/if_shapes.onnx", "node 'pick' (If): output 0 is 'pick/then/a' of shape [4] "
                                         "in the then branch and 'pick/else/b' of shape [2] in the "
                                         "else branch (they must agree)"},
        {"onnx/ctrl/bad/loop_runtime_m.onnx", "node 'lp' (Loop): input 'M' (the trip count M"},
        {"onnx/ctrl/bad/if_undefined_out.onnx", "subgraph 'e' (iff/else): output 'nowhere' is not "
                                                "defined"},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ln_context *ctx = ln_context_create();
        ck_assert_int_ne(ln_context_init(ctx, cases[i][0]), 0);
        ck_assert_msg(strstr(ln_error_message(), cases[i][1]), "%s: '%s' lacks '%s'", cases[i][0],
                      ln_error_message(), cases[i][1]);
        ln_context_free(ctx);
    }
}
END_TEST

Suite *test_ln_ctrl_suite(void); /* run by tests/test_main.c */

Suite *test_ln_ctrl_suite(void)
{
    Suite *s = suite_create("ln_ctrl");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_guard_fusion);
    tcase_add_test(tc, test_guard_bad);
    if (ln_onnx_enabled()) {
        tcase_add_test(tc, test_ctrl_models);
        tcase_add_test(tc, test_if_stream);
        tcase_add_test(tc, test_if_arena);
        tcase_add_test(tc, test_ctrl_refused);
    }
    suite_add_tcase(s, tc);
    return s;
}
