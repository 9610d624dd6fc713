/*
 * test_ln_mem_plan.c -- placement invariants and the lower bound on
 * hand-built lifetimes.
 */
#include <check.h>
#include <math.h>
#include <string.h>
#include "ln_interp.h"
#include "ln_mem_plan.h"

/* No two buffers live at one step may overlap in memory. */
static void assert_no_overlap(const ln_mem_buf *b, int n)
{
    for (int i = 0; i < n; i++) {
        ck_assert_uint_eq(b[i].offset % 16, 0);
        for (int j = i + 1; j < n; j++) {
            int live = b[i].first <= b[j].last && b[j].first <= b[i].last;
            int mem = b[i].offset < b[j].offset + b[j].size &&
                      b[j].offset < b[i].offset + b[i].size;
            ck_assert_msg(!(live && mem), "buffers %d and %d overlap", i, j);
        }
    }
}

START_TEST(test_chain_reaches_lower_bound)
{
    /* a chain: each buffer lives from its producer to the next op */
    ln_mem_buf b[6];
    size_t sizes[6] = {1024, 4096, 2048, 4096, 512, 64};
    for (int i = 0; i < 6; i++) {
        b[i].name = "t";
        b[i].size = sizes[i];
        b[i].first = i;
        b[i].last = i + 1;
    }
    size_t lb = ln_mem_plan_lower_bound(b, 6);
    ck_assert_uint_eq(lb, 4096 + 2048);
    size_t arena = ln_mem_plan_place(b, 6, 16);
    assert_no_overlap(b, 6);
    ck_assert_uint_eq(arena, lb);
}
END_TEST

START_TEST(test_residual_block_reaches_lower_bound)
{
    /* x -> conv a -> conv b -> add(x, b): x lives across the block */
    ln_mem_buf b[4] = {
        {"x", 4096, 0, 3, 0},
        {"a", 4096, 1, 2, 0},
        {"b", 4096, 2, 3, 0},
        {"y", 4096, 3, 4, 0},
    };
    size_t lb = ln_mem_plan_lower_bound(b, 4);
    ck_assert_uint_eq(lb, 3 * 4096);
    ck_assert_uint_eq(ln_mem_plan_place(b, 4, 16), lb);
    assert_no_overlap(b, 4);
}
END_TEST

START_TEST(test_disjoint_share_memory)
{
    ln_mem_buf b[3] = {{"a", 100 * 16, 0, 1, 0}, {"b", 50 * 16, 2, 3, 0}, {"c", 16, 4, 5, 0}};
    ck_assert_uint_eq(ln_mem_plan_place(b, 3, 16), 100 * 16);
    ck_assert_uint_eq(b[0].offset, 0);
    ck_assert_uint_eq(b[1].offset, 0);
    ck_assert_uint_eq(b[2].offset, 0);
}
END_TEST

START_TEST(test_random_lifetimes_never_overlap)
{
    /* a fixed LCG, so the case is the same on every run */
    unsigned s = 12345;
    for (int round = 0; round < 50; round++) {
        ln_mem_buf b[40];
        int n = 5 + round % 35;
        for (int i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            b[i].first = (int)(s >> 16) % 30;
            s = s * 1103515245u + 12345u;
            b[i].last = b[i].first + (int)(s >> 16) % 8;
            s = s * 1103515245u + 12345u;
            b[i].size = 16 * (1 + (s >> 16) % 64);
            b[i].name = "r";
        }
        size_t arena = ln_mem_plan_place(b, n, 16);
        assert_no_overlap(b, n);
        ck_assert_uint_ge(arena, ln_mem_plan_lower_bound(b, n));
    }
}
END_TEST


/*
 * DenseNet's pattern (issue 12): a one-input concat absorbs its input's
 * whole buffer, the op after it may run in place over the concat output
 * (which dies there) -- but the absorbed input lives on in those bytes and a
 * later concat still reads it.  The in-place op must not take the buffer.
 */
#define OP(n, t, ins, outs, params) \
    "{\"name\":\"" n "\",\"optype\":\"" t "\",\"tensors_in\":[" ins "],\"tensors_out\":[" \
    outs "],\"params\":[" params "]}"
#define T(a, n) "{\"arg_name\":\"" a "\",\"name\":\"" n "\"}"
static const char *dense_json =
    "{\"ops\":["
    OP("x", "input", "", T("dst", "x"),
       "{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,2,2,2]}") ","
    OP("p", "relu", T("src", "x"), T("dst", "p"), "") ","
    OP("c1", "concat", T("src_0", "p"), T("dst", "c1"), "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("s", "sigmoid", T("src", "c1"), T("dst", "s"), "") ","
    OP("c2", "concat", T("src_0", "p") "," T("src_1", "s"), T("dst", "c2"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("y", "output", T("src", "c2"), "", "")
    "]}";

START_TEST(test_inplace_over_absorbed_input)
{
    float x[8] = {1, -2, 3, -4, 0.5f, -0.5f, 2, -1}, y[16];
    for (int opt = 0; opt < 2; opt++) {
        ln_context *ctx = ln_context_create();
        ctx->no_opt = opt;
        ck_assert_int_eq(ln_context_init_str(ctx, dense_json, "dense"), 0);
        ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
        ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
        ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
        ck_assert_int_eq(ln_context_run(ctx), 0);
        ck_assert_int_eq(ln_context_get_data(ctx, "c2", y, sizeof y), 0);
        for (int i = 0; i < 8; i++) {
            float p = x[i] > 0 ? x[i] : 0;
            ck_assert_float_eq_tol(y[i], p, 1e-6);
            ck_assert_float_eq_tol(y[8 + i], 1 / (1 + expf(-p)), 1e-6);
        }
        ln_context_unload(ctx);
        ln_context_cleanup(ctx);
        ln_context_free(ctx);
    }
}
END_TEST

/* The invariant check itself fails on a plan that overlaps live tensors. */
START_TEST(test_check_catches_overlap)
{
    ln_context *ctx = ln_context_create();
    ln_tensor_entry *p, *s;
    ck_assert_int_eq(ln_context_init_str(ctx, dense_json, "dense"), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    ck_assert_int_eq(ln_context_plan_check(ctx), 0);
    p = ln_tensor_table_find(ctx->tensor_table, "p");
    s = ln_tensor_table_find(ctx->tensor_table, "s");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(s);
    s->offset = p->offset;          /* sigmoid over p, which c2 still reads */
    ck_assert_int_eq(ln_context_plan_check(ctx), LN_EINTERNAL);
    ck_assert_ptr_nonnull(strstr(ln_error_message(), "over 'p'"));
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
}
END_TEST

/* One tensor (s) in two concats: placed in c's slice, c placed in c2's
 * slice, and s copied again into c2's first slice.  c2's kernel writes
 * over neither (both slices hold their input), so the plan is valid and
 * the invariant check must accept it (it refused it once). */
static const char *nested_concat_json =
    "{\"ops\":["
    OP("x", "input", "", T("dst", "x"),
       "{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,1,2,2]}") ","
    OP("s", "sigmoid", T("src", "x"), T("dst", "s"), "") ","
    OP("c", "concat", T("src_0", "x") "," T("src_1", "s"), T("dst", "c"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("c2", "concat", T("src_0", "s") "," T("src_1", "c"), T("dst", "c2"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("y", "output", T("src", "c2"), "", "")
    "]}";

START_TEST(test_nested_concat_slices)
{
    float x[4] = {1, -2, 0.5f, 3}, y[12];
    ln_context *ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, nested_concat_json, "nested"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "c2", y, sizeof y), 0);
    for (int i = 0; i < 4; i++) {
        float s = 1 / (1 + expf(-x[i]));
        ck_assert_float_eq_tol(y[i], s, 1e-6);
        ck_assert_float_eq_tol(y[4 + i], x[i], 1e-6);
        ck_assert_float_eq_tol(y[8 + i], s, 1e-6);
    }
    ln_context_unload(ctx);
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
}
END_TEST

/* A tensor read twice by each of two concats (difftest seed 1976): the
 * first concat absorbs it and its sibling; the second must not then take
 * the first's whole buffer for its first slice because the buffer's size,
 * rounded up to the alignment, equals the small input's. */
static const char *twice_concat_json =
    "{\"ops\":["
    OP("x", "input", "", T("dst", "x"),
       "{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,1,1,1]}") ","
    OP("a", "relu", T("src", "x"), T("dst", "a"), "") ","
    OP("s", "sigmoid", T("src", "a"), T("dst", "s"), "") ","
    OP("c1", "concat", T("src_0", "s") "," T("src_1", "a") "," T("src_2", "s"), T("dst", "c1"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("c2", "concat", T("src_0", "s") "," T("src_1", "s") "," T("src_2", "a"), T("dst", "c2"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("sum", "add", T("src1", "c2") "," T("src2", "c1"), T("dst", "y"), "") ","
    OP("o", "output", T("src", "y"), "", "")
    "]}";

START_TEST(test_concat_reads_twice)
{
    float x = 0.75f, y[3], sg = 1 / (1 + expf(-0.75f));
    ln_context *ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, twice_concat_json, "twice"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", &x, sizeof x), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    ck_assert_float_eq_tol(y[0], 2 * sg, 1e-6);
    ck_assert_float_eq_tol(y[1], sg + 0.75f, 1e-6);
    ck_assert_float_eq_tol(y[2], 0.75f + sg, 1e-6);
    ln_context_unload(ctx);
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
}
END_TEST

/* DenseNet's dense block: each layer concatenates the block's growing
 * feature list.  c1 absorbs p and f1; c2's first inputs (p, f1) then lie
 * one after another in c1's buffer, so c2 is placed over them and the
 * buffer grows by f2 (concat_extend); c3 the same, by f3.  No concat
 * copies anything, and the values are right. */
static const char *dense_block_json =
    "{\"ops\":["
    OP("x", "input", "", T("dst", "x"),
       "{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,1,2,2]}") ","
    OP("p", "relu", T("src", "x"), T("dst", "p"), "") ","
    OP("f1", "sigmoid", T("src", "p"), T("dst", "f1"), "") ","
    OP("c1", "concat", T("src_0", "p") "," T("src_1", "f1"), T("dst", "c1"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("r1", "relu", T("src", "c1"), T("dst", "r1"), "") ","
    OP("f2", "sigmoid", T("src", "r1"), T("dst", "f2"), "") ","
    OP("c2", "concat", T("src_0", "p") "," T("src_1", "f1") "," T("src_2", "f2"), T("dst", "c2"),
       "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("r2", "relu", T("src", "c2"), T("dst", "r2"), "") ","
    OP("f3", "sigmoid", T("src", "r2"), T("dst", "f3"), "") ","
    OP("c3", "concat", T("src_0", "p") "," T("src_1", "f1") "," T("src_2", "f2") ","
       T("src_3", "f3"), T("dst", "c3"), "{\"arg_name\":\"axis\",\"value\":1}") ","
    OP("y", "neg", T("src", "c3"), T("dst", "y"), "") ","
    OP("o", "output", T("src", "y"), "", "")
    "]}";

static float sgm(float v)
{
    return 1 / (1 + expf(-v));
}

START_TEST(test_dense_block_concats_in_place)
{
    float x[4] = {1, -2, 0.5f, 3}, y[32], ref[32];
    for (int i = 0; i < 4; i++) {
        float p = x[i] > 0 ? x[i] : 0;
        ref[i] = p;                          /* p */
        ref[4 + i] = sgm(p);                 /* f1 */
        ref[8 + i] = sgm(p);                 /* f2 = sigmoid(c1) */
        ref[12 + i] = sgm(sgm(p));
        ref[16 + i] = sgm(p);                /* f3 = sigmoid(c2) */
        ref[20 + i] = sgm(sgm(p));
        ref[24 + i] = sgm(sgm(p));
        ref[28 + i] = sgm(sgm(sgm(p)));
    }
    for (int opt = 0; opt < 2; opt++) {
        ln_context *ctx = ln_context_create();
        const ln_tensor_entry *p, *c2, *c3, *f3;
        ctx->no_opt = opt;
        ck_assert_int_eq(ln_context_init_str(ctx, dense_block_json, "block"), 0);
        ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
        ck_assert_int_eq(ln_context_plan_check(ctx), 0);
        p = ln_tensor_table_find(ctx->tensor_table, "p");
        c2 = ln_tensor_table_find(ctx->tensor_table, "c2");
        c3 = ln_tensor_table_find(ctx->tensor_table, "c3");
        f3 = ln_tensor_table_find(ctx->tensor_table, "f3");
        ck_assert_ptr_nonnull(p);
        ck_assert_ptr_nonnull(c2);
        ck_assert_ptr_nonnull(c3);
        ck_assert_ptr_nonnull(f3);
        ck_assert_uint_eq(c2->offset, p->offset);
        ck_assert_uint_eq(c3->offset, p->offset);
        ck_assert_uint_eq(f3->offset, p->offset + 16 * sizeof(float));
        ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
        ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
        ck_assert_int_eq(ln_context_run(ctx), 0);
        ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
        for (int i = 0; i < 32; i++)
            ck_assert_float_eq_tol(y[i], -ref[i], 1e-6);
        ln_context_unload(ctx);
        ln_context_cleanup(ctx);
        ln_context_free(ctx);
    }
}
END_TEST

START_TEST(test_empty)
{
    ck_assert_uint_eq(ln_mem_plan_place(NULL, 0, 16), 0);
    ck_assert_uint_eq(ln_mem_plan_lower_bound(NULL, 0), 0);
}
END_TEST

Suite *test_ln_mem_plan_suite(void);
Suite *test_ln_mem_plan_suite(void)
{
    Suite *s = suite_create("ln_mem_plan");
    TCase *tc = tcase_create("place");
    tcase_add_test(tc, test_chain_reaches_lower_bound);
    tcase_add_test(tc, test_residual_block_reaches_lower_bound);
    tcase_add_test(tc, test_disjoint_share_memory);
    tcase_add_test(tc, test_random_lifetimes_never_overlap);
    tcase_add_test(tc, test_empty);
    tcase_add_test(tc, test_inplace_over_absorbed_input);
    tcase_add_test(tc, test_check_catches_overlap);
    tcase_add_test(tc, test_nested_concat_slices);
    tcase_add_test(tc, test_concat_reads_twice);
    tcase_add_test(tc, test_dense_block_concats_in_place);
    suite_add_tcase(s, tc);
    return s;
}
