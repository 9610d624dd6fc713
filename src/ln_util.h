/*
 * ln_util.h -- small things every LightNet module needs: function-pointer
 * types for the containers, checked allocation, and the error channel.
 *
 * Errors: library functions return 0 on success or a negative LN_E* code and
 * leave a one-line message readable with ln_error_message().  Only the
 * command-line tools print and exit.  The message buffer is per process
 * (the library is not meant to compile models from several threads at once).
 */
#ifndef LN_UTIL_H
#define LN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
#define LN_CPPSTART extern "C" {
#define LN_CPPEND }
#else
#define LN_CPPSTART
#define LN_CPPEND
#endif

LN_CPPSTART

typedef int ln_bool;
#define LN_TRUE 1
#define LN_FALSE 0

/* Error codes (negative). */
enum {
    LN_OK = 0,
    LN_ENOMEM = -1,      /* out of memory */
    LN_EINVAL = -2,      /* bad argument from the caller */
    LN_EPARSE = -3,      /* malformed input file (JSON, weights) */
    LN_EIO = -4,         /* file cannot be opened, read or written */
    LN_ENOTFOUND = -5,   /* a named op, tensor, param or arch does not exist */
    LN_EOP = -6,         /* an op's check failed in pre_run */
    LN_EUNSUPPORTED = -7, /* unknown optype, stripped op, unsupported feature */
    LN_EINTERNAL = -8    /* a compiler invariant failed (a LightNet bug) */
};

typedef int (*ln_cmp_func)(const void *a, const void *b);
typedef void (*ln_free_func)(void *p);
typedef void *(*ln_copy_func)(const void *p);
typedef uint32_t (*ln_hash_func)(const void *key);

/* Set the error message (printf-style) and return code, so callers can write
 * `return ln_error(LN_EOP, "%s (%s): ...", ...);`. */
int ln_error(int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prepend context ("model.json: ") to the current message. */
void ln_error_prefix(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
const char *ln_error_message(void);
int ln_error_code(void);
void ln_error_clear(void);
const char *ln_error_name(int code);

/* Allocation that does not return on exhaustion (the compiler side only;
 * the runtime never allocates): the out-of-memory handler runs, by default
 * it prints and abort()s; the tools set one that exits with status 1.  Used
 * for bookkeeping whose size the model does not choose.  Memory a model's
 * sizes decide (arena, tensor data, weights) comes from ln_alloc_try, and
 * its failure is an LN_ENOMEM error.  ln_free(NULL) is fine. */
void *ln_alloc(size_t size);
void *ln_realloc(void *p, size_t size);
/* Zeroed like ln_alloc; NULL when the memory is not there. */
void *ln_alloc_try(size_t size);
typedef void (*ln_oom_handler)(size_t size);
/* The handler ln_alloc calls when it fails (NULL: print and abort); it
 * must not return.  Returns the previous one. */
ln_oom_handler ln_set_oom_handler(ln_oom_handler handler);
/* Run the handler (never returns): for callers of other allocators. */
void ln_out_of_memory(size_t size)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;
/* Simulated exhaustion, for tests: every allocation of more than max bytes
 * fails (0: no limit).  The tools read it from LN_ALLOC_LIMIT. */
void ln_alloc_set_limit(size_t max);
ln_bool ln_alloc_allowed(size_t size);
/* For a command-line tool's main(): ln_alloc failure prints "PROG: out of
 * memory ..." and exits with status 1 (exit handlers remove partial
 * output), and LN_ALLOC_LIMIT=BYTES in the environment sets the simulated
 * limit above. */
void ln_tool_alloc_setup(const char *prog);

/* Overflow-checked size arithmetic: LN_TRUE and *r set, or LN_FALSE when
 * the result does not fit in a size_t. */
ln_bool ln_size_add(size_t a, size_t b, size_t *r);
ln_bool ln_size_mul(size_t a, size_t b, size_t *r);
void ln_free(void *p);
char *ln_strdup(const char *s);
char *ln_sprintf(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void *ln_clone(const void *src, size_t size);

/* Standard helpers for containers keyed by pointers, ints or strings. */
uint32_t ln_direct_hash(const void *key);
int ln_direct_cmp(const void *a, const void *b);
uint32_t ln_str_hash(const void *key);
int ln_str_cmp(const void *a, const void *b);

/* Whole file into a NUL-terminated buffer; NULL and an error set on failure. */
char *ln_read_text(const char *path, size_t *len);
ln_bool ln_streq(const char *a, const char *b);
size_t ln_align_up(size_t n, size_t align);

LN_CPPEND
#endif
