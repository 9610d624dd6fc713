/*
 * ln_util.c -- the error channel, checked allocation, string and file helpers,
 * and the standard hash/compare functions for the containers.
 *
 * The error channel is one static buffer per process: ln_error() overwrites
 * it, ln_error_prefix() adds context in front of it.  Messages longer than the
 * buffer are truncated, never overflowed.  Allocation failure is not an error
 * the compiler can recover from, so ln_alloc() and friends print and abort().
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ln_util.h"

#define LN_ERROR_MAX 1024

static char ln_error_buf[LN_ERROR_MAX];
static int ln_error_code_val = LN_OK;

int ln_error(int code, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(ln_error_buf, sizeof(ln_error_buf), fmt, ap);
    va_end(ap);
    ln_error_code_val = code;
    return code;
}

void ln_error_prefix(const char *fmt, ...)
{
    char old[LN_ERROR_MAX];
    va_list ap;
    int n;

    memcpy(old, ln_error_buf, sizeof(old));
    va_start(ap, fmt);
    n = vsnprintf(ln_error_buf, sizeof(ln_error_buf), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(ln_error_buf) - 1) /* room for the old message? */
        snprintf(ln_error_buf + n, sizeof(ln_error_buf) - (size_t)n, "%s", old);
}

const char *ln_error_message(void)
{
    return ln_error_buf;
}

int ln_error_code(void)
{
    return ln_error_code_val;
}

void ln_error_clear(void)
{
    ln_error_buf[0] = '\0';
    ln_error_code_val = LN_OK;
}

const char *ln_error_name(int code)
{
    switch (code) {
    case LN_OK: return "success";
    case LN_ENOMEM: return "out of memory";
    case LN_EINVAL: return "invalid argument";
    case LN_EPARSE: return "parse error";
    case LN_EIO: return "I/O error";
    case LN_ENOTFOUND: return "not found";
    case LN_EOP: return "op check failed";
    case LN_EUNSUPPORTED: return "unsupported";
    case LN_EINTERNAL: return "internal error";
    default: return "unknown error";
    }
}

static ln_oom_handler oom_handler;
static size_t alloc_limit;

ln_oom_handler ln_set_oom_handler(ln_oom_handler handler)
{
    ln_oom_handler old = oom_handler;
    oom_handler = handler;
    return old;
}

void ln_alloc_set_limit(size_t max)
{
    alloc_limit = max;
}

ln_bool ln_alloc_allowed(size_t size)
{
    return alloc_limit == 0 || size <= alloc_limit;
}

static const char *tool_name;

static void tool_oom(size_t size)
{
    fprintf(stderr, "%s: out of memory (allocating %zu bytes)\n", tool_name, size);
    exit(EXIT_FAILURE);
}

void ln_tool_alloc_setup(const char *prog)
{
    const char *lim = getenv("LN_ALLOC_LIMIT");
    tool_name = prog;
    ln_set_oom_handler(tool_oom);
    if (lim && *lim) {
        char *end;
        unsigned long long v = strtoull(lim, &end, 10);
        if (*end == '\0')
            ln_alloc_set_limit((size_t)v);
    }
}

void ln_out_of_memory(size_t size)
{
    if (oom_handler)
        oom_handler(size);
    fprintf(stderr, "lightnet: out of memory (allocating %zu bytes)\n", size);
    abort();
}

void *ln_alloc_try(size_t size)
{
    return ln_alloc_allowed(size) ? calloc(1, size ? size : 1) : NULL;
}

/* Zeroed, like calloc.  A zero size still gives a unique pointer. */
void *ln_alloc(size_t size)
{
    void *p = ln_alloc_try(size);

    if (!p)
        ln_out_of_memory(size);
    return p;
}

void *ln_realloc(void *p, size_t size)
{
    void *q = ln_alloc_allowed(size) ? realloc(p, size ? size : 1) : NULL;

    if (!q)
        ln_out_of_memory(size);
    return q;
}

ln_bool ln_size_add(size_t a, size_t b, size_t *r)
{
    if (a > SIZE_MAX - b)
        return LN_FALSE;
    *r = a + b;
    return LN_TRUE;
}

ln_bool ln_size_mul(size_t a, size_t b, size_t *r)
{
    if (b != 0 && a > SIZE_MAX / b)
        return LN_FALSE;
    *r = a * b;
    return LN_TRUE;
}

void ln_free(void *p)
{
    free(p);
}

char *ln_strdup(const char *s)
{
    size_t n;
    char *d;

    if (!s)
        return NULL;
    n = strlen(s) + 1;
    d = ln_alloc(n);
    memcpy(d, s, n);
    return d;
}

char *ln_sprintf(const char *fmt, ...)
{
    va_list ap;
    int n;
    char *s;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    assert(n >= 0);
    if (n < 0)
        n = 0;
    s = ln_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void *ln_clone(const void *src, size_t size)
{
    void *p;

    if (!src)
        return NULL;
    p = ln_alloc(size);
    memcpy(p, src, size);
    return p;
}

/* Pointer bits through the 64-bit murmur3 finaliser, folded to 32 bits:
 * pointers are aligned, so their low bits alone would crowd few buckets. */
uint32_t ln_direct_hash(const void *key)
{
    uint64_t x = (uint64_t)(uintptr_t)key;

    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    x ^= x >> 33;
    return (uint32_t)(x ^ (x >> 32));
}

int ln_direct_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

    return (x > y) - (x < y);
}

/* 32-bit FNV-1a. */
uint32_t ln_str_hash(const void *key)
{
    const unsigned char *s = key;
    uint32_t h = UINT32_C(2166136261);

    while (*s) {
        h ^= *s++;
        h *= UINT32_C(16777619);
    }
    return h;
}

int ln_str_cmp(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Reads with fread until EOF, so pipes and /proc files work too. */
char *ln_read_text(const char *path, size_t *len)
{
    FILE *fp;
    char *buf;
    size_t cap = 4096, n = 0, got;

    fp = fopen(path, "rb");
    if (!fp) {
        ln_error(LN_EIO, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    buf = ln_alloc(cap);
    for (;;) {
        if (cap - n < 2) { /* keep a byte for the NUL */
            cap *= 2;
            buf = ln_realloc(buf, cap);
        }
        got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(fp)) {
        ln_error(LN_EIO, "cannot read '%s': %s", path, strerror(errno));
        fclose(fp);
        ln_free(buf);
        return NULL;
    }
    fclose(fp);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Two NULLs are equal; NULL and a string are not. */
ln_bool ln_streq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Smallest multiple of align that is >= n (align need not be a power of 2). */
size_t ln_align_up(size_t n, size_t align)
{
    assert(align > 0);
    if (align == 0)
        return n;
    return (n + align - 1) / align * align;
}
