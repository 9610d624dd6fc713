/*
 * ln_aot_buf.c -- ln-aot's output text (see ln_aot_buf.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "ln_aot_buf.h"

#define DRAIN_AT (1u << 20)   /* a FILE-backed buffer drains at 1 MB */

void ln_aot_buf_init(ln_aot_buf *b, FILE *fp)
{
    memset(b, 0, sizeof *b);
    b->fp = fp;
}

void ln_aot_buf_free(ln_aot_buf *b)
{
    ln_free(b->data);
    memset(b, 0, sizeof *b);
}

static void drain(ln_aot_buf *b)
{
    if (b->len && !b->error && fwrite(b->data, 1, b->len, b->fp) != b->len)
        b->error = errno ? errno : EIO;
    b->len = 0;
}

static void reserve(ln_aot_buf *b, size_t n)
{
    if (b->len + n <= b->cap)
        return;
    if (b->fp && b->len) {
        drain(b);
        if (n <= b->cap)
            return;
    }
    while (b->cap < b->len + n)
        b->cap = b->cap ? b->cap * 2 : 4096;
    b->data = ln_realloc(b->data, b->cap);
}

void ln_aot_buf_write(ln_aot_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    if (b->fp && b->len >= DRAIN_AT)
        drain(b);
}

void ln_aot_buf_puts(ln_aot_buf *b, const char *s)
{
    ln_aot_buf_write(b, s, strlen(s));
}

void ln_aot_buf_putc(ln_aot_buf *b, char c)
{
    ln_aot_buf_write(b, &c, 1);
}

void ln_aot_buf_printf(ln_aot_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        ln_aot_buf_write(b, small, (size_t)n);
        return;
    }
    reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void ln_aot_buf_append(ln_aot_buf *b, const ln_aot_buf *from)
{
    ln_aot_buf_write(b, from->data, from->len);
}

/* "1e+10" -> "1e+10", "3" -> "3.0": a floating literal needs '.' or 'e'. */
static void put_number(ln_aot_buf *b, const char *s, const char *suffix)
{
    ln_aot_buf_puts(b, s);
    if (!strpbrk(s, ".e"))
        ln_aot_buf_puts(b, ".0");
    ln_aot_buf_puts(b, suffix);
}

void ln_aot_buf_float(ln_aot_buf *b, float v)
{
    char s[64];

    if (isnan(v)) {
        ln_aot_buf_puts(b, "NAN");
    } else if (isinf(v)) {
        ln_aot_buf_puts(b, v < 0 ? "(-INFINITY)" : "INFINITY");
    } else {
        snprintf(s, sizeof s, "%.9g", (double)v);   /* 9 digits round-trip */
        put_number(b, s, "f");
    }
}

void ln_aot_buf_double(ln_aot_buf *b, double v)
{
    char s[64];

    if (isnan(v)) {
        ln_aot_buf_puts(b, "(double)NAN");
    } else if (isinf(v)) {
        ln_aot_buf_puts(b, v < 0 ? "(-(double)INFINITY)" : "(double)INFINITY");
    } else {
        snprintf(s, sizeof s, "%.17g", v);
        put_number(b, s, "");
    }
}

void ln_aot_buf_comment_text(ln_aot_buf *b, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            ln_aot_buf_putc(b, '?');
        else if (c == '*' && s[1] == '/')
            ln_aot_buf_puts(b, "* ");
        else if (c == '/' && s[1] == '*')
            ln_aot_buf_puts(b, "/ ");
        else
            ln_aot_buf_putc(b, (char)c);
    }
}

int ln_aot_buf_flush(ln_aot_buf *b)
{
    if (!b->fp)
        return 0;
    drain(b);
    if (!b->error && fflush(b->fp) != 0)
        b->error = errno ? errno : EIO;
    if (b->error)
        return ln_error(LN_EIO, "write error: %s", strerror(b->error));
    return 0;
}
