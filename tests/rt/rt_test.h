/*
 * rt_test.h -- helpers shared by the libln_rt kernel tests: a deterministic
 * random generator, buffers, and the error measure every test states its
 * tolerance in: max over elements of |got - ref| / max(|ref|, 1), i.e.
 * relative error for values above 1 and absolute error below.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ln_rt.h"
#include "ln_rt_internal.h"

Suite *rt_elementwise_suite(void);
Suite *rt_conv_suite(void);
Suite *rt_gemm_suite(void);
Suite *rt_pool_suite(void);
Suite *rt_norm_suite(void);
Suite *rt_movement_suite(void);
Suite *rt_s8_suite(void);
Suite *rt_rnn_suite(void);
Suite *rt_integer_suite(void);
Suite *rt_resize_suite(void);
Suite *rt_einsum_suite(void);
Suite *rt_conv3d_suite(void);
Suite *rt_loss_suite(void);
Suite *rt_misc_suite(void);
Suite *rt_spectral_suite(void);
Suite *rt_detect_suite(void);
Suite *rt_dtypes_suite(void);

/* every GEMM ISA this build has; tests run each against the reference */
static const ln_rt__gemm_isa *const rt_isas[] = {
    &ln_rt__gemm_isa_c,
#if LN_RT_HAVE_AVX2
    &ln_rt__gemm_isa_avx2,
#endif
#if LN_RT_HAVE_AVX512
    &ln_rt__gemm_isa_avx512,
#endif
};
/* those this CPU runs (the list is in level order): a build by GCC has
 * all three, and ln_rt_isa_limit() or the CPU may leave some out */
#define RT_NISA (1 + (LN_RT_HAVE_AVX2 && LN_RT_CPU_AVX2) + (LN_RT_HAVE_AVX512 && LN_RT_CPU_AVX512))

static inline uint32_t rt_rand(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* uniform in [lo, hi) */
static inline void rt_fill(float *p, size_t n, float lo, float hi,
                           uint32_t seed)
{
    size_t i;
    uint32_t s = seed * 2654435761u + 1u;
    for (i = 0; i < n; i++)
        p[i] = lo + (hi - lo) * (float)(rt_rand(&s) & 0xffffff) / 16777216.0f;
}

static inline float *rt_alloc(size_t n)
{
    float *p = malloc((n ? n : 1) * sizeof(float));
    ck_assert_ptr_nonnull(p);
    return p;
}

static inline double *rt_allocd(size_t n)
{
    double *p = calloc(n ? n : 1, sizeof(double));
    ck_assert_ptr_nonnull(p);
    return p;
}

static inline void *rt_scratch(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

static inline double rt_err(const float *got, const double *ref, size_t n)
{
    double m = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double r = ref[i], d = fabs((double)got[i] - r);
        double e;
        if (isnan(r) || isnan((double)got[i]))
            return isnan(r) && isnan((double)got[i]) ? m : INFINITY;
        if (isinf(r))
            e = (double)got[i] == r ? 0.0 : INFINITY;
        else
            e = d / (fabs(r) > 1.0 ? fabs(r) : 1.0);
        if (e > m)
            m = e;
    }
    return m;
}

static inline double rt_err_ff(const float *got, const float *ref, size_t n)
{
    double m = 0.0;
    size_t i;
    for (i = 0; i < n; i++) {
        double r = ref[i], d = fabs((double)got[i] - r);
        double e = d / (fabs(r) > 1.0 ? fabs(r) : 1.0);
        if (!(e <= m))
            m = e;
    }
    return m;
}

#define RT_CHECK(got, ref, n, tol, what)                                    \
    do {                                                                    \
        double e_ = rt_err((got), (ref), (n));                              \
        ck_assert_msg(e_ <= (tol), "%s: max rel err %g > %g", (what), e_,  \
                      (double)(tol));                                       \
    } while (0)

static inline double rt_act(double v, ln_rt_act act, double a, double b)
{
    switch (act) {
    case LN_RT_ACT_RELU: return v > 0 ? v : 0;
    case LN_RT_ACT_RELU6: return v < 0 ? 0 : v > 6 ? 6 : v;
    case LN_RT_ACT_LEAKYRELU: return v < 0 ? v * a : v;
    case LN_RT_ACT_CLIP: return v < a ? a : v > b ? b : v;
    case LN_RT_ACT_SILU: return v / (1 + exp(-v));
    case LN_RT_ACT_HARDSWISH: return v * (v <= -3 ? 0 : v >= 3 ? 1 : v / 6 + 0.5);
    default: return v;
    }
}

/* the number of ln_rt_act values (LN_RT_ACT_HARDSWISH the last): random
 * cases draw act below it */
#define RT_N_ACT ((int)LN_RT_ACT_HARDSWISH + 1)

#endif
