/*
 * ln_serializer.c -- the registry of model formats, and the JSON IR format.
 */
#include <string.h>
#include <cjson/cJSON.h>
#include "ln_serializer.h"
#include "ln_json.h"

static ln_bool json_probe(const void *buf, size_t len)
{
    const unsigned char *p = buf;
    size_t i = 0;
    while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i < len && p[i] == '{';
}

static int json_load(const void *buf, size_t len, const char *source,
                     const ln_serializer_opts *opts, cJSON **ir, ln_hash **consts)
{
    char *text = ln_alloc(len + 1);
    int ret;

    (void)opts;
    memcpy(text, buf, len);
    text[len] = '\0';
    if (strlen(text) != len) {
        ln_free(text);
        return ln_error(LN_EPARSE, "%s: not a JSON IR (binary data)", source);
    }
    ret = ln_json_parse_text(text, source, ir);
    ln_free(text);
    *consts = NULL;
    return ret;
}

const ln_serializer ln_serializer_json = {"json", ".json", json_probe, json_load};

extern const ln_serializer ln_serializer_onnx;

static const ln_serializer *const serializers[] = {
    &ln_serializer_json,
#ifdef LN_HAVE_ONNX
    &ln_serializer_onnx,
#endif
    NULL,
};

const ln_serializer *const *ln_serializer_list(void)
{
    return serializers;
}

const ln_serializer *ln_serializer_find(const char *name)
{
    for (int i = 0; serializers[i]; i++)
        if (ln_streq(serializers[i]->name, name))
            return serializers[i];
    return NULL;
}

const ln_serializer *ln_serializer_for(const char *path, const void *buf, size_t len)
{
    size_t n = path ? strlen(path) : 0;

    for (int i = 0; serializers[i]; i++) {
        size_t e = strlen(serializers[i]->extension);
        if (n > e && ln_streq(path + n - e, serializers[i]->extension))
            return serializers[i];
    }
    for (int i = 0; serializers[i]; i++)
        if (serializers[i]->probe(buf, len))
            return serializers[i];
    return NULL;
}
