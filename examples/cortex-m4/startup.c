/*
 * startup.c -- bare-metal start-up for LightNet firmware on QEMU's
 * mps2-an386 (Cortex-M4F): the vector table, the reset handler, and the
 * fault handler.
 *
 * Reset_Handler enables the FPU (CP10/CP11 full access in CPACR) before
 * anything can touch a float register, copies .data from its load address
 * in flash, zeroes .bss, and calls main; main's return value becomes
 * qemu's exit status through semihosting SYS_EXIT. Faults print their
 * status registers and exit with status 1, so a crashed model fails a test
 * instead of hanging it. SysTick's handler lives in cycles.c.
 */
#include <stdint.h>
#include "semihost.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);
void Reset_Handler(void) __attribute__((noreturn));
void Fault_Handler(void) __attribute__((noreturn));
void Default_Handler(void) __attribute__((noreturn));
void SysTick_Handler(void);

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28u)
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2Cu)
#define SCB_MMFAR (*(volatile uint32_t *)0xE000ED34u)
#define SCB_BFAR (*(volatile uint32_t *)0xE000ED38u)

void Reset_Handler(void)
{
    uint32_t *src = &_sidata, *dst;

    SCB_CPACR |= 0xFu << 20; /* CP10, CP11: full access -> FPU on */
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    for (dst = &_sdata; dst < &_edata;)
        *dst++ = *src++;
    for (dst = &_sbss; dst < &_ebss;)
        *dst++ = 0;
    sh_exit(main());
}

static void put_hex(const char *name, uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    char b[11];
    int i;
    b[0] = '0';
    b[1] = 'x';
    for (i = 0; i < 8; i++)
        b[2 + i] = hex[(v >> (28 - 4 * i)) & 0xFu];
    b[10] = 0;
    sh_puts(name);
    sh_puts(b);
}

void Fault_Handler(void)
{
    sh_puts("FAULT:");
    put_hex(" CFSR=", SCB_CFSR);
    put_hex(" HFSR=", SCB_HFSR);
    put_hex(" MMFAR=", SCB_MMFAR);
    put_hex(" BFAR=", SCB_BFAR);
    sh_puts("\nFAIL\n");
    sh_exit(1);
}

void Default_Handler(void)
{
    sh_puts("unexpected exception\nFAIL\n");
    sh_exit(1);
}

/* The 16 system exception vectors; the board's 32 IRQs are not used. */
__attribute__((section(".isr_vector"), used))
static void (*const vectors[16])(void) = {
    (void (*)(void))(uintptr_t)&_estack, /* initial MSP */
    Reset_Handler,
    Fault_Handler,   /* NMI */
    Fault_Handler,   /* HardFault */
    Fault_Handler,   /* MemManage */
    Fault_Handler,   /* BusFault */
    Fault_Handler,   /* UsageFault */
    0, 0, 0, 0,
    Default_Handler, /* SVCall */
    Default_Handler, /* DebugMon */
    0,
    Default_Handler, /* PendSV */
    SysTick_Handler,
};
