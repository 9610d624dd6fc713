/*
 * ln_json.c -- the JSON IR (see ln_json.h).
 *
 * cJSON does the syntax; this file turns the tree into ops and back.  A
 * param's JSON value decides its type: string, number, bool, null, or an
 * array of strings / numbers / bools (mixed arrays are an error).
 */
#include <string.h>
#include <cjson/cJSON.h>
#include "ln_json.h"
#include "ln_arch.h"

int ln_json_parse_text(const char *text, const char *source, cJSON **root)
{
    const char *end = NULL;
    cJSON *r = cJSON_ParseWithOpts(text, &end, 1);

    if (!r) {
        const char *at = end ? end : cJSON_GetErrorPtr();
        int line = 1, col = 1;
        if (!at)
            at = text;
        for (const char *p = text; *p && p < at; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        if (!*at)
            return ln_error(LN_EPARSE, "%s:%d:%d: malformed JSON: unexpected end of input",
                            source, line, col);
        {
            int n = 0;
            while (n < 20 && at[n] && at[n] != '\n' && at[n] != '\r')
                n++;
            return ln_error(LN_EPARSE, "%s:%d:%d: malformed JSON near '%.*s'", source,
                            line, col, n, at);
        }
    }
    *root = r;
    return 0;
}

static int parse_param(const cJSON *j, const char *source, const char *opname,
                       ln_param_entry **out)
{
    const cJSON *an = cJSON_GetObjectItemCaseSensitive(j, "arg_name");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "value");
    ln_param_entry *pe;

    if (!cJSON_IsObject(j) || !cJSON_IsString(an))
        return ln_error(LN_EPARSE, "%s: op '%s': each param needs a string 'arg_name'",
                        source, opname);
    if (!v)
        return ln_error(LN_EPARSE, "%s: op '%s': param '%s' has no 'value'", source,
                        opname, an->valuestring);
    if (cJSON_IsString(v)) {
        pe = ln_param_entry_create(an->valuestring, LN_PARAM_STRING);
        ln_param_set_string(pe, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        pe = ln_param_entry_create(an->valuestring, LN_PARAM_NUMBER);
        ln_param_set_satu_number(pe, v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        pe = ln_param_entry_create(an->valuestring, LN_PARAM_BOOL);
        ln_param_set_bool(pe, cJSON_IsTrue(v));
    } else if (cJSON_IsNull(v)) {
        pe = ln_param_entry_create(an->valuestring, LN_PARAM_NULL);
    } else if (cJSON_IsArray(v)) {
        int n = cJSON_GetArraySize(v), kind = -1, i = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, v) {
            int k = cJSON_IsNumber(e) ? 0 : cJSON_IsString(e) ? 1 : cJSON_IsBool(e) ? 2 : 3;
            if (k == 3 || (kind >= 0 && k != kind))
                return ln_error(LN_EPARSE,
                                "%s: op '%s': param '%s' must be an array of numbers, "
                                "strings or bools, not a mix", source, opname,
                                an->valuestring);
            kind = k;
        }
        if (kind <= 0) {
            double *a = ln_alloc(sizeof(double) * (size_t)(n ? n : 1));
            cJSON_ArrayForEach(e, v) a[i++] = e->valuedouble;
            pe = ln_param_entry_create(an->valuestring, LN_PARAM_ARRAY_NUMBER);
            ln_param_set_satu_array_number(pe, n, a);
            ln_free(a);
        } else if (kind == 1) {
            const char **a = ln_alloc(sizeof(char *) * (size_t)n);
            cJSON_ArrayForEach(e, v) a[i++] = e->valuestring;
            pe = ln_param_entry_create(an->valuestring, LN_PARAM_ARRAY_STRING);
            ln_param_set_array_string(pe, n, a);
            ln_free((void *)a);
        } else {
            ln_bool *a = ln_alloc(sizeof(ln_bool) * (size_t)n);
            cJSON_ArrayForEach(e, v) a[i++] = cJSON_IsTrue(e);
            pe = ln_param_entry_create(an->valuestring, LN_PARAM_ARRAY_BOOL);
            ln_param_set_array_bool(pe, n, a);
            ln_free(a);
        }
    } else {
        return ln_error(LN_EPARSE, "%s: op '%s': param '%s' has an object value",
                        source, opname, an->valuestring);
    }
    *out = pe;
    return 0;
}

static int parse_tensors(const cJSON *arr, const char *source, const char *opname,
                         const char *field, ln_list **out)
{
    const cJSON *t;
    ln_list *list = NULL;

    if (!arr) {
        *out = NULL;
        return 0;
    }
    if (!cJSON_IsArray(arr))
        return ln_error(LN_EPARSE, "%s: op '%s': field '%s' should be an array",
                        source, opname, field);
    cJSON_ArrayForEach(t, arr) {
        const cJSON *an = cJSON_GetObjectItemCaseSensitive(t, "arg_name");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(t, "name");
        if (!cJSON_IsString(an) || !cJSON_IsString(nm) || !*nm->valuestring) {
            ln_tensor_list_free(list);
            return ln_error(LN_EPARSE,
                            "%s: op '%s': each entry of '%s' needs string 'arg_name' and 'name'",
                            source, opname, field);
        }
        if (ln_tensor_list_find_by_arg_name(list, an->valuestring)) {
            ln_tensor_list_free(list);
            return ln_error(LN_EPARSE, "%s: op '%s': arg_name '%s' appears twice in '%s'",
                            source, opname, an->valuestring, field);
        }
        list = ln_tensor_list_append(list, an->valuestring, nm->valuestring);
    }
    *out = list;
    return 0;
}

/* "guard": [{"tensor": "c", "value": true}, ...] (a branch of a run-time
 * If, outermost condition first) -> entries with name c, arg_name "true". */
static int parse_guard(const cJSON *arr, const char *source, const char *opname, ln_list **out)
{
    const cJSON *g;

    *out = NULL;
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr))
        return ln_error(LN_EPARSE, "%s: op '%s': field 'guard' should be an array", source,
                        opname);
    cJSON_ArrayForEach(g, arr) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(g, "tensor");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, "value");
        if (!cJSON_IsObject(g) || !cJSON_IsString(t) || !*t->valuestring || !cJSON_IsBool(v) ||
            cJSON_GetArraySize(g) != 2) {
            ln_tensor_list_free(*out);
            *out = NULL;
            return ln_error(LN_EPARSE, "%s: op '%s': a guard entry should be {\"tensor\": "
                            "\"name\", \"value\": true or false}", source, opname);
        }
        *out = ln_tensor_list_append(*out, cJSON_IsTrue(v) ? "true" : "false", t->valuestring);
    }
    return 0;
}

static int parse_op(const cJSON *j, int index, const char *source,
                    ln_hash *tensor_table, ln_op **out)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(j, "name");
    const cJSON *optype = cJSON_GetObjectItemCaseSensitive(j, "optype");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
    const cJSON *p;
    const ln_op *proto;
    ln_list *tin = NULL, *tout = NULL, *plist = NULL, *guard = NULL;
    const char *opname;
    int ret;

    if (!cJSON_IsObject(j))
        return ln_error(LN_EPARSE, "%s: ops[%d] should be an object", source, index);
    if (!cJSON_IsString(name) || !*name->valuestring)
        return ln_error(LN_EPARSE, "%s: ops[%d] needs a string field 'name'", source, index);
    opname = name->valuestring;
    if (!cJSON_IsString(optype))
        return ln_error(LN_EPARSE, "%s: op '%s' needs a string field 'optype'", source, opname);
    for (const cJSON *f = j->child; f; f = f->next)
        if (!ln_streq(f->string, "name") && !ln_streq(f->string, "optype") &&
            !ln_streq(f->string, "tensors_in") && !ln_streq(f->string, "tensors_out") &&
            !ln_streq(f->string, "params") && !ln_streq(f->string, "guard"))
            return ln_error(LN_EPARSE, "%s: op '%s': unknown field '%s'", source, opname,
                            f->string);
    proto = ln_arch_op_proto(optype->valuestring);
    if (!proto) {
        if (ln_arch_op_stripped(optype->valuestring))
            return ln_error(LN_EUNSUPPORTED,
                            "%s: op '%s': optype '%s' was stripped from this build "
                            "(rebuild with it in LN_OPS)", source, opname,
                            optype->valuestring);
        return ln_error(LN_EUNSUPPORTED, "%s: op '%s': unknown optype '%s'", source,
                        opname, optype->valuestring);
    }
    if ((ret = parse_tensors(cJSON_GetObjectItemCaseSensitive(j, "tensors_in"), source,
                             opname, "tensors_in", &tin)))
        return ret;
    if ((ret = parse_tensors(cJSON_GetObjectItemCaseSensitive(j, "tensors_out"), source,
                             opname, "tensors_out", &tout))) {
        ln_tensor_list_free(tin);
        return ret;
    }
    if (params && !cJSON_IsArray(params)) {
        ret = ln_error(LN_EPARSE, "%s: op '%s': field 'params' should be an array",
                       source, opname);
        goto fail;
    }
    cJSON_ArrayForEach(p, params) {
        ln_param_entry *pe = NULL;
        if ((ret = parse_param(p, source, opname, &pe)))
            goto fail;
        if (ln_param_list_find(plist, pe->arg_name)) {
            ret = ln_error(LN_EPARSE, "%s: op '%s': param '%s' appears twice", source,
                           opname, pe->arg_name);
            ln_param_entry_free(pe);
            goto fail;
        }
        plist = ln_param_list_append_entry(plist, pe);
    }
    if ((ret = parse_guard(cJSON_GetObjectItemCaseSensitive(j, "guard"), source, opname, &guard)))
        goto fail;
    *out = ln_op_create_from_proto(proto, opname, tin, tout, plist, tensor_table);
    (*out)->op_arg->guard = guard;
    return 0;
fail:
    ln_tensor_list_free(tin);
    ln_tensor_list_free(tout);
    ln_param_list_free(plist);
    return ret;
}

int ln_json_parse_ops(const cJSON *root, const char *source, ln_hash *tensor_table,
                      ln_list **ops)
{
    const cJSON *jops = cJSON_GetObjectItemCaseSensitive(root, "ops");
    const cJSON *j;
    ln_list *list = NULL;
    ln_hash *names;
    int index = 0, ret = 0;

    if (!cJSON_IsObject(root))
        return ln_error(LN_EPARSE, "%s: the IR should be a JSON object", source);
    if (!cJSON_IsArray(jops))
        return ln_error(LN_EPARSE, "%s: missing array field 'ops'", source);
    names = ln_hash_create(ln_str_hash, ln_str_cmp, NULL, NULL);
    cJSON_ArrayForEach(j, jops) {
        ln_op *op = NULL;
        if ((ret = parse_op(j, index, source, tensor_table, &op)))
            break;
        if (ln_hash_find(names, op->op_arg->name)) {
            ret = ln_error(LN_EPARSE, "%s: op name '%s' is used twice", source,
                           op->op_arg->name);
            ln_op_free(op);
            break;
        }
        ln_hash_insert(names, op->op_arg->name, op);
        list = ln_list_prepend(list, op);
        index++;
    }
    ln_hash_free(names);
    list = ln_list_reverse(list);
    if (ret) {
        ln_op_list_free_deep(list);
        return ret;
    }
    *ops = list;
    return 0;
}

cJSON *ln_json_param(const ln_param_entry *pe)
{
    cJSON *j = cJSON_CreateObject(), *v = NULL;

    cJSON_AddStringToObject(j, "arg_name", pe->arg_name);
    switch (pe->type) {
    case LN_PARAM_STRING: v = cJSON_CreateString(pe->value_string); break;
    case LN_PARAM_NUMBER: v = cJSON_CreateNumber(pe->value_double); break;
    case LN_PARAM_BOOL: v = cJSON_CreateBool(pe->value_bool); break;
    case LN_PARAM_ARRAY_STRING:
        v = cJSON_CreateArray();
        for (int i = 0; i < pe->array_len; i++)
            cJSON_AddItemToArray(v, cJSON_CreateString(pe->value_array_string[i]));
        break;
    case LN_PARAM_ARRAY_NUMBER:
        v = cJSON_CreateArray();
        for (int i = 0; i < pe->array_len; i++)
            cJSON_AddItemToArray(v, cJSON_CreateNumber(pe->value_array_double[i]));
        break;
    case LN_PARAM_ARRAY_BOOL:
        v = cJSON_CreateArray();
        for (int i = 0; i < pe->array_len; i++)
            cJSON_AddItemToArray(v, cJSON_CreateBool(pe->value_array_bool[i]));
        break;
    default: v = cJSON_CreateNull(); break;
    }
    cJSON_AddItemToObject(j, "value", v);
    return j;
}

static cJSON *tensors_json(ln_list *list)
{
    cJSON *a = cJSON_CreateArray();
    LN_LIST_FOREACH(ln_tensor_list_entry, te, list) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "arg_name", te->arg_name);
        cJSON_AddStringToObject(t, "name", te->name);
        cJSON_AddItemToArray(a, t);
    }
    return a;
}

cJSON *ln_json_op(const ln_op *op)
{
    cJSON *j = cJSON_CreateObject(), *params = cJSON_CreateArray();

    cJSON_AddStringToObject(j, "name", op->op_arg->name);
    cJSON_AddStringToObject(j, "optype", op->op_arg->optype);
    cJSON_AddItemToObject(j, "tensors_in", tensors_json(op->op_arg->tensors_in));
    cJSON_AddItemToObject(j, "tensors_out", tensors_json(op->op_arg->tensors_out));
    LN_LIST_FOREACH(ln_param_entry, pe, op->op_arg->params) {
        cJSON_AddItemToArray(params, ln_json_param(pe));
    }
    cJSON_AddItemToObject(j, "params", params);
    if (op->op_arg->guard) {
        cJSON *g = cJSON_AddArrayToObject(j, "guard");
        LN_LIST_FOREACH(ln_tensor_list_entry, e, op->op_arg->guard) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "tensor", e->name);
            cJSON_AddBoolToObject(x, "value", ln_streq(e->arg_name, "true"));
            cJSON_AddItemToArray(g, x);
        }
    }
    return j;
}
