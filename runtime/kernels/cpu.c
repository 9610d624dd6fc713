/*
 * cpu.c -- which x86-64 kernels this process runs (ln_rt_internal.h,
 * LN_RT_DISPATCH): the CPU's level by cpuid, found once (libgcc's
 * __builtin_cpu_supports, which also asks the OS whether it saves the AVX
 * and AVX-512 registers), capped by ln_rt_isa_limit().  Racing first calls
 * from two threads store the same value.
 */
#include "ln_rt_internal.h"

#if LN_RT_DISPATCH
static int cpu_level = -1;
static int level_cap = 2;

static int detect(void)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma"))
        return 0;
    return __builtin_cpu_supports("avx512f") ? 2 : 1;
}

int ln_rt__x86_level(void)
{
    if (cpu_level < 0)
        cpu_level = detect();
    return cpu_level < level_cap ? cpu_level : level_cap;
}
#endif

int ln_rt_isa_limit(int level)
{
#if LN_RT_DISPATCH
    if (level >= 0)
        level_cap = level;
    return ln_rt__x86_level();
#else
    (void)level;
    return LN_RT_HAVE_AVX512 ? 2 : LN_RT_HAVE_AVX2 ? 1 : 0;
#endif
}
