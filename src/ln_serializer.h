/*
 * ln_serializer.h -- model formats (Tengine's serializer registry).
 *
 * A serializer turns a model's bytes (from a file or from memory) into
 * LightNet's IR (a cJSON tree in the JSON IR format of ln_json.h) and its
 * constants (a name -> ln_tensor dict).  The context picks the serializer
 * by the file's extension, else by probing the bytes.  JSON IR and ONNX are
 * the two formats; the registry is the array in ln_serializer.c.
 */
#ifndef LN_SERIALIZER_H
#define LN_SERIALIZER_H

#include "ln_tensor.h"

LN_CPPSTART

struct cJSON;

/* Options a format may honour (ONNX: fixed shapes for symbolic dims). */
typedef struct ln_serializer_opts {
    /* "name=1x3x224x224" strings; NULL-terminated; may be NULL */
    const char *const *shapes;
    /* the arch the model will be compiled for ("cortex-m4"), or NULL: an
     * IR without "arch" whose ops are already concrete is checked for it
     * when read (host-only ops are refused for the Cortex-M4) */
    const char *target;
} ln_serializer_opts;

typedef struct ln_serializer {
    const char *name;                 /* "json", "onnx" */
    const char *extension;            /* ".json", ".onnx" */
    /* LN_TRUE when the bytes look like this format */
    ln_bool (*probe)(const void *buf, size_t len);
    /* Parse: *ir gets a cJSON IR tree (caller frees with cJSON_Delete),
     * *consts a dict from ln_datafile_create_dict() (caller frees) holding
     * the tensors the IR's from_file create ops read (NULL when none).
     * Errors name source and what is wrong; nothing is returned then. */
    int (*load)(const void *buf, size_t len, const char *source,
                const ln_serializer_opts *opts, struct cJSON **ir,
                ln_hash **consts);
} ln_serializer;

/* NULL-terminated list of the formats built in. */
const ln_serializer *const *ln_serializer_list(void);
/* By name ("onnx"), NULL when unknown. */
const ln_serializer *ln_serializer_find(const char *name);
/* For a file: by extension first, else by probing the bytes. */
const ln_serializer *ln_serializer_for(const char *path, const void *buf, size_t len);

LN_CPPEND
#endif
