/*
 * ln_op.c -- op creation, op tables and lists, and the ln_opck checks.
 *
 * Checks format their message as "opname (optype): what" so a user sees
 * which op of the model is wrong; they never exit.
 */
#include <limits.h>
#include <stdarg.h>
#include <assert.h>
#include <string.h>
#include <math.h>
#include "ln_op.h"

ln_op *ln_op_create_from_proto(const ln_op *proto, const char *name,
                               ln_list *tensors_in, ln_list *tensors_out,
                               ln_list *params, ln_hash *tensor_table)
{
    ln_op *op = ln_alloc(sizeof *op);
    ln_op_arg *arg = ln_alloc(sizeof *arg);

    *op = *proto;
    if (proto->op_arg)
        *arg = *proto->op_arg;
    arg->name = ln_strdup(name);
    arg->optype = ln_strdup(proto->op_arg ? proto->op_arg->optype : "");
    arg->arch = ln_strdup(proto->op_arg ? proto->op_arg->arch : "none");
    arg->tensors_in = tensors_in;
    arg->tensors_out = tensors_out;
    arg->params = params;
    arg->tensor_table = tensor_table;
    arg->priv = NULL;
    arg->guard = NULL;
    op->op_arg = arg;
    return op;
}

ln_op *ln_op_copy(const ln_op *op)
{
    return ln_op_copy_as(op, op);
}

ln_op *ln_op_copy_as(const ln_op *op, const ln_op *proto)
{
    ln_op *c = ln_op_create_from_proto(proto, op->op_arg->name,
                                       ln_tensor_list_copy(op->op_arg->tensors_in),
                                       ln_tensor_list_copy(op->op_arg->tensors_out),
                                       ln_param_list_copy(op->op_arg->params),
                                       op->op_arg->tensor_table);
    c->op_arg->guard = ln_tensor_list_copy(op->op_arg->guard);
    return c;
}

ln_bool ln_op_guard_within(const ln_list *inner, const ln_list *guard)
{
    for (; guard; guard = guard->next, inner = inner->next) {
        const ln_tensor_list_entry *g = guard->data, *i;
        if (!inner)
            return LN_FALSE;
        i = inner->data;
        if (!ln_streq(g->name, i->name) || !ln_streq(g->arg_name, i->arg_name))
            return LN_FALSE;
    }
    return LN_TRUE;
}

ln_bool ln_op_same_guard(const ln_op *a, const ln_op *b)
{
    return ln_list_length(a->op_arg->guard) == ln_list_length(b->op_arg->guard) &&
           ln_op_guard_within(a->op_arg->guard, b->op_arg->guard);
}

ln_bool ln_op_guard_holds(const ln_op_arg *arg)
{
    LN_LIST_FOREACH(ln_tensor_list_entry, g, arg->guard) {
        ln_tensor_entry *te = ln_tensor_table_find(arg->tensor_table, g->name);
        ln_bool v;
        assert(te && te->tensor->data && te->tensor->dtype == LN_DTYPE_BOOL);
        v = ((const unsigned char *)te->tensor->data)[0] != 0;
        if (v != ln_streq(g->arg_name, "true"))
            return LN_FALSE;
    }
    return LN_TRUE;
}

void ln_op_set_guard(ln_op *op, const ln_list *guard)
{
    ln_tensor_list_free(op->op_arg->guard);
    op->op_arg->guard = ln_tensor_list_copy((ln_list *)guard);
}

void ln_op_free(ln_op *op)
{
    if (!op)
        return;
    ln_free(op->op_arg->name);
    ln_free(op->op_arg->optype);
    ln_free(op->op_arg->arch);
    ln_tensor_list_free(op->op_arg->tensors_in);
    ln_tensor_list_free(op->op_arg->tensors_out);
    ln_param_list_free(op->op_arg->params);
    ln_tensor_list_free(op->op_arg->guard);
    ln_free(op->op_arg);
    ln_free(op);
}

static int check_unique_args(const ln_op *op, ln_list *list, const char *what)
{
    for (ln_list *l = list; l; l = l->next) {
        ln_tensor_list_entry *e = l->data;
        if (!e->arg_name || !e->name)
            return ln_error(LN_EINVAL, "%s (%s): a tensor in %s has no arg_name or name",
                            op->op_arg->name, op->op_arg->optype, what);
        for (ln_list *m = l->next; m; m = m->next) {
            ln_tensor_list_entry *f = m->data;
            if (ln_streq(e->arg_name, f->arg_name))
                return ln_error(LN_EINVAL, "%s (%s): arg_name '%s' appears twice in %s",
                                op->op_arg->name, op->op_arg->optype, e->arg_name, what);
        }
    }
    return 0;
}

int ln_op_check(const ln_op *op)
{
    int ret;

    if (!op->op_arg->name || !*op->op_arg->name)
        return ln_error(LN_EINVAL, "an op of type '%s' has no name", op->op_arg->optype);
    if ((ret = check_unique_args(op, op->op_arg->tensors_in, "tensors_in")))
        return ret;
    if ((ret = check_unique_args(op, op->op_arg->tensors_out, "tensors_out")))
        return ret;
    for (ln_list *l = op->op_arg->params; l; l = l->next) {
        ln_param_entry *p = l->data;
        for (ln_list *m = l->next; m; m = m->next)
            if (ln_streq(p->arg_name, ((ln_param_entry *)m->data)->arg_name))
                return ln_error(LN_EINVAL, "%s (%s): param '%s' appears twice",
                                op->op_arg->name, op->op_arg->optype, p->arg_name);
    }
    return 0;
}

ln_tensor_entry *ln_op_tensor_in(const ln_op_arg *arg, const char *arg_name)
{
    const char *name = ln_tensor_list_find_name(arg->tensors_in, arg_name);
    return name ? ln_tensor_table_find(arg->tensor_table, name) : NULL;
}

ln_tensor_entry *ln_op_tensor_out(const ln_op_arg *arg, const char *arg_name)
{
    const char *name = ln_tensor_list_find_name(arg->tensors_out, arg_name);
    return name ? ln_tensor_table_find(arg->tensor_table, name) : NULL;
}

ln_param_entry *ln_op_param(const ln_op_arg *arg, const char *arg_name)
{
    return ln_param_list_find(arg->params, arg_name);
}

/* op table: keys are the ops' own names (not owned), values not owned */
ln_hash *ln_op_table_create(void)
{
    return ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
}

int ln_op_table_insert(ln_hash *table, ln_op *op)
{
    return ln_hash_insert(table, op->op_arg->name, op);
}

ln_op *ln_op_table_find(const ln_hash *table, const char *name)
{
    return ln_hash_find(table, name);
}

void ln_op_table_free(ln_hash *table)
{
    ln_hash_free(table);
}

ln_list *ln_op_list_create_from_array(ln_op **ops)
{
    ln_list *list = NULL;
    for (int i = 0; ops && ops[i]; i++)
        list = ln_list_prepend(list, ops[i]);
    return ln_list_reverse(list);
}

void ln_op_list_free(ln_list *ops)
{
    ln_list_free(ops);
}

static void op_free_void(void *p)
{
    ln_op_free(p);
}

void ln_op_list_free_deep(ln_list *ops)
{
    ln_list_free_deep(ops, op_free_void);
}

ln_op *ln_op_list_find_by_name(ln_list *ops, const char *name)
{
    LN_LIST_FOREACH(ln_op, op, ops) {
        if (ln_streq(op->op_arg->name, name))
            return op;
    }
    return NULL;
}

ln_op *ln_op_list_find_by_optype(ln_list *ops, const char *optype)
{
    LN_LIST_FOREACH(ln_op, op, ops) {
        if (ln_streq(op->op_arg->optype, optype))
            return op;
    }
    return NULL;
}

ln_list *ln_op_list_copy(ln_list *ops)
{
    ln_list *copy = NULL;
    LN_LIST_FOREACH(ln_op, op, ops) {
        copy = ln_list_prepend(copy, ln_op_copy(op));
    }
    return ln_list_reverse(copy);
}

char *ln_op_list_unique_name(ln_list *ops, char *buf, size_t n, const char *prefix)
{
    for (int i = 1;; i++) {
        snprintf(buf, n, "%s%d", prefix, i);
        if (!ln_op_list_find_by_name(ops, buf))
            return buf;
    }
}

/* ---- checks ---------------------------------------------------------- */

const char *ln_cmp_op_str(ln_cmp_op op)
{
    static const char *const s[] = {"==", "!=", ">", ">=", "<", "<="};
    return (unsigned)op < 6 ? s[op] : "?";
}

ln_bool ln_cmp_double(double a, ln_cmp_op op, double b)
{
    switch (op) {
    case LN_CMP_EQ: return a == b;
    case LN_CMP_NE: return a != b;
    case LN_CMP_GT: return a > b;
    case LN_CMP_GE: return a >= b;
    case LN_CMP_LT: return a < b;
    case LN_CMP_LE: return a <= b;
    }
    return LN_FALSE;
}

static int opck_fail(const ln_op_arg *arg, const char *fmt, va_list ap)
{
    char msg[768];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return ln_error(LN_EOP, "%s (%s): %s", arg->name, arg->optype, msg);
}

int ln_opck(const ln_op_arg *arg, ln_bool cond, const char *fmt, ...)
{
    va_list ap;
    int ret;

    if (cond)
        return 0;
    va_start(ap, fmt);
    ret = opck_fail(arg, fmt, ap);
    va_end(ap);
    return ret;
}

int ln_opck_tensors_in_len(const ln_op_arg *arg, ln_cmp_op op, int n)
{
    int len = ln_tensor_list_length(arg->tensors_in);
    return ln_opck(arg, ln_cmp_double(len, op, n),
                   "number of tensors_in should be %s %d, got %d",
                   ln_cmp_op_str(op), n, len);
}

int ln_opck_tensors_out_len(const ln_op_arg *arg, ln_cmp_op op, int n)
{
    int len = ln_tensor_list_length(arg->tensors_out);
    return ln_opck(arg, ln_cmp_double(len, op, n),
                   "number of tensors_out should be %s %d, got %d",
                   ln_cmp_op_str(op), n, len);
}

int ln_opck_tensor_in_exist(const ln_op_arg *arg, const char *arg_name,
                            ln_tensor_entry **te)
{
    const char *name = ln_tensor_list_find_name(arg->tensors_in, arg_name);
    ln_tensor_entry *e;
    int ret;

    if ((ret = ln_opck(arg, name != NULL, "missing input tensor '%s'", arg_name)))
        return ret;
    e = ln_tensor_table_find(arg->tensor_table, name);
    if ((ret = ln_opck(arg, e != NULL,
                       "input '%s' is tensor '%s', which is not defined by any earlier op",
                       arg_name, name)))
        return ret;
    if (te)
        *te = e;
    return 0;
}

int ln_opck_tensor_out_new(const ln_op_arg *arg, const char *arg_name,
                           const char **name)
{
    const char *n = ln_tensor_list_find_name(arg->tensors_out, arg_name);
    ln_tensor_entry *e;
    int ret;

    if ((ret = ln_opck(arg, n != NULL, "missing output tensor '%s'", arg_name)))
        return ret;
    e = ln_tensor_table_find(arg->tensor_table, n);
    if ((ret = ln_opck(arg, e == NULL,
                       "output '%s' is tensor '%s', which is already defined%s%s",
                       arg_name, n, e && e->creater ? " by " : "",
                       e && e->creater ? e->creater : "")))
        return ret;
    if (name)
        *name = n;
    return 0;
}

int ln_opck_tensor_ndim(const ln_op_arg *arg, const char *arg_name,
                        const ln_tensor_entry *te, ln_cmp_op op, int ndim)
{
    return ln_opck(arg, ln_cmp_double(te->tensor->ndim, op, ndim),
                   "'%s' (%s) should have ndim %s %d, got %d", arg_name, te->name,
                   ln_cmp_op_str(op), ndim, te->tensor->ndim);
}

int ln_opck_tensor_dtype(const ln_op_arg *arg, const char *arg_name,
                         const ln_tensor_entry *te, ln_dtype dtype)
{
    return ln_opck(arg, te->tensor->dtype == dtype,
                   "'%s' (%s) should be %s, got %s", arg_name, te->name,
                   ln_dtype_name(dtype), ln_dtype_name(te->tensor->dtype));
}

int ln_opck_tensor_dtype_in(const ln_op_arg *arg, const char *arg_name,
                            const ln_tensor_entry *te, unsigned mask)
{
    char buf[256] = "";
    size_t used = 0;

    if (te->tensor->dtype >= 0 && (mask & (1u << te->tensor->dtype)))
        return 0;
    for (int d = 0; d < LN_DTYPE_SIZE; d++)
        if (mask & (1u << d))
            used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
                                     used ? ", " : "", ln_dtype_name((ln_dtype)d));
    return ln_opck(arg, LN_FALSE, "'%s' (%s) should be one of %s, got %s", arg_name,
                   te->name, buf, ln_dtype_name(te->tensor->dtype));
}

int ln_opck_tensor_same_shape(const ln_op_arg *arg, const char *arg1,
                              const ln_tensor_entry *te1, const char *arg2,
                              const ln_tensor_entry *te2)
{
    char b1[128], b2[128];
    if (ln_tensor_same_shape(te1->tensor, te2->tensor))
        return 0;
    return ln_opck(arg, LN_FALSE, "'%s' shape %s and '%s' shape %s should be equal",
                   arg1, ln_dims_str(b1, sizeof b1, te1->tensor->ndim, te1->tensor->dims),
                   arg2, ln_dims_str(b2, sizeof b2, te2->tensor->ndim, te2->tensor->dims));
}

int ln_opck_tensor_same_dtype(const ln_op_arg *arg, const char *arg1,
                              const ln_tensor_entry *te1, const char *arg2,
                              const ln_tensor_entry *te2)
{
    return ln_opck(arg, te1->tensor->dtype == te2->tensor->dtype,
                   "'%s' dtype %s and '%s' dtype %s should be equal",
                   arg1, ln_dtype_name(te1->tensor->dtype),
                   arg2, ln_dtype_name(te2->tensor->dtype));
}

int ln_opck_tensor_isstatic(const ln_op_arg *arg, const char *arg_name,
                            const ln_tensor_entry *te)
{
    return ln_opck(arg, te->isstatic,
                   "'%s' (%s) should be a constant (static) tensor", arg_name, te->name);
}

int ln_opck_tensor_len(const ln_op_arg *arg, const char *arg_name,
                       const ln_tensor_entry *te, ln_cmp_op op, size_t len)
{
    return ln_opck(arg, ln_cmp_double((double)te->tensor->len, op, (double)len),
                   "'%s' (%s) should have %s %zu elements, got %zu", arg_name,
                   te->name, ln_cmp_op_str(op), len, te->tensor->len);
}

int ln_opck_param_exist(const ln_op_arg *arg, const char *arg_name,
                        ln_param_type type, ln_param_entry **pe)
{
    ln_param_entry *p = ln_param_list_find(arg->params, arg_name);
    int ret;

    if ((ret = ln_opck(arg, p != NULL, "missing param '%s'", arg_name)))
        return ret;
    return ln_opck_param_type_if(arg, arg_name, type, pe);
}

int ln_opck_param_type_if(const ln_op_arg *arg, const char *arg_name,
                          ln_param_type type, ln_param_entry **pe)
{
    ln_param_entry *p = ln_param_list_find(arg->params, arg_name);
    int ret;

    if (pe)
        *pe = p;
    if (!p)
        return 0;
    /* a one-element array for a number (ONNX's scalars of shape [1], TopK's
     * K): the number */
    if (type == LN_PARAM_NUMBER && p->type == LN_PARAM_ARRAY_NUMBER && p->array_len == 1)
        ln_param_set_satu_number(p, p->value_array_double[0]);
    /* an empty JSON array [] reads as a number array; accept it for any array */
    if (p->type != type &&
        !(p->array_len == 0 && p->type == LN_PARAM_ARRAY_NUMBER &&
          (type == LN_PARAM_ARRAY_STRING || type == LN_PARAM_ARRAY_BOOL))) {
        ret = ln_opck(arg, LN_FALSE, "param '%s' should be %s, got %s", arg_name,
                      ln_param_type_name(type), ln_param_type_name(p->type));
        return ret;
    }
    return 0;
}

int ln_opck_param_number(const ln_op_arg *arg, const ln_param_entry *pe,
                         ln_cmp_op op, double value)
{
    return ln_opck(arg, ln_cmp_double(pe->value_double, op, value),
                   "param '%s' should be %s %g, got %g", pe->arg_name,
                   ln_cmp_op_str(op), value, pe->value_double);
}

int ln_opck_param_array_len(const ln_op_arg *arg, const ln_param_entry *pe,
                            ln_cmp_op op, int len)
{
    return ln_opck(arg, ln_cmp_double(pe->array_len, op, len),
                   "param '%s' should have %s %d elements, got %d", pe->arg_name,
                   ln_cmp_op_str(op), len, pe->array_len);
}

int ln_opck_param_array_number(const ln_op_arg *arg, const ln_param_entry *pe,
                               ln_cmp_op op, double value)
{
    for (int i = 0; i < pe->array_len; i++)
        if (!ln_cmp_double(pe->value_array_double[i], op, value))
            return ln_opck(arg, LN_FALSE, "param '%s'[%d] should be %s %g, got %g",
                           pe->arg_name, i, ln_cmp_op_str(op), value,
                           pe->value_array_double[i]);
    return 0;
}

int ln_opck_param_string_in(const ln_op_arg *arg, const ln_param_entry *pe,
                            const char *const *choices, int *which)
{
    char buf[256] = "";
    size_t used = 0;

    for (int i = 0; choices[i]; i++) {
        if (ln_streq(pe->value_string, choices[i])) {
            if (which)
                *which = i;
            return 0;
        }
        used += (size_t)snprintf(buf + used, used < sizeof buf ? sizeof buf - used : 0,
                                 "%s'%s'", i ? ", " : "", choices[i]);
        if (used >= sizeof buf)
            used = sizeof buf - 1;
    }
    return ln_opck(arg, LN_FALSE, "param '%s' should be one of %s, got '%s'",
                   pe->arg_name, buf, pe->value_string ? pe->value_string : "(null)");
}

/* pre_run, then what every op's outputs must be whatever the op: no
 * negative dim, an element count the kernels can index (the description's
 * checks cannot forget it).  On failure nothing of the op stays in the
 * tensor table. */
int ln_op_pre_run(ln_op *op)
{
    int ret;
    if ((ret = ln_op_check(op)))
        return ret;
    if (op->pre_run && (ret = op->pre_run(op->op_arg)))
        return ret;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(op->op_arg->tensor_table, tl->name);
        if (te && (ret = ln_tensor_check_size(te->tensor, te->name))) {
            ln_error_prefix("%s (%s): ", op->op_arg->name, op->op_arg->optype);
            if (op->post_run)
                op->post_run(op->op_arg);
            return ret;
        }
    }
    return 0;
}

/* The post_run of most ops: the output tensors pre_run put in the table go
 * (a "scratch" output only if this op created it: the entry stays in
 * tensors_out, like an IR field), and the private data is freed. */
int ln_op_kernel_error(const ln_op_arg *op_arg, const char *kernel)
{
    return ln_error(LN_EINVAL, "%s (%s): %s refused its input at run time (an index or "
                    "target out of range, or arguments it cannot take); the outputs are not valid",
                    op_arg->name, op_arg->optype, kernel);
}

int ln_op_post_run_outputs(ln_op_arg *op_arg)
{
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(op_arg->tensor_table, tl->name);
        if (!te || (ln_streq(tl->arg_name, "scratch") && !ln_streq(te->creater, op_arg->name)))
            continue;
        ln_tensor_table_remove(op_arg->tensor_table, tl->name);
    }
    ln_free(op_arg->priv);
    op_arg->priv = NULL;
    return 0;
}

ln_tensor_entry *ln_op_output_create(ln_op_arg *op_arg, const char *name, ln_dtype dtype,
                                     int ndim, const int *dims, int flags)
{
    ln_tensor_entry *te = ln_tensor_entry_create(name, ln_tensor_create(dtype, ndim, dims, NULL));

    ln_tensor_entry_set_creater(te, op_arg->name);
    te->mtype = op_arg->mtype_out;
    te->isstatic = (flags & LN_OP_OUT_STATIC) != 0;
    te->is_io = (flags & LN_OP_OUT_IO) != 0;
    ln_tensor_table_insert(op_arg->tensor_table, te);
    return te;
}

int ln_op_add_scratch(ln_op_arg *op_arg, size_t size, ln_bool listed)
{
    const char *name;
    int dims[1], ret;

    if (size == 0)
        return 0;
    if (!listed) {
        char *n = ln_sprintf("%s__scratch", op_arg->name);
        op_arg->tensors_out = ln_tensor_list_append(op_arg->tensors_out, "scratch", n);
        ln_free(n);
    }
    ret = ln_opck(op_arg, size <= INT_MAX,
                  "needs %zu bytes of scratch, more than one tensor can hold", size);
    if (!ret)
        ret = ln_opck_tensor_out_new(op_arg, "scratch", &name);
    if (ret) {
        ln_op_post_run_outputs(op_arg);
        return ret;
    }
    dims[0] = (int)size;
    ln_op_output_create(op_arg, name, LN_DTYPE_UINT8, 1, dims, 0);
    return 0;
}

int ln_opck_tensor_in_opt(const ln_op_arg *arg, const char *arg_name, ln_tensor_entry **te)
{
    *te = NULL;
    if (!ln_tensor_list_find_name(arg->tensors_in, arg_name))
        return 0;
    return ln_opck_tensor_in_exist(arg, arg_name, te);
}
