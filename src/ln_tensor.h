/*
 * ln_tensor.h -- tensors and the tensor table.
 *
 * ln_tensor is a DLTensor-like description (dtype, rank, dims) plus data,
 * layout and optional quantization parameters (per tensor or per channel,
 * as in Tengine).  The tensor table maps a tensor's name to its
 * ln_tensor_entry: the tensor plus what the compiler knows of it (creating
 * op, whether it is a constant, its memory type, its planned arena offset,
 * and the tensor whose memory it shares when it is a view or written in
 * place).  The table owns its entries and their names.
 */
#ifndef LN_TENSOR_H
#define LN_TENSOR_H

#include "ln_hash.h"
#include "ln_mem.h"

LN_CPPSTART

#define LN_MAXDIM 8

typedef enum {
    LN_DTYPE_UNKNOWN = -1,
    LN_DTYPE_FLOAT32 = 0,
    LN_DTYPE_FLOAT64,
    LN_DTYPE_FLOAT16,
    LN_DTYPE_INT8,
    LN_DTYPE_INT16,
    LN_DTYPE_INT32,
    LN_DTYPE_INT64,
    LN_DTYPE_UINT8,
    LN_DTYPE_UINT16,
    LN_DTYPE_UINT32,
    LN_DTYPE_UINT64,
    LN_DTYPE_BOOL,
    LN_DTYPE_SIZE
} ln_dtype;

typedef enum { LN_LAYOUT_NCHW = 0, LN_LAYOUT_NHWC } ln_layout;

typedef struct ln_tensor {
    ln_dtype dtype;
    int ndim;                 /* 0 for a scalar */
    int dims[LN_MAXDIM];
    size_t len;               /* number of elements (1 for a scalar) */
    void *data;               /* NULL until memory is assigned */
    ln_bool owns_data;        /* data freed with the tensor */
    ln_layout layout;
    /* quantization: quant_count 0 = none, 1 = per tensor, else per channel
     * along quant_axis; scales/zero_points have quant_count entries. */
    int quant_count;
    int quant_axis;
    float *scales;
    int32_t *zero_points;
} ln_tensor;

size_t ln_dtype_size(ln_dtype dtype);
const char *ln_dtype_name(ln_dtype dtype);      /* "float32", ... */
/* LN_DTYPE_UNKNOWN for an unknown name.  Accepts "float32" and "TL_FLOAT". */
ln_dtype ln_dtype_from_name(const char *name);

/* A tensor with the given shape; data is borrowed (not owned) when non-NULL. */
ln_tensor *ln_tensor_create(ln_dtype dtype, int ndim, const int *dims, void *data);
/* Same, with owned zeroed data of the right size. */
ln_tensor *ln_tensor_create_alloc(ln_dtype dtype, int ndim, const int *dims);
void ln_tensor_free(ln_tensor *t);
/* Shape, dtype, layout and quantization copied; data deep-copied when
 * the source has data. */
ln_tensor *ln_tensor_copy(const ln_tensor *t);
size_t ln_tensor_size(const ln_tensor *t);        /* bytes (SIZE_MAX: overflow) */
/* Largest element count of one tensor: the kernels index with int32. */
#define LN_MAX_ELEMS 2147483647
/* 0, or LN_EINVAL naming the tensor when a dim is negative or it has more
 * than LN_MAX_ELEMS elements (so its byte size fits any 64-bit size_t and
 * every index a kernel computes fits int32). */
int ln_tensor_check_size(const ln_tensor *t, const char *name);
size_t ln_compute_length(int ndim, const int *dims);
ln_bool ln_tensor_same_shape(const ln_tensor *a, const ln_tensor *b);
int ln_tensor_set_quant(ln_tensor *t, int count, int axis,
                        const float *scales, const int32_t *zero_points);
/* "[2, 3, 4]" into buf (size n). */
char *ln_dims_str(char *buf, size_t n, int ndim, const int *dims);
/* Print values: "[[1, 2], [3, 4]]" style, at most max_elems (0: all). */
void ln_tensor_fprint(FILE *fp, const ln_tensor *t, size_t max_elems);

typedef struct ln_tensor_entry {
    char *name;
    ln_tensor *tensor;
    char *creater;        /* name of the op that creates it */
    char *owner;          /* name of the tensor whose memory it shares, or NULL */
    ln_bool isstatic;     /* constant: lives outside the arena */
    ln_mem_type mtype;
    size_t offset;        /* offset in the arena (absolute, views too) */
    ln_bool planned;      /* offset is valid */
    ln_bool is_io;        /* graph input or output */
    char *io_buffer;      /* planned into the caller's buffer of this graph
                           * input/output (at offset), not the arena; NULL
                           * when in the arena */
} ln_tensor_entry;

ln_tensor_entry *ln_tensor_entry_create(const char *name, ln_tensor *tensor);
void ln_tensor_entry_free(ln_tensor_entry *entry);
void ln_tensor_entry_set_creater(ln_tensor_entry *entry, const char *creater);
void ln_tensor_entry_set_owner(ln_tensor_entry *entry, const char *owner);
void ln_tensor_entry_set_io_buffer(ln_tensor_entry *entry, const char *io_buffer);

ln_hash *ln_tensor_table_create(void);
/* Returns 1 when new, 0 when an entry of that name was replaced (and freed). */
int ln_tensor_table_insert(ln_hash *table, ln_tensor_entry *entry);
ln_bool ln_tensor_table_remove(ln_hash *table, const char *name);
ln_tensor_entry *ln_tensor_table_find(const ln_hash *table, const char *name);
void ln_tensor_table_free(ln_hash *table);
/* Set data of every tensor in the table whose entry is planned in the arena
 * (non-static, no io_buffer) to base + offset -- after the arena is allocated. */
void ln_tensor_table_set_data(ln_hash *table, void *base);

/* A tensor list (ops' tensors_in / tensors_out) is an ln_list of these. */
typedef struct ln_tensor_list_entry {
    char *arg_name;
    char *name;
} ln_tensor_list_entry;

ln_list *ln_tensor_list_append(ln_list *list, const char *arg_name, const char *name);
void ln_tensor_list_free(ln_list *list);
ln_list *ln_tensor_list_copy(ln_list *list);
ln_tensor_list_entry *ln_tensor_list_find_by_arg_name(ln_list *list, const char *arg_name);
ln_tensor_list_entry *ln_tensor_list_find_by_name(ln_list *list, const char *name);
/* The tensor name for arg_name, or NULL. */
const char *ln_tensor_list_find_name(ln_list *list, const char *arg_name);
int ln_tensor_list_length(ln_list *list);
/* Writes prefix_N into buf (size n) with N the smallest unused index. */
char *ln_tensor_list_unique_arg_name(ln_list *list, char *buf, size_t n, const char *prefix);

LN_CPPEND
#endif
