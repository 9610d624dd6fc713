/*
 * test_ln_util.c -- the error channel (formatting, prefix, truncation),
 * allocation helpers, ln_read_text, hashing/compare helpers and ln_align_up.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <check.h>

#include "ln_util.h"

START_TEST(test_error_format)
{
    int ret;

    ln_error_clear();
    ck_assert_int_eq(ln_error_code(), LN_OK);
    ck_assert_str_eq(ln_error_message(), "");
    ret = ln_error(LN_EOP, "%s (%s): 'bias' has %d elements", "conv1", "conv2d", 32);
    ck_assert_int_eq(ret, LN_EOP);
    ck_assert_int_eq(ln_error_code(), LN_EOP);
    ck_assert_str_eq(ln_error_message(), "conv1 (conv2d): 'bias' has 32 elements");
    ln_error(LN_EINVAL, "second");
    ck_assert_int_eq(ln_error_code(), LN_EINVAL);
    ck_assert_str_eq(ln_error_message(), "second");
    ln_error_clear();
    ck_assert_int_eq(ln_error_code(), LN_OK);
    ck_assert_str_eq(ln_error_message(), "");
}
END_TEST

START_TEST(test_error_prefix)
{
    ln_error(LN_EPARSE, "line %d: unexpected '}'", 3);
    ln_error_prefix("%s: ", "model.json");
    ck_assert_str_eq(ln_error_message(), "model.json: line 3: unexpected '}'");
    ck_assert_int_eq(ln_error_code(), LN_EPARSE);
    ln_error_prefix("compile: ");
    ck_assert_str_eq(ln_error_message(),
                     "compile: model.json: line 3: unexpected '}'");
}
END_TEST

START_TEST(test_error_truncates)
{
    char big[3000];
    size_t len;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    ln_error(LN_EINVAL, "%s", big);
    len = strlen(ln_error_message());
    ck_assert_uint_gt(len, 500);
    ck_assert_uint_lt(len, sizeof(big) - 1);
    ln_error_prefix("%s", big); /* prefix alone overflows the buffer */
    ck_assert_uint_eq(strlen(ln_error_message()), len);
    ln_error(LN_EINVAL, "tail");
    ln_error_prefix("%s", big);
    ck_assert_uint_eq(strlen(ln_error_message()), len);
    ck_assert_int_eq(ln_error_message()[0], 'x');
}
END_TEST

START_TEST(test_error_name)
{
    ck_assert_str_eq(ln_error_name(LN_ENOMEM), "out of memory");
    ck_assert_str_eq(ln_error_name(LN_OK), "success");
    ck_assert_str_ne(ln_error_name(LN_EIO), ln_error_name(LN_EPARSE));
    ck_assert_str_ne(ln_error_name(LN_ENOTFOUND), ln_error_name(LN_EUNSUPPORTED));
    ck_assert_str_eq(ln_error_name(-1000), "unknown error");
}
END_TEST

START_TEST(test_alloc_zeroed)
{
    unsigned char *p = ln_alloc(257);
    size_t i;

    for (i = 0; i < 257; i++)
        ck_assert_int_eq(p[i], 0);
    p = ln_realloc(p, 10000);
    p[9999] = 7;
    ck_assert_int_eq(p[9999], 7);
    ck_assert_int_eq(p[0], 0); /* kept */
    ln_free(p);
    ln_free(NULL);
    p = ln_alloc(0);
    ck_assert_ptr_nonnull(p);
    ln_free(p);
}
END_TEST

START_TEST(test_strdup_sprintf_clone)
{
    const char *src = "conv1";
    char *d = ln_strdup(src);
    char *s;
    int arr[3] = {1, 2, 3}, *c;

    ck_assert_ptr_null(ln_strdup(NULL));
    ck_assert_ptr_ne(d, src);
    ck_assert_str_eq(d, src);
    ln_free(d);
    s = ln_sprintf("%s_%d", "relu", 12);
    ck_assert_str_eq(s, "relu_12");
    ln_free(s);
    s = ln_sprintf("%s", "");
    ck_assert_str_eq(s, "");
    ln_free(s);
    c = ln_clone(arr, sizeof(arr));
    ck_assert_ptr_ne(c, arr);
    ck_assert_int_eq(memcmp(c, arr, sizeof(arr)), 0);
    ln_free(c);
    ck_assert_ptr_null(ln_clone(NULL, 4));
}
END_TEST

START_TEST(test_read_text)
{
    char path[] = "/tmp/ln_util_test_XXXXXX";
    const char *text = "{\"ops\": []}\nline two\n";
    size_t len = 0;
    char *buf;
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    buf = ln_read_text(path, &len);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(len, strlen(text));
    ck_assert_str_eq(buf, text);
    ln_free(buf);
    buf = ln_read_text(path, NULL); /* len is optional */
    ck_assert_str_eq(buf, text);
    ln_free(buf);
    unlink(path);
}
END_TEST

START_TEST(test_read_text_large)
{
    char path[] = "/tmp/ln_util_test_XXXXXX";
    size_t n = 100000, len = 0, i;
    char *data = ln_alloc(n), *buf;
    FILE *fp;
    int fd = mkstemp(path);

    ck_assert_int_ge(fd, 0);
    for (i = 0; i < n; i++)
        data[i] = (char)('a' + i % 26);
    fp = fdopen(fd, "wb");
    ck_assert_uint_eq(fwrite(data, 1, n, fp), n);
    fclose(fp);
    buf = ln_read_text(path, &len);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(memcmp(buf, data, n), 0);
    ck_assert_int_eq(buf[n], '\0');
    ln_free(buf);
    ln_free(data);
    unlink(path);
}
END_TEST

START_TEST(test_read_text_missing)
{
    size_t len = 42;

    ln_error_clear();
    ck_assert_ptr_null(ln_read_text("/nonexistent/ln_model.json", &len));
    ck_assert_int_eq(ln_error_code(), LN_EIO);
    ck_assert_str_eq(ln_error_message(),
                     "cannot open '/nonexistent/ln_model.json': No such file or directory");
}
END_TEST

START_TEST(test_hash_cmp_helpers)
{
    char a[] = "tensor", b[] = "tensor";
    int x[2];

    ck_assert_uint_eq(ln_str_hash(a), ln_str_hash(b));
    ck_assert_uint_ne(ln_str_hash("tensor0"), ln_str_hash("tensor1"));
    ck_assert_uint_ne(ln_str_hash(""), ln_str_hash("a"));
    ck_assert_int_eq(ln_str_cmp(a, b), 0);
    ck_assert_int_lt(ln_str_cmp("a", "b"), 0);
    ck_assert_int_gt(ln_str_cmp("b", "a"), 0);
    ck_assert_int_eq(ln_direct_cmp(&x[0], &x[0]), 0);
    ck_assert_int_lt(ln_direct_cmp(&x[0], &x[1]), 0);
    ck_assert_int_gt(ln_direct_cmp(&x[1], &x[0]), 0);
    ck_assert_int_ne(ln_direct_cmp(a, b), 0); /* equal text, other pointer */
    ck_assert_uint_eq(ln_direct_hash(&x[0]), ln_direct_hash(&x[0]));
    ck_assert_uint_ne(ln_direct_hash(&x[0]), ln_direct_hash(&x[1]));
}
END_TEST

/* Aligned pointers must not all land in the same few of 16 buckets. */
START_TEST(test_direct_hash_spreads)
{
    double arr[64];
    int used[16] = {0}, nused = 0, i;

    for (i = 0; i < 64; i++)
        used[ln_direct_hash(&arr[i]) & 15] = 1;
    for (i = 0; i < 16; i++)
        nused += used[i];
    ck_assert_int_ge(nused, 12);
}
END_TEST

START_TEST(test_streq)
{
    ck_assert(ln_streq("abc", "abc"));
    ck_assert(!ln_streq("abc", "abd"));
    ck_assert(ln_streq(NULL, NULL));
    ck_assert(!ln_streq(NULL, "a"));
    ck_assert(!ln_streq("a", NULL));
}
END_TEST

START_TEST(test_align_up)
{
    ck_assert_uint_eq(ln_align_up(0, 16), 0);
    ck_assert_uint_eq(ln_align_up(1, 16), 16);
    ck_assert_uint_eq(ln_align_up(16, 16), 16);
    ck_assert_uint_eq(ln_align_up(17, 16), 32);
    ck_assert_uint_eq(ln_align_up(7, 1), 7);
    ck_assert_uint_eq(ln_align_up(10, 12), 12);
    ck_assert_uint_eq(ln_align_up(25, 12), 36);
}
END_TEST

Suite *test_ln_util_suite(void); /* run by tests/test_main.c */

Suite *test_ln_util_suite(void)
{
    Suite *s = suite_create("ln_util");
    TCase *tc = tcase_create("util");

    tcase_add_test(tc, test_error_format);
    tcase_add_test(tc, test_error_prefix);
    tcase_add_test(tc, test_error_truncates);
    tcase_add_test(tc, test_error_name);
    tcase_add_test(tc, test_alloc_zeroed);
    tcase_add_test(tc, test_strdup_sprintf_clone);
    tcase_add_test(tc, test_read_text);
    tcase_add_test(tc, test_read_text_large);
    tcase_add_test(tc, test_read_text_missing);
    tcase_add_test(tc, test_hash_cmp_helpers);
    tcase_add_test(tc, test_direct_hash_spreads);
    tcase_add_test(tc, test_streq);
    tcase_add_test(tc, test_align_up);
    suite_add_tcase(s, tc);
    return s;
}
