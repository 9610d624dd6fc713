/*
 * ln_param.h -- op parameters: typed values keyed by arg name.
 *
 * A number param keeps the value as double, and saturated into float and
 * int (1e10 becomes INT_MAX in value_int, -inf becomes INT_MIN, NaN 0), so
 * an op reads whichever C type it wants.  Arrays keep the same three views.
 * A param list is an ln_list of ln_param_entry.
 */
#ifndef LN_PARAM_H
#define LN_PARAM_H

#include "ln_list.h"

LN_CPPSTART

typedef enum {
    LN_PARAM_INVALID = -1,
    LN_PARAM_NULL = 0,
    LN_PARAM_STRING,
    LN_PARAM_NUMBER,
    LN_PARAM_BOOL,
    LN_PARAM_ARRAY_STRING,
    LN_PARAM_ARRAY_NUMBER,
    LN_PARAM_ARRAY_BOOL
} ln_param_type;

typedef struct ln_param_entry {
    char *arg_name;
    ln_param_type type;
    int array_len;
    double value_double;
    float value_float;
    int value_int;
    ln_bool value_bool;
    char *value_string;
    char **value_array_string;
    double *value_array_double;
    float *value_array_float;
    int *value_array_int;
    ln_bool *value_array_bool;
} ln_param_entry;

const char *ln_param_type_name(ln_param_type type);
ln_param_entry *ln_param_entry_create(const char *arg_name, ln_param_type type);
void ln_param_entry_free(ln_param_entry *entry);
ln_param_entry *ln_param_entry_copy(const ln_param_entry *entry);
/* Set number / number array with saturation into float and int. */
void ln_param_set_satu_number(ln_param_entry *entry, double number);
void ln_param_set_satu_array_number(ln_param_entry *entry, int array_len,
                                    const double *array);
void ln_param_set_string(ln_param_entry *entry, const char *s);
void ln_param_set_bool(ln_param_entry *entry, ln_bool b);
void ln_param_set_array_string(ln_param_entry *entry, int array_len,
                               const char *const *array);
void ln_param_set_array_bool(ln_param_entry *entry, int array_len,
                             const ln_bool *array);
int ln_param_satu_int(double number);
float ln_param_satu_float(double number);

ln_list *ln_param_list_append_entry(ln_list *list, ln_param_entry *entry);
ln_list *ln_param_list_append_null(ln_list *list, const char *arg_name);
ln_list *ln_param_list_append_string(ln_list *list, const char *arg_name, const char *s);
ln_list *ln_param_list_append_number(ln_list *list, const char *arg_name, double number);
ln_list *ln_param_list_append_double(ln_list *list, const char *arg_name, double number);
ln_list *ln_param_list_append_float(ln_list *list, const char *arg_name, float number);
ln_list *ln_param_list_append_int(ln_list *list, const char *arg_name, int number);
ln_list *ln_param_list_append_bool(ln_list *list, const char *arg_name, ln_bool b);
ln_list *ln_param_list_append_array_string(ln_list *list, const char *arg_name,
                                           int array_len, const char *const *array);
ln_list *ln_param_list_append_array_number(ln_list *list, const char *arg_name,
                                           int array_len, const double *array);
ln_list *ln_param_list_append_array_double(ln_list *list, const char *arg_name,
                                           int array_len, const double *array);
ln_list *ln_param_list_append_array_float(ln_list *list, const char *arg_name,
                                          int array_len, const float *array);
ln_list *ln_param_list_append_array_int(ln_list *list, const char *arg_name,
                                        int array_len, const int *array);
ln_list *ln_param_list_append_array_bool(ln_list *list, const char *arg_name,
                                         int array_len, const ln_bool *array);
ln_list *ln_param_list_copy(ln_list *list);
void ln_param_list_free(ln_list *list);
ln_param_entry *ln_param_list_find(ln_list *list, const char *arg_name);
/* The first of two names found (LightNet's find2, for renamed params). */
ln_param_entry *ln_param_list_find2(ln_list *list, const char *arg_name1,
                                    const char *arg_name2);
ln_list *ln_param_list_remove(ln_list *list, const char *arg_name);
int ln_param_list_length(ln_list *list);
/* Writes prefix_N into buf with N the smallest unused index. */
char *ln_param_list_unique_arg_name(ln_list *list, char *buf, size_t n,
                                    const char *prefix);

LN_CPPEND
#endif
