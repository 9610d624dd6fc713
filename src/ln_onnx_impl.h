/*
 * ln_onnx_impl.h -- what the ONNX importer's files share (not installed):
 * the import state, the problems it collects, and the pieces
 *
 *   ln_onnx.c        the graph: nodes to ops, the model to an IR (entry points)
 *   ln_onnx_proto.c  protobuf to LightNet: tensors, attributes, JSON helpers,
 *                    the problem list
 *   ln_onnx_fold.c   folding at import: nodes on known inputs run as their
 *                    ops and become constants
 *   ln_onnx_ir.c     graph inputs, pre_running the IR so far, the report
 *   ln_onnx_ctrl.c   control flow: If, Loop, Scan (subgraphs inlined)
 */
#ifndef LN_ONNX_IMPL_H
#define LN_ONNX_IMPL_H

#ifdef LN_HAVE_ONNX
#include <stdint.h>
#include <cjson/cJSON.h>
#include "ln_serializer.h"
#include "ln_tensor.h"
#include "onnx.pb-c.h"

/* The message fits the error buffer (1 KB): this many problems at most. */
#define MAX_PROBLEMS 12
#define MAX_NODES_NAMED 3

typedef struct unsup_op {
    char *op_type;           /* "Foo", or "domain:Foo" */
    char *nodes;             /* first MAX_NODES_NAMED node names, ", "-joined */
    int count;
} unsup_op;

typedef struct imp {
    const char *source;
    const ln_serializer_opts *opts;
    Onnx__GraphProto *graph;
    int opset;
    ln_hash *consts;         /* every constant: name -> ln_tensor (owned) */
    ln_list *const_order;    /* constant names in definition order (borrowed) */
    ln_hash *defined;        /* tensor names defined so far (value unused) */
    ln_hash *as_tensor;      /* constants some op reads as a tensor */
    ln_hash *consumed;       /* names any node or graph output reads */
    ln_hash *opnames;        /* op names taken */
    cJSON *input_ops;        /* the graph inputs' ops */
    cJSON *node_ops;         /* the nodes' ops, in order */
    ln_hash *unknown;        /* outputs not evaluated because of a problem */
    ln_hash *why;            /* tensor name -> why it is not a constant */
    ln_hash *shapes;         /* tensor name -> dims_entry, from pre_runs */
    int shapes_ops;          /* 1 + the node ops the last pre_run saw; 0: none */
    char *shape_err;         /* the first op check that failed in it */
    unsup_op *unsup;
    int n_unsup;
    char **problems;
    int n_problems;
    int code;                /* of the first problem */
    cJSON *pending;          /* an op to add after the one being mapped */
    ln_list *names;          /* tensor names the importer made (owned) */
    struct ln_onnx_scope *scope; /* renames of the subgraph being inlined */
    cJSON *guard;            /* of the ops of a run-time If branch (borrowed) */
    ln_hash *seqs;           /* SplitToSequence outputs: name -> ln_onnx_seq */
} imp;

typedef struct dims_entry {
    ln_dtype dtype;
    int ndim;
    int dims[LN_MAXDIM];
} dims_entry;

/* ---- ln_onnx_proto.c ---- */

ln_hash *ln_onnx_str_set(void);
void ln_onnx_set_add(ln_hash *set, const char *s);
ln_bool ln_onnx_set_has(const ln_hash *set, const char *s);
/* Something LightNet cannot do (LN_EUNSUPPORTED)... */
void ln_onnx_problem(imp *im, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* ... or something wrong with the model (LN_EPARSE, LN_EOP). */
void ln_onnx_problem_c(imp *im, int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void ln_onnx_unsupported_op(imp *im, const char *op_type, const char *node);
char *ln_onnx_op_name(imp *im, const char *base);
/* Import one node (ln_onnx.c): an op, a constant, or a problem recorded. */
void ln_onnx_import_node(imp *im, const Onnx__NodeProto *node, int index);

/* ---- ln_onnx_qop.c ---- */

/* QLinearConv, QLinearMatMul: imported as their DequantizeLinear -> op ->
 * QuantizeLinear nodes. */
ln_bool ln_onnx_is_qop(const char *op_type);
void ln_onnx_import_qop(imp *im, const Onnx__NodeProto *node, int index, const char *where);
/* ONNX Runtime's QOperator nodes of domain com.microsoft (QLinearAdd, ...,
 * QGemm), as the DQ -> op -> Q they compute */
ln_bool ln_onnx_is_ms_qop(const char *domain, const char *op_type);
void ln_onnx_import_ms_qop(imp *im, const Onnx__NodeProto *node, int index, const char *where);
const char *ln_onnx_str_or_empty(const char *s);
ln_dtype ln_onnx_dtype(int32_t t);
const char *ln_onnx_type_name(int32_t t);
void ln_onnx_put_int(ln_tensor *t, size_t i, int64_t v);
int ln_onnx_tensor_from_proto(const Onnx__TensorProto *tp, const char *what, ln_tensor **out);
double ln_onnx_tensor_get(const ln_tensor *t, size_t i);
int64_t ln_onnx_geti(const ln_tensor *t, size_t i);
ln_bool ln_onnx_attr_listed(const char *list, const char *name);
cJSON *ln_onnx_json_param(const char *arg_name, cJSON *value);
cJSON *ln_onnx_json_tensor_ref(const char *arg_name, const char *name);
cJSON *ln_onnx_json_op(const char *name, const char *optype);
void ln_onnx_op_add(cJSON *op, const char *field, cJSON *item);
cJSON *ln_onnx_json_dims(int ndim, const int *dims);
cJSON *ln_onnx_json_const_value(const ln_tensor *t);
void ln_onnx_add_const(imp *im, const char *name, ln_tensor *t);
/* node's attribute name, or NULL; its int value, or def when absent */
const Onnx__AttributeProto *ln_onnx_node_attr(const Onnx__NodeProto *n, const char *name);
int64_t ln_onnx_node_attr_i(const Onnx__NodeProto *n, const char *name, int64_t def);
int ln_onnx_attr_type(const Onnx__AttributeProto *a);
cJSON *ln_onnx_attr_json(imp *im, const char *where, const Onnx__AttributeProto *a);
ln_bool ln_onnx_attr_ignorable(const char *op_type, const char *attr, const cJSON *value);

/* ---- ln_onnx_fold.c ---- */

/*
 * Folding at import.  Every node is mapped to its op(s) as usual; when all
 * its inputs are known -- constants, or for Shape and Size a tensor whose
 * dtype and shape are known -- those ops run right away, in a context of
 * their own built from them (create ops for the constants, input ops for
 * shape-only inputs, output ops), through the interpreter's path: init
 * (the ops' checks and shape inference), compile for cpu without
 * optimizations, load, run (the runtime kernels).  Their outputs become
 * constants and the ops go, so the "@param" inputs that shape computations
 * feed (Reshape's shape, Pad's pads) are constants.  Shapes of computed
 * tensors come from pre_running the ops imported so far (cached).
 *
 * A node that is not folded stays an op, and its outputs get a reason in
 * im->why: an input known only at run time (the reason of that input,
 * down to a graph input), an op that could not run (its error), a result
 * too large.  An "@param" input that is not a constant is a problem that
 * quotes that reason, so it names the node that could not be evaluated.
 */

/* Results larger than this are left to the compiler (folded at compile
 * time when their op has a kernel). */
#define EVAL_MAX_ELEMS ((size_t)1 << 24)

typedef struct ln_onnx_fold_state ln_onnx_fold_state;
/* Before the node is mapped ... */
ln_onnx_fold_state *ln_onnx_fold_start(imp *im, const Onnx__NodeProto *node);
/* ... and after (its ops appended to node_ops; n_problems: im->n_problems
 * before the mapping): fold it when its inputs are known. Frees f. */
void ln_onnx_fold_finish(imp *im, ln_onnx_fold_state *f, const Onnx__NodeProto *node,
                         int n_problems, const char *where);
/* Why tensor t (defined, not a constant) is not a constant. */
const char *ln_onnx_why_not_const(imp *im, const char *t);

/* A tensor name from base that no tensor has yet, owned by im
 * (ln_onnx_ctrl.c). */
const char *ln_onnx_fresh_name(imp *im, const char *base);
/* An int64 constant of rank 0 (or 1: one element) named from base
 * (ln_onnx_ctrl.c). */
const char *ln_onnx_int_const(imp *im, const char *base, int64_t v, int rank);

/* ---- ln_onnx_seq.c ---- */

/* A sequence of tensors from SplitToSequence, read only by SequenceAt with
 * a constant position (torch.tensor_split): each element a Slice (and a
 * Squeeze without keepdims) of the input, no sequence at run time. */
ln_bool ln_onnx_is_seq_op(const char *op_type);
void ln_onnx_import_seq(imp *im, const Onnx__NodeProto *node, const char *name,
                        const char *where);
/* A node other than SequenceAt that reads a sequence: refused (LN_TRUE). */
ln_bool ln_onnx_reads_seq(imp *im, const Onnx__NodeProto *node, const char *where);
void ln_onnx_seq_free(void *seq);

/* ---- ln_onnx_empty.c ---- */

/* ConstantOfShape of a constant shape with a 0: its output becomes an empty
 * constant (LN_TRUE), which a Concat drops. */
ln_bool ln_onnx_empty_constant_of_shape(imp *im, const Onnx__NodeProto *node);

/* ---- ln_onnx_datashape.c ---- */

/* NonZero and NonMaxSuppression: output shapes that depend on the data,
 * so no op; evaluated on constant inputs by their runtime kernels. */
ln_bool ln_onnx_is_datashape(const char *op_type);
void ln_onnx_eval_datashape(imp *im, const Onnx__NodeProto *node, const char *where);

/* ---- ln_onnx_ctrl.c ---- */

ln_bool ln_onnx_is_ctrl(const char *op_type);
void ln_onnx_import_ctrl(imp *im, const Onnx__NodeProto *node, const char *name,
                         const char *where);
/* Names read inside g's subgraphs (recursively) into im->consumed. */
void ln_onnx_ctrl_consumed(imp *im, const Onnx__GraphProto *g);

/* ---- ln_onnx_ir.c ---- */

cJSON *ln_onnx_import_input(imp *im, const Onnx__ValueInfoProto *vi);
void ln_onnx_pre_run_ir(imp *im, const cJSON *root, ln_bool report);
void ln_onnx_add_create_ops(imp *im, cJSON *ops);
cJSON *ln_onnx_ir_so_far(imp *im);
int ln_onnx_report(imp *im);
/* The dims of tensor name (not a constant), from pre_running the ops
 * imported so far; LN_FALSE when they are not known. */
ln_bool ln_onnx_known_dims(imp *im, const char *name, int *ndim, int *dims);
/* The same with the dtype. */
ln_bool ln_onnx_known_tensor(imp *im, const char *name, ln_dtype *dtype, int *ndim, int *dims);
/* A 1-D Conv, ConvTranspose, MaxPool or AveragePool, and its op made the
 * 2-D one on a size-1 axis (views around it). */
struct ln_opregistry_onnx_entry;
ln_bool ln_onnx_retarget_3d(imp *im, const char *op_type, cJSON *op,
                            const Onnx__NodeProto *node, const struct ln_opregistry_onnx_entry *e,
                            const char *where);
ln_bool ln_onnx_is_1d(imp *im, const char *op_type, cJSON *op, const Onnx__NodeProto *node);
void ln_onnx_view_1d_as_2d(imp *im, cJSON *op, const char *opname);

#endif /* LN_HAVE_ONNX */
#endif
