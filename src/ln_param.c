/*
 * ln_param.c -- op parameters and param lists.
 *
 * Every setter first frees whatever value the entry held, then stores the
 * new one and sets the entry's type, so an entry never holds two kinds of
 * value.  Numbers are kept three ways (double, float, int) with
 * saturation, see ln_param_satu_int() and ln_param_satu_float().  Copies
 * are deep.  Nothing here knows which params an op accepts.
 */
#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "ln_param.h"

const char *ln_param_type_name(ln_param_type type)
{
    switch (type) {
    case LN_PARAM_NULL: return "null";
    case LN_PARAM_STRING: return "string";
    case LN_PARAM_NUMBER: return "number";
    case LN_PARAM_BOOL: return "bool";
    case LN_PARAM_ARRAY_STRING: return "array_string";
    case LN_PARAM_ARRAY_NUMBER: return "array_number";
    case LN_PARAM_ARRAY_BOOL: return "array_bool";
    default: return "invalid";
    }
}

/* INT_MAX for >= INT_MAX, INT_MIN for <= INT_MIN, 0 for NaN, otherwise
 * truncated toward zero like a C cast (which is undefined out of range). */
int ln_param_satu_int(double number)
{
    if (isnan(number))
        return 0;
    if (number >= (double)INT_MAX)
        return INT_MAX;
    if (number <= (double)INT_MIN)
        return INT_MIN;
    return (int)number;
}

/* Infinities and NaN stay what they are; finite doubles beyond the float
 * range become +-FLT_MAX (a finite param should stay finite). */
float ln_param_satu_float(double number)
{
    if (isnan(number) || isinf(number))
        return (float)number;
    if (number > (double)FLT_MAX)
        return FLT_MAX;
    if (number < -(double)FLT_MAX)
        return -FLT_MAX;
    return (float)number;
}

static void clear_value(ln_param_entry *e)
{
    int i;

    ln_free(e->value_string);
    if (e->value_array_string)
        for (i = 0; i < e->array_len; i++)
            ln_free(e->value_array_string[i]);
    ln_free(e->value_array_string);
    ln_free(e->value_array_double);
    ln_free(e->value_array_float);
    ln_free(e->value_array_int);
    ln_free(e->value_array_bool);
    e->array_len = 0;
    e->value_double = 0;
    e->value_float = 0;
    e->value_int = 0;
    e->value_bool = LN_FALSE;
    e->value_string = NULL;
    e->value_array_string = NULL;
    e->value_array_double = NULL;
    e->value_array_float = NULL;
    e->value_array_int = NULL;
    e->value_array_bool = NULL;
}

ln_param_entry *ln_param_entry_create(const char *arg_name, ln_param_type type)
{
    ln_param_entry *e;

    assert(arg_name);
    e = ln_alloc(sizeof(*e));
    memset(e, 0, sizeof(*e));
    e->arg_name = ln_strdup(arg_name);
    e->type = type;
    clear_value(e);
    return e;
}

void ln_param_entry_free(ln_param_entry *entry)
{
    if (!entry)
        return;
    clear_value(entry);
    ln_free(entry->arg_name);
    ln_free(entry);
}

ln_param_entry *ln_param_entry_copy(const ln_param_entry *entry)
{
    ln_param_entry *c;

    assert(entry);
    c = ln_param_entry_create(entry->arg_name, entry->type);
    switch (entry->type) {
    case LN_PARAM_STRING:
        ln_param_set_string(c, entry->value_string);
        break;
    case LN_PARAM_NUMBER:
        /* copy the three views as they are: an entry made by
         * append_float/int may hold views that are not satu(double) */
        c->value_double = entry->value_double;
        c->value_float = entry->value_float;
        c->value_int = entry->value_int;
        break;
    case LN_PARAM_BOOL:
        ln_param_set_bool(c, entry->value_bool);
        break;
    case LN_PARAM_ARRAY_STRING:
        ln_param_set_array_string(c, entry->array_len,
                                  (const char *const *)entry->value_array_string);
        break;
    case LN_PARAM_ARRAY_NUMBER:
        ln_param_set_satu_array_number(c, entry->array_len,
                                       entry->value_array_double);
        if (entry->array_len > 0) {
            memcpy(c->value_array_float, entry->value_array_float,
                   sizeof(float) * (size_t)entry->array_len);
            memcpy(c->value_array_int, entry->value_array_int,
                   sizeof(int) * (size_t)entry->array_len);
        }
        break;
    case LN_PARAM_ARRAY_BOOL:
        ln_param_set_array_bool(c, entry->array_len, entry->value_array_bool);
        break;
    default:
        break;
    }
    return c;
}

void ln_param_set_satu_number(ln_param_entry *entry, double number)
{
    assert(entry);
    clear_value(entry);
    entry->type = LN_PARAM_NUMBER;
    entry->value_double = number;
    entry->value_float = ln_param_satu_float(number);
    entry->value_int = ln_param_satu_int(number);
}

void ln_param_set_satu_array_number(ln_param_entry *entry, int array_len,
                                    const double *array)
{
    int i;

    assert(entry && array_len >= 0 && (array_len == 0 || array));
    clear_value(entry);
    entry->type = LN_PARAM_ARRAY_NUMBER;
    entry->array_len = array_len;
    if (array_len == 0)
        return;
    entry->value_array_double = ln_alloc(sizeof(double) * (size_t)array_len);
    entry->value_array_float = ln_alloc(sizeof(float) * (size_t)array_len);
    entry->value_array_int = ln_alloc(sizeof(int) * (size_t)array_len);
    for (i = 0; i < array_len; i++) {
        entry->value_array_double[i] = array[i];
        entry->value_array_float[i] = ln_param_satu_float(array[i]);
        entry->value_array_int[i] = ln_param_satu_int(array[i]);
    }
}

void ln_param_set_string(ln_param_entry *entry, const char *s)
{
    char *dup = s ? ln_strdup(s) : NULL;  /* s may be entry's own string */

    assert(entry);
    clear_value(entry);
    entry->type = LN_PARAM_STRING;
    entry->value_string = dup;
}

void ln_param_set_bool(ln_param_entry *entry, ln_bool b)
{
    assert(entry);
    clear_value(entry);
    entry->type = LN_PARAM_BOOL;
    entry->value_bool = b ? LN_TRUE : LN_FALSE;
}

void ln_param_set_array_string(ln_param_entry *entry, int array_len,
                               const char *const *array)
{
    char **dup = NULL;
    int i;

    assert(entry && array_len >= 0 && (array_len == 0 || array));
    if (array_len > 0) {
        dup = ln_alloc(sizeof(char *) * (size_t)array_len);
        for (i = 0; i < array_len; i++)
            dup[i] = array[i] ? ln_strdup(array[i]) : NULL;
    }
    clear_value(entry);
    entry->type = LN_PARAM_ARRAY_STRING;
    entry->array_len = array_len;
    entry->value_array_string = dup;
}

void ln_param_set_array_bool(ln_param_entry *entry, int array_len,
                             const ln_bool *array)
{
    int i;

    assert(entry && array_len >= 0 && (array_len == 0 || array));
    clear_value(entry);
    entry->type = LN_PARAM_ARRAY_BOOL;
    entry->array_len = array_len;
    if (array_len == 0)
        return;
    entry->value_array_bool = ln_alloc(sizeof(ln_bool) * (size_t)array_len);
    for (i = 0; i < array_len; i++)
        entry->value_array_bool[i] = array[i] ? LN_TRUE : LN_FALSE;
}

/* ---- lists ---- */

ln_list *ln_param_list_append_entry(ln_list *list, ln_param_entry *entry)
{
    return ln_list_append(list, entry);
}

ln_list *ln_param_list_append_null(ln_list *list, const char *arg_name)
{
    return ln_list_append(list, ln_param_entry_create(arg_name, LN_PARAM_NULL));
}

ln_list *ln_param_list_append_string(ln_list *list, const char *arg_name,
                                     const char *s)
{
    ln_param_entry *e = ln_param_entry_create(arg_name, LN_PARAM_STRING);

    ln_param_set_string(e, s);
    return ln_list_append(list, e);
}

ln_list *ln_param_list_append_number(ln_list *list, const char *arg_name,
                                     double number)
{
    ln_param_entry *e = ln_param_entry_create(arg_name, LN_PARAM_NUMBER);

    ln_param_set_satu_number(e, number);
    return ln_list_append(list, e);
}

ln_list *ln_param_list_append_double(ln_list *list, const char *arg_name,
                                     double number)
{
    return ln_param_list_append_number(list, arg_name, number);
}

ln_list *ln_param_list_append_float(ln_list *list, const char *arg_name,
                                    float number)
{
    return ln_param_list_append_number(list, arg_name, (double)number);
}

ln_list *ln_param_list_append_int(ln_list *list, const char *arg_name, int number)
{
    return ln_param_list_append_number(list, arg_name, (double)number);
}

ln_list *ln_param_list_append_bool(ln_list *list, const char *arg_name, ln_bool b)
{
    ln_param_entry *e = ln_param_entry_create(arg_name, LN_PARAM_BOOL);

    ln_param_set_bool(e, b);
    return ln_list_append(list, e);
}

ln_list *ln_param_list_append_array_string(ln_list *list, const char *arg_name,
                                           int array_len, const char *const *array)
{
    ln_param_entry *e = ln_param_entry_create(arg_name, LN_PARAM_ARRAY_STRING);

    ln_param_set_array_string(e, array_len, array);
    return ln_list_append(list, e);
}

ln_list *ln_param_list_append_array_number(ln_list *list, const char *arg_name,
                                           int array_len, const double *array)
{
    ln_param_entry *e = ln_param_entry_create(arg_name, LN_PARAM_ARRAY_NUMBER);

    ln_param_set_satu_array_number(e, array_len, array);
    return ln_list_append(list, e);
}

ln_list *ln_param_list_append_array_double(ln_list *list, const char *arg_name,
                                           int array_len, const double *array)
{
    return ln_param_list_append_array_number(list, arg_name, array_len, array);
}

ln_list *ln_param_list_append_array_float(ln_list *list, const char *arg_name,
                                          int array_len, const float *array)
{
    double *d = NULL;
    ln_list *l;
    int i;

    assert(array_len >= 0 && (array_len == 0 || array));
    if (array_len > 0) {
        d = ln_alloc(sizeof(double) * (size_t)array_len);
        for (i = 0; i < array_len; i++)
            d[i] = array[i];
    }
    l = ln_param_list_append_array_number(list, arg_name, array_len, d);
    ln_free(d);
    return l;
}

ln_list *ln_param_list_append_array_int(ln_list *list, const char *arg_name,
                                        int array_len, const int *array)
{
    double *d = NULL;
    ln_list *l;
    int i;

    assert(array_len >= 0 && (array_len == 0 || array));
    if (array_len > 0) {
        d = ln_alloc(sizeof(double) * (size_t)array_len);
        for (i = 0; i < array_len; i++)
            d[i] = array[i];
    }
    l = ln_param_list_append_array_number(list, arg_name, array_len, d);
    ln_free(d);
    return l;
}

ln_list *ln_param_list_append_array_bool(ln_list *list, const char *arg_name,
                                         int array_len, const ln_bool *array)
{
    ln_param_entry *e = ln_param_entry_create(arg_name, LN_PARAM_ARRAY_BOOL);

    ln_param_set_array_bool(e, array_len, array);
    return ln_list_append(list, e);
}

static void *entry_copy_wrapper(const void *p)
{
    return ln_param_entry_copy(p);
}

static void entry_free_wrapper(void *p)
{
    ln_param_entry_free(p);
}

ln_list *ln_param_list_copy(ln_list *list)
{
    return ln_list_copy_deep(list, entry_copy_wrapper);
}

void ln_param_list_free(ln_list *list)
{
    ln_list_free_deep(list, entry_free_wrapper);
}

ln_param_entry *ln_param_list_find(ln_list *list, const char *arg_name)
{
    assert(arg_name);
    LN_LIST_FOREACH(ln_param_entry, e, list) {
        if (strcmp(e->arg_name, arg_name) == 0)
            return e;
    }
    return NULL;
}

/* arg_name1 when present, else arg_name2 (a param's new and old names). */
ln_param_entry *ln_param_list_find2(ln_list *list, const char *arg_name1,
                                    const char *arg_name2)
{
    ln_param_entry *e = ln_param_list_find(list, arg_name1);

    return e ? e : ln_param_list_find(list, arg_name2);
}

/* Removes (and frees) the first entry named arg_name. */
ln_list *ln_param_list_remove(ln_list *list, const char *arg_name)
{
    ln_param_entry *e = ln_param_list_find(list, arg_name);

    if (!e)
        return list;
    list = ln_list_remove(list, e);
    ln_param_entry_free(e);
    return list;
}

int ln_param_list_length(ln_list *list)
{
    return ln_list_length(list);
}

/* Smallest N >= 0 such that "prefix_N" names no entry.  NULL (and an
 * error) when the name does not fit in n bytes. */
char *ln_param_list_unique_arg_name(ln_list *list, char *buf, size_t n,
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
        if (!ln_param_list_find(list, buf))
            return buf;
    }
}
