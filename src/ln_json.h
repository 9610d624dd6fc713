/*
 * ln_json.h -- LightNet's JSON IR, read and written with cJSON.
 *
 *   {"data": "model.params",            optional weights file, relative to the JSON
 *    "arch": "cpu",                     present once compiled
 *    "ops": [{"name", "optype", "tensors_in": [{"arg_name", "name"}],
 *             "tensors_out": [...], "params": [{"arg_name", "value"}]}],
 *    "memory_plan": {...}}              present once planned (see ln_context.c)
 *
 * Parsing checks the structure and names the file, line and column of a
 * syntax error, or the op and field of a structural one.
 */
#ifndef LN_JSON_H
#define LN_JSON_H

#include "ln_op.h"

LN_CPPSTART

struct cJSON;

/* Parse text into *root (a cJSON tree the caller frees with cJSON_Delete);
 * LN_EPARSE with "source:line:col: ..." on a syntax error. */
int ln_json_parse_text(const char *text, const char *source, struct cJSON **root);
/* Build ops from the "ops" array; ops are created from the registered
 * prototypes and share tensor_table.  Unknown or stripped optypes and
 * malformed fields are errors naming the op. */
int ln_json_parse_ops(const struct cJSON *root, const char *source,
                      ln_hash *tensor_table, ln_list **ops);
/* A cJSON object for one op / one param (for printing the IR). */
struct cJSON *ln_json_op(const ln_op *op);
struct cJSON *ln_json_param(const ln_param_entry *pe);

LN_CPPEND
#endif
