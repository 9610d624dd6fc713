/*
 * semihost.c -- ARM semihosting calls for the LightNet Cortex-M4 firmware.
 *
 * A semihosting call is `bkpt 0xAB` with the operation in r0 and its
 * argument in r1; the debugger (here qemu -semihosting) performs it on the
 * host. Only SYS_WRITE0 (0x04) and SYS_EXIT (0x18) are used. Numbers are
 * formatted here instead of with printf: the firmware then links no stdio,
 * and the memory report shows only the model, the runtime and this glue.
 */
#include "semihost.h"

#define SYS_WRITE0 0x04
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUNTIME_ERROR_UNKNOWN 0x20023u

static int sh_call(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void sh_puts(const char *s)
{
    sh_call(SYS_WRITE0, s);
}

void sh_put_u64(uint64_t v)
{
    char b[24];
    int i = 23;
    b[i] = 0;
    do {
        b[--i] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v && i > 0);
    sh_puts(b + i);
}

void sh_put_i32(int32_t v)
{
    if (v < 0) {
        sh_puts("-");
        sh_put_u64((uint64_t)(-(int64_t)v));
    } else {
        sh_put_u64((uint64_t)v);
    }
}

/* %g-like with `digits` (1..9) significant digits. Good enough for a
 * console line; the comparison itself is done on the floats. */
void sh_put_float(float f, int digits)
{
    char b[32];
    int n = 0, e = 0, i, point;
    double v = f;
    uint32_t m, p10 = 1;

    if (v != v) {
        sh_puts("nan");
        return;
    }
    if (v < 0) {
        b[n++] = '-';
        v = -v;
    }
    if (v > 3.4e38) {
        b[n] = 0;
        sh_puts(b);
        sh_puts("inf");
        return;
    }
    if (digits < 1)
        digits = 1;
    if (digits > 9)
        digits = 9;
    for (i = 1; i < digits; i++)
        p10 *= 10u;
    if (v != 0) {
        while (v >= 10.0) {
            v /= 10.0;
            e++;
        }
        while (v < 1.0) {
            v *= 10.0;
            e--;
        }
    }
    m = (uint32_t)(v * p10 + 0.5); /* digits significant digits */
    if (m >= p10 * 10u) {
        m /= 10u;
        e++;
    }
    point = (e >= -4 && e < digits) ? e : 0; /* fixed or exponent form */
    {
        char d[12];
        int nd = digits;
        for (i = nd - 1; i >= 0; i--) {
            d[i] = (char)('0' + m % 10u);
            m /= 10u;
        }
        while (nd > 1 && d[nd - 1] == '0' && nd - 1 > point)
            nd--; /* drop trailing zeros after the point */
        if (point < 0) {
            b[n++] = '0';
            b[n++] = '.';
            for (i = 0; i < -point - 1; i++)
                b[n++] = '0';
            for (i = 0; i < nd; i++)
                b[n++] = d[i];
        } else {
            for (i = 0; i < nd; i++) {
                b[n++] = d[i];
                if (i == point && i < nd - 1)
                    b[n++] = '.';
            }
            for (; i <= point; i++)
                b[n++] = '0';
        }
        if (!(e >= -4 && e < digits)) {
            b[n++] = 'e';
            b[n++] = e < 0 ? '-' : '+';
            if (e < 0)
                e = -e;
            b[n++] = (char)('0' + e / 10);
            b[n++] = (char)('0' + e % 10);
        }
    }
    b[n] = 0;
    sh_puts(b);
}

void sh_exit(int status)
{
    /* On AArch32, SYS_EXIT takes the reason code itself in r1. */
    sh_call(SYS_EXIT, (const void *)(uintptr_t)(status == 0
                          ? ADP_STOPPED_APPLICATION_EXIT
                          : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
    for (;;)
        ;
}
