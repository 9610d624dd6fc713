/*
 * ln_context.h -- a model and everything LightNet knows about it.
 *
 * The context holds the op stream (in order), the tensor table, the
 * data-flow graph and, once planned, the arena layout.  Typical use:
 *
 *   ln_context *ctx = ln_context_create();
 *   ln_context_init(ctx, "model.json");        parse, create ops, pre_run
 *   ln_context_compile(ctx, "cpu");            expand, combine, plan memory
 *   ln_context_load(ctx, "model.params");      arena, weights, static_run (ln_interp.h)
 *   ln_context_set_data(ctx, "input", x, n);
 *   ln_context_run(ctx);
 *   ln_context_get_data(ctx, "output", y, n);
 *   ln_context_unload(ctx); ln_context_cleanup(ctx); ln_context_free(ctx);
 *
 * Every function returns 0 or a negative LN_E* code; the message
 * (ln_error_message) names the file, op, tensor or field.
 */
#ifndef LN_CONTEXT_H
#define LN_CONTEXT_H

#include "ln_dfg.h"
#include "ln_arch.h"

LN_CPPSTART

typedef struct ln_context {
    ln_hash *tensor_table;
    ln_hash *op_table;       /* name -> op in ops */
    ln_list *ops;            /* the op stream, in run order */
    ln_dfg *dfg;
    char *source;            /* file name (or "<string>") for messages */
    char *data_file;         /* weights file named by the IR, resolved */
    char *arch;              /* target compiled for, NULL when not compiled */
    const char *target;      /* the arch being compiled for, set before its
                                recipe runs (a static name; NULL otherwise):
                                what per-target choices (scratch) consult */
    ln_bool prerun_done;
    ln_bool planned;
    size_t arena_size;
    size_t lower_bound;      /* largest sum of bytes live at one step */
    size_t lower_bound_noalias; /* the same with every tensor its own buffer */
    size_t noreuse_size;     /* every non-constant tensor its own buffer, all live */
    size_t io_size;          /* bytes of caller buffers (inputs and outputs) */
    ln_bool io_in_arena;     /* graph inputs/outputs inside the arena; false
                              * (the default): they are the caller's buffers */
    ln_bool no_opt;          /* compile with the expander only: no folding, no fusion */
    ln_bool plan_noreuse;    /* debug plan: no in-place, no sharing (views stay) */
    void *arena;             /* allocated by load */
    ln_bool loaded;
    /* Constants by name (owned): the weights file's tensors, read on first
     * use, plus constants the compile passes make (folded weights). */
    ln_hash *consts;
    ln_bool consts_loaded;
    ln_bool consts_dirty;    /* passes added constants: print writes a new file */
    /* Quantization of tensors by name (owned): records without data, of the
     * tensor's dtype and shape, carrying its scales and zero points.  Set
     * by the QDQ fusion and by an IR's "quantization" section; put on the
     * tensor table's tensors by ln_context_apply_quant; printed back. */
    ln_hash *quant;
} ln_context;

/* op is of base optype with or without its arch suffix: "relu_cpu" (arch
 * cpu) is "relu". */
ln_bool ln_op_base_is(const ln_op *op, const char *base);

ln_context *ln_context_create(void);
void ln_context_free(ln_context *ctx);
/* Parse a model file (JSON IR or ONNX; "-" reads stdin) and pre_run every op. */
int ln_context_init(ln_context *ctx, const char *path);
/* Same from a JSON IR string; source names it in messages. */
int ln_context_init_str(ln_context *ctx, const char *json, const char *source);
/* Any format (ln_serializer.h): by format name, or by source's extension
 * and the bytes when format is NULL; opts may be NULL. */
struct ln_serializer_opts;
int ln_context_init_mem(ln_context *ctx, const void *buf, size_t len, const char *source,
                        const char *format, const struct ln_serializer_opts *opts);
int ln_context_init_opts(ln_context *ctx, const char *path,
                         const struct ln_serializer_opts *opts);
/* Undo init (post_run and free ops, tensors). */
void ln_context_cleanup(ln_context *ctx);
/* Run the arch's optimize recipe (expander, combiner, memory plan). */
int ln_context_compile(ln_context *ctx, const char *target);
/* Plan memory (ln_mem_plan with the context's options) and keep the
 * figures; the recipes of the archs end with it. */
int ln_context_mem_plan(ln_context *ctx);
/* The plan's invariant over the context's ops (ln_mem_plan_check). */
int ln_context_plan_check(const ln_context *ctx);
/* Plan memory when not planned yet (the interpreter's default path). */
int ln_context_plan(ln_context *ctx);
/* The IR as JSON (planned fields included when planned) to a file
 * ("-" is stdout); written to a temporary file and renamed.  When the
 * passes made new constants, the weights the ops use are written beside it
 * as <outfile without .json>.params and "data" names that file (printing
 * to stdout is then an error). */
int ln_context_print(const ln_context *ctx, const char *outfile);
char *ln_context_print_str(const ln_context *ctx);
/* Free the arena and the memory tensors own (the interpreter's unload). */
void ln_context_release_data(ln_context *ctx);

/* Use path as the weights file instead of the IR's "data" (before compile
 * or load). */
int ln_context_set_data_file(ln_context *ctx, const char *path);
/* The value of a static (constant) tensor at compile time: its data is
 * materialized on demand (from the weights file or the op's inline data).
 * LN_EINVAL when the tensor is not static. */
int ln_context_static_data(ln_context *ctx, const char *tname, ln_tensor **t);
/* Give every static tensor its data (called by load; passes may call it). */
int ln_context_materialize_consts(ln_context *ctx);
/* Add a constant a pass made (ownership of t taken); a `create` op with
 * from_file true and dst tname then reads it. */
void ln_context_const_set(ln_context *ctx, const char *tname, ln_tensor *t);
/* The constant named tname from the weights file or the passes (NULL and
 * an error when absent or the file cannot be read). */
ln_tensor *ln_context_const_get(ln_context *ctx, const char *tname);

/* Tensor tname is quantized: real = (q - zero_points[i]) * scales[i], per
 * tensor (count 1) or per channel i along axis (count = dims[axis]);
 * zero_points NULL is all 0.  The tensor must exist and be int8, uint8,
 * int16 or int32, each zero point within its type.  The record outlives
 * the tensor entry (a pass re-creates outputs); ln_context_apply_quant puts
 * it back on the tensor. */
int ln_context_set_quant(ln_context *ctx, const char *tname, int count, int axis,
                         const float *scales, const int32_t *zero_points);
/* Every record onto its tensor when the tensor still has the record's
 * dtype and shape (compile and init call it). */
void ln_context_apply_quant(ln_context *ctx);

/* Rewrites used by the passes.  Ops handed in are owned by the context. */
int ln_context_add_op(ln_context *ctx, ln_op *op);          /* append + pre_run */
int ln_context_remove_op(ln_context *ctx, const char *name); /* post_run + free */
/* Replace win_size ops starting at *pos (a node of ctx->ops) with new_ops
 * (post_run the old, pre_run the new); *pos is set to the first new node. */
int ln_context_replace_ops(ln_context *ctx, ln_list **pos, size_t win_size,
                           ln_list *new_ops);
/* Consistency: every op input produced earlier, unique names, dfg acyclic. */
int ln_context_check(const ln_context *ctx);
/* Graph inputs / outputs: a new list (free with ln_list_free) of the
 * names of input ops' and output ops' tensors (names borrowed). */
ln_list *ln_context_inputs(const ln_context *ctx);   /* list of char*, borrowed */
ln_list *ln_context_outputs(const ln_context *ctx);

LN_CPPEND
#endif
