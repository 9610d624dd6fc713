/*
 * test_ln_list.c -- ln_list: building, indexing, every remove/insert variant
 * (head, middle, tail, absent, out of range), _deep freeing counted with a
 * counting free function, reverse, copies, and LN_LIST_FOREACH with
 * break/continue.
 */
#include <stdlib.h>
#include <check.h>

#include "ln_list.h"

static int nfreed;

static void counting_free(void *p)
{
    nfreed++;
    ln_free(p);
}

static int int_cmp(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void *int_copy(const void *p)
{
    return ln_clone(p, sizeof(int));
}

static int *new_int(int v)
{
    int *p = ln_alloc(sizeof(int));

    *p = v;
    return p;
}

/* A list of heap ints with the given values (v[n] sentinel not needed). */
static ln_list *int_list(const int *v, int n)
{
    ln_list *l = NULL;
    int i;

    for (i = 0; i < n; i++)
        l = ln_list_append(l, new_int(v[i]));
    return l;
}

/* Assert the list holds exactly these ints, in order. */
static void check_ints(ln_list *l, const int *v, int n)
{
    int i = 0;

    ck_assert_int_eq(ln_list_length(l), n);
    for (; l; l = l->next, i++)
        ck_assert_int_eq(*(int *)l->data, v[i]);
}

START_TEST(test_empty)
{
    int x = 1;

    ck_assert_int_eq(ln_list_length(NULL), 0);
    ck_assert_ptr_null(ln_list_nth(NULL, 0));
    ck_assert_ptr_null(ln_list_nth_data(NULL, 0));
    ck_assert_ptr_null(ln_list_remove(NULL, &x));
    ck_assert_ptr_null(ln_list_remove_custom(NULL, &x, int_cmp));
    ck_assert_ptr_null(ln_list_remove_nth(NULL, 0));
    ck_assert_ptr_null(ln_list_remove_all_custom_deep(NULL, &x, int_cmp, counting_free));
    ck_assert_ptr_null(ln_list_find(NULL, &x));
    ck_assert_ptr_null(ln_list_find_custom(NULL, &x, int_cmp));
    ck_assert_ptr_null(ln_list_find_all_custom(NULL, &x, int_cmp));
    ck_assert_int_eq(ln_list_index(NULL, &x), -1);
    ck_assert_int_eq(ln_list_position(NULL, NULL), -1);
    ck_assert_ptr_null(ln_list_reverse(NULL));
    ck_assert_ptr_null(ln_list_copy(NULL));
    ck_assert_ptr_null(ln_list_from_array_size_t(NULL, 0));
    ln_list_free(NULL);
    ln_list_free_deep(NULL, counting_free);
}
END_TEST

START_TEST(test_prepend_append_nth)
{
    int a = 1, b = 2, c = 3;
    ln_list *l = NULL;

    l = ln_list_append(l, &b);
    l = ln_list_prepend(l, &a);
    l = ln_list_append(l, &c);
    ck_assert_int_eq(ln_list_length(l), 3);
    ck_assert_ptr_eq(ln_list_nth_data(l, 0), &a);
    ck_assert_ptr_eq(ln_list_nth_data(l, 1), &b);
    ck_assert_ptr_eq(ln_list_nth_data(l, 2), &c);
    ck_assert_ptr_eq(ln_list_nth(l, 2), l->next->next);
    ck_assert_ptr_null(ln_list_nth(l, 3));
    ck_assert_ptr_null(ln_list_nth(l, -1));
    ck_assert_ptr_null(ln_list_nth_data(l, 3));
    ck_assert_ptr_null(ln_list_nth_data(l, -1));
    ln_list_free(l);
}
END_TEST

START_TEST(test_remove)
{
    int v[] = {10, 20, 30, 40};
    ln_list *l = NULL, *head;
    int i;

    for (i = 0; i < 4; i++)
        l = ln_list_append(l, &v[i]);
    l = ln_list_remove(l, &v[0]); /* head */
    ck_assert_ptr_eq(l->data, &v[1]);
    ck_assert_int_eq(ln_list_length(l), 3);
    l = ln_list_remove(l, &v[2]); /* middle */
    ck_assert_int_eq(ln_list_length(l), 2);
    ck_assert_ptr_eq(ln_list_nth_data(l, 1), &v[3]);
    head = l;
    l = ln_list_remove(l, &v[0]); /* absent: unchanged */
    ck_assert_ptr_eq(l, head);
    ck_assert_int_eq(ln_list_length(l), 2);
    l = ln_list_remove(l, &v[3]); /* tail */
    l = ln_list_remove(l, &v[1]); /* last one */
    ck_assert_ptr_null(l);
}
END_TEST

/* remove compares pointers, not contents: only the first == node goes. */
START_TEST(test_remove_first_only)
{
    int a = 5, b = 5;
    ln_list *l = NULL;

    l = ln_list_append(l, &a);
    l = ln_list_append(l, &b);
    l = ln_list_append(l, &a);
    l = ln_list_remove(l, &a);
    ck_assert_int_eq(ln_list_length(l), 2);
    ck_assert_ptr_eq(l->data, &b);
    ck_assert_ptr_eq(l->next->data, &a);
    ln_list_free(l);
}
END_TEST

START_TEST(test_remove_custom)
{
    int v[] = {1, 2, 3, 2};
    int key = 2;
    ln_list *l = int_list(v, 4);

    {
        int want[] = {1, 3, 2};
        void *first2 = l->next->data;

        l = ln_list_remove_custom(l, &key, int_cmp); /* first match only */
        check_ints(l, want, 3);
        ck_assert_int_eq(*(int *)first2, 2); /* node gone, data not freed */
        ln_free(first2);
    }
    nfreed = 0;
    key = 1;
    l = ln_list_remove_custom_deep(l, &key, int_cmp, counting_free); /* head */
    ck_assert_int_eq(nfreed, 1);
    {
        int want[] = {3, 2};
        check_ints(l, want, 2);
    }
    key = 99;
    l = ln_list_remove_custom_deep(l, &key, int_cmp, counting_free);
    ck_assert_int_eq(nfreed, 1);
    ck_assert_int_eq(ln_list_length(l), 2);
    ln_list_free_deep(l, counting_free);
    ck_assert_int_eq(nfreed, 3);
}
END_TEST

START_TEST(test_remove_all_custom_deep)
{
    int v[] = {7, 1, 7, 7, 2, 7};
    int key = 7;
    ln_list *l = int_list(v, 6);

    nfreed = 0;
    l = ln_list_remove_all_custom_deep(l, &key, int_cmp, counting_free);
    ck_assert_int_eq(nfreed, 4);
    {
        int want[] = {1, 2};
        check_ints(l, want, 2);
    }
    key = 3;
    l = ln_list_remove_all_custom_deep(l, &key, int_cmp, counting_free);
    ck_assert_int_eq(nfreed, 4);
    ln_list_free_deep(l, counting_free);
    ck_assert_int_eq(nfreed, 6);

    /* every node matches: list becomes empty */
    {
        int w[] = {4, 4, 4};
        key = 4;
        l = int_list(w, 3);
        nfreed = 0;
        l = ln_list_remove_all_custom_deep(l, &key, int_cmp, counting_free);
        ck_assert_ptr_null(l);
        ck_assert_int_eq(nfreed, 3);
    }
}
END_TEST

START_TEST(test_remove_nth)
{
    int v[] = {0, 1, 2, 3, 4};
    ln_list *l = int_list(v, 5), *head;

    nfreed = 0;
    l = ln_list_remove_nth_deep(l, 0, counting_free);
    {
        int want[] = {1, 2, 3, 4};
        check_ints(l, want, 4);
    }
    l = ln_list_remove_nth_deep(l, 2, counting_free);
    {
        int want[] = {1, 2, 4};
        check_ints(l, want, 3);
    }
    l = ln_list_remove_nth_deep(l, 2, counting_free); /* tail */
    ck_assert_int_eq(nfreed, 3);
    head = l;
    l = ln_list_remove_nth_deep(l, 2, counting_free); /* out of range */
    l = ln_list_remove_nth_deep(l, -1, counting_free);
    ck_assert_ptr_eq(l, head);
    ck_assert_int_eq(nfreed, 3);
    {
        int want[] = {1, 2};
        check_ints(l, want, 2);
    }
    {
        void *d = l->data;
        l = ln_list_remove_nth(l, 0); /* shallow: data survives */
        ck_assert_int_eq(nfreed, 3);
        ck_assert_int_eq(*(int *)d, 1);
        ln_free(d);
    }
    ln_list_free_deep(l, counting_free);
    ck_assert_int_eq(nfreed, 4);
}
END_TEST

START_TEST(test_insert_before)
{
    int a = 1, b = 2, c = 3, x = 9, y = 8, z = 7;
    ln_list *l = NULL, *node_b;

    l = ln_list_insert_before(l, &a, NULL); /* empty + NULL: append */
    l = ln_list_append(l, &b);
    l = ln_list_append(l, &c);
    node_b = l->next;
    l = ln_list_insert_before(l, &x, l); /* head */
    ck_assert_ptr_eq(l->data, &x);
    l = ln_list_insert_before(l, &y, node_b); /* middle */
    l = ln_list_insert_before(l, &z, NULL); /* NULL appends */
    ck_assert_int_eq(ln_list_length(l), 6);
    ck_assert_ptr_eq(ln_list_nth_data(l, 0), &x);
    ck_assert_ptr_eq(ln_list_nth_data(l, 1), &a);
    ck_assert_ptr_eq(ln_list_nth_data(l, 2), &y);
    ck_assert_ptr_eq(ln_list_nth_data(l, 3), &b);
    ck_assert_ptr_eq(ln_list_nth_data(l, 4), &c);
    ck_assert_ptr_eq(ln_list_nth_data(l, 5), &z);
    ck_assert_ptr_eq(ln_list_nth(l, 3), node_b); /* node kept, not copied */
    ln_list_free(l);
}
END_TEST

START_TEST(test_insert_nth)
{
    int v[] = {0, 1, 2, 3, 4};
    ln_list *l = NULL;

    l = ln_list_insert_nth(l, &v[1], 0);  /* into empty */
    l = ln_list_insert_nth(l, &v[0], 0);  /* head */
    l = ln_list_insert_nth(l, &v[3], 2);  /* n == length: append */
    l = ln_list_insert_nth(l, &v[2], 2);  /* middle */
    l = ln_list_insert_nth(l, &v[4], 100); /* out of range appends */
    ck_assert_int_eq(ln_list_length(l), 5);
    ck_assert_int_eq(*(int *)ln_list_nth_data(l, 0), 0);
    ck_assert_int_eq(*(int *)ln_list_nth_data(l, 1), 1);
    ck_assert_int_eq(*(int *)ln_list_nth_data(l, 2), 2);
    ck_assert_int_eq(*(int *)ln_list_nth_data(l, 3), 3);
    ck_assert_int_eq(*(int *)ln_list_nth_data(l, 4), 4);
    ln_list_free(l);
}
END_TEST

START_TEST(test_find_index_position)
{
    int v[] = {5, 6, 5, 7};
    int key = 5, other = 6, absent = 42;
    ln_list *l = int_list(v, 4), *all;

    ck_assert_ptr_eq(ln_list_find(l, l->next->data), l->next->data);
    ck_assert_ptr_null(ln_list_find(l, &key)); /* same value, other pointer */
    ck_assert_ptr_eq(ln_list_find_custom(l, &other, int_cmp), l->next->data);
    ck_assert_ptr_null(ln_list_find_custom(l, &absent, int_cmp));
    all = ln_list_find_all_custom(l, &key, int_cmp);
    ck_assert_int_eq(ln_list_length(all), 2);
    ck_assert_ptr_eq(all->data, l->data);
    ck_assert_ptr_eq(all->next->data, l->next->next->data);
    ln_list_free(all);
    ck_assert_ptr_null(ln_list_find_all_custom(l, &absent, int_cmp));
    ck_assert_int_eq(ln_list_index(l, l->next->next->next->data), 3);
    ck_assert_int_eq(ln_list_index(l, &key), -1);
    ck_assert_int_eq(ln_list_index_custom(l, &key, int_cmp), 0);
    ck_assert_int_eq(ln_list_index_custom(l, &other, int_cmp), 1);
    ck_assert_int_eq(ln_list_index_custom(l, &absent, int_cmp), -1);
    ck_assert_int_eq(ln_list_position(l, l), 0);
    ck_assert_int_eq(ln_list_position(l, l->next->next), 2);
    {
        ln_list stranger = {NULL, NULL};
        ck_assert_int_eq(ln_list_position(l, &stranger), -1);
    }
    ln_list_free_deep(l, ln_free);
}
END_TEST

START_TEST(test_reverse)
{
    int v[] = {1, 2, 3, 4};
    ln_list *l = int_list(v, 4);

    l = ln_list_reverse(l);
    {
        int want[] = {4, 3, 2, 1};
        check_ints(l, want, 4);
    }
    ln_list_free_deep(l, ln_free);
    l = ln_list_append(NULL, &v[0]);
    l = ln_list_reverse(l);
    ck_assert_ptr_eq(l->data, &v[0]);
    ck_assert_ptr_null(l->next);
    ln_list_free(l);
}
END_TEST

START_TEST(test_from_array_size_t)
{
    size_t arr[] = {3, 1, 4, 1, 5};
    ln_list *l = ln_list_from_array_size_t(arr, 5), *n;
    size_t i = 0;

    ck_assert_int_eq(ln_list_length(l), 5);
    for (n = l; n; n = n->next, i++) {
        ck_assert_ptr_eq(n->data, &arr[i]); /* pointers into the array */
        ck_assert_uint_eq(*(size_t *)n->data, arr[i]);
    }
    ln_list_free(l);
}
END_TEST

START_TEST(test_copy)
{
    int v[] = {1, 2, 3};
    ln_list *l = int_list(v, 3), *c, *d;

    c = ln_list_copy(l);
    ck_assert_int_eq(ln_list_length(c), 3);
    ck_assert_ptr_ne(c, l);
    ck_assert_ptr_eq(c->data, l->data); /* same data */
    ck_assert_ptr_eq(c->next->next->data, l->next->next->data);
    c = ln_list_remove_nth(c, 0); /* the copy's shape is its own */
    ck_assert_int_eq(ln_list_length(l), 3);
    ln_list_free(c);

    d = ln_list_copy_deep(l, int_copy);
    ck_assert_ptr_ne(d->data, l->data);
    check_ints(d, v, 3);
    *(int *)d->data = 100;
    ck_assert_int_eq(*(int *)l->data, 1);
    nfreed = 0;
    ln_list_free_deep(d, counting_free);
    ck_assert_int_eq(nfreed, 3);
    ln_list_free_deep(l, counting_free);
    ck_assert_int_eq(nfreed, 6);
}
END_TEST

START_TEST(test_foreach)
{
    int v[] = {1, 2, 3, 4, 5, 6};
    ln_list *l = int_list(v, 6);
    int sum = 0, visited = 0, n = 0;

    LN_LIST_FOREACH(int, x, l)
        sum += *x;
    ck_assert_int_eq(sum, 21);

    sum = 0;
    LN_LIST_FOREACH(int, x, l) { /* continue skips the rest, goes on */
        visited++;
        if (*x % 2 == 0)
            continue;
        sum += *x;
    }
    ck_assert_int_eq(visited, 6);
    ck_assert_int_eq(sum, 1 + 3 + 5);

    visited = 0;
    LN_LIST_FOREACH(int, x, l) { /* break leaves the whole loop */
        if (*x == 3)
            break;
        visited++;
    }
    ck_assert_int_eq(visited, 2);

    /* break in an inner loop leaves only the inner one */
    LN_LIST_FOREACH(int, x, l) {
        LN_LIST_FOREACH(int, y, l) {
            if (*y > *x)
                break;
            n++;
        }
    }
    ck_assert_int_eq(n, 1 + 2 + 3 + 4 + 5 + 6);

    visited = 0;
    LN_LIST_FOREACH(int, x, NULL) {
        (void)x;
        visited++;
    }
    ck_assert_int_eq(visited, 0);

    n = 0;
    LN_LIST_FOREACH_NODE(node, l)
        n += node == l;
    ck_assert_int_eq(n, 1);
    ln_list_free_deep(l, ln_free);
}
END_TEST

Suite *test_ln_list_suite(void); /* run by tests/test_main.c */

Suite *test_ln_list_suite(void)
{
    Suite *s = suite_create("ln_list");
    TCase *tc = tcase_create("list");

    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_prepend_append_nth);
    tcase_add_test(tc, test_remove);
    tcase_add_test(tc, test_remove_first_only);
    tcase_add_test(tc, test_remove_custom);
    tcase_add_test(tc, test_remove_all_custom_deep);
    tcase_add_test(tc, test_remove_nth);
    tcase_add_test(tc, test_insert_before);
    tcase_add_test(tc, test_insert_nth);
    tcase_add_test(tc, test_find_index_position);
    tcase_add_test(tc, test_reverse);
    tcase_add_test(tc, test_from_array_size_t);
    tcase_add_test(tc, test_copy);
    tcase_add_test(tc, test_foreach);
    suite_add_tcase(s, tc);
    return s;
}
