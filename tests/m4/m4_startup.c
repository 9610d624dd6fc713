/*
 * m4_startup.c -- bare-metal start-up and semihosting for the Cortex-M4
 * kernel-test firmware: vector table, reset handler (enables the FPU through
 * CPACR, copies .data, zeroes .bss, calls main) and three semihosting calls
 * (BKPT 0xAB): write a string, and exit with ADP_Stopped_ApplicationExit
 * (QEMU exit status 0) or ADP_Stopped_RunTimeErrorUnknown (status 1).
 */
#include <stdint.h>
#include "m4_semihost.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);
void Reset_Handler(void);
void Fault_Handler(void);

static int sh_call(int op, const void *arg)
{
    register int r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void sh_puts(const char *s)
{
    sh_call(0x04, s); /* SYS_WRITE0 */
}

void sh_exit(int ok)
{
    /* SYS_EXIT: on AArch32 r1 holds the reason code itself */
    sh_call(0x18, (const void *)(uintptr_t)(ok ? 0x20026u : 0x20023u));
    for (;;)
        ;
}

void Fault_Handler(void)
{
    sh_puts("FAULT: hard fault or other exception\n");
    sh_exit(0);
}

void Reset_Handler(void)
{
    uint32_t *src = &_sidata, *dst;
    volatile uint32_t *cpacr = (volatile uint32_t *)0xE000ED88u;
    *cpacr |= 0xFu << 20; /* CP10, CP11 full access: FPU on */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    for (dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
    sh_exit(main() == 0);
}

__attribute__((section(".isr_vector"), used))
static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack,
    Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, Fault_Handler, 0, 0, 0, 0, Fault_Handler, Fault_Handler,
    0, Fault_Handler, Fault_Handler,
};
