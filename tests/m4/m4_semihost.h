/* m4_semihost.h -- semihosting output and exit for the M4 test firmware. */
#ifndef M4_SEMIHOST_H
#define M4_SEMIHOST_H
void sh_puts(const char *s);
void sh_exit(int ok);
#endif
