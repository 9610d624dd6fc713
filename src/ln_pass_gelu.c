/*
 * ln_pass_gelu.c -- GELU's erf form as one gelu_cpu op.
 *
 * PyTorch exports nn.GELU (opsets 9-19) as
 *     Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x, .) -> Mul(., 0.5)
 * and TensorFlow's exporters write Mul(x, 1 / sqrt 2) for the Div or
 * Mul(x, 0.5) first: five passes over the tensor (a transformer's MLP
 * activations are its largest) where one does. gelu_cpu takes the chain's
 * own constants and the order of its two products, and rounds each
 * operation as the chain does, so the fused op gives the same bits; no
 * constant is assumed to be sqrt 2 or 0.5. The chain must be exactly that:
 * each intermediate read by the next op alone, the constants single float32
 * values, every tensor of x's shape (a constant that broadcasts x up to more
 * dimensions leaves the chain alone).
 */
#include "ln_pass.h"
#include "ln_pass_impl.h"

/* Is tname a static float32 tensor of one element? Its value to *v. */
static int scalar_const(ln_context *ctx, const char *tname, ln_bool *is, float *v)
{
    ln_tensor_entry *te = tname ? ln_tensor_table_find(ctx->tensor_table, tname) : NULL;
    ln_tensor *t;
    int ret;

    *is = LN_FALSE;
    if (!te || !te->isstatic || te->tensor->dtype != LN_DTYPE_FLOAT32 || te->tensor->len != 1)
        return 0;
    if ((ret = ln_context_static_data(ctx, tname, &t)))
        return ret;
    *v = *(const float *)t->data;
    *is = LN_TRUE;
    return 0;
}

/* A binary op of optype reading `a` and a scalar constant (either operand;
 * for div only as the divisor): its value to *v, the other operand's name
 * to *other when other is wanted (then `a` may be NULL: any operand). */
static int with_scalar(ln_context *ctx, const ln_op *op, const char *optype, const char *a,
                       float *v, const char **other, ln_bool *ok)
{
    const char *s1, *s2;
    ln_bool is;
    int ret;

    *ok = LN_FALSE;
    if (!op || !ln_streq(op->op_arg->optype, optype))
        return 0;
    s1 = ln_pass_tname_in(op, "src1");
    s2 = ln_pass_tname_in(op, "src2");
    if (!s1 || !s2)
        return 0;
    if ((ret = scalar_const(ctx, s2, &is, v)))
        return ret;
    if (is && (!a || ln_streq(s1, a))) {
        if (other)
            *other = s1;
        *ok = LN_TRUE;
        return 0;
    }
    if (ln_streq(optype, "div_cpu"))
        return 0;
    if ((ret = scalar_const(ctx, s1, &is, v)))
        return ret;
    if (is && (!a || ln_streq(s2, a))) {
        if (other)
            *other = s2;
        *ok = LN_TRUE;
    }
    return 0;
}

/* The other operand of a mul_cpu one of whose inputs is `a` (NULL if not) */
static const char *mul_other(const ln_op *op, const char *a)
{
    const char *s1, *s2;
    if (!op || !ln_streq(op->op_arg->optype, "mul_cpu"))
        return NULL;
    s1 = ln_pass_tname_in(op, "src1");
    s2 = ln_pass_tname_in(op, "src2");
    if (!s1 || !s2)
        return NULL;
    return ln_streq(s1, a) ? s2 : ln_streq(s2, a) ? s1 : NULL;
}

static ln_bool same_dims(const ln_context *ctx, const char *a, const char *b)
{
    ln_tensor_entry *ta = ln_tensor_table_find(ctx->tensor_table, a);
    ln_tensor_entry *tb = ln_tensor_table_find(ctx->tensor_table, b);
    if (!ta || !tb || ta->tensor->ndim != tb->tensor->ndim ||
        ta->tensor->dtype != LN_DTYPE_FLOAT32 || tb->tensor->dtype != LN_DTYPE_FLOAT32)
        return LN_FALSE;
    for (int i = 0; i < ta->tensor->ndim; i++)
        if (ta->tensor->dims[i] != tb->tensor->dims[i] || ta->tensor->dims[i] < 0)
            return LN_FALSE;
    return LN_TRUE;
}

static int gelu_one(ln_context *ctx, ln_op *erf, ln_bool *done)
{
    const char *v = ln_pass_tname_in(erf, "src"), *e = ln_pass_tname_out(erf, "dst");
    const char *x = NULL, *s, *a, *m, *y, *h = NULL;
    ln_op *scale = v ? ln_dfg_producer(ctx->dfg, v) : NULL, *add, *m1, *m2 = NULL, *hop = NULL;
    ln_op *chain[5], *gelu;
    const ln_op *proto = ln_arch_op_proto("gelu_cpu");
    float c, one, half;
    int div = 0, half_first = 0, n = 0, ret;
    ln_bool ok;
    ln_list *params = NULL;

    *done = LN_FALSE;
    if (!proto || !scale || !e || ln_pass_sole_reader(ctx, v) != erf)
        return 0;
    /* v = x / c or x * c */
    if ((ret = with_scalar(ctx, scale, "div_cpu", NULL, &c, &x, &ok)))
        return ret;
    div = ok;
    if (!ok && (ret = with_scalar(ctx, scale, "mul_cpu", NULL, &c, &x, &ok)))
        return ret;
    if (!ok || !same_dims(ctx, x, v) || !same_dims(ctx, v, e))
        return 0;
    /* a = e + one */
    add = ln_pass_sole_reader(ctx, e);
    if ((ret = with_scalar(ctx, add, "add_cpu", e, &one, NULL, &ok)))
        return ret;
    if (!ok || !(a = ln_pass_tname_out(add, "dst")) || !same_dims(ctx, a, x))
        return 0;
    m1 = ln_pass_sole_reader(ctx, a);
    if (!(s = mul_other(m1, a)) || !(m = ln_pass_tname_out(m1, "dst")))
        return 0;
    if (ln_streq(s, x)) {
        /* (x * a) * half */
        m2 = ln_pass_sole_reader(ctx, m);
        if ((ret = with_scalar(ctx, m2, "mul_cpu", m, &half, NULL, &ok)))
            return ret;
        if (!ok || !(y = ln_pass_tname_out(m2, "dst")))
            return 0;
    } else {
        /* (x * half) * a */
        hop = ln_dfg_producer(ctx->dfg, s);
        if ((ret = with_scalar(ctx, hop, "mul_cpu", x, &half, NULL, &ok)))
            return ret;
        if (!ok || ln_pass_sole_reader(ctx, s) != m1)
            return 0;
        h = s;
        y = m;
        half_first = 1;
    }
    if (!same_dims(ctx, y, x) || (h && !same_dims(ctx, h, x)))
        return 0;
    chain[n++] = scale;
    chain[n++] = erf;
    chain[n++] = add;
    if (hop)
        chain[n++] = hop;
    chain[n++] = m1;
    if (m2)
        chain[n++] = m2;
    for (int i = 1; i < n; i++)
        if (!ln_op_same_guard(chain[i], chain[0]))
            return 0;
    params = ln_param_list_append_int(params, "div", div);
    params = ln_param_list_append_float(params, "c", c);
    params = ln_param_list_append_float(params, "one", one);
    params = ln_param_list_append_float(params, "half", half);
    params = ln_param_list_append_int(params, "half_first", half_first);
    gelu = ln_op_create_from_proto(proto, chain[n - 1]->op_arg->name,
                                   ln_tensor_list_append(NULL, "src", x),
                                   ln_tensor_list_append(NULL, "dst", y), params,
                                   ctx->tensor_table);
    ln_op_set_guard(gelu, erf->op_arg->guard);
    /* the last op of the chain gives way to the fused one (x is defined
     * before the first), the others go */
    {
        char *names[4];
        int k = 0;
        for (int i = 0; i < n - 1; i++)
            names[k++] = ln_strdup(chain[i]->op_arg->name);
        if ((ret = ln_pass_replace_with(ctx, chain[n - 1], NULL, gelu)))
            return ret;
        for (int i = 0; i < k; i++) {
            if (!ret)
                ret = ln_context_remove_op(ctx, names[i]);
            ln_free(names[i]);
        }
        if (ret)
            return ret;
    }
    *done = LN_TRUE;
    return 0;
}

int ln_pass_fuse_gelu(ln_context *ctx)
{
    return ln_pass_fold_all(ctx, "erf_cpu", gelu_one);
}
