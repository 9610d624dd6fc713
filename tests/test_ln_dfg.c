/*
 * test_ln_dfg.c -- the data-flow graph: links from tensor names, dangling
 * ins and outs, next/nexts/prev, removal, and the checks.
 */
#include <string.h>
#include <check.h>
#include "ln_dfg.h"

static ln_op_arg proto_arg = {.optype = "fake", .arch = "none"};
static ln_op proto = {.op_arg = &proto_arg};

/* op named name reading in1[,in2] and writing out (NULL = none) */
static ln_op *op3(const char *name, const char *in1, const char *in2, const char *out)
{
    ln_list *tin = NULL, *tout = NULL;
    if (in1)
        tin = ln_tensor_list_append(tin, "src1", in1);
    if (in2)
        tin = ln_tensor_list_append(tin, "src2", in2);
    if (out)
        tout = ln_tensor_list_append(tout, "dst", out);
    return ln_op_create_from_proto(&proto, name, tin, tout, NULL, NULL);
}

START_TEST(test_diamond)
{
    /* a -> x; b(x) -> y; c(x) -> z; d(y, z) -> w */
    ln_op *a = op3("a", NULL, NULL, "x"), *b = op3("b", "x", NULL, "y"),
          *c = op3("c", "x", NULL, "z"), *d = op3("d", "y", "z", "w");
    ln_op *ops[] = {a, b, c, d, NULL};
    ln_list *list = ln_op_list_create_from_array(ops);
    ln_dfg *dfg = ln_dfg_create_from_ops(list);
    ln_list *nx;

    ck_assert_int_eq(dfg->graph->size, 4);
    ck_assert_ptr_eq(ln_dfg_next(dfg, a, "x"), b);
    nx = ln_dfg_nexts(dfg, a, "x");
    ck_assert_int_eq(ln_list_length(nx), 2);
    ck_assert_ptr_nonnull(ln_list_find(nx, c));
    ln_list_free(nx);
    ck_assert_ptr_eq(ln_dfg_prev(dfg, d, "z"), c);
    ck_assert_ptr_null(ln_dfg_prev(dfg, d, "x"));
    ck_assert_ptr_eq(ln_dfg_producer(dfg, "y"), b);
    ck_assert_int_eq(ln_dfg_num_readers(dfg, "x"), 2);
    ck_assert_int_eq(ln_dfg_num_readers(dfg, "w"), 0);
    ck_assert_ptr_null(dfg->dangling_ins);
    ck_assert_int_eq(ln_list_length(dfg->dangling_outs), 1);
    ck_assert_str_eq(((ln_dfg_port *)dfg->dangling_outs->data)->tensor, "w");
    ck_assert_int_eq(ln_dfg_check(dfg), 0);

    /* removing c leaves d's input z dangling and c's x edge gone */
    ln_dfg_remove(dfg, c);
    ck_assert_int_eq(ln_dfg_num_readers(dfg, "x"), 1);
    ck_assert_int_eq(ln_list_length(dfg->dangling_ins), 1);
    ck_assert_int_eq(ln_dfg_check(dfg), LN_EINVAL);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "'z' is not produced"));
    /* adding it back heals the graph */
    ln_dfg_add(dfg, c);
    ck_assert_ptr_null(dfg->dangling_ins);
    ck_assert_ptr_eq(ln_dfg_prev(dfg, d, "z"), c);
    ck_assert_int_eq(ln_dfg_check(dfg), 0);

    ln_dfg_free(dfg);
    ln_op_list_free_deep(list);
}
END_TEST

START_TEST(test_reader_before_producer_and_unlink)
{
    ln_op *r = op3("r", "t", NULL, NULL), *p = op3("p", NULL, NULL, "t");
    ln_dfg *dfg = ln_dfg_create();

    ln_dfg_add(dfg, r);
    ck_assert_int_eq(ln_list_length(dfg->dangling_ins), 1);
    ln_dfg_add(dfg, p);
    ck_assert_ptr_null(dfg->dangling_ins);
    ck_assert_ptr_null(dfg->dangling_outs);
    ck_assert_ptr_eq(ln_dfg_next(dfg, p, "t"), r);
    ln_dfg_unlink(dfg, p, r, "t");
    ck_assert_ptr_null(ln_dfg_next(dfg, p, "t"));
    ck_assert_int_eq(ln_list_length(dfg->dangling_ins), 1);
    ck_assert_int_eq(ln_list_length(dfg->dangling_outs), 1);
    ln_dfg_link(dfg, p, r, "t");
    ck_assert_ptr_null(dfg->dangling_ins);
    ck_assert_ptr_null(dfg->dangling_outs);
    ln_dfg_free(dfg);
    ln_op_free(r);
    ln_op_free(p);
}
END_TEST

START_TEST(test_cycle)
{
    ln_op *a = op3("a", "y", NULL, "x"), *b = op3("b", "x", NULL, "y");
    ln_dfg *dfg = ln_dfg_create();
    ln_dfg_add(dfg, a);
    ln_dfg_add(dfg, b);
    ck_assert_int_eq(ln_dfg_check(dfg), LN_EINVAL);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "cycle"));
    ln_dfg_free(dfg);
    ln_op_free(a);
    ln_op_free(b);
}
END_TEST

START_TEST(test_fprint)
{
    ln_op *a = op3("a", NULL, NULL, "x"), *b = op3("b", "x", "q", NULL);
    ln_dfg *dfg = ln_dfg_create();
    char buf[512] = "";
    FILE *fp = tmpfile();
    ln_dfg_add(dfg, a);
    ln_dfg_add(dfg, b);
    ln_dfg_fprint(fp, dfg);
    rewind(fp);
    buf[fread(buf, 1, sizeof buf - 1, fp)] = '\0';
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(buf, "a (fake) -> b[x]"));
    ck_assert_ptr_nonnull(strstr(buf, "dangling in: q of b"));
    ln_dfg_free(dfg);
    ln_op_free(a);
    ln_op_free(b);
}
END_TEST

Suite *test_ln_dfg_suite(void);
Suite *test_ln_dfg_suite(void)
{
    Suite *s = suite_create("ln_dfg");
    TCase *tc = tcase_create("dfg");
    tcase_add_test(tc, test_diamond);
    tcase_add_test(tc, test_reader_before_producer_and_unlink);
    tcase_add_test(tc, test_cycle);
    tcase_add_test(tc, test_fprint);
    suite_add_tcase(s, tc);
    return s;
}
