/*
 * cycles.c -- SysTick as a free-running 64-bit tick counter.
 *
 * SYST_CVR counts down from SYST_RVR = 0xFFFFFF at the processor clock; at
 * zero it reloads and raises SysTick, whose handler adds one wrap. A read
 * takes wraps, CVR, wraps again and retries when a wrap came in between,
 * so the pair is consistent. The handler costs a few dozen instructions
 * per 2^24 ticks (671 million instructions), far below the tick unit.
 * DWT_CYCCNT would be the usual Cortex-M cycle counter, but QEMU 7.2 does
 * not model the DWT (its registers read as zero), so SysTick it is.
 */
#include "cycles.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYST_ENABLE 1u
#define SYST_TICKINT 2u
#define SYST_CLKSOURCE 4u /* 1 = processor clock, 0 = external refclk */
#define RELOAD 0xFFFFFFu

void SysTick_Handler(void);

static volatile uint32_t wraps;

void SysTick_Handler(void)
{
    wraps++;
}

void cycles_start(void)
{
    SYST_CSR = 0;
    SYST_RVR = RELOAD;
    SYST_CVR = 0; /* any write clears it: reload on the next tick */
    wraps = 0;
    SYST_CSR = SYST_ENABLE | SYST_TICKINT | SYST_CLKSOURCE;
    while (SYST_CVR == 0)
        ; /* the first tick loads RELOAD without a wrap: start there */
}

void cycles_stop(void)
{
    SYST_CSR = 0;
}

uint64_t cycles_now(void)
{
    uint32_t w, v;
    do {
        w = wraps;
        v = SYST_CVR;
    } while (w != wraps);
    return (uint64_t)w * (RELOAD + 1u) + (RELOAD - v);
}
