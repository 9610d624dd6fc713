/* semihost.h -- console output and exit through ARM semihosting (BKPT
 * 0xAB), which qemu-system-arm -semihosting serves: SYS_WRITE0 prints a
 * NUL-terminated string on qemu's stdout, SYS_EXIT ends qemu with exit
 * status 0 (ADP_Stopped_ApplicationExit) or 1 (anything else). Plus the
 * few number formatters the firmware needs, so no printf is linked. */
#ifndef SEMIHOST_H
#define SEMIHOST_H

#include <stdint.h>

void sh_puts(const char *s);
void sh_put_u64(uint64_t v);
void sh_put_i32(int32_t v);
/* v with `digits` significant digits, %g-like: 1.23457e-05, -0.514079 */
void sh_put_float(float v, int digits);
void sh_exit(int status) __attribute__((noreturn));

#endif
