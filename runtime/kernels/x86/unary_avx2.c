/*
 * unary_avx2.c -- exp, log, tanh, erf and softplus over arrays for
 * AVX2: unary_math.h's loops compiled for it (GCC vectorizes them 8
 * lanes wide); the same bits as the portable loops in unary_f32.c.
 */
/* GCC may compute both arms of the math's selects only without
 * -ftrapping-math (its default; clang's is off): with it, jump threading
 * leaves branches in the loops and GCC vectorizes them only where AVX-512
 * masks every operation. Values are the same either way (no exception
 * flag is read anywhere in the runtime). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif
#include "ln_rt_internal.h"

#if LN_RT_HAVE_AVX2
LN_RT_TARGET_AVX2_PRAGMA
#define UM_PREFIX ln_rt__unary_avx2
#define UM_LINK
#include "unary_math.h"
#else
typedef int ln_rt__unary_avx2_unused; /* ISO C wants a non-empty file */
#endif
