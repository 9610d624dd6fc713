/*
 * test_ln_mem.c -- memory types and the virtual memory pool.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "ln_mem.h"

START_TEST(test_mem_type_info)
{
    const ln_mem_info *cpu = ln_mem_type_info(LN_MEM_CPU);
    const ln_mem_info *none = ln_mem_type_info(LN_MEM_NONE);
    unsigned char *p, *q;
    size_t i;

    ck_assert_str_eq(ln_mem_type_name(LN_MEM_CPU), "cpu");
    ck_assert_str_eq(ln_mem_type_name(LN_MEM_NONE), "none");
    ck_assert_int_eq(ln_mem_type_from_name("cpu"), LN_MEM_CPU);
    ck_assert_int_eq(ln_mem_type_from_name("none"), LN_MEM_NONE);
    ck_assert_int_eq(ln_mem_type_from_name("gpu"), LN_MEM_TYPE_SIZE);
    ck_assert_ptr_null(none->alloc_func);
    ck_assert_ptr_null(none->free_func);
    ck_assert_ptr_null(none->copy_func);
    ck_assert_ptr_null(none->memset_func);

    ck_assert_uint_ge(cpu->align, LN_MEM_ALIGN);
    p = cpu->alloc_func(1000);
    ck_assert_uint_eq((uintptr_t)p % cpu->align, 0);
    for (i = 0; i < 1000; i++)
        ck_assert_uint_eq(p[i], 0);
    cpu->memset_func(p, 7, 1000);
    q = cpu->alloc_func(1000);
    cpu->copy_func(q, p, 1000);
    ck_assert_uint_eq(q[999], 7);
    memset(q, 0, 1000);
    ln_mem_copy(LN_MEM_CPU, q, LN_MEM_CPU, p, 10);
    ck_assert_uint_eq(q[9], 7);
    ck_assert_uint_eq(q[10], 0);
    cpu->free_func(p);
    cpu->free_func(q);
    p = cpu->alloc_func(0);       /* a real, freeable pointer */
    ck_assert_ptr_nonnull(p);
    cpu->free_func(p);
}
END_TEST

START_TEST(test_pool_alloc_align)
{
    ln_mem_pool *pool = ln_mem_pool_create(0, 16);
    size_t a, b, c, d;

    a = ln_mem_pool_alloc(pool, 10);
    b = ln_mem_pool_alloc(pool, 17);
    c = ln_mem_pool_alloc(pool, 0);     /* size 0 gets align bytes */
    d = ln_mem_pool_alloc(pool, 1);
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, 16);
    ck_assert_uint_eq(c, 48);
    ck_assert_uint_eq(d, 64);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 80);
    ln_mem_pool_free(pool);

    pool = ln_mem_pool_create(0, 64);
    a = ln_mem_pool_alloc(pool, 3);
    b = ln_mem_pool_alloc(pool, 65);
    c = ln_mem_pool_alloc(pool, 64);
    ck_assert_uint_eq(a % 64, 0);
    ck_assert_uint_eq(b % 64, 0);
    ck_assert_uint_eq(c % 64, 0);
    ck_assert_uint_eq(b, 64);
    ck_assert_uint_eq(c, 192);
    ln_mem_pool_free(pool);
}
END_TEST

START_TEST(test_pool_reuse_first_fit)
{
    ln_mem_pool *pool = ln_mem_pool_create(0, 16);
    size_t a, b, c, d, e;

    a = ln_mem_pool_alloc(pool, 32);    /* [0, 32) */
    b = ln_mem_pool_alloc(pool, 64);    /* [32, 96) */
    c = ln_mem_pool_alloc(pool, 32);    /* [96, 128) */
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, b), 0);
    ck_assert(!ln_mem_pool_exist(pool, b));
    /* first fit: the hole at 32 takes a smaller block, the rest stays */
    d = ln_mem_pool_alloc(pool, 16);
    ck_assert_uint_eq(d, 32);
    e = ln_mem_pool_alloc(pool, 48);
    ck_assert_uint_eq(e, 48);
    /* the hole is full now: the next block goes to the end */
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 16), 128);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 144);
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(c, 96);
    ln_mem_pool_free(pool);
}
END_TEST

START_TEST(test_pool_coalesce)
{
    ln_mem_pool *pool = ln_mem_pool_create(0, 16);
    size_t a, b, c, d, e;

    a = ln_mem_pool_alloc(pool, 16);    /* 0 */
    b = ln_mem_pool_alloc(pool, 16);    /* 16 */
    c = ln_mem_pool_alloc(pool, 16);    /* 32 */
    d = ln_mem_pool_alloc(pool, 16);    /* 48 */
    ck_assert_uint_eq(d, 48);
    /* free a and c, then b: a+b+c must merge into one 48-byte hole */
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, a), 0);
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, c), 0);
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, b), 0);
    e = ln_mem_pool_alloc(pool, 48);
    ck_assert_uint_eq(e, 0);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 64);
    /* freeing the last block merges with the open end */
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, d), 0);
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 100), 48);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 160);
    ln_mem_pool_free(pool);
}
END_TEST

START_TEST(test_pool_high_water)
{
    ln_mem_pool *pool = ln_mem_pool_create(0, 16);
    size_t a, b;

    ck_assert_uint_eq(ln_mem_pool_size(pool), 0);
    a = ln_mem_pool_alloc(pool, 100);   /* 112 bytes */
    b = ln_mem_pool_alloc(pool, 100);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 224);
    ln_mem_pool_dealloc(pool, a);
    ln_mem_pool_dealloc(pool, b);
    /* freeing does not lower the mark; reuse does not raise it */
    ck_assert_uint_eq(ln_mem_pool_size(pool), 224);
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 200), 0);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 224);
    ln_mem_pool_free(pool);
}
END_TEST

START_TEST(test_pool_exist_dealloc_unknown)
{
    ln_mem_pool *pool = ln_mem_pool_create(0, 16);
    size_t a, b;

    a = ln_mem_pool_alloc(pool, 32);
    b = ln_mem_pool_alloc(pool, 32);
    ck_assert(ln_mem_pool_exist(pool, a));
    ck_assert(ln_mem_pool_exist(pool, b));
    ck_assert(!ln_mem_pool_exist(pool, 16));  /* inside a, not its start */
    ck_assert(!ln_mem_pool_exist(pool, 1000));
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, 16), LN_EINVAL);
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, 1000), LN_EINVAL);
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, a), 0);
    ck_assert_int_eq(ln_mem_pool_dealloc(pool, a), LN_EINVAL);  /* twice */
    ck_assert(ln_mem_pool_exist(pool, b));
    ln_mem_pool_free(pool);
}
END_TEST

START_TEST(test_pool_bounded)
{
    ln_mem_pool *pool = ln_mem_pool_create(64, 16);
    size_t a, b;

    a = ln_mem_pool_alloc(pool, 32);
    b = ln_mem_pool_alloc(pool, 32);
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, 32);
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 1), (size_t)-1);
    ln_mem_pool_dealloc(pool, a);
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 48), (size_t)-1);
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 20), 0);
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, 65), (size_t)-1);
    ck_assert_uint_eq(ln_mem_pool_size(pool), 64);
    ln_mem_pool_free(pool);

    pool = ln_mem_pool_create(0, 16);   /* unbounded, absurd size */
    ck_assert_uint_eq(ln_mem_pool_alloc(pool, SIZE_MAX), (size_t)-1);
    ln_mem_pool_free(pool);
}
END_TEST

START_TEST(test_pool_dump)
{
    ln_mem_pool *pool = ln_mem_pool_create(0, 16);
    FILE *fp = tmpfile();
    char buf[1024];
    size_t n;

    ck_assert_ptr_nonnull(fp);
    ln_mem_pool_alloc(pool, 16);
    ln_mem_pool_alloc(pool, 32);
    ln_mem_pool_dealloc(pool, 0);
    ln_mem_pool_dump(pool, fp);
    rewind(fp);
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    ck_assert_ptr_nonnull(strstr(buf, "free [0, 16) 16 bytes\n"
                                      "used [16, 48) 32 bytes\n"
                                      "free [48, ...)\n"));
    fclose(fp);
    ln_mem_pool_free(pool);
}
END_TEST

/* Random alloc/dealloc: no two live blocks overlap, all aligned. */
START_TEST(test_pool_random_no_overlap)
{
    enum { N = 64 };
    ln_mem_pool *pool = ln_mem_pool_create(0, 32);
    size_t off[N], sz[N];
    int live[N] = { 0 };
    unsigned seed = 12345;
    int step, i, j;

    for (step = 0; step < 2000; step++) {
        seed = seed * 1103515245u + 12345u;
        i = (int)((seed >> 16) % N);
        if (live[i]) {
            ck_assert_int_eq(ln_mem_pool_dealloc(pool, off[i]), 0);
            live[i] = 0;
            continue;
        }
        sz[i] = (seed >> 8) % 300;
        off[i] = ln_mem_pool_alloc(pool, sz[i]);
        ck_assert_uint_eq(off[i] % 32, 0);
        live[i] = 1;
        for (j = 0; j < N; j++) {
            size_t ei, ej;

            if (j == i || !live[j])
                continue;
            ei = off[i] + (sz[i] ? sz[i] : 1);
            ej = off[j] + (sz[j] ? sz[j] : 1);
            ck_assert(ei <= off[j] || ej <= off[i]);
        }
        ck_assert_uint_ge(ln_mem_pool_size(pool), off[i] + sz[i]);
    }
    ln_mem_pool_free(pool);
}
END_TEST

Suite *test_ln_mem_suite(void); /* run by tests/test_main.c */

Suite *test_ln_mem_suite(void)
{
    Suite *s = suite_create("ln_mem");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_mem_type_info);
    tcase_add_test(tc, test_pool_alloc_align);
    tcase_add_test(tc, test_pool_reuse_first_fit);
    tcase_add_test(tc, test_pool_coalesce);
    tcase_add_test(tc, test_pool_high_water);
    tcase_add_test(tc, test_pool_exist_dealloc_unknown);
    tcase_add_test(tc, test_pool_bounded);
    tcase_add_test(tc, test_pool_dump);
    tcase_add_test(tc, test_pool_random_no_overlap);
    suite_add_tcase(s, tc);
    return s;
}
