/*
 * test_ln_fuse.c -- folds and fusions: a model compiled with them and the
 * same model compiled without (-O0) agree within float tolerance on random
 * inputs, and the fused stream has fewer ops.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"
#include "ln_serializer.h"

static unsigned seed = 1;

static float frand(void)
{
    seed = seed * 1103515245u + 12345u;
    return (float)((seed >> 8) & 0xffff) / 32768.0f - 1.0f;
}

/* "[v0,v1,...]" of n random numbers in [lo, lo + span) */
static char *rand_array(int n, float lo, float span)
{
    size_t cap = (size_t)n * 16 + 8, used = 0;
    char *s = ln_alloc(cap);
    used += (size_t)snprintf(s, cap, "[");
    for (int i = 0; i < n; i++)
        used += (size_t)snprintf(s + used, cap - used, "%s%.6f", i ? "," : "",
                                 lo + span * (frand() + 1.0f) / 2.0f);
    snprintf(s + used, cap - used, "]");
    return s;
}

static char *create(const char *name, const char *dims, int n, float lo, float span)
{
    char *data = rand_array(n, lo, span);
    char *s = ln_sprintf("{\"name\":\"%s\",\"optype\":\"create\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"%s\"}],"
                         "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":%s},"
                         "{\"arg_name\":\"data\",\"value\":%s}]}", name, name, dims, data);
    ln_free(data);
    return s;
}

/* Compile ir with and without optimization, run both on the same random
 * input, compare; returns the op counts. */
static int run_same_bits(ln_context *a, ln_context *b, const float *x, int nx, int ny);

static void compare(const char *ir, const char *in, int in_len, const char *out, int out_len,
                    int *nops_opt, int *nops_ref)
{
    ln_context *a = ln_context_create(), *b = ln_context_create();
    float *x = ln_alloc(sizeof(float) * (size_t)in_len);
    float *ya = ln_alloc(sizeof(float) * (size_t)out_len), *yb = ln_alloc(sizeof(float) * (size_t)out_len);
    float maxref = 0, maxdiff = 0;

    for (int i = 0; i < in_len; i++)
        x[i] = frand();
    ck_assert_msg(ln_context_init_str(a, ir, "fuse.json") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_compile(a, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_init_str(b, ir, "fuse.json"), 0);
    b->no_opt = LN_TRUE;
    ck_assert_msg(ln_context_compile(b, "cpu") == 0, "%s", ln_error_message());
    *nops_opt = ln_list_length(a->ops);
    *nops_ref = ln_list_length(b->ops);
    ck_assert_msg(ln_context_load(a, NULL) == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_load(b, NULL) == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_set_data(a, in, x, sizeof(float) * (size_t)in_len), 0);
    ck_assert_int_eq(ln_context_set_data(b, in, x, sizeof(float) * (size_t)in_len), 0);
    ck_assert_int_eq(ln_context_run(a), 0);
    ck_assert_int_eq(ln_context_run(b), 0);
    ck_assert_int_eq(ln_context_get_data(a, out, ya, sizeof(float) * (size_t)out_len), 0);
    ck_assert_int_eq(ln_context_get_data(b, out, yb, sizeof(float) * (size_t)out_len), 0);
    for (int i = 0; i < out_len; i++) {
        if (fabsf(yb[i]) > maxref)
            maxref = fabsf(yb[i]);
        if (fabsf(ya[i] - yb[i]) > maxdiff)
            maxdiff = fabsf(ya[i] - yb[i]);
    }
    ck_assert_msg(maxref > 0, "reference output is all zeros: the test would prove nothing");
    ck_assert_msg(maxdiff <= 1e-5f * maxref + 1e-6f, "max |diff| %g, max |ref| %g", maxdiff, maxref);
    ln_free(x);
    ln_free(ya);
    ln_free(yb);
    ln_context_free(a);
    ln_context_free(b);
}

/* F.relu6 as PyTorch exports it: Relu then Clip.  conv -> relu -> clip(0.25,
 * 0.75) becomes one conv with the clip; a relu -> clip(0, 6) alone becomes
 * the clip; a clip with a negative min keeps its relu (not the same). */
START_TEST(test_relu_then_clip)
{
    char *w = create("w", "[4,3,3,3]", 108, -1, 2), *bias = create("b", "[4]", 4, -1, 2);
    const char *in =
        "{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,3,5,5]}]}";
    const char *conv =
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]}";
    const char *tail =
        "{\"name\":\"r\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"%s\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"rr\"}]},"
        "{\"name\":\"cl\",\"optype\":\"clip\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"rr\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":[{\"arg_name\":\"min\",\"value\":%s},"
        "{\"arg_name\":\"max\",\"value\":%s}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}";
    char *t1 = ln_sprintf(tail, "c", "0.25", "0.75"), *t2 = ln_sprintf(tail, "x", "0", "6"),
         *t3 = ln_sprintf(tail, "c", "-0.5", "0.75");
    char *ir1 = ln_sprintf("{\"ops\":[%s,%s,%s,%s,%s", in, w, bias, conv, t1);
    char *ir2 = ln_sprintf("{\"ops\":[%s,%s", in, t2);
    char *ir3 = ln_sprintf("{\"ops\":[%s,%s,%s,%s,%s", in, w, bias, conv, t3);
    int nopt, nref;

    compare(ir1, "x", 75, "y", 100, &nopt, &nref);
    ck_assert_int_eq(nref, 7);      /* x, w, b, conv, relu, clip, out */
    ck_assert_int_eq(nopt, 5);      /* x, w, b, conv (clip), out */
    compare(ir2, "x", 75, "y", 75, &nopt, &nref);
    ck_assert_int_eq(nref, 4);
    ck_assert_int_eq(nopt, 3);      /* x, clip, out */
    compare(ir3, "x", 75, "y", 100, &nopt, &nref);
    ck_assert_int_eq(nopt, 6);      /* x, w, b, conv (relu), clip, out */
    ln_free(t1); ln_free(t2); ln_free(t3);
    ln_free(ir1); ln_free(ir2); ln_free(ir3);
    ln_free(w); ln_free(bias);
}
END_TEST

START_TEST(test_pad_conv_bn_relu)
{
    /* x[1,3,7,5] -> pad 1 on H, W -> conv 4x3x3x3 + bias -> batchnorm -> relu */
    char *w = create("w", "[4,3,3,3]", 108, -1, 2), *bias = create("b", "[4]", 4, -1, 2);
    char *sc = create("sc", "[4]", 4, 0.5f, 1), *bb = create("bb", "[4]", 4, -1, 2);
    char *mu = create("mu", "[4]", 4, -0.5f, 1), *var = create("var", "[4]", 4, 0.5f, 1);
    char *ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,3,7,5]}]},"
        "%s,%s,%s,%s,%s,%s,"
        "{\"name\":\"pad\",\"optype\":\"pad\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"p\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[0,0,1,1,0,0,1,1]}]},"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"p\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"stride\",\"value\":[2,1]}]},"
        "{\"name\":\"bn\",\"optype\":\"batchnorm\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"},"
        "{\"arg_name\":\"scale\",\"name\":\"sc\"},{\"arg_name\":\"bias\",\"name\":\"bb\"},{\"arg_name\":\"mean\",\"name\":\"mu\"},"
        "{\"arg_name\":\"var\",\"name\":\"var\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"n\"}]},"
        "{\"name\":\"act\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"n\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        w, bias, sc, bb, mu, var);
    int nopt, nref;
    /* y is [1,4,4,5] */
    compare(ir, "x", 105, "y", 80, &nopt, &nref);
    /* -O0: x, 6 creates, pad, conv, bn, relu, out = 12; fused: x, w', b', conv, out */
    ck_assert_int_eq(nref, 12);
    ck_assert_int_eq(nopt, 5);
    ln_free(ir);
    ln_free(w); ln_free(bias); ln_free(sc); ln_free(bb); ln_free(mu); ln_free(var);
}
END_TEST

/* DenseNet's pre-activation: concat -> batchnorm -> relu, the batchnorm on
 * a concat output (no conv to fold into): one batchnorm_relu_cpu.  A
 * batchnorm whose output is also read elsewhere keeps its relu apart. */
START_TEST(test_bn_relu_fused)
{
    char *sc = create("sc", "[6]", 6, -1, 2), *bb = create("bb", "[6]", 6, -1, 2);
    char *mu = create("mu", "[6]", 6, -0.5f, 1), *var = create("var", "[6]", 6, 0.5f, 1);
    const char *head =
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,3,3,5]}]},"
        "%s,%s,%s,%s,"
        "{\"name\":\"s\",\"optype\":\"sigmoid\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"s\"}]},"
        "{\"name\":\"cat\",\"optype\":\"concat\",\"tensors_in\":[{\"arg_name\":\"src_0\",\"name\":\"x\"},"
        "{\"arg_name\":\"src_1\",\"name\":\"s\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],"
        "\"params\":[{\"arg_name\":\"axis\",\"value\":1}]},"
        "{\"name\":\"bn\",\"optype\":\"batchnorm\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"},"
        "{\"arg_name\":\"scale\",\"name\":\"sc\"},{\"arg_name\":\"bias\",\"name\":\"bb\"},{\"arg_name\":\"mean\",\"name\":\"mu\"},"
        "{\"arg_name\":\"var\",\"name\":\"var\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"n\"}]},"
        "{\"name\":\"act\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"n\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"r\"}]},%s";
    const char *tail1 =
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"r\"}]}]}";
    const char *tail2 = /* n read by the add too */
        "{\"name\":\"sum\",\"optype\":\"add\",\"tensors_in\":[{\"arg_name\":\"src1\",\"name\":\"r\"},"
        "{\"arg_name\":\"src2\",\"name\":\"n\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}";
    char *ir1 = ln_sprintf(head, sc, bb, mu, var, tail1), *ir2 = ln_sprintf(head, sc, bb, mu, var, tail2);
    int nopt, nref, fused = 0;
    ln_context *ctx = ln_context_create();

    compare(ir1, "x", 45, "r", 90, &nopt, &nref);
    ck_assert_int_eq(nref, 10);     /* x, 4 creates, sigmoid, concat, bn, relu, out */
    ck_assert_int_eq(nopt, 9);      /* ... one batchnorm_relu_cpu */
    ck_assert_int_eq(ln_context_init_str(ctx, ir1, "bnrelu.json"), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        fused += ln_streq(op->op_arg->optype, "batchnorm_relu_cpu");
    }
    ck_assert_int_eq(fused, 1);
    ln_context_free(ctx);
    compare(ir2, "x", 45, "y", 90, &nopt, &nref);
    ck_assert_int_eq(nopt, nref);   /* n read twice: nothing fused */
    ln_free(ir1); ln_free(ir2);
    ln_free(sc); ln_free(bb); ln_free(mu); ln_free(var);
}
END_TEST

START_TEST(test_gemm_bn_clip)
{
    /* x[2,6] -> gemm (trans_b, weight [5,6], bias [5]) -> batchnorm -> clip(0, 0.5) */
    char *w = create("w", "[5,6]", 30, -1, 2), *bias = create("b", "[5]", 5, -1, 2);
    char *sc = create("sc", "[5]", 5, 0.5f, 1), *bb = create("bb", "[5]", 5, -1, 2);
    char *mu = create("mu", "[5]", 5, -0.5f, 1), *var = create("var", "[5]", 5, 0.5f, 1);
    char *ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[2,6]}]},"
        "%s,%s,%s,%s,%s,%s,"
        "{\"name\":\"fc\",\"optype\":\"gemm\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"trans_b\",\"value\":1},"
        "{\"arg_name\":\"beta\",\"value\":0.5}]},"
        "{\"name\":\"bn\",\"optype\":\"batchnorm\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"},"
        "{\"arg_name\":\"scale\",\"name\":\"sc\"},{\"arg_name\":\"bias\",\"name\":\"bb\"},{\"arg_name\":\"mean\",\"name\":\"mu\"},"
        "{\"arg_name\":\"var\",\"name\":\"var\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"n\"}]},"
        "{\"name\":\"act\",\"optype\":\"clip\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"n\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":[{\"arg_name\":\"min\",\"value\":0},{\"arg_name\":\"max\",\"value\":0.5}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        w, bias, sc, bb, mu, var);
    int nopt, nref;
    compare(ir, "x", 12, "y", 10, &nopt, &nref);
    ck_assert_int_eq(nref, 11);
    ck_assert_int_eq(nopt, 5);
    ln_free(ir);
    ln_free(w); ln_free(bias); ln_free(sc); ln_free(bb); ln_free(mu); ln_free(var);
}
END_TEST

START_TEST(test_conv_leakyrelu_and_zero_pad)
{
    /* a pad of zeros goes; conv (no bias) + leakyrelu fuse; conv output read twice: no fusion */
    char *w = create("w", "[2,3,1,1]", 6, -1, 2);
    char *ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,3,4,3]}]},"
        "%s,"
        "{\"name\":\"pad\",\"optype\":\"pad\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"p\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[0,0,0,0,0,0,0,0]}]},"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"p\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}]},"
        "{\"name\":\"act\",\"optype\":\"leakyrelu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],\"params\":[{\"arg_name\":\"alpha\",\"value\":0.25}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}", w);
    int nopt, nref;
    compare(ir, "x", 36, "y", 24, &nopt, &nref);
    ck_assert_int_eq(nref, 6);
    ck_assert_int_eq(nopt, 4);      /* x, w, conv+leakyrelu, out */
    ln_free(ir);
    ln_free(w);
}
END_TEST

START_TEST(test_dwconv_pad_bn_clip)
{
    /* depthwise (group 4 = channels, multiplier 2): x[1,4,6,5] -> pad 1 ->
     * conv 8x1x3x3 + bias -> batchnorm -> clip [0, 6]: conv2d_dw_cpu, with
     * the pad, the batchnorm and the clip folded into it */
    char *w = create("w", "[8,1,3,3]", 72, -1, 2), *bias = create("b", "[8]", 8, -1, 2);
    char *sc = create("sc", "[8]", 8, 0.5f, 1), *bb = create("bb", "[8]", 8, -1, 2);
    char *mu = create("mu", "[8]", 8, -0.5f, 1), *var = create("var", "[8]", 8, 0.5f, 1);
    char *ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,4,6,5]}]},"
        "%s,%s,%s,%s,%s,%s,"
        "{\"name\":\"pad\",\"optype\":\"pad\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"p\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[0,0,1,1,0,0,1,1]}]},"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"p\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"group\",\"value\":4}]},"
        "{\"name\":\"bn\",\"optype\":\"batchnorm\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"},"
        "{\"arg_name\":\"scale\",\"name\":\"sc\"},{\"arg_name\":\"bias\",\"name\":\"bb\"},{\"arg_name\":\"mean\",\"name\":\"mu\"},"
        "{\"arg_name\":\"var\",\"name\":\"var\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"n\"}]},"
        "{\"name\":\"act\",\"optype\":\"clip\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"n\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
        "\"params\":[{\"arg_name\":\"min\",\"value\":0},{\"arg_name\":\"max\",\"value\":6}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        w, bias, sc, bb, mu, var);
    int nopt, nref;
    ln_context *ctx = ln_context_create();
    ln_op *conv = NULL;

    /* y is [1,8,6,5] */
    compare(ir, "x", 120, "y", 240, &nopt, &nref);
    ck_assert_int_eq(nref, 12);
    ck_assert_int_eq(nopt, 5);      /* x, w', b', conv (pad, bn, clip folded), out */
    ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
    ck_assert_int_eq(ln_context_compile(ctx, "cpu"), 0);
    LN_LIST_FOREACH(ln_op, op, ctx->ops)
        if (ln_streq(op->op_arg->optype, "conv2d_dw_cpu"))
            conv = op;
    ck_assert_msg(conv != NULL, "the depthwise conv is not a conv2d_dw_cpu");
    ck_assert_str_eq(ln_param_list_find(conv->op_arg->params, "activation")->value_string, "clip");
    ln_context_free(ctx);
    ln_free(ir);
    ln_free(w); ln_free(bias); ln_free(sc); ln_free(bb); ln_free(mu); ln_free(var);
}
END_TEST

START_TEST(test_conv_packed)
{
    /* x[1,8,5,5] -> conv 24x8x3x3 pad 1 + bias -> relu: a small map with
     * 24 output channels (a full block of 16 and a partial one of 8), so
     * the host recipe packs the weights (conv2d_packed_cpu, relu fused)
     * and agrees with -O0; for the Cortex-M4 it stays a conv2d_cpu */
    char *w = create("w", "[24,8,3,3]", 1728, -1, 2), *bias = create("b", "[24]", 24, -1, 2);
    char *ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,8,5,5]}]},"
        "%s,%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]},"
        "{\"name\":\"act\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        w, bias);
    int nopt, nref;
    const char *targets[2] = {"cpu", "cortex-m4"};

    compare(ir, "x", 200, "y", 600, &nopt, &nref);
    ck_assert_int_eq(nopt, 5);      /* x, packed w, b, conv+relu, out */
    for (int t = 0; t < 2; t++) {
        ln_context *ctx = ln_context_create();
        ln_op *packed = NULL, *plain = NULL;
        ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
        ck_assert_int_eq(ln_context_compile(ctx, targets[t]), 0);
        LN_LIST_FOREACH(ln_op, op, ctx->ops) {
            if (ln_streq(op->op_arg->optype, "conv2d_packed_cpu"))
                packed = op;
            if (ln_streq(op->op_arg->optype, "conv2d_cpu"))
                plain = op;
        }
        if (t == 0) {
            ck_assert_msg(packed && !plain, "the host conv is not a conv2d_packed_cpu");
            ck_assert_str_eq(ln_param_list_find(packed->op_arg->params, "activation")->value_string,
                             "relu");
        } else {
            ck_assert_msg(plain && !packed, "the Cortex-M4 conv is not a conv2d_cpu");
        }
        ln_context_free(ctx);
    }
    ln_free(ir);
    ln_free(w); ln_free(bias);
}
END_TEST

/* conv -> add(other) -> relu: the conv whose output the add alone reads
 * becomes conv2d_res_cpu with the other addend as its residual and the relu
 * as its activation (ResNet's block end); not when both convs' outputs have
 * another reader, nor when the other addend broadcasts ([1,4,1,1]). */
static int count_optype(const ln_list *ops, const char *optype)
{
    int n = 0;
    for (const ln_list *l = ops; l; l = l->next)
        n += strcmp(((const ln_op *)l->data)->op_arg->optype, optype) == 0;
    return n;
}

/* A ResNet block end on a small map: conv 3x3 (24 channels) + conv 1x1
 * (the residual branch) -> add -> relu. The 3x3 conv takes the residual
 * and then its weights are packed (conv2d_packed_res_cpu), the 1x1 conv is
 * packed too; results agree with -O0. For the Cortex-M4 neither packs. */
/* x (dims) -> conv 3x3 pads 1 (w, bias) and conv2 (w2, no pads, no
 * bias), their sum, ReLU -> y: a residual block's tail */
static char *conv_add_relu_ir(const char *dims, const char *w, const char *bias, const char *w2)
{
    return ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":%s}]},"
        "%s,%s,%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]},"
        "{\"name\":\"conv2\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w2\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"d\"}]},"
        "{\"name\":\"add\",\"optype\":\"add\",\"tensors_in\":[{\"arg_name\":\"src1\",\"name\":\"c\"},"
        "{\"arg_name\":\"src2\",\"name\":\"d\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"s\"}]},"
        "{\"name\":\"act\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"s\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        dims, w, bias, w2);
}

START_TEST(test_conv_packed_res)
{
    char *w = create("w", "[24,8,3,3]", 1728, -1, 2), *bias = create("b", "[24]", 24, -1, 2);
    char *w2 = create("w2", "[24,8,1,1]", 192, -1, 2);
    char *ir = conv_add_relu_ir("[1,8,5,5]", w, bias, w2);
    int nopt, nref;
    const char *targets[2] = {"cpu", "cortex-m4"};

    compare(ir, "x", 200, "y", 600, &nopt, &nref);
    for (int t = 0; t < 2; t++) {
        ln_context *ctx = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
        ck_assert_msg(ln_context_compile(ctx, targets[t]) == 0, "%s", ln_error_message());
        ck_assert_int_eq(count_optype(ctx->ops, "add_cpu"), 0);
        ck_assert_int_eq(count_optype(ctx->ops, "relu_cpu"), 0);
        ck_assert_int_eq(count_optype(ctx->ops, "conv2d_packed_res_cpu"), t == 0);
        ck_assert_int_eq(count_optype(ctx->ops, "conv2d_packed_cpu"), t == 0);
        ck_assert_int_eq(count_optype(ctx->ops, "conv2d_res_cpu"), t == 1);
        ln_context_free(ctx);
    }
    ln_free(ir);
    ln_free(w); ln_free(bias); ln_free(w2);
}
END_TEST

/* A 3x3 stride-1 conv on rows of 24+ outputs with 16+ channels becomes a
 * Winograd conv (its weight transformed to [4][4][oc][c]) on the host,
 * with the residual add + ReLU fused whichever conv takes it; plain
 * conv2d_res_cpu / conv2d_cpu for the Cortex-M4. Same numbers as the
 * unoptimized graph (up to rounding: compare's 1e-5). */
START_TEST(test_conv_wino)
{
    char *w = create("w", "[16,16,3,3]", 2304, -1, 2), *bias = create("b", "[16]", 16, -1, 2);
    char *w2 = create("w2", "[16,16,1,1]", 256, -1, 2);
    char *ir = conv_add_relu_ir("[1,16,6,26]", w, bias, w2);
    int nopt, nref;
    const char *targets[2] = {"cpu", "cortex-m4"};

    compare(ir, "x", 16 * 6 * 26, "y", 16 * 6 * 26, &nopt, &nref);
    for (int t = 0; t < 2; t++) {
        ln_context *ctx = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
        ck_assert_msg(ln_context_compile(ctx, targets[t]) == 0, "%s", ln_error_message());
        ck_assert_int_eq(count_optype(ctx->ops, "add_cpu"), 0);
        ck_assert_int_eq(count_optype(ctx->ops, "relu_cpu"), 0);
        ck_assert_int_eq(count_optype(ctx->ops, "conv2d_wino_res_cpu") +
                             count_optype(ctx->ops, "conv2d_wino_cpu"),
                         t == 0);
        ck_assert_int_eq(count_optype(ctx->ops, "conv2d_res_cpu") +
                             count_optype(ctx->ops, "conv2d_wino_res_cpu"), 1);
        ln_context_free(ctx);
    }
    ln_free(ir);
    ln_free(w); ln_free(bias); ln_free(w2);
}
END_TEST

/* A conv2d_wino_cpu in an IR read back is checked like any op: each bad
 * one gets one error naming the op and what is wrong. */
START_TEST(test_conv_wino_refused)
{
    static const struct {
        const char *wdims, *params, *msg;
        int wlen;
    } bad[] = {
        {"[3,4,16,16]", "", "is not a Winograd transform [4][4][oc][c]", 3072},
        {"[4,4,16,8]", "", "'weight' dims[3] (8) != 'src' dims[1] (16)", 2048},
        {"[4,4,16,16]", ",{\"arg_name\":\"group\",\"value\":2}", "the Winograd conv is group 1 only", 4096},
        {"[4,4,16,16]", ",{\"arg_name\":\"kernel_shape\",\"value\":[5,5]}", "is not the Winograd conv's 3x3", 4096},
        {"[4,4,16,16]", ",{\"arg_name\":\"stride\",\"value\":[2,2]}", "not a shape of the Winograd conv", 4096},
        {"[4,4,8,16]", "", "not a shape of the Winograd conv", 2048},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *w = create("w", bad[i].wdims, bad[i].wlen, -1, 2);
        char *ir = ln_sprintf(
            "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
            "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,16,6,26]}]},%s,"
            "{\"name\":\"conv\",\"optype\":\"conv2d_wino_cpu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
            "{\"arg_name\":\"weight\",\"name\":\"w\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
            "\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}%s]},"
            "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
            w, bad[i].params);
        ln_context *ctx = ln_context_create();
        int ret = ln_context_init_str(ctx, ir, "wino.json");
        if (ret == 0)
            ret = ln_context_compile(ctx, "cpu");
        ck_assert_msg(ret != 0, "case %zu accepted", i);
        ck_assert_msg(strstr(ln_error_message(), bad[i].msg) && strstr(ln_error_message(), "conv"),
                      "case %zu: %s", i, ln_error_message());
        ln_context_free(ctx);
        ln_free(ir);
        ln_free(w);
    }
}
END_TEST

/* An inverted residual block's front: x [1,8,96,96] -> 1x1 conv 8->24 +
 * bias -> Clip [0, 6] -> depthwise 3x3 s2 + bias -> Relu -> y. On the host
 * the two convs become one conv2d_pwdw_cpu (the activations in it: the
 * expanded tensor, 885 KB, runs in three blocks), for the Cortex-M4 they
 * stay two; not fused either when the expand's output is also a graph
 * output, nor on a map that fits one block (x [1,8,20,20]). Numbers as
 * the unoptimized graph's. */
static char *pwdw_ir(int expand_out, int hw)
{
    char *w = create("w", "[24,8,1,1]", 192, -1, 2), *b = create("b", "[24]", 24, -1, 2);
    char *wd = create("wd", "[24,1,3,3]", 216, -1, 2), *bd = create("bd", "[24]", 24, -1, 2);
    char *ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,8,%d,%d]}]},"
        "%s,%s,%s,%s,"
        "{\"name\":\"expand\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"e\"}]},"
        "{\"name\":\"clip\",\"optype\":\"clip\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"e\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"ec\"}],"
        "\"params\":[{\"arg_name\":\"min\",\"value\":0},{\"arg_name\":\"max\",\"value\":6}]},"
        "{\"name\":\"dw\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"ec\"},"
        "{\"arg_name\":\"weight\",\"name\":\"wd\"},{\"arg_name\":\"bias\",\"name\":\"bd\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"d\"}],\"params\":[{\"arg_name\":\"group\",\"value\":24},"
        "{\"arg_name\":\"stride\",\"value\":[2,2]},{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]},"
        "{\"name\":\"act\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"d\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}%s]}",
        hw, hw, w, b, wd, bd,
        expand_out ? ",{\"name\":\"out2\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"ec\"}]}"
                   : "");
    ln_free(w); ln_free(b); ln_free(wd); ln_free(bd);
    return ir;
}

START_TEST(test_conv_pwdw)
{
    const char *targets[2] = {"cpu", "cortex-m4"};
    int nopt, nref;

    for (int k = 0; k < 3; k++) {
        const int eo = k == 1, hw = k == 2 ? 20 : 96;
        char *ir = pwdw_ir(eo, hw);
        compare(ir, "x", 8 * hw * hw, "y", 24 * (hw / 2) * (hw / 2), &nopt, &nref);
        for (int t = 0; t < 2; t++) {
            ln_context *ctx = ln_context_create();
            const int fused = t == 0 && k == 0;
            ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
            ck_assert_msg(ln_context_compile(ctx, targets[t]) == 0, "%s", ln_error_message());
            ck_assert_int_eq(count_optype(ctx->ops, "conv2d_pwdw_cpu"), fused);
            ck_assert_int_eq(count_optype(ctx->ops, "conv2d_dw_cpu"), !fused);
            ck_assert_int_eq(count_optype(ctx->ops, "conv2d_cpu"), !fused);
            ck_assert_int_eq(count_optype(ctx->ops, "relu_cpu") + count_optype(ctx->ops, "clip_cpu"),
                             0);
            if (fused) {
                LN_LIST_FOREACH(ln_op, op, ctx->ops) {
                    if (!ln_streq(op->op_arg->optype, "conv2d_pwdw_cpu"))
                        continue;
                    ck_assert_str_eq(ln_param_list_find(op->op_arg->params, "pw_activation")->value_string,
                                     "clip");
                    ck_assert_str_eq(ln_param_list_find(op->op_arg->params, "activation")->value_string,
                                     "relu");
                }
            }
            ln_context_free(ctx);
        }
        ln_free(ir);
    }
}
END_TEST

/* x [1,8,20,20] -> conv2d_pwdw_cpu (pw_weight pw, weight w, group, 3x3
 * pads 1, more params) -> y; as compiled for the Cortex-M4 when m4 (an IR
 * with that arch: its ops pre_run for it when read) */
static char *pwdw_op_ir(const char *pwdims, int pwlen, const char *wdims, int wlen, int group,
                        const char *params, int m4)
{
    char *pw = create("pw", pwdims, pwlen, -1, 2), *w = create("w", wdims, wlen, -1, 2);
    char *ir = ln_sprintf(
        "{%s\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,8,20,20]}]},%s,%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d_pwdw_cpu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"pw_weight\",\"name\":\"pw\"},{\"arg_name\":\"weight\",\"name\":\"w\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
        "\"params\":[{\"arg_name\":\"group\",\"value\":%d},{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}%s]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        m4 ? "\"arch\":\"cortex-m4\"," : "", pw, w, group, params);
    ln_free(pw);
    ln_free(w);
    return ir;
}

/* Channels-last edges: x [1,32,10,6] -> 1x1 conv 32->32 + relu ->
 * depthwise 3x3 pads 1 + relu -> 1x1 conv 32->32 -> y. On the host the
 * convs are packed, the two tensors between them stored channels-last
 * (the first conv nhwc 2, the depthwise conv2d_dw_nhwc_cpu, the last nhwc
 * 1), and y is the bits of the same plan without the pass (plan_noreuse,
 * as --save sets it: every tensor NCHW) and the numbers of -O0. Not when
 * the depthwise output is also a graph output (k 1: a depthwise conv is
 * channels-last on both sides or neither, so no edge is), nor with a
 * depthwise conv of 24 channels (k 2: the kernel takes multiples of 16;
 * the first edge then has a reader that is not channels-last). k 3: y
 * is the average over each whole plane of the last conv's output, which
 * the pool reads channels-last (avgpool2d_nhwc_cpu; the last conv nhwc 3).
 * k 4: y = the last conv + x, fused (conv2d_packed_res_cpu), which reads
 * its src channels-last (nhwc 1) and writes NCHW. */
static char *nhwc_ir(int dw_out, int c, int pool, int res)
{
    char dw[32], dd[32], db[32];
    char *w, *wd, *w2, *b, *ir;
    snprintf(dw, sizeof dw, "[%d,%d,1,1]", c, c);
    snprintf(dd, sizeof dd, "[%d,1,3,3]", c);
    snprintf(db, sizeof db, "[%d]", c);
    w = create("w", dw, c * c, -1, 2);
    wd = create("wd", dd, 9 * c, -1, 2);
    w2 = create("w2", dw, c * c, -1, 2);
    b = create("b", db, c, -1, 2);
    ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,%d,10,6]}]},"
        "%s,%s,%s,%s,"
        "{\"name\":\"pw1\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"e\"}],\"params\":[{\"arg_name\":\"activation\",\"value\":\"relu\"}]},"
        "{\"name\":\"dw\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"e\"},"
        "{\"arg_name\":\"weight\",\"name\":\"wd\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"d\"}],\"params\":[{\"arg_name\":\"group\",\"value\":%d},"
        "{\"arg_name\":\"pads\",\"value\":[1,1,1,1]},{\"arg_name\":\"activation\",\"value\":\"relu\"}]},"
        "{\"name\":\"pw2\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"d\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w2\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"%s\"}]},%s"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}%s]}",
        c, w, wd, w2, b, c, pool || res ? "yc" : "y",
        pool ? "{\"name\":\"pool\",\"optype\":\"avgpool2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"yc\"}],"
               "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
               "\"params\":[{\"arg_name\":\"kernel_shape\",\"value\":[10,6]}]},"
        : res ? "{\"name\":\"add\",\"optype\":\"add\",\"tensors_in\":[{\"arg_name\":\"src1\",\"name\":\"yc\"},"
                "{\"arg_name\":\"src2\",\"name\":\"x\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
              : "",
        dw_out ? ",{\"name\":\"out2\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"d\"}]}"
               : "");
    ln_free(w); ln_free(wd); ln_free(w2); ln_free(b);
    return ir;
}

static int nhwc_param(const ln_context *ctx, const char *name)
{
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (ln_streq(op->op_arg->name, name)) {
            ln_param_entry *pe = ln_param_list_find(op->op_arg->params, "nhwc");
            return pe ? (int)pe->value_double : 0;
        }
    }
    return -1;
}

START_TEST(test_conv_nhwc_edges)
{
    for (int k = 0; k < 5; k++) {
        const int c = k == 2 ? 24 : 32, taken = k == 0 || k >= 3;
        const int nx = c * 60, ny = k == 3 ? c : nx;
        char *ir = nhwc_ir(k == 1, c, k == 3, k == 4);
        ln_context *a = ln_context_create(), *b = ln_context_create();
        float *x = ln_alloc(sizeof(float) * (size_t)nx);
        int nopt, nref;

        compare(ir, "x", nx, "y", ny, &nopt, &nref);
        for (int i = 0; i < nx; i++)
            x[i] = frand();
        ck_assert_int_eq(ln_context_init_str(a, ir, "nhwc.json"), 0);
        ck_assert_int_eq(ln_context_init_str(b, ir, "nhwc.json"), 0);
        b->plan_noreuse = LN_TRUE;
        ck_assert_msg(ln_context_compile(a, "cpu") == 0, "%s", ln_error_message());
        ck_assert_msg(ln_context_compile(b, "cpu") == 0, "%s", ln_error_message());
        ck_assert_int_eq(count_optype(a->ops, "conv2d_packed_cpu"), k == 4 ? 1 : 2);
        ck_assert_int_eq(count_optype(a->ops, "conv2d_packed_res_cpu"), k == 4);
        ck_assert_int_eq(count_optype(a->ops, "conv2d_dw_nhwc_cpu"), taken);
        ck_assert_int_eq(count_optype(a->ops, "conv2d_dw_cpu"), !taken);
        ck_assert_int_eq(nhwc_param(a, "pw1"), taken ? 2 : 0);
        ck_assert_int_eq(nhwc_param(a, "pw2"), k == 3 ? 3 : taken ? 1 : 0);
        ck_assert_int_eq(count_optype(a->ops, "avgpool2d_nhwc_cpu"), k == 3);
        ck_assert_int_eq(count_optype(b->ops, "conv2d_dw_nhwc_cpu"), 0);
        ck_assert_int_eq(nhwc_param(b, "pw1"), 0);
        ck_assert_msg(run_same_bits(a, b, x, nx, ny),
                      "case %d: channels-last edges changed the bits", k);
        ln_free(x);
        ln_context_free(a);
        ln_context_free(b);
        ln_free(ir);
    }
}
END_TEST

/* A conv2d_pwdw_cpu in an IR read back is checked like any op: each bad
 * one gets one error naming the op and what is wrong; a good one runs. */
START_TEST(test_conv_pwdw_refused)
{
    static const struct {
        const char *pwdims, *wdims, *params, *target, *msg;
        int pwlen, wlen, group;
    } bad[] = {
        {"[24,4,1,1]", "[24,1,3,3]", "", "cpu", "'pw_weight' is not [m][8][1][1]", 96, 216, 24},
        {"[24,8,3,3]", "[24,1,3,3]", "", "cpu", "'pw_weight' is not [m][8][1][1]", 1728, 216, 24},
        {"[24,8,1,1]", "[24,2,3,3]", "", "cpu", "not a depthwise conv of the 1x1 conv's 24 channels", 192, 432, 24},
        {"[24,8,1,1]", "[12,1,3,3]", ",{\"arg_name\":\"stride\",\"value\":[2,2]}", "cpu",
         "not a depthwise conv of the 1x1 conv's 24 channels", 192, 108, 12},
        {"[24,8,1,1]", "[24,1,3,3]", ",{\"arg_name\":\"pw_activation\",\"value\":\"tanh\"}", "cpu",
         "pw_activation", 192, 216, 24},
        {"[24,8,1,1]", "[24,1,3,3]", "", "cpu", "not a depthwise conv of the 1x1 conv's 24 channels",
         192, 216, 8},
        {"[24,8,1,1]", "[24,1,3,3]", "", "cortex-m4", "made for host targets only", 192, 216, 24},
    };
    char *ir;
    ln_context *ctx;

    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const int m4 = ln_streq(bad[i].target, "cortex-m4");
        int ret;
        ir = pwdw_op_ir(bad[i].pwdims, bad[i].pwlen, bad[i].wdims, bad[i].wlen, bad[i].group,
                        bad[i].params, m4);
        ctx = ln_context_create();
        ret = ln_context_init_str(ctx, ir, "pwdw.json");
        if (ret == 0 && !m4)
            ret = ln_context_compile(ctx, "cpu");
        ck_assert_msg(ret != 0, "case %zu accepted", i);
        ck_assert_msg(strstr(ln_error_message(), bad[i].msg) && strstr(ln_error_message(), "conv"),
                      "case %zu: %s", i, ln_error_message());
        ln_context_free(ctx);
        ln_free(ir);
    }
    /* an IR without "arch" read to be compiled for the Cortex-M4 (lightnet
     * -t cortex-m4, ln-aot -t cortex-m4): its ops pre_run for that target
     * when read, so the host-only op is refused there, not at run time */
    ir = pwdw_op_ir("[24,8,1,1]", 192, "[24,1,3,3]", 216, 24, "", 0);
    {
        ln_serializer_opts m4 = {NULL, "cortex-m4"}, host = {NULL, "cpu"};
        ctx = ln_context_create();
        ck_assert_int_ne(ln_context_init_mem(ctx, ir, strlen(ir), "pwdw.json", "json", &m4), 0);
        ck_assert_msg(strstr(ln_error_message(), "made for host targets only") &&
                      strstr(ln_error_message(), "pwdw.json"), "%s", ln_error_message());
        ln_context_free(ctx);
        ctx = ln_context_create();
        ck_assert_int_eq(ln_context_init_mem(ctx, ir, strlen(ir), "pwdw.json", "json", &host), 0);
        ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
        ln_context_free(ctx);
    }
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, ir, "pwdw.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_load(ctx, NULL), 0);
    ck_assert_int_eq(ln_context_run(ctx), 0);
    ln_context_free(ctx);
    ln_free(ir);
}
END_TEST

START_TEST(test_conv_add_relu)
{
    char *w = create("w", "[4,3,3,3]", 108, -1, 2), *bias = create("b", "[4]", 4, -1, 2);
    char *w2 = create("w2", "[4,3,3,3]", 108, -1, 2), *b2 = create("b2", "[4]", 4, -1, 2);
    char *r = create("r", "[1,4,1,1]", 4, -1, 2);
    const char *head =
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,3,5,5]}]},"
        "%s,%s,%s,%s,%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]},"
        "{\"name\":\"conv2\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w2\"},{\"arg_name\":\"bias\",\"name\":\"b2\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"d\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]},"
        "{\"name\":\"add\",\"optype\":\"add\",\"tensors_in\":[{\"arg_name\":\"src1\",\"name\":\"%s\"},"
        "{\"arg_name\":\"src2\",\"name\":\"%s\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"s\"}]},"
        "{\"name\":\"act\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"s\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}%s]}";
    const char *more =
        ",{\"name\":\"oc\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"}]},"
        "{\"name\":\"od\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"d\"}]}";
    char *ir1 = ln_sprintf(head, w, bias, w2, b2, r, "c", "d", "");
    char *ir2 = ln_sprintf(head, w, bias, w2, b2, r, "c", "d", more);
    char *ir3 = ln_sprintf(head, w, bias, w2, b2, r, "r", "c", "");
    ln_context *ctx = ln_context_create();
    int nopt, nref;

    /* fires: -O0 x, 5 creates, conv, conv2, add, relu, out; fused: x, 4
     * creates (the unused r dropped), conv, conv2 + residual + relu, out */
    compare(ir1, "x", 75, "y", 100, &nopt, &nref);
    ck_assert_int_eq(nref, 11);
    ck_assert_int_eq(nopt, 8);
    ck_assert_msg(ln_context_init_str(ctx, ir1, "fuse.json") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_res_cpu"), 1);
    ck_assert_int_eq(count_optype(ctx->ops, "add_cpu"), 0);
    ck_assert_int_eq(count_optype(ctx->ops, "relu_cpu"), 0);
    ln_context_free(ctx);
    /* both conv outputs read elsewhere too: no fusion */
    compare(ir2, "x", 75, "y", 100, &nopt, &nref);
    ck_assert_int_eq(nopt, nref - 1); /* only the unused r dropped */
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, ir2, "fuse.json") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_res_cpu"), 0);
    ck_assert_int_eq(count_optype(ctx->ops, "add_cpu"), 1);
    ln_context_free(ctx);
    /* r [1,4,1,1] + c [1,4,5,5] broadcasts: no fusion (conv2 unused) */
    compare(ir3, "x", 75, "y", 100, &nopt, &nref);
    ctx = ln_context_create();
    ck_assert_msg(ln_context_init_str(ctx, ir3, "fuse.json") == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_res_cpu"), 0);
    ck_assert_int_eq(count_optype(ctx->ops, "add_cpu"), 1);
    ln_context_free(ctx);
    ln_free(ir1); ln_free(ir2); ln_free(ir3);
    ln_free(w); ln_free(bias); ln_free(w2); ln_free(b2); ln_free(r);
}
END_TEST

/* x[1,8,9,9] -> conv 16x8x3x3 + bias -> ACT1 -> depthwise 3x3 -> ACT2 -> y,
 * where ACT1 maps tensor c to a and ACT2 d to y (JSON ops, sharing
 * create ops w, b, wd) */
static char *act_chain_ir(const char *w, const char *bias, const char *wd,
                          const char *act1, const char *act2)
{
    return ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,8,9,9]}]},"
        "%s,%s,%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]}]},"
        "%s,"
        "{\"name\":\"dw\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"a\"},"
        "{\"arg_name\":\"weight\",\"name\":\"wd\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"d\"}],\"params\":[{\"arg_name\":\"pads\",\"value\":[1,1,1,1]},"
        "{\"arg_name\":\"group\",\"value\":16}]},"
        "%s,"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}",
        w, bias, wd, act1, act2);
}

/* one op NAME of OPTYPE from SRC to DST (PARAMS: "" or ,"params":[...]) */
static char *unary_op(const char *name, const char *optype, const char *src, const char *dst,
                      const char *params)
{
    return ln_sprintf("{\"name\":\"%s\",\"optype\":\"%s\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":"
                      "\"%s\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"%s\"}]%s}",
                      name, optype, src, dst, params);
}

/* GATE(SRC) -> G, then MUL: SRC * G (or G * SRC) -> DST: x * f(x) as exported */
static char *gated(const char *tag, const char *gate, const char *gparams, const char *src,
                   const char *dst, int gate_first)
{
    char *g = ln_sprintf("g_%s", tag), *gop = unary_op(tag, gate, src, g, gparams);
    char *s = ln_sprintf("%s,{\"name\":\"m_%s\",\"optype\":\"mul\",\"tensors_in\":[{\"arg_name\":\"src1\","
                         "\"name\":\"%s\"},{\"arg_name\":\"src2\",\"name\":\"%s\"}],\"tensors_out\":"
                         "[{\"arg_name\":\"dst\",\"name\":\"%s\"}]}",
                         gop, tag, gate_first ? g : src, gate_first ? src : g, dst);
    ln_free(g);
    ln_free(gop);
    return s;
}

/* conv + BN -> x * sigmoid(x) -> depthwise conv -> sigmoid(x) * x (the
 * other operand order), as EfficientNet and YOLO export SiLU: on the host
 * both convs take the SiLU as their activation (no silu_cpu left) and agree
 * with -O0; for the Cortex-M4 the silu_cpu ops stay (its runtime has no
 * fused SiLU), and an IR asking for a conv with activation silu there is
 * refused by name. The same for hardswish (MobileNetV3): x * hardsigmoid(x)
 * and a HardSwish op. */
START_TEST(test_conv_silu)
{
    char *w = create("w", "[16,8,3,3]", 1152, -1, 2), *bias = create("b", "[16]", 16, -1, 2);
    char *wd = create("wd", "[16,1,3,3]", 144, -1, 2);
    char *s1 = gated("sg1", "sigmoid", "", "c", "a", 0), *s2 = gated("sg2", "sigmoid", "", "d", "y", 1);
    char *h1 = gated("hs1", "hardsigmoid", ",\"params\":[{\"arg_name\":\"alpha\",\"value\":0.16666667},"
                     "{\"arg_name\":\"beta\",\"value\":0.5}]", "c", "a", 0);
    char *h2 = unary_op("hs2", "hardswish", "d", "y", "");
    char *irs[2] = {act_chain_ir(w, bias, wd, s1, s2), act_chain_ir(w, bias, wd, h1, h2)};
    const char *fused[2] = {"silu_cpu", "hardswish_cpu"}, *act[2] = {"silu", "hardswish"};
    char *bad = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,8,9,9]}]},"
        "%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
        "\"params\":[{\"arg_name\":\"activation\",\"value\":\"silu\"}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}", w);
    const char *targets[2] = {"cpu", "cortex-m4"};
    int nopt, nref;
    ln_context *ctx;

    for (int k = 0; k < 2; k++) {
        compare(irs[k], "x", 648, "y", 1296, &nopt, &nref);
        ck_assert_int_eq(nopt, 7);   /* x, 3 creates, conv+act, dw+act, out */
        for (int t = 0; t < 2; t++) {
            ctx = ln_context_create();
            ck_assert_int_eq(ln_context_init_str(ctx, irs[k], "fuse.json"), 0);
            ck_assert_msg(ln_context_compile(ctx, targets[t]) == 0, "%s", ln_error_message());
            ck_assert_int_eq(count_optype(ctx->ops, fused[k]), t == 0 ? 0 : 2);
            LN_LIST_FOREACH(ln_op, op, ctx->ops) {
                ln_param_entry *pa = ln_param_list_find(op->op_arg->params, "activation");
                if (strncmp(op->op_arg->optype, "conv2d", 6))
                    continue;
                ck_assert_str_eq(pa ? pa->value_string : "none", t == 0 ? act[k] : "none");
            }
            ln_context_free(ctx);
        }
        ln_free(irs[k]);
    }
    ck_assert_int_eq(nref, 10);      /* x, 3 creates, conv, hardsigmoid, mul, dw, hardswish, out */
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, bad, "fuse.json"), 0);
    ck_assert_int_ne(ln_context_compile(ctx, "cortex-m4"), 0);
    ck_assert_msg(strstr(ln_error_message(), "silu") && strstr(ln_error_message(), "conv"),
                  "%s", ln_error_message());
    ln_context_free(ctx);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, bad, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ln_context_free(ctx);
    ln_free(bad); ln_free(s1); ln_free(s2); ln_free(h1); ln_free(h2);
    ln_free(w); ln_free(bias); ln_free(wd);
}
END_TEST

/* Squeeze-excitation: x [1,8,12,12] -> globalavgpool -> conv 1x1 -> sigmoid
 * -> gate [1,8,1,1]; x * gate -> conv 1x1 (4 outputs): on the host the mul
 * goes into the conv (conv2d_scale_cpu: 4 weights per channel < 144
 * pixels) and agrees with -O0; for the Cortex-M4 the mul stays; with 200
 * outputs (more weights than pixels) it stays on the host too; with the
 * residual add of an MBConv after it, the conv takes both. */
START_TEST(test_conv_channel_scale)
{
    char *wg = create("wg", "[8,8,1,1]", 64, -1, 2), *bg = create("bg", "[8]", 8, -1, 2);
    char *w4 = create("wp", "[4,8,1,1]", 32, -1, 2), *w200 = create("wp", "[200,8,1,1]", 1600, -1, 2);
    const char *head =
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,8,12,12]}]},"
        "%s,%s,%s,"
        "{\"name\":\"gp\",\"optype\":\"globalavgpool\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"p\"}]},"
        "{\"name\":\"fc\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"p\"},"
        "{\"arg_name\":\"weight\",\"name\":\"wg\"},{\"arg_name\":\"bias\",\"name\":\"bg\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"q\"}]},"
        "{\"name\":\"sg\",\"optype\":\"sigmoid\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"q\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"g\"}]},"
        "{\"name\":\"m\",\"optype\":\"mul\",\"tensors_in\":[{\"arg_name\":\"src1\",\"name\":\"x\"},"
        "{\"arg_name\":\"src2\",\"name\":\"g\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"a\"}]},"
        "{\"name\":\"proj\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"a\"},"
        "{\"arg_name\":\"weight\",\"name\":\"wp\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"%s\"}]},"
        "%s{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}]}";
    const char *add = "{\"name\":\"add\",\"optype\":\"add\",\"tensors_in\":[{\"arg_name\":\"src1\",\"name\":\"r\"},"
                      "{\"arg_name\":\"src2\",\"name\":\"x\"}],\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}]},";
    char *w8 = create("wp", "[8,8,1,1]", 64, -1, 2);
    char *ir = ln_sprintf(head, wg, bg, w4, "y", ""), *ir200 = ln_sprintf(head, wg, bg, w200, "y", "");
    char *irres = ln_sprintf(head, wg, bg, w8, "r", add);
    const char *targets[2] = {"cpu", "cortex-m4"};
    int nopt, nref;
    ln_context *ctx;

    compare(ir, "x", 1152, "y", 576, &nopt, &nref);
    ck_assert_int_eq(nopt, nref - 1);
    for (int t = 0; t < 2; t++) {
        ctx = ln_context_create();
        ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
        ck_assert_msg(ln_context_compile(ctx, targets[t]) == 0, "%s", ln_error_message());
        ck_assert_int_eq(count_optype(ctx->ops, "conv2d_scale_cpu"), t == 0);
        ck_assert_int_eq(count_optype(ctx->ops, "mul_cpu"), t == 1);
        ln_context_free(ctx);
    }
    compare(ir200, "x", 1152, "y", 28800, &nopt, &nref);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, ir200, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_scale_cpu"), 0);
    ck_assert_int_eq(count_optype(ctx->ops, "mul_cpu"), 1);
    ln_context_free(ctx);
    /* MBConv with a residual: proj(x * g) + x, one conv2d_scale_cpu with x
     * as its residual too */
    compare(irres, "x", 1152, "y", 1152, &nopt, &nref);
    ck_assert_int_eq(nopt, nref - 2);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, irres, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_scale_cpu"), 1);
    ck_assert_int_eq(count_optype(ctx->ops, "mul_cpu") + count_optype(ctx->ops, "add_cpu"), 0);
    ln_context_free(ctx);
    ln_free(ir); ln_free(ir200); ln_free(irres);
    ln_free(wg); ln_free(bg); ln_free(w4); ln_free(w200); ln_free(w8);
}
END_TEST

/* two compiled contexts loaded and run on the same x [nx]: whether y
 * [ny] is the same bits in both */
static int run_same_bits(ln_context *a, ln_context *b, const float *x, int nx, int ny)
{
    float *ya = ln_alloc(sizeof(float) * (size_t)ny), *yb = ln_alloc(sizeof(float) * (size_t)ny);
    int same;
    ck_assert_msg(ln_context_load(a, NULL) == 0, "%s", ln_error_message());
    ck_assert_msg(ln_context_load(b, NULL) == 0, "%s", ln_error_message());
    ck_assert_int_eq(ln_context_set_data(a, "x", x, sizeof(float) * (size_t)nx), 0);
    ck_assert_int_eq(ln_context_set_data(b, "x", x, sizeof(float) * (size_t)nx), 0);
    ck_assert_int_eq(ln_context_run(a), 0);
    ck_assert_int_eq(ln_context_run(b), 0);
    ck_assert_int_eq(ln_context_get_data(a, "y", ya, sizeof(float) * (size_t)ny), 0);
    ck_assert_int_eq(ln_context_get_data(b, "y", yb, sizeof(float) * (size_t)ny), 0);
    same = !memcmp(ya, yb, sizeof(float) * (size_t)ny);
    ln_free(ya); ln_free(yb);
    return same;
}

/* IR compiled for the host (ctx) and at -O0, run on the same x [nx]: the
 * same bits of y [ny] */
static void same_bits_as_O0(ln_context *ctx, const char *ir, int nx, int ny)
{
    ln_context *r = ln_context_create();
    float *x = ln_alloc(sizeof(float) * (size_t)nx);
    for (int i = 0; i < nx; i++)
        x[i] = frand();
    ck_assert_int_eq(ln_context_init_str(r, ir, "fuse.json"), 0);
    r->no_opt = LN_TRUE;
    ck_assert_msg(ln_context_compile(r, "cpu") == 0, "%s", ln_error_message());
    ck_assert(run_same_bits(ctx, r, x, nx, ny));
    ln_context_free(r);
    ln_free(x);
}

/* The conv -> ReLU -> max pool stem: x [1,3,40,40] -> conv 7x7 s2 pad 3
 * (16 outputs) -> relu -> maxpool 3x3 s2 pad 1 becomes one
 * conv2d_maxpool_cpu on the host, its output the same bits as -O0's and
 * its plan without the conv's 16x20x20 output; the compiled IR read back
 * runs the same. So does the conv at stride 1 (40x40 -> 20x20: a CIFAR or
 * LeNet first conv, the first-conv kernel's shape). Kept apart: for the
 * Cortex-M4; without the ReLU; when the conv's output is read by another
 * op too; ceil_mode resolved into pool_out. */
START_TEST(test_conv_maxpool)
{
    char *w = create("w", "[16,3,7,7]", 16 * 147, -1, 2), *b = create("b", "[16]", 16, -1, 2);
    const char *fmt =
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,3,40,40]}]},"
        "%s,%s,"
        "{\"name\":\"conv\",\"optype\":\"conv2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"x\"},"
        "{\"arg_name\":\"weight\",\"name\":\"w\"},{\"arg_name\":\"bias\",\"name\":\"b\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"c\"}],"
        "\"params\":[{\"arg_name\":\"stride\",\"value\":[2,2]},{\"arg_name\":\"pads\",\"value\":[3,3,3,3]}]},"
        "%s"
        "{\"name\":\"pool\",\"optype\":\"maxpool2d\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"%s\"}],"
        "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"y\"}],"
        "\"params\":[{\"arg_name\":\"kernel_shape\",\"value\":[3,3]},{\"arg_name\":\"stride\",\"value\":[2,2]},"
        "{\"arg_name\":\"pads\",\"value\":[%s]},{\"arg_name\":\"ceil_mode\",\"value\":%d}]},"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}%s]}";
    const char *relu = "{\"name\":\"r\",\"optype\":\"relu\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"c\"}],"
                       "\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"a\"}]},";
    const char *out2 = ",{\"name\":\"out2\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"a\"}]}";
    char *ir = ln_sprintf(fmt, w, b, relu, "a", "1,1,1,1", 0, "");
    char *irc = ln_sprintf(fmt, w, b, relu, "a", "0,0,0,0", 1, "");
    char *irnr = ln_sprintf(fmt, w, b, "", "c", "1,1,1,1", 0, "");
    char *ir2 = ln_sprintf(fmt, w, b, relu, "a", "1,1,1,1", 0, out2);
    char *irs1 = ln_strdup(ir);
    char *sp = strstr(irs1, "\"stride\",\"value\":[2,2]},{\"arg_name\":\"pads\",\"value\":[3,3,3,3]");
    int nopt, nref;
    ln_context *ctx;

    /* the conv at stride 1: 40x40 -> 20x20 */
    ck_assert_ptr_nonnull(sp);
    sp[strlen("\"stride\",\"value\":[")] = '1';
    sp[strlen("\"stride\",\"value\":[2,")] = '1';
    /* 20x20 -> 10x10 (pad 1); ceil mode, no pad: 10x10 too ((20 - 3) / 2
     * rounds up) */
    compare(ir, "x", 4800, "y", 1600, &nopt, &nref);
    ck_assert_int_eq(nopt, nref - 2);   /* relu into the conv, the conv into the pool */
    compare(irc, "x", 4800, "y", 1600, &nopt, &nref);
    ck_assert_int_eq(nopt, nref - 2);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_maxpool_cpu"), 1);
    ck_assert_int_eq(count_optype(ctx->ops, "maxpool2d_cpu"), 0);
    ck_assert_ptr_null(ln_tensor_table_find(ctx->tensor_table, "c"));
    /* bit for bit the unfused pair (-O0 runs them as two ops) */
    same_bits_as_O0(ctx, ir, 4800, 1600);
    ln_context_free(ctx);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, irs1, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_maxpool_cpu"), 1);
    same_bits_as_O0(ctx, irs1, 4800, 6400);
    ln_context_free(ctx);
    /* kept apart: the Cortex-M4, no ReLU, the conv's output read twice */
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, ir, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cortex-m4") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_maxpool_cpu"), 0);
    ck_assert_int_eq(count_optype(ctx->ops, "maxpool2d_cpu"), 1);
    ln_context_free(ctx);
    compare(irnr, "x", 4800, "y", 1600, &nopt, &nref);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, irnr, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_maxpool_cpu"), 0);
    ln_context_free(ctx);
    ctx = ln_context_create();
    ck_assert_int_eq(ln_context_init_str(ctx, ir2, "fuse.json"), 0);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "%s", ln_error_message());
    ck_assert_int_eq(count_optype(ctx->ops, "conv2d_maxpool_cpu"), 0);
    ck_assert_int_eq(count_optype(ctx->ops, "maxpool2d_cpu"), 1);
    ln_context_free(ctx);
    ln_free(ir); ln_free(irc); ln_free(irnr); ln_free(ir2); ln_free(irs1); ln_free(w);
    ln_free(b);
}
END_TEST

/* a binary op NAME of OPTYPE: A op B -> D */
static char *binary_op(const char *name, const char *optype, const char *a, const char *b,
                       const char *d)
{
    return ln_sprintf("{\"name\":\"%s\",\"optype\":\"%s\",\"tensors_in\":[{\"arg_name\":\"src1\","
                      "\"name\":\"%s\"},{\"arg_name\":\"src2\",\"name\":\"%s\"}],\"tensors_out\":"
                      "[{\"arg_name\":\"dst\",\"name\":\"%s\"}]}", name, optype, a, b, d);
}

/* a constant NAME of DIMS holding one value V */
static char *scalar(const char *name, const char *dims, float v)
{
    return ln_sprintf("{\"name\":\"%s\",\"optype\":\"create\",\"tensors_out\":[{\"arg_name\":\"dst\","
                      "\"name\":\"%s\"}],\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},"
                      "{\"arg_name\":\"dims\",\"value\":%s},{\"arg_name\":\"data\",\"value\":[%.9g]}]}",
                      name, name, dims, (double)v);
}

/* GELU's erf form as exporters write it, x [1,4,6,10] -> y; form:
 * 0: Div(x, sqrt2) -> Erf -> Add(e, 1) -> Mul(x, a) -> Mul(m, 0.5) (PyTorch)
 * 1: Mul(1/sqrt2, x) -> Erf -> Add(1, e) -> Mul(a, x) -> Mul(0.5, m)
 * 2: Mul(x, 0.5) -> hx; Div(x, sqrt2) -> Erf -> Add -> Mul(hx, a)
 * 3: form 0 with the Erf's output also a graph output (two readers)
 * 4: form 0 with sqrt2 of dims [1,1,1,1,1] (it broadcasts x to 5-D)
 * 5: form 0 with constants other than GELU's (3, 2, 0.25) */
static char *gelu_ir(int form)
{
    const char *cdims = form == 4 ? "[1,1,1,1,1]" : "[]";
    float c = form == 1 ? 0.70710678f : form == 5 ? 3.0f : 1.41421356f;
    char *k0 = scalar("k_c", cdims, c), *k1 = scalar("k_one", "[1]", form == 5 ? 2.0f : 1.0f);
    char *k2 = scalar("k_half", "[]", form == 5 ? 0.25f : 0.5f);
    char *o1 = form == 1 ? binary_op("scale", "mul", "k_c", "x", "v") : binary_op("scale", "div", "x", "k_c", "v");
    char *o2 = unary_op("erf", "erf", "v", "e", "");
    char *o3 = form == 1 ? binary_op("plus", "add", "k_one", "e", "a") : binary_op("plus", "add", "e", "k_one", "a");
    char *o4, *o5, *ir;
    if (form == 2) {
        o4 = binary_op("half", "mul", "x", "k_half", "hx");
        o5 = binary_op("prod", "mul", "hx", "a", "y");
    } else {
        o4 = form == 1 ? binary_op("prod", "mul", "a", "x", "m") : binary_op("prod", "mul", "x", "a", "m");
        o5 = form == 1 ? binary_op("half", "mul", "k_half", "m", "y") : binary_op("half", "mul", "m", "k_half", "y");
    }
    ir = ln_sprintf(
        "{\"ops\":[{\"name\":\"x\",\"optype\":\"input\",\"tensors_out\":[{\"arg_name\":\"dst\",\"name\":\"x\"}],"
        "\"params\":[{\"arg_name\":\"dtype\",\"value\":\"float32\"},{\"arg_name\":\"dims\",\"value\":[1,4,6,10]}]},"
        "%s,%s,%s,%s,%s,%s,%s,%s,"
        "{\"name\":\"out\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"y\"}]}%s]}",
        k0, k1, k2, o1, o2, o3, o4, o5,
        form == 3 ? ",{\"name\":\"out2\",\"optype\":\"output\",\"tensors_in\":[{\"arg_name\":\"src\",\"name\":\"e\"}]}" : "");
    ln_free(k0); ln_free(k1); ln_free(k2);
    ln_free(o1); ln_free(o2); ln_free(o3); ln_free(o4); ln_free(o5);
    return ir;
}

/* Each form compiled for the host and the Cortex-M4 and run optimized and
 * not, on inputs over [-6, 6] and beyond: the exported forms (0-2, 5)
 * become one gelu_cpu with the same bits as the chain; the others keep
 * their five ops. */
START_TEST(test_gelu)
{
    enum { N = 240 };
    static const int fused[6] = {1, 1, 1, 0, 0, 1};
    const char *targets[2] = {"cpu", "cortex-m4"};
    float x[N], ya[N], yb[N];

    for (int i = 0; i < N; i++)
        x[i] = i == 0 ? 0.0f : i == 1 ? -0.0f : i == 2 ? 1e-30f : i == 3 ? 40.0f : i == 4 ? -40.0f
                                                                                          : 6.0f * frand();
    for (int form = 0; form < 6; form++) {
        char *ir = gelu_ir(form);
        for (int t = 0; t < 2; t++) {
            ln_context *a = ln_context_create(), *b = ln_context_create();
            ck_assert_int_eq(ln_context_init_str(a, ir, "gelu.json"), 0);
            ck_assert_msg(ln_context_compile(a, targets[t]) == 0, "%s", ln_error_message());
            ck_assert_int_eq(ln_context_init_str(b, ir, "gelu.json"), 0);
            b->no_opt = LN_TRUE;
            ck_assert_msg(ln_context_compile(b, targets[t]) == 0, "%s", ln_error_message());
            ck_assert_msg(count_optype(a->ops, "gelu_cpu") == fused[form], "form %d", form);
            ck_assert_int_eq(count_optype(a->ops, "erf_cpu"), 1 - fused[form]);
            ck_assert_int_eq(count_optype(b->ops, "gelu_cpu"), 0);
            ck_assert_msg(ln_context_load(a, NULL) == 0, "%s", ln_error_message());
            ck_assert_msg(ln_context_load(b, NULL) == 0, "%s", ln_error_message());
            ck_assert_int_eq(ln_context_set_data(a, "x", x, sizeof x), 0);
            ck_assert_int_eq(ln_context_set_data(b, "x", x, sizeof x), 0);
            ck_assert_int_eq(ln_context_run(a), 0);
            ck_assert_int_eq(ln_context_run(b), 0);
            if (form != 4) {
                ck_assert_int_eq(ln_context_get_data(a, "y", ya, sizeof ya), 0);
                ck_assert_int_eq(ln_context_get_data(b, "y", yb, sizeof yb), 0);
                ck_assert_msg(memcmp(ya, yb, sizeof ya) == 0, "form %d: fused output differs", form);
                /* and it is GELU (forms 0-2): y(1) = 0.841345 */
                ck_assert(form == 5 || fabsf(ya[5] - 0.5f * x[5] * (1.0f + erff(x[5] / sqrtf(2.0f)))) <
                                           1e-5f * (1.0f + fabsf(x[5])));
            }
            ln_context_free(a);
            ln_context_free(b);
        }
        ln_free(ir);
    }
}
END_TEST

Suite *test_ln_fuse_suite(void);
Suite *test_ln_fuse_suite(void)
{
    Suite *s = suite_create("ln_fuse");
    TCase *tc = tcase_create("fuse");
    tcase_add_test(tc, test_pad_conv_bn_relu);
    tcase_add_test(tc, test_bn_relu_fused);
    tcase_add_test(tc, test_gemm_bn_clip);
    tcase_add_test(tc, test_conv_leakyrelu_and_zero_pad);
    tcase_add_test(tc, test_dwconv_pad_bn_clip);
    tcase_add_test(tc, test_relu_then_clip);
    tcase_add_test(tc, test_conv_packed);
    tcase_add_test(tc, test_conv_add_relu);
    tcase_add_test(tc, test_conv_packed_res);
    tcase_add_test(tc, test_conv_wino);
    tcase_add_test(tc, test_conv_wino_refused);
    tcase_add_test(tc, test_conv_pwdw);
    tcase_add_test(tc, test_conv_nhwc_edges);
    tcase_add_test(tc, test_conv_pwdw_refused);
    tcase_add_test(tc, test_conv_silu);
    tcase_add_test(tc, test_conv_channel_scale);
    tcase_add_test(tc, test_conv_maxpool);
    tcase_add_test(tc, test_gelu);
    suite_add_tcase(s, tc);
    return s;
}
