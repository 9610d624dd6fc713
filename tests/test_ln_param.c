/*
 * test_ln_param.c -- params, saturation and param lists.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <check.h>

#include "ln_param.h"

START_TEST(test_type_names)
{
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_NULL), "null");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_STRING), "string");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_NUMBER), "number");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_BOOL), "bool");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_ARRAY_STRING), "array_string");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_ARRAY_NUMBER), "array_number");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_ARRAY_BOOL), "array_bool");
    ck_assert_str_eq(ln_param_type_name(LN_PARAM_INVALID), "invalid");
    ck_assert_str_eq(ln_param_type_name((ln_param_type)99), "invalid");
}
END_TEST

START_TEST(test_satu)
{
    ck_assert_int_eq(ln_param_satu_int(1e10), INT_MAX);
    ck_assert_int_eq(ln_param_satu_int(-1e10), INT_MIN);
    ck_assert_int_eq(ln_param_satu_int(NAN), 0);
    ck_assert_int_eq(ln_param_satu_int(INFINITY), INT_MAX);
    ck_assert_int_eq(ln_param_satu_int(-INFINITY), INT_MIN);
    ck_assert_int_eq(ln_param_satu_int((double)INT_MAX), INT_MAX);
    ck_assert_int_eq(ln_param_satu_int((double)INT_MIN), INT_MIN);
    ck_assert_int_eq(ln_param_satu_int(2.9), 2);
    ck_assert_int_eq(ln_param_satu_int(-2.9), -2);
    ck_assert_int_eq(ln_param_satu_int(-0.5), 0);

    ck_assert(ln_param_satu_float(1e300) == FLT_MAX);
    ck_assert(ln_param_satu_float(-1e300) == -FLT_MAX);
    ck_assert(isinf(ln_param_satu_float(INFINITY)) &&
              ln_param_satu_float(INFINITY) > 0);
    ck_assert(isinf(ln_param_satu_float(-INFINITY)) &&
              ln_param_satu_float(-INFINITY) < 0);
    ck_assert(isnan(ln_param_satu_float(NAN)));
    ck_assert(ln_param_satu_float(1.5) == 1.5f);
    ck_assert(ln_param_satu_float(1e10) == 1e10f);
}
END_TEST

START_TEST(test_number_entry)
{
    ln_param_entry *e = ln_param_entry_create("axis", LN_PARAM_NUMBER);

    ln_param_set_satu_number(e, 1e10);
    ck_assert_int_eq(e->type, LN_PARAM_NUMBER);
    ck_assert(e->value_double == 1e10);
    ck_assert(e->value_float == 1e10f);
    ck_assert_int_eq(e->value_int, INT_MAX);
    ln_param_set_satu_number(e, -1e10);
    ck_assert_int_eq(e->value_int, INT_MIN);
    ln_param_set_satu_number(e, NAN);
    ck_assert_int_eq(e->value_int, 0);
    ck_assert(isnan(e->value_float));
    ln_param_set_satu_number(e, -7.75);
    ck_assert_int_eq(e->value_int, -7);
    ck_assert(e->value_float == -7.75f);
    /* changing kind frees the old value */
    ln_param_set_string(e, "same");
    ck_assert_int_eq(e->type, LN_PARAM_STRING);
    ck_assert_str_eq(e->value_string, "same");
    ln_param_set_string(e, e->value_string);   /* its own string */
    ck_assert_str_eq(e->value_string, "same");
    ln_param_set_bool(e, 5);
    ck_assert_int_eq(e->type, LN_PARAM_BOOL);
    ck_assert_int_eq(e->value_bool, LN_TRUE);
    ck_assert_ptr_null(e->value_string);
    ln_param_entry_free(e);
}
END_TEST

START_TEST(test_arrays)
{
    double d[] = { 1e10, -1e10, NAN, 3.7, -3.7, 1e300 };
    const char *s[] = { "a", "bc", "" };
    ln_bool b[] = { LN_TRUE, LN_FALSE, 7 };
    int iv[] = { 1, -2, INT_MAX };
    float fv[] = { 0.5f, -1e30f };
    ln_list *l = NULL;
    ln_param_entry *e;

    l = ln_param_list_append_array_number(l, "n", 6, d);
    l = ln_param_list_append_array_string(l, "s", 3, s);
    l = ln_param_list_append_array_bool(l, "b", 3, b);
    l = ln_param_list_append_array_int(l, "i", 3, iv);
    l = ln_param_list_append_array_float(l, "f", 2, fv);
    l = ln_param_list_append_array_double(l, "empty", 0, NULL);
    ck_assert_int_eq(ln_param_list_length(l), 6);

    e = ln_param_list_find(l, "n");
    ck_assert_int_eq(e->type, LN_PARAM_ARRAY_NUMBER);
    ck_assert_int_eq(e->array_len, 6);
    ck_assert_int_eq(e->value_array_int[0], INT_MAX);
    ck_assert_int_eq(e->value_array_int[1], INT_MIN);
    ck_assert_int_eq(e->value_array_int[2], 0);
    ck_assert_int_eq(e->value_array_int[3], 3);
    ck_assert_int_eq(e->value_array_int[4], -3);
    ck_assert(e->value_array_float[5] == FLT_MAX);
    ck_assert(e->value_array_double[5] == 1e300);

    e = ln_param_list_find(l, "s");
    ck_assert_int_eq(e->type, LN_PARAM_ARRAY_STRING);
    ck_assert_str_eq(e->value_array_string[1], "bc");
    ck_assert_ptr_ne(e->value_array_string[1], s[1]);
    ck_assert_str_eq(e->value_array_string[2], "");

    e = ln_param_list_find(l, "b");
    ck_assert_int_eq(e->value_array_bool[0], LN_TRUE);
    ck_assert_int_eq(e->value_array_bool[1], LN_FALSE);
    ck_assert_int_eq(e->value_array_bool[2], LN_TRUE);

    e = ln_param_list_find(l, "i");
    ck_assert_int_eq(e->value_array_int[2], INT_MAX);
    ck_assert(e->value_array_double[1] == -2.0);

    e = ln_param_list_find(l, "f");
    ck_assert(e->value_array_float[0] == 0.5f);
    ck_assert_int_eq(e->value_array_int[1], INT_MIN);

    e = ln_param_list_find(l, "empty");
    ck_assert_int_eq(e->array_len, 0);
    ck_assert_ptr_null(e->value_array_double);
    ln_param_list_free(l);
}
END_TEST

START_TEST(test_copy_independent)
{
    const char *s[] = { "x", "y" };
    double d[] = { 1, 2 };
    ln_list *l = NULL, *c;
    ln_param_entry *e, *ce;

    l = ln_param_list_append_string(l, "mode", "same");
    l = ln_param_list_append_array_string(l, "names", 2, s);
    l = ln_param_list_append_array_number(l, "dims", 2, d);
    l = ln_param_list_append_float(l, "alpha", 0.1f);
    l = ln_param_list_append_int(l, "axis", -1);
    l = ln_param_list_append_bool(l, "keep", LN_TRUE);
    l = ln_param_list_append_null(l, "none");
    l = ln_param_list_append_double(l, "eps", 1e-5);
    c = ln_param_list_copy(l);
    ck_assert_int_eq(ln_param_list_length(c), 8);

    ce = ln_param_list_find(c, "mode");
    e = ln_param_list_find(l, "mode");
    ck_assert_ptr_ne(ce, e);
    ck_assert_ptr_ne(ce->value_string, e->value_string);
    ck_assert_ptr_ne(ce->arg_name, e->arg_name);
    ce->value_string[0] = 'X';
    ck_assert_str_eq(e->value_string, "same");

    ce = ln_param_list_find(c, "names");
    ce->value_array_string[0][0] = 'Z';
    ck_assert_str_eq(ln_param_list_find(l, "names")->value_array_string[0], "x");

    ce = ln_param_list_find(c, "dims");
    ce->value_array_int[1] = 42;
    ce->value_array_double[1] = 42;
    ck_assert_int_eq(ln_param_list_find(l, "dims")->value_array_int[1], 2);
    ck_assert_int_eq(ln_param_list_find(c, "axis")->value_int, -1);
    ck_assert(ln_param_list_find(c, "alpha")->value_float == 0.1f);
    ck_assert_int_eq(ln_param_list_find(c, "keep")->value_bool, LN_TRUE);
    ck_assert_int_eq(ln_param_list_find(c, "none")->type, LN_PARAM_NULL);
    ck_assert(ln_param_list_find(c, "eps")->value_double == 1e-5);

    /* freeing the original leaves the copy intact (ASan checks) */
    ln_param_list_free(l);
    ck_assert_str_eq(ln_param_list_find(c, "mode")->value_string, "Xame");
    ln_param_list_free(c);
}
END_TEST

START_TEST(test_find_remove_unique)
{
    ln_list *l = NULL;
    ln_param_entry *e;
    char buf[16];

    l = ln_param_list_append_int(l, "axis", 1);
    l = ln_param_list_append_int(l, "dim", 2);
    l = ln_param_list_append_int(l, "p_0", 0);
    l = ln_param_list_append_int(l, "p_2", 0);

    e = ln_param_list_find2(l, "axis", "dim");
    ck_assert_str_eq(e->arg_name, "axis");
    e = ln_param_list_find2(l, "dim", "axis");
    ck_assert_str_eq(e->arg_name, "dim");
    e = ln_param_list_find2(l, "axes", "dim");      /* renamed: old name */
    ck_assert_str_eq(e->arg_name, "dim");
    ck_assert_ptr_null(ln_param_list_find2(l, "a", "b"));
    ck_assert_ptr_null(ln_param_list_find(l, "ax"));

    ck_assert_str_eq(ln_param_list_unique_arg_name(l, buf, sizeof(buf), "p"),
                     "p_1");
    l = ln_param_list_append_int(l, buf, 0);
    ck_assert_str_eq(ln_param_list_unique_arg_name(l, buf, sizeof(buf), "p"),
                     "p_3");
    ck_assert_str_eq(ln_param_list_unique_arg_name(l, buf, sizeof(buf), "q"),
                     "q_0");
    ck_assert_ptr_null(ln_param_list_unique_arg_name(l, buf, 3, "p"));

    l = ln_param_list_remove(l, "dim");
    ck_assert_ptr_null(ln_param_list_find(l, "dim"));
    ck_assert_int_eq(ln_param_list_length(l), 4);
    l = ln_param_list_remove(l, "axis");       /* the head */
    ck_assert_int_eq(ln_param_list_length(l), 3);
    l = ln_param_list_remove(l, "nothere");
    ck_assert_int_eq(ln_param_list_length(l), 3);
    ln_param_list_free(l);
}
END_TEST

START_TEST(test_append_entry)
{
    ln_list *l = NULL;
    ln_param_entry *e = ln_param_entry_create("k", LN_PARAM_NUMBER);

    ln_param_set_satu_number(e, 3);
    l = ln_param_list_append_entry(l, e);
    ck_assert_ptr_eq(ln_param_list_find(l, "k"), e);
    ln_param_list_free(l);
}
END_TEST

Suite *test_ln_param_suite(void); /* run by tests/test_main.c */

Suite *test_ln_param_suite(void)
{
    Suite *s = suite_create("ln_param");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_type_names);
    tcase_add_test(tc, test_satu);
    tcase_add_test(tc, test_number_entry);
    tcase_add_test(tc, test_arrays);
    tcase_add_test(tc, test_copy_independent);
    tcase_add_test(tc, test_find_remove_unique);
    tcase_add_test(tc, test_append_entry);
    suite_add_tcase(s, tc);
    return s;
}
