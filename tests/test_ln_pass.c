/*
 * test_ln_pass.c -- the generic compile passes: constant folding, identity
 * and dead-op removal, and the planner on whole op streams (no two live
 * tensors overlap, in-place and views really share, planned == unplanned).
 */
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"
#include "ln_serializer.h"

#define OP(name, type, ins, outs, params) \
    "{\"name\":\"" name "\",\"optype\":\"" type "\",\"tensors_in\":[" ins \
    "],\"tensors_out\":[" outs "],\"params\":[" params "]}"
#define T(arg, name) "{\"arg_name\":\"" arg "\",\"name\":\"" name "\"}"
#define P(arg, value) "{\"arg_name\":\"" arg "\",\"value\":" value "}"
#define CREATE(name, dims, data) \
    OP(name, "create", "", T("dst", name), P("dtype", "\"float32\"") "," \
       P("dims", dims) "," P("data", data))
#define INPUT(name, dims) \
    OP(name, "input", "", T("dst", name), P("dtype", "\"float32\"") "," P("dims", dims))

static const char *fold_ir =
    "{\"ops\":["
    INPUT("x", "[2,3]") ","
    CREATE("c1", "[3]", "[1,-2,3]") ","
    CREATE("c2", "[3]", "[1,1,1]") ","
    OP("addc", "add", T("src1", "c1") "," T("src2", "c2"), T("dst", "c3"), "") ","
    OP("reluc", "relu", T("src", "c3"), T("dst", "c4"), "") ","
    OP("idc", "identity", T("src", "x"), T("dst", "xi"), "") ","
    OP("add1", "add", T("src1", "xi") "," T("src2", "c4"), T("dst", "s"), "") ","
    OP("same", "reshape", T("src", "s"), T("dst", "s1"), P("dims", "[2,3]")) ","
    OP("relu1", "relu", T("src", "s1"), T("dst", "y"), "") ","
    OP("unused", "relu", T("src", "x"), T("dst", "u"), "") ","
    OP("out", "output", T("src", "y"), "", "")
    "]}";

static void run(ln_context *ctx, float *y)
{
    float x[6] = {-1, 2, -3, 4, -5, 6};
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, 6 * sizeof(float)), 0);
}

START_TEST(test_fold_and_clean)
{
    ln_context *ctx = ln_context_create();
    float y[6], want[6] = {1, 2, 1, 6, 0, 10};   /* relu(x + relu(c1 + c2)) */

    ck_assert_int_eq(ln_context_init_str(ctx, fold_ir, "fold.json"), 0);
    ck_assert_int_eq(ln_list_length(ctx->ops), 11);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    /* input, the folded constant c4, add1, relu1, output */
    ck_assert_int_eq(ln_list_length(ctx->ops), 5);
    ck_assert_ptr_null(ln_op_list_find_by_name(ctx->ops, "addc"));
    ck_assert_ptr_null(ln_op_list_find_by_name(ctx->ops, "idc"));
    ck_assert_ptr_null(ln_op_list_find_by_name(ctx->ops, "same"));
    ck_assert_ptr_null(ln_op_list_find_by_name(ctx->ops, "unused"));
    ck_assert(ln_tensor_table_find(ctx->tensor_table, "c4")->isstatic);
    ck_assert_str_eq(ln_tensor_list_find_name(
        ln_op_list_find_by_name(ctx->ops, "add1")->op_arg->tensors_in, "src1"), "x");
    ck_assert_int_eq(ln_context_check(ctx), 0);
    run(ctx, y);
    ck_assert_mem_eq(y, want, sizeof want);
    ln_context_free(ctx);
}
END_TEST

START_TEST(test_fold_survives_print_and_reload)
{
    ln_context *ctx = ln_context_create(), *c2 = ln_context_create();
    char dir[] = "/tmp/ln_pass_XXXXXX", *path, *params;
    float y1[6], y2[6];

    ck_assert_ptr_nonnull(mkdtemp(dir));
    path = ln_sprintf("%s/planned.json", dir);
    params = ln_sprintf("%s/planned.params", dir);
    ck_assert_int_eq(ln_context_init_str(ctx, fold_ir, "fold.json"), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_print(ctx, "-") , LN_EINVAL);  /* new weights need a file */
    ck_assert_int_eq(ln_context_print(ctx, path), 0);
    ck_assert_msg(ln_context_init(c2, path) == 0, "%s", ln_error_message());
    run(ctx, y1);
    run(c2, y2);
    ck_assert_mem_eq(y1, y2, sizeof y1);
    ck_assert_int_eq(remove(path), 0);
    ck_assert_int_eq(remove(params), 0);
    ck_assert_int_eq(remove(dir), 0);
    ln_free(path);
    ln_free(params);
    ln_context_free(ctx);
    ln_context_free(c2);
}
END_TEST

/* A chain with a residual: x -> r1 -> r2 -> r3; y = r3 + r1 */
static const char *res_ir =
    "{\"ops\":["
    INPUT("x", "[4,8]") ","
    OP("a", "relu", T("src", "x"), T("dst", "r1"), "") ","
    OP("b", "relu", T("src", "r1"), T("dst", "r2"), "") ","
    OP("c", "add", T("src1", "r2") "," T("src2", "r1"), T("dst", "r3"), "") ","
    OP("d", "relu", T("src", "r3"), T("dst", "r4"), "") ","
    OP("e", "add", T("src1", "r4") "," T("src2", "r1"), T("dst", "y"), "") ","
    OP("out", "output", T("src", "y"), "", "")
    "]}";

START_TEST(test_plan_invariants)
{
    ln_context *ctx = ln_context_create(), *ref = ln_context_create();
    float x[32], y1[32], y2[32];
    ln_hash_iter it;
    void *k, *v;

    for (int i = 0; i < 32; i++)
        x[i] = (float)(i % 7) - 3;
    ck_assert_int_eq(ln_context_init_str(ctx, res_ir, "res.json"), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    /* r2 works in place over... nothing: r1 lives on; r4 in place over r3 */
    ck_assert_uint_eq(ctx->arena_size, ctx->lower_bound);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_ptr_eq(ln_context_tensor(ctx, "r4")->data, ln_context_tensor(ctx, "r3")->data);
    /* no two tensors live at once overlap: r1 is live with r2, r3, r4 */
    ln_hash_iter_init(&it, ctx->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v;
        const char *live[] = {"r2", "r3", "r4"};
        if (!ln_streq(te->name, "r1"))
            continue;
        for (int i = 0; i < 3; i++) {
            ln_tensor *o = ln_context_tensor(ctx, live[i]);
            char *a = te->tensor->data, *b = o->data;
            ck_assert(a + 128 <= b || b + 128 <= a);
        }
    }
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y1, sizeof y1), 0);
    /* the same model with every tensor in its own buffer */
    ref->plan_noreuse = LN_TRUE;
    ck_assert_int_eq(ln_context_init_str(ref, res_ir, "res.json"), 0);
    ref->plan_noreuse = LN_TRUE;
    ck_assert_int_eq(ln_context_compile(ref, "cpu"), 0);
    ck_assert_uint_gt(ref->arena_size, ctx->arena_size);
    ck_assert_int_eq(ln_context_load(ref, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ref, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ref), 0);
    ck_assert_int_eq(ln_context_get_data(ref, "y", y2, sizeof y2), 0);
    ck_assert_mem_eq(y1, y2, sizeof y1);
    ln_context_free(ctx);
    ln_context_free(ref);
}
END_TEST

/* Two branches concatenated on channels, then a relu: the branches are
 * produced straight into their slices of the concat output. */
static const char *concat_ir =
    "{\"ops\":["
    INPUT("x", "[1,2,3,4]") ","
    OP("a", "relu", T("src", "x"), T("dst", "ra"), "") ","
    OP("b", "sigmoid", T("src", "x"), T("dst", "rb"), "") ","
    OP("b2", "neg", T("src", "rb"), T("dst", "rc"), "") ","
    OP("cat", "concat", T("src_0", "ra") "," T("src_1", "x") "," T("src_2", "rc"),
       T("dst", "c"), P("axis", "1")) ","
    OP("r", "relu", T("src", "c"), T("dst", "y0"), "") ","
    OP("e", "exp", T("src", "y0"), T("dst", "y"), "") ","
    OP("out", "output", T("src", "y"), "", "")
    "]}";

START_TEST(test_concat_in_place)
{
    ln_context *ctx = ln_context_create(), *ref = ln_context_create();
    float x[24], y1[72], y2[72];
    char *c, *ra, *rc;

    for (int i = 0; i < 24; i++)
        x[i] = (float)(i % 5) - 2;
    ck_assert_msg(ln_context_init_str(ctx, concat_ir, "cat.json") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    c = ln_context_tensor(ctx, "c")->data;
    ra = ln_context_tensor(ctx, "ra")->data;
    rc = ln_context_tensor(ctx, "rc")->data;
    /* ra is the first slice, rc the third (x is a graph input: copied) */
    ck_assert_ptr_eq(ra, c);
    ck_assert_ptr_eq(rc, c + 2 * 24 * sizeof(float));
    ck_assert_uint_eq(ctx->arena_size, ctx->lower_bound);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y1, sizeof y1), 0);
    ref->plan_noreuse = LN_TRUE;
    ck_assert_int_eq(ln_context_init_str(ref, concat_ir, "cat.json"), 0);
    ref->plan_noreuse = LN_TRUE;
    ck_assert_int_eq(ln_context_compile(ref, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ref, NULL), 0);
    ck_assert_ptr_ne(ln_context_tensor(ref, "ra")->data, ln_context_tensor(ref, "c")->data);
    ck_assert_int_eq(ln_context_set_data(ref, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ref), 0);
    ck_assert_int_eq(ln_context_get_data(ref, "y", y2, sizeof y2), 0);
    ck_assert_mem_eq(y1, y2, sizeof y1);
    ln_context_free(ctx);
    ln_context_free(ref);
}
END_TEST

/* The plan of every committed test model (ONNX): tensors live at the same
 * step never overlap in the arena unless they share a buffer on purpose
 * (a view, an in-place result, a concat slice), and the arena is the lower
 * bound. */
static const char *root_of(const ln_tensor_entry *te)
{
    return te->owner ? te->owner : te->name;
}

START_TEST(test_plan_of_test_models)
{
    static const char *const models[] = {"lenet5", "ds_cnn", "mobilenet_v1_025", "resnet8",
                                         "ad_autoencoder", NULL};
    if (!ln_serializer_find("onnx"))
        return;     /* built without the ONNX importer */
    for (int m = 0; models[m]; m++) {
        ln_context *ctx = ln_context_create();
        char *path = ln_sprintf("models/%s/model.onnx", models[m]);
        ln_tensor_entry *te[512];
        int first[512], last[512], n = 0, step = 0, checked = 0;

        ck_assert_msg(ln_context_init(ctx, path) == 0, "%s", ln_error_message());
        ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
        ck_assert_msg(ctx->arena_size == ctx->lower_bound, "%s: arena %zu, lower bound %zu",
                      models[m], ctx->arena_size, ctx->lower_bound);
        LN_LIST_FOREACH(ln_op, op, ctx->ops) {
            LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
                for (int i = 0; i < n; i++)
                    if (ln_streq(te[i]->name, tl->name))
                        last[i] = step;
            }
            LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
                ln_tensor_entry *e = ln_tensor_table_find(ctx->tensor_table, tl->name);
                if (e && e->planned && !e->io_buffer && n < 512) {
                    te[n] = e;
                    first[n] = last[n] = step;
                    n++;
                }
            }
            step++;
        }
        ck_assert_int_gt(n, 3);
        for (int i = 0; i < n; i++) {
            size_t ai = te[i]->offset, bi = ai + ln_tensor_size(te[i]->tensor);
            ck_assert_uint_le(bi, ctx->arena_size);
            for (int j = i + 1; j < n; j++) {
                size_t aj = te[j]->offset, bj = aj + ln_tensor_size(te[j]->tensor);
                int live = first[i] <= last[j] && first[j] <= last[i];
                int mem = ai < bj && aj < bi;
                if (live && mem)
                    ck_assert_msg(ln_streq(root_of(te[i]), root_of(te[j])),
                                  "%s: '%s' and '%s' are live together and overlap",
                                  models[m], te[i]->name, te[j]->name);
                checked++;
            }
        }
        ck_assert_int_gt(checked, 0);
        ck_assert_msg(ln_context_load(ctx, NULL) == 0, "%s", ln_error_message());
        ck_assert_int_eq(ln_context_run(ctx), 0);
        ln_free(path);
        ln_context_free(ctx);
    }
}
END_TEST

Suite *test_ln_pass_suite(void);
Suite *test_ln_pass_suite(void)
{
    Suite *s = suite_create("ln_pass");
    TCase *tc = tcase_create("pass");
    tcase_add_test(tc, test_fold_and_clean);
    tcase_add_test(tc, test_fold_survives_print_and_reload);
    tcase_add_test(tc, test_plan_invariants);
    tcase_add_test(tc, test_concat_in_place);
    tcase_add_test(tc, test_plan_of_test_models);
    suite_add_tcase(s, tc);
    return s;
}
