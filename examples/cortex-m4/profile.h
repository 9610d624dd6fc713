/* profile.h -- per-op instruction counts of the profiled firmware
 * (`make PROFILE=1 run`; profile.c defines model_profile_hook). */
#ifndef PROFILE_H
#define PROFILE_H

#include <stdint.h>

/* Record the hook's calls from now on (1) or ignore them (0). */
void fw_profile_arm(int on);
/* Print the per-op and per-type tables of the last armed run, and their
 * sum against run_ticks, that run's SysTick ticks around model_run. */
void fw_profile_print(uint64_t run_ticks);

#endif
