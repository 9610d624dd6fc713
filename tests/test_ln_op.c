/*
 * test_ln_op.c -- op creation and copies, op lists and tables, and the
 * ln_opck checks' messages (they must name the op, the tensor or param,
 * and the expected and actual values).
 */
#include <string.h>
#include <check.h>
#include "ln_op.h"

static ln_op_arg proto_arg = {.optype = "fake", .arch = "none"};
static ln_op proto = {.op_arg = &proto_arg};

static ln_hash *table;

static ln_op *make_op(const char *name)
{
    ln_list *tin = ln_tensor_list_append(NULL, "src", "x");
    ln_list *tout = ln_tensor_list_append(NULL, "dst", "y");
    ln_list *params = ln_param_list_append_number(NULL, "axis", 2);
    params = ln_param_list_append_string(params, "mode", "nearest");
    params = ln_param_list_append_array_int(params, "dims", 3, (int[]){1, -1, 4});
    return ln_op_create_from_proto(&proto, name, tin, tout, params, table);
}

static void setup(void)
{
    int dims[4] = {1, 3, 5, 7};
    table = ln_tensor_table_create();
    ln_tensor_table_insert(table, ln_tensor_entry_create(
        "x", ln_tensor_create(LN_DTYPE_FLOAT32, 4, dims, NULL)));
}

static void teardown(void)
{
    ln_tensor_table_free(table);
}

START_TEST(test_create_copy_free)
{
    ln_op *op = make_op("op1"), *cp = ln_op_copy(op);
    ck_assert_str_eq(cp->op_arg->name, "op1");
    ck_assert_str_eq(cp->op_arg->optype, "fake");
    ck_assert_ptr_ne(cp->op_arg->tensors_in, op->op_arg->tensors_in);
    ck_assert_str_eq(ln_tensor_list_find_name(cp->op_arg->tensors_in, "src"), "x");
    ck_assert_int_eq(ln_op_param(cp->op_arg, "axis")->value_int, 2);
    ck_assert_ptr_eq(ln_op_tensor_in(op->op_arg, "src"),
                     ln_tensor_table_find(table, "x"));
    ck_assert_ptr_null(ln_op_tensor_out(op->op_arg, "dst"));
    ck_assert_int_eq(ln_op_check(op), 0);
    ln_op_free(op);
    ln_op_free(cp);
}
END_TEST

START_TEST(test_check_duplicate_arg)
{
    ln_op *op = make_op("op1");
    op->op_arg->tensors_in = ln_tensor_list_append(op->op_arg->tensors_in, "src", "z");
    ck_assert_int_eq(ln_op_check(op), LN_EINVAL);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "'src' appears twice"));
    ln_op_free(op);
}
END_TEST

START_TEST(test_op_list)
{
    ln_op *ops[4] = {make_op("a"), make_op("b"), make_op("c"), NULL};
    ln_list *list = ln_op_list_create_from_array(ops), *cp;
    char buf[32];
    ck_assert_int_eq(ln_list_length(list), 3);
    ck_assert_ptr_eq(ln_op_list_find_by_name(list, "b"), ops[1]);
    ck_assert_ptr_null(ln_op_list_find_by_name(list, "q"));
    ck_assert_ptr_eq(ln_op_list_find_by_optype(list, "fake"), ops[0]);
    ck_assert_str_eq(ln_op_list_unique_name(list, buf, sizeof buf, "a"), "a1");
    cp = ln_op_list_copy(list);
    ck_assert_int_eq(ln_list_length(cp), 3);
    ck_assert_ptr_ne(cp->data, list->data);
    ln_op_list_free_deep(cp);

    ln_hash *t = ln_op_table_create();
    LN_LIST_FOREACH(ln_op, op, list) {
        ln_op_table_insert(t, op);
    }
    ck_assert_ptr_eq(ln_op_table_find(t, "c"), ops[2]);
    ln_op_table_free(t);
    ln_op_list_free_deep(list);
}
END_TEST

START_TEST(test_opck_messages)
{
    ln_op *op = make_op("conv1");
    ln_op_arg *a = op->op_arg;
    ln_tensor_entry *te = NULL;
    ln_param_entry *pe = NULL;
    const char *name = NULL;

    ck_assert_int_eq(ln_opck_tensor_in_exist(a, "src", &te), 0);
    ck_assert_ptr_nonnull(te);
    ck_assert_int_eq(ln_opck_tensor_ndim(a, "src", te, LN_CMP_EQ, 4), 0);
    ck_assert_int_eq(ln_opck_tensor_ndim(a, "src", te, LN_CMP_EQ, 3), LN_EOP);
    ck_assert_str_eq(ln_error_message(),
                     "conv1 (fake): 'src' (x) should have ndim == 3, got 4");
    ck_assert_int_eq(ln_opck_tensor_dtype(a, "src", te, LN_DTYPE_INT8), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (fake): 'src' (x) should be int8, got float32");
    ck_assert_int_eq(ln_opck_tensor_dtype_in(a, "src", te, 1u << LN_DTYPE_FLOAT32), 0);
    ck_assert_int_eq(ln_opck_tensor_in_exist(a, "weight", NULL), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (fake): missing input tensor 'weight'");
    ck_assert_int_eq(ln_opck_tensor_out_new(a, "dst", &name), 0);
    ck_assert_str_eq(name, "y");
    ck_assert_int_eq(ln_opck_tensor_isstatic(a, "src", te), LN_EOP);
    ck_assert_int_eq(ln_opck_tensors_in_len(a, LN_CMP_EQ, 1), 0);
    ck_assert_int_eq(ln_opck_tensors_out_len(a, LN_CMP_GE, 2), LN_EOP);
    ck_assert_str_eq(ln_error_message(),
                     "conv1 (fake): number of tensors_out should be >= 2, got 1");
    ck_assert_int_eq(ln_opck_tensor_len(a, "src", te, LN_CMP_EQ, 105), 0);

    ck_assert_int_eq(ln_opck_param_exist(a, "axis", LN_PARAM_NUMBER, &pe), 0);
    ck_assert_int_eq(ln_opck_param_number(a, pe, LN_CMP_LT, 2), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (fake): param 'axis' should be < 2, got 2");
    ck_assert_int_eq(ln_opck_param_exist(a, "mode", LN_PARAM_NUMBER, &pe), LN_EOP);
    ck_assert_str_eq(ln_error_message(),
                     "conv1 (fake): param 'mode' should be number, got string");
    ck_assert_int_eq(ln_opck_param_exist(a, "group", LN_PARAM_NUMBER, &pe), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (fake): missing param 'group'");
    ck_assert_int_eq(ln_opck_param_type_if(a, "group", LN_PARAM_NUMBER, &pe), 0);
    ck_assert_ptr_null(pe);
    ck_assert_int_eq(ln_opck_param_exist(a, "dims", LN_PARAM_ARRAY_NUMBER, &pe), 0);
    ck_assert_int_eq(ln_opck_param_array_len(a, pe, LN_CMP_EQ, 3), 0);
    ck_assert_int_eq(ln_opck_param_array_number(a, pe, LN_CMP_GE, 0), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (fake): param 'dims'[1] should be >= 0, got -1");
    ck_assert_int_eq(ln_opck_param_exist(a, "mode", LN_PARAM_STRING, &pe), 0);
    {
        const char *const modes[] = {"linear", "cubic", NULL};
        const char *const modes2[] = {"linear", "nearest", NULL};
        int which = -1;
        ck_assert_int_eq(ln_opck_param_string_in(a, pe, modes, &which), LN_EOP);
        ck_assert_str_eq(ln_error_message(), "conv1 (fake): param 'mode' should be one of "
                                             "'linear', 'cubic', got 'nearest'");
        ck_assert_int_eq(ln_opck_param_string_in(a, pe, modes2, &which), 0);
        ck_assert_int_eq(which, 1);
    }
    ck_assert_int_eq(ln_opck(a, 1 == 2, "custom %d", 7), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (fake): custom 7");
    ln_op_free(op);
}
END_TEST

START_TEST(test_opck_out_already_defined)
{
    ln_op *op = make_op("op1");
    int dims[1] = {3};
    ln_tensor_entry *e = ln_tensor_entry_create("y", ln_tensor_create(LN_DTYPE_FLOAT32, 1, dims, NULL));
    ln_tensor_entry_set_creater(e, "other");
    ln_tensor_table_insert(table, e);
    ck_assert_int_eq(ln_opck_tensor_out_new(op->op_arg, "dst", NULL), LN_EOP);
    ck_assert_str_eq(ln_error_message(),
                     "op1 (fake): output 'dst' is tensor 'y', which is already defined by other");
    ln_op_free(op);
}
END_TEST

Suite *test_ln_op_suite(void);
Suite *test_ln_op_suite(void)
{
    Suite *s = suite_create("ln_op");
    TCase *tc = tcase_create("op");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_create_copy_free);
    tcase_add_test(tc, test_check_duplicate_arg);
    tcase_add_test(tc, test_op_list);
    tcase_add_test(tc, test_opck_messages);
    tcase_add_test(tc, test_opck_out_already_defined);
    suite_add_tcase(s, tc);
    return s;
}
