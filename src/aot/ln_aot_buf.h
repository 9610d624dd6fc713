/*
 * ln_aot_buf.h -- the text ln-aot writes: a growable buffer that either
 * stays in memory (the parts of an emitted file built before it is known
 * to be valid) or drains into a FILE as it fills (the weights, which may be
 * hundreds of megabytes of text).  Writing never fails halfway through a
 * call; a write error on the FILE is remembered and reported by
 * ln_aot_buf_flush().
 */
#ifndef LN_AOT_BUF_H
#define LN_AOT_BUF_H

#include <stdio.h>
#include "ln_util.h"

LN_CPPSTART

typedef struct ln_aot_buf {
    char *data;
    size_t len, cap;
    FILE *fp;        /* NULL: in memory only */
    int error;       /* errno of the first failed write, else 0 */
} ln_aot_buf;

void ln_aot_buf_init(ln_aot_buf *b, FILE *fp);
void ln_aot_buf_free(ln_aot_buf *b);
void ln_aot_buf_write(ln_aot_buf *b, const void *p, size_t n);
void ln_aot_buf_puts(ln_aot_buf *b, const char *s);
void ln_aot_buf_putc(ln_aot_buf *b, char c);
void ln_aot_buf_printf(ln_aot_buf *b, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append another buffer's text. */
void ln_aot_buf_append(ln_aot_buf *b, const ln_aot_buf *from);
/* A C literal of type float (double) that reads back as exactly v:
 * "0.5f", "-3.40282347e+38f", "INFINITY", "(-INFINITY)", "NAN". */
void ln_aot_buf_float(ln_aot_buf *b, float v);
void ln_aot_buf_double(ln_aot_buf *b, double v);
/* Text of a C comment: "*" "/" and control characters cannot end it early. */
void ln_aot_buf_comment_text(ln_aot_buf *b, const char *s);
/* Drain into the FILE (no-op in memory); 0 or LN_EIO with the message. */
int ln_aot_buf_flush(ln_aot_buf *b);

LN_CPPEND
#endif
