/*
 * test_ln_context.c -- the context end to end on small IR strings: parse,
 * pre_run, compile for cpu, plan, load, run, get/set data, print and
 * re-read a planned IR, rewrites, and the errors a user can cause.
 */
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <check.h>
#include "ln_interp.h"
#include "ln_datafile.h"

#define OP(name, type, ins, outs, params) \
    "{\"name\":\"" name "\",\"optype\":\"" type "\",\"tensors_in\":[" ins \
    "],\"tensors_out\":[" outs "],\"params\":[" params "]}"
#define T(arg, name) "{\"arg_name\":\"" arg "\",\"name\":\"" name "\"}"
#define P(arg, value) "{\"arg_name\":\"" arg "\",\"value\":" value "}"

static const char *slice_ir =
    "{\"ops\":["
    OP("create1", "create", "", T("dst", "create1"),
       P("dtype", "\"float32\"") "," P("dims", "[2,4]") ","
       P("data", "[1,2,3,4,5,6,7,8]") "," P("from_file", "false")) ","
    OP("slice1", "slice", T("src", "create1"), T("dst", "slice1"),
       P("axis", "1") "," P("start", "1") "," P("len", "3")) ","
    OP("print1", "print", T("src", "slice1"), "", P("msg", "\"slice1:\""))
    "]}";

/* x -> relu -> r; r + c -> s; reshape s -> y; output y */
static const char *net_ir =
    "{\"ops\":["
    OP("in", "input", "", T("dst", "x"), P("dtype", "\"float32\"") "," P("dims", "[2,3]")) ","
    OP("c", "create", "", T("dst", "c"),
       P("dtype", "\"float32\"") "," P("dims", "[3]") "," P("data", "[10,20,30]")) ","
    OP("relu1", "relu", T("src", "x"), T("dst", "r"), "") ","
    OP("add1", "add", T("src1", "r") "," T("src2", "c"), T("dst", "s"), "") ","
    OP("reshape1", "reshape", T("src", "s"), T("dst", "y"), P("dims", "[3,-1]")) ","
    OP("out", "output", T("src", "y"), "", "")
    "]}";

static ln_context *ctx;

static void setup(void)
{
    ctx = ln_context_create();
}

static void teardown(void)
{
    ln_context_free(ctx);
}

START_TEST(test_slice_example)
{
    float got[6], want[6] = {2, 3, 4, 6, 7, 8};
    ln_tensor *t;

    ck_assert_int_eq(ln_context_init_str(ctx, slice_ir, "slice.json"), 0);
    ck_assert_int_eq(ln_list_length(ctx->ops), 3);
    t = ln_context_tensor(ctx, "slice1");
    ck_assert_int_eq(t->ndim, 2);
    ck_assert_int_eq(t->dims[0], 2);
    ck_assert_int_eq(t->dims[1], 3);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ck_assert_str_eq(op->op_arg->arch, "cpu");
    }
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "slice1", got, sizeof got), 0);
    ck_assert_mem_eq(got, want, sizeof want);
}
END_TEST

static void run_net(ln_context *c, float *y)
{
    float x[6] = {-1, 2, -3, 4, -5, 6};
    ck_assert_int_eq(ln_context_set_data(c, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(c), 0);
    ck_assert_int_eq(ln_context_get_data(c, "y", y, 6 * sizeof(float)), 0);
}

START_TEST(test_net_plan_and_views)
{
    float y[6], want[6] = {10, 22, 30, 14, 20, 36};
    ln_tensor *ty;

    ck_assert_int_eq(ln_context_init_str(ctx, net_ir, "net.json"), 0);
    ty = ln_context_tensor(ctx, "y");
    ck_assert_int_eq(ty->ndim, 2);
    ck_assert_int_eq(ty->dims[0], 3);
    ck_assert_int_eq(ty->dims[1], 2);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert(ctx->planned);
    ck_assert_uint_ge(ctx->arena_size, ctx->lower_bound);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    run_net(ctx, y);
    ck_assert_mem_eq(y, want, sizeof want);
    /* the reshape output is a view of the add output */
    ck_assert_ptr_eq(ln_context_tensor(ctx, "y")->data, ln_context_tensor(ctx, "s")->data);
    /* the constant is not in the arena */
    ck_assert(!ln_tensor_table_find(ctx->tensor_table, "c")->planned);
}
END_TEST

START_TEST(test_print_and_reload_planned)
{
    float y1[6], y2[6];
    char *s;
    ln_context *c2 = ln_context_create();

    ck_assert_int_eq(ln_context_init_str(ctx, net_ir, "net.json"), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    s = ln_context_print_str(ctx);
    ck_assert_ptr_nonnull(strstr(s, "\"memory_plan\""));
    ck_assert_ptr_nonnull(strstr(s, "\"arch\":\t\"cpu\""));
    ck_assert_int_eq(ln_context_init_str(c2, s, "planned.json"), 0);
    ck_assert(c2->planned);
    ck_assert_uint_eq(c2->arena_size, ctx->arena_size);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_load(c2, NULL), 0);
    run_net(ctx, y1);
    run_net(c2, y2);
    ck_assert_mem_eq(y1, y2, sizeof y1);
    ln_free(s);
    ln_context_free(c2);
}
END_TEST

START_TEST(test_weights_from_file)
{
    char dir[] = "/tmp/ln_ctx_XXXXXX", *path, *ir;
    int dims[1] = {3};
    float w[3] = {100, 200, 300}, y[6], want[6] = {99, 202, 297, 104, 195, 306};
    ln_tensor *t = ln_tensor_create(LN_DTYPE_FLOAT32, 1, dims, w);
    const char *names[1] = {"c"};
    const ln_tensor *ts[1] = {t};

    ck_assert_ptr_nonnull(mkdtemp(dir));
    path = ln_sprintf("%s/w.params", dir);
    ck_assert_int_eq(ln_datafile_write_params(path, 1, names, ts), 0);
    ir = ln_sprintf("{\"data\": \"w.params\", \"ops\":["
        OP("in", "input", "", T("dst", "x"), P("dtype", "\"float32\"") "," P("dims", "[2,3]")) ","
        OP("c", "create", "", T("dst", "c"),
           P("dtype", "\"float32\"") "," P("dims", "[3]") "," P("from_file", "true")) ","
        OP("add1", "add", T("src1", "x") "," T("src2", "c"), T("dst", "y"), "") ","
        OP("out", "output", T("src", "y"), "", "") "]}");
    {
        char *src = ln_sprintf("%s/model.json", dir);
        ck_assert_int_eq(ln_context_init_str(ctx, ir, src), 0);
        ln_free(src);
    }
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    run_net(ctx, y);
    ck_assert_mem_eq(y, want, sizeof want);
    ln_context_unload(ctx);
    /* a weights file without the tensor */
    {
        const char *n2[1] = {"other"};
        ck_assert_int_eq(ln_datafile_write_params(path, 1, n2, ts), 0);
    }
    ck_assert_int_eq(ln_context_set_data_file(ctx, path), 0);   /* forget the cached weights */
    ck_assert_int_eq(ln_context_load(ctx, NULL), LN_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "tensor 'c' is not in weights file"));
    unlink(path);
    rmdir(dir);
    ln_free(path);
    ln_free(ir);
    ln_tensor_free(t);
}
END_TEST

static void expect_init_error(const char *ir, int code, const char *msg)
{
    ck_assert_int_eq(ln_context_init_str(ctx, ir, "m.json"), code);
    ck_assert_msg(strstr(ln_error_message(), msg), "message '%s' lacks '%s'",
                  ln_error_message(), msg);
    ck_assert_ptr_null(ctx->ops);
}

START_TEST(test_errors)
{
    expect_init_error("{\"ops\": [\n  {\"name\": \"a\",, }]}", LN_EPARSE, "m.json:2:17: malformed JSON");
    expect_init_error("{\"ops\": [", LN_EPARSE, "unexpected end of input");
    expect_init_error("{\"opz\": []}", LN_EPARSE, "missing array field 'ops'");
    expect_init_error("{\"ops\":[" OP("f1", "frobnicate", "", "", "") "]}",
                      LN_EUNSUPPORTED, "op 'f1': unknown optype 'frobnicate'");
    expect_init_error("{\"ops\":[" OP("r1", "relu", T("src", "nothere"), T("dst", "y"), "") "]}",
                      LN_EOP, "r1 (relu): input 'src' is tensor 'nothere', which is not defined");
    expect_init_error("{\"ops\":["
                      OP("c", "create", "", T("dst", "c"), P("dtype", "\"float32\"") ","
                         P("dims", "[2,4]") "," P("data", "[1,2,3,4,5,6,7,8]")) ","
                      OP("s1", "slice", T("src", "c"), T("dst", "s"),
                         P("axis", "\"one\"") "," P("start", "1") "," P("len", "3")) "]}",
                      LN_EOP, "s1 (slice): param 'axis' should be number, got string");
    expect_init_error("{\"ops\":["
                      OP("c", "create", "", T("dst", "c"), P("dtype", "\"float32\"") ","
                         P("dims", "[2,4]") "," P("data", "[1,2,3,4,5,6,7,8]")) ","
                      OP("c", "relu", T("src", "c"), T("dst", "d"), "") "]}",
                      LN_EPARSE, "op name 'c' is used twice");
    expect_init_error("{\"ops\":[{\"name\": \"q\", \"optype\": \"relu\", \"color\": 1}]}",
                      LN_EPARSE, "op 'q': unknown field 'color'");
    ck_assert_int_eq(ln_context_compile(ctx, "gpu9"), LN_ENOTFOUND);
}
END_TEST

START_TEST(test_rewrites)
{
    ln_list *pos;
    ln_op *op;
    const ln_op *proto = ln_arch_op_proto("relu");

    ck_assert_int_eq(ln_context_init_str(ctx, net_ir, "net.json"), 0);
    ck_assert_int_eq(ln_context_check(ctx), 0);
    /* remove the output op, then add it back at the end */
    ck_assert_int_eq(ln_context_remove_op(ctx, "out"), 0);
    ck_assert_int_eq(ln_list_length(ctx->ops), 5);
    ck_assert_int_eq(ln_context_remove_op(ctx, "out"), LN_ENOTFOUND);
    /* replace relu1 by two relus */
    pos = ctx->ops->next->next;
    ck_assert_str_eq(((ln_op *)pos->data)->op_arg->name, "relu1");
    {
        ln_op *a = ln_op_create_from_proto(proto, "ra", ln_tensor_list_append(NULL, "src", "x"),
                                           ln_tensor_list_append(NULL, "dst", "tmp"), NULL,
                                           ctx->tensor_table);
        ln_op *b = ln_op_create_from_proto(proto, "rb", ln_tensor_list_append(NULL, "src", "tmp"),
                                           ln_tensor_list_append(NULL, "dst", "r"), NULL,
                                           ctx->tensor_table);
        ln_list *nl = ln_list_append(ln_list_append(NULL, a), b);
        ck_assert_int_eq(ln_context_replace_ops(ctx, &pos, 1, nl), 0);
    }
    ck_assert_str_eq(((ln_op *)pos->data)->op_arg->name, "ra");
    ck_assert_int_eq(ln_list_length(ctx->ops), 6);
    ck_assert_ptr_null(ln_op_table_find(ctx->op_table, "relu1"));
    ck_assert_ptr_eq(ln_dfg_producer(ctx->dfg, "r"), ln_op_table_find(ctx->op_table, "rb"));
    ck_assert_int_eq(ln_context_check(ctx), 0);
    /* a replacement that fails pre_run is rolled back */
    pos = ctx->ops->next->next;
    {
        ln_op *bad = ln_op_create_from_proto(proto, "bad", ln_tensor_list_append(NULL, "src", "zz"),
                                             ln_tensor_list_append(NULL, "dst", "tmp"), NULL,
                                             ctx->tensor_table);
        ck_assert_int_eq(ln_context_replace_ops(ctx, &pos, 1, ln_list_append(NULL, bad)), LN_EOP);
    }
    ck_assert_ptr_nonnull(ln_op_table_find(ctx->op_table, "ra"));
    ck_assert_int_eq(ln_context_check(ctx), 0);
    op = ln_op_create_from_proto(ln_arch_op_proto("output"), "out2",
                                 ln_tensor_list_append(NULL, "src", "y"), NULL, NULL,
                                 ctx->tensor_table);
    ck_assert_int_eq(ln_context_add_op(ctx, op), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    {
        float y[6], want[6] = {10, 22, 30, 14, 20, 36};
        run_net(ctx, y);
        ck_assert_mem_eq(y, want, sizeof want);
    }
}
END_TEST

START_TEST(test_data_access_errors)
{
    float buf[6];
    ck_assert_int_eq(ln_context_init_str(ctx, net_ir, "net.json"), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", buf, sizeof buf), LN_EINVAL); /* not loaded */
    ck_assert_int_eq(ln_context_run(ctx), LN_EINVAL);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", buf, 5), LN_EINVAL);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "tensor 'x' has 24 bytes, got 5"));
    ck_assert_int_eq(ln_context_get_data(ctx, "nope", buf, sizeof buf), LN_ENOTFOUND);
    ck_assert_uint_eq(ln_context_data_size(ctx, "x"), 24);
    ck_assert_uint_eq(ln_context_data_size(ctx, "nope"), 0);
}
END_TEST

START_TEST(test_uncompiled_run_fails)
{
    ck_assert_int_eq(ln_context_init_str(ctx, net_ir, "net.json"), 0);
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_run(ctx), LN_EUNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "compile for a target first"));
}
END_TEST


/* ---- sizes and memory (issue 12) ----------------------------------------- */

#define INPUT_IR(dims) \
    "{\"ops\":[" OP("in", "input", "", T("dst", "x"), P("dtype", "\"float32\"") "," \
                    P("dims", dims)) "," \
    OP("relu1", "relu", T("src", "x"), T("dst", "y"), "") "," \
    OP("out", "output", T("src", "y"), "", "") "]}"

static void expect_size_error(const char *ir, const char *msg)
{
    ck_assert_int_eq(ln_context_init_str(ctx, ir, "sizes.json"), LN_EINVAL);
    ck_assert_msg(strstr(ln_error_message(), msg), "'%s' lacks '%s'", ln_error_message(), msg);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "sizes.json: in (input): tensor 'x'"));
    ck_assert_ptr_null(ctx->ops);
}

START_TEST(test_sizes_refused)
{
    /* 3.3e12 elements: fits a 64-bit size_t, not the kernels' int32 indexing */
    expect_size_error(INPUT_IR("[1,3,1048576,1048576]"), "has 3298534883328 elements");
    /* 2^31 elements exactly: one too many */
    expect_size_error(INPUT_IR("[2,1024,1024,1024]"), "at most 2147483647");
    /* the element count itself overflows size_t (2^93) */
    expect_size_error(INPUT_IR("[2147483647,2147483647,2147483647,2147483647]"),
                      "overflows size_t");
}
END_TEST

START_TEST(test_size_limit_accepts_largest)
{
    /* 2^31 - 1 elements is still a model (nothing is allocated here) */
    ln_context *c = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(c, INPUT_IR("[2147483647]"), "sizes.json"), 0);
    ln_context_free(c);
}
END_TEST

/* Allocation failure is an error code, not an abort: simulated with the
 * allocation limit, for the arena, the caller buffers and the constants. */
START_TEST(test_alloc_failure_enomem)
{
    for (int io = 0; io < 2; io++) {
        ln_context *c = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(c, INPUT_IR("[64,1024]"), "sizes.json"), 0);
        c->io_in_arena = io;
        ck_assert_int_eq(ln_context_compile(c, "cpu"), 0);
        ln_alloc_set_limit(100000);        /* the tensors are 256 KB */
        ck_assert_int_eq(ln_context_load(c, NULL), LN_ENOMEM);
        ck_assert_msg(strstr(ln_error_message(), "no memory"), "%s", ln_error_message());
        ck_assert(!c->loaded);
        ln_alloc_set_limit(0);
        ck_assert_int_eq(ln_context_load(c, NULL), 0);
        ck_assert_int_eq(ln_context_run(c), 0);
        ln_context_free(c);
    }
    {
        /* a 120 KB constant, of which one element is the output */
        size_t cap = 30000 * 2 + 1024, n = 0;
        char *ir = ln_alloc(cap);
        ln_context *c = ln_context_create();
        n += (size_t)sprintf(ir + n, "{\"ops\":[" OP("c", "create", "", T("dst", "c"),
                             P("dtype", "\"float32\"") "," P("dims", "[30000]") ",") "");
        n -= strlen("]}");      /* reopen the params: add the data */
        n += (size_t)sprintf(ir + n, "{\"arg_name\":\"data\",\"value\":[");
        for (int i = 0; i < 30000; i++)
            n += (size_t)sprintf(ir + n, "%s1", i ? "," : "");
        sprintf(ir + n, "]}]}," OP("s", "slice", T("src", "c"), T("dst", "y"),
                                   P("axis", "0") "," P("start", "0") "," P("len", "1"))
                "," OP("out", "output", T("src", "y"), "", "") "]}");
        ck_assert_msg(ln_context_init_str(c, ir, "sizes.json") == 0, "%s", ln_error_message());
        c->no_opt = LN_TRUE;
        ck_assert_int_eq(ln_context_compile(c, "cpu"), 0);
        ln_alloc_set_limit(100000);
        ck_assert_int_eq(ln_context_load(c, NULL), LN_ENOMEM);
        ck_assert_msg(strstr(ln_error_message(), "constant 'c'"), "%s", ln_error_message());
        ln_alloc_set_limit(0);
        ck_assert_int_eq(ln_context_load(c, NULL), 0);
        ln_context_free(c);
        ln_free(ir);
    }
}
END_TEST

/* A planned IR read from a file is checked like any input. */
START_TEST(test_bad_plans_refused)
{
    static const char *bad[][2] = {
        {"\"arena_size\": -1", "arena_size"},
        {"\"arena_size\": 1e300", "arena_size"},
        {"\"arena_size\": 0.5", "arena_size"},
    };
    ln_context *c = ln_context_create();
    char *planned, *p;

    ck_assert_int_eq(ln_context_init_str(c, net_ir, "net.json"), 0);
    ck_assert_int_eq(ln_context_compile(c, "cpu"), 0);
    planned = ln_context_print_str(c);
    ln_context_free(c);
    p = strstr(planned, "\"arena_size\"");
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        /* replace the arena size field's value */
        char *end = strpbrk(p, ",}\n");
        char *ir = ln_sprintf("%.*s%s%s", (int)(p - planned), planned, bad[i][0], end);
        c = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(c, ir, "planned.json"), LN_EPARSE);
        ck_assert_msg(strstr(ln_error_message(), bad[i][1]), "%s", ln_error_message());
        ln_context_free(c);
        ln_free(ir);
    }
    ln_free(planned);
    {
        /* three branches live together, all moved to offset 0 */
        static const char *fork_ir =
            "{\"ops\":["
            OP("in", "input", "", T("dst", "x"), P("dtype", "\"float32\"") "," P("dims", "[2,3]"))
            "," OP("r1", "relu", T("src", "x"), T("dst", "a"), "") ","
            OP("s1", "sigmoid", T("src", "x"), T("dst", "b"), "") ","
            OP("t1", "tanh", T("src", "x"), T("dst", "c"), "") ","
            OP("add1", "add", T("src1", "a") "," T("src2", "b"), T("dst", "d"), "") ","
            OP("add2", "add", T("src1", "d") "," T("src2", "c"), T("dst", "y"), "") ","
            OP("out", "output", T("src", "y"), "", "") "]}";
        char *ir, *q;
        c = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(c, fork_ir, "fork.json"), 0);
        ck_assert_int_eq(ln_context_compile(c, "cpu"), 0);
        ir = q = ln_context_print_str(c);
        ln_context_free(c);
        while ((q = strstr(q, "\"offset\":"))) {
            q += strlen("\"offset\":");
            while (*q == ' ' || *q == '\t')
                q++;
            while (*q >= '0' && *q <= '9')
                *q++ = '0';
        }
        c = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(c, ir, "planned.json"), LN_EPARSE);
        ck_assert_msg(strstr(ln_error_message(), "planned.json: memory_plan is not valid"), "%s",
                      ln_error_message());
        ln_context_free(c);
        ln_free(ir);
    }
}
END_TEST

Suite *test_ln_context_suite(void);
Suite *test_ln_context_suite(void)
{
    Suite *s = suite_create("ln_context");
    TCase *tc = tcase_create("context");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_slice_example);
    tcase_add_test(tc, test_net_plan_and_views);
    tcase_add_test(tc, test_print_and_reload_planned);
    tcase_add_test(tc, test_weights_from_file);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_rewrites);
    tcase_add_test(tc, test_data_access_errors);
    tcase_add_test(tc, test_uncompiled_run_fails);
    tcase_add_test(tc, test_sizes_refused);
    tcase_add_test(tc, test_size_limit_accepts_largest);
    tcase_add_test(tc, test_alloc_failure_enomem);
    tcase_add_test(tc, test_bad_plans_refused);
    suite_add_tcase(s, tc);
    return s;
}
