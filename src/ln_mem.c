/*
 * ln_mem.c -- memory types and virtual memory pools.
 *
 * The CPU memory type allocates zeroed blocks aligned to 64 bytes (a cache
 * line, and enough for any SIMD load the kernels do); LN_MEM_NONE has no
 * functions at all.  Allocation returns NULL on exhaustion (callers say
 * LN_ENOMEM), and honours ln_alloc_set_limit().
 *
 * The virtual pool never touches memory: it hands out offsets.  It keeps
 * two singly linked lists, both sorted by offset: the free ranges and the
 * blocks in use.  An unbounded pool starts with one free range [0, top)
 * where top is the largest aligned size_t, so "the end of the arena" is
 * just the start of the last free range and needs no special case.  Every
 * block size is rounded up to the alignment, so every free range starts
 * aligned and first-fit can take the first range that is big enough.
 * Dealloc puts the range back and merges it with its neighbours.  The
 * high-water mark is the largest block end ever handed out.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ln_mem.h"

#define CPU_ALIGN 64

static void *cpu_alloc(size_t n)
{
    void *p = NULL;
    int err;

    if (n == 0)
        n = 1;                  /* posix_memalign(0) may return NULL */
    if (!ln_alloc_allowed(n))
        return NULL;
    err = posix_memalign(&p, CPU_ALIGN, n);
    if (err != 0 || !p)
        return NULL;            /* the caller says LN_ENOMEM */
    memset(p, 0, n);
    return p;
}

static void cpu_free(void *p)
{
    free(p);
}

static void *cpu_memset(void *s, int c, size_t n)
{
    return memset(s, c, n);
}

static void *cpu_copy(void *dst, const void *src, size_t n)
{
    return memmove(dst, src, n);
}

static const ln_mem_info mem_infos[LN_MEM_TYPE_SIZE] = {
    { "none", NULL, NULL, NULL, NULL, 1 },
    { "cpu", cpu_alloc, cpu_free, cpu_memset, cpu_copy, CPU_ALIGN },
};

const ln_mem_info *ln_mem_type_info(ln_mem_type mtype)
{
    assert(mtype >= LN_MEM_NONE && mtype < LN_MEM_TYPE_SIZE);
    return &mem_infos[mtype];
}

const char *ln_mem_type_name(ln_mem_type mtype)
{
    if (mtype < LN_MEM_NONE || mtype >= LN_MEM_TYPE_SIZE)
        return "unknown";
    return mem_infos[mtype].name;
}

ln_mem_type ln_mem_type_from_name(const char *name)
{
    int i;

    if (!name)
        return LN_MEM_TYPE_SIZE;
    for (i = 0; i < LN_MEM_TYPE_SIZE; i++)
        if (strcmp(mem_infos[i].name, name) == 0)
            return (ln_mem_type)i;
    return LN_MEM_TYPE_SIZE;
}

void ln_mem_copy(ln_mem_type dst_t, void *dst, ln_mem_type src_t,
                 const void *src, size_t n)
{
    if (n == 0)
        return;
    /* only host memory exists today */
    assert(dst_t == LN_MEM_CPU && src_t == LN_MEM_CPU);
    (void)dst_t;
    (void)src_t;
    memmove(dst, src, n);
}

/* ---- virtual pool ---- */

typedef struct range {
    size_t start;
    size_t size;
    struct range *next;
} range;

struct ln_mem_pool {
    size_t max_size;            /* 0: unbounded */
    size_t align;
    size_t top;                 /* end of the space offsets may reach */
    size_t high;                /* high-water mark */
    range *free_list;           /* sorted by start, never adjacent */
    range *used_list;           /* sorted by start */
};

static range *range_new(size_t start, size_t size, range *next)
{
    range *r = ln_alloc(sizeof(*r));

    r->start = start;
    r->size = size;
    r->next = next;
    return r;
}

static void range_list_free(range *r)
{
    range *next;

    for (; r; r = next) {
        next = r->next;
        ln_free(r);
    }
}

ln_mem_pool *ln_mem_pool_create(size_t max_size, size_t align)
{
    ln_mem_pool *pool;

    assert(align > 0 && (align & (align - 1)) == 0);
    pool = ln_alloc(sizeof(*pool));
    pool->max_size = max_size;
    pool->align = align;
    pool->top = max_size ? max_size : (SIZE_MAX & ~(align - 1));
    pool->high = 0;
    pool->free_list = range_new(0, pool->top, NULL);
    pool->used_list = NULL;
    return pool;
}

void ln_mem_pool_free(ln_mem_pool *pool)
{
    if (!pool)
        return;
    range_list_free(pool->free_list);
    range_list_free(pool->used_list);
    ln_free(pool);
}

size_t ln_mem_pool_alloc(ln_mem_pool *pool, size_t size)
{
    range **pp, *r, **up;
    size_t start;

    assert(pool);
    if (size == 0)
        size = pool->align;
    if (size > SIZE_MAX - (pool->align - 1))
        return (size_t)-1;
    size = (size + pool->align - 1) & ~(pool->align - 1);

    /* first fit */
    for (pp = &pool->free_list; *pp; pp = &(*pp)->next)
        if ((*pp)->size >= size)
            break;
    if (!*pp)
        return (size_t)-1;
    r = *pp;
    start = r->start;
    if (r->size == size) {
        *pp = r->next;
        ln_free(r);
    } else {
        r->start += size;
        r->size -= size;
    }

    for (up = &pool->used_list; *up && (*up)->start < start; up = &(*up)->next)
        ;
    *up = range_new(start, size, *up);
    if (start + size > pool->high)
        pool->high = start + size;
    return start;
}

int ln_mem_pool_dealloc(ln_mem_pool *pool, size_t offset)
{
    range **up, *u, **pp, *prev, *next;
    size_t start, size;

    assert(pool);
    for (up = &pool->used_list; *up && (*up)->start < offset; up = &(*up)->next)
        ;
    if (!*up || (*up)->start != offset)
        return ln_error(LN_EINVAL,
                        "ln_mem_pool_dealloc: no block starts at offset %zu",
                        offset);
    u = *up;
    *up = u->next;
    start = u->start;
    size = u->size;
    ln_free(u);

    /* insert into the free list between prev and next, then merge */
    prev = NULL;
    for (pp = &pool->free_list; *pp && (*pp)->start < start; pp = &(*pp)->next)
        prev = *pp;
    next = *pp;
    if (prev && prev->start + prev->size == start) {
        prev->size += size;
        if (next && prev->start + prev->size == next->start) {
            prev->size += next->size;
            prev->next = next->next;
            ln_free(next);
        }
    } else if (next && start + size == next->start) {
        next->start = start;
        next->size += size;
    } else {
        *pp = range_new(start, size, next);
    }
    return LN_OK;
}

ln_bool ln_mem_pool_exist(const ln_mem_pool *pool, size_t offset)
{
    const range *u;

    assert(pool);
    for (u = pool->used_list; u && u->start <= offset; u = u->next)
        if (u->start == offset)
            return LN_TRUE;
    return LN_FALSE;
}

size_t ln_mem_pool_size(const ln_mem_pool *pool)
{
    assert(pool);
    return pool->high;
}

void ln_mem_pool_dump(const ln_mem_pool *pool, FILE *fp)
{
    const range *u, *f;

    assert(pool && fp);
    fprintf(fp, "pool: align %zu, max %zu%s, high-water %zu\n", pool->align,
            pool->max_size, pool->max_size ? "" : " (unbounded)", pool->high);
    /* merge the two sorted lists so the dump reads in address order */
    u = pool->used_list;
    f = pool->free_list;
    while (u || f) {
        if (u && (!f || u->start < f->start)) {
            fprintf(fp, "used [%zu, %zu) %zu bytes\n", u->start,
                    u->start + u->size, u->size);
            u = u->next;
        } else if (!pool->max_size && f->start + f->size == pool->top) {
            fprintf(fp, "free [%zu, ...)\n", f->start);
            f = f->next;
        } else {
            fprintf(fp, "free [%zu, %zu) %zu bytes\n", f->start,
                    f->start + f->size, f->size);
            f = f->next;
        }
    }
}
