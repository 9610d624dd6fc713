/*
 * calibrate.c -- measures the SysTick tick unit under qemu -icount.
 *
 * Runs a loop of exactly 2*n + 1 instructions (mov, then n x (subs, bne);
 * the last bne falls through) for two values of n and prints
 * the ticks each took and instructions per tick from the difference (which
 * cancels the fixed cost of reading the counter). With `-icount shift=0`
 * and the 25 MHz processor clock this is 40. A third loop runs past the
 * 24-bit SysTick wrap to check the wrap counting. Finally it reads the
 * DWT cycle counter around a loop, to show whether QEMU models it.
 * Run: make calibrate.
 */
#include <stdint.h>
#include "cycles.h"
#include "semihost.h"

int main(void);

/* 1 (mov) + 2 * n (subs, bne) instructions; the last bne falls through. */
static void __attribute__((noinline)) spin(uint32_t n)
{
    __asm__ volatile("mov r0, %0\n"
                     "1: subs r0, r0, #1\n"
                     "   bne 1b\n"
                     :
                     : "r"(n)
                     : "r0", "cc");
}

static uint64_t ticks_for(uint32_t n)
{
    uint64_t t0, t1;
    t0 = cycles_now();
    spin(n);
    t1 = cycles_now();
    return t1 - t0;
}

#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)

int main(void)
{
    const uint32_t n1 = 1000000u, n2 = 5000000u, n3 = 400000000u;
    uint64_t t1, t2, t3, d;
    uint32_t c0, c1;

    cycles_start();
    t1 = ticks_for(n1);
    t2 = ticks_for(n2);
    d = t2 - t1; /* 2 * (n2 - n1) instructions */
    sh_puts("loop of ");
    sh_put_u64(2ull * n1 + 1);
    sh_puts(" instructions: ");
    sh_put_u64(t1);
    sh_puts(" ticks\nloop of ");
    sh_put_u64(2ull * n2 + 1);
    sh_puts(" instructions: ");
    sh_put_u64(t2);
    sh_puts(" ticks\ninstructions per tick (difference): ");
    sh_put_float((float)(2.0 * (n2 - n1) / (double)d), 6);
    sh_puts("\n");
    t3 = ticks_for(n3); /* 800M instructions: SysTick wraps once */
    sh_puts("loop of ");
    sh_put_u64(2ull * n3 + 1);
    sh_puts(" instructions (past the 24-bit wrap): ");
    sh_put_u64(t3);
    sh_puts(" ticks = ");
    sh_put_float((float)((2.0 * n3 + 1) / (double)t3), 6);
    sh_puts(" instructions per tick\n");
    cycles_stop();

    DEMCR |= 1u << 24; /* TRCENA */
    DWT_CTRL |= 1u;    /* CYCCNTENA */
    c0 = DWT_CYCCNT;
    spin(n1);
    c1 = DWT_CYCCNT;
    sh_puts("DWT_CYCCNT across the first loop: ");
    sh_put_u64(c1 - c0);
    sh_puts(c1 == c0 ? " (not modelled by this QEMU)\n" : "\n");
    return 0;
}
