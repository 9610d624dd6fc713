/*
 * softmax_s8.c -- int8 softmax with TensorFlow Lite's integer arithmetic
 * (ln_rt.h): int8 in, int8 out at scale 1/256 and zero point -128.
 *
 * Fixed point: a Qm value is an int32 raw / 2^(31 - m).  Each input's
 * difference from its row's maximum is rescaled into Q5 (input_mult,
 * input_left_shift), exp of it (<= 0) evaluated in Q0 by a polynomial on
 * [-1/4, 0) and a product of exp(-2^k) for the bits above, the exps summed
 * in Q12, the sum's reciprocal found by Newton-Raphson in Q2, and each
 * output is exp * reciprocal rounded to 8 bits.  Differences below
 * diff_min give the smallest output, and so does every element of a row
 * whose exps sum to 2^9 or more (only rows of more than 511 elements):
 * each is then at most 1/512, half a step, and the rounding divide by
 * 2^(bits over unit + 23) that TFLite applies would shift by 32 or more,
 * which its integer arithmetic does not define.  The constants are exp(-1/8), 1/3,
 * 48/17, -32/17 and exp(-2^k), k = -2..4, in their Q formats.
 */
#include "ln_rt_internal.h"

/* x * 2^e, saturated (e > 0), or rounded (e < 0) */
static int32_t mul_pot(int32_t x, int e)
{
    int32_t threshold;

    if (e <= 0)
        return ln_rt__rdivpot(x, -e);
    threshold = (int32_t)(((int64_t)1 << (31 - e)) - 1);
    if (x > threshold)
        return INT32_MAX;
    if (x < -threshold)
        return INT32_MIN;
    return (int32_t)((uint32_t)x << e);
}

/* exp(a) for a in [-1/4, 0), Q0 in and out */
static int32_t exp_quarter(int32_t a)
{
    const int32_t c_exp_m1_8 = 1895147668, c_1_3 = 715827883;
    int32_t x = a + (1 << 28);                      /* a + 1/8 */
    int32_t x2 = ln_rt__srdhm(x, x), x3 = ln_rt__srdhm(x2, x), x4 = ln_rt__srdhm(x2, x2);
    int32_t x4_4 = mul_pot(x4, -2);
    int32_t poly = mul_pot(ln_rt__srdhm(x4_4 + x3, c_1_3) + x2, -1);

    return c_exp_m1_8 + ln_rt__srdhm(c_exp_m1_8, x + poly);
}

/* exp(a) for a <= 0: a in Q5, the result in Q0 */
static int32_t exp_negative(int32_t a)
{
    static const int32_t mults[7] = {1672461947, 1302514674, 790015084, 290630308,
                                     39332535, 720401, 242};
    const int32_t quarter = 1 << 24, mask = quarter - 1;
    int32_t amq = (a & mask) - quarter;             /* a mod 1/4, minus 1/4 */
    int32_t result = exp_quarter(mul_pot(amq, 5)), rem = amq - a;

    for (int k = -2; k <= 4; k++)
        if (rem & ((int32_t)1 << (26 + k)))
            result = ln_rt__srdhm(result, mults[k + 2]);
    return a == 0 ? INT32_MAX : result;
}

/* 1 / (1 + x) for x in [0, 1): Q0 in and out */
static int32_t one_over_one_plus(int32_t a)
{
    int64_t sum = (int64_t)a + INT32_MAX;
    int32_t half_den = (int32_t)((sum + (sum >= 0 ? 1 : -1)) / 2);
    int32_t x = 1515870810 + ln_rt__srdhm(half_den, -1010580540);   /* Q2 */

    for (int i = 0; i < 3; i++) {
        int32_t hx = ln_rt__srdhm(half_den, x);                   /* Q2 */
        int32_t one_minus = (1 << 29) - hx;                       /* Q2 */
        x = x + mul_pot(ln_rt__srdhm(x, one_minus), 2);           /* Q4 -> Q2 */
    }
    return mul_pot(x, 1);                                         /* x / 2: Q1 -> Q0 */
}

static int clz32(uint32_t x)
{
    int n = 0;

    if (x == 0)
        return 32;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

void ln_rt_softmax_s8(int32_t rows, int32_t row_size, int32_t input_mult,
                      int32_t input_left_shift, int32_t diff_min, const int8_t *x,
                      int8_t *y)
{
    for (int32_t r = 0; r < rows; r++) {
        const int8_t *xr = x + (size_t)r * row_size;
        int8_t *yr = y + (size_t)r * row_size;
        int32_t max = -128, sum = 0, scale, bits_over_unit, headroom;

        for (int32_t i = 0; i < row_size; i++)
            max = xr[i] > max ? xr[i] : max;
        for (int32_t i = 0; i < row_size; i++) {
            int32_t d = (int32_t)xr[i] - max;
            if (d >= diff_min) {
                int32_t q5 = ln_rt__srdhm((int32_t)((uint32_t)d << input_left_shift), input_mult);
                sum += mul_pot(exp_negative(q5), -12);             /* Q0 -> Q12 */
            }
        }
        headroom = clz32((uint32_t)sum);
        bits_over_unit = 12 - headroom;
        scale = one_over_one_plus((int32_t)(((uint32_t)sum << headroom) - (1u << 31)));
        for (int32_t i = 0; i < row_size; i++) {
            int32_t d = (int32_t)xr[i] - max;
            if (d >= diff_min && bits_over_unit <= 8) {
                int32_t q5 = ln_rt__srdhm((int32_t)((uint32_t)d << input_left_shift), input_mult);
                int32_t o = ln_rt__rdivpot(ln_rt__srdhm(scale, exp_negative(q5)),
                                           bits_over_unit + 31 - 8) - 128;
                yr[i] = ln_rt__clamp_s8(o, -128, 127);
            } else {
                yr[i] = -128;
            }
        }
    }
}
