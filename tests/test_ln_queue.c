/*
 * test_ln_queue.c -- ln_queue: FIFO order, empty behaviour (NULL, size 0,
 * reuse after draining), stored NULLs, and free_deep freeing what is left.
 */
#include <stdlib.h>
#include <check.h>

#include "ln_queue.h"

static int nfreed;

static void counting_free(void *p)
{
    nfreed++;
    ln_free(p);
}

START_TEST(test_empty)
{
    ln_queue *q = ln_queue_create();

    ck_assert_uint_eq(ln_queue_size(q), 0);
    ck_assert_ptr_null(ln_queue_peek(q));
    ck_assert_ptr_null(ln_queue_dequeue(q));
    ck_assert_uint_eq(ln_queue_size(q), 0); /* dequeue on empty is harmless */
    ln_queue_free(q);
    ln_queue_free(NULL);
}
END_TEST

START_TEST(test_fifo)
{
    int v[] = {1, 2, 3, 4};
    ln_queue *q = ln_queue_create();
    int i;

    for (i = 0; i < 3; i++)
        ln_queue_enqueue(q, &v[i]);
    ck_assert_uint_eq(ln_queue_size(q), 3);
    ck_assert_ptr_eq(ln_queue_peek(q), &v[0]);
    ck_assert_uint_eq(ln_queue_size(q), 3); /* peek does not take */
    ck_assert_ptr_eq(ln_queue_dequeue(q), &v[0]);
    ln_queue_enqueue(q, &v[3]); /* interleaved */
    ck_assert_ptr_eq(ln_queue_dequeue(q), &v[1]);
    ck_assert_ptr_eq(ln_queue_dequeue(q), &v[2]);
    ck_assert_ptr_eq(ln_queue_peek(q), &v[3]);
    ck_assert_ptr_eq(ln_queue_dequeue(q), &v[3]);
    ck_assert_uint_eq(ln_queue_size(q), 0);
    ck_assert_ptr_null(ln_queue_dequeue(q));
    ck_assert_ptr_null(q->head);
    ck_assert_ptr_null(q->tail);
    /* usable again after draining (tail was reset) */
    ln_queue_enqueue(q, &v[1]);
    ln_queue_enqueue(q, &v[2]);
    ck_assert_ptr_eq(ln_queue_dequeue(q), &v[1]);
    ck_assert_ptr_eq(ln_queue_dequeue(q), &v[2]);
    ln_queue_free(q);
}
END_TEST

START_TEST(test_stored_null)
{
    ln_queue *q = ln_queue_create();

    ln_queue_enqueue(q, NULL);
    ck_assert_uint_eq(ln_queue_size(q), 1);
    ck_assert_ptr_null(ln_queue_dequeue(q));
    ck_assert_uint_eq(ln_queue_size(q), 0);
    ln_queue_free(q);
}
END_TEST

START_TEST(test_many)
{
    ln_queue *q = ln_queue_create();
    size_t i, n = 1000;
    size_t *v = ln_alloc(n * sizeof(*v));

    for (i = 0; i < n; i++) {
        v[i] = i;
        ln_queue_enqueue(q, &v[i]);
    }
    ck_assert_uint_eq(ln_queue_size(q), n);
    for (i = 0; i < n; i++)
        ck_assert_uint_eq(*(size_t *)ln_queue_dequeue(q), i);
    ln_queue_free(q);
    ln_free(v);
}
END_TEST

START_TEST(test_free_deep)
{
    ln_queue *q = ln_queue_create();
    int i;

    for (i = 0; i < 5; i++)
        ln_queue_enqueue(q, ln_alloc(sizeof(int)));
    ln_free(ln_queue_dequeue(q));
    nfreed = 0;
    ln_queue_free_deep(q, counting_free);
    ck_assert_int_eq(nfreed, 4);
}
END_TEST

Suite *test_ln_queue_suite(void); /* run by tests/test_main.c */

Suite *test_ln_queue_suite(void)
{
    Suite *s = suite_create("ln_queue");
    TCase *tc = tcase_create("queue");

    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_fifo);
    tcase_add_test(tc, test_stored_null);
    tcase_add_test(tc, test_many);
    tcase_add_test(tc, test_free_deep);
    suite_add_tcase(s, tc);
    return s;
}
