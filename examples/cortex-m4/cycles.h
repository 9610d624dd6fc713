/* cycles.h -- a 64-bit guest clock count from SysTick.
 *
 * SysTick runs from the processor clock (CLKSOURCE = 1), which QEMU's
 * mps2-an386 model clocks at 25 MHz. Under `qemu -icount shift=0` the guest
 * clock advances 1 ns per executed instruction, so one SysTick tick is
 * 40 instructions (CYCLES_INSNS_PER_TICK; `make calibrate` measures it).
 * The 24-bit counter wraps every 2^24 ticks; SysTick_Handler counts the
 * wraps, so cycles_now() is monotonic for 2^64 ticks. */
#ifndef CYCLES_H
#define CYCLES_H

#include <stdint.h>

#define CYCLES_INSNS_PER_TICK 40u

void cycles_start(void);
void cycles_stop(void);
uint64_t cycles_now(void); /* SysTick ticks since cycles_start() */

#endif
