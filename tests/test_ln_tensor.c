/*
 * test_ln_tensor.c -- dtypes, tensors, the tensor table and tensor lists.
 */
#include <stdlib.h>
#include <string.h>
#include <check.h>

#include "ln_tensor.h"

/* Everything fp received, as a string (buf of size n). */
static const char *slurp(FILE *fp, char *buf, size_t n)
{
    size_t got;

    rewind(fp);
    got = fread(buf, 1, n - 1, fp);
    buf[got] = '\0';
    return buf;
}

static const char *print_to_str(const ln_tensor *t, size_t max, char *buf,
                                size_t n)
{
    FILE *fp = tmpfile();

    ck_assert_ptr_nonnull(fp);
    ln_tensor_fprint(fp, t, max);
    slurp(fp, buf, n);
    fclose(fp);
    return buf;
}

START_TEST(test_dtype)
{
    static const char *names[] = {
        "float32", "float64", "float16", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64", "bool"
    };
    static const size_t sizes[] = { 4, 8, 2, 1, 2, 4, 8, 1, 2, 4, 8, 1 };
    int i;

    for (i = 0; i < LN_DTYPE_SIZE; i++) {
        ck_assert_str_eq(ln_dtype_name((ln_dtype)i), names[i]);
        ck_assert_int_eq(ln_dtype_from_name(names[i]), i);
        ck_assert_uint_eq(ln_dtype_size((ln_dtype)i), sizes[i]);
    }
    ck_assert_int_eq(ln_dtype_from_name("TL_FLOAT"), LN_DTYPE_FLOAT32);
    ck_assert_int_eq(ln_dtype_from_name("TL_DOUBLE"), LN_DTYPE_FLOAT64);
    ck_assert_int_eq(ln_dtype_from_name("TL_HALF"), LN_DTYPE_FLOAT16);
    ck_assert_int_eq(ln_dtype_from_name("TL_INT32"), LN_DTYPE_INT32);
    ck_assert_int_eq(ln_dtype_from_name("TL_UINT8"), LN_DTYPE_UINT8);
    ck_assert_int_eq(ln_dtype_from_name("TL_BOOL"), LN_DTYPE_BOOL);
    ck_assert_int_eq(ln_dtype_from_name("float"), LN_DTYPE_UNKNOWN);
    ck_assert_int_eq(ln_dtype_from_name(""), LN_DTYPE_UNKNOWN);
    ck_assert_int_eq(ln_dtype_from_name(NULL), LN_DTYPE_UNKNOWN);
    ck_assert_uint_eq(ln_dtype_size(LN_DTYPE_UNKNOWN), 0);
}
END_TEST

START_TEST(test_tensor_create)
{
    int dims[] = { 2, 3, 4 };
    float data[24];
    ln_tensor *t;

    t = ln_tensor_create(LN_DTYPE_FLOAT32, 3, dims, data);
    ck_assert_uint_eq(t->len, 24);
    ck_assert_uint_eq(ln_tensor_size(t), 96);
    ck_assert_ptr_eq(t->data, data);
    ck_assert(!t->owns_data);
    ck_assert_int_eq(t->quant_count, 0);
    ln_tensor_free(t);          /* borrowed data: ASan would catch a free */

    t = ln_tensor_create_alloc(LN_DTYPE_INT16, 3, dims);
    ck_assert(t->owns_data);
    ck_assert_uint_eq(ln_tensor_size(t), 48);
    ck_assert_int_eq(((int16_t *)t->data)[23], 0);
    ((int16_t *)t->data)[23] = 5;
    ln_tensor_free(t);

    t = ln_tensor_create_alloc(LN_DTYPE_FLOAT64, 0, NULL);   /* scalar */
    ck_assert_int_eq(t->ndim, 0);
    ck_assert_uint_eq(t->len, 1);
    ck_assert_uint_eq(ln_tensor_size(t), 8);
    ln_tensor_free(t);

    dims[1] = 0;
    ck_assert_uint_eq(ln_compute_length(3, dims), 0);
    t = ln_tensor_create_alloc(LN_DTYPE_FLOAT32, 3, dims);
    ck_assert_uint_eq(ln_tensor_size(t), 0);
    ln_tensor_free(t);
    ln_tensor_free(NULL);
}
END_TEST

START_TEST(test_tensor_copy_quant)
{
    int dims[] = { 3, 2 };
    float scales[] = { 0.5f, 0.25f, 2.0f };
    int32_t zps[] = { 1, -2, 3 };
    ln_tensor *t, *c;
    int i;

    t = ln_tensor_create_alloc(LN_DTYPE_INT8, 2, dims);
    for (i = 0; i < 6; i++)
        ((int8_t *)t->data)[i] = (int8_t)(i - 3);
    t->layout = LN_LAYOUT_NHWC;
    ck_assert_int_eq(ln_tensor_set_quant(t, 3, 0, scales, zps), 0);
    scales[0] = 99.0f;          /* copied, not kept */
    ck_assert(t->scales[0] == 0.5f);

    c = ln_tensor_copy(t);
    ck_assert(c->owns_data);
    ck_assert_ptr_ne(c->data, t->data);
    ck_assert_int_eq(memcmp(c->data, t->data, 6), 0);
    ck_assert(ln_tensor_same_shape(c, t));
    ck_assert_int_eq(c->layout, LN_LAYOUT_NHWC);
    ck_assert_int_eq(c->quant_count, 3);
    ck_assert_int_eq(c->quant_axis, 0);
    ck_assert_ptr_ne(c->scales, t->scales);
    ck_assert(c->scales[2] == 2.0f);
    ck_assert_int_eq(c->zero_points[1], -2);
    ((int8_t *)c->data)[0] = 100;
    ck_assert_int_eq(((int8_t *)t->data)[0], -3);

    /* per-channel count must match dims[axis]; axis must exist */
    ck_assert_int_eq(ln_tensor_set_quant(t, 2, 0, scales, NULL), LN_EINVAL);
    ck_assert_int_eq(ln_tensor_set_quant(t, 2, 5, scales, NULL), LN_EINVAL);
    ck_assert_int_eq(ln_tensor_set_quant(t, -1, 0, scales, NULL), LN_EINVAL);
    ck_assert_int_eq(t->quant_count, 3);        /* unchanged on error */
    ck_assert_int_eq(ln_tensor_set_quant(t, 2, 1, scales, NULL), 0);
    ck_assert_int_eq(t->zero_points[1], 0);
    ck_assert_int_eq(ln_tensor_set_quant(t, 1, 0, scales, zps), 0);
    ck_assert_int_eq(t->quant_count, 1);
    ck_assert_int_eq(ln_tensor_set_quant(t, 0, 0, NULL, NULL), 0);
    ck_assert_ptr_null(t->scales);

    ln_tensor_free(t);
    ln_tensor_free(c);

    /* no data: copy has no data either */
    t = ln_tensor_create(LN_DTYPE_FLOAT32, 2, dims, NULL);
    c = ln_tensor_copy(t);
    ck_assert_ptr_null(c->data);
    ck_assert(!c->owns_data);
    dims[0] = 4;
    ln_tensor_free(c);
    c = ln_tensor_create(LN_DTYPE_FLOAT32, 2, dims, NULL);
    ck_assert(!ln_tensor_same_shape(c, t));
    ln_tensor_free(c);
    ln_tensor_free(t);
}
END_TEST

START_TEST(test_dims_str)
{
    char buf[64];
    int dims[] = { 2, 3, 4 };

    ck_assert_str_eq(ln_dims_str(buf, sizeof(buf), 3, dims), "[2, 3, 4]");
    ck_assert_str_eq(ln_dims_str(buf, sizeof(buf), 1, dims), "[2]");
    ck_assert_str_eq(ln_dims_str(buf, sizeof(buf), 0, dims), "[]");
    /* a short buffer truncates, never overflows */
    ln_dims_str(buf, 5, 3, dims);
    ck_assert_uint_lt(strlen(buf), 5);
}
END_TEST

START_TEST(test_tensor_fprint)
{
    char buf[256];
    int dims[] = { 2, 2 };
    int dims3[] = { 2, 1, 3 };
    float f[] = { 1, 2.5f, -3, 1e10f };
    int32_t iv[] = { 1234567, -2, 3, 4, 5, 6 };
    double d = 0.125;
    uint8_t b[] = { 1, 0, 1, 1 };
    uint16_t h[] = { 0x3c00, 0xc000 };      /* 1.0, -2.0 in float16 */
    int dims1[] = { 2 };
    ln_tensor *t;

    t = ln_tensor_create(LN_DTYPE_FLOAT32, 2, dims, f);
    ck_assert_str_eq(print_to_str(t, 0, buf, sizeof(buf)),
                     "[[1, 2.5], [-3, 1e+10]]\n");
    ck_assert_str_eq(print_to_str(t, 3, buf, sizeof(buf)),
                     "[[1, 2.5], [-3, ...]]\n");
    ck_assert_str_eq(print_to_str(t, 2, buf, sizeof(buf)),
                     "[[1, 2.5], ...]\n");
    ln_tensor_free(t);

    t = ln_tensor_create(LN_DTYPE_INT32, 3, dims3, iv);
    ck_assert_str_eq(print_to_str(t, 0, buf, sizeof(buf)),
                     "[[[1234567, -2, 3]], [[4, 5, 6]]]\n");
    ln_tensor_free(t);

    t = ln_tensor_create(LN_DTYPE_FLOAT64, 0, NULL, &d);
    ck_assert_str_eq(print_to_str(t, 0, buf, sizeof(buf)), "0.125\n");
    ln_tensor_free(t);

    t = ln_tensor_create(LN_DTYPE_BOOL, 2, dims, b);
    ck_assert_str_eq(print_to_str(t, 0, buf, sizeof(buf)),
                     "[[1, 0], [1, 1]]\n");
    ln_tensor_free(t);

    t = ln_tensor_create(LN_DTYPE_FLOAT16, 1, dims1, h);
    ck_assert_str_eq(print_to_str(t, 0, buf, sizeof(buf)), "[1, -2]\n");
    ln_tensor_free(t);

    t = ln_tensor_create(LN_DTYPE_FLOAT32, 2, dims, NULL);
    ck_assert_str_eq(print_to_str(t, 0, buf, sizeof(buf)), "(no data)\n");
    ln_tensor_free(t);
}
END_TEST

START_TEST(test_table_insert_replace)
{
    ln_hash *table = ln_tensor_table_create();
    int dims[] = { 4 };
    ln_tensor_entry *e1, *e2, *e3;

    e1 = ln_tensor_entry_create("t", ln_tensor_create_alloc(LN_DTYPE_FLOAT32,
                                                            1, dims));
    ln_tensor_entry_set_creater(e1, "conv1");
    ln_tensor_entry_set_owner(e1, "x");
    ck_assert_int_eq(ln_tensor_table_insert(table, e1), 1);
    ck_assert_ptr_eq(ln_tensor_table_find(table, "t"), e1);
    ck_assert_str_eq(e1->creater, "conv1");

    /* the same name again: the old entry, its tensor and data are freed
     * (ASan reports a leak otherwise, or a use after free if the table
     * kept the old entry's name as key) */
    e2 = ln_tensor_entry_create("t", ln_tensor_create_alloc(LN_DTYPE_INT8,
                                                            1, dims));
    ck_assert_int_eq(ln_tensor_table_insert(table, e2), 0);
    ck_assert_ptr_eq(ln_tensor_table_find(table, "t"), e2);
    ck_assert_int_eq(ln_hash_size(table), 1);
    /* re-inserting the same entry is harmless */
    ck_assert_int_eq(ln_tensor_table_insert(table, e2), 0);
    ck_assert_ptr_eq(ln_tensor_table_find(table, "t"), e2);

    e3 = ln_tensor_entry_create("u", ln_tensor_create(LN_DTYPE_FLOAT32, 1,
                                                      dims, NULL));
    ck_assert_int_eq(ln_tensor_table_insert(table, e3), 1);
    ck_assert_int_eq(ln_hash_size(table), 2);
    ck_assert_ptr_null(ln_tensor_table_find(table, "v"));

    ck_assert(ln_tensor_table_remove(table, "t"));
    ck_assert_ptr_null(ln_tensor_table_find(table, "t"));
    ck_assert(!ln_tensor_table_remove(table, "t"));
    ck_assert_ptr_eq(ln_tensor_table_find(table, "u"), e3);
    ln_tensor_table_free(table);
}
END_TEST

START_TEST(test_table_set_data)
{
    ln_hash *table = ln_tensor_table_create();
    int dims[] = { 4 };
    float weights[4] = { 1, 2, 3, 4 };
    char arena[256];
    ln_tensor_entry *a, *b, *w, *v, *u;

    a = ln_tensor_entry_create("a", ln_tensor_create(LN_DTYPE_FLOAT32, 1,
                                                     dims, NULL));
    a->planned = LN_TRUE;
    a->offset = 64;
    b = ln_tensor_entry_create("b", ln_tensor_create(LN_DTYPE_FLOAT32, 1,
                                                     dims, NULL));
    b->planned = LN_TRUE;
    b->offset = 0;
    w = ln_tensor_entry_create("w", ln_tensor_create(LN_DTYPE_FLOAT32, 1,
                                                     dims, weights));
    w->isstatic = LN_TRUE;
    w->planned = LN_TRUE;
    w->offset = 128;            /* ignored: static */
    v = ln_tensor_entry_create("v", ln_tensor_create(LN_DTYPE_FLOAT32, 1,
                                                     dims, NULL));
    v->planned = LN_TRUE;       /* a view 8 bytes into a's memory */
    v->offset = 72;            /* absolute: a view 8 bytes into a */
    ln_tensor_entry_set_owner(v, "a");
    u = ln_tensor_entry_create("u", ln_tensor_create(LN_DTYPE_FLOAT32, 1,
                                                     dims, NULL));
    ln_tensor_table_insert(table, a);
    ln_tensor_table_insert(table, b);
    ln_tensor_table_insert(table, w);
    ln_tensor_table_insert(table, v);
    ln_tensor_table_insert(table, u);
    ln_tensor_table_set_data(table, arena);
    ck_assert_ptr_eq(a->tensor->data, arena + 64);
    ck_assert_ptr_eq(b->tensor->data, arena);
    ck_assert_ptr_eq(w->tensor->data, weights);
    ck_assert_ptr_eq(v->tensor->data, arena + 72);
    ck_assert_ptr_null(u->tensor->data);       /* not planned */
    ck_assert(!a->tensor->owns_data);
    ln_tensor_table_free(table);
}
END_TEST

START_TEST(test_tensor_list)
{
    ln_list *l = NULL, *c;
    ln_tensor_list_entry *e;
    char buf[32];

    l = ln_tensor_list_append(l, "src", "x");
    l = ln_tensor_list_append(l, "weight", "w");
    l = ln_tensor_list_append(l, "src_0", "y");
    ck_assert_int_eq(ln_tensor_list_length(l), 3);
    e = ln_tensor_list_find_by_arg_name(l, "weight");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->name, "w");
    e = ln_tensor_list_find_by_name(l, "y");
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->arg_name, "src_0");
    ck_assert_ptr_null(ln_tensor_list_find_by_name(l, "z"));
    ck_assert_ptr_null(ln_tensor_list_find_by_arg_name(l, "bias"));
    ck_assert_str_eq(ln_tensor_list_find_name(l, "src"), "x");
    ck_assert_ptr_null(ln_tensor_list_find_name(l, "bias"));

    ck_assert_str_eq(ln_tensor_list_unique_arg_name(l, buf, sizeof(buf), "src"),
                     "src_1");
    ck_assert_str_eq(ln_tensor_list_unique_arg_name(l, buf, sizeof(buf), "dst"),
                     "dst_0");
    ck_assert_ptr_null(ln_tensor_list_unique_arg_name(l, buf, 4, "src"));

    c = ln_tensor_list_copy(l);
    ck_assert_int_eq(ln_tensor_list_length(c), 3);
    e = ln_tensor_list_find_by_arg_name(c, "weight");
    ck_assert_ptr_ne(e, ln_tensor_list_find_by_arg_name(l, "weight"));
    e->name[0] = 'q';           /* deep: the original keeps "w" */
    ck_assert_str_eq(ln_tensor_list_find_name(l, "weight"), "w");
    ln_tensor_list_free(c);
    ln_tensor_list_free(l);
    ln_tensor_list_free(NULL);
}
END_TEST

Suite *test_ln_tensor_suite(void); /* run by tests/test_main.c */

Suite *test_ln_tensor_suite(void)
{
    Suite *s = suite_create("ln_tensor");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_dtype);
    tcase_add_test(tc, test_tensor_create);
    tcase_add_test(tc, test_tensor_copy_quant);
    tcase_add_test(tc, test_dims_str);
    tcase_add_test(tc, test_tensor_fprint);
    tcase_add_test(tc, test_table_insert_replace);
    tcase_add_test(tc, test_table_set_data);
    tcase_add_test(tc, test_tensor_list);
    suite_add_tcase(s, tc);
    return s;
}
