/*
 * test_ln_opgen.c -- the ops generated from gen/op_descs and the rules
 * generated from gen/opt_descs, through the context: checks fire with a
 * message naming the op and the offending tensor or param, inference gives
 * the right shapes, run gives the right values, the cpu expander turns
 * abstract ops into cpu ops and the relu_relu combiner fuses.
 */
#include <string.h>
#include <check.h>
#include "ln_arch.h"
#include "ln_interp.h"
#include "op/auto/ln_opregistry.h"

#define CREATE_2x4 \
    "{\"name\": \"c\", \"optype\": \"create\", \"tensors_in\": []," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"t\"}]," \
    " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"}," \
    "  {\"arg_name\": \"dims\", \"value\": [2, 4]}," \
    "  {\"arg_name\": \"data\", \"value\": [-1, 2, -3, 4, 5, -6, 7, -8]}]}"

#define OUTPUT(t) \
    "{\"name\": \"out_" t "\", \"optype\": \"output\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"" t "\"}]," \
    " \"tensors_out\": [], \"params\": []}"

static ln_context *init(const char *json)
{
    ln_context *ctx = ln_context_create();
    int ret = ln_context_init_str(ctx, json, "test");

    ck_assert_msg(ret == 0, "init failed: %s", ln_error_message());
    return ctx;
}

/* init must fail with a message containing each of the strings. */
static void init_fails(const char *json, const char *want1, const char *want2)
{
    ln_context *ctx = ln_context_create();
    int ret = ln_context_init_str(ctx, json, "test");

    ck_assert_int_ne(ret, 0);
    ck_assert_msg(strstr(ln_error_message(), want1), "message '%s' lacks '%s'",
                  ln_error_message(), want1);
    if (want2)
        ck_assert_msg(strstr(ln_error_message(), want2), "message '%s' lacks '%s'",
                      ln_error_message(), want2);
    ln_context_free(ctx);
}

static void assert_dims(const ln_context *ctx, const char *name, int ndim, const int *dims)
{
    const ln_tensor *t = ln_context_tensor(ctx, name);

    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->ndim, ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_int_eq(t->dims[i], dims[i]);
}

static void run_cpu(ln_context *ctx)
{
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "compile: %s", ln_error_message());
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "load: %s", ln_error_message());
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
}

static void done(ln_context *ctx)
{
    ln_context_unload(ctx);
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
}

START_TEST(test_registry)
{
    int n = 0;

    for (int i = 0; ln_opregistry[i].optype; i++) {
        const ln_opregistry_row *r = &ln_opregistry[i];
        ck_assert_ptr_nonnull(r->proto);                  /* nothing stripped */
        ck_assert_str_eq(r->proto->op_arg->optype, r->optype);
        ck_assert_str_eq(r->proto->op_arg->arch, r->arch);
        ck_assert(!ln_arch_op_stripped(r->optype));
        if (i > 0)   /* sorted, unique */
            ck_assert_int_lt(strcmp(ln_opregistry[i - 1].optype, r->optype), 0);
        if (ln_streq(r->arch, "cpu"))
            n++;
        if (ln_streq(r->arch, "none")) {
            /* every abstract op has its cpu implementation */
            char buf[128];
            snprintf(buf, sizeof buf, "%s_cpu", r->optype);
            ck_assert_msg(ln_arch_op_proto(buf) != NULL, "no %s", buf);
        }
    }
    ck_assert_int_ge(n, 8);
    ck_assert_ptr_eq(ln_opimpl_relu.run, NULL);         /* abstract: no kernel */
    ck_assert_ptr_ne(ln_opimpl_relu_cpu.run, NULL);
    ck_assert_int_eq(ln_opimpl_relu_cpu.mem_kind, LN_MEMPLAN_INPLACE);
    ck_assert_str_eq(ln_opimpl_relu_cpu.mem_in, "src");
    ck_assert_int_eq(ln_opimpl_reshape_cpu.mem_kind, LN_MEMPLAN_VIEW);
    for (n = 0; ln_opregistry_onnx[n].op_type; n++)
        if (ln_streq(ln_opregistry_onnx[n].op_type, "Add"))
            break;
    ck_assert_ptr_nonnull(ln_opregistry_onnx[n].op_type);
    ck_assert_str_eq(ln_opregistry_onnx[n].optype, "add");
    ck_assert_str_eq(ln_opregistry_onnx[n].inputs[1], "src2");
}
END_TEST

START_TEST(test_slice)
{
    static const int want[] = {2, 3};
    ln_context *ctx = init("{\"ops\": [" CREATE_2x4 ","
        "{\"name\": \"s\", \"optype\": \"slice\","
        " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"t\"}],"
        " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"u\"}],"
        " \"params\": [{\"arg_name\": \"axis\", \"value\": 1},"
        "  {\"arg_name\": \"start\", \"value\": 1}, {\"arg_name\": \"len\", \"value\": 3}]},"
        OUTPUT("u") "]}");
    float y[6];
    static const float ref[] = {2, -3, 4, -6, 7, -8};

    assert_dims(ctx, "u", 2, want);
    run_cpu(ctx);
    ck_assert_int_eq(ln_context_get_data(ctx, "u", y, sizeof y), 0);
    for (int i = 0; i < 6; i++)
        ck_assert_float_eq(y[i], ref[i]);
    done(ctx);
}
END_TEST

#define SLICE(axis, start, len) \
    "{\"ops\": [" CREATE_2x4 "," \
    "{\"name\": \"s\", \"optype\": \"slice\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"t\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"u\"}]," \
    " \"params\": [" axis start len "]}]}"

START_TEST(test_slice_checks)
{
    init_fails(SLICE("{\"arg_name\": \"axis\", \"value\": 5},",
                     "{\"arg_name\": \"start\", \"value\": 0},", "{\"arg_name\": \"len\", \"value\": 1}"),
               "s (slice)", "'axis' (5) must be less than 'src' ndim (2)");
    init_fails(SLICE("{\"arg_name\": \"axis\", \"value\": 1},",
                     "{\"arg_name\": \"start\", \"value\": 2},", "{\"arg_name\": \"len\", \"value\": 3}"),
               "s (slice)", "'start' (2) + 'len' (3) exceeds 'src' dims[1] (4)");
    /* start + len past INT_MAX: refused, not overflowed (UBSan) */
    init_fails(SLICE("{\"arg_name\": \"axis\", \"value\": 1},",
                     "{\"arg_name\": \"start\", \"value\": 2147483647},",
                     "{\"arg_name\": \"len\", \"value\": 3}"),
               "s (slice)", "'start' (2147483647) + 'len' (3) exceeds 'src' dims[1] (4)");
    init_fails(SLICE("{\"arg_name\": \"axis\", \"value\": 1},",
                     "{\"arg_name\": \"start\", \"value\": 0}", ""),
               "s (slice)", "len");
    init_fails(SLICE("{\"arg_name\": \"axis\", \"value\": -1},",
                     "{\"arg_name\": \"start\", \"value\": 0},", "{\"arg_name\": \"len\", \"value\": 1}"),
               "s (slice)", "axis");
}
END_TEST

#define RESHAPE(dims) \
    "{\"ops\": [" CREATE_2x4 "," \
    "{\"name\": \"r\", \"optype\": \"reshape\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"t\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"u\"}]," \
    " \"params\": [{\"arg_name\": \"dims\", \"value\": " dims "}]}," OUTPUT("u") "]}"

START_TEST(test_reshape)
{
    static const int w1[] = {4, 2}, w2[] = {2, 2, 2}, w3[] = {8};
    ln_context *ctx = init(RESHAPE("[-1, 2]"));

    assert_dims(ctx, "u", 2, w1);
    done(ctx);
    ctx = init(RESHAPE("[0, -1, 2]"));
    assert_dims(ctx, "u", 3, w2);
    done(ctx);
    ctx = init(RESHAPE("[8]"));
    assert_dims(ctx, "u", 1, w3);
    done(ctx);
    init_fails(RESHAPE("[-1, -1]"), "r (reshape)", "more than one -1");
    init_fails(RESHAPE("[3, -1]"), "r (reshape)", "cannot hold the 8 elements");
    init_fails(RESHAPE("[3, 3]"), "r (reshape)", "makes 9 elements");
    init_fails(RESHAPE("[-2, 4]"), "r (reshape)", "dims");
}
END_TEST

#define ADD(dims2, data2) \
    "{\"ops\": [" CREATE_2x4 "," \
    "{\"name\": \"b\", \"optype\": \"create\", \"tensors_in\": []," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"t2\"}]," \
    " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"}," \
    "  {\"arg_name\": \"dims\", \"value\": " dims2 "}," \
    "  {\"arg_name\": \"data\", \"value\": " data2 "}]}," \
    "{\"name\": \"a\", \"optype\": \"add\"," \
    " \"tensors_in\": [{\"arg_name\": \"src1\", \"name\": \"t\"}, {\"arg_name\": \"src2\", \"name\": \"t2\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"u\"}], \"params\": []}," \
    OUTPUT("u") "]}"

START_TEST(test_add_broadcast)
{
    static const int want[] = {2, 4};
    static const float ref[] = {9, 22, 27, 44, 15, 14, 37, 32};
    ln_context *ctx = init(ADD("[4]", "[10, 20, 30, 40]"));
    float y[8];

    assert_dims(ctx, "u", 2, want);
    run_cpu(ctx);
    ck_assert_int_eq(ln_context_get_data(ctx, "u", y, sizeof y), 0);
    for (int i = 0; i < 8; i++)
        ck_assert_float_eq(y[i], ref[i]);
    done(ctx);

    ctx = init(ADD("[2, 1]", "[1, 2]"));
    assert_dims(ctx, "u", 2, want);
    done(ctx);
    init_fails(ADD("[3]", "[1, 2, 3]"), "a (add)", "do not broadcast");
}
END_TEST

#define RELU_CHAIN(dtype) \
    "{\"ops\": [" \
    "{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": []," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}]," \
    " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"" dtype "\"}," \
    "  {\"arg_name\": \"dims\", \"value\": [5]}]}," \
    "{\"name\": \"r1\", \"optype\": \"relu\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"x\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}], \"params\": []}," \
    "{\"name\": \"r2\", \"optype\": \"relu\"," \
    " \"tensors_in\": [{\"arg_name\": \"src\", \"name\": \"y\"}]," \
    " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"z\"}], \"params\": []}," \
    OUTPUT("z") "]}"

START_TEST(test_relu_expand_combine_run)
{
    ln_context *ctx = init(RELU_CHAIN("float32"));
    static const float x[] = {-1, 0, 2.5f, -3, 4};
    static const float ref[] = {0, 0, 2.5f, 0, 4};
    float z[5];
    int nrelu = 0;

    ck_assert_str_eq(((ln_op *)ln_op_list_find_by_name(ctx->ops, "r1"))->op_arg->optype, "relu");
    run_cpu(ctx);
    /* expander: every op is a cpu op; combiner: r1 and r2 are one relu_cpu */
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ck_assert_str_eq(op->op_arg->arch, "cpu");
        if (ln_streq(op->op_arg->optype, "relu_cpu")) {
            nrelu++;
            ck_assert_str_eq(ln_tensor_list_find_name(op->op_arg->tensors_in, "src"), "x");
            ck_assert_str_eq(ln_tensor_list_find_name(op->op_arg->tensors_out, "dst"), "z");
        }
    }
    ck_assert_int_eq(nrelu, 1);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "z", z, sizeof z), 0);
    for (int i = 0; i < 5; i++)
        ck_assert_float_eq(z[i], ref[i]);
    done(ctx);
}
END_TEST

START_TEST(test_checks)
{
    /* wrong dtype */
    init_fails(RELU_CHAIN("int32"), "r1 (relu)", "src");
    /* bad dtype name, missing param */
    init_fails("{\"ops\": [{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": [],"
               " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}],"
               " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float33\"},"
               " {\"arg_name\": \"dims\", \"value\": [5]}]}]}",
               "in (input)", "'dtype' is 'float33', not a known dtype");
    init_fails("{\"ops\": [{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": [],"
               " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}],"
               " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"}]}]}",
               "in (input)", "dims");
    /* param out of range */
    init_fails("{\"ops\": [{\"name\": \"in\", \"optype\": \"input\", \"tensors_in\": [],"
               " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}],"
               " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"},"
               " {\"arg_name\": \"dims\", \"value\": [5, 0]}]}]}",
               "in (input)", "dims");
    /* create: data and dims disagree */
    init_fails("{\"ops\": [{\"name\": \"c\", \"optype\": \"create\", \"tensors_in\": [],"
               " \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"x\"}],"
               " \"params\": [{\"arg_name\": \"dtype\", \"value\": \"float32\"},"
               " {\"arg_name\": \"dims\", \"value\": [2, 2]}, {\"arg_name\": \"data\", \"value\": [1, 2, 3]}]}]}",
               "c (create)", "'data' has 3 elements, 'dims' make 4");
    /* missing input tensor */
    init_fails("{\"ops\": [" OUTPUT("nowhere") "]}", "out_nowhere (output)", "src");
}
END_TEST

Suite *test_ln_opgen_suite(void);
Suite *test_ln_opgen_suite(void)
{
    Suite *s = suite_create("ln_opgen");
    TCase *tc = tcase_create("ops");

    tcase_add_test(tc, test_registry);
    tcase_add_test(tc, test_slice);
    tcase_add_test(tc, test_slice_checks);
    tcase_add_test(tc, test_reshape);
    tcase_add_test(tc, test_add_broadcast);
    tcase_add_test(tc, test_relu_expand_combine_run);
    tcase_add_test(tc, test_checks);
    suite_add_tcase(s, tc);
    return s;
}
