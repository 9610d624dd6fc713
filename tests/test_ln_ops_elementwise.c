/*
 * test_ln_ops_elementwise.c -- the elementwise ops described in
 * gen/op_descs (unary activations and math, broadcasting binaries, prelu,
 * identity and dropout) end to end: IR string -> pre_run -> compile for cpu
 * -> load -> set_data -> run -> get_data, compared with a double-precision
 * libm reference, on odd sizes (7x5) and broadcasting shapes ([2,3,4] with
 * [3,1] both ways), plus the param and shape checks and their messages.
 *
 * Tolerance: |got - ref| <= 1e-5 * max(1, |ref|) (float kernels against a
 * double reference; the kernels use the float libm functions).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <check.h>
#include "ln_interp.h"

#define TOL 1e-5
#define MAXN 64

/* IR pieces, as in test_ln_context.c */
#define OP(name, type, ins, outs, params) \
    "{\"name\":\"" name "\",\"optype\":\"" type "\",\"tensors_in\":[" ins \
    "],\"tensors_out\":[" outs "],\"params\":[" params "]}"
#define T(arg, name) "{\"arg_name\":\"" arg "\",\"name\":\"" name "\"}"
#define P(arg, value) "{\"arg_name\":\"" arg "\",\"value\":" value "}"
#define INPUT(name, dims) \
    OP(name, "input", "", T("dst", name), P("dtype", "\"float32\"") "," P("dims", dims))
#define OUTPUT(name) OP("out_" name, "output", T("src", name), "", "")

static ln_context *init_ok(const char *ir)
{
    ln_context *ctx = ln_context_create();

    ck_assert_msg(ln_context_init_str(ctx, ir, "test") == 0, "init: %s\n%s",
                  ln_error_message(), ir);
    ck_assert_msg(ln_context_compile(ctx, "cpu") == 0, "compile: %s", ln_error_message());
    ck_assert_msg(ln_context_load(ctx, NULL) == 0, "load: %s", ln_error_message());
    return ctx;
}

static void done(ln_context *ctx)
{
    ln_context_unload(ctx);
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
}

/* init must fail with a message containing want1 and want2. */
static void init_fails(const char *ir, const char *want1, const char *want2)
{
    ln_context *ctx = ln_context_create();

    ck_assert_msg(ln_context_init_str(ctx, ir, "test") != 0, "init accepted:\n%s", ir);
    ck_assert_msg(strstr(ln_error_message(), want1), "message '%s' lacks '%s'",
                  ln_error_message(), want1);
    if (want2)
        ck_assert_msg(strstr(ln_error_message(), want2), "message '%s' lacks '%s'",
                      ln_error_message(), want2);
    ln_context_free(ctx);
}

static void assert_dims(const ln_context *ctx, const char *name, int ndim, const int *dims)
{
    const ln_tensor *t = ln_context_tensor(ctx, name);

    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->ndim, ndim);
    for (int i = 0; i < ndim; i++)
        ck_assert_int_eq(t->dims[i], dims[i]);
}

static void assert_close(const char *what, int i, double got, double ref)
{
    double tol = TOL * (fabs(ref) > 1 ? fabs(ref) : 1);

    if (isnan(ref)) {
        ck_assert_msg(isnan(got), "%s[%d]: got %.9g, want NaN", what, i, got);
        return;
    }
    if (isinf(ref)) {
        ck_assert_msg(got == ref, "%s[%d]: got %.9g, want %.9g", what, i, got, ref);
        return;
    }
    ck_assert_msg(fabs(got - ref) <= tol, "%s[%d]: got %.9g, want %.9g (tol %.3g)",
                  what, i, got, ref, tol);
}

/* 35 inputs for a 7x5 tensor: a sweep over [-4, 4] that hits 0 exactly,
 * plus a few large values for the overflow-safe paths; positive inputs for
 * log, sqrt and reciprocal. */
static void fill_x(float *x, int n, int positive)
{
    for (int i = 0; i < n; i++)
        x[i] = positive ? 0.05f + 0.37f * (float)i : -4.0f + 8.0f * (float)i / 34.0f;
    if (!positive) {
        x[17] = 0.0f;
        x[0] = -30.0f;
        x[n - 1] = 30.0f;
        x[5] = -1e-3f;
    }
}

/* ------------------------------------------------------------------ */
/* unary                                                                */

static const double selu_alpha = 1.67326319217681884765625;
static const double selu_gamma = 1.05070102214813232421875;

typedef struct {
    const char *optype;
    const char *params;   /* JSON params of the op, "" for defaults */
    int positive;         /* needs src > 0 */
    double a, b;          /* the params' values the reference uses */
    double (*ref)(double x, double a, double b);
} unary_case;

static double r_leakyrelu(double x, double a, double b) { (void)b; return x < 0 ? a * x : x; }
/* ONNX: min(max(x, min), max), so max everywhere when min > max */
static double r_clip(double x, double a, double b) { x = x < a ? a : x; return x > b ? b : x; }
static double r_sigmoid(double x, double a, double b) { (void)a; (void)b; return 1 / (1 + exp(-x)); }
static double r_tanh(double x, double a, double b) { (void)a; (void)b; return tanh(x); }
static double r_hardsigmoid(double x, double a, double b)
{
    double v = a * x + b;
    return v < 0 ? 0 : v > 1 ? 1 : v;
}
static double r_hardswish(double x, double a, double b)
{
    (void)a;
    (void)b;
    return x * r_hardsigmoid(x, 1.0 / 6, 0.5);
}
static double r_elu(double x, double a, double b) { (void)b; return x < 0 ? a * expm1(x) : x; }
static double r_selu(double x, double a, double b) { return b * (x <= 0 ? a * expm1(x) : x); }
static double r_softplus(double x, double a, double b) { (void)a; (void)b; return log1p(exp(x)); }
static double r_exp(double x, double a, double b) { (void)a; (void)b; return exp(x); }
static double r_log(double x, double a, double b) { (void)a; (void)b; return log(x); }
static double r_sqrt(double x, double a, double b) { (void)a; (void)b; return sqrt(x); }
static double r_abs(double x, double a, double b) { (void)a; (void)b; return fabs(x); }
static double r_neg(double x, double a, double b) { (void)a; (void)b; return -x; }
static double r_reciprocal(double x, double a, double b) { (void)a; (void)b; return 1 / x; }
static double r_erf(double x, double a, double b) { (void)a; (void)b; return erf(x); }
static double r_ident(double x, double a, double b) { (void)a; (void)b; return x; }

static const unary_case unary_cases[] = {
    {"leakyrelu", "", 0, 0.01, 0, r_leakyrelu},
    {"leakyrelu", P("alpha", "0.3"), 0, 0.3, 0, r_leakyrelu},
    {"leakyrelu", P("alpha", "-0.5"), 0, -0.5, 0, r_leakyrelu},      /* ONNX allows it */
    {"clip", "", 0, -3.4028234663852886e+38, 3.4028234663852886e+38, r_clip},
    {"clip", P("min", "-1.5") "," P("max", "2.25"), 0, -1.5, 2.25, r_clip},
    {"clip", P("min", "0"), 0, 0, 3.4028234663852886e+38, r_clip},
    {"clip", P("min", "1") "," P("max", "1"), 0, 1, 1, r_clip},
    {"clip", P("min", "2") "," P("max", "1"), 0, 2, 1, r_clip},         /* min > max: max */
    {"sigmoid", "", 0, 0, 0, r_sigmoid},
    {"tanh", "", 0, 0, 0, r_tanh},
    {"hardsigmoid", "", 0, 0.2, 0.5, r_hardsigmoid},
    {"hardsigmoid", P("alpha", "0.5") "," P("beta", "0.25"), 0, 0.5, 0.25, r_hardsigmoid},
    {"hardswish", "", 0, 0, 0, r_hardswish},
    {"elu", "", 0, 1, 0, r_elu},
    {"elu", P("alpha", "0.5"), 0, 0.5, 0, r_elu},
    {"elu", P("alpha", "-0.5"), 0, -0.5, 0, r_elu},
    {"selu", "", 0, 1.67326319217681884765625, 1.05070102214813232421875, r_selu},
    {"selu", P("alpha", "2") "," P("gamma", "0.5"), 0, 2, 0.5, r_selu},
    {"softplus", "", 0, 0, 0, r_softplus},
    {"exp", "", 0, 0, 0, r_exp},
    {"log", "", 1, 0, 0, r_log},
    {"sqrt", "", 1, 0, 0, r_sqrt},
    {"abs", "", 0, 0, 0, r_abs},
    {"neg", "", 0, 0, 0, r_neg},
    {"reciprocal", "", 1, 0, 0, r_reciprocal},
    {"erf", "", 0, 0, 0, r_erf},
    {"identity", "", 0, 0, 0, r_ident},
    {"dropout", "", 0, 0, 0, r_ident},
    {"dropout", P("ratio", "0.25"), 0, 0, 0, r_ident},
    {"dropout", P("ratio", "0") "," P("training_mode", "false"), 0, 0, 0, r_ident},
    {"dropout", P("ratio", "0") "," P("training_mode", "true"), 0, 0, 0, r_ident}, /* drops nothing */
};

#define N_UNARY ((int)(sizeof unary_cases / sizeof unary_cases[0]))

/* x [7,5] -> op -> y -> output */
START_TEST(test_unary)
{
    const unary_case *c = &unary_cases[_i];
    static const int dims[] = {7, 5};
    char ir[2048];
    float x[35], y[35];
    ln_context *ctx;

    snprintf(ir, sizeof ir, "{\"ops\":[" INPUT("x", "[7,5]") ","
             OP("u", "%s", T("src", "x"), T("dst", "y"), "%s") "," OUTPUT("y") "]}",
             c->optype, c->params);
    fill_x(x, 35, c->positive);
    ctx = init_ok(ir);
    assert_dims(ctx, "y", 2, dims);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 35; i++)
        assert_close(c->optype, i, y[i], c->ref(x[i], c->a, c->b));
    done(ctx);
}
END_TEST

/* A chain x -> neg -> a -> sigmoid -> b -> identity -> c -> tanh -> d ->
 * dropout -> e -> selu -> y: the planner may run the unary ops in place over
 * their dying inputs and identity/dropout are views; values must still be
 * right. */
START_TEST(test_unary_chain)
{
    static const char *ir = "{\"ops\":[" INPUT("x", "[3,7,5]") ","
        OP("o1", "neg", T("src", "x"), T("dst", "a"), "") ","
        OP("o2", "sigmoid", T("src", "a"), T("dst", "b"), "") ","
        OP("o3", "identity", T("src", "b"), T("dst", "c"), "") ","
        OP("o4", "tanh", T("src", "c"), T("dst", "d"), "") ","
        OP("o5", "dropout", T("src", "d"), T("dst", "e"), P("ratio", "0.1")) ","
        OP("o6", "selu", T("src", "e"), T("dst", "y"), "") ","
        OUTPUT("y") "]}";
    float x[105], y[105];
    ln_context *ctx = init_ok(ir);

    for (int i = 0; i < 105; i++)
        x[i] = -5.0f + 10.0f * (float)i / 104.0f;
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 105; i++) {
        double v = tanh(1 / (1 + exp(x[i])));
        assert_close("chain", i, y[i], r_selu(v, selu_alpha, selu_gamma));
    }
    done(ctx);
}
END_TEST

/* identity of a graph input straight to a graph output, and twice in a row. */
START_TEST(test_identity_io)
{
    static const char *ir = "{\"ops\":[" INPUT("x", "[7,5]") ","
        OP("i1", "identity", T("src", "x"), T("dst", "a"), "") ","
        OP("i2", "identity", T("src", "a"), T("dst", "y"), "") ","
        OUTPUT("y") "]}";
    float x[35], y[35];
    ln_context *ctx = init_ok(ir);

    fill_x(x, 35, 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    ck_assert_mem_eq(x, y, sizeof x);
    done(ctx);
}
END_TEST

/* ------------------------------------------------------------------ */
/* binary                                                               */

typedef struct {
    const char *optype;
    int positive;                   /* src1 > 0 (pow) */
    double (*ref)(double a, double b);
} binary_case;

static double b_sub(double a, double b) { return a - b; }
static double b_mul(double a, double b) { return a * b; }
static double b_div(double a, double b) { return a / b; }
static double b_min(double a, double b) { return a < b ? a : b; }
static double b_max(double a, double b) { return a > b ? a : b; }
static double b_pow(double a, double b) { return pow(a, b); }
static double b_add(double a, double b) { return a + b; }
static double b_prelu(double a, double b) { return a < 0 ? b * a : a; }

static const binary_case binary_cases[] = {
    {"sub", 0, b_sub}, {"mul", 0, b_mul}, {"div", 0, b_div},
    {"min", 0, b_min}, {"max", 0, b_max}, {"pow", 1, b_pow},
    {"add", 0, b_add},
};

#define N_BINARY ((int)(sizeof binary_cases / sizeof binary_cases[0]))

/* Numpy-broadcast index: the offset in a tensor of shape (nd, d)
 * right-aligned to (n, yd) for the dst index i. */
static int bcast_off(int i, int n, const int *yd, int nd, const int *d)
{
    int off = 0, stride = 1;

    for (int k = n - 1; k >= 0; k--) {
        int c = i % yd[k], dk = k - (n - nd);

        i /= yd[k];
        if (dk >= 0) {
            off += (d[dk] == 1 ? 0 : c) * stride;
            stride *= d[dk];
        }
    }
    return off;
}

static int prod(int n, const int *d)
{
    int p = 1;

    for (int i = 0; i < n; i++)
        p *= d[i];
    return p;
}

static void dims_json(char *buf, size_t len, int n, const int *d)
{
    size_t k = (size_t)snprintf(buf, len, "[");

    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, len - k, "%s%d", i ? "," : "", d[i]);
    snprintf(buf + k, len - k, "]");
}

/* a (na, da) op b (nb, db) -> y (ny, dy), arg names n1/n2 */
static void run_binary(const char *optype, const char *n1, const char *n2, int positive,
                       double (*ref)(double, double), int na, const int *da,
                       int nb, const int *db, int ny, const int *dy)
{
    char ir[2048], sa[64], sb[64];
    float a[MAXN], b[MAXN], y[MAXN];
    int la = prod(na, da), lb = prod(nb, db), ly = prod(ny, dy);
    ln_context *ctx;

    dims_json(sa, sizeof sa, na, da);
    dims_json(sb, sizeof sb, nb, db);
    snprintf(ir, sizeof ir, "{\"ops\":[" INPUT("a", "%s") "," INPUT("b", "%s") ","
             OP("op", "%s", T("%s", "a") "," T("%s", "b"), T("dst", "y"), "") ","
             OUTPUT("y") "]}", sa, sb, optype, n1, n2);
    for (int i = 0; i < la; i++)
        a[i] = positive ? 0.1f + 0.11f * (float)i : -3.0f + 0.37f * (float)i;
    for (int i = 0; i < lb; i++)
        b[i] = positive ? -2.0f + 0.53f * (float)i : 0.7f * (float)(i % 5) - 1.3f + 0.01f * (float)i;
    ctx = init_ok(ir);
    assert_dims(ctx, "y", ny, dy);
    ck_assert_int_eq(ln_context_set_data(ctx, "a", a, (size_t)la * sizeof(float)), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "b", b, (size_t)lb * sizeof(float)), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, (size_t)ly * sizeof(float)), 0);
    for (int i = 0; i < ly; i++)
        assert_close(optype, i, y[i], ref(a[bcast_off(i, ny, dy, na, da)],
                                         b[bcast_off(i, ny, dy, nb, db)]));
    done(ctx);
}

START_TEST(test_binary)
{
    const binary_case *c = &binary_cases[_i];
    static const int d75[] = {7, 5}, d234[] = {2, 3, 4}, d31[] = {3, 1};
    static const int d5[] = {5}, d1[] = {1}, d71[] = {7, 1}, d15[] = {1, 5};

    /* same shape, odd size */
    run_binary(c->optype, "src1", "src2", c->positive, c->ref, 2, d75, 2, d75, 2, d75);
    /* [2,3,4] with [3,1], both ways */
    run_binary(c->optype, "src1", "src2", c->positive, c->ref, 3, d234, 2, d31, 3, d234);
    run_binary(c->optype, "src1", "src2", c->positive, c->ref, 2, d31, 3, d234, 3, d234);
    /* row, scalar-like and outer-product broadcasts */
    run_binary(c->optype, "src1", "src2", c->positive, c->ref, 2, d75, 1, d5, 2, d75);
    run_binary(c->optype, "src1", "src2", c->positive, c->ref, 2, d75, 1, d1, 2, d75);
    run_binary(c->optype, "src1", "src2", c->positive, c->ref, 2, d71, 2, d15, 2, d75);
}
END_TEST

/* x [7,5] -> sub(x, c) -> s -> mul(s, x) -> m -> div(m, s2) ...: binaries
 * chained so the planner may run them in place over src1. */
START_TEST(test_binary_chain)
{
    static const char *ir = "{\"ops\":[" INPUT("x", "[7,5]") "," INPUT("r", "[5]") ","
        OP("o1", "sub", T("src1", "x") "," T("src2", "r"), T("dst", "s"), "") ","
        OP("o2", "mul", T("src1", "s") "," T("src2", "x"), T("dst", "m"), "") ","
        OP("o3", "max", T("src1", "m") "," T("src2", "r"), T("dst", "n"), "") ","
        OP("o4", "div", T("src1", "n") "," T("src2", "x"), T("dst", "y"), "") ","
        OUTPUT("y") "]}";
    float x[35], r[5], y[35];
    ln_context *ctx = init_ok(ir);

    for (int i = 0; i < 35; i++)
        x[i] = 0.5f + 0.21f * (float)i;
    for (int i = 0; i < 5; i++)
        r[i] = 1.5f * (float)i - 2.0f;
    ck_assert_int_eq(ln_context_set_data(ctx, "x", x, sizeof x), 0);
    ck_assert_int_eq(ln_context_set_data(ctx, "r", r, sizeof r), 0);
    ck_assert_msg(ln_context_run(ctx) == 0, "run: %s", ln_error_message());
    ck_assert_int_eq(ln_context_get_data(ctx, "y", y, sizeof y), 0);
    for (int i = 0; i < 35; i++) {
        double xi = x[i], ri = r[i % 5];
        assert_close("chain", i, y[i], b_max((xi - ri) * xi, ri) / xi);
    }
    done(ctx);
}
END_TEST

START_TEST(test_prelu)
{
    static const int d75[] = {7, 5}, d234[] = {2, 3, 4}, d31[] = {3, 1};
    static const int d4[] = {4}, d1[] = {1}, d5[] = {5};

    run_binary("prelu", "src", "slope", 0, b_prelu, 3, d234, 2, d31, 3, d234);
    run_binary("prelu", "src", "slope", 0, b_prelu, 3, d234, 1, d4, 3, d234);
    run_binary("prelu", "src", "slope", 0, b_prelu, 3, d234, 3, d234, 3, d234);
    run_binary("prelu", "src", "slope", 0, b_prelu, 2, d75, 1, d1, 2, d75);
    run_binary("prelu", "src", "slope", 0, b_prelu, 2, d75, 1, d5, 2, d75);
}
END_TEST

/* ------------------------------------------------------------------ */
/* checks                                                               */

#define UNARY_IR(type, params) "{\"ops\":[" INPUT("x", "[7,5]") "," \
    OP("u1", type, T("src", "x"), T("dst", "y"), params) "," OUTPUT("y") "]}"
#define BINARY_IR(type, n1, n2, da, db) "{\"ops\":[" INPUT("a", da) "," INPUT("b", db) "," \
    OP("b1", type, T(n1, "a") "," T(n2, "b"), T("dst", "y"), "") "," OUTPUT("y") "]}"

START_TEST(test_param_checks)
{
    init_fails(UNARY_IR("selu", P("gamma", "0")), "u1 (selu)", "gamma");
    init_fails(UNARY_IR("selu", P("alpha", "-1")), "u1 (selu)", "alpha");
    init_fails(UNARY_IR("dropout", P("ratio", "1")), "u1 (dropout)", "ratio");
    init_fails(UNARY_IR("dropout", P("ratio", "-0.1")), "u1 (dropout)", "ratio");
    init_fails(UNARY_IR("dropout", P("training_mode", "true")), "u1 (dropout)", "training_mode");
    /* a param of the wrong type */
    init_fails(UNARY_IR("hardsigmoid", P("alpha", "\"big\"")), "u1 (hardsigmoid)", "alpha");
}
END_TEST

START_TEST(test_tensor_checks)
{
    /* dtype */
    init_fails("{\"ops\":["
               OP("x", "input", "", T("dst", "x"), P("dtype", "\"int32\"") "," P("dims", "[3]")) ","
               OP("u1", "sigmoid", T("src", "x"), T("dst", "y"), "") "]}",
               "u1 (sigmoid)", "src");
    /* missing input, wrong arg name */
    init_fails("{\"ops\":[" INPUT("x", "[3]") ","
               OP("u1", "exp", T("input", "x"), T("dst", "y"), "") "]}", "u1 (exp)", "src");
    /* binary: shapes that do not broadcast */
    init_fails(BINARY_IR("mul", "src1", "src2", "[2,3]", "[4]"), "b1 (mul)", "do not broadcast");
    init_fails(BINARY_IR("pow", "src1", "src2", "[7,5]", "[7,3]"), "b1 (pow)", "do not broadcast");
    init_fails(BINARY_IR("min", "src1", "src2", "[3]", "[2,2]"), "b1 (min)", "do not broadcast");
    /* binary: only two inputs (ONNX Min/Max are variadic; LightNet takes 2) */
    init_fails("{\"ops\":[" INPUT("a", "[3]") "," INPUT("b", "[3]") "," INPUT("c", "[3]") ","
               OP("b1", "max", T("src1", "a") "," T("src2", "b") "," T("src3", "c"),
                  T("dst", "y"), "") "]}", "b1 (max)", NULL);
    /* prelu: slope broadcasts one way only */
    init_fails(BINARY_IR("prelu", "src", "slope", "[2,3,4]", "[3,2]"), "b1 (prelu)", "'slope'");
    init_fails(BINARY_IR("prelu", "src", "slope", "[3,4]", "[2,3,4]"), "b1 (prelu)",
               "more axes than 'src'");
    init_fails(BINARY_IR("prelu", "src", "slope", "[3,1]", "[3,4]"), "b1 (prelu)", "'slope'");
}
END_TEST

Suite *test_ln_ops_elementwise_suite(void);
Suite *test_ln_ops_elementwise_suite(void)
{
    Suite *s = suite_create("ln_ops_elementwise");
    TCase *tc = tcase_create("ops");

    tcase_add_loop_test(tc, test_unary, 0, N_UNARY);
    tcase_add_test(tc, test_unary_chain);
    tcase_add_test(tc, test_identity_io);
    tcase_add_loop_test(tc, test_binary, 0, N_BINARY);
    tcase_add_test(tc, test_binary_chain);
    tcase_add_test(tc, test_prelu);
    tcase_add_test(tc, test_param_checks);
    tcase_add_test(tc, test_tensor_checks);
    suite_add_tcase(s, tc);
    return s;
}
