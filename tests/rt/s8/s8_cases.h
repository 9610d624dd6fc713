/*
 * s8_cases.h -- the TensorFlow Lite int8 reference cases as C data
 * (s8_cases.c, written by gen_cases.py from tests/rt/s8/ref) and the
 * check that runs each through its libln_rt kernel (s8_check.c).
 */
#ifndef S8_CASES_H
#define S8_CASES_H

#include <stddef.h>
#include <stdint.h>

enum { S8_CONV, S8_DEPTHWISE, S8_TRANSPOSE_CONV, S8_FC, S8_AVGPOOL, S8_MAXPOOL, S8_ADD, S8_MUL,
       S8_MAXIMUM, S8_MINIMUM, S8_PAD, S8_SOFTMAX };

typedef struct s8_cfg {
    int32_t n, h, w, c, oh, ow, oc, kh, kw, sh, sw, dh, dw, pt, pl, group, mult;
    int32_t in_off, in2_off, w_off, out_off, lo, hi, per_ch, mult1, shift1;
    int32_t m1, s1, m2, s2, left, diff_min, value, size;
    int32_t d1[4], d2[4], pre[4], post[4];
} s8_cfg;

typedef struct s8_case {
    const char *name;
    int kind;
    size_t n_ref;
    s8_cfg cfg;
    const int8_t *in1, *in2, *w;
    const int32_t *bias, *mult, *shift;
    const int8_t *ref;
} s8_case;

extern const s8_case s8_cases[];

/* Runs every case; out(line) gets one line per failing case and a summary.
 * Returns the number of failing cases; *n_cases the number run. */
int s8_check_all(void (*out)(const char *line), int *n_cases);
/* ln_rt_conv2d_nchw_s8 against the definition on n random geometries
 * (seeded); the number of failures, *n_checked the geometries run. */
/* ln_rt_fully_connected_s8 against the definition on random shapes. */
int s8_check_fc_random(int n_shapes, uint32_t seed, void (*report)(const char *line),
                       int *n_checked);
/* ln_rt_s8_requantize against TFLite's fixed-point definitions. */
int s8_check_fixed_point(void (*report)(const char *line), int *n_checked);
/* ln_rt_quantize_s8/_u8 against rintf + zero point, saturated. */
int s8_check_quantize(void (*report)(const char *line), int *n_checked);
int s8_check_nchw_random(int n_geometries, uint32_t seed, void (*report)(const char *line),
                         int *n_checked);
/* ln_rt_add_s8 / ln_rt_add_bcast_s8 (their fast paths of equal scales)
 * against TFLite's ADD on every int8 pair, n_sets argument sets. */
int s8_check_add_equal_scales(int n_sets, uint32_t seed, void (*report)(const char *line),
                              int *n_checked);

#endif
