/*
 * gemv_f32_m4.c -- the one-row float product (a batch-1 fully connected
 * layer with PyTorch's [N][K] weights) for the Cortex-M4's FPv4 unit: four
 * output rows at a time, each summed in a scalar register (VFMA with
 * -ffp-contract=fast), one load of x per eight products.  The portable
 * version keeps eight partial sums in an array, which GCC leaves in memory
 * on the M4 (about 8 instructions per product; this one about 2.4).  The
 * summation order differs from the portable kernel's: float results agree
 * to rounding, as between the host's AVX and portable kernels.
 */
#include "ln_rt_internal.h"

#if defined(__ARM_ARCH_7EM__) && defined(__ARM_FP)
static float finish1(float t, float alpha, const float *y, int accumulate)
{
    return accumulate ? *y + alpha * t : alpha * t;
}

void ln_rt__gemv_m4(int32_t n, int32_t k, const float *x, const float *B, int trans_b,
                    float alpha, float *y, int accumulate)
{
    int32_t j = 0;

    if (!trans_b) {
        ln_rt__gemv_c(n, k, x, B, trans_b, alpha, y, accumulate);
        return;
    }
    for (; j + 8 <= n; j += 8) {
        const float *b0 = B + (size_t)j * k, *b1 = b0 + k, *b2 = b1 + k, *b3 = b2 + k;
        const float *b4 = b3 + k, *b5 = b4 + k, *b6 = b5 + k, *b7 = b6 + k;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f, s4 = 0.0f, s5 = 0.0f, s6 = 0.0f,
              s7 = 0.0f;
        for (int32_t p = 0; p < k; p++) {
            float xv = x[p];
            s0 += xv * b0[p];
            s1 += xv * b1[p];
            s2 += xv * b2[p];
            s3 += xv * b3[p];
            s4 += xv * b4[p];
            s5 += xv * b5[p];
            s6 += xv * b6[p];
            s7 += xv * b7[p];
        }
        y[j] = finish1(s0, alpha, y + j, accumulate);
        y[j + 1] = finish1(s1, alpha, y + j + 1, accumulate);
        y[j + 2] = finish1(s2, alpha, y + j + 2, accumulate);
        y[j + 3] = finish1(s3, alpha, y + j + 3, accumulate);
        y[j + 4] = finish1(s4, alpha, y + j + 4, accumulate);
        y[j + 5] = finish1(s5, alpha, y + j + 5, accumulate);
        y[j + 6] = finish1(s6, alpha, y + j + 6, accumulate);
        y[j + 7] = finish1(s7, alpha, y + j + 7, accumulate);
    }
    for (; j + 4 <= n; j += 4) {
        const float *b0 = B + (size_t)j * k, *b1 = b0 + k, *b2 = b1 + k, *b3 = b2 + k;
        float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
        for (int32_t p = 0; p < k; p++) {
            float xv = x[p];
            s0 += xv * b0[p];
            s1 += xv * b1[p];
            s2 += xv * b2[p];
            s3 += xv * b3[p];
        }
        y[j] = finish1(s0, alpha, y + j, accumulate);
        y[j + 1] = finish1(s1, alpha, y + j + 1, accumulate);
        y[j + 2] = finish1(s2, alpha, y + j + 2, accumulate);
        y[j + 3] = finish1(s3, alpha, y + j + 3, accumulate);
    }
    for (; j < n; j++) {
        const float *b = B + (size_t)j * k;
        float s = 0.0f;
        for (int32_t p = 0; p < k; p++)
            s += x[p] * b[p];
        y[j] = finish1(s, alpha, y + j, accumulate);
    }
}
#else
typedef int ln_rt__gemv_f32_m4_unused;  /* ISO C: no empty translation unit */
#endif
