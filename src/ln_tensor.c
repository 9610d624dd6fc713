/*
 * ln_tensor.c -- tensors, the tensor table and tensor lists.
 *
 * A tensor's owned data comes from the CPU memory type (ln_mem.c) and goes
 * back to it in ln_tensor_free(); borrowed data is never freed here.  The
 * tensor table is an ln_hash keyed by the entry's own name string, so the
 * hash frees only values (entries) and the key dies with its entry.
 * Nothing here plans memory or reads files.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ln_tensor.h"

/* ---- dtypes ---- */

static const struct {
    const char *name;
    const char *old_name;       /* TensorLight's name, as old IR files use */
    size_t size;
} dtype_infos[LN_DTYPE_SIZE] = {
    { "float32", "TL_FLOAT", 4 },
    { "float64", "TL_DOUBLE", 8 },
    { "float16", "TL_HALF", 2 },
    { "int8", "TL_INT8", 1 },
    { "int16", "TL_INT16", 2 },
    { "int32", "TL_INT32", 4 },
    { "int64", "TL_INT64", 8 },
    { "uint8", "TL_UINT8", 1 },
    { "uint16", "TL_UINT16", 2 },
    { "uint32", "TL_UINT32", 4 },
    { "uint64", "TL_UINT64", 8 },
    { "bool", "TL_BOOL", 1 },
};

size_t ln_dtype_size(ln_dtype dtype)
{
    if (dtype < 0 || dtype >= LN_DTYPE_SIZE)
        return 0;
    return dtype_infos[dtype].size;
}

const char *ln_dtype_name(ln_dtype dtype)
{
    if (dtype < 0 || dtype >= LN_DTYPE_SIZE)
        return "unknown";
    return dtype_infos[dtype].name;
}

ln_dtype ln_dtype_from_name(const char *name)
{
    int i;

    if (!name)
        return LN_DTYPE_UNKNOWN;
    for (i = 0; i < LN_DTYPE_SIZE; i++)
        if (strcmp(name, dtype_infos[i].name) == 0 ||
            strcmp(name, dtype_infos[i].old_name) == 0)
            return (ln_dtype)i;
    if (strcmp(name, "TL_FLOAT16") == 0)
        return LN_DTYPE_FLOAT16;
    return LN_DTYPE_UNKNOWN;
}

/* ---- tensors ---- */

/* SIZE_MAX when a dim is negative or the product overflows: such a tensor
 * never passes ln_tensor_check_size. */
size_t ln_compute_length(int ndim, const int *dims)
{
    size_t len = 1;
    int i;

    assert(ndim >= 0 && ndim <= LN_MAXDIM);
    for (i = 0; i < ndim; i++)
        if (dims[i] < 0 || !ln_size_mul(len, (size_t)dims[i], &len))
            return SIZE_MAX;
    return len;
}

ln_tensor *ln_tensor_create(ln_dtype dtype, int ndim, const int *dims, void *data)
{
    ln_tensor *t;

    assert(dtype >= 0 && dtype < LN_DTYPE_SIZE);
    assert(ndim >= 0 && ndim <= LN_MAXDIM);
    assert(ndim == 0 || dims);
    t = ln_alloc(sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->dtype = dtype;
    t->ndim = ndim;
    if (ndim > 0)
        memcpy(t->dims, dims, sizeof(int) * (size_t)ndim);
    t->len = ln_compute_length(ndim, dims);
    t->data = data;
    t->owns_data = LN_FALSE;
    t->layout = LN_LAYOUT_NCHW;
    t->quant_count = 0;
    t->quant_axis = 0;
    t->scales = NULL;
    t->zero_points = NULL;
    return t;
}

ln_tensor *ln_tensor_create_alloc(ln_dtype dtype, int ndim, const int *dims)
{
    ln_tensor *t = ln_tensor_create(dtype, ndim, dims, NULL);

    t->data = ln_mem_type_info(LN_MEM_CPU)->alloc_func(ln_tensor_size(t));
    if (!t->data)
        ln_out_of_memory(ln_tensor_size(t));
    t->owns_data = LN_TRUE;
    return t;
}

void ln_tensor_free(ln_tensor *t)
{
    if (!t)
        return;
    if (t->owns_data && t->data)
        ln_mem_type_info(LN_MEM_CPU)->free_func(t->data);
    ln_free(t->scales);
    ln_free(t->zero_points);
    ln_free(t);
}

ln_tensor *ln_tensor_copy(const ln_tensor *t)
{
    ln_tensor *c;

    assert(t);
    if (t->data) {
        c = ln_tensor_create_alloc(t->dtype, t->ndim, t->dims);
        memcpy(c->data, t->data, ln_tensor_size(t));
    } else {
        c = ln_tensor_create(t->dtype, t->ndim, t->dims, NULL);
    }
    c->layout = t->layout;
    if (t->quant_count > 0)
        ln_tensor_set_quant(c, t->quant_count, t->quant_axis, t->scales,
                            t->zero_points);
    return c;
}

size_t ln_tensor_size(const ln_tensor *t)
{
    size_t n;

    assert(t);
    return ln_size_mul(t->len, ln_dtype_size(t->dtype), &n) ? n : SIZE_MAX;
}

int ln_tensor_check_size(const ln_tensor *t, const char *name)
{
    char buf[LN_MAXDIM * 24];

    for (int i = 0; i < t->ndim; i++)
        if (t->dims[i] < 0)
            return ln_error(LN_EINVAL, "tensor '%s' has a negative dimension: %s", name,
                            ln_dims_str(buf, sizeof buf, t->ndim, t->dims));
    if (t->len == SIZE_MAX)
        return ln_error(LN_EINVAL, "tensor '%s' %s: its element count overflows size_t",
                        name, ln_dims_str(buf, sizeof buf, t->ndim, t->dims));
    if (t->len > LN_MAX_ELEMS)
        return ln_error(LN_EINVAL, "tensor '%s' %s has %zu elements; at most %d fit "
                        "(kernels index in 32 bits)", name,
                        ln_dims_str(buf, sizeof buf, t->ndim, t->dims), t->len, LN_MAX_ELEMS);
    return 0;
}

ln_bool ln_tensor_same_shape(const ln_tensor *a, const ln_tensor *b)
{
    int i;

    assert(a && b);
    if (a->ndim != b->ndim)
        return LN_FALSE;
    for (i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i])
            return LN_FALSE;
    return LN_TRUE;
}

/* count 0 removes quantization; count 1 is per tensor (axis ignored);
 * count > 1 is per channel and must equal dims[axis].  zero_points may be
 * NULL (all zero). */
int ln_tensor_set_quant(ln_tensor *t, int count, int axis,
                        const float *scales, const int32_t *zero_points)
{
    assert(t);
    if (count < 0)
        return ln_error(LN_EINVAL, "quantization count %d is negative", count);
    if (count > 0 && !scales)
        return ln_error(LN_EINVAL, "quantization needs %d scales", count);
    if (count > 1) {
        if (axis < 0 || axis >= t->ndim)
            return ln_error(LN_EINVAL,
                            "quantization axis %d out of range for %d dims",
                            axis, t->ndim);
        if (t->dims[axis] != count)
            return ln_error(LN_EINVAL,
                            "%d per-channel scales but dims[%d] is %d",
                            count, axis, t->dims[axis]);
    }
    ln_free(t->scales);
    ln_free(t->zero_points);
    t->scales = NULL;
    t->zero_points = NULL;
    t->quant_count = count;
    t->quant_axis = count > 1 ? axis : 0;
    if (count == 0)
        return LN_OK;
    t->scales = ln_alloc(sizeof(float) * (size_t)count);
    memcpy(t->scales, scales, sizeof(float) * (size_t)count);
    t->zero_points = ln_alloc(sizeof(int32_t) * (size_t)count);
    if (zero_points)
        memcpy(t->zero_points, zero_points, sizeof(int32_t) * (size_t)count);
    else
        memset(t->zero_points, 0, sizeof(int32_t) * (size_t)count);
    return LN_OK;
}

/* Writes "[2, 3, 4]" ("[]" for a scalar), truncated to fit n bytes. */
char *ln_dims_str(char *buf, size_t n, int ndim, const int *dims)
{
    size_t pos = 0;
    int i, w;

    assert(buf && n > 0);
    buf[0] = '\0';
#define PUT(...)                                                    \
    do {                                                            \
        w = snprintf(buf + pos, n - pos, __VA_ARGS__);              \
        if (w < 0 || (size_t)w >= n - pos)                          \
            return buf;                                             \
        pos += (size_t)w;                                           \
    } while (0)
    PUT("[");
    for (i = 0; i < ndim; i++)
        PUT(i ? ", %d" : "%d", dims[i]);
    PUT("]");
#undef PUT
    return buf;
}

static float half_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;

    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 0x400), exp - 25);
    return sign ? -v : v;
}

static void print_elem(FILE *fp, const ln_tensor *t, size_t i)
{
    const void *d = t->data;

    switch (t->dtype) {
    case LN_DTYPE_FLOAT32: fprintf(fp, "%g", (double)((const float *)d)[i]); break;
    case LN_DTYPE_FLOAT64: fprintf(fp, "%g", ((const double *)d)[i]); break;
    case LN_DTYPE_FLOAT16:
        fprintf(fp, "%g", (double)half_to_float(((const uint16_t *)d)[i]));
        break;
    /* integers exactly: %g would print 1234567 as 1.23457e+06 */
    case LN_DTYPE_INT8: fprintf(fp, "%d", ((const int8_t *)d)[i]); break;
    case LN_DTYPE_INT16: fprintf(fp, "%d", ((const int16_t *)d)[i]); break;
    case LN_DTYPE_INT32: fprintf(fp, "%ld", (long)((const int32_t *)d)[i]); break;
    case LN_DTYPE_INT64:
        fprintf(fp, "%lld", (long long)((const int64_t *)d)[i]);
        break;
    case LN_DTYPE_UINT8: fprintf(fp, "%u", ((const uint8_t *)d)[i]); break;
    case LN_DTYPE_UINT16: fprintf(fp, "%u", ((const uint16_t *)d)[i]); break;
    case LN_DTYPE_UINT32:
        fprintf(fp, "%lu", (unsigned long)((const uint32_t *)d)[i]);
        break;
    case LN_DTYPE_UINT64:
        fprintf(fp, "%llu", (unsigned long long)((const uint64_t *)d)[i]);
        break;
    case LN_DTYPE_BOOL: fprintf(fp, "%d", ((const uint8_t *)d)[i] ? 1 : 0); break;
    default: assert(0 && "bad dtype"); break;
    }
}

/* Prints the sub-array of dimension dim starting at element *idx; returns
 * LN_FALSE once max elements were printed (the caller then closes its
 * brackets without printing more). */
static ln_bool print_dim(FILE *fp, const ln_tensor *t, int dim, size_t *idx,
                         size_t max)
{
    int i;

    fputc('[', fp);
    for (i = 0; i < t->dims[dim]; i++) {
        if (i)
            fputs(", ", fp);
        if (max && *idx >= max) {
            fputs("...", fp);
            fputc(']', fp);
            return LN_FALSE;
        }
        if (dim == t->ndim - 1) {
            print_elem(fp, t, *idx);
            (*idx)++;
        } else if (!print_dim(fp, t, dim + 1, idx, max)) {
            fputc(']', fp);
            return LN_FALSE;
        }
    }
    fputc(']', fp);
    return LN_TRUE;
}

/* "[[1, 2], [3, 4]]" and a newline; a scalar prints as its value, a tensor
 * without data as "(no data)".  After max_elems values (0: no limit) the
 * rest is "...". */
void ln_tensor_fprint(FILE *fp, const ln_tensor *t, size_t max_elems)
{
    size_t idx = 0;

    assert(fp && t);
    if (!t->data && t->len > 0)
        fputs("(no data)", fp);
    else if (t->ndim == 0)
        print_elem(fp, t, 0);
    else
        print_dim(fp, t, 0, &idx, max_elems);
    fputc('\n', fp);
}

/* ---- tensor entries and the table ---- */

ln_tensor_entry *ln_tensor_entry_create(const char *name, ln_tensor *tensor)
{
    ln_tensor_entry *e;

    assert(name);
    e = ln_alloc(sizeof(*e));
    memset(e, 0, sizeof(*e));
    e->name = ln_strdup(name);
    e->tensor = tensor;
    e->creater = NULL;
    e->owner = NULL;
    e->isstatic = LN_FALSE;
    e->mtype = LN_MEM_NONE;
    e->offset = 0;
    e->planned = LN_FALSE;
    e->is_io = LN_FALSE;
    return e;
}

void ln_tensor_entry_free(ln_tensor_entry *entry)
{
    if (!entry)
        return;
    ln_free(entry->name);
    ln_free(entry->creater);
    ln_free(entry->owner);
    ln_free(entry->io_buffer);
    ln_tensor_free(entry->tensor);
    ln_free(entry);
}

void ln_tensor_entry_set_io_buffer(ln_tensor_entry *entry, const char *io_buffer)
{
    char *old = entry->io_buffer;
    entry->io_buffer = io_buffer ? ln_strdup(io_buffer) : NULL;
    ln_free(old);
}

void ln_tensor_entry_set_creater(ln_tensor_entry *entry, const char *creater)
{
    assert(entry);
    ln_free(entry->creater);
    entry->creater = creater ? ln_strdup(creater) : NULL;
}

void ln_tensor_entry_set_owner(ln_tensor_entry *entry, const char *owner)
{
    char *old = entry->owner;
    assert(entry);
    entry->owner = owner ? ln_strdup(owner) : NULL;
    ln_free(old);
}

static void entry_free_wrapper(void *p)
{
    ln_tensor_entry_free(p);
}

ln_hash *ln_tensor_table_create(void)
{
    return ln_hash_create(ln_str_hash, ln_str_cmp, NULL, entry_free_wrapper);
}

/* The key is the entry's own name, which dies with the old entry, so an
 * existing entry is removed first instead of being replaced in place. */
int ln_tensor_table_insert(ln_hash *table, ln_tensor_entry *entry)
{
    ln_tensor_entry *old;
    int replaced = 0;

    assert(table && entry && entry->name);
    old = ln_hash_find(table, entry->name);
    if (old == entry)
        return 0;
    if (old) {
        ln_hash_remove(table, entry->name);
        replaced = 1;
    }
    ln_hash_insert(table, entry->name, entry);
    return replaced ? 0 : 1;
}

ln_bool ln_tensor_table_remove(ln_hash *table, const char *name)
{
    assert(table && name);
    return ln_hash_remove(table, name);
}

ln_tensor_entry *ln_tensor_table_find(const ln_hash *table, const char *name)
{
    assert(table && name);
    return ln_hash_find(table, name);
}

void ln_tensor_table_free(ln_hash *table)
{
    ln_hash_free(table);
}

void ln_tensor_table_set_data(ln_hash *table, void *base)
{
    ln_hash_iter it;
    void *k, *v;

    assert(table);
    ln_hash_iter_init(&it, table);
    while (ln_hash_iter_next(&it, &k, &v)) {
        ln_tensor_entry *e = v;

        if (!e->planned || e->isstatic || !e->tensor || e->io_buffer)
            continue;
        if (e->tensor->owns_data) {     /* stale copy from before planning? */
            ln_mem_type_info(LN_MEM_CPU)->free_func(e->tensor->data);
            e->tensor->owns_data = LN_FALSE;
        }
        e->tensor->data = (char *)base + e->offset;
    }
}

/* ---- tensor lists ---- */

static ln_tensor_list_entry *list_entry_create(const char *arg_name,
                                               const char *name)
{
    ln_tensor_list_entry *e = ln_alloc(sizeof(*e));

    e->arg_name = arg_name ? ln_strdup(arg_name) : NULL;
    e->name = name ? ln_strdup(name) : NULL;
    return e;
}

static void list_entry_free(void *p)
{
    ln_tensor_list_entry *e = p;

    if (!e)
        return;
    ln_free(e->arg_name);
    ln_free(e->name);
    ln_free(e);
}

static void *list_entry_copy(const void *p)
{
    const ln_tensor_list_entry *e = p;

    return list_entry_create(e->arg_name, e->name);
}

ln_list *ln_tensor_list_append(ln_list *list, const char *arg_name, const char *name)
{
    return ln_list_append(list, list_entry_create(arg_name, name));
}

void ln_tensor_list_free(ln_list *list)
{
    ln_list_free_deep(list, list_entry_free);
}

ln_list *ln_tensor_list_copy(ln_list *list)
{
    return ln_list_copy_deep(list, list_entry_copy);
}

ln_tensor_list_entry *ln_tensor_list_find_by_arg_name(ln_list *list,
                                                      const char *arg_name)
{
    LN_LIST_FOREACH(ln_tensor_list_entry, e, list) {
        if (ln_streq(e->arg_name, arg_name))
            return e;
    }
    return NULL;
}

ln_tensor_list_entry *ln_tensor_list_find_by_name(ln_list *list, const char *name)
{
    LN_LIST_FOREACH(ln_tensor_list_entry, e, list) {
        if (ln_streq(e->name, name))
            return e;
    }
    return NULL;
}

const char *ln_tensor_list_find_name(ln_list *list, const char *arg_name)
{
    ln_tensor_list_entry *e = ln_tensor_list_find_by_arg_name(list, arg_name);

    return e ? e->name : NULL;
}

int ln_tensor_list_length(ln_list *list)
{
    return ln_list_length(list);
}

/* Smallest N >= 0 such that "prefix_N" is no arg_name in the list.  NULL
 * (and an error) when the name does not fit in n bytes. */
char *ln_tensor_list_unique_arg_name(ln_list *list, char *buf, size_t n,
                                     const char *prefix)
{
    int idx, w;

    assert(buf && prefix);
    for (idx = 0;; idx++) {
        w = snprintf(buf, n, "%s_%d", prefix, idx);
        if (w < 0 || (size_t)w >= n) {
            ln_error(LN_EINVAL, "arg name '%s_%d' longer than %zu bytes",
                     prefix, idx, n ? n - 1 : 0);
            return NULL;
        }
        if (!ln_tensor_list_find_by_arg_name(list, buf))
            return buf;
    }
}
