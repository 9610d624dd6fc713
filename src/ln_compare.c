/*
 * ln_compare.c -- inputs for ln-quant (--calib sets) and the layer-by-layer
 * comparison of two runs (ln_quant.h): per tensor both have, the SQNR
 * (10 log10 of the reference's power over the error's), the largest
 * absolute error and the reference's range, summed over every run, worst
 * SQNR first.
 *
 * Model a may be int8: its QuantizeLinear outputs are found in a's graph
 * imported without fusion (ln_compare_set_qparams); the fused graph keeps
 * those names for the int8 tensors, which compare dequantized with the
 * float tensor each quantizes.
 */
#include <math.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include "ln_quant.h"
#include "ln_interp.h"

/* ---- inputs ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path: a file (one) or a directory's regular files, sorted */
static int list_path(const char *path, char ***files, int *n)
{
    struct stat st;
    DIR *d;
    struct dirent *e;
    int cap = 0;

    *files = NULL;
    *n = 0;
    if (stat(path, &st))
        return ln_error(LN_EIO, "--calib: cannot read '%s'", path);
    if (!S_ISDIR(st.st_mode)) {
        *files = ln_alloc(sizeof(char *));
        (*files)[0] = ln_strdup(path);
        *n = 1;
        return 0;
    }
    if (!(d = opendir(path)))
        return ln_error(LN_EIO, "--calib: cannot open directory '%s'", path);
    while ((e = readdir(d))) {
        char *f;
        if (e->d_name[0] == '.')
            continue;
        f = ln_sprintf("%s/%s", path, e->d_name);
        if (stat(f, &st) || !S_ISREG(st.st_mode)) {
            ln_free(f);
            continue;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *files = ln_realloc(*files, sizeof(char *) * (size_t)cap);
        }
        (*files)[(*n)++] = f;
    }
    closedir(d);
    if (!*n)
        return ln_error(LN_EINVAL, "--calib: directory '%s' has no files", path);
    qsort(*files, (size_t)*n, sizeof(char *), cmp_str);
    return 0;
}

int ln_quant_inputs_add(ln_quant_inputs *in, const char *arg)
{
    char *s = ln_strdup(arg), *p = s, *names[64];
    char **lists[64];
    int counts[64], k = 0, ret = 0, n = -1;

    while (p && !ret) {
        char *e = strchr(p, ','), *eq;
        if (e)
            *e = '\0';
        if (k == 64) {
            ret = ln_error(LN_EINVAL, "--calib: more than 64 graph inputs in '%s'", arg);
            break;
        }
        eq = strchr(p, '=');
        names[k] = eq ? (*eq = '\0', p) : NULL;
        if ((ret = list_path(eq ? eq + 1 : p, &lists[k], &counts[k]))) {
            k++;
            break;
        }
        if (n >= 0 && counts[k] != n)
            ret = ln_error(LN_EINVAL, "--calib '%s': %d files for one input, %d for another",
                           arg, n, counts[k]);
        n = counts[k];
        k++;
        p = e ? e + 1 : NULL;
    }
    if (!ret && in->n && in->k != k)
        ret = ln_error(LN_EINVAL, "--calib '%s' names %d inputs, an earlier one %d", arg, k,
                       in->k);
    for (int i = 0; !ret && i < k; i++) {
        const char *old = in->n ? in->names[i] : NULL;
        if (in->n && !((!old && !names[i]) || (old && names[i] && ln_streq(old, names[i]))))
            ret = ln_error(LN_EINVAL, "--calib '%s': input %d is not named as before", arg, i);
    }
    if (!ret) {
        if (!in->n) {
            in->k = k;
            in->names = ln_alloc(sizeof(char *) * (size_t)k);
            for (int i = 0; i < k; i++)
                in->names[i] = names[i] ? ln_strdup(names[i]) : NULL;
        }
        in->files = ln_realloc(in->files, sizeof(char *) * (size_t)((in->n + n) * k));
        for (int r = 0; r < n; r++)
            for (int i = 0; i < k; i++)
                in->files[(in->n + r) * k + i] = ln_strdup(lists[i][r]);
        in->n += n;
    }
    for (int i = 0; i < k; i++) {
        for (int j = 0; j < counts[i] && lists[i]; j++)
            ln_free(lists[i][j]);
        ln_free(lists[i]);
    }
    ln_free(s);
    return ret;
}

void ln_quant_inputs_clear(ln_quant_inputs *in)
{
    for (int i = 0; i < in->n * in->k; i++)
        ln_free(in->files[i]);
    for (int i = 0; i < in->k; i++)
        ln_free(in->names[i]);
    ln_free(in->files);
    ln_free(in->names);
    memset(in, 0, sizeof *in);
}

/* the graph inputs of ctx (input ops), in order */
static int graph_inputs(const ln_context *ctx, const char **names, int max)
{
    int n = 0;
    LN_LIST_FOREACH(ln_op, op, ctx->ops) {
        if (!strncmp(op->op_arg->optype, "input", 5) && n < max) {
            ln_tensor_entry *te = ln_op_tensor_out(op->op_arg, "dst");
            if (te)
                names[n++] = te->name;
        }
    }
    return n;
}

int ln_quant_inputs_set(const ln_quant_inputs *in, int r, ln_context *ctx)
{
    const char *gin[64];
    int ng = graph_inputs(ctx, gin, 64);

    for (int i = 0; i < in->k; i++) {
        const char *name = in->names[i], *file = in->files[r * in->k + i];
        size_t len = 0;
        char *buf;
        int ret;
        if (!name) {
            if (ng != 1)
                return ln_error(LN_EINVAL, "the model has %d graph inputs: name them "
                                "(NAME=FILE)", ng);
            name = gin[0];
        }
        if (!ln_context_tensor(ctx, name))
            return ln_error(LN_ENOTFOUND, "the model has no input '%s'", name);
        if (!(buf = ln_read_text(file, &len)))
            return ln_error_code();
        if (len != ln_context_data_size(ctx, name))
            ret = ln_error(LN_EINVAL, "'%s' has %zu bytes, input '%s' needs %zu", file, len,
                           name, ln_context_data_size(ctx, name));
        else
            ret = ln_context_set_data(ctx, name, buf, len);
        ln_free(buf);
        if (ret)
            return ret;
    }
    return 0;
}

/* ---- comparison ---- */

typedef struct {
    char *name;                 /* the reference tensor */
    char *a_name;               /* a's tensor compared with it */
    double sig, err, maxerr, lo, hi;
    double own;                 /* error of the reference quantized with a's parameters */
    ln_bool has_own;
    size_t n;
} cstat;

typedef struct {
    char *src, *dst;            /* QuantizeLinear: src -> dst; DequantizeLinear: src NULL */
    float scale;
    int32_t zp;
    ln_bool u8;
} qparam;

struct ln_compare {
    cstat *s;
    int n, cap;
    qparam *q;
    int nq;
};

ln_compare *ln_compare_create(void)
{
    ln_compare *c = ln_alloc(sizeof *c);
    memset(c, 0, sizeof *c);
    return c;
}

void ln_compare_free(ln_compare *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n; i++) {
        ln_free(c->s[i].name);
        ln_free(c->s[i].a_name);
    }
    for (int i = 0; i < c->nq; i++) {
        ln_free(c->q[i].src);
        ln_free(c->q[i].dst);
    }
    ln_free(c->s);
    ln_free(c->q);
    ln_free(c);
}

int ln_compare_set_qparams(ln_compare *c, ln_context *a)
{
    LN_LIST_FOREACH(ln_op, op, a->ops) {
        ln_tensor_entry *src, *dst, *sc, *zp;
        ln_tensor *st, *zt = NULL;
        qparam *p;
        ln_bool dq = !strncmp(op->op_arg->optype, "dequantize_linear", 17);
        if (!dq && strncmp(op->op_arg->optype, "quantize_linear", 15))
            continue;
        src = ln_op_tensor_in(op->op_arg, "src");
        dst = ln_op_tensor_out(op->op_arg, "dst");
        sc = ln_op_tensor_in(op->op_arg, "scale");
        zp = ln_op_tensor_in(op->op_arg, "zero_point");
        if (!src || !dst || !sc || ln_context_static_data(a, sc->name, &st) || st->len != 1 ||
            (zp && (ln_context_static_data(a, zp->name, &zt) || zt->len != 1)) ||
            (zt && zt->dtype != LN_DTYPE_INT8 && zt->dtype != LN_DTYPE_UINT8))
            continue;   /* per axis, not constant or int32: compared by name only */
        c->q = ln_realloc(c->q, sizeof(qparam) * (size_t)(c->nq + 1));
        p = &c->q[c->nq++];
        p->src = dq ? NULL : ln_strdup(src->name);
        p->dst = ln_strdup(dst->name);
        p->scale = ((float *)st->data)[0];
        p->u8 = !zt || zt->dtype == LN_DTYPE_UINT8;
        p->zp = !zt ? 0 : p->u8 ? ((uint8_t *)zt->data)[0] : ((int8_t *)zt->data)[0];
    }
    ln_error_clear();
    return 0;
}

static cstat *stat_of(ln_compare *c, const char *name, const char *a_name)
{
    for (int i = 0; i < c->n; i++)
        if (ln_streq(c->s[i].name, name))
            return &c->s[i];
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->s = ln_realloc(c->s, sizeof(cstat) * (size_t)c->cap);
    }
    memset(&c->s[c->n], 0, sizeof(cstat));
    c->s[c->n].name = ln_strdup(name);
    c->s[c->n].a_name = ln_strdup(a_name);
    c->s[c->n].lo = DBL_MAX;
    c->s[c->n].hi = -DBL_MAX;
    return &c->s[c->n++];
}

/* a's value of element i of tensor t as float (int8 / uint8 through p) */
static double value_of(const ln_tensor *t, const qparam *p, size_t i)
{
    double q;
    if (t->dtype == LN_DTYPE_FLOAT32)
        return ((const float *)t->data)[i];
    if (t->dtype == LN_DTYPE_INT8)
        q = ((const int8_t *)t->data)[i] - (p->u8 ? p->zp - 128 : p->zp);
    else
        q = ((const uint8_t *)t->data)[i] - (p->u8 ? p->zp : p->zp + 128);
    return q * p->scale;
}

static void accumulate(ln_compare *c, const char *name, const float *ref, size_t n,
                       const ln_tensor *at, const char *a_name, const qparam *p)
{
    cstat *s = stat_of(c, name, a_name);
    const qparam *own = p;

    if (!own)   /* a float tensor that a DequantizeLinear made */
        for (int i = 0; i < c->nq; i++)
            if (!c->q[i].src && ln_streq(c->q[i].dst, a_name))
                own = &c->q[i];
    s->has_own = own != NULL;
    for (size_t i = 0; i < n; i++) {
        double r = ref[i], d = value_of(at, p, i) - r;
        if (own) {  /* the reference through a's quantization alone */
            int lo = own->u8 ? 0 : -128, hi = own->u8 ? 255 : 127;
            double qv = nearbyint(r / own->scale) + own->zp;
            qv = qv < lo ? lo : qv > hi ? hi : qv;
            s->own += ((qv - own->zp) * own->scale - r) * ((qv - own->zp) * own->scale - r);
        }
        s->sig += r * r;
        s->err += d * d;
        if (fabs(d) > s->maxerr || d != d)
            s->maxerr = d != d ? INFINITY : fabs(d);
        if (r < s->lo)
            s->lo = r;
        if (r > s->hi)
            s->hi = r;
    }
    s->n += n;
}

/* a's tensor for reference tensor name: the int8 one a made of it, or the same name */
static const ln_tensor *match(const ln_compare *c, const ln_context *a, const char *name,
                              size_t n, const char **a_name, const qparam **p)
{
    const ln_tensor *t;
    for (int i = 0; i < c->nq; i++) {
        if (!c->q[i].src || !ln_streq(c->q[i].src, name))
            continue;
        t = ln_context_tensor(a, c->q[i].dst);
        if (t && t->data && t->len == n &&
            (t->dtype == LN_DTYPE_INT8 || t->dtype == LN_DTYPE_UINT8)) {
            *a_name = c->q[i].dst;
            *p = &c->q[i];
            return t;
        }
    }
    t = ln_context_tensor(a, name);
    *a_name = name;
    *p = NULL;
    if (t && t->data && t->len == n && t->dtype == LN_DTYPE_FLOAT32)
        return t;
    return NULL;
}

int ln_compare_add_run(ln_compare *c, const ln_context *a, const ln_context *ref)
{
    ln_hash_iter it;
    void *k, *v;

    ln_hash_iter_init(&it, ref->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v;
        const ln_tensor *at;
        const char *a_name;
        const qparam *p;
        if (te->isstatic || !te->tensor->data || te->tensor->dtype != LN_DTYPE_FLOAT32)
            continue;
        at = match(c, a, te->name, te->tensor->len, &a_name, &p);
        if (at)
            accumulate(c, te->name, te->tensor->data, te->tensor->len, at, a_name, p);
    }
    return 0;
}

/* one reference file for tensor name, when DIR has it; 1 when compared */
static int add_file(ln_compare *c, const ln_context *a, const char *dir, const char *name,
                    ln_hash *seen)
{
    char *fname, *p, *buf;
    size_t len = 0, nd = strlen(dir);
    struct stat st;
    const ln_tensor *at;
    const char *a_name;
    const qparam *qp;

    if (ln_hash_find_extended(seen, name, NULL, NULL))
        return 0;
    ln_hash_insert(seen, (void *)name, NULL);
    fname = ln_sprintf("%s/%s.bin", dir, name);
    for (p = fname + nd + 1; *p && p < fname + strlen(fname) - 4; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
    if (stat(fname, &st) || !S_ISREG(st.st_mode)) {
        ln_free(fname);
        return 0;
    }
    if (!(buf = ln_read_text(fname, &len))) {
        ln_free(fname);
        return -1;
    }
    at = len % 4 ? NULL : match(c, a, name, len / 4, &a_name, &qp);
    if (at)
        accumulate(c, name, (const float *)buf, len / 4, at, a_name, qp);
    ln_free(buf);
    ln_free(fname);
    return at ? 1 : 0;
}

int ln_compare_add_dir(ln_compare *c, const ln_context *a, const char *dir)
{
    ln_hash *seen = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    ln_hash_iter it;
    void *k, *v;
    int found = 0, r;

    /* the float tensors a's QuantizeLinears read (a has their int8 form), then a's own */
    for (int i = 0; i < c->nq; i++) {
        if (!c->q[i].src)
            continue;
        if ((r = add_file(c, a, dir, c->q[i].src, seen)) < 0)
            goto fail;
        found += r;
    }
    ln_hash_iter_init(&it, a->tensor_table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *te = v;
        if (te->isstatic)
            continue;
        if ((r = add_file(c, a, dir, te->name, seen)) < 0)
            goto fail;
        found += r;
    }
    ln_hash_free(seen);
    if (!found)
        return ln_error(LN_ENOTFOUND, "--compare: no file in '%s' is named after a tensor of "
                        "the model (<name>.bin, raw float32 of its size)", dir);
    return 0;
fail:
    ln_hash_free(seen);
    return ln_error_code();
}

static double db(double sig, double err)
{
    if (err == 0)
        return INFINITY;
    if (err != err || sig == 0)
        return -INFINITY;
    return 10.0 * log10(sig / err);
}

static double sqnr(const cstat *s)
{
    return db(s->sig, s->err);
}

/* the order: a quantized tensor by the error of its own range (the layer
 * that causes an error first, not the ones it reaches), another by its
 * SQNR against the reference */
static double key(const cstat *s)
{
    return s->has_own ? db(s->sig, s->own) : sqnr(s);
}

static int cmp_stat(const void *a, const void *b)
{
    const cstat *x = a, *y = b;
    double sx = key(x), sy = key(y);
    if (sx < sy)
        return -1;
    if (sx > sy)
        return 1;
    return strcmp(x->name, y->name);
}

static void fmt_db(char *buf, size_t n, double q)
{
    if (isinf(q))
        snprintf(buf, n, "%s", q > 0 ? "exact" : "-inf");
    else
        snprintf(buf, n, "%.2f", q);
}

void ln_compare_print(FILE *fp, const ln_compare *c, int max_rows)
{
    cstat *s = ln_alloc(sizeof(cstat) * (size_t)(c->n ? c->n : 1));
    int rows;

    memcpy(s, c->s, sizeof(cstat) * (size_t)c->n);
    qsort(s, (size_t)c->n, sizeof(cstat), cmp_stat);
    rows = max_rows > 0 && max_rows < c->n ? max_rows : c->n;
    fprintf(fp, "%-40s %9s %9s %11s %23s  %s\n", "tensor (worst first)", "SQNR dB", "own dB",
            "max error", "reference range", "compared with");
    for (int i = 0; i < rows; i++) {
        char sq[32], so[32];
        fmt_db(sq, sizeof sq, sqnr(&s[i]));
        if (s[i].has_own)
            fmt_db(so, sizeof so, db(s[i].sig, s[i].own));
        else
            snprintf(so, sizeof so, "-");
        fprintf(fp, "%-40s %9s %9s %11.4g [%10.4g, %10.4g]  %s\n", s[i].name, sq, so, s[i].maxerr,
                s[i].lo, s[i].hi, ln_streq(s[i].a_name, s[i].name) ? "" : s[i].a_name);
    }
    if (rows < c->n)
        fprintf(fp, "(%d more)\n", c->n - rows);
    ln_free(s);
}

const char *ln_compare_worst(const ln_compare *c)
{
    const cstat *w = NULL;
    for (int i = 0; i < c->n; i++)
        if (!w || cmp_stat(&c->s[i], w) < 0)
            w = &c->s[i];
    return w ? w->name : NULL;
}

double ln_compare_sqnr(const ln_compare *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (ln_streq(c->s[i].name, name))
            return sqnr(&c->s[i]);
    return -1e30;
}
