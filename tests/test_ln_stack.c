/*
 * test_ln_stack.c -- ln_stack: LIFO order, empty behaviour, stored NULLs and
 * free_deep freeing what is left.
 */
#include <stdlib.h>
#include <check.h>

#include "ln_stack.h"

static int nfreed;

static void counting_free(void *p)
{
    nfreed++;
    ln_free(p);
}

START_TEST(test_empty)
{
    ln_stack *s = ln_stack_create();

    ck_assert_uint_eq(ln_stack_size(s), 0);
    ck_assert_ptr_null(ln_stack_peek(s));
    ck_assert_ptr_null(ln_stack_pop(s));
    ck_assert_uint_eq(ln_stack_size(s), 0);
    ln_stack_free(s);
    ln_stack_free(NULL);
}
END_TEST

START_TEST(test_lifo)
{
    int v[] = {1, 2, 3, 4};
    ln_stack *s = ln_stack_create();
    int i;

    for (i = 0; i < 3; i++)
        ln_stack_push(s, &v[i]);
    ck_assert_uint_eq(ln_stack_size(s), 3);
    ck_assert_ptr_eq(ln_stack_peek(s), &v[2]);
    ck_assert_uint_eq(ln_stack_size(s), 3); /* peek does not take */
    ck_assert_ptr_eq(ln_stack_pop(s), &v[2]);
    ln_stack_push(s, &v[3]);
    ck_assert_ptr_eq(ln_stack_pop(s), &v[3]);
    ck_assert_ptr_eq(ln_stack_pop(s), &v[1]);
    ck_assert_ptr_eq(ln_stack_pop(s), &v[0]);
    ck_assert_uint_eq(ln_stack_size(s), 0);
    ck_assert_ptr_null(ln_stack_pop(s));
    ck_assert_ptr_null(ln_stack_peek(s));
    ln_stack_push(s, &v[0]); /* usable after draining */
    ck_assert_ptr_eq(ln_stack_peek(s), &v[0]);
    ln_stack_free(s);
}
END_TEST

START_TEST(test_stored_null)
{
    ln_stack *s = ln_stack_create();

    ln_stack_push(s, NULL);
    ck_assert_uint_eq(ln_stack_size(s), 1);
    ck_assert_ptr_null(ln_stack_pop(s));
    ck_assert_uint_eq(ln_stack_size(s), 0);
    ln_stack_free(s);
}
END_TEST

START_TEST(test_free_deep)
{
    ln_stack *s = ln_stack_create();
    int i;

    for (i = 0; i < 5; i++)
        ln_stack_push(s, ln_alloc(sizeof(int)));
    ln_free(ln_stack_pop(s));
    nfreed = 0;
    ln_stack_free_deep(s, counting_free);
    ck_assert_int_eq(nfreed, 4);
}
END_TEST

Suite *test_ln_stack_suite(void); /* run by tests/test_main.c */

Suite *test_ln_stack_suite(void)
{
    Suite *s = suite_create("ln_stack");
    TCase *tc = tcase_create("stack");

    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_lifo);
    tcase_add_test(tc, test_stored_null);
    tcase_add_test(tc, test_free_deep);
    suite_add_tcase(s, tc);
    return s;
}
