/*
 * ln_aot.c -- a compiled, planned model as C source (see ln_aot.h and
 * docs/aot.md for what the emitted files look like).
 *
 * Emission runs in two phases.  The first walks the op stream and builds,
 * in memory, everything but the weights' text: the run function's body
 * (one kernel call per op, expanded from the op's "aot" template), the
 * local pointers it needs, the arena offsets and the ops' private data as
 * static const objects; it materializes every constant the calls read.
 * Every error a model can cause (an op without emission rule, missing
 * weights, no graph output) happens here, before a byte is written.  The
 * second phase writes the files, streaming the weights (tens of MB for big
 * models) through a table-driven escaper.
 *
 * Tensors in the run function are local pointers: t_<name> for
 * activations (into the arena at the planned offset, or into the caller's
 * input/output buffer the planner put them in), w_<name> for constants.
 * Emitted identifiers are unique per file, file-scope ones carry NAME.
 */
#include <stdlib.h>
#include <string.h>
#include "ln_aot.h"
#include "ln_aot_impl.h"
#include "auto/ln_aot_args.h"
#include "op/auto/ln_opregistry.h"

uint64_t ln_aot_fnv1a(const void *p, size_t n, uint64_t hash)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        hash ^= s[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

static ln_bool is_alpha_(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static ln_bool is_alnum_(int c)
{
    return is_alpha_(c) || (c >= '0' && c <= '9');
}

ln_bool ln_aot_is_ident(const char *s)
{
    if (!s || !is_alpha_((unsigned char)*s))
        return LN_FALSE;
    for (s++; *s; s++)
        if (!is_alnum_((unsigned char)*s))
            return LN_FALSE;
    return LN_TRUE;
}

/* prefix + raw (at most 48 characters of it) with every character not
 * allowed in C replaced by '_' (upper-cased when upper), made unique with _2, _3, ...; the returned
 * string lives as long as the emitter. */
static const char *ident(emitter *e, const char *prefix, const char *raw, ln_bool upper)
{
    size_t pl, rl;
    char *base, *s;

    while (*raw && !is_alnum_((unsigned char)*raw) && raw[1])   /* "/conv1/Conv" */
        raw++;
    pl = strlen(prefix);
    rl = strlen(raw);

    if (rl > 48)
        rl = 48;
    base = ln_alloc(pl + rl + 1);
    for (size_t i = 0; i < pl + rl; i++) {
        int c = (unsigned char)(i < pl ? prefix[i] : raw[i - pl]);
        if (!is_alnum_(c))
            c = '_';
        else if (upper && c >= 'a' && c <= 'z')
            c -= 'a' - 'A';
        base[i] = (char)c;
    }
    base[pl + rl] = '\0';
    s = ln_strdup(base);
    for (int k = 2; ln_hash_find(e->idents, s); k++) {
        ln_free(s);
        s = ln_sprintf("%s_%d", base, k);
    }
    ln_free(base);
    ln_hash_insert(e->idents, s, s);
    return s;
}

static void reserve_ident(emitter *e, const char *s)
{
    char *c = ln_strdup(s);
    ln_hash_insert(e->idents, c, c);
}

const char *ln_aot_dtype_ctype(ln_dtype d)
{
    switch (d) {
    case LN_DTYPE_FLOAT32: return "float";
    case LN_DTYPE_FLOAT64: return "double";
    case LN_DTYPE_INT8: return "int8_t";
    case LN_DTYPE_INT16: return "int16_t";
    case LN_DTYPE_INT32: return "int32_t";
    case LN_DTYPE_INT64: return "int64_t";
    case LN_DTYPE_UINT8: return "uint8_t";
    case LN_DTYPE_FLOAT16:
    case LN_DTYPE_UINT16: return "uint16_t";
    case LN_DTYPE_UINT32: return "uint32_t";
    case LN_DTYPE_UINT64: return "uint64_t";
    case LN_DTYPE_BOOL: return "uint8_t";
    default: return "unsigned char";
    }
}

/* "x [1, 3] float32" style description of a tensor, into a comment */
void ln_aot_describe(ln_aot_buf *b, const char *name, const ln_tensor *t)
{
    char dims[160];
    ln_aot_buf_comment_text(b, name);
    ln_aot_buf_printf(b, " %s %s", ln_dims_str(dims, sizeof dims, t->ndim, t->dims),
                      ln_dtype_name(t->dtype));
    if (t->quant_count == 1)
        ln_aot_buf_printf(b, " (scale %.9g, zero point %ld)", (double)t->scales[0],
                          (long)t->zero_points[0]);
    else if (t->quant_count > 1)
        ln_aot_buf_printf(b, " (%d scales along axis %d)", t->quant_count, t->quant_axis);
}

static const io *find_io(const io *v, int n, const char *tname)
{
    for (int i = 0; i < n; i++)
        if (ln_streq(v[i].tname, tname))
            return &v[i];
    return NULL;
}

static int add_weight(emitter *e, ln_tensor_entry *te, int *index)
{
    intptr_t k = (intptr_t)ln_hash_find(e->wmap, te->name);
    ln_tensor *t;
    int ret;

    if (k) {
        *index = (int)k - 1;
        return 0;
    }
    if ((ret = ln_context_static_data(e->ctx, te->name, &t))) {
        ln_error_prefix("constant '%s': ", te->name);
        return ret;
    }
    if (!t->data && ln_tensor_size(t))
        return ln_error(LN_ENOTFOUND, "%s: constant '%s' has no data (missing weights?)",
                        e->ctx->source, te->name);
    if (e->nw == e->wcap) {
        e->wcap = e->wcap ? e->wcap * 2 : 16;
        e->w = ln_realloc(e->w, sizeof(weight) * (size_t)e->wcap);
    }
    e->w[e->nw].tname = te->name;
    e->w[e->nw].t = t;
    e->w[e->nw].sym = NULL;
    if (!e->o->weights_file) {
        char *p = ln_sprintf("%s_w_", e->name);
        e->w[e->nw].sym = ident(e, p, te->name, LN_FALSE);
        ln_free(p);
    }
    e->blob_size = ln_align_up(e->blob_size, 16);
    e->w[e->nw].off = e->blob_size;
    e->blob_size += ln_tensor_size(t);
    *index = e->nw++;
    ln_hash_insert(e->wmap, te->name, (void *)(intptr_t)e->nw);
    return 0;
}

/* The local pointer that holds tensor tname in the run function, declared
 * on first use. */
static int tensor_local(emitter *e, const char *tname, const char **local)
{
    ln_tensor_entry *te = ln_tensor_table_find(e->ctx->tensor_table, tname);
    const char *ct, *l;
    int ret;

    if ((*local = ln_hash_find(e->locals, tname)))
        return 0;
    if (!te)
        return ln_error(LN_ENOTFOUND, "%s: no tensor named '%s'", e->ctx->source, tname);
    ct = ln_aot_dtype_ctype(te->tensor->dtype);
    if (te->isstatic) {
        int k = 0;
        if ((ret = add_weight(e, te, &k)))
            return ret;
        l = ident(e, "w_", tname, LN_FALSE);
        if (e->o->weights_file)
            ln_aot_buf_printf(&e->decls, "    const %s *%s = (const %s *)(const void *)(%s_weights + %zu);",
                              ct, l, ct, e->name, e->w[k].off);
        else
            ln_aot_buf_printf(&e->decls, "    const %s *%s = (const %s *)(const void *)%s.b;",
                              ct, l, ct, e->w[k].sym);
    } else if (!te->planned) {
        return ln_error(LN_EINVAL, "%s: tensor '%s' has no place in the memory plan",
                        e->ctx->source, tname);
    } else if (te->io_buffer) {
        const io *in = find_io(e->ins, e->nin, te->io_buffer);
        const io *out = in ? NULL : find_io(e->outs, e->nout, te->io_buffer);
        const io *x = in ? in : out;
        if (!x)
            return ln_error(LN_EINVAL, "%s: tensor '%s' is planned into '%s', which is not a "
                            "graph input or output", e->ctx->source, tname, te->io_buffer);
        l = ident(e, "t_", tname, LN_FALSE);
        if (te->offset == 0 && te->tensor->dtype == x->te->tensor->dtype)
            ln_aot_buf_printf(&e->decls, "    %s%s *%s = %s;", in ? "const " : "", ct, l, x->param);
        else if (in)
            ln_aot_buf_printf(&e->decls, "    const %s *%s = (const %s *)(const void *)"
                              "((const unsigned char *)%s + %zu);", ct, l, ct, x->param, te->offset);
        else
            ln_aot_buf_printf(&e->decls, "    %s *%s = (%s *)(void *)((unsigned char *)%s + %zu);",
                              ct, l, ct, x->param, te->offset);
    } else {
        const char *m;
        char *p = ln_sprintf("%s_OFF_", e->up);
        l = ident(e, "t_", tname, LN_FALSE);
        m = ident(e, p, tname, LN_TRUE);
        ln_free(p);
        ln_aot_buf_printf(&e->offs, "#define %s %zu /* ", m, te->offset);
        ln_aot_describe(&e->offs, tname, te->tensor);
        ln_aot_buf_printf(&e->offs, ", %zu bytes */\n", ln_tensor_size(te->tensor));
        ln_aot_buf_printf(&e->decls, "    %s *%s = (%s *)(void *)(a + %s);", ct, l, ct, m);
        e->uses_arena = LN_TRUE;
    }
    ln_aot_buf_puts(&e->decls, " /* ");
    ln_aot_describe(&e->decls, tname, te->tensor);
    ln_aot_buf_puts(&e->decls, " */\n");
    ln_hash_insert(e->locals, (void *)tname, (void *)l);
    *local = l;
    return 0;
}

void ln_aot_c_string(ln_aot_buf *b, const char *s)
{
    ln_aot_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\' || c == '?')
            ln_aot_buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            ln_aot_buf_printf(b, "\\%03o", c);
        else
            ln_aot_buf_putc(b, (char)c);
    }
    ln_aot_buf_putc(b, '"');
}

/* A scalar of C type ctype at p as a literal; LN_FALSE for other types. */
static ln_bool scalar_literal(ln_aot_buf *b, const char *ctype, const void *p)
{
    if (ln_streq(ctype, "float"))
        ln_aot_buf_float(b, *(const float *)p);
    else if (ln_streq(ctype, "double"))
        ln_aot_buf_double(b, *(const double *)p);
    else if (ln_streq(ctype, "int") || ln_streq(ctype, "ln_bool"))
        ln_aot_buf_printf(b, "%d", *(const int *)p);
    else if (ln_streq(ctype, "unsigned") || ln_streq(ctype, "unsigned int"))
        ln_aot_buf_printf(b, "%uu", *(const unsigned *)p);
    else if (ln_streq(ctype, "int32_t"))
        ln_aot_buf_printf(b, "%ld", (long)*(const int32_t *)p);
    else if (ln_streq(ctype, "uint32_t"))
        ln_aot_buf_printf(b, "%luu", (unsigned long)*(const uint32_t *)p);
    else if (ln_streq(ctype, "int64_t"))
        ln_aot_buf_printf(b, "%lldLL", (long long)*(const int64_t *)p);
    else if (ln_streq(ctype, "size_t"))
        ln_aot_buf_printf(b, "%luu", (unsigned long)*(const size_t *)p);
    else if (ln_streq(ctype, "ln_dtype"))
        ln_aot_buf_printf(b, "%d", (int)*(const ln_dtype *)p);
    else if (ln_streq(ctype, "const char *") || ln_streq(ctype, "char *"))
        ln_aot_c_string(b, *(const char *const *)p);
    else
        return LN_FALSE;
    return LN_TRUE;
}

/* ${name} for an array param the private data holds (a pointer field and
 * its <name>_len field beside it): the name of a static const array of its
 * values (ln_bool as int, its typedef), printed once per op and field.
 * LN_FALSE when f is not such a field. */
static ln_bool array_value(emitter *e, const ln_op *op, const ln_opregistry_aot_field *all,
                           const ln_opregistry_aot_field *f, ln_aot_buf *out)
{
    const ln_op_arg *arg = op->op_arg;
    const char *elem = ln_streq(f->ctype, "const int *") || ln_streq(f->ctype, "const ln_bool *")
                       ? "int" : ln_streq(f->ctype, "const float *") ? "float"
                       : ln_streq(f->ctype, "const double *") ? "double" : NULL;
    const ln_opregistry_aot_field *lf = NULL;
    char *key, *lname;
    const char *sym;
    const void *p;
    int len;

    if (!elem)
        return LN_FALSE;
    lname = ln_sprintf("%s_len", f->name);
    for (const ln_opregistry_aot_field *g = all; g && g->name; g++)
        if (ln_streq(g->name, lname))
            lf = g;
    ln_free(lname);
    if (!lf)
        return LN_FALSE;
    p = *(const void *const *)((const char *)arg->priv + f->offset);
    len = *(const int *)((const char *)arg->priv + lf->offset);
    key = ln_sprintf("%s\n%s", arg->name, f->name);
    if ((sym = ln_hash_find(e->privsyms, key))) {
        ln_free(key);
    } else {
        char *pre = ln_sprintf("%s_%s_", e->name, arg->name);
        sym = ident(e, pre, f->name, LN_FALSE);
        ln_free(pre);
        ln_hash_insert(e->privsyms, key, (void *)sym);
        ln_aot_buf_printf(&e->statics, "static const %s %s[%d] = {", elem, sym, len > 0 ? len : 1);
        for (int i = 0; i < len; i++) {
            if (i)
                ln_aot_buf_puts(&e->statics, i % 16 ? ", " : ",\n    ");
            if (ln_streq(elem, "float"))
                ln_aot_buf_float(&e->statics, ((const float *)p)[i]);
            else if (ln_streq(elem, "double"))
                ln_aot_buf_double(&e->statics, ((const double *)p)[i]);
            else
                ln_aot_buf_printf(&e->statics, "%d", ((const int *)p)[i]);
        }
        ln_aot_buf_puts(&e->statics, len > 0 ? "};\n" : "0};\n");
    }
    ln_aot_buf_puts(out, sym);
    return LN_TRUE;
}

/* ${name} for a field of the op's private data. */
static int priv_value(emitter *e, const ln_op *op, const ln_opregistry_aot_field *all,
                      const ln_opregistry_aot_field *f, ln_aot_buf *out)
{
    const ln_op_arg *arg = op->op_arg;
    const void *p = (const char *)arg->priv + f->offset;
    char *key;
    const char *sym;

    if (!arg->priv)
        return ln_error(LN_EINVAL, "%s (%s): no private data (pre_run did not run?)",
                        arg->name, arg->optype);
    if (ln_aot_args_size(f->ctype) && !ln_aot_args_is_struct(f->ctype))
        return ln_aot_args_print(out, f->ctype, p);      /* an enum constant */
    if (scalar_literal(out, f->ctype, p) || array_value(e, op, all, f, out))
        return 0;
    if (!ln_aot_args_is_struct(f->ctype))
        return ln_error(LN_EUNSUPPORTED, "%s (%s): no emission rule for private field '%s' "
                        "of type '%s'", arg->name, arg->optype, f->name, f->ctype);
    /* a struct: a static const object, named once per op and field */
    key = ln_sprintf("%s\n%s", arg->name, f->name);
    if ((sym = ln_hash_find(e->privsyms, key))) {
        ln_free(key);
    } else {
        char *pre = ln_sprintf("%s_%s_", e->name, arg->name);
        sym = ident(e, pre, f->name, LN_FALSE);
        ln_free(pre);
        ln_hash_insert(e->privsyms, key, (void *)sym);
        ln_aot_buf_printf(&e->statics, "static const %s %s = ", f->ctype, sym);
        ln_aot_args_print(&e->statics, f->ctype, p);
        ln_aot_buf_puts(&e->statics, ";\n");
    }
    ln_aot_buf_puts(out, sym);
    return 0;
}

/* ${name} for a param the private data does not hold. */
static ln_bool param_value(ln_aot_buf *out, const ln_param_entry *pe)
{
    switch (pe->type) {
    case LN_PARAM_NUMBER:
        if (pe->value_double == (double)pe->value_int)
            ln_aot_buf_printf(out, "%d", pe->value_int);
        else
            ln_aot_buf_double(out, pe->value_double);
        return LN_TRUE;
    case LN_PARAM_BOOL:
        ln_aot_buf_printf(out, "%d", pe->value_bool ? 1 : 0);
        return LN_TRUE;
    case LN_PARAM_STRING:
        ln_aot_c_string(out, pe->value_string);
        return LN_TRUE;
    default:
        return LN_FALSE;
    }
}

static const ln_opregistry_aot_entry *aot_entry(const char *optype)
{
    for (const ln_opregistry_aot_entry *a = ln_opregistry_aot; a->optype; a++)
        if (ln_streq(a->optype, optype))
            return a;
    return NULL;
}

static int placeholder(emitter *e, const ln_op *op, const ln_opregistry_aot_entry *ae,
                       const char *name, const char *sfx, ln_aot_buf *out);

/* The count of a variadic tensor arg: <name>_0, <name>_1, ... in the op's
 * inputs (or outputs, *is_out), consecutive from 0, as the generated run()
 * collects them. 0 when the op has no <name>_0. */
static int variadic_count(const ln_op_arg *arg, const char *name, ln_bool *is_out)
{
    for (int k = 0; k < 2; k++) {
        ln_list *l = k ? arg->tensors_out : arg->tensors_in;
        int n = 0;
        for (;;) {
            char an[160];
            snprintf(an, sizeof an, "%s_%d", name, n);
            if (!ln_tensor_list_find_name(l, an))
                break;
            n++;
        }
        if (n) {
            *is_out = k ? LN_TRUE : LN_FALSE;
            return n;
        }
    }
    return 0;
}

/* ${name} of a variadic tensor arg with count n: ".count" is n, "" a C99
 * compound literal of the data pointers (the array the kernel takes), any
 * other suffix that of <name>_0 (the op checked they share a dtype). */
static int variadic_placeholder(emitter *e, const ln_op *op, const ln_opregistry_aot_entry *ae,
                                const char *name, const char *sfx, int n, ln_bool is_out,
                                ln_aot_buf *out)
{
    char an[160];
    int ret;

    if (ln_streq(sfx, ".count")) {
        ln_aot_buf_printf(out, "%d", n);
        return 0;
    }
    if (*sfx) {
        snprintf(an, sizeof an, "%s_0", name);
        return placeholder(e, op, ae, an, sfx, out);
    }
    ln_aot_buf_puts(out, is_out ? "(void *const[]){" : "(const void *const[]){");
    for (int i = 0; i < n; i++) {
        const char *tname, *l;
        snprintf(an, sizeof an, "%s_%d", name, i);
        tname = ln_tensor_list_find_name(is_out ? op->op_arg->tensors_out
                                         : op->op_arg->tensors_in, an);
        if ((ret = tensor_local(e, tname, &l)))
            return ret;
        ln_aot_buf_printf(out, "%s%s", i ? ", " : "", l);
    }
    ln_aot_buf_putc(out, '}');
    return 0;
}

/* The suffix of a dtype's kernel (ln_rt_relu_${src.type}: ln_rt_relu_f32,
 * ln_rt_relu_s8); gen/opgen.pl's %TYPE_SUFFIX is the same table. */
static const char *kernel_suffix(ln_dtype dt)
{
    switch (dt) {
    case LN_DTYPE_FLOAT32: return "f32";
    case LN_DTYPE_FLOAT64: return "f64";
    case LN_DTYPE_FLOAT16: return "f16";
    case LN_DTYPE_INT8: return "s8";
    case LN_DTYPE_UINT8: return "u8";
    case LN_DTYPE_INT16: return "s16";
    case LN_DTYPE_UINT16: return "u16";
    case LN_DTYPE_INT32: return "s32";
    case LN_DTYPE_UINT32: return "u32";
    case LN_DTYPE_INT64: return "s64";
    case LN_DTYPE_UINT64: return "u64";
    default: return NULL;
    }
}

/* One placeholder: name with suffix (".len", ".ndim", ".elem_size",
 * ".dims[N]", ".count", ".type" or ""). */
static int placeholder(emitter *e, const ln_op *op, const ln_opregistry_aot_entry *ae,
                       const char *name, const char *sfx, ln_aot_buf *out)
{
    const ln_op_arg *arg = op->op_arg;
    const char *tname = ln_tensor_list_find_name(arg->tensors_in, name);
    const ln_param_entry *pe;
    ln_bool is_out = LN_FALSE;
    int ret, n;

    if (!tname)
        tname = ln_tensor_list_find_name(arg->tensors_out, name);
    if (!tname && (n = variadic_count(arg, name, &is_out)) > 0)
        return variadic_placeholder(e, op, ae, name, sfx, n, is_out, out);
    if (tname) {
        ln_tensor_entry *te = ln_tensor_table_find(e->ctx->tensor_table, tname);
        const ln_tensor *t = te ? te->tensor : NULL;
        const char *l;
        int d;
        if (!t)
            return ln_error(LN_ENOTFOUND, "%s (%s): no tensor named '%s'", arg->name,
                            arg->optype, tname);
        if (!*sfx) {
            if ((ret = tensor_local(e, tname, &l)))
                return ret;
            ln_aot_buf_puts(out, l);
        } else if (ln_streq(sfx, ".len")) {
            ln_aot_buf_printf(out, "%zu", t->len);
        } else if (ln_streq(sfx, ".ndim")) {
            ln_aot_buf_printf(out, "%d", t->ndim);
        } else if (ln_streq(sfx, ".elem_size")) {
            ln_aot_buf_printf(out, "%zu", ln_dtype_size(t->dtype));
        } else if (sscanf(sfx, ".dims[%d]", &d) == 1 && d >= 0 && d < t->ndim) {
            ln_aot_buf_printf(out, "%d", t->dims[d]);
        } else if (ln_streq(sfx, ".type") && (l = kernel_suffix(t->dtype))) {
            ln_aot_buf_puts(out, l);
        } else {
            return ln_error(LN_EINVAL, "%s (%s): aot placeholder '${%s%s}': no such "
                            "property of '%s'", arg->name, arg->optype, name, sfx, tname);
        }
        return 0;
    }
    if (*sfx)
        return ln_error(LN_EINVAL, "%s (%s): aot placeholder '${%s%s}': '%s' is not a "
                        "tensor of the op", arg->name, arg->optype, name, sfx, name);
    for (const ln_opregistry_aot_field *f = ae->priv; f && f->name; f++)
        if (ln_streq(f->name, name))
            return priv_value(e, op, ae->priv, f, out);
    if ((pe = ln_op_param(arg, name)) && param_value(out, pe))
        return 0;
    /* The generator checked that every placeholder names a tensor, param
     * or private field, and params the call uses are private fields: what
     * is left is an optional tensor the op does not have. */
    ln_aot_buf_puts(out, "NULL");
    return 0;
}

static int expand(emitter *e, const ln_op *op, const ln_opregistry_aot_entry *ae,
                  ln_aot_buf *out)
{
    const char *s = ae->call;
    char name[128], sfx[64];

    while (*s) {
        const char *end, *dot;
        size_t nl, sl;
        int ret;
        if (s[0] != '$' || s[1] != '{') {
            ln_aot_buf_putc(out, *s++);
            continue;
        }
        end = strchr(s + 2, '}');
        if (!end)
            return ln_error(LN_EINVAL, "%s (%s): aot template '%s': unterminated '${'",
                            op->op_arg->name, op->op_arg->optype, ae->call);
        dot = memchr(s + 2, '.', (size_t)(end - s - 2));
        nl = (size_t)((dot ? dot : end) - (s + 2));
        sl = dot ? (size_t)(end - dot) : 0;
        if (nl >= sizeof name || sl >= sizeof sfx)
            return ln_error(LN_EINVAL, "%s (%s): aot template '%s': placeholder too long",
                            op->op_arg->name, op->op_arg->optype, ae->call);
        memcpy(name, s + 2, nl);
        name[nl] = '\0';
        if (sl)
            memcpy(sfx, dot, sl);
        sfx[sl] = '\0';
        if ((ret = placeholder(e, op, ae, name, sfx, out)))
            return ret;
        s = end + 1;
    }
    return 0;
}

static void describe_list(emitter *e, ln_aot_buf *b, ln_list *l)
{
    int first = 1;
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, l) {
        ln_tensor_entry *te = ln_tensor_table_find(e->ctx->tensor_table, tl->name);
        ln_aot_buf_puts(b, first ? "" : ", ");
        first = 0;
        if (te)
            ln_aot_describe(b, tl->name, te->tensor);
        else
            ln_aot_buf_comment_text(b, tl->name);
    }
}

static ln_bool all_outputs_static(emitter *e, const ln_op *op)
{
    LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_out) {
        ln_tensor_entry *te = ln_tensor_table_find(e->ctx->tensor_table, tl->name);
        if (!te || !te->isstatic)
            return LN_FALSE;
    }
    return op->op_arg->tensors_out != NULL;
}

/* A profile point: NAME_PROFILE_OP(index, "op name", "op type"), which the
 * source defines as a call of the user's NAME_profile_hook() under
 * -DNAME_PROFILE and as ((void)0) otherwise, so without the macro neither
 * the call nor the strings reach the object. */
static void profile_point(emitter *e, int index, const char *name, const char *type)
{
    ln_aot_buf_printf(&e->body, "    %s_PROFILE_OP(%d, ", e->up, index);
    ln_aot_c_string(&e->body, name);
    ln_aot_buf_puts(&e->body, ", ");
    ln_aot_c_string(&e->body, type);
    ln_aot_buf_puts(&e->body, ");\n");
}

/* One op: its comment, its kernel call and its profile point. */
static int emit_op(emitter *e, const ln_op *op)
{
    const ln_op_arg *arg = op->op_arg;
    const ln_opregistry_aot_entry *ae = aot_entry(arg->optype);
    ln_aot_buf call;
    char fn[128];
    size_t n;
    int ret;

    if (!ae) {
        if (ln_streq(arg->arch, "none"))
            return ln_error(LN_EUNSUPPORTED, "%s (%s): abstract op; the model was not "
                            "compiled for a target", arg->name, arg->optype);
        if (op->run)
            return ln_error(LN_EUNSUPPORTED, "%s (%s): no emission rule (its description "
                            "has no \"aot\" call)", arg->name, arg->optype);
        return 0;      /* input, output, create, views: nothing runs */
    }
    if (all_outputs_static(e, op))
        return 0;      /* its result is a constant, emitted with the weights */
    ln_aot_buf_init(&call, NULL);
    if ((ret = expand(e, op, ae, &call))) {
        ln_aot_buf_free(&call);
        return ret;
    }
    while (call.len && (call.data[call.len - 1] == ';' || call.data[call.len - 1] == ' '))
        call.len--;
    ln_aot_buf_puts(&e->body, "\n    /* ");
    ln_aot_buf_comment_text(&e->body, arg->name);
    ln_aot_buf_puts(&e->body, " (");
    ln_aot_buf_comment_text(&e->body, arg->optype);
    ln_aot_buf_puts(&e->body, "): ");
    describe_list(e, &e->body, arg->tensors_in);
    ln_aot_buf_puts(&e->body, " -> ");
    describe_list(e, &e->body, arg->tensors_out);
    ln_aot_buf_puts(&e->body, " */\n");
    for (n = 0; n < call.len && n + 1 < sizeof fn && call.data[n] != ' ' && call.data[n] != '(';
         n++)
        fn[n] = call.data[n];   /* the name as called: ${t.type} substituted */
    fn[n] = '\0';
    if (!ln_hash_find(e->kernels, fn)) {
        char *k = ln_strdup(fn);
        ln_hash_insert(e->kernels, k, k);
    }
    if (ln_aot_args_returns_status(fn)) {
        ln_aot_buf_puts(&e->body, "    if (");
        ln_aot_buf_write(&e->body, call.data, call.len);
        ln_aot_buf_printf(&e->body, " != LN_RT_OK)\n        return %s_ERR_KERNEL;\n", e->up);
    } else {
        ln_aot_buf_puts(&e->body, "    ");
        ln_aot_buf_write(&e->body, call.data, call.len);
        ln_aot_buf_puts(&e->body, ";\n");
    }
    profile_point(e, e->ncalls, arg->name, arg->optype);
    ln_aot_buf_free(&call);
    e->ncalls++;
    return 0;
}

/*
 * Guards: ops of a run-time If's branches run inside `if (cond[0]) {` ...
 * `} else {` ... `}`.  The blocks open are e->guard (a list of guard
 * entries, outermost first); an op whose guard differs closes the blocks
 * past the common prefix (turning the last into an else when the op is
 * in the other branch of the same If) and opens its own.
 */
static void indent(emitter *e, int depth)
{
    for (int i = 0; i < depth + 1; i++)
        ln_aot_buf_puts(&e->body, "    ");
}

static int set_guard(emitter *e, const ln_list *want)
{
    int have = ln_list_length(e->guard), n = ln_list_length((ln_list *)want), c = 0, ret;
    const ln_list *a = e->guard, *b = want;

    for (; a && b; a = a->next, b = b->next, c++) {
        const ln_tensor_list_entry *x = a->data, *y = b->data;
        if (!ln_streq(x->name, y->name) || !ln_streq(x->arg_name, y->arg_name))
            break;
    }
    if (c == have && c == n)
        return 0;
    if (have == c + 1 && n > c) {
        const ln_tensor_list_entry *x = ln_list_nth_data(e->guard, c), *y = ln_list_nth_data((ln_list *)want, c);
        if (ln_streq(x->name, y->name)) {     /* the other branch of the same If */
            indent(e, c);
            ln_aot_buf_puts(&e->body, "} else {\n");
            e->guard = ln_list_remove_nth(e->guard, c);
            e->guard = ln_list_append(e->guard, (void *)y);
            have = c + 1;
            c++;
        }
    }
    while (have > c) {
        have--;
        indent(e, have);
        ln_aot_buf_puts(&e->body, "}\n");
        e->guard = ln_list_remove_nth(e->guard, have);
    }
    for (const ln_list *l = ln_list_nth((ln_list *)want, c); l; l = l->next) {
        const ln_tensor_list_entry *y = l->data;
        const char *local;
        if ((ret = tensor_local(e, y->name, &local)))
            return ret;
        indent(e, have);
        ln_aot_buf_printf(&e->body, "if (%s%s[0]) {    /* ", ln_streq(y->arg_name, "true") ? "" : "!",
                          local);
        ln_aot_buf_comment_text(&e->body, y->name);
        ln_aot_buf_printf(&e->body, " is %s */\n", y->arg_name);
        e->guard = ln_list_append(e->guard, (void *)y);
        have++;
    }
    return 0;
}

/* emit_op inside the op's guard blocks, its text indented to their depth. */
static int emit_guarded(emitter *e, const ln_op *op)
{
    ln_aot_buf saved = e->body, text;
    int ret, depth;

    ln_aot_buf_init(&e->body, NULL);
    ret = emit_op(e, op);
    text = e->body;
    e->body = saved;
    if (!ret && text.len && (ret = set_guard(e, op->op_arg->guard)) == 0) {
        depth = ln_list_length(e->guard);
        for (size_t i = 0; i < text.len; i++) {
            if (depth && text.data[i] != '\n' && (i == 0 || text.data[i - 1] == '\n'))
                for (int d = 0; d < depth; d++)
                    ln_aot_buf_puts(&e->body, "    ");
            ln_aot_buf_putc(&e->body, text.data[i]);
        }
    }
    ln_aot_buf_free(&text);
    return ret;
}

static int collect_io(emitter *e)
{
    ln_list *ins = ln_context_inputs(e->ctx), *outs = ln_context_outputs(e->ctx);
    int ret = 0;

    e->nin = ln_list_length(ins);
    e->nout = ln_list_length(outs);
    e->ins = ln_alloc(sizeof(io) * (size_t)(e->nin + 1));
    e->outs = ln_alloc(sizeof(io) * (size_t)(e->nout + 1));
    for (int k = 0; k < 2; k++) {
        io *v = k ? e->outs : e->ins;
        int i = 0;
        LN_LIST_FOREACH(char, name, k ? outs : ins) {
            v[i].tname = name;
            v[i].te = ln_tensor_table_find(e->ctx->tensor_table, name);
            snprintf(v[i].param, sizeof v[i].param, "%s%d", k ? "out" : "in", i);
            reserve_ident(e, v[i].param);
            if (!v[i].te && !ret)
                ret = ln_error(LN_ENOTFOUND, "%s: graph %s '%s' is not a tensor",
                               e->ctx->source, k ? "output" : "input", name);
            i++;
        }
    }
    if (!ret && e->nout == 0)
        ret = ln_error(LN_EINVAL, "%s: the model has no output op (a graph output is "
                       "marked by an op of optype 'output')", e->ctx->source);
    ln_list_free(ins);
    ln_list_free(outs);
    return ret;
}

/* Is graph input/output x the caller's buffer itself (no copy)? */
static ln_bool io_direct(emitter *e, const io *x, ln_bool is_out)
{
    const ln_tensor_entry *te = x->te;
    if (e->ctx->io_in_arena || te->isstatic || !te->planned || !te->io_buffer ||
        !ln_streq(te->io_buffer, te->name) || te->offset != 0)
        return LN_FALSE;
    /* a tensor that is both input and output lives in the input's buffer */
    return !is_out || !find_io(e->ins, e->nin, te->name);
}

/* Phase 1: the run function's body, locals, offsets and private data. */
static int build(emitter *e)
{
    int ret;

    if (!e->ctx->planned)
        return ln_error(LN_EINVAL, "%s: the model has no memory plan", e->ctx->source);
    if ((ret = collect_io(e)))
        return ret;
    reserve_ident(e, "a");
    reserve_ident(e, "arena");
    /* time zero of the profile: before the input copies (charged to op 0) */
    profile_point(e, -1, "", "");
    /* inputs the planner kept in the arena are copied in first */
    for (int i = 0; i < e->nin; i++) {
        const char *l;
        if (e->ctx->io_in_arena || io_direct(e, &e->ins[i], LN_FALSE))
            continue;
        if ((ret = tensor_local(e, e->ins[i].tname, &l)))
            return ret;
        ln_aot_buf_printf(&e->body, "\n    /* input %d '", i);
        ln_aot_buf_comment_text(&e->body, e->ins[i].tname);
        ln_aot_buf_printf(&e->body, "' lives in the arena */\n    %s_copy(%s, %s, %zu);\n",
                          e->name, l, e->ins[i].param, ln_tensor_size(e->ins[i].te->tensor));
        e->needs_copy = LN_TRUE;
        e->ncopies++;
    }
    LN_LIST_FOREACH(ln_op, op, e->ctx->ops) {
        if ((ret = emit_guarded(e, op)))
            return ret;
    }
    if ((ret = set_guard(e, NULL)))         /* close the blocks still open */
        return ret;
    for (int i = 0; i < e->nout; i++) {
        const char *l;
        int k;
        if (e->ctx->io_in_arena && e->outs[i].te->isstatic &&
            (ret = add_weight(e, e->outs[i].te, &k)))     /* its accessor points there */
            return ret;
        if (e->ctx->io_in_arena || io_direct(e, &e->outs[i], LN_TRUE))
            continue;
        if ((ret = tensor_local(e, e->outs[i].tname, &l)))
            return ret;
        ln_aot_buf_printf(&e->body, "\n    /* output %d '", i);
        ln_aot_buf_comment_text(&e->body, e->outs[i].tname);
        ln_aot_buf_printf(&e->body, "' is not in its own buffer */\n    %s_copy(%s, %s, %zu);\n",
                          e->name, e->outs[i].param, l, ln_tensor_size(e->outs[i].te->tensor));
        e->needs_copy = LN_TRUE;
        e->ncopies++;
    }
    return 0;
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *kernel_list(const ln_hash *kernels)
{
    int n = ln_hash_size(kernels), i = 0;
    const char **v = ln_alloc(sizeof(char *) * (size_t)(n + 1));
    ln_aot_buf b;
    ln_hash_iter it;
    void *k, *val;
    char *s;

    ln_hash_iter_init(&it, kernels);
    while (ln_hash_iter_next(&it, &k, &val))
        v[i++] = k;
    qsort(v, (size_t)n, sizeof(char *), cmp_str_ptr);
    ln_aot_buf_init(&b, NULL);
    for (i = 0; i < n; i++)
        ln_aot_buf_printf(&b, "%s%s", i ? " " : "", v[i]);
    ln_aot_buf_putc(&b, '\0');
    s = ln_strdup(b.data);
    ln_aot_buf_free(&b);
    ln_free(v);
    return s;
}

/* Every size and offset the emitted code holds in a size_t must fit the
 * target's: the arena, each tensor's end in the arena or its caller buffer,
 * each constant and the weights in all.  Sets e->max_size. */
static int check_sizes(emitter *e)
{
    int bits = e->o->addr_bits ? e->o->addr_bits : 32;
    size_t limit = bits >= (int)(sizeof(size_t) * 8) ? SIZE_MAX
                                                      : ((size_t)1 << bits) - 1;
    const char *what = NULL, *tname = "";
    size_t need = 0;
    ln_hash_iter it;
    void *k, *v;

    if (bits < 16 || bits > 64)
        return ln_error(LN_EINVAL, "target address width %d bits: it must be 16 to 64", bits);
    e->max_size = e->ctx->arena_size > e->blob_size ? e->ctx->arena_size : e->blob_size;
    if (e->ctx->arena_size > limit) {
        what = "the arena";
        need = e->ctx->arena_size;
    } else if (e->blob_size > limit) {
        what = "the constants";
        need = e->blob_size;
    }
    ln_hash_iter_init(&it, e->ctx->tensor_table);
    while (!what && ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v;
        size_t end = ln_tensor_size(te->tensor);
        if (!te->isstatic && te->planned && !ln_size_add(te->offset, end, &end))
            end = SIZE_MAX;
        if (end > e->max_size)
            e->max_size = end;
        if (end > limit) {
            what = te->isstatic ? "constant" : "tensor";
            tname = te->name;
            need = end;
        }
    }
    if (what)
        return ln_error(LN_EINVAL, "%s: %s%s%s%s needs %zu bytes; a target with a %d-bit "
                        "size_t addresses at most %zu%s", e->ctx->source, what,
                        *tname ? " '" : "", tname, *tname ? "'" : "", need, bits, limit,
                        bits < 64 ? " (for a 64-bit target, say so: ln-aot --addr-bits 64)"
                                  : "");
    return 0;
}

int ln_aot_emit(ln_context *ctx, const ln_aot_opts *opts, FILE *c, FILE *h,
                FILE *blob, ln_aot_stats *stats)
{
    emitter e;
    int ret;

    if (!ln_aot_is_ident(opts->name))
        return ln_error(LN_EINVAL, "model name '%s' is not a C identifier", opts->name);
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.o = opts;
    e.name = opts->name;
    e.up = ln_strdup(opts->name);
    for (char *s = e.up; *s; s++)
        if (*s >= 'a' && *s <= 'z')
            *s = (char)(*s - 'a' + 'A');
    e.idents = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
    e.locals = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    e.privsyms = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
    e.wmap = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    e.kernels = ln_hash_create(ln_str_hash, ln_str_cmp, ln_free, NULL);
    ln_aot_buf_init(&e.offs, NULL);
    ln_aot_buf_init(&e.statics, NULL);
    ln_aot_buf_init(&e.decls, NULL);
    ln_aot_buf_init(&e.body, NULL);

    ret = build(&e);
    if (!ret)
        ret = check_sizes(&e);
    if (!ret && h)
        ret = ln_aot_write_header(&e, h);
    if (!ret && opts->weights_file && blob)
        ret = ln_aot_write_blob(&e, blob);
    if (!ret)
        ret = ln_aot_write_source(&e, c);
    if (!ret && stats) {
        stats->weights_bytes = e.blob_size;
        stats->nweights = e.nw;
        stats->ncalls = e.ncalls;
        stats->ncopies = e.ncopies;
        stats->io_bytes = 0;
        if (!ctx->io_in_arena)
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < (k ? e.nout : e.nin); i++)
                    stats->io_bytes += ln_tensor_size((k ? e.outs : e.ins)[i].te->tensor);
        stats->kernels = kernel_list(e.kernels);
        stats->requant_bytes = 0;
        LN_LIST_FOREACH(ln_op, op, ctx->ops) {
            LN_LIST_FOREACH(ln_tensor_list_entry, tl, op->op_arg->tensors_in) {
                ln_tensor_entry *te = ln_tensor_table_find(ctx->tensor_table, tl->name);
                if (te && te->isstatic &&
                    (ln_streq(tl->arg_name, "mult") || ln_streq(tl->arg_name, "shift")))
                    stats->requant_bytes += ln_tensor_size(te->tensor);
            }
        }
    }

    ln_aot_buf_free(&e.offs);
    ln_aot_buf_free(&e.statics);
    ln_aot_buf_free(&e.decls);
    ln_aot_buf_free(&e.body);
    ln_list_free(e.guard);
    ln_hash_free(e.wmap);
    ln_hash_free(e.kernels);
    ln_hash_free(e.privsyms);
    ln_hash_free(e.locals);
    ln_hash_free(e.idents);
    ln_free(e.w);
    ln_free(e.ins);
    ln_free(e.outs);
    ln_free(e.up);
    return ret;
}
