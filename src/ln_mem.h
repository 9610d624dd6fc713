/*
 * ln_mem.h -- memory types and virtual memory pools.
 *
 * A memory type (ln_mem_type) names where a buffer lives and how to
 * allocate, free, set and copy it there; the host CPU is the only real type
 * today, LN_MEM_NONE marks tensors that get no memory (views, shapes only).
 *
 * A virtual memory pool hands out *offsets* inside a block that does not
 * exist yet: the compiler plans with it, and the arena is allocated once,
 * later, with the size the pool reached.  Allocation is first-fit over a
 * sorted free list with coalescing on dealloc, and every offset is a
 * multiple of the pool's alignment.
 */
#ifndef LN_MEM_H
#define LN_MEM_H

#include "ln_util.h"

LN_CPPSTART

typedef enum {
    LN_MEM_NONE = 0,
    LN_MEM_CPU,
    LN_MEM_TYPE_SIZE
} ln_mem_type;

typedef struct ln_mem_info {
    const char *name;
    void *(*alloc_func)(size_t n);        /* zeroed, aligned to align; NULL when out of memory */
    void (*free_func)(void *p);
    void *(*memset_func)(void *s, int c, size_t n);
    void *(*copy_func)(void *dst, const void *src, size_t n);
    size_t align;
} ln_mem_info;

const ln_mem_info *ln_mem_type_info(ln_mem_type mtype);
const char *ln_mem_type_name(ln_mem_type mtype);
/* LN_MEM_TYPE_SIZE when the name is unknown. */
ln_mem_type ln_mem_type_from_name(const char *name);
/* Copy between memory types (both CPU today). */
void ln_mem_copy(ln_mem_type dst_t, void *dst, ln_mem_type src_t,
                 const void *src, size_t n);

#define LN_MEM_ALIGN 16

typedef struct ln_mem_pool ln_mem_pool;

/* A pool of at most max_size bytes (0: unbounded), offsets aligned to align
 * (a power of two). */
ln_mem_pool *ln_mem_pool_create(size_t max_size, size_t align);
void ln_mem_pool_free(ln_mem_pool *pool);
/* Offset of a new block of size bytes (size 0 gets align bytes), or
 * (size_t)-1 when the pool is bounded and full. */
size_t ln_mem_pool_alloc(ln_mem_pool *pool, size_t size);
/* Release the block that starts at offset; returns LN_EINVAL when no
 * block starts there. */
int ln_mem_pool_dealloc(ln_mem_pool *pool, size_t offset);
ln_bool ln_mem_pool_exist(const ln_mem_pool *pool, size_t offset);
/* The high-water mark: the arena size this plan needs. */
size_t ln_mem_pool_size(const ln_mem_pool *pool);
/* Blocks in use and free ranges, one per line. */
void ln_mem_pool_dump(const ln_mem_pool *pool, FILE *fp);

LN_CPPEND
#endif
