/*
 * elementwise_s8.c -- int8 add, mul, maximum, minimum and pad with
 * TensorFlow Lite's arithmetic, and table lookup (ln_rt.h).
 */
#include "ln_rt_internal.h"

/*
 * TFLite's ADD shifts both offset inputs left by 20 and requantizes each to
 * the common scale 2 max(s1, s2).  When s1 = s2 both multipliers are 1/2
 * exactly (2^30 with shift 0), and an even number times 1/2 is exact in
 * both roundings (srdhm's and the single one): the two requantizations are
 * ((x1 + off1) + (x2 + off2)) << 19, one add.  When the output's scale is
 * the inputs' too, its multiplier is 2^-19 (2^30, shift -18), exact on that
 * sum: y = x1 + x2 + (off1 + off2 + out_off), clamped.  Both paths are
 * taken on the arguments' values alone, so they equal the general one.
 */
static int add_equal_inputs(const ln_rt_s8_binary_args *a)
{
    return a->in1_mult == 1073741824 && a->in2_mult == 1073741824 && a->in1_shift == 0 &&
           a->in2_shift == 0 && a->left_shift >= 2 && a->left_shift <= 22;
}

static int add_equal_all(const ln_rt_s8_binary_args *a)
{
    return add_equal_inputs(a) && a->output_mult == 1073741824 &&
           a->output_shift == 2 - a->left_shift;
}

void ln_rt_add_s8(const ln_rt_s8_binary_args *a, const int8_t *x1, const int8_t *x2,
                  int8_t *y, size_t n)
{
    if (add_equal_all(a)) {
        int32_t off = a->in1_offset + a->in2_offset + a->output_offset;
        for (size_t i = 0; i < n; i++)
            y[i] = ln_rt__clamp_s8((int32_t)x1[i] + (int32_t)x2[i] + off, a->act_min, a->act_max);
    } else if (add_equal_inputs(a)) {
        int32_t off = a->in1_offset + a->in2_offset, ls = a->left_shift - 1;
        for (size_t i = 0; i < n; i++) {
            int32_t s = (int32_t)((uint32_t)((int32_t)x1[i] + (int32_t)x2[i] + off) << ls);
            int32_t r = ln_rt__requant(s, a->output_mult, a->output_shift) + a->output_offset;
            y[i] = ln_rt__clamp_s8(r, a->act_min, a->act_max);
        }
    } else {
        for (size_t i = 0; i < n; i++)
            y[i] = ln_rt__add_s8(a, x1[i], x2[i]);
    }
}

void ln_rt_mul_s8(const ln_rt_s8_binary_args *a, const int8_t *x1, const int8_t *x2,
                  int8_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = ln_rt__mul_s8(a, x1[i], x2[i]);
}

/* y[b][h][w][c] = op(x1, x2) with 4-D broadcasting (a dim of 1 repeats). */
static void broadcast4(const int32_t *d1, const int8_t *x1, const int32_t *d2,
                       const int8_t *x2, int8_t *y, int is_max)
{
    int32_t dy[4];
    size_t st1[4], st2[4], s1 = 1, s2 = 1, i = 0;

    for (int d = 3; d >= 0; d--) {
        dy[d] = d1[d] > d2[d] ? d1[d] : d2[d];
        st1[d] = d1[d] == 1 ? 0 : s1;
        st2[d] = d2[d] == 1 ? 0 : s2;
        s1 *= (size_t)d1[d];
        s2 *= (size_t)d2[d];
    }
    for (int32_t b = 0; b < dy[0]; b++)
        for (int32_t h = 0; h < dy[1]; h++)
            for (int32_t w = 0; w < dy[2]; w++)
                for (int32_t c = 0; c < dy[3]; c++) {
                    int8_t u = x1[b * st1[0] + h * st1[1] + w * st1[2] + c * st1[3]];
                    int8_t v = x2[b * st2[0] + h * st2[1] + w * st2[2] + c * st2[3]];
                    y[i++] = is_max ? (u > v ? u : v) : (u < v ? u : v);
                }
}

void ln_rt_maximum_s8(const int32_t *x1_dims, const int8_t *x1, const int32_t *x2_dims,
                      const int8_t *x2, int8_t *y)
{
    broadcast4(x1_dims, x1, x2_dims, x2, y, 1);
}

void ln_rt_minimum_s8(const int32_t *x1_dims, const int8_t *x1, const int32_t *x2_dims,
                      const int8_t *x2, int8_t *y)
{
    broadcast4(x1_dims, x1, x2_dims, x2, y, 0);
}

void ln_rt_pad_nhwc_s8(const int32_t *dims, const int32_t *pre, const int32_t *post, int8_t value,
                  const int8_t *x, int8_t *y)
{
    int32_t od[4];
    size_t i = 0;

    for (int d = 0; d < 4; d++)
        od[d] = pre[d] + dims[d] + post[d];
    for (int32_t b = 0; b < od[0]; b++)
        for (int32_t h = 0; h < od[1]; h++)
            for (int32_t w = 0; w < od[2]; w++)
                for (int32_t c = 0; c < od[3]; c++) {
                    int32_t ib = b - pre[0], ih = h - pre[1], iw = w - pre[2], ic = c - pre[3];
                    int inside = ib >= 0 && ib < dims[0] && ih >= 0 && ih < dims[1] &&
                                 iw >= 0 && iw < dims[2] && ic >= 0 && ic < dims[3];
                    y[i++] = inside ? x[(((size_t)ib * dims[1] + ih) * dims[2] + iw) * dims[3] + ic]
                                    : value;
                }
}

void ln_rt_lut_s8(const int8_t *table, const int8_t *x, int8_t *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = table[(int32_t)x[i] + 128];
}
