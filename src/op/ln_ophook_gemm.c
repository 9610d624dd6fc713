/*
 * ln_ophook_gemm.c -- gemm (ONNX Gemm: transA/transB, alpha, beta, a bias
 * that broadcasts onto [M][N]) and matmul (ONNX MatMul: 1-D operands
 * promoted, leading dims broadcast numpy-style).
 */
#include "ln_ophook.h"

/* M, N, K of gemm from src (A) and weight (B) and the trans params. */
static void gemm_mnk(const ln_op_arg *op_arg, int *m, int *n, int *ka, int *kb)
{
    const ln_tensor *a = ln_op_tensor_in(op_arg, "src")->tensor;
    const ln_tensor *b = ln_op_tensor_in(op_arg, "weight")->tensor;
    int ta = ln_ophook_param_int(op_arg, "trans_a", 0);
    int tb = ln_ophook_param_int(op_arg, "trans_b", 0);

    *m = ta ? a->dims[1] : a->dims[0];
    *ka = ta ? a->dims[0] : a->dims[1];
    *kb = tb ? b->dims[1] : b->dims[0];
    *n = tb ? b->dims[0] : b->dims[1];
}

/* The bias as c_rows x c_cols (right-aligned onto [M][N]). */
static void bias_rc(const ln_tensor *c, int *rows, int *cols)
{
    *rows = c->ndim == 2 ? c->dims[0] : 1;
    *cols = c->ndim >= 1 ? c->dims[c->ndim - 1] : 1;
}

int ln_ophook_gemm_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor_entry *cte = ln_op_tensor_in(op_arg, "bias");
    int m, n, ka, kb;

    gemm_mnk(op_arg, &m, &n, &ka, &kb);
    LN_OPCK(ln_opck(op_arg, ka == kb,
                    "inner dims differ: 'src' gives K = %d, 'weight' K = %d "
                    "(trans_a %d, trans_b %d)", ka, kb,
                    ln_ophook_param_int(op_arg, "trans_a", 0),
                    ln_ophook_param_int(op_arg, "trans_b", 0)));
    if (cte) {
        int rows, cols;

        bias_rc(cte->tensor, &rows, &cols);
        LN_OPCK(ln_opck(op_arg, (rows == 1 || rows == m) && (cols == 1 || cols == n),
                        "'bias' (%d x %d) does not broadcast onto [%d, %d]", rows, cols, m, n));
    }
    *ndim = 2;
    dims[0] = m;
    dims[1] = n;
    return 0;
}

void ln_ophook_gemm_args(const ln_op_arg *op_arg, ln_rt_gemm_args *g)
{
    const ln_tensor_entry *cte = ln_op_tensor_in(op_arg, "bias");
    int m, n, ka, kb, rows = 0, cols = 0;

    gemm_mnk(op_arg, &m, &n, &ka, &kb);
    if (cte)
        bias_rc(cte->tensor, &rows, &cols);
    g->m = m;
    g->n = n;
    g->k = ka;
    g->trans_a = ln_ophook_param_int(op_arg, "trans_a", 0);
    g->trans_b = ln_ophook_param_int(op_arg, "trans_b", 0);
    g->alpha = ln_ophook_param_float(op_arg, "alpha", 1.0f);
    g->beta = cte ? ln_ophook_param_float(op_arg, "beta", 1.0f) : 0.0f;
    g->c_rows = rows;
    g->c_cols = cols;
    g->act = ln_ophook_act(op_arg, &g->act_alpha, &g->act_beta);
}

/* MatMul shapes right-aligned to ndim (>= 2) with 1-D operands promoted;
 * the output's ndim drops the promoted axes again. */
static int matmul_shapes(const ln_op_arg *op_arg, ln_rt_matmul_args *a, int *out_ndim)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src1")->tensor;
    const ln_tensor *y = ln_op_tensor_in(op_arg, "src2")->tensor;
    int xd[LN_MAXDIM + 1], yd[LN_MAXDIM + 1], xn = x->ndim, yn = y->ndim, n;

    for (int i = 0; i < xn; i++)
        xd[i] = x->dims[i];
    for (int i = 0; i < yn; i++)
        yd[i] = y->dims[i];
    if (xn == 1) {              /* [K] -> [1, K] */
        xd[1] = xd[0];
        xd[0] = 1;
        xn = 2;
    }
    if (yn == 1) {              /* [K] -> [K, 1] */
        yd[1] = 1;
        yn = 2;
    }
    n = xn > yn ? xn : yn;
    LN_OPCK(ln_opck(op_arg, n <= LN_MAXDIM, "rank %d is more than %d", n, LN_MAXDIM));
    a->ndim = n;
    for (int i = 0; i < n; i++) {
        int ix = i - (n - xn), iy = i - (n - yn);

        a->a_dims[i] = ix >= 0 ? xd[ix] : 1;
        a->b_dims[i] = iy >= 0 ? yd[iy] : 1;
    }
    LN_OPCK(ln_opck(op_arg, a->a_dims[n - 1] == a->b_dims[n - 2],
                    "'src1' K (%d) != 'src2' K (%d)", (int)a->a_dims[n - 1],
                    (int)a->b_dims[n - 2]));
    for (int i = 0; i < n - 2; i++) {
        int32_t da = a->a_dims[i], db = a->b_dims[i];

        LN_OPCK(ln_opck(op_arg, da == db || da == 1 || db == 1,
                        "batch dims do not broadcast (axis %d: %d vs %d)", i, (int)da, (int)db));
        a->y_dims[i] = da == 1 ? db : da;
    }
    a->y_dims[n - 2] = a->a_dims[n - 2];
    a->y_dims[n - 1] = a->b_dims[n - 1];
    *out_ndim = n - (x->ndim == 1) - (y->ndim == 1);
    return 0;
}

int ln_ophook_matmul_dst_shape(const ln_op_arg *op_arg, int *ndim, int *dims)
{
    const ln_tensor *x = ln_op_tensor_in(op_arg, "src1")->tensor;
    const ln_tensor *y = ln_op_tensor_in(op_arg, "src2")->tensor;
    ln_rt_matmul_args a;
    int on, k = 0;

    LN_OPCK(matmul_shapes(op_arg, &a, &on));
    for (int i = 0; i < a.ndim; i++) {
        if (i == a.ndim - 2 && x->ndim == 1)
            continue;
        if (i == a.ndim - 1 && y->ndim == 1)
            continue;
        dims[k++] = a.y_dims[i];
    }
    *ndim = on;
    return 0;
}

void ln_ophook_matmul_args(const ln_op_arg *op_arg, ln_rt_matmul_args *a)
{
    int on;

    matmul_shapes(op_arg, a, &on);
}
