/*
 * test_ln_quant_ir.c -- quantization parameters on tensors (issue 13): the
 * QDQ fusion gives every int8 tensor its scale and zero point (weights
 * per output channel, int32 biases at input scale * weight scale); an IR's
 * "quantization" section is printed and read back; its errors name the
 * tensor and the field; ln-aot describes quantized tensors and gives a
 * quantized graph input or output its SCALE and ZERO_POINT macros.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"
#include "ln_serializer.h"
#include "aot/ln_aot.h"

#define ck_assert_has(s, sub) \
    ck_assert_msg(strstr((s), (sub)) != NULL, "'%s' lacks '%s'", (s), (sub))

static ln_tensor *tensor_of(ln_context *ctx, const ln_op *op, const char *arg, int out)
{
    ln_tensor_entry *te = out ? ln_op_tensor_out(op->op_arg, arg) : ln_op_tensor_in(op->op_arg, arg);
    ck_assert_msg(te != NULL, "op '%s' has no %s '%s'", op->op_arg->name, out ? "output" : "input",
                  arg);
    te = ln_tensor_table_find(ctx->tensor_table, te->name);
    ck_assert_ptr_nonnull(te);
    return te->tensor;
}

START_TEST(test_qdq_model_tensors)
{
    ln_context *ctx, *back;
    char *ir;
    int convs = 0, int8s = 0;

    if (!ln_serializer_find("onnx"))
        return;
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init(ctx, "onnx/qdq/qdq_branches.onnx") == 0, "%s",
                  ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        ln_tensor *x, *y, *w, *b;
        if (!ln_streq(op->op_arg->optype, "conv2d_s8_cpu") &&
            !ln_streq(op->op_arg->optype, "fc_s8_cpu"))
            continue;       /* weights [oc][...] and [n][k]: per channel along 0 */
        convs++;
        x = tensor_of(ctx, op, "src", 0);
        y = tensor_of(ctx, op, "dst", 1);
        w = tensor_of(ctx, op, "weight", 0);
        b = ln_op_tensor_in(op->op_arg, "bias") ? tensor_of(ctx, op, "bias", 0) : NULL;
        ck_assert_int_eq(x->quant_count, 1);
        ck_assert_int_eq(y->quant_count, 1);
        /* the op's zero-point params are the tensors' */
        ck_assert_int_eq(x->zero_points[0], (int)ln_op_param(op->op_arg, "src_zero_point")->value_int);
        ck_assert_int_eq(y->zero_points[0], (int)ln_op_param(op->op_arg, "dst_zero_point")->value_int);
        ck_assert_int_eq(w->quant_count, w->dims[0]);
        ck_assert_int_eq(w->quant_axis, 0);
        ck_assert(!b || b->quant_count == w->dims[0]);
        for (int o = 0; o < w->quant_count; o++) {
            ck_assert_int_eq(w->zero_points[o], 0);     /* symmetric weights */
            if (!b)
                continue;
            ck_assert_int_eq(b->zero_points[o], 0);
            ck_assert_msg(fabs(b->scales[o] - x->scales[0] * w->scales[o]) <=
                          1e-6 * b->scales[o], "bias scale %d", o);
        }
    }
    ck_assert_int_eq(convs, 3);     /* two convs and the classifier */
    /* every int8 activation in the arena carries its parameters */
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
            if (!te || te->isstatic || te->tensor->dtype != LN_DTYPE_INT8)
                continue;
            int8s++;
            ck_assert_msg(te->tensor->quant_count == 1, "int8 tensor '%s' has no quantization",
                          te->name);
        }
    }
    ck_assert_int_ge(int8s, 8);
    /* printed and read back: the same parameters on the same tensors */
    ir = ln_context_print_str(ctx);
    ck_assert_has(ir, "\"quantization\"");
    back = ln_context_create();
    ck_assert_msg(ln_context_init_str(back, ir, "printed") == 0, "%s", ln_error_message());
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
            ln_tensor_entry *a = ln_tensor_table_find(ctx->tensor_table, tl->name);
            ln_tensor_entry *c = ln_tensor_table_find(back->tensor_table, tl->name);
            ck_assert_ptr_nonnull(c);
            ck_assert_int_eq(a->tensor->quant_count, c->tensor->quant_count);
            ck_assert_int_eq(a->tensor->quant_axis, c->tensor->quant_axis);
            for (int i = 0; i < a->tensor->quant_count; i++) {
                ck_assert_float_eq(a->tensor->scales[i], c->tensor->scales[i]);
                ck_assert_int_eq(a->tensor->zero_points[i], c->tensor->zero_points[i]);
            }
        }
    }
    ln_free(ir);
    ln_context_free(back);
    ln_context_free(ctx);
}
END_TEST

/* int8 x [1,4] -> identity -> y, with section q (may be empty) */
static char *ir_with(const char *q)
{
    return ln_sprintf(
        "{\"ops\":["
        "{\"name\":\"in\",\"optype\":\"input\",\"tensors_in\":[],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"int8\"},"
        "{\"arg_name\":\"dims\",\"value\":[1,4]}]},"
        "{\"name\":\"w\",\"optype\":\"create\",\"tensors_in\":[],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"w\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"int8\"},"
        "{\"arg_name\":\"dims\",\"value\":[2,3]},"
        "{\"arg_name\":\"data\",\"value\":[1,2,3,4,5,6]}]},"
        "{\"name\":\"f\",\"optype\":\"create\",\"tensors_in\":[],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"f\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},"
        "{\"arg_name\":\"dims\",\"value\":[1]},"
        "{\"arg_name\":\"data\",\"value\":[1]}]},"
        "{\"name\":\"id\",\"optype\":\"identity\","
        "\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":[]},"
        "{\"name\":\"out\",\"optype\":\"output\","
        "\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}],"
        "\"tensors_out\":[],\"params\":[]}]%s%s}",
        *q ? ",\"quantization\":" : "", q);
}

static const char *init_error(const char *q)
{
    ln_context *ctx = ln_context_create();
    char *ir = ir_with(q);
    int ret = ln_context_init_str(ctx, ir, "q.json");
    ln_free(ir);
    ln_context_free(ctx);
    ck_assert_msg(ret != 0, "section %s accepted", q);
    return ln_error_message();
}

START_TEST(test_section)
{
    ln_context *ctx = ln_context_create();
    char *ir = ir_with("{\"x\":{\"scale\":0.5,\"zero_point\":-3},"
                       "\"w\":{\"scale\":[0.25,0.5,1],\"axis\":-1}}");
    ln_tensor_entry *x, *w;

    ck_assert_msg(ln_context_init_str(ctx, ir, "q.json") == 0, "%s", ln_error_message());
    x = ln_tensor_table_find(ctx->tensor_table, "x");
    w = ln_tensor_table_find(ctx->tensor_table, "w");
    ck_assert_int_eq(x->tensor->quant_count, 1);
    ck_assert_float_eq(x->tensor->scales[0], 0.5f);
    ck_assert_int_eq(x->tensor->zero_points[0], -3);
    ck_assert_int_eq(w->tensor->quant_count, 3);
    ck_assert_int_eq(w->tensor->quant_axis, 1);
    ck_assert_float_eq(w->tensor->scales[2], 1.0f);
    ck_assert_int_eq(w->tensor->zero_points[2], 0);
    ln_free(ir);
    ln_context_free(ctx);

    ck_assert_has(init_error("[]"), "q.json: field 'quantization' should be an object");
    ck_assert_has(init_error("{\"z\":{\"scale\":1}}"),
                  "q.json: quantization of tensor 'z': no such tensor");
    ck_assert_has(init_error("{\"f\":{\"scale\":1}}"),
                  "quantization of tensor 'f': a float32 tensor is not quantized");
    ck_assert_has(init_error("{\"x\":{\"zero_point\":1}}"),
                  "quantization of tensor 'x': no field 'scale'");
    ck_assert_has(init_error("{\"x\":{\"scale\":0}}"),
                  "quantization of tensor 'x': scale is 0 (must be positive and finite)");
    ck_assert_has(init_error("{\"x\":{\"scale\":1,\"zero_point\":128}}"),
                  "quantization of tensor 'x': zero point is 128, outside int8");
    ck_assert_has(init_error("{\"x\":{\"scale\":1,\"zero_point\":1.5}}"),
                  "quantization of tensor 'x': zero point 0 is not an int32");
    ck_assert_has(init_error("{\"x\":{\"scale\":\"1\"}}"),
                  "quantization of tensor 'x': field 'scale' should be a number");
    ck_assert_has(init_error("{\"x\":{\"scale\":1,\"step\":1}}"),
                  "quantization of tensor 'x': unknown field 'step'");
    ck_assert_has(init_error("{\"w\":{\"scale\":[1,1,1]}}"),
                  "quantization of tensor 'w': 3 scales need an 'axis'");
    ck_assert_has(init_error("{\"w\":{\"scale\":[1,1,1],\"axis\":0}}"),
                  "quantization of tensor 'w': 3 per-channel scales but dims[0] is 2");
    ck_assert_has(init_error("{\"w\":{\"scale\":[1,1],\"zero_point\":[0],\"axis\":0}}"),
                  "quantization of tensor 'w': 2 scales but 1 zero points");
    ck_assert_has(init_error("{\"w\":{\"scale\":[1,-1],\"axis\":0}}"),
                  "quantization of tensor 'w': scale 1 is -1");
}
END_TEST

/* ln-aot: a quantized graph input and output get SCALE and ZERO_POINT */
START_TEST(test_aot_io_macros)
{
    ln_context *ctx = ln_context_create();
    char *ir = ir_with("{\"x\":{\"scale\":0.125,\"zero_point\":-128},"
                       "\"y\":{\"scale\":0.125,\"zero_point\":-128}}");
    ln_aot_opts opts;
    FILE *c = tmpfile(), *h = tmpfile();
    char buf[65536];
    size_t n;

    ck_assert_msg(ln_context_init_str(ctx, ir, "q.json") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_tensor_table_find(ctx->tensor_table, "y")->tensor->quant_count, 1);
    memset(&opts, 0, sizeof opts);
    opts.name = "qm";
    ck_assert_msg(ln_aot_emit(ctx, &opts, c, h, NULL, NULL) == 0, "%s", ln_error_message());
    rewind(h);
    n = fread(buf, 1, sizeof buf - 1, h);
    buf[n] = '\0';
    ck_assert_has(buf, "#define QM_INPUT0_SCALE 0.125f\n#define QM_INPUT0_ZERO_POINT -128\n");
    ck_assert_has(buf, "#define QM_OUTPUT0_SCALE 0.125f\n#define QM_OUTPUT0_ZERO_POINT -128\n");
    ck_assert_has(buf, "x [1, 4] int8 (scale 0.125, zero point -128)");
    fclose(c);
    fclose(h);
    ln_free(ir);
    ln_context_free(ctx);
}
END_TEST

Suite *test_ln_quant_ir_suite(void);
Suite *test_ln_quant_ir_suite(void)
{
    Suite *s = suite_create("ln_quant_ir");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_qdq_model_tensors);
    tcase_add_test(tc, test_section);
    tcase_add_test(tc, test_aot_io_macros);
    suite_add_tcase(s, tc);
    return s;
}
