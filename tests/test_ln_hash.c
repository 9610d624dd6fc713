/*
 * test_ln_hash.c -- ln_hash: insert/find/remove with string and pointer keys,
 * growth past the load factor (capacity doubles, every key still found),
 * long chains under a constant hash, replacement freeing exactly the old key
 * and value, find_extended, init from a NULL-terminated array, iteration,
 * and ln_hash_free freeing everything it owns.
 */
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "ln_hash.h"

static int nfreed_k, nfreed_v;

static void count_free_k(void *p)
{
    nfreed_k++;
    ln_free(p);
}

static void count_free_v(void *p)
{
    nfreed_v++;
    ln_free(p);
}

static uint32_t const_hash(const void *key)
{
    (void)key;
    return 7;
}

static int *new_int(int v)
{
    int *p = ln_alloc(sizeof(int));

    *p = v;
    return p;
}

static ln_hash *str_hash(void)
{
    nfreed_k = nfreed_v = 0;
    return ln_hash_create(ln_str_hash, ln_str_cmp, count_free_k, count_free_v);
}

START_TEST(test_empty)
{
    ln_hash *h = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    ln_hash_iter it;
    void *k = NULL, *v = NULL;

    ck_assert_int_eq(ln_hash_size(h), 0);
    ck_assert_int_eq(ln_hash_capacity(h), 16);
    ck_assert_ptr_null(ln_hash_find(h, "x"));
    ck_assert(!ln_hash_find_extended(h, "x", &k, &v));
    ck_assert(!ln_hash_remove(h, "x"));
    ln_hash_iter_init(&it, h);
    ck_assert(!ln_hash_iter_next(&it, &k, &v));
    ln_hash_free(h);
    ln_hash_free(NULL);
}
END_TEST

START_TEST(test_insert_find)
{
    ln_hash *h = str_hash();

    ck_assert_int_eq(ln_hash_insert(h, ln_strdup("conv1"), new_int(1)), 1);
    ck_assert_int_eq(ln_hash_insert(h, ln_strdup("relu1"), new_int(2)), 1);
    ck_assert_int_eq(ln_hash_size(h), 2);
    ck_assert_int_eq(*(int *)ln_hash_find(h, "conv1"), 1); /* by content */
    ck_assert_int_eq(*(int *)ln_hash_find(h, "relu1"), 2);
    ck_assert_ptr_null(ln_hash_find(h, "conv2"));
    ck_assert_ptr_null(ln_hash_find(h, ""));
    ln_hash_free(h);
    ck_assert_int_eq(nfreed_k, 2);
    ck_assert_int_eq(nfreed_v, 2);
}
END_TEST

START_TEST(test_growth)
{
    ln_hash *h = str_hash();
    char name[32];
    int i, n = 1000;

    for (i = 0; i < 12; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        ln_hash_insert(h, ln_strdup(name), new_int(i));
    }
    ck_assert_int_eq(ln_hash_capacity(h), 16); /* 12 == 0.75 * 16: not yet */
    ln_hash_insert(h, ln_strdup("t12"), new_int(12));
    ck_assert_int_eq(ln_hash_capacity(h), 32); /* 13 > 12: doubled */
    for (i = 0; i <= 12; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        ck_assert_int_eq(*(int *)ln_hash_find(h, name), i);
    }
    for (i = 13; i < n; i++) {
        int cap = ln_hash_capacity(h);

        snprintf(name, sizeof(name), "t%d", i);
        ck_assert_int_eq(ln_hash_insert(h, ln_strdup(name), new_int(i)), 1);
        if ((float)(i + 1) > 0.75f * (float)cap)
            ck_assert_int_eq(ln_hash_capacity(h), 2 * cap);
        else
            ck_assert_int_eq(ln_hash_capacity(h), cap);
    }
    ck_assert_int_eq(ln_hash_size(h), n);
    ck_assert_int_eq(ln_hash_capacity(h), 2048);
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        ck_assert_int_eq(*(int *)ln_hash_find(h, name), i);
    }
    ck_assert_ptr_null(ln_hash_find(h, "t1000"));
    ln_hash_free(h);
    ck_assert_int_eq(nfreed_k, n);
    ck_assert_int_eq(nfreed_v, n);
}
END_TEST

START_TEST(test_create_full)
{
    ln_hash *h = ln_hash_create_full(NULL, NULL, NULL, NULL, 64, 0.5f);
    int keys[40];
    int i;

    ck_assert_int_eq(ln_hash_capacity(h), 64);
    for (i = 0; i < 32; i++)
        ln_hash_insert(h, &keys[i], &keys[i]); /* NULL funcs: pointer keys */
    ck_assert_int_eq(ln_hash_capacity(h), 64);
    ln_hash_insert(h, &keys[32], &keys[32]);
    ck_assert_int_eq(ln_hash_capacity(h), 128);
    for (i = 0; i < 33; i++)
        ck_assert_ptr_eq(ln_hash_find(h, &keys[i]), &keys[i]);
    ck_assert_ptr_null(ln_hash_find(h, &keys[33]));
    ln_hash_free(h);
}
END_TEST

/* Every key in one bucket: chains must find, replace and unlink right. */
START_TEST(test_collisions)
{
    ln_hash *h = ln_hash_create(const_hash, ln_str_cmp, NULL, NULL);
    const char *keys[] = {"a", "b", "c", "d", "e"};
    int vals[5], i;

    for (i = 0; i < 5; i++)
        ck_assert_int_eq(ln_hash_insert(h, (void *)keys[i], &vals[i]), 1);
    for (i = 0; i < 5; i++)
        ck_assert_ptr_eq(ln_hash_find(h, keys[i]), &vals[i]);
    ck_assert(ln_hash_remove(h, "c")); /* middle of the chain */
    ck_assert(ln_hash_remove(h, "a")); /* first inserted */
    ck_assert(ln_hash_remove(h, "e")); /* last inserted */
    ck_assert(!ln_hash_remove(h, "c"));
    ck_assert_int_eq(ln_hash_size(h), 2);
    ck_assert_ptr_eq(ln_hash_find(h, "b"), &vals[1]);
    ck_assert_ptr_eq(ln_hash_find(h, "d"), &vals[3]);
    ck_assert_ptr_null(ln_hash_find(h, "a"));
    ck_assert_int_eq(ln_hash_insert(h, (void *)"d", &vals[0]), 0);
    ck_assert_ptr_eq(ln_hash_find(h, "d"), &vals[0]);
    ck_assert_int_eq(ln_hash_size(h), 2);
    ln_hash_free(h);
}
END_TEST

START_TEST(test_replace_frees_old)
{
    ln_hash *h = str_hash();
    char *k1 = ln_strdup("w"), *k2 = ln_strdup("w");
    int *v1 = new_int(1), *v2 = new_int(2), *v3 = new_int(3);
    void *fk = NULL, *fv = NULL;

    ck_assert_int_eq(ln_hash_insert(h, k1, v1), 1);
    /* equal key, new pointer: old key and old value both freed */
    ck_assert_int_eq(ln_hash_insert(h, k2, v2), 0);
    ck_assert_int_eq(nfreed_k, 1);
    ck_assert_int_eq(nfreed_v, 1);
    ck_assert_int_eq(ln_hash_size(h), 1);
    ck_assert(ln_hash_find_extended(h, "w", &fk, &fv));
    ck_assert_ptr_eq(fk, k2);
    ck_assert_ptr_eq(fv, v2);
    /* the stored key pointer again: only the value goes */
    ck_assert_int_eq(ln_hash_insert(h, k2, v3), 0);
    ck_assert_int_eq(nfreed_k, 1);
    ck_assert_int_eq(nfreed_v, 2);
    ck_assert_ptr_eq(ln_hash_find(h, "w"), v3);
    /* the very same pair again: nothing is freed */
    ck_assert_int_eq(ln_hash_insert(h, k2, v3), 0);
    ck_assert_int_eq(nfreed_k, 1);
    ck_assert_int_eq(nfreed_v, 2);
    ck_assert_int_eq(*(int *)ln_hash_find(h, "w"), 3);
    ln_hash_free(h);
    ck_assert_int_eq(nfreed_k, 2);
    ck_assert_int_eq(nfreed_v, 3);
}
END_TEST

START_TEST(test_find_extended)
{
    ln_hash *h = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    char key[] = "bias";
    void *fk = (void *)1, *fv = (void *)1;

    ln_hash_insert(h, key, NULL); /* a stored NULL value */
    ck_assert_ptr_null(ln_hash_find(h, "bias"));
    ck_assert(ln_hash_find_extended(h, "bias", &fk, &fv));
    ck_assert_ptr_eq(fk, key); /* the stored key, not the probe */
    ck_assert_ptr_null(fv);
    ck_assert(ln_hash_find_extended(h, "bias", NULL, NULL));
    fk = fv = (void *)1;
    ck_assert(!ln_hash_find_extended(h, "weight", &fk, &fv));
    ck_assert_ptr_eq(fk, (void *)1); /* untouched when absent */
    ck_assert_ptr_eq(fv, (void *)1);
    ln_hash_free(h);
}
END_TEST

START_TEST(test_init_from_array)
{
    static int one = 1, two = 2, three = 3;
    const ln_hash_init_entry init[] = {
        {"conv2d", &one}, {"relu", &two}, {"maxpool2d", &three},
        {NULL, &one}, /* stops here */
        {"never", &one},
    };
    ln_hash *h = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);

    ln_hash_init_from_array(h, init);
    ck_assert_int_eq(ln_hash_size(h), 3);
    ck_assert_ptr_eq(ln_hash_find(h, "conv2d"), &one);
    ck_assert_ptr_eq(ln_hash_find(h, "relu"), &two);
    ck_assert_ptr_eq(ln_hash_find(h, "maxpool2d"), &three);
    ck_assert_ptr_null(ln_hash_find(h, "never"));
    ln_hash_free(h);
}
END_TEST

START_TEST(test_remove)
{
    ln_hash *h = str_hash();

    ln_hash_insert(h, ln_strdup("a"), new_int(1));
    ln_hash_insert(h, ln_strdup("b"), new_int(2));
    ck_assert(ln_hash_remove(h, "a"));
    ck_assert_int_eq(nfreed_k, 1);
    ck_assert_int_eq(nfreed_v, 1);
    ck_assert_int_eq(ln_hash_size(h), 1);
    ck_assert_ptr_null(ln_hash_find(h, "a"));
    ck_assert(!ln_hash_remove(h, "a"));
    ck_assert_int_eq(nfreed_k, 1);
    ck_assert_int_eq(*(int *)ln_hash_find(h, "b"), 2);
    ck_assert_int_eq(ln_hash_insert(h, ln_strdup("a"), new_int(3)), 1); /* back */
    ck_assert_int_eq(*(int *)ln_hash_find(h, "a"), 3);
    ln_hash_free(h);
    ck_assert_int_eq(nfreed_k, 3);
    ck_assert_int_eq(nfreed_v, 3);
}
END_TEST

START_TEST(test_iter)
{
    ln_hash *h = ln_hash_create(NULL, NULL, NULL, NULL);
    int keys[100], seen[100] = {0};
    ln_hash_iter it;
    void *k, *v;
    int i, n = 0;

    for (i = 0; i < 100; i++)
        ln_hash_insert(h, &keys[i], &seen[i]);
    ln_hash_iter_init(&it, h);
    while (ln_hash_iter_next(&it, &k, &v)) {
        int idx = (int)((int *)k - keys);

        ck_assert_int_ge(idx, 0);
        ck_assert_int_lt(idx, 100);
        ck_assert_ptr_eq(v, &seen[idx]);
        seen[idx]++;
        n++;
    }
    ck_assert_int_eq(n, 100);
    for (i = 0; i < 100; i++)
        ck_assert_int_eq(seen[i], 1);
    ck_assert(!ln_hash_iter_next(&it, &k, &v)); /* stays finished */
    n = 0;
    ln_hash_iter_init(&it, h);
    while (ln_hash_iter_next(&it, NULL, NULL))
        n++;
    ck_assert_int_eq(n, 100);
    ln_hash_free(h);
}
END_TEST

Suite *test_ln_hash_suite(void); /* run by tests/test_main.c */

Suite *test_ln_hash_suite(void)
{
    Suite *s = suite_create("ln_hash");
    TCase *tc = tcase_create("hash");

    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_insert_find);
    tcase_add_test(tc, test_growth);
    tcase_add_test(tc, test_create_full);
    tcase_add_test(tc, test_collisions);
    tcase_add_test(tc, test_replace_frees_old);
    tcase_add_test(tc, test_find_extended);
    tcase_add_test(tc, test_init_from_array);
    tcase_add_test(tc, test_remove);
    tcase_add_test(tc, test_iter);
    suite_add_tcase(s, tc);
    return s;
}
