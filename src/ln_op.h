/*
 * ln_op.h -- operators: their arguments, lifecycle and checks.
 *
 * An op is a prototype (the functions, shared by every op of that optype)
 * plus an ln_op_arg (this instance's name, tensors, params and private
 * data).  The lifecycle (LightNet + TFLite Micro):
 *
 *   pre_run     validate everything, infer output shapes and dtypes, add the
 *               output entries to the tensor table.  Every error a user can
 *               cause is raised here, with a message naming the op.
 *   static_run  compute what does not depend on the graph input (constants,
 *               packed weights) once, after memory is assigned.
 *   run         trusts pre_run; calls one ln_rt_ kernel.
 *   post_run    undoes exactly what pre_run did.
 *
 * Every function returns 0 or a negative LN_E* code with the message set.
 * Prototypes are generated from gen/op_descs (src/op/auto) and registered
 * per architecture (ln_arch.h).
 */
#ifndef LN_OP_H
#define LN_OP_H

#include "ln_tensor.h"
#include "ln_param.h"

LN_CPPSTART

typedef struct ln_op_arg {
    char *name;
    char *optype;
    char *arch;
    ln_list *tensors_in;    /* of ln_tensor_list_entry */
    ln_list *tensors_out;   /* of ln_tensor_list_entry */
    ln_list *params;        /* of ln_param_entry */
    ln_hash *tensor_table;  /* the context's, borrowed */
    void *priv;             /* set by pre_run, freed by post_run */
    ln_mem_type mtype_in;
    ln_mem_type mtype_out;
    /* Control flow (a branch of a run-time If): the op runs only when every
     * entry holds, an ln_tensor_list_entry whose name is a bool tensor of
     * one element and whose arg_name is "true" or "false", the value it
     * must have; outermost first.  NULL: the op always runs.  Passes never
     * fuse or fold ops of different guards into one. */
    ln_list *guard;
} ln_op_arg;

typedef int (*ln_op_func)(ln_op_arg *op_arg);
/* Offset of a view (or in-place) output inside the tensor it shares. */
typedef size_t (*ln_op_offset_func)(const ln_op_arg *op_arg,
                                    const ln_tensor_entry *te);

/* What the memory planner may do with an op's output. */
typedef enum {
    LN_MEMPLAN_OWN = 0,   /* the output gets its own buffer */
    LN_MEMPLAN_INPLACE,   /* may reuse mem_in's buffer when mem_in dies here */
    LN_MEMPLAN_VIEW,      /* is mem_in's memory at calc_offset() */
    LN_MEMPLAN_CONCAT,    /* inputs may be placed inside the output */
    LN_MEMPLAN_MERGE      /* if_merge: each branch's output may be placed at
                           * the output (only one branch runs) */
} ln_memplan_kind;

typedef struct ln_op {
    ln_op_arg *op_arg;
    ln_op_func pre_run;
    ln_op_func static_run;   /* may be NULL */
    ln_op_func run;          /* may be NULL (e.g. input, view ops) */
    ln_op_func post_run;
    ln_op_offset_func calc_offset; /* for LN_MEMPLAN_VIEW, may be NULL (0) */
    ln_memplan_kind mem_kind;
    const char *mem_out;     /* output arg name the plan applies to */
    const char *mem_in;      /* input arg name it shares with */
} ln_op;

/* A new op from a prototype, taking ownership of the three lists. */
ln_op *ln_op_create_from_proto(const ln_op *proto, const char *name,
                               ln_list *tensors_in, ln_list *tensors_out,
                               ln_list *params, ln_hash *tensor_table);
/* Same prototype, deep copies of name and lists. */
ln_op *ln_op_copy(const ln_op *op);
/* op (name, tensors, params and guard copied) as an op of proto's type:
 * an expander's default, a pass that turns an op into a variant of it */
ln_op *ln_op_copy_as(const ln_op *op, const ln_op *proto);
void ln_op_free(ln_op *op);
/* Guards (ln_op_arg.guard).  Does a's guard equal b's? */
ln_bool ln_op_same_guard(const ln_op *a, const ln_op *b);
/* Is guard a prefix of (or equal to) inner, i.e. does every op guarded by
 * inner run only where guard holds? */
ln_bool ln_op_guard_within(const ln_list *inner, const ln_list *guard);
/* Does op's guard hold now (its condition tensors have data)? */
ln_bool ln_op_guard_holds(const ln_op_arg *arg);
/* The guard of op a copy of guard (replacing its own). */
void ln_op_set_guard(ln_op *op, const ln_list *guard);

/* Shallow check of an op's own fields (names present, unique arg names). */
int ln_op_check(const ln_op *op);
/* ln_op_check, the op's pre_run, and the size limits of its outputs
 * (ln_tensor_check_size); 0 or the error, with nothing left behind. */
int ln_op_pre_run(ln_op *op);
/* The post_run of most ops: removes the outputs pre_run added to the tensor
 * table (a "scratch" output only if this op created it) and frees priv. */
int ln_op_post_run_outputs(ln_op_arg *op_arg);
/* What run() returns when the kernel it calls refuses (LN_RT_ARG_ERROR:
 * data it cannot take, such as an index or a class target out of range,
 * that no compile-time check could see): LN_EINVAL, with a message naming
 * the op and the kernel.  The op's outputs are then not valid. */
int ln_op_kernel_error(const ln_op_arg *op_arg, const char *kernel);
/* A new output tensor of op_arg in the tensor table, created by the op
 * (flags: LN_OP_OUT_STATIC, LN_OP_OUT_IO). */
#define LN_OP_OUT_STATIC 1
#define LN_OP_OUT_IO 2
ln_tensor_entry *ln_op_output_create(ln_op_arg *op_arg, const char *name, ln_dtype dtype,
                                     int ndim, const int *dims, int flags);
/* Kernel scratch of size bytes: an output no op reads, planned in the
 * arena during this op only.  Appends the tensors_out entry "scratch"
 * (<opname>__scratch) unless listed, and creates the uint8 tensor; nothing
 * when size is 0.  On failure the op's outputs leave the table. */
int ln_op_add_scratch(ln_op_arg *op_arg, size_t size, ln_bool listed);

/* Shorthands used by op implementations. */
ln_tensor_entry *ln_op_tensor_in(const ln_op_arg *arg, const char *arg_name);
ln_tensor_entry *ln_op_tensor_out(const ln_op_arg *arg, const char *arg_name);
ln_param_entry *ln_op_param(const ln_op_arg *arg, const char *arg_name);

/* An op table: name -> op (does not own the ops). */
ln_hash *ln_op_table_create(void);
int ln_op_table_insert(ln_hash *table, ln_op *op);
ln_op *ln_op_table_find(const ln_hash *table, const char *name);
void ln_op_table_free(ln_hash *table);

/* An op list is an ln_list of ln_op. */
ln_list *ln_op_list_create_from_array(ln_op **ops);   /* NULL-terminated */
void ln_op_list_free(ln_list *ops);                   /* list only */
void ln_op_list_free_deep(ln_list *ops);              /* and the ops */
ln_op *ln_op_list_find_by_name(ln_list *ops, const char *name);
ln_op *ln_op_list_find_by_optype(ln_list *ops, const char *optype);
ln_list *ln_op_list_copy(ln_list *ops);               /* deep */
/* prefix + smallest unused number, into buf (size n). */
char *ln_op_list_unique_name(ln_list *ops, char *buf, size_t n, const char *prefix);

/*
 * Checks (LightNet's ln_opck family).  Each returns 0, or sets a message
 * prefixed with "opname (optype): " and returns LN_EOP.  Use with LN_OPCK:
 *     LN_OPCK(ln_opck_tensor_ndim(arg, "src", src, 4));
 */
#define LN_OPCK(call)                             \
    do {                                          \
        int ln_opck_ret_ = (call);                \
        if (ln_opck_ret_ != 0) return ln_opck_ret_; \
    } while (0)

typedef enum { LN_CMP_EQ, LN_CMP_NE, LN_CMP_GT, LN_CMP_GE, LN_CMP_LT, LN_CMP_LE } ln_cmp_op;
const char *ln_cmp_op_str(ln_cmp_op op);   /* "==", "!=", ... */
ln_bool ln_cmp_double(double a, ln_cmp_op op, double b);

/* Generic: fails with the formatted message when cond is false. */
int ln_opck(const ln_op_arg *arg, ln_bool cond, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int ln_opck_tensors_in_len(const ln_op_arg *arg, ln_cmp_op op, int n);
int ln_opck_tensors_out_len(const ln_op_arg *arg, ln_cmp_op op, int n);
/* The input arg_name exists in tensors_in and in the tensor table; the
 * entry is returned through te.  Optional inputs: use ln_op_tensor_in. */
int ln_opck_tensor_in_exist(const ln_op_arg *arg, const char *arg_name,
                            ln_tensor_entry **te);
/* An optional input: *te NULL when the op does not list it, else as
 * ln_opck_tensor_in_exist. */
int ln_opck_tensor_in_opt(const ln_op_arg *arg, const char *arg_name, ln_tensor_entry **te);
/* The output arg_name exists in tensors_out and its tensor name is not
 * defined yet (nor an input of this op); its name is returned. */
int ln_opck_tensor_out_new(const ln_op_arg *arg, const char *arg_name,
                           const char **name);
int ln_opck_tensor_ndim(const ln_op_arg *arg, const char *arg_name,
                        const ln_tensor_entry *te, ln_cmp_op op, int ndim);
int ln_opck_tensor_dtype(const ln_op_arg *arg, const char *arg_name,
                         const ln_tensor_entry *te, ln_dtype dtype);
/* dtype one of a mask of (1u << LN_DTYPE_x). */
int ln_opck_tensor_dtype_in(const ln_op_arg *arg, const char *arg_name,
                            const ln_tensor_entry *te, unsigned mask);
int ln_opck_tensor_same_shape(const ln_op_arg *arg, const char *arg1,
                              const ln_tensor_entry *te1, const char *arg2,
                              const ln_tensor_entry *te2);
int ln_opck_tensor_same_dtype(const ln_op_arg *arg, const char *arg1,
                              const ln_tensor_entry *te1, const char *arg2,
                              const ln_tensor_entry *te2);
int ln_opck_tensor_isstatic(const ln_op_arg *arg, const char *arg_name,
                            const ln_tensor_entry *te);
int ln_opck_tensor_len(const ln_op_arg *arg, const char *arg_name,
                       const ln_tensor_entry *te, ln_cmp_op op, size_t len);
/* The param exists and has the type; returned through pe. */
int ln_opck_param_exist(const ln_op_arg *arg, const char *arg_name,
                        ln_param_type type, ln_param_entry **pe);
/* Like ln_opck_param_exist when present; *pe = NULL when absent. */
int ln_opck_param_type_if(const ln_op_arg *arg, const char *arg_name,
                          ln_param_type type, ln_param_entry **pe);
int ln_opck_param_number(const ln_op_arg *arg, const ln_param_entry *pe,
                         ln_cmp_op op, double value);
int ln_opck_param_array_len(const ln_op_arg *arg, const ln_param_entry *pe,
                            ln_cmp_op op, int len);
/* Every element of a number array compared with value. */
int ln_opck_param_array_number(const ln_op_arg *arg, const ln_param_entry *pe,
                               ln_cmp_op op, double value);
/* A string param is one of a NULL-terminated list; index via *which. */
int ln_opck_param_string_in(const ln_op_arg *arg, const ln_param_entry *pe,
                            const char *const *choices, int *which);

LN_CPPEND
#endif
